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

/* cJSON prints a number with 15 significant digits and keeps them when
 * they read back within a relative epsilon, so any integer of 16 digits or
 * more may come out rounded (9007199254740992 as 9.00719925474099e+15, issue
 * 9). From 10^15 on, integers are written as their exact digits. */
#define EXACT_FROM 1e15

void jsonout_uint(struct jsonout *o, const char *key, uint64_t value)
{
    if (o->failed)
        return;
    if ((double)value >= EXACT_FROM) {
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
    if (o->failed)
        return;
    if (fabs(value) >= EXACT_FROM && value == floor(value)) {
        char digits[400];
        snprintf(digits, sizeof digits, "%.0f", value);
        check(o, cJSON_AddRawToObject(o->obj, key, digits));
        return;
    }
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
