#include "calibration.h"

#include "core/engine_desc.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const char *engine_names[] = {"unknown", "vLLM V0", "vLLM V1", "SGLang",
                                     "llama.cpp", "Ollama (llama.cpp)", "TGI"};
/* The profile (as --engine names it) that plans what each log's engine ran;
 * an engine kvplan has no profile for is planned by the generic rule. */
static const char *const engine_profiles[] = {"generic", "vllm@0", "vllm", "sglang",
                                              "llama.cpp", "ollama", "generic"};

static const char *field_names[LF_COUNT] = {
    [LF_TOTAL_GPU_MEMORY] = "CUDA-visible GPU memory",
    [LF_UTILIZATION] = "gpu_memory_utilization",
    [LF_WEIGHTS] = "weights",
    [LF_NON_TORCH] = "non-torch memory",
    [LF_ACTIVATION] = "activation peak",
    [LF_KV_MEMORY] = "KV cache memory",
    [LF_GPU_BLOCKS] = "GPU blocks",
    [LF_KV_TOKENS] = "KV cache tokens",
    [LF_MAX_CONCURRENCY] = "maximum concurrency",
    [LF_CONTEXT] = "context per request",
    [LF_K_SIZE] = "K cache",
    [LF_V_SIZE] = "V cache",
    [LF_CELLS] = "KV cells",
    [LF_LAYERS] = "layers",
    [LF_SEQS] = "parallel sequences",
    [LF_MEM_FRACTION] = "mem_fraction_static",
    [LF_TP] = "tensor parallel size",
    [LF_KV_NEEDED] = "KV needed for one max-length request",
    [LF_PP] = "pipeline parallel size",
    [LF_DP] = "data parallel size",
};

const char *enginelog_engine_name(enum log_engine e)
{
    return e >= 0 && e <= LOG_TGI ? engine_names[e] : "?";
}

const char *enginelog_field_name(enum log_field f)
{
    return f >= 0 && f < LF_COUNT ? field_names[f] : "?";
}

bool enginelog_field_is_bytes(enum log_field f)
{
    return f == LF_TOTAL_GPU_MEMORY || f == LF_WEIGHTS || f == LF_NON_TORCH ||
           f == LF_ACTIVATION || f == LF_KV_MEMORY || f == LF_K_SIZE || f == LF_V_SIZE ||
           f == LF_KV_NEEDED;
}

/* A number right after `key` in line (skipping blanks, '(', '=', ':'),
 * thousands separators allowed; a unit after it scales it to bytes. */
static bool number_after(const char *line, const char *key, double *out)
{
    const char *p = strstr(line, key);
    if (p == NULL)
        return false;
    p += strlen(key);
    while (*p == ' ' || *p == '(' || *p == '=' || *p == ':' || *p == '\t')
        p++;
    if (!isdigit((unsigned char)*p))
        return false;
    char digits[64];
    size_t n = 0;
    while ((isdigit((unsigned char)*p) || *p == ',' || *p == '.') && n + 1 < sizeof digits) {
        if (*p != ',')
            digits[n++] = *p;
        p++;
    }
    digits[n] = '\0';
    char *end;
    double v = strtod(digits, &end);
    if (end == digits || !isfinite(v))
        return false;
    while (*p == ' ')
        p++;
    /* "GiB", "GB" (SGLang's GB are GiB), "MiB" */
    if (strncmp(p, "GiB", 3) == 0 || strncmp(p, "GB", 2) == 0)
        v *= 1073741824.0;
    else if (strncmp(p, "MiB", 3) == 0 || strncmp(p, "MB", 2) == 0)
        v *= 1048576.0;
    *out = v;
    return true;
}

static void set(struct engine_log *log, enum log_field f, double v, int line)
{
    if (!isfinite(v) || v < 0)
        return;
    log->f[f].found = true;
    log->f[f].value = v;
    log->f[f].line = line;
}

static void grab(struct engine_log *log, const char *line, int n, const char *key,
                 enum log_field f)
{
    double v;
    if (number_after(line, key, &v))
        set(log, f, v, n);
}

static void word_after(const char *line, const char *key, char *out, size_t size)
{
    const char *p = strstr(line, key);
    if (p == NULL)
        return;
    p += strlen(key);
    while (*p == ' ' || *p == '\'' || *p == '=' || *p == '(')
        p++;
    size_t n = 0;
    while (*p && (isalnum((unsigned char)*p) || *p == '_') && n + 1 < size)
        out[n++] = *p++;
    out[n] = '\0';
}

static void mark(struct engine_log *log, enum log_engine e)
{
    /* vLLM V0 and V1 are one family for the "mixed" check */
    log->seen |= 1u << (e == LOG_VLLM_V1 ? LOG_VLLM_V0 : e == LOG_OLLAMA ? LOG_LLAMACPP : e);
}

