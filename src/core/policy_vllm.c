/* vLLM (V1, and V0 as vllm@0): the budget is a fraction of the CUDA total,
 * less weights, the profiled activation peak and runtime memory; the cache
 * is allocated in blocks of 16 tokens; max_num_seqs caps a replica.
 * Upstream: vllm/engine/arg_utils.py (defaults), vllm/v1/worker/gpu_worker.py
 * (determine_available_memory), vllm/v1/core/kv_cache_utils.py (blocks,
 * hybrid groups, maximum concurrency). */
#include "engine_desc.h"
#include "images.h"
#include "policy.h"
#include "speed.h"
#include "shell.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The draft's JSON config: {"method":"draft_model","model":"...",...}, the
 * name escaped as a JSON string (at most 6 bytes a byte: name holds any). */
static void draft_config(uint32_t tokens, const char *model, char *out, size_t size)
{
    char name[6 * SPEC_HF_ID_MAX];
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)model; *p && n + 7 < sizeof name; p++)
        n += (size_t)(*p < 0x20   ? snprintf(name + n, sizeof name - n, "\\u%04x", *p)
                      : *p == '"' || *p == '\\' ? snprintf(name + n, sizeof name - n, "\\%c", *p)
                                                 : snprintf(name + n, sizeof name - n, "%c", *p));
    snprintf(out, size, "{\"method\":\"draft_model\",\"model\":\"%s\",\"num_speculative_tokens\":%u}",
             name, tokens);
}

/* vllm/config/kv_offloading.py: --kv-offloading-size is GiB for the whole
 * engine, split over its TP x PP ranks (kvplan's --host-kv is one rank's). */
static double offload_gib(const struct scenario *s, double ranks)
{
    return (double)s->host_kv_bytes * ranks / (1024.0 * 1024.0 * 1024.0);
}

static void host_note(const struct scenario *s, const struct placement *l, char *note,
                      size_t size)
{
    double ranks = (double)l->tp * l->pp;
    if (ranks > 1)
        snprintf(note, size, "vLLM --kv-offloading-size %g GiB, split over %g ranks (TP x PP)",
                 offload_gib(s, ranks), ranks);
    else
        snprintf(note, size, "vLLM --kv-offloading-size %g GiB", offload_gib(s, 1));
}

/* The GPU's CUDA architecture as vLLM tells them apart, by its preset's
 * family: the SM100 family (B200, GB200: "Blackwell"; B300: "Blackwell
 * Ultra"; not the SM120 "Blackwell GB202") and Hopper (SM90). */
static bool sm100(const struct gpu_spec *g)
{
    return strcmp(g->family, "Blackwell") == 0 || strcmp(g->family, "Blackwell Ultra") == 0;
}

static bool hopper(const struct gpu_spec *g)
{
    return strcmp(g->family, "Hopper") == 0;
}

/* The block an MLA model's cache takes: platforms/cuda.py
 * (CudaPlatformBase.check_and_update_config) picks the MLA backend and forces
 * the block it needs over the one given (16 by default): FlashMLA (Hopper) a
 * multiple of 64; on the SM100 family FlashInfer MLA (qk_nope_head_dim 128,
 * DeepSeek's) 32 or a multiple of 64, else CUTLASS MLA a multiple of 128, the
 * default for every MLA model up to 0.13; DeepSeek sparse attention's
 * FlashMLA sparse exactly 64. Other GPUs keep the block (Triton MLA). Sets
 * *why when it forced one. */
static uint64_t mla_block(const struct scenario *s, uint64_t given, const char **why)
{
    const struct model_spec *m = &s->model;
    bool cutlass = s->engine.rule == RULE_VLLM_0_13 || m->qk_nope_head_dim != 128;
    uint64_t need = 0;
    *why = NULL;
    if (m->attention != ATTENTION_MLA)
        return given;
    if (m->index_topk > 0) {
        need = given != 64 ? 64 : 0;
        *why = "FlashMLA sparse (DeepSeek sparse attention) takes blocks of 64";
    } else if (sm100(&s->gpu) && !cutlass) {
        need = given != 32 && given % 64 ? 64 : 0;
        *why = "FlashInfer MLA, the SM100 default, takes blocks of 32 or a multiple of 64";
    } else if (sm100(&s->gpu)) {
        need = given % 128 ? 128 : 0;
        *why = "CUTLASS MLA on SM100 takes a multiple of 128";
    } else if (hopper(&s->gpu)) {
        need = given % 64 ? 64 : 0;
        *why = "FlashMLA on Hopper takes a multiple of 64";
    }
    if (need == 0)
        *why = NULL;
    return need ? need : given;
}

/* The block vLLM plans in place of the one given (core/engine_desc.h
 * block_override): DeepSeek V4's, or an MLA backend's (mla_block). The
 * block it refuses is vllm_refuses_block's (policy_vllm_refuse.c). */
static uint64_t block_override(const struct scenario *s, const char **why)
{
    if (kvcost_has_compressed(&s->model))
        return vllm_dsv4_block(s, why);
    uint64_t used = mla_block(s, s->block_tokens, why);
    return *why ? used : 0;
}

