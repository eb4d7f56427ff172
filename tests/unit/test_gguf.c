/* The GGUF header reader: ggml's type sizes, every metadata value type,
 * versions 2 and 3, and the counts it holds to what the bytes left can
 * hold, over headers built here in memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "io/gguf.h"

/* Every ggml type a GGUF may hold, with the values one block holds and its
 * bytes, as ggml states them: ggml-org/llama.cpp ggml/src/ggml.c, the
 * type_traits table (blck_size, type_size = sizeof(block_*)), at commit
 * 00bdaa105cb0, the block structs in ggml/src/ggml-common.h (block_q4_K:
 * d, dmin, 12 scale bytes, 128 of quants = 144; block_q6_K: 128 + 64 + 16
 * + 2 = 210; block_mxfp4: e + 16 = 17; block_nvfp4: 4 scales + 32 = 36). */
static void type_sizes_are_ggmls(void **state)
{
    (void)state;
    static const struct {
        uint32_t type;
        const char *name;
        uint32_t blck, size;
    } want[] = {
        {0, "f32", 1, 4},         {1, "f16", 1, 2},         {2, "q4_0", 32, 18},
        {3, "q4_1", 32, 20},      {6, "q5_0", 32, 22},      {7, "q5_1", 32, 24},
        {8, "q8_0", 32, 34},      {9, "q8_1", 32, 36},      {10, "q2_K", 256, 84},
        {11, "q3_K", 256, 110},   {12, "q4_K", 256, 144},   {13, "q5_K", 256, 176},
        {14, "q6_K", 256, 210},   {15, "q8_K", 256, 292},   {16, "iq2_xxs", 256, 66},
        {17, "iq2_xs", 256, 74},  {18, "iq3_xxs", 256, 98}, {19, "iq1_s", 256, 50},
        {20, "iq4_nl", 32, 18},   {21, "iq3_s", 256, 110},  {22, "iq2_s", 256, 82},
        {23, "iq4_xs", 256, 136}, {24, "i8", 1, 1},         {25, "i16", 1, 2},
        {26, "i32", 1, 4},        {27, "i64", 1, 8},        {28, "f64", 1, 8},
        {29, "iq1_m", 256, 56},   {30, "bf16", 1, 2},       {34, "tq1_0", 256, 54},
        {35, "tq2_0", 256, 66},   {39, "mxfp4", 32, 17},    {40, "nvfp4", 64, 36},
        {41, "q1_0", 128, 18},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *name = NULL;
        uint32_t blck = 0, size = 0;
        assert_true(ggml_type_info(want[i].type, &name, &blck, &size));
        assert_string_equal(name, want[i].name);
        assert_int_equal(blck, want[i].blck);
        assert_int_equal(size, want[i].size);
    }
    /* retired (Q4_2, Q4_3, the repacked Q4_0_x_y and IQ4_NL_x_y) and past the table */
    static const uint32_t none[] = {4, 5, 31, 32, 33, 36, 37, 38, 42, 99, 1000, UINT32_MAX};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        assert_false(ggml_type_info(none[i], NULL, NULL, NULL));
    assert_string_equal(gguf_file_type_name(15), "Q4_K_M");
    assert_string_equal(gguf_file_type_name(38), "MXFP4_MOE");
    assert_null(gguf_file_type_name(4)); /* Q4_1_SOME_F16, retired */
    assert_null(gguf_file_type_name(1024));
}

/* A header under construction. */
struct buf {
    unsigned char b[4096];
    size_t n;
};

static void put(struct buf *w, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        w->b[w->n++] = (unsigned char)(v >> (8 * i));
}

static void put_str(struct buf *w, const char *s)
{
    put(w, strlen(s), 8);
    memcpy(w->b + w->n, s, strlen(s));
    w->n += strlen(s);
}

static void start(struct buf *w, uint32_t version, uint64_t tensors, uint64_t kvs)
{
    w->n = 0;
    memcpy(w->b, "GGUF", 4);
    w->n = 4;
    put(w, version, 4);
    put(w, tensors, 8);
    put(w, kvs, 8);
}

