/* TensorRT-LLM: after weights, activations and runtime are loaded, the KV
 * cache takes free_gpu_memory_fraction of what is free (a fraction of free,
 * not of total), in blocks of as many tokens as the release's default
 * (tokens_per_block below: 32 in 1.x, 64 before and on the engine path, 128
 * in the per-model build scripts); max_batch_size caps a replica.
 * Upstream: tensorrt_llm/_torch/pyexecutor/resource_manager.py and
 * _util.py (KvCacheCreator), KvCacheConfig.free_gpu_memory_fraction. */
#include "engine_desc.h"
#include "policy.h"
#include "speed.h"
#include "shell.h"

#include <stdio.h>

/* trtllm-serve MODEL and its flags; what only the options file takes is
 * named in a remark. A replica wider than a node runs under MPI, a process a
 * GPU, each in trtllm-llmapi-launch (policy_trtllm_nodes.c). */
static void launch(const struct policy_ctx *c)
{
    const struct scenario *s = c->s;
    uint32_t per = c->l->tp * c->l->pp, node = placement_node_gpus(c->l);
    char command[96] = "trtllm-serve";
    if (per > node)
        snprintf(command, sizeof command, "mpirun -np %u trtllm-llmapi-launch trtllm-serve", per);
    const struct launch_head head = {command, "--max_seq_len",
                                     "--kv_cache_free_gpu_memory_fraction", 2, NULL,
                                     "--tp_size", "--pp_size"};
    struct shell_line l;
    policy_launch_begin(c, &head, &l);
    if (c->l->replicas > 1)
        shell_comment(&l, "  # x %u replicas, one server each", c->l->replicas);
    if (per > node) { /* each node's GPUs as MPI's slots: 13 over "$NODE_1":8,"$NODE_2":5 */
        char hosts[160];
        size_t k = 0;
        for (uint32_t i = 0; i * node < per && k < sizeof hosts; i++)
            k += (size_t)snprintf(hosts + k, sizeof hosts - k, "%s\"$NODE_%u\":%u", i ? "," : "",
                                  i + 1, per - i * node < node ? per - i * node : node);
        shell_comment(&l, "%s over %u nodes: mpirun -H %s (or a hostfile of those slots; "
                      "srun --mpi=pmix under Slurm)", l.remarked ? ";" : "  #",
                      (per + node - 1) / node, hosts);
    }
    /* llmapi: a quantized cache (KvCacheConfig.dtype), a draft
     * (speculative_config: decoding_type DraftTarget, speculative_model_dir,
     * max_draft_len) and a host tier (KvCacheConfig.host_cache_size, bytes) go
     * in the options file: named in one remark */
    char opts[SPEC_HF_ID_MAX + 256] = "";
    size_t k = 0;
    if (c->l->kv_dtype == DTYPE_FP8 || c->l->kv_dtype == DTYPE_INT8)
        k += (size_t)snprintf(opts + k, sizeof opts - k, "; kv_cache_config: dtype: %s",
                              dtype_info(c->l->kv_dtype)->name);
    if (c->spec->method == SPEC_DRAFT)
        k += (size_t)snprintf(opts + k, sizeof opts - k,
                              "; speculative_config: decoding_type DraftTarget, max_draft_len %u, "
                              "speculative_model_dir %s",
                              c->spec->tokens, policy_model_ref(&s->draft));
    if (s->host_kv_bytes)
        k += (size_t)snprintf(opts + k, sizeof opts - k, "; kv_cache_config: host_cache_size: %llu",
                              (unsigned long long)s->host_kv_bytes);
    /* a block given: KvCacheConfig.tokens_per_block on the llmapi path; an
     * engine's is built in (trtllm-build --tokens_per_block) */
    bool built = s->engine.rule == RULE_TRTLLM_ENGINE || s->engine.rule == RULE_TRTLLM_BUILD_PY;
    if (scenario_block_given(s) && s->block_tokens && !built && k < sizeof opts)
        snprintf(opts + k, sizeof opts - k, "; kv_cache_config: tokens_per_block: %llu",
                 (unsigned long long)s->block_tokens);
    if (scenario_block_given(s) && s->block_tokens && built)
        shell_comment(&l, "%s the engine built with --tokens_per_block %llu",
                      l.remarked ? ";" : "  #", (unsigned long long)s->block_tokens);
    if (opts[0]) /* the first item follows the remark's opening */
        shell_comment(&l, "%s --extra_llm_api_options:%s", l.remarked ? ";" : "  #", opts + 1);
    policy_launch_done(c, &l, false); /* the replicas' remark is above */
}