/* vllm serve MODEL and the flags that make it plan what kvplan planned. */
static void launch(const struct policy_ctx *c)
{
    const struct scenario *s = c->s;
    const struct engine_detail *e = &c->b->engine;
    static const struct launch_head head = {"vllm serve", "--max-model-len",
                                            "--gpu-memory-utilization", 2,
                                            "--kv-cache-dtype fp8", "-tp", "-pp"},
                                     dsv4 = {"vllm serve", "--max-model-len",
                                             "--gpu-memory-utilization", 2, NULL, "-tp", "-pp"};
    struct shell_line l;
    policy_launch_begin(c, c->k->compressed_span ? &dsv4 : &head, &l);
    vllm_dsv4_launch(c, &l);
    if (c->l->expert_parallel)
        shell_words(&l, "--enable-expert-parallel");
    bool v0 = s->engine.rule == RULE_VLLM_V0;
    if (c->l->replicas > 1 && !v0)
        shell_option(&l, "--data-parallel-size", "%u", c->l->replicas);
    if (s->engine.max_num_seqs)
        shell_option(&l, "--max-num-seqs", "%u", e->max_num_seqs);
    if (s->engine.max_num_batched_tokens)
        shell_option(&l, "--max-num-batched-tokens", "%llu",
                     (unsigned long long)e->max_num_batched_tokens);
    /* with state layers, or an MLA backend's block, vLLM picks the block itself */
    const char *forced;
    uint64_t asked = s->block_tokens ? s->block_tokens : 16;
    bool own = mla_block(s, asked, &forced) == e->unit_tokens && forced;
    if (e->unit_tokens != 16 && !own && (c->k->state_layers == 0 || s->block_tokens))
        shell_option(&l, "--block-size", "%llu", (unsigned long long)e->unit_tokens);
    if (s->prefix_tokens > 0)
        shell_words(&l, "--enable-prefix-caching");
    /* config/speculative.py: SpeculativeConfig's method, model, num_speculative_tokens */
    char spec[8 * SPEC_HF_ID_MAX];
    if (c->spec->method == SPEC_DRAFT)
        draft_config(c->spec->tokens, policy_model_ref(&s->draft), spec, sizeof spec);
    else if (c->spec->method == SPEC_MTP)
        snprintf(spec, sizeof spec, "{\"method\":\"mtp\",\"num_speculative_tokens\":%u}",
                 c->spec->tokens);
    if (c->spec->method == SPEC_DRAFT || c->spec->method == SPEC_MTP) {
        shell_word(&l, "--speculative-config");
        shell_word(&l, spec);
    }
    if (c->lora->slots) {
        shell_words(&l, "--enable-lora");
        shell_option(&l, "--max-loras", "%u", c->lora->slots);
        shell_option(&l, "--max-lora-rank", "%u", c->lora->rank);
    }
    /* Without --lora-target-modules vLLM adapts every supported module, MoE experts
     * included (vllm/lora/model_manager.py LoRAModelManager._create_lora_modules:
     * is_supported_lora_module when lora_config.target_modules is None, else
     * _match_target_modules): name the modules counted whenever they are not all. */
    if (c->lora->slots && (s->lora_targets || s->model.experts))
        policy_launch_lora_targets(&l, c->lora->targets);
    if (s->host_kv_bytes) {
        shell_words(&l, "--kv-offloading-backend native");
        shell_option(&l, "--kv-offloading-size", "%g",
                     offload_gib(s, (double)(c->l->tp * c->l->pp)));
    }
    policy_launch_done(c, &l, v0); /* V0 had no data parallel: one server per replica */
}

/* The commands of a plan over several nodes (core/launch.h); V0 had no data
 * parallel: a server a replica, each on its own GPUs and port. */
static int servers(const struct placement *l, const char *launch, int k, struct shell_line *out)
{
    if (l->rule == RULE_VLLM_V0)
        return policy_servers_by_replica(l, launch, k, out, 8000);
    uint32_t per = l->tp * (l->pp ? l->pp : 1);
    if ((uint64_t)per * l->replicas <= placement_node_gpus(l))
        return 1;
    if (out)
        policy_server_args(out, launch, per > placement_node_gpus(l) ? "--data-parallel-size" : NULL);
    return per > placement_node_gpus(l) ? policy_vllm_nodes_per_replica(l, per, k, out)
                                     : policy_vllm_replicas_over_nodes(l, per, k, out);
}

/* "GPU KV cache size" as int(max_concurrency x max_model_len): 0.21.0 on
 * (vllm#43308: Gemma 4 31B's ~55k tokens in 0.20.0 are ~525k in 0.21.0 from
 * the same ~50 GB); 0.19.0 and 0.20.0 log the blocks over the groups */
static bool logs_concurrency(enum engine_rule rule)
{
    return rule != RULE_VLLM_V0 && rule != RULE_VLLM_0_13 && rule != RULE_VLLM_0_17 &&
           rule != RULE_VLLM_0_20;
}

/* The log's "GPU KV cache size" where it is not the tokens the pool holds
 * (kv_tokens_replica): from 0.21 the concurrency times the length, before it
 * the blocks over the groups in the smallest block (policy_vllm_mem.c) */
