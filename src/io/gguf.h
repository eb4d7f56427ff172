/* gguf: the header of a GGUF file (llama.cpp's model format), versions 2
 * and 3, read without its tensor data.
 *
 * The header is the magic "GGUF", the version, the tensor and metadata
 * counts, every metadata key and value (all thirteen value types, arrays
 * of any but arrays), then each tensor's name, dimensions, ggml type and
 * offset; the data follows, aligned. The reader streams through the header
 * in bounded reads (a file is never mapped or read whole) and refuses a
 * file that is not what llama.cpp would load, naming the file and the
 * field: "m.gguf: tensor 3 "blk.0.attn_q.weight": type 99 is not a ggml
 * type". Each count is held to what the bytes left can hold before anything
 * is allocated for it, so a hostile count costs nothing.
 *
 * The bytes of a tensor are ggml's: its elements over the type's block
 * size, times the block's bytes (ggml_row_size). */
#ifndef KVPLAN_IO_GGUF_H
#define KVPLAN_IO_GGUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/diag.h"

/* GGUF's value types, as the file numbers them. */
enum gguf_value_type {
    GGUF_U8 = 0, GGUF_I8, GGUF_U16, GGUF_I16, GGUF_U32, GGUF_I32, GGUF_F32, GGUF_BOOL,
    GGUF_STRING, GGUF_ARRAY, GGUF_U64, GGUF_I64, GGUF_F64, GGUF_VALUE_TYPES
};

enum {
    GGUF_MAX_DIMS = 4,      /* ggml's GGML_MAX_DIMS */
    GGUF_NAME_MAX = 64,     /* ggml's GGML_MAX_NAME, the NUL included */
    GGUF_KEY_MAX = 256,     /* bytes of a key; real keys are a few dozen */
    GGUF_KEPT_STRING = 512, /* string values kept (longer ones are counted, not kept) */
    GGUF_KEPT_ARRAY = 65536 /* integer array elements kept (per-layer values) */
};

/* One metadata key and its value. Integers (and bools) are in i or u as
 * their type is signed or not, floats in f; a string of at most
 * GGUF_KEPT_STRING bytes in str (NUL-terminated, else NULL, its length in
 * count); an array's element type and count, and when its elements are
 * integers or bools and at most GGUF_KEPT_ARRAY, the elements in ints. */
struct gguf_kv {
    char key[GGUF_KEY_MAX];
    enum gguf_value_type type, elem_type;
    uint64_t count;
    union {
        uint64_t u;
        int64_t i;
        double f;
    } v;
    char *str;
    int64_t *ints;
};

struct gguf_tensor {
    char name[GGUF_NAME_MAX];
    uint32_t n_dims, type;
    uint64_t ne[GGUF_MAX_DIMS]; /* 1 past n_dims */
    uint64_t offset;            /* from the start of the data */
    uint64_t bytes;
};

struct gguf_file {
    uint32_t version;
    uint64_t tensor_count, kv_count;
    uint32_t alignment;
    uint64_t data_offset; /* where the tensor data starts */
    uint64_t data_bytes;  /* the data, each tensor padded to the alignment */
    uint64_t file_size;
    uint32_t parts; /* files whose tensors this holds (gguf_add_part); 1 when read */
    struct gguf_kv *kv;
    struct gguf_tensor *tensors;
};

/* A source of bytes: read n bytes into buf (false at the end or on an
 * error), and the whole size. */
struct gguf_source {
    bool (*read)(void *ctx, void *buf, size_t n);
    void *ctx;
    uint64_t size;
};

/* Reads the header from src; name is the file as messages call it. On
 * failure g holds nothing (gguf_free is still safe). */
bool gguf_read(const char *name, const struct gguf_source *src, struct gguf_file *g,
               struct diag *d);

/* The same over a buffer in memory, and over a file on disk (a regular
 * file, read through stdio's buffer). */
bool gguf_read_memory(const char *name, const void *data, size_t size, struct gguf_file *g,
                      struct diag *d);
bool gguf_read_path(const char *path, struct gguf_file *g, struct diag *d);

void gguf_free(struct gguf_file *g);

/* A model split over files (llama-gguf-split: split.count, split.no): adds
 * the tensors of part, the file after the last one added, to g; false when
 * part is not that file of the same split, or names a tensor g has. */
bool gguf_add_part(const char *name, struct gguf_file *g, const struct gguf_file *part,
                   struct diag *d);

/* The metadata entry of a key, or NULL. */
const struct gguf_kv *gguf_find(const struct gguf_file *g, const char *key);

/* A key's value when it is an unsigned integer (u8 to u64), else UINT64_MAX. */
uint64_t gguf_unsigned(const struct gguf_file *g, const char *key);

/* --- ggml's types (gguf_types.c) --- */

/* A ggml type's name ("q4_K") and its block: blck values stored in size
 * bytes; false for a number that is no type (or one ggml removed). */
bool ggml_type_info(uint32_t type, const char **name, uint32_t *blck, uint32_t *size);

/* The name of general.file_type's value (llama_ftype: 15 "Q4_K_M"), or NULL. */
const char *gguf_file_type_name(uint32_t file_type);

/* The name of a value type ("u32", "string"). */
const char *gguf_value_type_name(enum gguf_value_type t);

#endif