/* recognise the engine */
static void detect_engine(struct engine_log *log, const char *line)
{
    enum log_engine before = log->engine;
    if (strstr(line, "total_gpu_memory") && strstr(line, "gpu_memory_utilization") &&
        log->engine == LOG_UNKNOWN)
        log->engine = LOG_VLLM_V0;
    if (strstr(line, "# GPU blocks:") || strstr(line, "# cuda blocks:"))
        log->engine = log->engine == LOG_VLLM_V1 ? LOG_VLLM_V1 : LOG_VLLM_V0;
    if ((strstr(line, "vLLM API server version") || strstr(line, "V1 LLM engine")) &&
        log->engine == LOG_UNKNOWN)
        log->engine = LOG_VLLM_V1;
    if (strstr(line, "GPU KV cache size:") || strstr(line, "Available KV cache memory:") ||
        strstr(line, "KV cache memory is needed") || strstr(line, "KV cache is needed"))
        log->engine = LOG_VLLM_V1;
    if (strstr(line, "KV Cache is allocated") || strstr(line, "max_total_num_tokens") ||
        strstr(line, "sglang"))
        if (log->engine == LOG_UNKNOWN || strstr(line, "KV Cache is allocated"))
            log->engine = LOG_SGLANG;
    if (strstr(line, "llama_kv_cache") || strstr(line, "llama_new_context_with_model") ||
        strstr(line, "llama_init_from_model") || strstr(line, "KV self size"))
        if (log->engine != LOG_OLLAMA)
            log->engine = LOG_LLAMACPP;
    if (strstr(line, "msg=\"starting llama server\"") || strstr(line, "OLLAMA_"))
        log->engine = LOG_OLLAMA;
    if (strstr(line, "max batch total tokens") || strstr(line, "text_generation_launcher"))
        log->engine = LOG_TGI;
    if (log->engine != before || (log->engine != LOG_UNKNOWN && log->seen == 0))
        mark(log, log->engine);
}

static void grab_vllm(struct engine_log *log, const char *line, int n)
{
    /* vLLM V0 worker.py */
    grab(log, line, n, "total_gpu_memory", LF_TOTAL_GPU_MEMORY);
    grab(log, line, n, "gpu_memory_utilization", LF_UTILIZATION);
    grab(log, line, n, "model weights take", LF_WEIGHTS);
    grab(log, line, n, "non_torch_memory takes", LF_NON_TORCH);
    grab(log, line, n, "activation peak memory takes", LF_ACTIVATION);
    grab(log, line, n, "reserved for KV Cache is", LF_KV_MEMORY);
    grab(log, line, n, "# GPU blocks:", LF_GPU_BLOCKS);
    grab(log, line, n, "# cuda blocks:", LF_GPU_BLOCKS);
    /* vLLM V1 */
    grab(log, line, n, "Model loading took", LF_WEIGHTS);
    grab(log, line, n, "Loading model weights took", LF_WEIGHTS);
    grab(log, line, n, "Available KV cache memory:", LF_KV_MEMORY);
    grab(log, line, n, "available KV cache memory", LF_KV_MEMORY);
    grab(log, line, n, "GPU KV cache size:", LF_KV_TOKENS);
    if (strstr(line, "Maximum concurrency for")) {
        grab(log, line, n, "Maximum concurrency for", LF_CONTEXT);
        grab(log, line, n, "tokens per request:", LF_MAX_CONCURRENCY);
    }
    if (strstr(line, "max seq len")) {
        grab(log, line, n, "max seq len", LF_CONTEXT);
        double v;
        const char *p = strstr(line, "max seq len");
        const char *q = p ? strstr(p, "), (") : NULL;
        if (q && number_after(q, "), (", &v))
            set(log, LF_KV_NEEDED, v, n);
    }
    grab(log, line, n, "max_model_len=", LF_CONTEXT);
    grab(log, line, n, "tensor_parallel_size=", LF_TP);
}

static void grab_sglang(struct engine_log *log, const char *line, int n)
{
    /* SGLang */
    if (strstr(line, "KV Cache is allocated")) {
        grab(log, line, n, "#tokens:", LF_KV_TOKENS);
        grab(log, line, n, "K size:", LF_K_SIZE);
        grab(log, line, n, "V size:", LF_V_SIZE);
        grab(log, line, n, "KV size:", LF_KV_MEMORY);
    }
    grab(log, line, n, "max_total_num_tokens=", LF_KV_TOKENS);
    grab(log, line, n, "context_len=", LF_CONTEXT);
    grab(log, line, n, "mem_fraction_static=", LF_MEM_FRACTION);
    if (strstr(line, "Load weight end"))
        grab(log, line, n, "mem usage=", LF_WEIGHTS);
}