static void logged_tokens_row(const struct policy_ctx *c)
{
    const struct plan_budget *r = c->b;
    const struct engine_detail *e = &r->engine;
    if (c->x == NULL || e->log_kv_tokens == r->kv_tokens_per_replica)
        return;
    struct explain_row *row =
        explain_row_begin(c->x, "vllm_logged_kv", "Logged KV size", "per replica");
    if (logs_concurrency(c->s->engine.rule)) {
        explain_term(row, e->max_concurrency, XU_RATIO, "max concurrency");
        explain_term(row, c->l->context_tokens, XU_TOKENS, "max model len");
        explain_op(row, XOP_MUL);
        explain_op(row, XOP_FLOOR);
        explain_row_end(c->x, row, XU_TOKENS, 0,
                        "its GPU KV cache size from 0.21: int(max_concurrency x max_model_len), "
                        "v1/core/kv_cache_utils.py report_kv_cache_config; not the tokens the "
                        "pool holds (Tokens held)");
        return;
    }
    explain_ref(c->x, row, "kv_tokens_replica", "tokens held");
    explain_term(row, e->unit_tokens, XU_TOKENS, "per block");
    explain_op(row, XOP_DIV);
    explain_term(row, e->log_unit_tokens, XU_TOKENS, "the smallest block");
    explain_op(row, XOP_MUL);
    explain_row_end(c->x, row, XU_TOKENS, 0,
                    "its GPU KV cache size up to 0.20: the blocks over the groups in the "
                    "smallest block of any group (kv_cache_utils.py _report_kv_cache_config)");
}

/* What vLLM prints at startup, and how it budgets in a sentence. */
static void log_lines(const struct policy_ctx *c)
{
    const struct scenario *s = c->s;
    struct plan_budget *r = c->b;
    struct engine_detail *e = &r->engine;
    char tok[32], a[32], b[32];
    size_t len;
    units_format_bytes(r->kv_pool_bytes_per_gpu, UNITS_GIB, a, sizeof a);
    if (s->engine.rule == RULE_VLLM_V0) {
        policy_log(e, "# GPU blocks: %llu, # CPU blocks: 0", (unsigned long long)e->units);
    } else {
        policy_log(e, "Available KV cache memory: %s", a);
        /* from 0.21.0 int(max_concurrency x max_model_len), before it the
         * blocks over the groups (policy_vllm_mem.c) */
        e->log_kv_tokens = logs_concurrency(s->engine.rule)
                               ? vllm_concurrency_tokens(e->max_concurrency, c->l->context_tokens)
                               : vllm_logged_tokens(r);
        policy_log(e, "GPU KV cache size: %s tokens",
                   units_format_int(e->log_kv_tokens, tok, sizeof tok));
        logged_tokens_row(c);
    }
    policy_log(e, "Maximum concurrency for %s tokens per request: %.2fx",
               units_format_int(c->l->context_tokens, b, sizeof b), e->max_concurrency);
    snprintf(e->note, sizeof e->note,
             "vLLM takes %.0f%% of the CUDA total, then subtracts weights, a profiled activation "
             "peak (%llu batched tokens, %u sequence%s) and runtime memory; KV in %llu-token "
             "blocks",
             e->fraction * 100, (unsigned long long)e->max_num_batched_tokens, e->max_num_seqs,
             e->max_num_seqs == 1 ? "" : "s", (unsigned long long)e->unit_tokens);
    /* V1 hybrid: the block given (16 by default) was enlarged (budget below) */
    const char *forced;
    uint64_t given = mla_block(s, s->block_tokens ? s->block_tokens : 16, &forced);
    len = strlen(e->note);
    if (forced && len < sizeof e->note)
        snprintf(e->note + len, sizeof e->note - len, " (%s)", forced);
    len = strlen(e->note);
    if (s->engine.rule != RULE_VLLM_V0 && c->k->state_layers > 0 && e->unit_tokens != given &&
        len < sizeof e->note)
        snprintf(e->note + len, sizeof e->note - len,
                 ", enlarged from the block size %llu so that a page holds a layer's state",
                 (unsigned long long)given);
}

/* kv_cache_utils.py (_get_kv_cache_groups_uniform_page_size): groups of the
 * fewest layers of one type (of the most, when that is under 1.5x the
 * fewest), the last group of a type padded; `other` are the windowed or the
 * state layers */
static void group_by_type(struct block_rule *b, uint32_t full, uint32_t other)
{
    uint32_t lo = full && full < other ? full : other, hi = full > other ? full : other;
    b->group_layers = 2 * hi < 3 * lo ? hi : lo;
    b->full_groups = (uint32_t)kv_ceil_div(full, b->group_layers);
    b->window_groups = (uint32_t)kv_ceil_div(other, b->group_layers);
}

/* K=V layers (Gemma 4's attention_k_eq_v) keep K and V each in vLLM's cache:
 * model_executor/models/gemma4.py (Gemma4Attention) loads the key weights
 * into both the K and the V slots of qkv_proj, and its Attention layer
 * caches both. */
static void cell_cost(const struct scenario *s, struct kv_cost *k)
{
    (void)s;
    kvcost_global_rows(k, 2);
}

