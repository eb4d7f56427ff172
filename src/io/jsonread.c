#include "jsonread.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"

static void line_col(const char *text, size_t len, size_t off, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off && i < len; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

/* Offset of `"key"` followed by a colon, at or after `from`; `from` when absent. */
static size_t find_key(const char *text, size_t len, size_t from, const char *key)
{
    size_t klen = strlen(key);
    for (size_t i = from; i + klen + 2 <= len; i++) {
        if (text[i] != '"' || strncmp(text + i + 1, key, klen) != 0 || text[i + 1 + klen] != '"')
            continue;
        size_t j = i + klen + 2;
        while (j < len && isspace((unsigned char)text[j]))
            j++;
        if (j < len && text[j] == ':')
            return i;
    }
    return from;
}

/* A key of an object: which object (its opening brace) and where the key is. */
struct key_at {
    size_t object, start, len;
};

static int compare_keys(const void *pa, const void *pb, const char *text)
{
    const struct key_at *a = pa, *b = pb;
    if (a->object != b->object)
        return a->object < b->object ? -1 : 1;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(text + a->start, text + b->start, n);
    if (c != 0 || a->len != b->len)
        return c != 0 ? c : a->len < b->len ? -1 : 1;
    return a->start < b->start ? -1 : a->start > b->start;
}

static bool same_key(const struct key_at *a, const struct key_at *b, const char *text)
{
    return a->object == b->object && a->len == b->len &&
           memcmp(text + a->start, text + b->start, a->len) == 0;
}

static const char *sort_text; /* qsort has no context argument */
static int compare_keys_in_text(const void *a, const void *b)
{
    return compare_keys(a, b, sort_text);
}

/* Refuses a key given twice in one object (cJSON would keep the first
 * silently once), naming the line of the second. The text is valid JSON
 * here: a string right after '{' or ',' inside an object is a key. Keys are
 * compared as written; sorting keeps this n log n on hostile files. */
static bool refuse_duplicate_keys(const char *path, const char *text, size_t len, struct diag *d)
{
    size_t stack[JSONREAD_MAX_DEPTH + 1];
    bool is_object[JSONREAD_MAX_DEPTH + 1];
    int depth = 0;
    struct key_at *keys = NULL;
    size_t count = 0, cap = 0;
    bool expect_key = false, ok = true;
    for (size_t i = 0; i < len && ok; i++) {
        char c = text[i];
        if (c == '{' || c == '[') {
            if (depth < JSONREAD_MAX_DEPTH) {
                depth++;
                stack[depth] = i;
                is_object[depth] = c == '{';
            }
            expect_key = c == '{';
        } else if (c == '}' || c == ']') {
            depth--;
            expect_key = false;
        } else if (c == ',') {
            expect_key = depth > 0 && is_object[depth];
        } else if (c == '"') {
            size_t start = i + 1;
            for (i++; i < len && text[i] != '"'; i++)
                if (text[i] == '\\')
                    i++;
            if (expect_key) {
                if (count == cap) {
                    cap = cap ? cap * 2 : 64;
                    struct key_at *bigger = realloc(keys, cap * sizeof *keys);
                    if (bigger == NULL) {
                        ok = diag_fail(d, "%s: out of memory", path);
                        break;
                    }
                    keys = bigger;
                }
                keys[count++] = (struct key_at){stack[depth], start, i - start};
            }
            expect_key = false;
        }
    }
    if (ok && count > 1) {
        sort_text = text;
        qsort(keys, count, sizeof *keys, compare_keys_in_text);
        /* of every repeated key, the second occurrence; report the first in the file */
        size_t best = len;
        const struct key_at *first = NULL;
        for (size_t k = 1; k < count; k++) {
            bool second = same_key(&keys[k], &keys[k - 1], text) &&
                          (k < 2 || !same_key(&keys[k - 1], &keys[k - 2], text));
            if (second && keys[k].start < best) {
                best = keys[k].start;
                first = &keys[k - 1];
            }
        }
        if (first != NULL) {
            int line, col, line1, col1;
            line_col(text, len, best - 1, &line, &col);
            line_col(text, len, first->start - 1, &line1, &col1);
            int n = (int)(first->len > 60 ? 60 : first->len);
            ok = diag_fail(d, "%s:%d:%d: %.*s: duplicate key (first on line %d); each key may "
                              "appear once in an object",
                           path, line, col, n, text + first->start, line1);
        }
    }
    free(keys);
    return ok;
}

/* Refuses, before cJSON builds a tree, a shape no kvplan file has: nesting
 * deeper than JSONREAD_MAX_DEPTH, or more than JSONREAD_MAX_VALUES values
 * (counted as commas and openings, within a factor two of the values), so a
 * small file cannot cost a tree many times its size. Leaves the depth and
 * string state at the end of the text, for the truncation message. */
static bool refuse_shape(const char *path, const char *text, size_t len, int *depth,
                         bool *in_string, struct diag *d)
{
    size_t values = 1;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (*in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                *in_string = false;
            continue;
        }
        if (c == '"') {
            *in_string = true;
            continue;
        }
        if (c == '}' || c == ']') {
            (*depth)--;
            continue;
        }
        bool opens = c == '{' || c == '[';
        if (!opens && c != ',')
            continue;
        bool deep = opens && ++*depth > JSONREAD_MAX_DEPTH;
        if (++values <= JSONREAD_MAX_VALUES && !deep)
            continue;
        int line, col;
        line_col(text, len, i, &line, &col);
        if (deep)
            return diag_fail(d, "%s:%d:%d: nested more than %d levels deep", path, line, col,
                             JSONREAD_MAX_DEPTH);
        return diag_fail(d, "%s:%d:%d: more than %d values; no file kvplan reads holds that many",
                         path, line, col, JSONREAD_MAX_VALUES);
    }
    return true;
}

