/* gguf: reads a GGUF header in bounded reads (gguf.h). */
#include "gguf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/text.h"

/* Counts past these are refused as absurd: real files hold a few dozen
 * metadata entries and a few thousand tensors. */
enum {
    KV_COUNT_MAX = 65536,
    TENSOR_COUNT_MAX = 1 << 20,
    STRING_MAX = 1 << 28, /* a chat template is kilobytes; a vocabulary an array */
    ALIGNMENT_DEFAULT = 32
};
#define GGUF_MAGIC "GGUF"

struct rd {
    const struct gguf_source *src;
    char name[256]; /* the file, as printed */
    uint64_t pos;
    struct diag *d;
    char where[128]; /* "metadata 4 "llama.block_count"", "tensor 3 "blk.0.attn_q.weight"" */
};

/* "m.gguf: tensor 3 "x": field: what is wrong". */
static bool fail(struct rd *r, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail(struct rd *r, const char *field, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return diag_fail(r->d, "%s: %s%s%s: %s", r->name, r->where, r->where[0] ? ": " : "", field,
                     what);
}

static uint64_t left(const struct rd *r)
{
    return r->src->size - r->pos;
}

static bool get(struct rd *r, void *buf, size_t n, const char *field)
{
    if (n > left(r))
        return fail(r, field, "the file ends at byte %llu (truncated)",
                    (unsigned long long)r->src->size);
    if (n && !r->src->read(r->src->ctx, buf, n))
        return fail(r, field, "cannot be read at byte %llu", (unsigned long long)r->pos);
    r->pos += n;
    return true;
}

/* Passes over n bytes, a chunk at a time. */
static bool skip(struct rd *r, uint64_t n, const char *field)
{
    unsigned char scratch[4096];
    if (n > left(r))
        return fail(r, field, "the file ends at byte %llu (truncated)",
                    (unsigned long long)r->src->size);
    while (n > 0) {
        size_t k = n < sizeof scratch ? (size_t)n : sizeof scratch;
        if (!get(r, scratch, k, field))
            return false;
        n -= k;
    }
    return true;
}

static uint64_t le(const unsigned char *b, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

static bool get_u32(struct rd *r, uint32_t *out, const char *field)
{
    unsigned char b[4];
    if (!get(r, b, 4, field))
        return false;
    *out = (uint32_t)le(b, 4);
    return true;
}

static bool get_u64(struct rd *r, uint64_t *out, const char *field)
{
    unsigned char b[8];
    if (!get(r, b, 8, field))
        return false;
    *out = le(b, 8);
    return true;
}

/* A string's length, held to the bytes left and to max. */
static bool get_len(struct rd *r, uint64_t max, uint64_t *len, const char *field)
{
    if (!get_u64(r, len, field))
        return false;
    if (*len > left(r))
        return fail(r, field, "a string of %llu bytes is longer than the %llu bytes left",
                    (unsigned long long)*len, (unsigned long long)left(r));
    if (*len > max)
        return fail(r, field, "a string of %llu bytes is longer than %llu",
                    (unsigned long long)*len, (unsigned long long)max);
    return true;
}

/* A key or a tensor's name: 1 to size-1 bytes of text without controls. */
static bool get_name(struct rd *r, char *out, size_t size, const char *field)
{
    uint64_t len = 0;
    if (!get_len(r, STRING_MAX, &len, field))
        return false;
    if (len == 0)
        return fail(r, field, "empty");
    if (len >= size)
        return fail(r, field, "%llu bytes, longer than %zu", (unsigned long long)len, size - 1);
    if (!get(r, out, (size_t)len, field))
        return false;
    out[len] = '\0';
    unsigned cp = 0;
    enum text_fault f = strlen(out) != len ? TEXT_UNSAFE : text_check(out, size - 1, &cp);
    if (f != TEXT_OK) {
        char why[96], shown[GGUF_KEY_MAX * 4];
        text_fault_describe(f, cp, size - 1, why, sizeof why);
        text_escape(out, shown, sizeof shown);
        return fail(r, field, "\"%s\" %s", shown, strlen(out) != len ? "holds a NUL byte" : why);
    }
    return true;
}

static const uint8_t value_size[GGUF_VALUE_TYPES] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};

/* One value of a fixed-size type, as gguf_kv keeps it. */
static bool get_scalar(struct rd *r, enum gguf_value_type t, struct gguf_kv *kv,
                       const char *field)
{
    unsigned char b[8];
    int n = value_size[t];
    if (!get(r, b, (size_t)n, field))
        return false;
    uint64_t raw = le(b, n);
    switch (t) {
    case GGUF_I8:
    case GGUF_I16:
    case GGUF_I32:
    case GGUF_I64:
        if (n < 8 && (raw >> (8 * n - 1)) != 0)
            raw |= ~(uint64_t)0 << (8 * n); /* sign-extended */
        memcpy(&kv->v.i, &raw, sizeof kv->v.i);
        break;
    case GGUF_F32: {
        uint32_t bits = (uint32_t)raw;
        float f;
        memcpy(&f, &bits, sizeof f);
        kv->v.f = f;
        break;
    }
    case GGUF_F64:
        memcpy(&kv->v.f, &raw, sizeof kv->v.f);
        break;
    case GGUF_BOOL:
        if (raw > 1)
            return fail(r, field, "a bool of %u, not 0 or 1", (unsigned)raw);
        kv->v.u = raw;
        break;
    default:
        kv->v.u = raw;
    }
    return true;
}

static bool is_integer(enum gguf_value_type t)
{
    return t <= GGUF_I32 || t == GGUF_BOOL || t == GGUF_U64 || t == GGUF_I64;
}

/* An array: its element type and count, held to the bytes left; integer
 * elements kept when they are few, strings and floats passed over. */
static bool get_array(struct rd *r, struct gguf_kv *kv)
{
    uint32_t t = 0;
    if (!get_u32(r, &t, "array type") || !get_u64(r, &kv->count, "array length"))
        return false;
    if (t >= GGUF_VALUE_TYPES)
        return fail(r, "array type", "%u is not a GGUF value type", t);
    if (t == GGUF_ARRAY)
        return fail(r, "array type", "an array of arrays (not read)");
    kv->elem_type = (enum gguf_value_type)t;
    uint64_t each = t == GGUF_STRING ? 8 : value_size[t];
    if (kv->count > left(r) / each)
        return fail(r, "array length", "%llu %s values are more than the %llu bytes left hold",
                    (unsigned long long)kv->count, gguf_value_type_name(kv->elem_type),
                    (unsigned long long)left(r));
    bool keep = is_integer(kv->elem_type) && kv->count <= GGUF_KEPT_ARRAY;
    if (keep && kv->count > 0 && (kv->ints = malloc(kv->count * sizeof *kv->ints)) == NULL)
        return fail(r, "array", "out of memory");
    struct gguf_kv one = {0};
    for (uint64_t i = 0; i < kv->count; i++) {
        if (t == GGUF_STRING) {
            uint64_t len = 0;
            if (!get_len(r, STRING_MAX, &len, "array string") || !skip(r, len, "array string"))
                return false;
        } else if (keep || t == GGUF_BOOL) {
            if (!get_scalar(r, kv->elem_type, &one, "array value"))
                return false;
            if (keep)
                kv->ints[i] = one.v.i;
        } else {
            /* floats or a long integer array: passed over whole */
            return skip(r, kv->count * each, "array value");
        }
    }
    return true;
}

static bool get_value(struct rd *r, struct gguf_kv *kv)
{
    uint32_t t = 0;
    if (!get_u32(r, &t, "value type"))
        return false;
    if (t >= GGUF_VALUE_TYPES)
        return fail(r, "value type", "%u is not a GGUF value type", t);
    kv->type = (enum gguf_value_type)t;
    if (t == GGUF_ARRAY)
        return get_array(r, kv);
    if (t != GGUF_STRING)
        return get_scalar(r, kv->type, kv, "value");
    if (!get_len(r, STRING_MAX, &kv->count, "value"))
        return false;
    if (kv->count > GGUF_KEPT_STRING)
        return skip(r, kv->count, "value");
    if ((kv->str = malloc((size_t)kv->count + 1)) == NULL)
        return fail(r, "value", "out of memory");
    kv->str[kv->count] = '\0';
    return get(r, kv->str, (size_t)kv->count, "value");
}

static bool read_counts(struct rd *r, struct gguf_file *g)
{
    char magic[4];
    if (!get(r, magic, 4, "magic"))
        return false;
    if (memcmp(magic, GGUF_MAGIC, 4) != 0) {
        char shown[32] = "", bytes[5] = {magic[0], magic[1], magic[2], magic[3], 0};
        text_escape(bytes, shown, sizeof shown);
        return fail(r, "magic", "\"%s\" is not \"GGUF\": not a GGUF file", shown);
    }
    if (!get_u32(r, &g->version, "version"))
        return false;
    if (g->version != 2 && g->version != 3)
        return fail(r, "version", "%u is not supported (kvplan reads GGUF versions 2 and 3%s)",
                    g->version,
                    g->version == 1 ? "; version 1 is llama.cpp's of 2023"
                    : (g->version & 0xffff) == 0 ? "; a big-endian file?"
                                                 : "");
    if (!get_u64(r, &g->tensor_count, "tensor_count") || !get_u64(r, &g->kv_count, "kv_count"))
        return false;
    /* a tensor's entry takes at least 24 bytes, a metadata entry 13 */
    if (g->kv_count > KV_COUNT_MAX || g->kv_count > left(r) / 13)
        return fail(r, "kv_count", "%llu metadata entries are more than %s",
                    (unsigned long long)g->kv_count,
                    g->kv_count > KV_COUNT_MAX ? "a GGUF holds (65536)" : "the file can hold");
    if (g->tensor_count > TENSOR_COUNT_MAX || g->tensor_count > left(r) / 24)
        return fail(r, "tensor_count", "%llu tensors are more than %s",
                    (unsigned long long)g->tensor_count,
                    g->tensor_count > TENSOR_COUNT_MAX ? "a GGUF holds (1048576)"
                                                       : "the file can hold");
    return true;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A name given twice among n (sorted in place), or NULL. */
static const char *first_twice(const char **names, uint64_t n)
{
    if (n > 1)
        qsort(names, (size_t)n, sizeof *names, by_name);
    for (uint64_t i = 1; i < n; i++)
        if (strcmp(names[i - 1], names[i]) == 0)
            return names[i];
    return NULL;
}

/* The metadata, then general.alignment's rule: a power of two (u32). */
static bool read_metadata(struct rd *r, struct gguf_file *g)
{
    if (g->kv_count && (g->kv = calloc((size_t)g->kv_count, sizeof *g->kv)) == NULL)
        return fail(r, "kv_count", "out of memory");
    for (uint64_t i = 0; i < g->kv_count; i++) {
        struct gguf_kv *kv = &g->kv[i];
        snprintf(r->where, sizeof r->where, "metadata %llu", (unsigned long long)i);
        if (!get_name(r, kv->key, sizeof kv->key, "key"))
            return false;
        char shown[GGUF_KEY_MAX];
        text_escape(kv->key, shown, sizeof shown);
        snprintf(r->where, sizeof r->where, "metadata %llu \"%.80s\"", (unsigned long long)i,
                 shown);
        if (!get_value(r, kv))
            return false;
    }
    r->where[0] = '\0';
    const char **keys = g->kv_count ? malloc((size_t)g->kv_count * sizeof *keys) : NULL;
    if (g->kv_count && keys == NULL)
        return fail(r, "metadata", "out of memory");
    for (uint64_t i = 0; i < g->kv_count; i++)
        keys[i] = g->kv[i].key;
    const char *twice = first_twice(keys, g->kv_count);
    char shown[GGUF_KEY_MAX];
    text_escape(twice ? twice : "", shown, sizeof shown);
    free(keys);
    if (twice)
        return fail(r, "metadata", "the key \"%s\" is given twice", shown);
    g->alignment = ALIGNMENT_DEFAULT;
    const struct gguf_kv *a = gguf_find(g, "general.alignment");
    if (a && a->type != GGUF_U32)
        return fail(r, "general.alignment", "a %s, not a u32", gguf_value_type_name(a->type));
    if (a && (a->v.u == 0 || (a->v.u & (a->v.u - 1)) != 0))
        return fail(r, "general.alignment", "%llu is not a power of two",
                    (unsigned long long)a->v.u);
    if (a)
        g->alignment = (uint32_t)a->v.u;
    return true;
}

/* Elements and bytes: no dimension past 2^63, their product neither; the
 * first dimension whole blocks of the type. */
static bool tensor_size(struct rd *r, struct gguf_tensor *t)
{
    const char *tname = NULL;
    uint32_t blck = 0, size = 0;
    if (!ggml_type_info(t->type, &tname, &blck, &size))
        return fail(r, "type", "%u is not a ggml type", t->type);
    uint64_t n = 1;
    for (uint32_t j = 0; j < GGUF_MAX_DIMS; j++) {
        if (t->ne[j] > (uint64_t)INT64_MAX)
            return fail(r, "dims", "ne[%u] %llu is past 2^63", j, (unsigned long long)t->ne[j]);
        if (t->ne[j] && n > (uint64_t)INT64_MAX / t->ne[j])
            return fail(r, "dims", "%llu x %llu x %llu x %llu elements overflow 64 bits",
                        (unsigned long long)t->ne[0], (unsigned long long)t->ne[1],
                        (unsigned long long)t->ne[2], (unsigned long long)t->ne[3]);
        n *= t->ne[j];
    }
    if (t->ne[0] % blck != 0)
        return fail(r, "dims", "ne[0] %llu is not whole blocks of %s (%u values a block)",
                    (unsigned long long)t->ne[0], tname, blck);
    uint64_t blocks = n / blck;
    if (blocks > (uint64_t)INT64_MAX / size)
        return fail(r, "dims", "%llu blocks of %s overflow 64 bits", (unsigned long long)blocks,
                    tname);
    t->bytes = blocks * size;
    return true;
}

static uint64_t pad(uint64_t x, uint32_t align)
{
    return x % align ? x + (align - x % align) : x;
}

/* One tensor's entry; *expected is where its data must start, each tensor
 * following the one before, padded to the alignment (as llama.cpp's
 * loader requires). */
static bool read_tensor(struct rd *r, struct gguf_file *g, uint64_t i, uint64_t *expected)
{
    struct gguf_tensor *t = &g->tensors[i];
    snprintf(r->where, sizeof r->where, "tensor %llu", (unsigned long long)i);
    if (!get_name(r, t->name, sizeof t->name, "name"))
        return false;
    snprintf(r->where, sizeof r->where, "tensor %llu \"%s\"", (unsigned long long)i, t->name);
    if (!get_u32(r, &t->n_dims, "n_dims"))
        return false;
    if (t->n_dims > GGUF_MAX_DIMS)
        return fail(r, "n_dims", "%u is more than ggml's %d", t->n_dims, GGUF_MAX_DIMS);
    for (uint32_t j = 0; j < GGUF_MAX_DIMS; j++)
        t->ne[j] = 1;
    for (uint32_t j = 0; j < t->n_dims; j++)
        if (!get_u64(r, &t->ne[j], "dims"))
            return false;
    if (!get_u32(r, &t->type, "type") || !tensor_size(r, t) ||
        !get_u64(r, &t->offset, "offset"))
        return false;
    if (t->offset % g->alignment != 0)
        return fail(r, "offset", "%llu is not a multiple of the alignment %u",
                    (unsigned long long)t->offset, g->alignment);
    if (t->offset != *expected)
        return fail(r, "offset", "%llu, where the tensor before it ends at %llu (tensors lie in "
                                 "order, each padded to %u bytes)",
                    (unsigned long long)t->offset, (unsigned long long)*expected, g->alignment);
    uint64_t padded = pad(t->bytes, g->alignment);
    if (padded < t->bytes || padded > UINT64_MAX - *expected)
        return fail(r, "offset", "the data's size overflows 64 bits");
    *expected += padded;
    return true;
}

/* Every tensor's entry; the data's start; every tensor within the file;
 * no name given twice. */
static bool read_tensors(struct rd *r, struct gguf_file *g)
{
    size_t cap = 0;
    uint64_t expected = 0;
    for (uint64_t i = 0; i < g->tensor_count; i++) {
        if (i == cap) { /* grown with what the file really holds, not the count it claims */
            size_t more = cap ? cap * 2 : 64;
            struct gguf_tensor *bigger = realloc(g->tensors, more * sizeof *bigger);
            if (bigger == NULL)
                return fail(r, "tensor_count", "out of memory");
            g->tensors = bigger;
            cap = more;
        }
        memset(&g->tensors[i], 0, sizeof g->tensors[i]);
        if (!read_tensor(r, g, i, &expected))
            return false;
    }
    r->where[0] = '\0';
    g->data_offset = pad(r->pos, g->alignment);
    g->data_bytes = expected;
    for (uint64_t i = 0; i < g->tensor_count; i++) {
        const struct gguf_tensor *t = &g->tensors[i];
        if (g->data_offset > g->file_size || t->offset + t->bytes > g->file_size - g->data_offset) {
            snprintf(r->where, sizeof r->where, "tensor %llu \"%s\"", (unsigned long long)i,
                     t->name);
            return fail(r, "offset", "its data ends at byte %llu, past the end of the file (%llu "
                                     "bytes)",
                        (unsigned long long)(g->data_offset + t->offset + t->bytes),
                        (unsigned long long)g->file_size);
        }
    }
    const char **names = g->tensor_count ? malloc((size_t)g->tensor_count * sizeof *names) : NULL;
    if (g->tensor_count && names == NULL)
        return fail(r, "tensors", "out of memory");
    for (uint64_t i = 0; i < g->tensor_count; i++)
        names[i] = g->tensors[i].name;
    const char *twice = first_twice(names, g->tensor_count);
    bool ok = twice == NULL || fail(r, "tensors", "the name \"%s\" is given twice", twice);
    free(names);
    return ok;
}

bool gguf_read(const char *name, const struct gguf_source *src, struct gguf_file *g,
               struct diag *d)
{
    memset(g, 0, sizeof *g);
    struct rd r = {.src = src, .d = d};
    text_escape(name, r.name, sizeof r.name);
    g->file_size = src->size;
    g->parts = 1;
    bool ok = read_counts(&r, g) && read_metadata(&r, g) && read_tensors(&r, g);
    if (!ok)
        gguf_free(g);
    return ok;
}

struct membuf {
    const unsigned char *p;
    size_t at;
};

static bool mem_read(void *ctx, void *buf, size_t n)
{
    struct membuf *m = ctx;
    memcpy(buf, m->p + m->at, n);
    m->at += n;
    return true;
}

bool gguf_read_memory(const char *name, const void *data, size_t size, struct gguf_file *g,
                      struct diag *d)
{
    struct membuf m = {data, 0};
    struct gguf_source src = {mem_read, &m, size};
    return gguf_read(name, &src, g, d);
}

static bool file_read(void *ctx, void *buf, size_t n)
{
    return fread(buf, 1, n, (FILE *)ctx) == n;
}

bool gguf_read_path(const char *path, struct gguf_file *g, struct diag *d)
{
    memset(g, 0, sizeof *g);
    char shown[256];
    text_escape(path, shown, sizeof shown);
    /* opened without blocking, so that a FIFO is refused rather than waited on */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return diag_fail(d, "%s: %s", shown, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return diag_fail(d, "%s: %s", shown, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return diag_fail(d, "%s: not a regular file", shown);
    }
    FILE *f = fdopen(fd, "rb");
    if (f == NULL) {
        close(fd);
        return diag_fail(d, "%s: %s", shown, strerror(errno));
    }
    struct gguf_source src = {file_read, f, (uint64_t)st.st_size};
    bool ok = gguf_read(path, &src, g, d);
    fclose(f);
    return ok;
}

void gguf_free(struct gguf_file *g)
{
    for (uint64_t i = 0; g->kv && i < g->kv_count; i++) {
        free(g->kv[i].str);
        free(g->kv[i].ints);
    }
    free(g->kv);
    free(g->tensors);
    memset(g, 0, sizeof *g);
}

uint64_t gguf_unsigned(const struct gguf_file *g, const char *key)
{
    const struct gguf_kv *kv = gguf_find(g, key);
    return kv && (kv->type == GGUF_U8 || kv->type == GGUF_U16 || kv->type == GGUF_U32 ||
                  kv->type == GGUF_U64)
               ? kv->v.u
               : UINT64_MAX;
}

bool gguf_add_part(const char *name, struct gguf_file *g, const struct gguf_file *part,
                   struct diag *d)
{
    char shown[256];
    text_escape(name, shown, sizeof shown);
    uint64_t count = gguf_unsigned(g, "split.count"), no = gguf_unsigned(part, "split.no");
    if (gguf_unsigned(part, "split.count") != count || no != g->parts)
        return diag_fail(d, "%s: split.no: not file %u of the %llu of this split (its split.no "
                            "%lld, split.count %lld)",
                         shown, g->parts + 1, (unsigned long long)count,
                         no == UINT64_MAX ? -1LL : (long long)no,
                         gguf_unsigned(part, "split.count") == UINT64_MAX
                             ? -1LL
                             : (long long)gguf_unsigned(part, "split.count"));
    uint64_t n = g->tensor_count + part->tensor_count;
    struct gguf_tensor *all = realloc(g->tensors, (n ? n : 1) * sizeof *all);
    if (all == NULL)
        return diag_fail(d, "%s: out of memory", shown);
    g->tensors = all;
    if (part->tensor_count)
        memcpy(all + g->tensor_count, part->tensors, part->tensor_count * sizeof *all);
    const char **names = malloc((n ? n : 1) * sizeof *names);
    if (names == NULL)
        return diag_fail(d, "%s: out of memory", shown);
    for (uint64_t i = 0; i < n; i++)
        names[i] = all[i].name;
    const char *twice = first_twice(names, n);
    bool ok = twice == NULL ||
              diag_fail(d, "%s: tensors: \"%s\" is in an earlier file of the split too", shown,
                        twice);
    free(names);
    if (ok) {
        g->tensor_count = n;
        g->parts++;
    }
    return ok;
}

const struct gguf_kv *gguf_find(const struct gguf_file *g, const char *key)
{
    for (uint64_t i = 0; i < g->kv_count; i++)
        if (strcmp(g->kv[i].key, key) == 0)
            return &g->kv[i];
    return NULL;
}
