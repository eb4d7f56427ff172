/* jsonout: building cJSON objects without checking every call.
 *
 * The first failed allocation or non-finite number marks the builder as
 * failed; jsonout_end() then frees what was built and returns NULL, so a
 * half-built document is never written. NaN and infinity are refused
 * because cJSON would print them as null.
 *
 * A key must outlive the object (a literal, or a name in a static table):
 * cJSON keeps the pointer, not a copy. Integers are added as their digits
 * (raw text, what cJSON's printer would write for them). */
#ifndef KVPLAN_IO_JSONOUT_H
#define KVPLAN_IO_JSONOUT_H

#include <stdbool.h>
#include <stdint.h>

#include <cJSON.h>

struct jsonout {
    cJSON *obj;
    bool failed;
};

struct jsonout jsonout_begin(void);
void jsonout_string(struct jsonout *o, const char *key, const char *value);
/* value is not copied: it must outlive the object (the explain rows of a
 * document being printed). */
void jsonout_string_ref(struct jsonout *o, const char *key, const char *value);
/* Exact: from 10^15 the digits are written as they are (cJSON's 15-digit
 * output would round them). */
void jsonout_uint(struct jsonout *o, const char *key, uint64_t value);
/* An integral value from 10^15 on is written as its exact digits too. */
void jsonout_double(struct jsonout *o, const char *key, double value);
void jsonout_double_or_null(struct jsonout *o, const char *key, double value, bool present);
void jsonout_bool(struct jsonout *o, const char *key, bool value);
void jsonout_null(struct jsonout *o, const char *key);
/* Takes ownership of child (NULL marks the builder failed). */
void jsonout_object(struct jsonout *o, const char *key, cJSON *child);
/* root as cJSON_Print writes it, with a final newline; caller frees (NULL
 * on out of memory). */
char *jsonout_print(const cJSON *root);
/* The object, or NULL when anything failed. */
cJSON *jsonout_end(struct jsonout *o);

#endif