static void grab_llamacpp(struct engine_log *log, const char *line, int n)
{
    /* llama.cpp, old and new */
    if (strstr(line, "llama_kv_cache_init")) {
        grab(log, line, n, "kv_size =", LF_CELLS);
        grab(log, line, n, "n_layer =", LF_LAYERS);
        word_after(line, "type_k =", log->k_type, sizeof log->k_type);
        word_after(line, "type_v =", log->v_type, sizeof log->v_type);
    }
    if (strstr(line, "KV self size") || strstr(line, "llama_kv_cache: size =") ||
        strstr(line, "llama_kv_cache_unified: size =") || strstr(line, "llama_kv_cache: ")) {
        grab(log, line, n, "KV self size =", LF_KV_MEMORY);
        if (strstr(line, "size =") && !strstr(line, "KV self size") &&
            !strstr(line, "buffer size"))
            grab(log, line, n, "size =", LF_KV_MEMORY);
        const char *k = strstr(line, "K (");
        const char *v = strstr(line, "V (");
        if (k) {
            word_after(k, "K (", log->k_type, sizeof log->k_type);
            grab(log, k, n, "):", LF_K_SIZE);
        }
        if (v) {
            word_after(v, "V (", log->v_type, sizeof log->v_type);
            grab(log, v, n, "):", LF_V_SIZE);
        }
        const char *c = strchr(line, '(');
        if (c && strstr(line, "cells")) {
            grab(log, c, n, "(", LF_CELLS);
            const char *l = strstr(line, "cells,");
            if (l)
                grab(log, l, n, "cells,", LF_LAYERS);
            const char *q = strstr(line, "layers,");
            if (q)
                grab(log, q, n, "layers,", LF_SEQS);
        }
    }
    grab(log, line, n, "n_seq_max     =", LF_SEQS);
    if (strstr(line, "llama_context: n_ctx ") || strstr(line, "llama_new_context_with_model: n_ctx "))
        grab(log, line, n, "n_ctx      =", LF_CELLS);
}

static void grab_ollama_tgi(struct engine_log *log, const char *line, int n)
{
    /* Ollama's command line */
    if (strstr(line, "--ctx-size"))
        grab(log, line, n, "--ctx-size", LF_CELLS);
    if (strstr(line, "--parallel"))
        grab(log, line, n, "--parallel", LF_SEQS);
    if (strstr(line, "ctx_size ="))
        grab(log, line, n, "ctx_size =", LF_CELLS);
    /* TGI */
    grab(log, line, n, "Setting max batch total tokens to", LF_KV_TOKENS);
}

/* A launch line's flag ("--tp 8", "--tp-size=8"): the first of keys found
 * with a number after a blank or '='. */
static void flag(struct engine_log *log, const char *line, int n, const char *const *keys,
                 enum log_field f)
{
    char key[48];
    for (; *keys; keys++) {
        for (int sep = 0; sep < 2; sep++) {
            snprintf(key, sizeof key, "%s%c", *keys, sep ? '=' : ' ');
            double v;
            if (number_after(line, key, &v)) {
                set(log, f, v, n);
                return;
            }
        }
    }
}

/* The word after key up to a blank or quote ("--model X", "model='X'"). */
static void text_after(const char *line, const char *key, char *out, size_t size)
{
    const char *p = strstr(line, key);
    if (p == NULL || out[0])
        return;
    p += strlen(key);
    while (*p == ' ' || *p == '\'' || *p == '"' || *p == '=')
        p++;
    size_t k = 0;
    while (*p && *p != ' ' && *p != '\'' && *p != '"' && *p != ',' && k + 1 < size)
        out[k++] = *p++;
    out[k] = '\0';
}

/* The launch command's layout (SGLang server_args.py, vLLM
 * engine/arg_utils.py EngineArgs: the flags and their short forms), the
 * model, the version and the first timestamp. */
