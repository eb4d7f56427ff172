/* gguf_types: ggml's tensor types (values per block, bytes per block) and
 * llama.cpp's file types, by the numbers a GGUF file stores. */
#include "gguf.h"

#include <stddef.h>

/* Per ggml type: its name, the values one block holds, the block's bytes.
 * K-quants and most i-quants hold 256 values a block; the numbers ggml
 * retired (4, 5, 31 to 33, 36 to 38) hold none and are no type. */
static const struct {
    const char *name;
    uint32_t blck, size;
} types[] = {
    [0] = {"f32", 1, 4},        [1] = {"f16", 1, 2},          [2] = {"q4_0", 32, 18},
    [3] = {"q4_1", 32, 20},     [6] = {"q5_0", 32, 22},       [7] = {"q5_1", 32, 24},
    [8] = {"q8_0", 32, 34},     [9] = {"q8_1", 32, 36},       [10] = {"q2_K", 256, 84},
    [11] = {"q3_K", 256, 110},  [12] = {"q4_K", 256, 144},    [13] = {"q5_K", 256, 176},
    [14] = {"q6_K", 256, 210},  [15] = {"q8_K", 256, 292},    [16] = {"iq2_xxs", 256, 66},
    [17] = {"iq2_xs", 256, 74}, [18] = {"iq3_xxs", 256, 98},  [19] = {"iq1_s", 256, 50},
    [20] = {"iq4_nl", 32, 18},  [21] = {"iq3_s", 256, 110},   [22] = {"iq2_s", 256, 82},
    [23] = {"iq4_xs", 256, 136}, [24] = {"i8", 1, 1},         [25] = {"i16", 1, 2},
    [26] = {"i32", 1, 4},       [27] = {"i64", 1, 8},         [28] = {"f64", 1, 8},
    [29] = {"iq1_m", 256, 56},  [30] = {"bf16", 1, 2},        [34] = {"tq1_0", 256, 54},
    [35] = {"tq2_0", 256, 66},  [39] = {"mxfp4", 32, 17},     [40] = {"nvfp4", 64, 36},
    [41] = {"q1_0", 128, 18},
};

bool ggml_type_info(uint32_t type, const char **name, uint32_t *blck, uint32_t *size)
{
    if (type >= sizeof types / sizeof types[0] || types[type].name == NULL)
        return false;
    if (name)
        *name = types[type].name;
    if (blck)
        *blck = types[type].blck;
    if (size)
        *size = types[type].size;
    return true;
}

/* general.file_type: what llama.cpp's quantizer was asked for (llama_ftype). */
static const char *const file_types[] = {
    [0] = "F32",      [1] = "F16",      [2] = "Q4_0",     [3] = "Q4_1",     [7] = "Q8_0",
    [8] = "Q5_0",     [9] = "Q5_1",     [10] = "Q2_K",    [11] = "Q3_K_S",  [12] = "Q3_K_M",
    [13] = "Q3_K_L",  [14] = "Q4_K_S",  [15] = "Q4_K_M",  [16] = "Q5_K_S",  [17] = "Q5_K_M",
    [18] = "Q6_K",    [19] = "IQ2_XXS", [20] = "IQ2_XS",  [21] = "Q2_K_S",  [22] = "IQ3_XS",
    [23] = "IQ3_XXS", [24] = "IQ1_S",   [25] = "IQ4_NL",  [26] = "IQ3_S",   [27] = "IQ3_M",
    [28] = "IQ2_S",   [29] = "IQ2_M",   [30] = "IQ4_XS",  [31] = "IQ1_M",   [32] = "BF16",
    [36] = "TQ1_0",   [37] = "TQ2_0",   [38] = "MXFP4_MOE", [39] = "NVFP4", [40] = "Q1_0",
};

const char *gguf_file_type_name(uint32_t file_type)
{
    return file_type < sizeof file_types / sizeof file_types[0] ? file_types[file_type] : NULL;
}

const char *gguf_value_type_name(enum gguf_value_type t)
{
    static const char *const names[GGUF_VALUE_TYPES] = {
        "u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64"};
    return (unsigned)t < GGUF_VALUE_TYPES ? names[t] : "?";
}