/* What TensorRT-LLM prints at startup, and how it budgets in a sentence. */
static void log_lines(const struct policy_ctx *c)
{
    struct plan_budget *r = c->b;
    struct engine_detail *e = &r->engine;
    policy_log(e, "[MemUsageChange] Allocated %.2f GiB for max tokens in paged KV cache (%llu).",
               (double)r->kv_pool_bytes_per_gpu / (double)GIB,
               (unsigned long long)r->kv_tokens_per_replica);
    snprintf(e->note, sizeof e->note,
             "TensorRT-LLM gives %.0f%% of the memory still free after weights and activations to "
             "the KV cache (a fraction of free, not of total), in %llu-token blocks",
             e->fraction * 100, (unsigned long long)e->unit_tokens);
}

/* Tokens per block by release (--tokens_per_block unset):
 * - 1.x, the PyTorch backend: tensorrt_llm/llmapi/llm_args.py,
 *   KvCacheConfig.tokens_per_block, default 32;
 * - 0.x PyTorch backend (0.19 to 0.21): tensorrt_llm/_torch/pyexecutor/config.py,
 *   update_executor_config, executor_config.tokens_per_block =
 *   build_config.plugin_config.tokens_per_block, and that PluginConfig
 *   (tensorrt_llm/plugin/plugin.py, the dataclass of those releases with
 *   _fuse_fp4_quant) has _tokens_per_block = field(default=32): 32, as in 1.x;
 * - the engine path (trtllm-build): tensorrt_llm/plugin/plugin.py,
 *   PluginConfig._tokens_per_block = field(default=64), set to 64 in 0.10
 *   (release notes: "Set the default tokens_per_block argument of the
 *   trtllm-build command to 64"); the plugin configs read from the 0.19 era on
 *   give 32 (the release between that lowered it is not read);
 * - a model's own build.py before trtllm-build (0.7 and before):
 *   examples/llama/build.py, parse_arguments, --tokens_per_block 128. */
static uint64_t tokens_per_block(enum engine_rule rule)
{
    switch (rule) {
    case RULE_TRTLLM_BUILD_PY:
        return 128;
    case RULE_TRTLLM_ENGINE:
        return 64;
    default:
        return 32;
    }
}

/* A block given (core/engine_desc.h refuses_block): tokens_per_block must be
 * a power of two, where the attention op builds its view of the paged cache
 * (cpp/tensorrt_llm/kernels/kvCacheUtils.h, KVBlockArrayForContextFMHA:
 * TLLM_CHECK_WITH_INFO "tokensPerBlock must be power of 2", read at
 * 0ccf9032; an assert in the older header), the path of every rule; a
 * model's build.py asserted it too (examples/llama/build.py,
 * parse_arguments: "tokens_per_block must be power of 2", with >= 128 for
 * --enable_context_fmha, off by default and not modelled). */
static const char *refuses_block(const struct scenario *s, char *buf, size_t size)
{
    uint64_t b = s->block_tokens;
    if (!(b & (b - 1)))
        return NULL;
    snprintf(buf, size, "refused: tokens_per_block must be a power of two, as 32, 64 or 128 "
             "(cpp/tensorrt_llm/kernels/kvCacheUtils.h, KVBlockArrayForContextFMHA%s)",
             s->engine.rule == RULE_TRTLLM_BUILD_PY ? "; examples/llama/build.py, "
                                                      "parse_arguments" : "");
    return buf;
}

