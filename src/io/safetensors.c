/* safetensors headers: each tensor's bytes from its dtype and shape, checked
 * against its data_offsets and against the other tensors' (the format's own
 * rules: offsets relative to the data after the header, end - begin the
 * tensor's bytes). */
#include "safetensors.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cJSON.h>

static const struct {
    const char *name;
    unsigned bits;
} dtypes[ST_DTYPE_COUNT] = {
    [ST_BOOL] = {"BOOL", 8},        [ST_U8] = {"U8", 8},           [ST_I8] = {"I8", 8},
    [ST_F8_E5M2] = {"F8_E5M2", 8},  [ST_F8_E4M3] = {"F8_E4M3", 8}, [ST_F8_E8M0] = {"F8_E8M0", 8},
    [ST_I16] = {"I16", 16},         [ST_U16] = {"U16", 16},        [ST_F16] = {"F16", 16},
    [ST_BF16] = {"BF16", 16},       [ST_I32] = {"I32", 32},        [ST_U32] = {"U32", 32},
    [ST_F32] = {"F32", 32},         [ST_C64] = {"C64", 64},        [ST_I64] = {"I64", 64},
    [ST_U64] = {"U64", 64},         [ST_F64] = {"F64", 64},        [ST_F4] = {"F4", 4},
    [ST_F6_E2M3] = {"F6_E2M3", 6},  [ST_F6_E3M2] = {"F6_E3M2", 6},
    [ST_F8_E4M3FNUZ] = {"F8_E4M3FNUZ", 8}, [ST_F8_E5M2FNUZ] = {"F8_E5M2FNUZ", 8},
};

const char *safetensors_dtype_name(enum st_dtype t)
{
    return t < ST_DTYPE_COUNT ? dtypes[t].name : "?";
}

unsigned safetensors_dtype_bits(enum st_dtype t)
{
    return t < ST_DTYPE_COUNT ? dtypes[t].bits : 0;
}

bool safetensors_dtype_parse(const char *name, enum st_dtype *out)
{
    for (int t = 0; t < ST_DTYPE_COUNT; t++)
        if (strcmp(dtypes[t].name, name) == 0) {
            *out = (enum st_dtype)t;
            return true;
        }
    return false;
}

/* A JSON number that is a whole number a double holds exactly (0 to 2^53). */
static bool whole(const cJSON *v, uint64_t *out)
{
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble > 9007199254740992.0)
        return false;
    *out = (uint64_t)v->valuedouble;
    return (double)*out == v->valuedouble;
}

struct span {
    uint64_t begin, end;
    const char *name;
};

/* One tensor: its dtype, its shape's bytes and its offsets, which must hold
 * exactly those bytes inside the data. */
static bool tensor(const char *file, const cJSON *t, uint64_t data_len, struct span *s,
                   struct st_sum *sum, struct diag *d)
{
    const char *n = t->string;
    if (!cJSON_IsObject(t))
        return diag_fail(d, "%s: %.64s: not an object of dtype, shape and data_offsets", file, n);
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(t, "dtype");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(t, "shape");
    const cJSON *off = cJSON_GetObjectItemCaseSensitive(t, "data_offsets");
    enum st_dtype type;
    if (!cJSON_IsString(dt))
        return diag_fail(d, "%s: %.64s.dtype: missing or not a string", file, n);
    if (!safetensors_dtype_parse(dt->valuestring, &type))
        return diag_fail(d, "%s: %.64s.dtype: '%.32s' is not a safetensors dtype", file, n,
                         dt->valuestring);
    if (!cJSON_IsArray(shape))
        return diag_fail(d, "%s: %.64s.shape: missing or not a list", file, n);
    uint64_t count = 1, dim = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, shape)
    {
        if (!whole(e, &dim))
            return diag_fail(d, "%s: %.64s.shape: not a list of whole numbers", file, n);
        if (__builtin_mul_overflow(count, dim, &count))
            return diag_fail(d, "%s: %.64s.shape: the product of the dimensions overflows",
                             file, n);
    }
    uint64_t bits = 0;
    if (__builtin_mul_overflow(count, (uint64_t)dtypes[type].bits, &bits))
        return diag_fail(d, "%s: %.64s.shape: the product of the dimensions overflows", file, n);
    if (bits % 8 != 0)
        return diag_fail(d, "%s: %.64s.shape: %llu values of %s are not whole bytes", file, n,
                         (unsigned long long)count, dtypes[type].name);
    if (!cJSON_IsArray(off) || cJSON_GetArraySize(off) != 2 ||
        !whole(cJSON_GetArrayItem(off, 0), &s->begin) ||
        !whole(cJSON_GetArrayItem(off, 1), &s->end) || s->end < s->begin)
        return diag_fail(d, "%s: %.64s.data_offsets: not [begin, end] with begin <= end", file, n);
    if (s->end > data_len)
        return diag_fail(d, "%s: %.64s.data_offsets: end %llu is past the data's %llu bytes", file,
                         n, (unsigned long long)s->end, (unsigned long long)data_len);
    if (s->end - s->begin != bits / 8)
        return diag_fail(d, "%s: %.64s.data_offsets: %llu bytes for a %s tensor of %llu bytes",
                         file, n, (unsigned long long)(s->end - s->begin), dtypes[type].name,
                         (unsigned long long)(bits / 8));
    s->name = n;
    sum->bytes += bits / 8;
    sum->by_dtype[type] += bits / 8;
    sum->tensors++;
    return true;
}

static int by_begin(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct span *)a)->name, ((const struct span *)b)->name);
}

