/* jsonread: typed, range-checked field access on cJSON objects, with errors
 * that name the file, line, column and field.
 *
 * cJSON keeps no positions, so a field's position is found by searching the
 * source text for the key after its parent's position; the result is exact
 * for the files kvplan writes and for hand-edited ones alike. */
#ifndef KVPLAN_IO_JSONREAD_H
#define KVPLAN_IO_JSONREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "core/diag.h"

/* The shape a JSON file kvplan reads may have: the largest real ones (a
 * session of six scenarios, a Hugging Face config with a label map) hold a
 * few thousand values; past these limits a file is refused before parsing. */
enum { JSONREAD_MAX_DEPTH = 64, JSONREAD_MAX_VALUES = 100000 };

struct jsonread {
    const char *path; /* for messages */
    const char *text; /* the whole source */
    size_t len;
    size_t base;      /* where the current object starts in text */
    const char *prefix; /* dotted field prefix for messages: "mla." or "" */
};

/* Parses text; on a syntax error, a shape past the limits above or a key
 * given twice fills d with "path:line:col: ..." and returns NULL. The
 * caller owns the tree (cJSON_Delete). */
cJSON *jsonread_parse(const char *path, const char *text, size_t len, struct diag *d);

/* A reader for a nested object `key` of the current one. */
struct jsonread jsonread_child(const struct jsonread *r, const char *key, const char *prefix);

/* A reader for element `index` (from 0) of the array `key` of the current
 * object, so its fields are located in that element; at the key when the
 * array has no such element. */
struct jsonread jsonread_element(const struct jsonread *r, const char *key, int index,
                                 const char *prefix);

/* Each getter returns false with d set when the field is missing (and
 * required), of the wrong type or out of range; a missing optional field
 * leaves *out untouched and returns true. JSON null counts as missing. */
bool jsonread_string(const struct jsonread *r, const cJSON *obj, const char *key, bool required,
                     char *out, size_t size, struct diag *d);
bool jsonread_u64(const struct jsonread *r, const cJSON *obj, const char *key, bool required,
                  uint64_t min, uint64_t max, uint64_t *out, struct diag *d);
bool jsonread_u32(const struct jsonread *r, const cJSON *obj, const char *key, bool required,
                  uint32_t min, uint32_t max, uint32_t *out, struct diag *d);
bool jsonread_double(const struct jsonread *r, const cJSON *obj, const char *key, bool required,
                     double min, double max, double *out, struct diag *d);
bool jsonread_bool(const struct jsonread *r, const cJSON *obj, const char *key, bool required,
                   bool *out, struct diag *d);

/* Fails d with a printf-style message that starts with a field name
 * ("units: 'x' is not gib or gb"), located at that field: "path:line:col: ...".
 * Returns false. */
bool jsonread_fail(const struct jsonread *r, struct diag *d, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Sets "path:line:col: " in front of a message that starts with a field
 * name ("num_kv_heads: ..."), locating that field. */
void jsonread_locate_message(const struct jsonread *r, struct diag *d);

/* True when obj has key with a non-null value. */
bool jsonread_has(const cJSON *obj, const char *key);

#endif
