/* Ollama: since 0.30 it serves a GGUF model by starting llama.cpp's own
 * llama-server (llm/llama_server.go startLlamaServer) with -c num_ctx x
 * num_parallel and -np num_parallel, the cache types of OLLAMA_KV_CACHE_TYPE
 * for K and V alike, --flash-attn from OLLAMA_FLASH_ATTENTION (auto unless
 * set), and no -ngl unless num_gpu is set: llama-server's --fit places the
 * layers, keeping LLAMA_ARG_FIT_TARGET (1 GiB unless set) free per GPU. So
 * the memory is llama.cpp's rule (policy_llamacpp.h); what is Ollama's is
 * its defaults: one parallel request (envconfig/config.go NumParallel), the
 * context from the VRAM tier (server/routes.go Serve), the environment it
 * is launched with, and one server over every GPU it sees.
 * Read at ollama/ollama v0.32.15 (August 2026). */
#include "engine_desc.h"
#include "policy.h"
#include "policy_llamacpp.h"
#include "shell.h"

#include <stdio.h>

/* server/routes.go Serve: the default num_ctx from the sum over the GPUs of
 * the total memory less OLLAMA_GPU_OVERHEAD, with thresholds of 47 and 23
 * GiB (a little under 48 and 24, for the totals cards report). */
uint64_t ollama_default_context(uint64_t total_vram)
{
    if (total_vram >= 47 * GIB)
        return 262144;
    if (total_vram >= 23 * GIB)
        return 32768;
    return 4096;
}

/* Ollama's names of the cache types (OLLAMA_KV_CACHE_TYPE), ggml's */
static const char *cache_type(enum dtype d)
{
    return d == DTYPE_Q8_0 ? "q8_0" : d == DTYPE_Q4_0 ? "q4_0" : "f16";
}

static enum dtype cache_dtype(const struct scenario *s)
{
    return s->kv_dtype != DTYPE_AUTO ? s->kv_dtype : DTYPE_FP16;
}

static uint32_t num_parallel(const struct policy_ctx *c)
{
    return c->b->engine.slots ? c->b->engine.slots : 1;
}

/* The GPUs' total memory Ollama picks its default by: every GPU it sees. */
static uint64_t total_vram(const struct scenario *s)
{
    return kv_sat_mul(s->gpus ? s->gpus : 1, policy_cuda_total(s));
}

/* The num_ctx of a request that sets none: the VRAM tier's, at most the
 * model's training context (llm/server.go NewLlamaServer lowers a larger
 * one to n_ctx_train). */
static uint64_t default_num_ctx(const struct scenario *s)
{
    uint64_t tier = ollama_default_context(total_vram(s)), train = s->model.max_context_tokens;
    return train && train < tier ? train : tier;
}

/* The rows of Ollama's own terms: the VRAM its default context is chosen
 * by, that default, and the num_ctx it launches with. */
static void ollama_rows(const struct policy_ctx *c)
{
    const struct scenario *s = c->s;
    uint64_t gpus = s->gpus ? s->gpus : 1;
    struct explain_row *row = explain_row_begin(c->x, "ollama_vram", "Ollama's VRAM", "all GPUs");
    explain_term(row, (long double)gpus, XU_COUNT, gpus == 1 ? "GPU" : "GPUs");
    explain_term(row, (long double)policy_cuda_total(s), XU_BYTES, "total");
    explain_term(row, 0, XU_BYTES, "OLLAMA_GPU_OVERHEAD");
    explain_op(row, XOP_SUB);
    explain_op(row, XOP_MUL);
    explain_row_end(c->x, row, XU_BYTES, 0, "the total it picks its default context by");
    uint64_t def = default_num_ctx(s);
    row = explain_row_begin(c->x, "ollama_default_ctx", "Default num_ctx", "");
    explain_term(row, (long double)ollama_default_context(total_vram(s)), XU_TOKENS, "VRAM tier");
    if (s->model.max_context_tokens) {
        explain_term(row, (long double)s->model.max_context_tokens, XU_TOKENS, "n_ctx_train");
        explain_op(row, XOP_MIN);
    }
    explain_row_end(c->x, row, XU_TOKENS, 0,
                    "OLLAMA_CONTEXT_LENGTH unset: 262,144 from 47 GiB, 32,768 from 23 GiB, "
                    "else 4,096");
    row = explain_row_begin(c->x, "ollama_num_ctx", "num_ctx", "per request");
    explain_row_end(c->x, row, XU_TOKENS, (long double)s->context_tokens,
                    s->context_tokens == def ? "Ollama's default on these GPUs"
                                             : "OLLAMA_CONTEXT_LENGTH (or PARAMETER num_ctx)");
}

