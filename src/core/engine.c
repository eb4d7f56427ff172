#include "engine.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *names[ENGINE_COUNT] = {"generic", "vllm", "sglang", "llama.cpp", "trtllm"};

const char *engine_name(enum engine_kind k)
{
    return k >= 0 && k < ENGINE_COUNT ? names[k] : "?";
}

const char *engine_label(enum engine_kind k, enum engine_rule r)
{
    if (k == ENGINE_VLLM && r == RULE_VLLM_V0)
        return "vllm@0";
    if (k == ENGINE_LLAMACPP && r == RULE_LLAMACPP_PRE_MLA)
        return "llama.cpp@pre-mla";
    if (k == ENGINE_TRTLLM && r == RULE_TRTLLM_ENGINE)
        return "trtllm@trt";
    return engine_name(k);
}

bool engine_parse(const char *text, enum engine_kind *kind, enum engine_rule *rule,
                  struct diag *d)
{
    char name[64];
    snprintf(name, sizeof name, "%s", text ? text : "");
    char *at = strchr(name, '@');
    const char *version = NULL;
    if (at) {
        *at = '\0';
        version = at + 1;
    }
    static const struct {
        const char *alias;
        enum engine_kind k;
    } aliases[] = {{"generic", ENGINE_GENERIC}, {"vllm", ENGINE_VLLM},
                   {"sglang", ENGINE_SGLANG},   {"llama.cpp", ENGINE_LLAMACPP},
                   {"llamacpp", ENGINE_LLAMACPP}, {"llama-cpp", ENGINE_LLAMACPP},
                   {"ollama", ENGINE_LLAMACPP}, {"trtllm", ENGINE_TRTLLM},
                   {"tensorrt-llm", ENGINE_TRTLLM}, {"trt-llm", ENGINE_TRTLLM}};
    bool found = false;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        if (strcasecmp(name, aliases[i].alias) == 0) {
            *kind = aliases[i].k;
            found = true;
        }
    }
    if (!found)
        return diag_fail(d, "'%s' is not an engine (generic, vllm, sglang, llama.cpp, trtllm)",
                         text ? text : "");
    *rule = RULE_CURRENT;
    if (version == NULL || version[0] == '\0' || strcasecmp(version, "latest") == 0)
        return true;
    if (*kind == ENGINE_VLLM && (strcmp(version, "0") == 0 || strcasecmp(version, "v0") == 0)) {
        *rule = RULE_VLLM_V0;
        return true;
    }
    if (*kind == ENGINE_VLLM && (strcmp(version, "1") == 0 || strcasecmp(version, "v1") == 0))
        return true;
    if (*kind == ENGINE_LLAMACPP && strcasecmp(version, "pre-mla") == 0) {
        *rule = RULE_LLAMACPP_PRE_MLA;
        return true;
    }
    if (*kind == ENGINE_TRTLLM && strcasecmp(version, "trt") == 0) {
        *rule = RULE_TRTLLM_ENGINE;
        return true;
    }
    if (*kind == ENGINE_TRTLLM && strcasecmp(version, "pytorch") == 0)
        return true;
    return diag_fail(d, "'%s': unknown version of %s (known: vllm@0, vllm@1, "
                        "llama.cpp@pre-mla, trtllm@pytorch, trtllm@trt)",
                     text, engine_name(*kind));
}

/* Whether the engine can cache in this precision at all. */
bool engine_supports(enum engine_kind k, enum dtype d)
{
    switch (k) {
    case ENGINE_VLLM:
    case ENGINE_SGLANG:
        return d == DTYPE_FP16 || d == DTYPE_BF16 || d == DTYPE_FP32 || d == DTYPE_FP8;
    case ENGINE_LLAMACPP:
        return d == DTYPE_FP16 || d == DTYPE_BF16 || d == DTYPE_FP32 || d == DTYPE_Q8_0 ||
               d == DTYPE_Q4_0;
    case ENGINE_TRTLLM:
        return d == DTYPE_FP16 || d == DTYPE_BF16 || d == DTYPE_FP32 || d == DTYPE_FP8 ||
               d == DTYPE_INT8;
    default:
        return true;
    }
}

const char *engine_cache_types(enum engine_kind k)
{
    switch (k) {
    case ENGINE_VLLM:
    case ENGINE_SGLANG:
        return "auto, fp16, bf16, fp32 or fp8";
    case ENGINE_LLAMACPP:
        return "auto, fp16, bf16, fp32, q8_0 or q4_0";
    case ENGINE_TRTLLM:
        return "auto, fp16, bf16, fp32, fp8 or int8";
    default:
        return "any";
    }
}

bool engine_runs_on(enum engine_kind k, const char *vendor)
{
    bool nvidia = strncasecmp(vendor, "nvidia", 6) == 0, amd = strncasecmp(vendor, "amd", 3) == 0;
    switch (k) {
    case ENGINE_VLLM:
    case ENGINE_SGLANG:
        return nvidia || amd;
    case ENGINE_TRTLLM:
        return nvidia;
    default:
        return true;
    }
}