/* Refuses "\u0000" in a string: cJSON keeps the text up to it and drops the
 * rest without a word (a note would lose its end). The text is valid JSON
 * here; the message names the key when the string is a key's value. */
static bool refuse_escaped_nul(const char *path, const char *text, size_t len, struct diag *d)
{
    size_t key = 0, key_len = 0, last = 0, last_len = 0;
    bool after_colon = false;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == ':') {
            key = last;
            key_len = last_len;
            after_colon = true;
        } else if (text[i] == ',' || text[i] == '[' || text[i] == '{') {
            after_colon = false;
        } else if (text[i] == '"') {
            size_t start = ++i;
            for (; i < len && text[i] != '"'; i++) {
                if (text[i] != '\\')
                    continue;
                if (i + 5 < len && strncmp(text + i + 1, "u0000", 5) == 0) {
                    int line, col, n = (int)(key_len > 60 ? 60 : key_len);
                    line_col(text, len, i, &line, &col);
                    return diag_fail(d, "%s:%d:%d: %.*s%s\\u0000 in a string: a NUL character "
                                        "is not text (it would cut the string short)",
                                     path, line, col, after_colon ? n : 0, text + key,
                                     after_colon ? ": " : "");
                }
                i++;
            }
            last = start;
            last_len = i - start;
            after_colon = false;
        }
    }
    return true;
}