static void budget(const struct policy_ctx *c)
{
    const struct scenario *s = c->s;
    const struct engine_flags *f = &s->engine;
    struct plan_budget *r = c->b;
    struct engine_detail *e = &r->engine;
    e->gpu_total_bytes = policy_cuda_total(s);
    r->memory_bytes_per_gpu = e->gpu_total_bytes;
    const struct engine_knob *k = engine_trtllm.knobs;
    e->fraction = f->free_gpu_memory_fraction > 0 ? f->free_gpu_memory_fraction : k[0].def;
    e->max_num_seqs = f->max_num_seqs ? f->max_num_seqs : (uint32_t)k[1].def;
    e->max_num_batched_tokens =
        f->max_num_batched_tokens ? f->max_num_batched_tokens : (uint64_t)k[2].def;
    uint64_t activation =
        policy_activation_estimate(&s->model, e->max_num_batched_tokens, e->max_num_seqs);
    uint64_t runtime = policy_gib(0.5) + (c->l->tp > 1 ? policy_gib(1.0) : 0);
    uint64_t weights = c->l->weights_bytes_per_gpu;
    e->activation_bytes = activation;
    e->non_kv_bytes = f->non_kv_bytes ? f->non_kv_bytes
                                      : kv_sat_add(kv_sat_add(weights, activation), runtime);
    r->runtime_bytes_per_gpu = e->non_kv_bytes > weights ? e->non_kv_bytes - weights : 0;
    e->budget_bytes = e->gpu_total_bytes;
    uint64_t free_bytes =
        e->gpu_total_bytes > e->non_kv_bytes ? e->gpu_total_bytes - e->non_kv_bytes : 0;

    policy_user_bytes(c);
    struct explain_row *row = explain_row_begin(c->x, "free", "Free after loading", "per GPU");
    explain_term(row, e->gpu_total_bytes, XU_BYTES, "CUDA total");
    if (f->non_kv_bytes) {
        explain_term(row, f->non_kv_bytes, XU_BYTES, "outside KV (given)");
        explain_op(row, XOP_SUB);
    } else {
        policy_weights_term(c, row);
        explain_op(row, XOP_SUB);
        explain_term(row, activation, XU_BYTES, "activation peak");
        explain_op(row, XOP_SUB);
        explain_term(row, runtime, XU_BYTES, "runtime");
        explain_op(row, XOP_SUB);
    }
    explain_row_end(c->x, row, XU_BYTES, 0,
                    f->non_kv_bytes ? NULL : "activation and runtime are estimates");

    row = explain_row_begin(c->x, "pool", "KV pool", "per GPU");
    long double pool;
    if (f->kv_memory_bytes) {
        pool = policy_logged_pool(c, row, c->l->weights_bytes_per_gpu);
        if (pool < 0) {
            r->shortfall_bytes_per_gpu = (uint64_t)(-pool);
            pool = 0;
        }
    } else if (free_bytes == 0) {
        pool = 0;
        explain_row_end(c->x, row, XU_BYTES, 0, "nothing is free after loading");
    } else {
        /* the engine truncates the product to whole bytes */
        pool = (long double)(uint64_t)((double)free_bytes * e->fraction);
        explain_ref(c->x, row, "free", "free");
        explain_term(row, e->fraction, XU_FRACTION, "free-gpu-memory-fraction");
        explain_op(row, XOP_MUL);
        explain_op(row, XOP_FLOOR);
        explain_row_end(c->x, row, XU_BYTES, 0, NULL);
    }
    r->kv_pool_bytes_per_gpu = (uint64_t)pool;
    r->reserved_bytes_per_gpu = free_bytes > r->kv_pool_bytes_per_gpu
                                    ? free_bytes - r->kv_pool_bytes_per_gpu
                                    : 0;
    r->weights_fit = e->non_kv_bytes <= e->gpu_total_bytes;
    r->fits = r->kv_pool_bytes_per_gpu > 0;
    if (free_bytes == 0 && !f->kv_memory_bytes)
        r->shortfall_bytes_per_gpu = e->non_kv_bytes - e->gpu_total_bytes;

    uint64_t unit = scenario_block_given(s) && s->block_tokens ? s->block_tokens
                                                                : tokens_per_block(f->rule);
    struct block_rule b = {.unit_tokens = unit,
                           .unit_name = "block",
                           .cap = e->max_num_seqs,
                           .cap_name = "max_batch_size"};
    /* State layers: tensorrt_llm/_torch/pyexecutor/mamba_cache_manager.py
     * (MambaHybridCacheManager) keeps the states in a pool of their own beside
     * the KV blocks; how _util.py (KvCacheCreator) sizes the two was not
     * traced, so each user's state counts here in whole KV blocks (the
     * generic arithmetic) and the plan warns (WARN_STATE_GENERIC). */
    if (c->k->state_layers > 0 && c->k->bytes_per_token > 0) {
        b.state_units = kv_ceil_div(c->k->state_bytes, kv_sat_mul(unit, c->k->bytes_per_token));
        r->state_bytes_per_user_per_gpu = kv_sat_mul(b.state_units,
                                                     kv_sat_mul(unit, c->k->bytes_per_token));
    }
    policy_blocks(c, &b);
    r->state_used_bytes_per_gpu = kv_sat_mul(r->users_per_replica, r->state_bytes_per_user_per_gpu);
    e->request_units = kv_sat_mul(kv_ceil_div(c->l->context_tokens, unit), c->k->layers);
    e->max_concurrency = (double)e->units / (double)kv_ceil_div(c->l->context_tokens, unit);
}

/* Both backends size every layer for the whole context. */
static bool windows_full(const struct scenario *s)
{
    (void)s;
    return true;
}


#define FLAG_AT(field) offsetof(struct engine_flags, field)

