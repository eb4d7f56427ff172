#include "jsonout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct jsonout jsonout_begin(void)
{
    struct jsonout o;
    o.obj = cJSON_CreateObject();
    o.failed = o.obj == NULL;
    return o;
}

/* item under key; takes item (NULL marks the builder failed). The key
 * outlives the object (jsonout.h), so cJSON keeps the pointer instead of
 * a copy to allocate and free. */
static void add(struct jsonout *o, const char *key, cJSON *item)
{
    if (item == NULL || o->failed || !cJSON_AddItemToObjectCS(o->obj, key, item)) {
        cJSON_Delete(item);
        o->failed = true;
    }
}

void jsonout_string(struct jsonout *o, const char *key, const char *value)
{
    if (!o->failed)
        add(o, key, cJSON_CreateString(value ? value : ""));
}

void jsonout_string_ref(struct jsonout *o, const char *key, const char *value)
{
    if (!o->failed)
        add(o, key, cJSON_CreateStringReference(value ? value : ""));
}

/* cJSON prints a number with 15 significant digits and keeps them when
 * they read back within a relative epsilon, so any integer of 16 digits or
 * more may come out rounded (9007199254740992 as 9.00719925474099e+15, issue
 * 9). From 10^15 on, integers are written as their exact digits. */
#define EXACT_FROM 1e15

/* An integer's digits as cJSON prints it (below 10^15, "%1.15g" of an
 * integral double is its digits, "-0" for negative zero), and exactly from
 * 10^15 on: added as raw text, so the printer neither formats it with
 * printf nor reads it back with sscanf, which was most of what printing a
 * plan cost. */
static void add_digits(struct jsonout *o, const char *key, bool negative, uint64_t value)
{
    char digits[24], *p = digits + sizeof digits;
    *--p = '\0';
    do {
        *--p = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    if (negative)
        *--p = '-';
    add(o, key, cJSON_CreateRaw(p));
}

void jsonout_uint(struct jsonout *o, const char *key, uint64_t value)
{
    if (!o->failed)
        add_digits(o, key, false, value);
}

void jsonout_double(struct jsonout *o, const char *key, double value)
{
    if (!isfinite(value))
        o->failed = true;
    if (o->failed)
        return;
    if (value != floor(value)) {
        add(o, key, cJSON_CreateNumber(value));
    } else if (fabs(value) < EXACT_FROM) {
        add_digits(o, key, signbit(value), (uint64_t)fabs(value));
    } else {
        char digits[400];
        snprintf(digits, sizeof digits, "%.0f", value);
        add(o, key, cJSON_CreateRaw(digits));
    }
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
        add(o, key, cJSON_CreateBool(value));
}

void jsonout_null(struct jsonout *o, const char *key)
{
    if (!o->failed)
        add(o, key, cJSON_CreateNull());
}

void jsonout_object(struct jsonout *o, const char *key, cJSON *child)
{
    add(o, key, child);
}

cJSON *jsonout_end(struct jsonout *o)
{
    if (o->failed) {
        cJSON_Delete(o->obj);
        o->obj = NULL;
    }
    return o->obj;
}

char *jsonout_print(const cJSON *root)
{
    char *text = cJSON_Print(root);
    if (text == NULL)
        return NULL;
    size_t n = strlen(text);
    char *with_newline = realloc(text, n + 2);
    if (with_newline == NULL) {
        free(text);
        return NULL;
    }
    with_newline[n] = '\n';
    with_newline[n + 1] = '\0';
    return with_newline;
}
