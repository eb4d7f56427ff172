/* safetensors headers: the dtypes' sizes as the format defines them, the
 * bytes of each tensor from its shape, and every header that does not
 * describe its own file refused with the field named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "io/safetensors.h"

/* The safetensors crate's Dtype::bitsize (safetensors/src/tensor.rs, 0.8): every
 * dtype, by the name a header gives. */
static void dtypes_have_the_formats_sizes(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        unsigned bits;
    } want[] = {
        {"BOOL", 8},     {"U8", 8},       {"I8", 8},   {"F8_E5M2", 8}, {"F8_E4M3", 8},
        {"F8_E8M0", 8},  {"I16", 16},     {"U16", 16}, {"F16", 16},    {"BF16", 16},
        {"I32", 32},     {"U32", 32},     {"F32", 32}, {"C64", 64},    {"I64", 64},
        {"U64", 64},     {"F64", 64},     {"F4", 4},   {"F6_E2M3", 6}, {"F6_E3M2", 6},
        {"F8_E4M3FNUZ", 8}, {"F8_E5M2FNUZ", 8},
    };
    assert_int_equal(sizeof want / sizeof want[0], ST_DTYPE_COUNT);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        enum st_dtype t;
        assert_true(safetensors_dtype_parse(want[i].name, &t));
        assert_int_equal(safetensors_dtype_bits(t), want[i].bits);
        assert_string_equal(safetensors_dtype_name(t), want[i].name);
    }
    enum st_dtype t;
    assert_false(safetensors_dtype_parse("bf16", &t)); /* the format's spelling only */
    assert_false(safetensors_dtype_parse("F8", &t));
    assert_false(safetensors_dtype_parse("", &t));
}

static bool header(const char *json, uint64_t data_len, struct st_sum *sum, struct diag *d)
{
    memset(d, 0, sizeof *d);
    return safetensors_header("m.safetensors", json, strlen(json), data_len, sum, d);
}

static void tensors_are_summed_by_dtype(void **state)
{
    (void)state;
    struct st_sum sum = {0};
    struct diag d;
    assert_true(header("{\"__metadata__\":{\"format\":\"pt\"},"
                       "\"w\":{\"dtype\":\"BF16\",\"shape\":[3,5],\"data_offsets\":[0,30]},"
                       "\"s\":{\"dtype\":\"F8_E4M3\",\"shape\":[7],\"data_offsets\":[30,37]},"
                       "\"q\":{\"dtype\":\"I8\",\"shape\":[2,2],\"data_offsets\":[37,41]},"
                       "\"p\":{\"dtype\":\"F4\",\"shape\":[6],\"data_offsets\":[41,44]},"
                       "\"e\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[44,44]}}  ",
                       44, &sum, &d));
    assert_int_equal(sum.bytes, 44);
    assert_int_equal(sum.tensors, 5);
    assert_int_equal(sum.files, 1);
    assert_int_equal(sum.by_dtype[ST_BF16], 30);
    assert_int_equal(sum.by_dtype[ST_F8_E4M3], 7);
    assert_int_equal(sum.by_dtype[ST_I8], 4);
    assert_int_equal(sum.by_dtype[ST_F4], 3);
    /* a second file adds to the sum */
    assert_true(header("{\"x\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[0,4]}}", 4,
                       &sum, &d));
    assert_int_equal(sum.bytes, 48);
    assert_int_equal(sum.files, 2);
    assert_int_equal(sum.by_dtype[ST_BF16], 34);
}

static void refused(const char *json, uint64_t data_len, const char *field)
{
    struct st_sum sum = {0};
    struct diag d;
    assert_false(header(json, data_len, &sum, &d));
    if (strstr(d.message, field) == NULL)
        fail_msg("'%s' does not name '%s'", d.message, field);
    assert_int_equal(sum.bytes, 0); /* nothing of a refused file is counted */
}

static void hostile_headers_are_refused_naming_the_field(void **state)
{
    (void)state;
    refused("{\"a\":{\"dtype\":\"F7\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1,
            "a.dtype: 'F7' is not a safetensors dtype");
    refused("{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},"
            "\"b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[2,6]}}",
            6, "data_offsets: overlap");
    refused("{\"a\":{\"dtype\":\"I64\",\"shape\":[4],\"data_offsets\":[0,32]}}", 8,
            "a.data_offsets: end 32 is past the data's 8 bytes");
    refused("{\"a\":{\"dtype\":\"BF16\",\"shape\":[4294967296,4294967296],"
            "\"data_offsets\":[0,0]}}",
            0, "a.shape: the product of the dimensions overflows");
    refused("{\"a\":{\"dtype\":\"BF16\",\"shape\":[3],\"data_offsets\":[0,4]}}", 4,
            "a.data_offsets: 4 bytes for a BF16 tensor of 6 bytes");
    refused("{\"a\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,2]}}", 2,
            "a.shape: 3 values of F4 are not whole bytes");
    refused("{\"a\\u001b[2J\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1,
            "tensor name: empty or holding a control byte");
    refused("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
            "\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}}",
            2, "a: a tensor named twice");
    refused("{\"a\":{\"dtype\":\"U8\",\"shape\":[-1],\"data_offsets\":[0,1]}}", 1,
            "a.shape: not a list of whole numbers");
    refused("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,0]}}", 1,
            "a.data_offsets: not [begin, end]");
    refused("[1,2]", 0, "header: not one JSON object");
    refused("{} {}", 0, "header: not one JSON object");
}

static void lengths_past_the_file_are_refused(void **state)
{
    (void)state;
    struct st_sum sum = {0};
    struct diag d = {0};
    uint8_t buf[16] = {200, 0, 0, 0, 0, 0, 0, 0, '{', '}'};
    assert_false(safetensors_image("m.safetensors", buf, 10, &sum, &d));
    assert_non_null(strstr(d.message, "header length: 200 bytes, past the end of the file"));
    memset(&d, 0, sizeof d);
    uint8_t big[10] = {0, 0, 0, 0, 0, 0, 0, 0x80, '{', '}'}; /* 2^63 */
    assert_false(safetensors_image("m.safetensors", big, 10, &sum, &d));
    assert_non_null(strstr(d.message, "header length: 9223372036854775808 bytes, more than"));
    memset(&d, 0, sizeof d);
    assert_false(safetensors_image("m.safetensors", buf, 5, &sum, &d));
    assert_non_null(strstr(d.message, "fewer than 8"));
    memset(&d, 0, sizeof d);
    uint8_t ok[10] = {2, 0, 0, 0, 0, 0, 0, 0, '{', '}'};
    assert_true(safetensors_image("m.safetensors", ok, 10, &sum, &d));
    assert_int_equal(sum.files, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dtypes_have_the_formats_sizes),
        cmocka_unit_test(tensors_are_summed_by_dtype),
        cmocka_unit_test(hostile_headers_are_refused_naming_the_field),
        cmocka_unit_test(lengths_past_the_file_are_refused),
    };
    return cmocka_run_group_tests_name("safetensors", tests, NULL, NULL);
}