cJSON *jsonread_parse(const char *path, const char *text, size_t len, struct diag *d)
{
    if (len == 0) {
        diag_fail(d, "%s:1:1: the file is empty (expected a JSON object)", path);
        return NULL;
    }
    if (memchr(text, '\0', len) != NULL) {
        diag_fail(d, "%s: contains NUL bytes: not a JSON text file", path);
        return NULL;
    }
    int depth = 0;
    bool in_string = false;
    if (!refuse_shape(path, text, len, &depth, &in_string, d))
        return NULL;
    const char *end = NULL;
    /* len + 1: cJSON wants the terminating NUL inside the length to prove
     * nothing follows the value. */
    cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, &end, true);
    if (root == NULL) {
        size_t off = end && end >= text ? (size_t)(end - text) : 0;
        int line, col;
        line_col(text, len, off, &line, &col);
        size_t first = 0; /* the first byte that is not white space (or a BOM) */
        while (first < len && strchr(" \t\r\n", text[first]) != NULL)
            first++;
        if (len - first >= 3 && memcmp(text + first, "\xef\xbb\xbf", 3) == 0)
            first += 3;
        if (first < len && text[first] != '{' && text[first] != '[')
            /* not JSON at all (a password file behind a link, say): its lines
             * are none of our business and never quoted */
            diag_fail(d, "%s:%d:%d: not valid JSON (it does not begin with '{')", path, line,
                      col);
        else if (off >= len || depth > 0 || in_string)
            diag_fail(d, "%s:%d:%d: JSON ends too early (truncated?)", path, line, col);
        else {
            /* Quote the line the parser stopped on, trimmed: cJSON's offset
             * is where it gave up, which may be just past the real mistake. */
            size_t start = off, stop = off;
            while (start > 0 && text[start - 1] != '\n')
                start--;
            while (stop < len && text[stop] != '\n' && text[stop] != '\r')
                stop++;
            while (start < stop && (text[start] == ' ' || text[start] == '\t'))
                start++;
            int n = (int)(stop - start > 40 ? 40 : stop - start);
            diag_fail(d, "%s:%d:%d: not valid JSON (on the line \"%.*s\"%s)", path, line, col, n,
                      text + start, stop - start > 40 ? "..." : "");
        }
        return NULL;
    }
    if (!cJSON_IsObject(root)) {
        diag_fail(d, "%s:1:1: expected a JSON object at the top level", path);
        cJSON_Delete(root);
        return NULL;
    }
    if (!refuse_duplicate_keys(path, text, len, d) || !refuse_escaped_nul(path, text, len, d)) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

struct jsonread jsonread_child(const struct jsonread *r, const char *key, const char *prefix)
{
    struct jsonread c = *r;
    c.base = find_key(r->text, r->len, r->base, key);
    c.prefix = prefix;
    return c;
}

struct jsonread jsonread_element(const struct jsonread *r, const char *key, int index,
                                 const char *prefix)
{
    struct jsonread c = jsonread_child(r, key, prefix);
    const char *t = r->text;
    size_t i = c.base + strlen(key) + 2, n = r->len;
    while (i < n && (isspace((unsigned char)t[i]) || t[i] == ':'))
        i++;
    if (i >= n || t[i] != '[')
        return c;
    int depth = 0, at = 0;
    for (i++; i < n && depth >= 0; i++) {
        if (isspace((unsigned char)t[i]))
            continue;
        if (depth == 0 && at == index && t[i] != ',') {
            c.base = i; /* the element's first byte */
            return c;
        }
        if (t[i] == '"') {
            for (i++; i < n && t[i] != '"'; i++)
                i += t[i] == '\\';
        } else if (t[i] == '{' || t[i] == '[') {
            depth++;
        } else if (t[i] == '}' || t[i] == ']') {
            depth--;
        } else if (t[i] == ',' && depth == 0) {
            at++;
        }
    }
    return c;
}

static bool fail_at(const struct jsonread *r, const char *field, struct diag *d, const char *fmt,
                    va_list ap) __attribute__((format(printf, 4, 0)));
static bool fail_at(const struct jsonread *r, const char *field, struct diag *d, const char *fmt,
                    va_list ap)
{
    char msg[DIAG_MESSAGE_MAX];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t off = field ? find_key(r->text, r->len, r->base, field) : r->base;
    int line, col;
    line_col(r->text, r->len, off, &line, &col);
    if (field)
        return diag_fail(d, "%s:%d:%d: %s%s: %s", r->path, line, col, r->prefix ? r->prefix : "",
                         field, msg);
    return diag_fail(d, "%s:%d:%d: %s", r->path, line, col, msg);
}