/* V0 with state layers: the model's forward builds a MambaCacheManager
 * on its first call, the profiling run, of max_num_seqs states (padded
 * to a CUDA-graph batch size: 1, 2, 4, then multiples of 8), so the
 * states sit outside the KV blocks (vllm/model_executor/models/
 * mamba_cache.py, MambaCacheManager; each hybrid model's forward). Returns the
 * KV pool left. */
static uint64_t v0_state_pool(const struct policy_ctx *c)
{
    uint64_t n = c->b->engine.max_num_seqs;
    uint64_t slots = n <= 2 ? n : n <= 4 ? 4 : kv_ceil_div(n, 8) * 8;
    struct explain_row *row = explain_row_begin(c->x, "state_slots", "State slots", "per GPU");
    if (slots == n || n > 4)
        explain_term(row, n, XU_COUNT, "max-num-seqs");
    if (slots != n && n > 4) {
        explain_term(row, 8, XU_COUNT, "graph batch step");
        explain_op(row, XOP_DIV);
        explain_op(row, XOP_CEIL);
        explain_term(row, 8, XU_COUNT, "graph batch step");
        explain_op(row, XOP_MUL);
    }
    explain_row_end(c->x, row, XU_COUNT, slots != n && n <= 4 ? (long double)slots : 0,
                    "MambaCacheManager: a state per sequence of the largest batch");
    return policy_state_pool(c, slots, 0, "the states sit outside the KV blocks");
}

/* A state layer's page with speculative decoding: the convolution state
 * keeps conv_kernel - 1 + num_spec rows, one more a speculative token
 * (model_executor/layers/mamba/mamba_utils.py, MambaStateShapeCalculator's
 * state shapes with num_spec, which the hybrid models pass as
 * num_speculative_tokens; read at main 002db495). Qwen3-Next at TP 4 with 2
 * MTP tokens: 3 + 2 rows of 2,048 channels, a page of 282,624 B rather than
 * 274,432, and blocks of 288 tokens rather than 272. */
static uint64_t spec_state(const struct policy_ctx *c)
{
    const struct kv_cost *k = c->k;
    uint32_t kernel = c->s->model.state_conv_kernel;
    uint64_t tokens = c->spec->method != SPEC_NONE ? c->spec->tokens : 0;
    if (tokens == 0 || kernel < 2 || k->state_conv_values == 0)
        return k->state_bytes_per_layer;
    uint64_t channels = k->state_conv_values / (kernel - 1);
    uint64_t extra = dtype_bytes_for(k->state_conv_dtype, kv_sat_mul(tokens, channels));
    struct explain_row *row = explain_row_begin(c->x, "state_spec", "Conv state, spec", "per GPU");
    explain_term(row, (long double)k->state_bytes_per_layer, XU_BYTES_EXACT, "state, layer");
    explain_term(row, tokens, XU_COUNT, "speculative tokens");
    explain_term(row, channels, XU_COUNT, "conv channels/GPU");
    explain_op(row, XOP_MUL);
    explain_term(row, dtype_bytes_for(k->state_conv_dtype, 1), XU_BYTES_EXACT,
                 dtype_info(k->state_conv_dtype)->name);
    explain_op(row, XOP_MUL);
    explain_op(row, XOP_ADD);
    explain_row_end(c->x, row, XU_BYTES_EXACT, 0,
                    "a state layer's page: the conv state keeps a row per speculative token");
    return kv_sat_add(k->state_bytes_per_layer, extra);
}

/* V1's groups of layers by type (v1/core/kv_cache_utils.py): state layers
 * (MambaSpec) or windowed layers beside the full ones, each group drawing
 * blocks from the one pool; the draft's layers join the full ones. */