/* No two tensors share a byte, nor a name. */
static bool disjoint(const char *file, struct span *s, size_t n, struct diag *d)
{
    qsort(s, n, sizeof *s, by_begin);
    for (size_t i = 1; i < n; i++)
        if (s[i].begin < s[i - 1].end)
            return diag_fail(d, "%s: %.64s.data_offsets: overlap %.64s's", file, s[i].name,
                             s[i - 1].name);
    qsort(s, n, sizeof *s, by_name);
    for (size_t i = 1; i < n; i++)
        if (strcmp(s[i].name, s[i - 1].name) == 0)
            return diag_fail(d, "%s: %.64s: a tensor named twice", file, s[i].name);
    return true;
}

/* A name is text without control bytes. */
static bool name_ok(const char *name)
{
    if (name == NULL || name[0] == '\0')
        return false;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return false;
    return true;
}

static bool entries(const char *file, const cJSON *root, uint64_t data_len, struct st_sum *sum,
                    struct diag *d)
{
    size_t n = 0;
    for (const cJSON *t = root->child; t; t = t->next)
        n++;
    struct span *spans = calloc(n ? n : 1, sizeof *spans);
    if (spans == NULL)
        return diag_fail(d, "%s: out of memory", file);
    size_t k = 0;
    bool ok = true;
    for (const cJSON *t = root->child; ok && t; t = t->next) {
        if (!name_ok(t->string))
            ok = diag_fail(d, "%s: tensor name: empty or holding a control byte", file);
        else if (strcmp(t->string, "__metadata__") == 0)
            ok = cJSON_IsObject(t) || diag_fail(d, "%s: __metadata__: not an object", file);
        else
            ok = tensor(file, t, data_len, &spans[k++], sum, d);
    }
    ok = ok && disjoint(file, spans, k, d);
    free(spans);
    return ok;
}

bool safetensors_header(const char *name, const char *json, size_t len, uint64_t data_len,
                        struct st_sum *sum, struct diag *d)
{
    if (len > SAFETENSORS_MAX_HEADER)
        return diag_fail(d, "%s: header length: %zu bytes, more than %d", name, len,
                         SAFETENSORS_MAX_HEADER);
    if (memchr(json, '\0', len) != NULL)
        return diag_fail(d, "%s: header: holds a NUL byte", name);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(json, len, &end, false);
    bool ok = root != NULL && cJSON_IsObject(root);
    for (const char *p = end; ok && p < json + len; p++) /* the format pads with spaces */
        ok = *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r';
    if (!ok) {
        cJSON_Delete(root);
        return diag_fail(d, "%s: header: not one JSON object", name);
    }
    struct st_sum one = {0};
    ok = entries(name, root, data_len, &one, d);
    cJSON_Delete(root);
    if (!ok)
        return false;
    sum->bytes += one.bytes;
    sum->tensors += one.tensors;
    sum->files++;
    for (int t = 0; t < ST_DTYPE_COUNT; t++)
        sum->by_dtype[t] += one.by_dtype[t];
    return true;
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* The header's length, checked against the file's size. */
static bool header_length(const char *name, const uint8_t *first8, uint64_t size, uint64_t *out,
                          struct diag *d)
{
    if (size < 8)
        return diag_fail(d, "%s: header length: the file has %llu bytes, fewer than 8", name,
                         (unsigned long long)size);
    *out = le64(first8);
    if (*out > SAFETENSORS_MAX_HEADER)
        return diag_fail(d, "%s: header length: %llu bytes, more than %d", name,
                         (unsigned long long)*out, SAFETENSORS_MAX_HEADER);
    if (*out > size - 8)
        return diag_fail(d, "%s: header length: %llu bytes, past the end of the file (%llu)",
                         name, (unsigned long long)*out, (unsigned long long)size);
    return true;
}

bool safetensors_image(const char *name, const uint8_t *buf, size_t len, struct st_sum *sum,
                       struct diag *d)
{
    uint64_t n = 0;
    if (!header_length(name, buf, len, &n, d))
        return false;
    return safetensors_header(name, (const char *)buf + 8, (size_t)n, len - 8 - n, sum, d);
}

/* Reads exactly len bytes at offset. */
static bool read_at(int fd, void *buf, size_t len, off_t offset)
{
    size_t got = 0;
    while (got < len) {
        ssize_t r = pread(fd, (char *)buf + got, len - got, offset + (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        got += (size_t)r;
    }
    return true;
}

bool safetensors_file(const char *path, struct st_sum *sum, struct diag *d)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return diag_fail(d, "%s: %s", path, strerror(errno));
    struct stat st;
    uint8_t first8[8] = {0};
    uint64_t n = 0;
    char *json = NULL;
    bool ok = fstat(fd, &st) == 0;
    if (!ok)
        diag_fail(d, "%s: %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        ok = diag_fail(d, "%s: not a regular file", path);
    ok = ok && (st.st_size < 8 || read_at(fd, first8, 8, 0) ||
                diag_fail(d, "%s: cannot read the header length", path));
    ok = ok && header_length(path, first8, (uint64_t)st.st_size, &n, d);
    if (ok && (json = malloc(n ? n : 1)) == NULL)
        ok = diag_fail(d, "%s: out of memory for a header of %llu bytes", path,
                       (unsigned long long)n);
    ok = ok && (read_at(fd, json, n, 8) || diag_fail(d, "%s: cannot read the header", path));
    close(fd);
    ok = ok && safetensors_header(path, json, n, (uint64_t)st.st_size - 8 - n, sum, d);
    free(json);
    return ok;
}