static bool failf(const struct jsonread *r, const char *field, struct diag *d, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool failf(const struct jsonread *r, const char *field, struct diag *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool ok = fail_at(r, field, d, fmt, ap);
    va_end(ap);
    return ok;
}

bool jsonread_has(const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    return item != NULL && !cJSON_IsNull(item);
}

static const cJSON *get(const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNull(item) ? NULL : item;
}

bool jsonread_string(const struct jsonread *r, const cJSON *obj, const char *key, bool required,
                     char *out, size_t size, struct diag *d)
{
    const cJSON *item = get(obj, key);
    if (item == NULL)
        return required ? failf(r, key, d, "missing (expected a string)") : true;
    if (!cJSON_IsString(item))
        return failf(r, key, d, "expected a string");
    const char *s = item->valuestring;
    /* names and ids are printed in lists, reports and the planner: nothing
     * in them may steer a terminal or reorder a line (core/text.h) */
    unsigned cp = 0;
    enum text_fault f = text_check(s, size - 1, &cp);
    if (f != TEXT_OK) {
        char why[96];
        text_fault_describe(f, cp, size - 1, why, sizeof why);
        return failf(r, key, d, "%s", why);
    }
    snprintf(out, size, "%s", s);
    return true;
}

static bool number(const struct jsonread *r, const cJSON *obj, const char *key, bool required,
                   const char *what, double *out, bool *present, struct diag *d)
{
    *present = false;
    const cJSON *item = get(obj, key);
    if (item == NULL)
        return required ? failf(r, key, d, "missing (expected %s)", what) : true;
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble))
        return failf(r, key, d, "expected %s", what);
    *out = item->valuedouble;
    *present = true;
    return true;
}

bool jsonread_u64(const struct jsonread *r, const cJSON *obj, const char *key, bool required,
                  uint64_t min, uint64_t max, uint64_t *out, struct diag *d)
{
    double v;
    bool present;
    const char *what = min > 0 ? "a positive integer" : "a non-negative integer";
    if (!number(r, obj, key, required, what, &v, &present, d))
        return false;
    if (!present)
        return true;
    if (v != floor(v) || v < 0)
        return failf(r, key, d, "%g is not %s", v, what);
    if (v > 9007199254740992.0 || v > (double)max || v < (double)min)
        return failf(r, key, d, v <= 9007199254740992.0 ? "%.0f is out of range (%llu to %llu)"
                                         : "%g is out of range (%llu to %llu)",
                     v, (unsigned long long)min, (unsigned long long)max);
    *out = (uint64_t)v;
    return true;
}

bool jsonread_u32(const struct jsonread *r, const cJSON *obj, const char *key, bool required,
                  uint32_t min, uint32_t max, uint32_t *out, struct diag *d)
{
    uint64_t v = *out;
    if (!jsonread_u64(r, obj, key, required, min, max, &v, d))
        return false;
    *out = (uint32_t)v;
    return true;
}

bool jsonread_double(const struct jsonread *r, const cJSON *obj, const char *key, bool required,
                     double min, double max, double *out, struct diag *d)
{
    double v;
    bool present;
    if (!number(r, obj, key, required, "a number", &v, &present, d))
        return false;
    if (!present)
        return true;
    if (v < min || v > max)
        return failf(r, key, d, "%g is out of range (%g to %g)", v, min, max);
    *out = v;
    return true;
}

bool jsonread_bool(const struct jsonread *r, const cJSON *obj, const char *key, bool required,
                   bool *out, struct diag *d)
{
    const cJSON *item = get(obj, key);
    if (item == NULL)
        return required ? failf(r, key, d, "missing (expected true or false)") : true;
    if (!cJSON_IsBool(item))
        return failf(r, key, d, "expected true or false");
    *out = cJSON_IsTrue(item);
    return true;
}

void jsonread_locate_message(const struct jsonread *r, struct diag *d)
{
    char field[64];
    const char *colon = strchr(d->message, ':');
    size_t n = colon ? (size_t)(colon - d->message) : 0;
    if (n == 0 || n >= sizeof field) {
        diag_prefix(d, "%s", r->path);
        return;
    }
    memcpy(field, d->message, n);
    field[n] = '\0';
    /* "mla.kv_lora_rank": locate the last component after its parent. */
    struct jsonread at = *r;
    char *dot;
    char *name = field;
    while ((dot = strchr(name, '.')) != NULL) {
        *dot = '\0';
        at.base = find_key(at.text, at.len, at.base, name);
        name = dot + 1;
    }
    size_t off = find_key(at.text, at.len, at.base, name);
    int line, col;
    line_col(r->text, r->len, off, &line, &col);
    diag_prefix(d, "%s:%d:%d", r->path, line, col);
}

bool jsonread_fail(const struct jsonread *r, struct diag *d, const char *fmt, ...)
{
    struct diag local = {0};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(local.message, sizeof local.message, fmt, ap);
    va_end(ap);
    local.failed = true;
    jsonread_locate_message(r, &local);
    return diag_fail(d, "%s", local.message);
}
