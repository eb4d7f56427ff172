#include "jsonout.h"

#include <math.h>
#include <stdio.h>

struct jsonout jsonout_begin(void)
{
    struct jsonout o;
    o.obj = cJSON_CreateObject();
    o.failed = o.obj == NULL;
    return o;
}

static void check(struct jsonout *o, const cJSON *added)
{
    if (added == NULL)
        o->failed = true;
}

void jsonout_string(struct jsonout *o, const char *key, const char *value)
{
    if (!o->failed)
        check(o, cJSON_AddStringToObject(o->obj, key, value ? value : ""));
}

void jsonout_uint(struct jsonout *o, const char *key, uint64_t value)
{
    if (o->failed)
        return;
    if (value > ((uint64_t)1 << 53)) {
        /* a double would round it: write the exact digits instead */
        char digits[24];
        snprintf(digits, sizeof digits, "%llu", (unsigned long long)value);
        check(o, cJSON_AddRawToObject(o->obj, key, digits));
        return;
    }
    check(o, cJSON_AddNumberToObject(o->obj, key, (double)value));
}

void jsonout_double(struct jsonout *o, const char *key, double value)
{
    if (!isfinite(value))
        o->failed = true;
    if (!o->failed)
        check(o, cJSON_AddNumberToObject(o->obj, key, value));
}

void jsonout_double_or_null(struct jsonout *o, const char *key, double value, bool present)
{
    if (present)
        jsonout_double(o, key, value);
    else
        jsonout_null(o, key);
}

void jsonout_bool(struct jsonout *o, const char *key, bool value)
{
    if (!o->failed)
        check(o, cJSON_AddBoolToObject(o->obj, key, value));
}

void jsonout_null(struct jsonout *o, const char *key)
{
    if (!o->failed)
        check(o, cJSON_AddNullToObject(o->obj, key));
}

void jsonout_object(struct jsonout *o, const char *key, cJSON *child)
{
    if (child == NULL || o->failed) {
        cJSON_Delete(child);
        o->failed = true;
        return;
    }
    if (!cJSON_AddItemToObject(o->obj, key, child)) {
        cJSON_Delete(child);
        o->failed = true;
    }
}

cJSON *jsonout_end(struct jsonout *o)
{
    if (o->failed) {
        cJSON_Delete(o->obj);
        o->obj = NULL;
    }
    return o->obj;
}