const struct engine_desc engine_trtllm = {
    .step_overhead_s = SPEED_STEP_OVERHEAD_S,
    /* trtllm-serve's OpenAI server, tokenizing and detokenizing in its
     * Python process around the executor's request queue: tools/fit_ttft.py,
     * fitted on two runs at 4 in flight */
    .request_overhead_s = {{0, 149.8e-3}, {0, 0}},
    /* llmapi/llm_args.py: enable_chunked_prefill off by default, so a prompt runs
     * whole in one step (microBatchScheduler.cpp: it waits while it does not fit) */
    .simulated = engine_any_rule,
    .sched = {.kind = SIM_SCHED_TRTLLM, .router = SIM_ROUTE_ROUND_ROBIN, .whole_prompts = true,
              .title = "TensorRT-LLM", .capacity = true, .seqs_name = "max_batch_size",
              .tokens_name = "max_num_tokens"},
    .kind = ENGINE_TRTLLM,
    .name = "trtllm",
    .refuses_block = refuses_block,
    .title = "TensorRT-LLM",
    .title_a = "a TensorRT-LLM",
    .aliases = {"tensorrt-llm", "trt-llm"},
    .versions = {{RULE_CURRENT, "trtllm@1", {"1", "pytorch", "1.0"},
                  "the PyTorch backend, the latest: KvCacheConfig's 32 tokens per block", "1.x",
                  "1.0", "1.x", NULL},
                 {RULE_TRTLLM_0, "trtllm@0.19", {"0.19", "0.20"},
                  "the 0.x PyTorch backend: the plugin config's 32 tokens per block", "0.19", "0.19",
                  NULL, NULL},
                 {RULE_TRTLLM_ENGINE, "trtllm@trt", {"trt"},
                  "the TensorRT engine path (trtllm-build): 64 tokens per block", "TRT engine", "0.8",
                  NULL, NULL},
                 {RULE_TRTLLM_BUILD_PY, "trtllm@0.7", {"0.7", "0.6"},
                  "a model's own build.py before trtllm-build: 128 tokens per block", "0.7", "0.6",
                  NULL, "a model's build.py is read from 0.6 on"}},
    /* the query heads must divide by TP (assert num_heads % (tp_size x cp_size)
     * == 0), the KV heads are rounded up on each rank ((kv + tp - 1) // tp,
     * replicated past their count): the PyTorch backend's
     * tensorrt_llm/_torch/modules/attention.py, Attention.__init__ (read at
     * 00547a25), and the TensorRT path's tensorrt_llm/layers/attention.py,
     * Attention.__init__ ("num_attention_heads must be divisible by tp_size") */
    .refuses_uneven_tp = "tensorrt_llm/_torch/modules/attention.py, Attention.__init__; "
                         "the engine path's tensorrt_llm/layers/attention.py alike",
    .kv_heads_rounded_up = true,
    .server = true,
    .cache_dtypes = {DTYPE_FP16, DTYPE_BF16, DTYPE_FP32, DTYPE_FP8, DTYPE_INT8},
    .vendors = {"NVIDIA"},
    .knobs = {{.offset = FLAG_AT(free_gpu_memory_fraction),
               .role = KNOB_FRACTION,
               .label = "Free frac",
               .engine_flag = "--kv_cache_free_gpu_memory_fraction",
               .max = 1,
               .def = 0.9,
               .help = "the share of the memory free after loading that the KV cache takes"},
              {.offset = FLAG_AT(max_num_seqs),
               .role = KNOB_SEQS,
               .label = "Max batch",
               .engine_flag = "--max_batch_size",
               .min = 1,
               .max = 1000000,
               .def = 2048,
               .help = "requests a replica batches at once"},
              {.offset = FLAG_AT(max_num_batched_tokens),
               .label = "Batched tokens",
               .engine_flag = "--max_num_tokens",
               .min = 1,
               .max = (double)TOKENS_MAX,
               .def = 8192,
               .help = "tokens a step batches"}},
    .windows_full = windows_full,
    .state_per_user = true,
    .spec_tokens = 1,
    .spec_lookahead = true,
    .lora_none = "keeps adapters in its PEFT cache, sized from free memory: not modelled",
    .lora_flag = "--max-loras",
    .runtime_words = "activations+rt",
    .reserved_words = "kept free",
    .server_command = "trtllm-serve",
    .quant_serve = ", a checkpoint quantized before serving (ModelOpt): TensorRT-LLM does not quantize at load",
    .host = {.words = "TensorRT-LLM's host_cache_size not read at its source: as the generic "
                      "tier"},
    .budget = budget,
    .launch = launch,
    .log = log_lines,
    .servers = policy_trtllm_servers,
};