static void budget(const struct policy_ctx *c)
{
    static const struct llamacpp_words words = {
        "Ollama budget", "LLAMA_ARG_FIT_TARGET", "OLLAMA_NUM_PARALLEL", 1,
        "OLLAMA_NUM_PARALLEL unset: Ollama's default, one request at a time"};
    ollama_rows(c);
    llamacpp_budget(c, &words);
    struct explain_row *row = explain_row_begin(c->x, "ollama_cells", "llama-server -c", "");
    explain_ref(c->x, row, "ollama_num_ctx", "num_ctx");
    explain_term(row, num_parallel(c), XU_COUNT, "OLLAMA_NUM_PARALLEL");
    explain_op(row, XOP_MUL);
    explain_row_end(c->x, row, XU_TOKENS, 0, "the cells Ollama asks for; llama.cpp pads each "
                                             "slot's to 256");
}

/* The library's model: its default tag holds Q4_K_M weights, any other
 * precision is a tag of its own (ollama.com/library lists them). */
static void library_run(const struct policy_ctx *c, struct shell_line *sl, long num_gpu)
{
    const struct model_spec *m = &c->s->model;
    enum dtype w = c->l->weight_dtype;
    /* a checkpoint released quantized (its weights_bytes: gpt-oss's MXFP4) is
     * what its default tag holds */
    bool released = c->s->weight_dtype == DTYPE_AUTO && m->weights_bytes;
    char other[112] = "";
    if (w != DTYPE_Q4_K_M && w != DTYPE_AUTO && !released)
        snprintf(other, sizeof other,
                 " (its tag of %s weights: the library's default tag is mostly Q4_K_M)",
                 dtype_info(w)->name);
    char gpu[80] = "";
    if (num_gpu >= 0) /* -1: the fit's own */
        snprintf(gpu, sizeof gpu, ", with PARAMETER num_gpu %ld in a Modelfile FROM it", num_gpu);
    shell_comment(sl, "  # then: ollama run %s%s%s", m->ollama_tag, other, gpu);
}

/* The environment `ollama serve` is started with, then the model run. */
static void launch(const struct policy_ctx *c)
{
    const struct scenario *s = c->s;
    struct engine_detail *e = &c->b->engine;
    enum dtype d = cache_dtype(s);
    struct shell_line sl;
    shell_line_init(&sl, e->launch, sizeof e->launch);
    shell_wordf(&sl, "OLLAMA_CONTEXT_LENGTH=%llu", (unsigned long long)s->context_tokens);
    shell_wordf(&sl, "OLLAMA_NUM_PARALLEL=%u", num_parallel(c));
    if (d != DTYPE_FP16) /* a quantized cache needs flash attention (docs/faq) */
    {
        shell_wordf(&sl, "OLLAMA_KV_CACHE_TYPE=%s", cache_type(d));
        shell_word(&sl, "OLLAMA_FLASH_ATTENTION=1");
    }
    if (s->engine.fit_target_bytes) /* passed through to llama-server, in MiB */
        shell_wordf(&sl, "LLAMA_ARG_FIT_TARGET=%llu",
                    (unsigned long long)(s->engine.fit_target_bytes / MIB));
    shell_words(&sl, "ollama serve");
    const struct offload_split *o = &e->offload;
    char num_gpu[48] = "";
    if (s->offload.ngl_given && o->active)
        snprintf(num_gpu, sizeof num_gpu, " and PARAMETER num_gpu %u", o->ngl);
    if (s->model.gguf_file[0]) /* a file of one's own: a Modelfile FROM it makes the tag */
        shell_comment(&sl, "  # then: ollama create %s from a Modelfile of FROM ./%s%s, and ollama "
                           "run %s",
                      s->model.id, s->model.gguf_file, num_gpu, s->model.id);
    else if (s->model.ollama_tag[0])
        library_run(c, &sl, s->offload.ngl_given && o->active ? (long)o->ngl : -1);
    else /* no library name: the GGUF, by a Modelfile */
        shell_comment(&sl, "  # then: ollama create %s from a Modelfile of FROM ./%s.gguf%s, and "
                           "ollama run %s",
                      s->model.id, s->model.id, num_gpu, s->model.id);
    policy_launch_done(c, &sl, false);
}