static void group_layers(const struct policy_ctx *c, struct block_rule *b, uint32_t draft_layers)
{
    const struct scenario *s = c->s;
    const struct model_spec *m = &s->model;
    struct plan_budget *r = c->b;
    const struct engine_detail *e = &r->engine;
    const struct kv_cost *k = c->k;
    uint64_t ctx = s->context_tokens;
    if (k->state_layers > 0) {
        /* State layers (MambaSpec) share the one page pool with attention:
         * model_executor/models/config.py
         * (HybridAttentionMambaModelConfig.verify_and_update_config) makes the
         * attention block a x ceil(state page / (a x one token's attention
         * page)) tokens when the block given is smaller, so that one
         * attention page holds a layer's state, and pads the state page to
         * it. The alignment a is the attention kernel's: 16, or an MLA
         * backend's (kernel_block_alignment_size: 128 with CUTLASS MLA, 64
         * with the others; read at main 1936cf38), mla_block() above.
         * Kimi-Linear on Hopper: 2,170,880 B of state over 1,152 B a token
         * is 1,884.4 tokens, a block of 1,920 = 30 x 64 (not 1,888 = 118 x
         * 16, which FlashMLA refuses). v1/core/kv_cache_utils.py groups the
         * layers by type as below,
         * and v1/core/single_type_kv_cache_manager.py (MambaManager) gives a
         * sequence one block in each state group, whatever its length. */
        uint64_t one = k->bytes_per_layer;
        const char *why;
        uint64_t align = mla_block(s, 16, &why);
        uint64_t need = align * kv_ceil_div(spec_state(c), align * (one ? one : 1));
        if (b->unit_tokens < need)
            b->unit_tokens = need; /* log_lines() says so */
        b->hybrid = b->state = true;
        group_by_type(b, k->global_layers + draft_layers, k->state_layers);
        /* With speculative decoding a state group keeps 1 + num_speculative_blocks
         * blocks a sequence, one for each draft token's state:
         * model_executor/layers/mamba/abstract.py (MambaBase.get_kv_cache_spec)
         * sets num_speculative_blocks to num_speculative_tokens, and
         * v1/kv_cache_interface.py (MambaSpec.max_memory_usage_bytes, mode
         * "none") and MambaManager allocate 1 + that many. */
        b->spec_units = c->spec->method != SPEC_NONE ? c->spec->tokens : 0;
        b->window_units = b->window_units_avg = 1 + b->spec_units;
        r->engine.full_groups = b->full_groups;
        r->engine.nwindows = 1;
        r->engine.windows[0] = (struct engine_window){.groups = b->window_groups,
                                                      .fixed = b->window_units};
        /* config/cache.py (CacheConfig.mamba_cache_mode): with prefix caching
         * the states are kept at block boundaries ("align" or "all"), which
         * kvplan does not count */
        if (s->prefix_tokens > 0)
            r->rule_warnings |= WARN_STATE_PREFIX;
    } else if (b->hybrid) {
        group_by_type(b, k->global_layers + draft_layers, k->windowed_layers);
        bool local = strstr(m->window_pattern, "chunked") != NULL;
        uint64_t window_unit = policy_unify_pages(c, b); /* Gemma 4's global layers */
        r->engine.log_unit_tokens = window_unit < b->unit_tokens ? window_unit : b->unit_tokens;
        /* A request holds its window's blocks and one more in each window
         * group once it decodes: the blocks behind a window are freed as
         * tokens are computed (v1/core/single_type_kv_cache_manager.py,
         * SlidingWindowManager.get_num_skipped_tokens, remove_skipped_blocks,
         * called by KVCacheManager.allocate_slots before it allocates). A
         * prompt being prefilled holds min(window - 1 + a batch, context)
         * until its step ends (SlidingWindowSpec.max_memory_usage_bytes),
         * which is what vLLM's Maximum concurrency and its start-up check
         * count for every request: a step's batch is shared, so the pool
         * sets one prompt's extra aside (scratch_units) and no more. */
        uint64_t batched = e->max_num_batched_tokens;
        b->window_units = vllm_window_blocks(k->window_tokens, local, 1, ctx, window_unit);
        b->window_units_avg = vllm_window_blocks(k->window_tokens, local, 1,
                                                 scenario_avg_tokens(s), window_unit);
        b->window_units_peak = vllm_window_blocks(k->window_tokens, local, batched, ctx, window_unit);
        if (b->window_units_peak > b->window_units)
            b->scratch_units =
                kv_sat_mul(b->window_groups, b->window_units_peak - b->window_units);
        r->engine.full_groups = b->full_groups;
        r->engine.nwindows = 1;
        r->engine.windows[0] = (struct engine_window){.groups = b->window_groups,
                                                      .chunked = local,
                                                      .window = k->window_tokens,
                                                      .block = window_unit};
    }
}

/* The block size: the one asked (16 by default), or the one an MLA
 * backend forces, said in its own row. */
static uint64_t block_unit(const struct policy_ctx *c)
{
    const struct scenario *s = c->s;
    const char *forced;
    uint64_t asked = s->block_tokens ? s->block_tokens : 16;
    uint64_t unit = mla_block(s, asked, &forced);
    if (forced && c->x) {
        char why[160];
        snprintf(why, sizeof why, "instead of the block size %llu: %s",
                 (unsigned long long)asked, forced);
        struct explain_row *mla = explain_row_begin(c->x, "mla_block", "MLA block", "per block");
        explain_row_end(c->x, mla, XU_TOKENS, unit, why);
    }
    return unit;
}

/* The profile's top-k/top-p: PyTorch's sort up to 0.17, the Triton kernel of
 * vllm PR #33538 from 0.18 (policy_vllm_profile.c) */
static enum vllm_topk topk_path(enum engine_rule rule)
{
    if (rule == RULE_VLLM_V0)
        return VLLM_TOPK_V0;
    if (rule == RULE_VLLM_0_13 || rule == RULE_VLLM_0_17)
        return VLLM_TOPK_SORT;
    return VLLM_TOPK_TRITON;
}

/* The engine's defaults (max-num-seqs, max-num-batched-tokens by GPU and
 * release), its budget and the pool after the weights, the profiled
 * activation peak and the runtime. */