static void every_value_type_is_read(void **state)
{
    (void)state;
    struct buf w;
    start(&w, 3, 0, 9);
    put_str(&w, "a.i8"), put(&w, GGUF_I8, 4), put(&w, 0xfe, 1);          /* -2 */
    put_str(&w, "a.i16"), put(&w, GGUF_I16, 4), put(&w, 0x8000, 2);      /* -32768 */
    put_str(&w, "a.u32"), put(&w, GGUF_U32, 4), put(&w, 4000000000u, 4);
    put_str(&w, "a.i64"), put(&w, GGUF_I64, 4), put(&w, UINT64_MAX, 8);  /* -1 */
    put_str(&w, "a.f32"), put(&w, GGUF_F32, 4), put(&w, 0x3fc00000, 4);  /* 1.5 */
    put_str(&w, "a.f64"), put(&w, GGUF_F64, 4), put(&w, 0x4004000000000000u, 8); /* 2.5 */
    put_str(&w, "a.bool"), put(&w, GGUF_BOOL, 4), put(&w, 1, 1);
    put_str(&w, "a.str"), put(&w, GGUF_STRING, 4), put_str(&w, "hello");
    put_str(&w, "a.arr"), put(&w, GGUF_ARRAY, 4), put(&w, GGUF_I32, 4), put(&w, 3, 8);
    put(&w, 8, 4), put(&w, (uint32_t)-1, 4), put(&w, 0, 4);
    struct gguf_file g;
    struct diag d = {0};
    assert_true(gguf_read_memory("m.gguf", w.b, w.n, &g, &d));
    assert_int_equal(gguf_find(&g, "a.i8")->v.i, -2);
    assert_int_equal(gguf_find(&g, "a.i16")->v.i, -32768);
    assert_int_equal(gguf_find(&g, "a.u32")->v.u, 4000000000u);
    assert_int_equal(gguf_find(&g, "a.i64")->v.i, -1);
    assert_true(gguf_find(&g, "a.f32")->v.f == 1.5);
    assert_true(gguf_find(&g, "a.f64")->v.f == 2.5);
    assert_int_equal(gguf_find(&g, "a.bool")->v.u, 1);
    assert_string_equal(gguf_find(&g, "a.str")->str, "hello");
    const struct gguf_kv *a = gguf_find(&g, "a.arr");
    assert_int_equal(a->elem_type, GGUF_I32);
    assert_int_equal(a->count, 3);
    assert_int_equal(a->ints[0], 8);
    assert_int_equal(a->ints[1], -1);
    assert_int_equal(g.alignment, 32);
    assert_null(gguf_find(&g, "a.none"));
    gguf_free(&g);
}

/* One tensor of 256 x 2 in Q4_K (2 blocks, 288 bytes), its data aligned. */
static size_t one_tensor(struct buf *w, uint32_t version, uint64_t offset)
{
    start(w, version, 1, 0);
    put_str(w, "blk.0.attn_q.weight");
    put(w, 2, 4), put(w, 256, 8), put(w, 2, 8), put(w, 12, 4), put(w, offset, 8);
    size_t data = (w->n + 31) / 32 * 32;
    memset(w->b + w->n, 0, data + 288 - w->n);
    return data + 288;
}

static void versions_two_and_three_read_alike(void **state)
{
    (void)state;
    for (uint32_t v = 2; v <= 3; v++) {
        struct buf w;
        size_t n = one_tensor(&w, v, 0);
        struct gguf_file g;
        struct diag d = {0};
        assert_true(gguf_read_memory("m.gguf", w.b, n, &g, &d));
        assert_int_equal(g.version, v);
        assert_int_equal(g.tensor_count, 1);
        assert_int_equal(g.tensors[0].bytes, 288);
        assert_int_equal(g.tensors[0].ne[1], 2);
        assert_int_equal(g.tensors[0].ne[2], 1);
        assert_int_equal(g.data_offset, 96); /* 83 bytes of header, padded to 32 */
        gguf_free(&g);
        /* one byte of its data missing */
        assert_false(gguf_read_memory("m.gguf", w.b, n - 1, &g, &d));
        assert_non_null(strstr(d.message, "m.gguf: tensor 0 \"blk.0.attn_q.weight\": offset: "
                                          "its data ends at byte 384, past the end"));
        memset(&d, 0, sizeof d);
    }
}

static void counts_are_held_to_the_bytes_left(void **state)
{
    (void)state;
    struct buf w;
    struct gguf_file g;
    struct diag d = {0};
    start(&w, 3, 1000, 0); /* 1000 tensors in a header of 24 bytes */
    assert_false(gguf_read_memory("m.gguf", w.b, w.n, &g, &d));
    assert_string_equal(d.message, "m.gguf: tensor_count: 1000 tensors are more than the file "
                                   "can hold");
    memset(&d, 0, sizeof d);
    start(&w, 3, 0, 1);
    put_str(&w, "a.arr"), put(&w, GGUF_ARRAY, 4), put(&w, GGUF_U64, 4), put(&w, 5, 8);
    put(&w, 0, 8); /* one of the five */
    assert_false(gguf_read_memory("m.gguf", w.b, w.n, &g, &d));
    assert_string_equal(d.message, "m.gguf: metadata 0 \"a.arr\": array length: 5 u64 values "
                                   "are more than the 8 bytes left hold");
    memset(&d, 0, sizeof d);
    start(&w, 3, 0, 1);
    put_str(&w, "a.s"), put(&w, GGUF_STRING, 4), put(&w, (uint64_t)1 << 63, 8);
    assert_false(gguf_read_memory("m.gguf", w.b, w.n, &g, &d));
    assert_non_null(strstr(d.message, "value: a string of 9223372036854775808 bytes is longer "
                                      "than the 0 bytes left"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(type_sizes_are_ggmls),
        cmocka_unit_test(every_value_type_is_read),
        cmocka_unit_test(versions_two_and_three_read_alike),
        cmocka_unit_test(counts_are_held_to_the_bytes_left),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