static void grab_launch(struct engine_log *log, const char *line, int n)
{
    static const char *const tp[] = {"--tp-size", "--tp", "--tensor-parallel-size", " -tp", NULL};
    static const char *const pp[] = {"--pp-size", "--pp", "--pipeline-parallel-size", " -pp",
                                     NULL};
    static const char *const dp[] = {"--dp-size", "--dp", "--data-parallel-size", " -dp", NULL};
    static const char *const frac[] = {"--mem-fraction-static", NULL};
    static const char *const util[] = {"--gpu-memory-utilization", NULL};
    static const char *const ctx[] = {"--context-length", "--max-model-len", NULL};
    if (strstr(line, " --")) {
        flag(log, line, n, tp, LF_TP);
        flag(log, line, n, pp, LF_PP);
        flag(log, line, n, dp, LF_DP);
        flag(log, line, n, frac, LF_MEM_FRACTION);
        flag(log, line, n, util, LF_UTILIZATION);
        flag(log, line, n, ctx, LF_CONTEXT);
        if (!strstr(line, "ollama")) { /* Ollama's --model is a blob's hash */
            text_after(line, "--model-path ", log->model, sizeof log->model);
            text_after(line, "--model ", log->model, sizeof log->model);
        }
        text_after(line, "vllm serve ", log->model, sizeof log->model);
    }
    grab(log, line, n, "pipeline_parallel_size=", LF_PP);
    grab(log, line, n, "data_parallel_size=", LF_DP);
    if (strstr(line, "LLM engine") || strstr(line, "Initializing"))
        text_after(line, "model=", log->model, sizeof log->model);
    const char *g = strstr(line, ".gguf");
    if (g && !log->model_file[0]) { /* llama.cpp's "from Meta-Llama-3.1-8B-Q8_0.gguf" */
        const char *b = g;
        while (b > line && b[-1] != ' ' && b[-1] != '/' && b[-1] != '\'' && b[-1] != '"')
            b--;
        snprintf(log->model_file, sizeof log->model_file, "%.*s", (int)(g + 5 - b), b);
    }
    text_after(line, "vLLM API server version ", log->version, sizeof log->version);
    text_after(line, "SGLang version", log->version, sizeof log->version);
    if (!log->date[0]) { /* vLLM "INFO 05-14 10:02:11", Ollama "time=2025-06-02T09:12:44" */
        const char *t = strstr(line, "time=");
        int a, b, c2;
        if (t && sscanf(t + 5, "%4d-%2d-%2d", &a, &b, &c2) == 3)
            snprintf(log->date, sizeof log->date, "%.10s", t + 5);
        else if (sscanf(line, "%*[A-Z] %2d-%2d %2d:", &a, &b, &c2) == 3 && line[0] >= 'A' &&
                 line[0] <= 'Z')
            snprintf(log->date, sizeof log->date, "%.14s", strchr(line, ' ') + 1);
    }
}

static void parse_line(struct engine_log *log, const char *line, int n)
{
    detect_engine(log, line);
    grab_launch(log, line, n);
    grab_vllm(log, line, n);
    grab_sglang(log, line, n);
    grab_llamacpp(log, line, n);
    grab_ollama_tgi(log, line, n);
}

void enginelog_parse(const char *text, size_t len, struct engine_log *log)
{
    memset(log, 0, sizeof *log);
    char line[2048];
    size_t i = 0;
    int n = 0;
    while (i < len) {
        size_t k = 0;
        while (i < len && text[i] != '\n') {
            unsigned char c = (unsigned char)text[i++];
            if (k + 1 < sizeof line)
                line[k++] = c == '\0' || c == '\r' ? ' ' : (char)c;
        }
        i++;
        line[k] = '\0';
        parse_line(log, line, ++n);
    }
    log->lines = n;
    /* llama.cpp: the context per sequence is the cells over the sequences */
    if ((log->engine == LOG_LLAMACPP || log->engine == LOG_OLLAMA) && log->f[LF_CELLS].found &&
        !log->f[LF_CONTEXT].found) {
        double seqs = log->f[LF_SEQS].found && log->f[LF_SEQS].value >= 1 ? log->f[LF_SEQS].value : 1;
        set(log, LF_CONTEXT, floor(log->f[LF_CELLS].value / seqs), log->f[LF_CELLS].line);
    }
    if (log->engine == LOG_SGLANG && log->f[LF_K_SIZE].found && log->f[LF_V_SIZE].found &&
        !log->f[LF_KV_MEMORY].found)
        set(log, LF_KV_MEMORY, log->f[LF_K_SIZE].value + log->f[LF_V_SIZE].value,
            log->f[LF_K_SIZE].line);
    if (log->engine == LOG_VLLM_V0 && log->f[LF_GPU_BLOCKS].found && !log->f[LF_KV_TOKENS].found)
        set(log, LF_KV_TOKENS, log->f[LF_GPU_BLOCKS].value * 16, log->f[LF_GPU_BLOCKS].line);
}

enum engine_kind enginelog_profile(const struct engine_log *log, enum engine_rule *rule)
{
    enum engine_kind kind;
    struct diag ignore = {0};
    if (log->engine >= LOG_UNKNOWN && log->engine <= LOG_TGI &&
        engine_parse(engine_profiles[log->engine], &kind, rule, &ignore)) {
        /* the rule of the release the log states ("vLLM API server version
         * 0.8.5": vllm@0.13, kvplan list engines); V0's profile is its own */
        enum engine_rule at;
        if (log->version[0] && log->engine != LOG_VLLM_V0 &&
            engine_release_rule(engine_desc(kind), log->version, &at, NULL, 0, &ignore))
            *rule = at;
        return kind;
    }
    *rule = RULE_CURRENT;
    return ENGINE_GENERIC;
}