static void budget_pool(const struct policy_ctx *c)
{
    const struct scenario *s = c->s;
    const struct engine_flags *f = &s->engine;
    const struct model_spec *m = &s->model;
    struct plan_budget *r = c->b;
    struct engine_detail *e = &r->engine;
    bool v0 = f->rule == RULE_VLLM_V0;
    e->gpu_total_bytes = policy_cuda_total(s);
    r->memory_bytes_per_gpu = e->gpu_total_bytes;
    e->fraction = f->gpu_memory_utilization > 0 ? f->gpu_memory_utilization
                                                : engine_vllm.knobs[0].def;
    /* arg_utils.py: larger defaults on GPUs of 70 GiB or more, not A100 */
    bool big = !v0 && e->gpu_total_bytes >= 70 * GIB && strncmp(s->gpu.id, "a100", 4) != 0;
    e->max_num_seqs = f->max_num_seqs ? f->max_num_seqs : big ? 1024 : 256;
    uint64_t ctx = s->context_tokens;
    /* V0 arg_utils.py turns chunked prefill on for contexts past 32K (CUDA,
     * no sliding window); config.py then batches 2048 tokens a step, else
     * the whole context (at least 2048). */
    bool chunked = v0 && ctx > 32768 && m->windowed_layers == 0;
    e->max_num_batched_tokens = f->max_num_batched_tokens ? f->max_num_batched_tokens
                                : v0 && !chunked          ? (ctx > 2048 ? ctx : 2048)
                                : big                     ? 8192
                                                          : 2048;
    e->budget_bytes = (uint64_t)llroundl((long double)e->gpu_total_bytes * e->fraction);
    r->reserved_bytes_per_gpu = e->gpu_total_bytes - e->budget_bytes;
    uint64_t runtime = policy_gib(v0 ? 0.1 : 0.25) + (c->l->tp > 1 ? policy_gib(1.5) : 0);

    policy_user_bytes(c);
    e->held_extra_bytes = vllm_held_extra(c);
    uint64_t activation =
        vllm_activation_row(c, e->max_num_batched_tokens, e->max_num_seqs, topk_path(f->rule));
    if (!v0) /* V1's encoder cache for image embeddings (core/images.h) */
        images_encoder_cache(c, e->max_num_batched_tokens);
    struct explain_row *row = explain_row_begin(c->x, "budget", "vLLM budget", "per GPU");
    explain_term(row, e->gpu_total_bytes, XU_BYTES, "CUDA total");
    explain_term(row, e->fraction, XU_FRACTION, "gpu-memory-utilization");
    explain_op(row, XOP_MUL);
    explain_op(row, XOP_ROUND);
    explain_row_end(c->x, row, XU_BYTES, 0, NULL);
    policy_engine_pool(c, e->budget_bytes, "budget", activation, runtime);
}

/* What vLLM reports of one request of the whole context, prefix caching
 * ignored: its layer-weighted blocks, its blocks in every group, the bytes
 * its start-up check needs (a row when no user fits: the headline's "one
 * needs") and the Maximum concurrency over them. */
static void one_request(const struct policy_ctx *c, const struct block_rule *b)
{
    const struct kv_cost *k = c->k;
    struct plan_budget *r = c->b;
    struct engine_detail *e = &r->engine;
    uint64_t full = kv_ceil_div(c->s->context_tokens, b->unit_tokens);
    uint64_t window = b->window_units_peak ? b->window_units_peak : b->window_units;
    e->request_units = b->hybrid ? kv_sat_add(kv_sat_mul(k->global_layers, full),
                                              kv_sat_mul(b->state ? k->state_layers
                                                                  : k->windowed_layers,
                                                         window))
                                 : kv_sat_mul(k->layers, full);
    uint64_t request_blocks = b->hybrid ? kv_sat_add(kv_sat_mul(b->full_groups, full),
                                                     kv_sat_mul(b->window_groups, window))
                                        : full;
    e->request_bytes = vllm_request_bytes(request_blocks, e->unit_bytes);
    if (e->request_bytes && r->users_per_replica == 0) {
        struct explain_row *need = explain_row_begin(c->x, "request_bytes", "One request needs",
                                                     "per GPU");
        explain_term(need, (long double)request_blocks, XU_COUNT,
                     b->hybrid ? "blocks of every group" : "blocks");
        explain_term(need, (long double)e->unit_bytes, XU_BYTES,
                     b->hybrid ? "a block of a group's layers" : "a block of every layer");
        explain_op(need, XOP_MUL);
        explain_row_end(c->x, need, XU_BYTES, 0,
                        "vLLM refuses to start past the pool: \"... GiB KV cache is needed, which "
                        "is larger than the available KV cache memory\" (v1/core/kv_cache_utils.py,"
                        " _check_enough_kv_cache_memory)");
    }
    e->max_concurrency = request_blocks && request_blocks != UINT64_MAX
                             ? (double)e->units / (double)request_blocks
                             : 0;
    if (b->scratch_units && e->units) {
        struct explain_row *row =
            explain_row_begin(c->x, "blocks_counted", "Blocks vLLM counts", "per request");
        explain_term(row, b->full_groups, XU_COUNT,
                     b->full_groups == 1 ? "full group" : "full groups");
        explain_term(row, (long double)full, XU_COUNT, "blocks each");
        explain_op(row, XOP_MUL);
        explain_term(row, b->window_groups, XU_COUNT, "window groups");
        explain_term(row, (long double)window, XU_COUNT, "blocks prefilling");
        explain_op(row, XOP_MUL);
        explain_op(row, XOP_ADD);
        explain_row_end(c->x, row, XU_COUNT, 0,
                        "one request as vLLM's Maximum concurrency and its start-up check count "
                        "it: every window group holding a whole batch (SlidingWindowSpec."
                        "max_memory_usage_bytes)");
        vllm_concurrency_row(c, "blocks_counted");
    }
}

