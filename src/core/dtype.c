#include "dtype.h"

#include <stddef.h>
#include <strings.h>

static const struct dtype_info table[DTYPE_COUNT] = {
    [DTYPE_AUTO] = {"auto", 0, 1, "the model's own precision"},
    [DTYPE_FP32] = {"fp32", 4, 1, "32-bit float, 4 bytes"},
    [DTYPE_FP16] = {"fp16", 2, 1, "16-bit float, 2 bytes"},
    [DTYPE_BF16] = {"bf16", 2, 1, "bfloat16, 2 bytes"},
    [DTYPE_FP8] = {"fp8", 1, 1, "8-bit float (e4m3/e5m2), 1 byte"},
    [DTYPE_INT8] = {"int8", 1, 1, "8-bit integer, 1 byte"},
    [DTYPE_INT4] = {"int4", 1, 2, "4-bit integer, 0.5 byte"},
    [DTYPE_Q8_0] = {"q8_0", 34, 32, "llama.cpp q8_0: 34 bytes per 32 values"},
    [DTYPE_Q4_0] = {"q4_0", 18, 32, "llama.cpp q4_0: 18 bytes per 32 values"},
    [DTYPE_FP4] = {"fp4", 9, 16, "NVFP4: 4-bit values and an fp8 scale per 16, 4.5 bits"},
    [DTYPE_Q6_K] = {"q6_k", 210, 256, "llama.cpp q6_k: 210 bytes per 256 values, 6.56 bits"},
    /* tools/quantize/quantize.cpp lists Llama-3-8B (8.03e9 params) at 5.33 GiB in Q5_K_M and
     * 4.58 GiB in Q4_K_M: 5.70 and 4.90 bits a weight on average */
    [DTYPE_Q5_K_M] = {"q5_k_m", 57, 80, "llama.cpp q5_k_m: a mix, 5.70 bits a weight on average"},
    [DTYPE_Q4_K_M] = {"q4_k_m", 49, 80, "llama.cpp q4_k_m: a mix, 4.90 bits a weight on average"},
};

static const struct {
    const char *alias;
    enum dtype d;
} aliases[] = {
    {"float32", DTYPE_FP32},  {"float16", DTYPE_FP16},  {"half", DTYPE_FP16},
    {"bfloat16", DTYPE_BF16}, {"fp8_e4m3", DTYPE_FP8},  {"fp8_e5m2", DTYPE_FP8},
    {"e4m3", DTYPE_FP8},      {"e5m2", DTYPE_FP8},      {"q8", DTYPE_Q8_0},
    {"q4", DTYPE_Q4_0},       {"f32", DTYPE_FP32},      {"f16", DTYPE_FP16},
    {"nvfp4", DTYPE_FP4},     {"q4_k", DTYPE_Q4_K_M},   {"q5_k", DTYPE_Q5_K_M},
};

const struct dtype_info *dtype_info(enum dtype d)
{
    if ((int)d < 0 || d >= DTYPE_COUNT)
        d = DTYPE_AUTO;
    return &table[d];
}

bool dtype_parse(const char *name, enum dtype *out)
{
    if (name == NULL)
        return false;
    for (int i = 0; i < DTYPE_COUNT; i++) {
        if (strcasecmp(name, table[i].name) == 0) {
            *out = (enum dtype)i;
            return true;
        }
    }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        if (strcasecmp(name, aliases[i].alias) == 0) {
            *out = aliases[i].d;
            return true;
        }
    }
    return false;
}

uint64_t dtype_bytes_for(enum dtype d, uint64_t values)
{
    const struct dtype_info *info = dtype_info(d);
    /* values * num cannot overflow for any real tensor row (< 2^40 values). */
    return (values * info->bytes_num + info->bytes_den - 1) / info->bytes_den;
}

const char *dtype_names(void)
{
    return "fp32, fp16, bf16, fp8, int8, int4, q8_0, q4_0, fp4, q6_k, q5_k_m, q4_k_m (or auto)";
}