/* What Ollama logs before it starts llama-server, then llama-server's
 * lines, and how Ollama budgets in a sentence. */
static void log_lines(const struct policy_ctx *c)
{
    struct engine_detail *e = &c->b->engine;
    uint64_t total = total_vram(c->s);
    policy_log(e, "msg=\"vram-based default context\" total_vram=\"%.1f GiB\" default_num_ctx=%llu",
               (double)total / (double)GIB, (unsigned long long)ollama_default_context(total));
    llamacpp_log(c);
    const struct offload_split *o = &e->offload;
    snprintf(e->note, sizeof e->note,
             "Ollama starts llama-server with -c num_ctx x OLLAMA_NUM_PARALLEL (%u) and lets "
             "--fit %s; it keeps up to 3 models a GPU loaded (OLLAMA_MAX_LOADED_MODELS)",
             num_parallel(c),
             o->active ? "put what does not fit in host memory" : "place the layers");
}

#define FLAG_AT(field) offsetof(struct engine_flags, field)

const struct engine_desc engine_ollama = {
    .kind = ENGINE_OLLAMA,
    .name = "ollama",
    .refuses_block = llamacpp_refuses_block, /* it runs llama-server */
    .title = "Ollama",
    .title_a = "an Ollama",
    .versions = {{RULE_CURRENT, "ollama@0.32", {"0.32", "0.30"},
                  "llama-server under Ollama (0.30 on), the VRAM-tiered default context "
                  "(0.15.5 on)", "0.32", "0.30", "0.32",
                  "before 0.30 Ollama ran its older runner, which kvplan does not model"}},
    .server = true,
    /* docs/faq: f16 (the default), q8_0, q4_0 */
    .cache_dtypes = {DTYPE_FP16, DTYPE_Q8_0, DTYPE_Q4_0},
    .cache_default = DTYPE_FP16,
    .weight_dtypes = {DTYPE_FP32, DTYPE_FP16, DTYPE_BF16, DTYPE_Q8_0, DTYPE_Q4_0, DTYPE_Q6_K,
                      DTYPE_Q5_K_M, DTYPE_Q4_K_M},
    .knobs = {{.offset = FLAG_AT(parallel),
               .role = KNOB_SEQS,
               .label = "Parallel",
               .engine_flag = "OLLAMA_NUM_PARALLEL",
               .min = 1,
               .max = 256,
               .max_name = "llama-server's LLAMA_MAX_SEQ",
               .def = 1,
               .counts = "parallel requests",
               .help = "requests served at once, each of the full num_ctx (default 1)"},
              {.offset = FLAG_AT(fit_target_bytes),
               .label = "Fit margin",
               .engine_flag = "LLAMA_ARG_FIT_TARGET",
               .def = (double)GIB,
               .help = "memory llama-server's --fit keeps free on every GPU"}},
    .splits_layers = true,
    .fixed_slots = true,
    .offloads = true,
    .refuses_tp = "Ollama has no tensor parallel and runs one server over every GPU it is "
                  "given, its layers split across them: give the GPUs with --gpus",
    .refuses_draft = "Ollama takes a draft only from the model's own files",
    .refuses_offload = "Ollama sets only the GPU layers (num_gpu, --n-gpu-layers)",
    .refuses_v_dtype = "Ollama's OLLAMA_KV_CACHE_TYPE sets K and V alike: give --kv-dtype only",
    /* api/types.go DefaultOptions: DraftNumPredict 4, for a model that ships a draft */
    .spec_tokens = 4,
    .state_conv = DTYPE_FP32,
    .state_ssm = DTYPE_FP32,
    .lora_none = "keeps no adapter slots: it loads a Modelfile's ADAPTER whole",
    .lora_in_weights = true,
    .lora_flag = "ADAPTER",
    .simulated = engine_any_rule,
    .sched = {.kind = SIM_SCHED_SLOTS, .router = SIM_ROUTE_ROUND_ROBIN, .batch = 2048,
              .ubatch = 512, .title = "Ollama's llama-server", .seqs_name = "OLLAMA_NUM_PARALLEL",
              .tokens_name = "batch-size", .ubatch_name = "ubatch-size"},
    .runtime_words = "compute buffers",
    .reserved_words = "outside budget",
    .server_command = "ollama serve",
    .host = {.none = true, .words = "Ollama has no host tier"},
    .default_context = default_num_ctx,
    .cell_cost = llamacpp_cell_cost,
    .own_cost_rows = true,
    .budget = budget,
    .launch = launch,
    .log = log_lines,
};