static void budget(const struct policy_ctx *c)
{
    const struct scenario *s = c->s;
    const struct model_spec *m = &s->model;
    struct plan_budget *r = c->b;
    struct engine_detail *e = &r->engine;
    const struct kv_cost *k = c->k;
    bool v0 = s->engine.rule == RULE_VLLM_V0;
    budget_pool(c);
    uint64_t v0_pool = v0 && k->state_layers > 0 ? v0_state_pool(c) : r->kv_pool_bytes_per_gpu;
    uint64_t unit = block_unit(c);
    struct block_rule b = {.unit_tokens = unit,
                           .unit_name = "block",
                           .hybrid = !v0 && k->windowed_layers > 0,
                           .cap = e->max_num_seqs,
                           .cap_name = "max-num-seqs"};
    if (v0 && k->state_layers > 0) {
        b.pool_bytes = v0_pool;
        b.pool_key = "kv_pool_after_state";
    }
    /* V0 core/block_manager.py: a model windowed in every layer keeps at
     * most window / block + 2 blocks of a sequence. */
    if (v0 && m->windowed_layers > 0 && m->windowed_layers == m->layers && !s->full_attention)
        b.user_cap_units = m->window_tokens / b.unit_tokens + 2;
    /* a draft's layers are full attention: they join that type, as many
     * model-sized layers as its KV per token fills (draft_model.py registers
     * them in the same KV cache spec) */
    uint32_t draft_layers =
        k->bytes_per_layer ? (uint32_t)kv_ceil_div(k->draft_bytes_per_token, k->bytes_per_layer) : 0;
    if (k->compressed_span) {
        vllm_dsv4_blocks(c, &b); /* policy_vllm_dsv4.c */
        return;
    }
    if (!v0)
        group_layers(c, &b, draft_layers);
    policy_blocks(c, &b);
    if (v0 && k->state_layers > 0)
        policy_state_pool_used(c);
    if (b.state) {
        r->state_bytes_per_user_per_gpu =
            kv_sat_mul(kv_sat_mul(b.window_groups, b.window_units), e->unit_bytes);
        r->state_used_bytes_per_gpu =
            kv_sat_mul(r->users_per_replica, r->state_bytes_per_user_per_gpu);
    }
    one_request(c, &b);
}

static bool v1_experts(enum engine_rule rule)
{
    return rule != RULE_VLLM_V0;
}

/* the simulator's scheduler is V1's (core/sim.h) */
static bool v1_scheduler(enum engine_rule rule)
{
    return rule != RULE_VLLM_V0;
}

/* DeepSeek V4 came after V0 and 0.13 (vLLM's recipe names 0.20.1) */
static bool dsv4_rule(enum engine_rule rule)
{
    return rule != RULE_VLLM_V0 && rule != RULE_VLLM_0_13 && rule != RULE_VLLM_0_17;
}

/* V0 sizes every layer for the whole context; V1 groups windowed layers */
static bool v0_windows(const struct scenario *s)
{
    return s->engine.rule == RULE_VLLM_V0;
}

#define FLAG_AT(field) offsetof(struct engine_flags, field)

const struct engine_desc engine_vllm = {
    .step_overhead_s = SPEED_STEP_OVERHEAD_S,
    /* the API server and AsyncLLM (tokenizing in the frontend process), the
     * ZMQ hand-off to EngineCoreProc (v1/engine/core_client.py AsyncMPClient)
     * and the output handler's detokenizing (v1/engine/output_processor.py):
     * tools/fit_ttft.py, fitted on vLLM 0.11.0 at 1 and 4 in flight */
    .request_overhead_s = {{41.2e-3, 0}, {0, 0}},
    .simulated = v1_scheduler,
    /* vllm/config/scheduler.py, SchedulerConfig's checks: max_num_batched_tokens
     * at least max_num_seqs; several replicas behind DPLBAsyncMPClient */
    .sched = {.kind = SIM_SCHED_VLLM, .router = SIM_ROUTE_DPLB, .seqs_within_batch = true,
              .title = "vLLM V1", .seqs_name = "max-num-seqs",
              .tokens_name = "max-num-batched-tokens"},
    .kind = ENGINE_VLLM,
    .name = "vllm",
    .title = "vLLM",
    .title_a = "a vLLM",
    /* named after the newest release it is read for (0.21.0: "GPU KV cache
     * size" from the maximum concurrency, vllm#43308); "vllm@0.20", its label
     * until then, is now the 0.18-0.20 row, and "vllm@0.15", its label before
     * that, release 0.15's rule, the 0.14-0.17 row (session files, snapshots
     * and scripts that pinned either still load) */
    .versions = {{RULE_CURRENT, "vllm@0.21", {"0.21", "1", "v1"},
                  "the V1 engine, the latest: \"GPU KV cache size\" logged as int(maximum "
                  "concurrency x max-model-len) (kv_cache_utils.py report_kv_cache_config, from "
                  "0.21.0); FlashInfer MLA for DeepSeek on Blackwell (from January 2026), rules "
                  "read at main 002db495; DeepSeek V4's packed blocks (served from 0.20.1) read at "
                  "main 0a291a2e; the profile's top-k/top-p by Triton (vllm PR #33538, no sort)",
                  "0.21", "0.21", "0.21.0", NULL},
                 {RULE_VLLM_0_20, "vllm@0.20", {"0.20", "0.19", "0.18"},
                  "0.18 to 0.20: \"GPU KV cache size\" logged as num_blocks // the groups x the "
                  "smallest group block (kv_cache_utils.py _report_kv_cache_config, 0.19.0 and "
                  "0.20.0); otherwise the latest rule", "0.20", "0.18", NULL, NULL},
                 {RULE_VLLM_0_17, "vllm@0.17", {"0.17", "0.16", "0.15", "0.14"},
                  "0.14 to 0.17: the profile's top-k/top-p sorted by PyTorch (torch.sort of the "
                  "fp32 logits, 32 B an entry at 128 rows or more)", "0.17", "0.14", NULL, NULL},
                 {RULE_VLLM_0_13, "vllm@0.13", {"0.13", "0.12", "0.11"},
                  "up to 0.13: CUTLASS MLA on Blackwell (SM100) for every MLA model, blocks of 128 "
                  "(later FlashInfer MLA's 64 for DeepSeek); the profile's top-k/top-p sorted "
                  "by PyTorch", "0.13", "0.8", NULL, NULL},
                 {RULE_VLLM_V0, "vllm@0", {"0", "v0"},
                  "the V0 engine: logits profiled for every batched token, windows sized "
                  "for the whole context, one server per replica", "V0", "0", NULL, NULL}},
    /* the query heads: vllm/config/model.py, ModelConfig.verify_with_parallel_config
     * (raises ValueError); the KV heads: model_executor/layers/linear.py,
     * QKVParallelLinear.__init__ (divide() asserts), read at main 002db495 */
    .refuses_uneven_tp = "vllm/config/model.py, ModelConfig.verify_with_parallel_config",
    .refuses_uneven_nodes = "vllm/config/parallel.py, ParallelConfig.__post_init__: world_size % nnodes == 0",
    .refuses_model = vllm_refuses_model,
    .refuses_block = vllm_refuses_block, /* policy_vllm_refuse.c */
    .block_override = block_override,
    /* --max-model-len past the derived one raises ValueError unless the variable
     * is set (read at 18ec6629, the same at 0052a5b8); without it, the derived one */
    .long_context = {"VLLM_ALLOW_LONG_MAX_MODEL_LEN", "--max-model-len",
                     "vllm/config/model.py, _get_and_verify_max_len"},
    .server = true,
    .cache_dtypes = {DTYPE_FP16, DTYPE_BF16, DTYPE_FP8}, /* no float32 (CacheDType) */
    .cache_flags = vllm_cache_flags, /* policy_vllm_refuse.c */
    .auto_cache = vllm_auto_cache,   /* policy_vllm_refuse.c */
    .vendors = {"NVIDIA", "AMD"},
    .knobs = {{.offset = FLAG_AT(gpu_memory_utilization),
               .role = KNOB_FRACTION,
               .label = "GPU util",
               .engine_flag = "--gpu-memory-utilization",
               .max = 1,
               .def = 0.9,
               .help = "the share of the CUDA total vLLM budgets"},
              {.offset = FLAG_AT(max_num_seqs),
               .role = KNOB_SEQS,
               .label = "Max seqs",
               .engine_flag = "--max-num-seqs",
               .min = 1,
               .max = 1000000,
               .help = "sequences a replica schedules at once (256, or 1024 on GPUs of 70 GiB)"},
              {.offset = FLAG_AT(max_num_batched_tokens),
               .label = "Batched tokens",
               .engine_flag = "--max-num-batched-tokens",
               .min = 1,
               .max = (double)TOKENS_MAX,
               .help = "tokens a step batches, and the profiling run's size"}},
    .experts_over_dp = v1_experts,
    .experts_owner = "vLLM's V1 engine",
    .expert_padding = vllm_mxfp4_padding, /* policy_vllm_mxfp4.c */
    .windows_full = v0_windows,
    .cell_cost = cell_cost,
    .global_dims = true,
    .compressed = dsv4_rule, /* policy_vllm_dsv4.c */
    .compressed_from = "0.20.1", /* vLLM's DeepSeek-V4 recipe */
    .mtp = true,
    .spec_tokens = 1,
    .spec_lookahead = true,
    .lookahead_source = "vLLM num_lookahead_tokens",
    .packs_lora = true,
    .lora_flag = "--max-loras",
    .lora_where = "allocated with the model, outside the KV cache",
    .runtime_words = "activations+rt",
    .reserved_words = "outside budget",
    .server_command = "vllm serve",
    .quant_online = "--quantization",
    .quant_serve = ", a pre-quantized checkpoint (AWQ, GPTQ, ModelOpt): vLLM quantizes at load only to FP8",
    .host = {.note = host_note},
    .budget = budget,
    .launch = launch,
    .servers = servers,
    .log = log_lines,
};
