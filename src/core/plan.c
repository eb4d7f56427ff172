#include "plan.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "hosttier.h"
#include "images.h"
#include "policy.h"
#include "speed.h"

static void cost_rows(struct policy_ctx *c)
{
    if (c->x == NULL) /* rows only: without them, nothing to do */
        return;
    const struct scenario *s = c->s;
    const struct model_spec *m = &s->model;
    struct plan_result *r = c->r;
    const struct kv_cost *k = &r->cost;
    uint32_t atp = k->tp; /* the attention's tensor parallel: 1 under DP attention */
    struct explain_row *row = explain_row_begin(c->x, "kv_per_layer", "KV per layer", "per GPU");
    policy_kv_layer_expr(row, m, k);
    char note[160] = "";
    if (k->index_bytes)
        snprintf(note, sizeof note,
                 "one latent%s and one sparse-attention indexer key (%u FP8 values + fp32 scale "
                 "per 128) per layer%s",
                 k->latent_fp8_blocks ? " (FlashMLA FP8 layout)" : "", m->index_head_dim,
                 r->dp_attention ? ", each rank its own requests" : atp > 1 ? ", on every GPU" : "");
    else if (k->mla)
        snprintf(note, sizeof note, "one latent per layer%s",
                 r->dp_attention ? ", each rank its own requests"
                 : atp > 1       ? ", on every GPU"
                                 : "");
    else if (atp > 1)
        snprintf(note, sizeof note, "%u KV heads over %u GPUs%s", k->kv_heads, atp,
                 k->kv_heads < atp ? ", replicated" : "");
    else if (r->dp_attention)
        snprintf(note, sizeof note, "DP attention: each rank holds all heads of its own requests");
    explain_row_end(c->x, row, XU_BYTES_EXACT, 0, note);

    if (r->pp > 1) {
        row = explain_row_begin(c->x, "stage_layers", "Layers per stage", "per GPU");
        explain_term(row, spec_kv_layers(m), XU_COUNT, k->state_layers ? "attention layers" : "layers");
        explain_term(row, r->pp, XU_COUNT, "pipeline stages");
        explain_op(row, XOP_DIV);
        explain_op(row, XOP_CEIL);
        explain_row_end(c->x, row, XU_COUNT, 0, "the fullest stage; each holds its layers' KV");
    }
    specdec_kv_row(c);
    row = explain_row_begin(c->x, "kv_per_token", "KV per token", "per GPU");
    if (r->pp > 1)
        explain_ref(c->x, row, "stage_layers", "layers");
    else
        explain_term(row, k->layers, XU_COUNT, k->state_layers ? "attention layers" : "layers");
    explain_ref(c->x, row, "kv_per_layer", "");
    explain_op(row, XOP_MUL);
    if (r->spec.method != SPEC_NONE) {
        explain_ref(c->x, row, "draft_kv_per_token", r->spec.method == SPEC_MTP ? "MTP" : "draft");
        explain_op(row, XOP_ADD);
    }
    explain_row_end(c->x, row, XU_BYTES_EXACT, 0,
                    r->spec.method == SPEC_MTP     ? "the model's layers and the MTP layers'"
                    : r->spec.method != SPEC_NONE ? "the model's layers and the draft's"
                                                  : NULL);

    if (atp > 1) {
        row = explain_row_begin(c->x, "kv_per_token_tp", "KV per token",
                                r->pp > 1 ? "all GPUs of a stage" : "all GPUs of a replica");
        explain_ref(c->x, row, "kv_per_token", "per GPU");
        explain_term(row, r->tp, XU_COUNT, "GPUs");
        explain_op(row, XOP_MUL);
        explain_row_end(c->x, row, XU_BYTES_EXACT, 0,
                        k->mla || k->kv_heads < atp ? "replicated copies included" : NULL);
    }
    if (k->windowed_layers > 0) {
        char w[32];
        units_format_int(k->window_tokens, w, sizeof w);
        snprintf(note, sizeof note, "%u windowed layers (%s) hold at most %s tokens",
                 k->windowed_layers, m->window_pattern, w);
        row = explain_row_begin(c->x, "kv_past_window", "Past the window", "per GPU");
        explain_term(row, k->global_layers, XU_COUNT, "global layers");
        explain_ref(c->x, row, "kv_per_layer", "");
        explain_op(row, XOP_MUL);
        if (r->spec.method != SPEC_NONE) {
            explain_ref(c->x, row, "draft_kv_per_token",
                        r->spec.method == SPEC_MTP ? "MTP" : "draft");
            explain_op(row, XOP_ADD);
        }
        explain_row_end(c->x, row, XU_BYTES_EXACT, 0, note);
    }
}

/* The weights one GPU holds, when the model is split or a draft sits beside it. */
static void weights_row(struct policy_ctx *c)
{
    struct plan_result *r = c->r;
    char note[96];
    struct explain_row *row = NULL;
    bool draft = r->spec.method != SPEC_NONE;
    specdec_weights_row(c);
    uint64_t whole = r->attention_bytes ? r->attention_bytes : r->replicated_bytes;
    if (r->experts_spread || whole) {
        /* split by TP x PP, routed experts over the DP group, the rest whole on every rank */
        uint64_t rest = r->weights_bytes - (r->experts_spread ? r->expert_bytes : 0) - whole;
        row = explain_row_begin(c->x, "weights_per_gpu", "Weights", "per GPU");
        explain_term(row, (long double)rest, XU_BYTES,
                     r->attention_bytes    ? "weights outside attention"
                     : !r->experts_spread  ? "weights split by TP"
                     : r->replicated_bytes ? "the rest"
                                           : "weights outside the experts");
        explain_term(row, r->tp * r->pp, XU_COUNT,
                     r->tp * r->pp == 1 ? "GPU (TP)" : r->pp > 1 ? "GPUs (TP x PP)" : "GPUs (TP)");
        explain_op(row, XOP_DIV);
        explain_op(row, XOP_CEIL);
        if (r->experts_spread) {
            explain_term(row, (long double)r->expert_bytes, XU_BYTES, "routed experts");
            explain_term(row, r->gpus, XU_COUNT,
                         r->expert_parallel ? "GPUs (expert parallel)" : "GPUs (TP across DP)");
            explain_op(row, XOP_DIV);
            explain_op(row, XOP_CEIL);
            explain_op(row, XOP_ADD);
        }
        if (whole) {
            explain_term(row, (long double)whole, XU_BYTES,
                         r->attention_bytes ? "attention and embedding" : "whole on every GPU");
            if (r->pp > 1) {
                explain_term(row, r->pp, XU_COUNT, "stages");
                explain_op(row, XOP_DIV);
                explain_op(row, XOP_CEIL);
            }
            explain_op(row, XOP_ADD);
        }
        explain_row_end(c->x, row, XU_BYTES, 0,
                        r->experts_spread && r->expert_parallel
                            ? "whole experts on each GPU, the rest per replica"
                        : r->experts_spread ? "vLLM's MoE layers span the data-parallel ranks"
                        : r->attention_bytes ? "DP attention: every rank holds attention whole"
                        : c->s->model.index_head_dim
                            ? "MLA's latent down-projections and the indexer are replicated, not "
                              "split (ReplicatedLinear)"
                            : "MLA's latent down-projections are replicated, not split "
                              "(ReplicatedLinear)");
    } else if (r->tp * r->pp > 1 || draft) {
        snprintf(note, sizeof note, "weights (%s)", plan_weights_label(r));
        row = explain_row_begin(c->x, "weights_per_gpu", "Weights", "per GPU");
        explain_term(row, (long double)r->weights_bytes, XU_BYTES, note);
        if (r->tp * r->pp > 1) {
            explain_term(row, r->tp * r->pp, XU_COUNT, r->pp > 1 ? "GPUs (TP x PP)" : "GPUs");
            explain_op(row, XOP_DIV);
            explain_op(row, XOP_CEIL);
        }
        if (!draft)
            explain_row_end(c->x, row, XU_BYTES, 0, NULL);
    }
    if (draft) {
        /* the row above is still open for the plain case; reopen the others */
        if (row == NULL || r->experts_spread || whole) {
            if (c->x)
                explain_rename(c->x, "weights_per_gpu", "weights_model");
            row = explain_row_begin(c->x, "weights_per_gpu", "Weights", "per GPU");
            explain_ref(c->x, row, "weights_model", "model");
        }
        explain_ref(c->x, row, "draft_weights", r->spec.method == SPEC_MTP ? "MTP" : "draft");
        explain_op(row, XOP_ADD);
        explain_row_end(c->x, row, XU_BYTES, 0,
                        r->spec.method == SPEC_MTP ? "the model and its MTP layers"
                                                   : "the model and its draft");
    }
}

/* The LoRA slots one GPU holds (core/lora.h): the modules' features, one
 * slot, every slot. */
static void lora_rows(struct policy_ctx *c)
{
    const struct scenario *s = c->s;
    struct plan_result *r = c->r;
    const struct lora_cost *l = &r->lora;
    if (l->bytes == 0)
        return;
    struct explain_row *row = explain_row_begin(c->x, "lora_features", "LoRA in+out", "per GPU");
    int n = 0;
    for (int i = 0; i < LORA_MODULES; i++) {
        if (!(l->targets & (1u << i)))
            continue;
        explain_term(row, (long double)l->features[i], XU_COUNT, lora_module_name((enum lora_module)i));
        if (n++ > 0)
            explain_op(row, XOP_ADD);
    }
    /* the engines allocate packed projections whole (core/lora.h lora_allocated) */
    uint32_t asked = lora_targets(s) & (s->model.mlp_ungated ? ~(1u << LORA_GATE) : ~0u);
    char note[200];
    snprintf(note, sizeof note, "%s%s%s",
             r->tp > 1 ? "features of A (in) and B (out) per layer; q, k, v, gate, up split "
                         "their output over TP, o and down their input"
                       : "features of A (in) and B (out) per layer",
             l->targets != asked ? "; packed qkv_proj and gate_up_proj are allocated whole" : "",
             s->model.mlp_ungated ? "; an MLP of two matrices (no gate)" : "");
    explain_row_end(c->x, row, XU_COUNT, 0, note);
    char bpv[48];
    snprintf(bpv, sizeof bpv, "B (%s)", dtype_info(l->dtype)->name);
    row = explain_row_begin(c->x, "lora_slot", "LoRA per slot", "per GPU");
    if (r->pp > 1)
        explain_ref(c->x, row, "stage_layers", "layers");
    else
        explain_term(row, l->layers, XU_COUNT, "layers");
    explain_term(row, l->rank, XU_COUNT, s->max_lora_rank ? "max rank" : "max rank (default)");
    explain_op(row, XOP_MUL);
    explain_ref(c->x, row, "lora_features", "features");
    explain_op(row, XOP_MUL);
    const struct dtype_info *info = dtype_info(l->dtype);
    explain_term(row, (long double)info->bytes_num / info->bytes_den, XU_PER_VALUE, bpv);
    explain_op(row, XOP_MUL);
    explain_row_end(c->x, row, XU_BYTES_EXACT, 0,
                    s->model.experts ? "A and B of every layer; MoE experts carry none here"
                                     : "A and B of every layer");
    row = explain_row_begin(c->x, "lora", "LoRA slots", "per GPU");
    const struct engine_desc *e = engine_desc(s->engine.kind);
    explain_term(row, l->slots, XU_COUNT, e->lora_flag + 2); /* "max-loras" */
    explain_ref(c->x, row, "lora_slot", "per slot");
    explain_op(row, XOP_MUL);
    explain_row_end(c->x, row, XU_BYTES, 0,
                    e->lora_where ? e->lora_where : "held beside the weights");
}

/* The replica rows become the answer, or are multiplied by the replicas. */
static void total_row(struct policy_ctx *c, const char *key, const char *replica_key,
                      const char *label, enum xunit unit)
{
    struct plan_result *r = c->r;
    if (r->replicas == 1) {
        explain_rename(c->x, replica_key, key);
        return;
    }
    struct explain_row *row = explain_row_begin(c->x, key, label, "all replicas");
    explain_ref(c->x, row, replica_key, "per replica");
    explain_term(row, r->replicas, XU_COUNT, "replicas");
    explain_op(row, XOP_MUL);
    explain_row_end(c->x, row, unit, 0, NULL);
}

/* DP attention: the policy's per-replica rows count one rank's requests;
 * the replica serves every rank's. */
static void dp_attention_rows(struct policy_ctx *c)
{
    struct plan_result *r = c->r;
    static const struct {
        const char *key, *rank, *label;
        enum xunit unit;
    } rows[] = {{"users_replica", "users_rank", "Users", XU_COUNT},
                {"users_paged_replica", "users_paged_rank", "Users, paged", XU_COUNT},
                {"kv_tokens_replica", "kv_tokens_rank", "Tokens held", XU_TOKENS}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        explain_rename(c->x, rows[i].key, rows[i].rank);
        struct explain_row *row = explain_row_begin(c->x, rows[i].key, rows[i].label, "per replica");
        explain_ref(c->x, row, rows[i].rank, "per rank");
        explain_term(row, r->tp, XU_COUNT, "attention ranks");
        explain_op(row, XOP_MUL);
        explain_row_end(c->x, row, rows[i].unit, 0, "each rank holds its own requests");
    }
    r->users_per_replica = kv_sat_mul(r->users_per_replica, r->tp);
    r->users_fit_per_replica = kv_sat_mul(r->users_fit_per_replica, r->tp);
    r->users_paged_per_replica = kv_sat_mul(r->users_paged_per_replica, r->tp);
    r->kv_tokens_per_replica = kv_sat_mul(r->kv_tokens_per_replica, r->tp);
}

static void money_and_speed(struct policy_ctx *c)
{
    const struct scenario *s = c->s;
    struct plan_result *r = c->r;
    speed_compute(s, r, c->x); /* the service level, from the users above */

    /* with a service level, a user-hour is one of the users who keep it */
    bool slo = s->min_tokens_per_s > 0 || s->max_ttft_seconds > 0;
    uint64_t users = slo ? r->speed.users_at_service_level : r->max_users;
    double price = s->has_price ? s->price_usd_per_hour : s->gpu.price_usd_per_hour;
    r->price_usd_per_hour = price >= 0 ? price * (double)r->gpus : -1.0;
    r->cost_per_user_hour = price >= 0 && users > 0 ? r->price_usd_per_hour / (double)users : -1.0;
    struct explain_row *row = explain_row_begin(c->x, "cost", "Cost per user-hour", "");
    if (price < 0) {
        explain_row_end(c->x, row, XU_USD, -1, "no price for this GPU (use --price)");
    } else if (users == 0) {
        explain_row_end(c->x, row, XU_USD, -1,
                        slo ? "no user keeps the service level" : "no user fits");
    } else {
        explain_term(row, price, XU_USD_PER_H, "per GPU");
        explain_term(row, r->gpus, XU_COUNT, r->gpus == 1 ? "GPU" : "GPUs");
        explain_op(row, XOP_MUL);
        if (slo)
            explain_ref(c->x, row, "users_slo", users == 1 ? "user at the service level"
                                                           : "users at the service level");
        else
            explain_ref(c->x, row, "users", users == 1 ? "user" : "users");
        explain_op(row, XOP_DIV);
        explain_row_end(c->x, row, XU_USD, 0, NULL);
    }
}

static void warnings(const struct scenario *s, struct plan_result *r)
{
    const struct model_spec *m = &s->model;
    const struct kv_cost *k = &r->cost;
    const struct engine_desc *e = engine_desc(s->engine.kind);
    uint32_t tp = k->tp; /* 1 when the engine splits layers, never heads */
    if (!r->weights_fit)
        r->warnings |= WARN_WEIGHTS_DO_NOT_FIT;
    else if (!r->fits)
        r->warnings |= WARN_KV_DOES_NOT_FIT;
    else if (r->max_users == 0)
        r->warnings |= WARN_NO_USER_FITS;
    if (r->users_fit_per_replica > r->users_per_replica)
        r->warnings |= WARN_SCHEDULER_CAP;
    if (k->mla && tp > 1)
        r->warnings |= WARN_MLA_REPLICATED;
    /* MLA keeps one latent, but its query heads still split by TP */
    if (k->mla && m->attention_heads % tp != 0)
        r->warnings |= WARN_HEADS_UNEVEN_SPLIT;
    if (!k->mla) {
        if (tp > k->kv_heads)
            r->warnings |= WARN_KV_HEADS_REPLICATED;
        if ((tp <= k->kv_heads && k->kv_heads % tp != 0) ||
            (tp > k->kv_heads && tp % k->kv_heads != 0) || m->attention_heads % tp != 0)
            r->warnings |= WARN_HEADS_UNEVEN_SPLIT;
    }
    if (r->fits && r->kv_pool_bytes_per_gpu < r->prefix_bytes_per_gpu)
        r->warnings |= WARN_PREFIX_DOES_NOT_FIT;
    if (r->price_usd_per_hour < 0)
        r->warnings |= WARN_PRICE_UNKNOWN;
    if (s->gpu.bandwidth_bytes_per_s == 0)
        r->warnings |= WARN_BANDWIDTH_UNKNOWN;
    if (s->context_tokens > m->max_context_tokens)
        r->warnings |= WARN_CONTEXT_BEYOND_MODEL;
    if (r->kv_dtype == DTYPE_FP8 && !s->gpu.fp8)
        r->warnings |= WARN_FP8_UNSUPPORTED;
    enum dtype v = s->engine.v_dtype;
    if (!engine_supports(s->engine.kind, r->kv_dtype) ||
        (e->v_dtype && v != DTYPE_AUTO && !engine_supports(s->engine.kind, v)))
        r->warnings |= WARN_ENGINE_DTYPE;
    /* an engine that loads only its own formats (llama.cpp: GGUF) converts an
     * fp8 or fp4 checkpoint first */
    if (!engine_loads(s->engine.kind, r->weight_dtype))
        r->warnings |= WARN_ENGINE_WEIGHTS;
    if (e->state_per_user && k->state_layers > 0)
        r->warnings |= WARN_STATE_GENERIC;
    /* doc/SPEED-FIT.md: DeepSeek-R1 (256 experts) needs the fitted MoE kernel
     * time and stays within 20% in most, not all, 2026 cases; Mixtral (8
     * experts) needs none. */
    if (m->experts > SPEED_MOE_FINE_EXPERTS && s->gpu.bandwidth_bytes_per_s > 0)
        r->warnings |= WARN_SPEED_MOE;
    /* the speed is then of a batch that memory cannot hold */
    if (s->concurrency > r->max_users && r->fits)
        r->warnings |= WARN_CONCURRENCY_BEYOND_FIT;
    if (r->tp > SPEED_GPUS_PER_NODE)
        r->warnings |= WARN_TP_ACROSS_NODES;
    if (s->spec_method == SPEC_DRAFT && s->draft.vocab_size && m->vocab_size &&
        s->draft.vocab_size != m->vocab_size)
        r->warnings |= WARN_DRAFT_VOCAB;
    /* a draft pays when it is much cheaper than the model: the planner offers
     * drafts of at most a quarter of its parameters */
    if (s->spec_method == SPEC_DRAFT && m->params && s->draft.params > m->params / 4)
        r->warnings |= WARN_DRAFT_SIZE;
    if (!engine_runs_on(s->engine.kind, s->gpu.vendor))
        r->warnings |= WARN_ENGINE_HARDWARE;
}

/* the layout, and the weights each GPU holds */
static void plan_layout(const struct scenario *s, const struct engine_desc *e,
                        const char *const names[SF_COUNT], struct plan_result *r)
{
    r->profile = s->engine.kind;
    r->rule = s->engine.rule;
    r->names = names ? names : scenario_option_names;
    r->gpus = s->gpus;
    r->tp = scenario_tp(s);
    r->pp = scenario_pp(s);
    r->dp_attention = s->dp_attention;
    r->expert_parallel = s->expert_parallel;
    r->replicas = scenario_replicas(s);
    r->context_tokens = s->context_tokens;
    r->prefix_tokens = s->prefix_tokens;
    r->avg_context_tokens = scenario_avg_tokens(s);
    r->block_tokens = s->block_tokens ? s->block_tokens : DEFAULT_BLOCK_TOKENS;
    r->weights_bytes = scenario_weights_bytes(s, &r->weight_dtype);
    r->weights_as_released = !s->has_weights && s->weight_dtype == DTYPE_AUTO &&
                             s->model.weights_bytes > 0;
    r->expert_bytes = scenario_expert_bytes(s);
    r->weights_bytes_per_gpu = kv_ceil_div(r->weights_bytes, (uint64_t)r->tp * r->pp);
    /* vLLM V1 (fused_moe/config.py, FusedMoEParallelConfig.make): a MoE layer
     * flattens TP across the DP ranks, so routed experts are split over every
     * GPU of the DP group, as tensor slices or, with --enable-expert-parallel,
     * as whole experts; the other weights split by TP x PP */
    r->experts_spread = r->expert_bytes > 0 && e->experts_over_dp &&
                        e->experts_over_dp(s->engine.rule) && (r->replicas > 1 || s->expert_parallel);
    /* SGLang's DP attention: every GPU holds the attention and the embedding
     * whole, the rest split by TP */
    r->attention_bytes = s->dp_attention ? scenario_attention_bytes(s) : 0;
    /* MLA's latent down-projections (and V3.2's indexer) are ReplicatedLinear
     * in vLLM and SGLang (models/deepseek_v2.py): every TP rank holds them
     * whole. An engine that splits layers splits no tensor. */
    r->replicated_bytes = !r->attention_bytes && r->tp > 1 && !e->splits_layers
                              ? scenario_replicated_bytes(s)
                              : 0;
    uint64_t whole = r->attention_bytes ? r->attention_bytes : r->replicated_bytes;
    if ((whole || r->experts_spread) && r->weights_bytes != UINT64_MAX) {
        uint64_t spread = r->experts_spread ? r->expert_bytes : 0;
        r->weights_bytes_per_gpu =
            kv_ceil_div(r->weights_bytes - spread - whole, (uint64_t)r->tp * r->pp) +
            kv_ceil_div(spread, r->gpus) + kv_ceil_div(whole, r->pp);
    }
}

/* the scenario the cache is costed on: the layers a GPU holds */
static void plan_costed(const struct scenario *s, const struct engine_desc *e,
                        struct plan_result *r, struct scenario *costed)
{
    /* an engine that sizes every layer for the whole context (SGLang,
     * TensorRT-LLM, vLLM V0) saves nothing by sliding windows */
    *costed = *s;
    bool full_layers = e->windows_full && e->windows_full(s);
    if (full_layers && s->model.windowed_layers > 0 && !s->full_attention) {
        costed->full_attention = true;
        r->warnings |= WARN_WINDOWS_UNUSED;
    }
    /* pipeline stages: a GPU holds the fullest stage's layers, windowed ones
     * in proportion */
    if (r->pp > 1) {
        uint32_t stage = (uint32_t)kv_ceil_div(s->model.layers, r->pp);
        uint32_t w = (uint32_t)kv_ceil_div(s->model.windowed_layers, r->pp);
        costed->model.layers = stage;
        costed->model.windowed_layers = w < stage ? w : stage;
        if (s->model.state_layers > 0) {
            /* the fullest stage of each kind: its attention and its state layers */
            uint32_t kv = (uint32_t)kv_ceil_div(spec_kv_layers(&s->model), r->pp);
            costed->model.state_layers = (uint32_t)kv_ceil_div(s->model.state_layers, r->pp);
            costed->model.plain_layers = 0;
            costed->model.layers = s->model.state_parallel ? kv : kv + costed->model.state_layers;
        }
    }
}

/* the engine's own cells and state precisions, and the speculative tokens */
static void plan_cell_cost(const struct scenario *s, const struct engine_desc *e,
                           uint32_t attention_tp, struct plan_result *r)
{
    r->kv_dtype = r->cost.kv_dtype;
    if (e->cell_cost) /* the engine stores a layer its own way (llama.cpp: cells of every head) */
        e->cell_cost(s, &r->cost);
    specdec_compute(s, attention_tp, r);
    /* the state's precisions, each engine's own (the generic rule and vLLM
     * keep vLLM's "auto": conv state in the model's precision, the recurrent
     * state as the config asks) */
    if (r->cost.state_layers > 0 && e->state_conv != DTYPE_AUTO)
        kvcost_state_dtypes(&r->cost, e->state_conv, e->state_ssm);
}

/* the scenario the rows are run on */
static void plan_lookahead(const struct scenario *s, const struct engine_desc *e,
                           struct plan_result *r, struct scenario *run)
{
    /* speculative decoding: each user holds its speculative tokens too (vLLM
     * v1/core/sched/scheduler.py, allocate_slots with num_lookahead_tokens),
     * unless the engine's slots have fixed cells (llama.cpp) */
    *run = *s;
    if (r->spec.method != SPEC_NONE && e->spec_lookahead) {
        run->context_tokens += r->spec.tokens;
        if (run->avg_context_tokens)
            run->avg_context_tokens += r->spec.tokens;
        r->avg_context_tokens += r->spec.tokens;
    }
}

/* the explanation's rows and the engine's budget; s is the scenario, c->s the run */
static void plan_rows(struct policy_ctx *c, const struct scenario *s,
                      const struct engine_desc *e, uint32_t attention_tp, uint32_t lora_layers)
{
    struct plan_result *r = c->r;
    if (s->max_loras)
        lora_compute(s, attention_tp, r->tp, lora_layers, r->cost.kv_heads_per_gpu,
                     &r->lora);
    images_context_row(c);
    if (!e->own_cost_rows)
        cost_rows(c); /* else the budget writes its own (llama.cpp: cells of every head) */
    policy_state_rows(c, attention_tp);
    weights_row(c);
    specdec_tokens_row(c, s->context_tokens);
    lora_rows(c);
    e->budget(c);
    if (c->x && e->launch)
        e->launch(c);
    if (c->x && e->log)
        e->log(c);
    if (s->dp_attention)
        dp_attention_rows(c);
}

/* the replicas' totals, the money and speed, and the host tier */
static void plan_totals(struct policy_ctx *c)
{
    const struct scenario *s = c->s;
    struct plan_result *r = c->r;
    r->avg_context_tokens = scenario_avg_tokens(s);
    r->max_users = kv_sat_mul(r->users_per_replica, r->replicas);
    r->max_users_paged = kv_sat_mul(r->users_paged_per_replica, r->replicas);
    r->kv_tokens = kv_sat_mul(r->kv_tokens_per_replica, r->replicas);
    r->kv_pool_bytes = kv_sat_mul(r->kv_pool_bytes_per_gpu, r->gpus);
    r->spare_bytes_per_gpu = r->kv_pool_bytes_per_gpu > r->kv_used_bytes_per_gpu
                                 ? r->kv_pool_bytes_per_gpu - r->kv_used_bytes_per_gpu
                                 : 0;
    total_row(c, "users", "users_replica", "Users", XU_COUNT);
    total_row(c, "users_paged", "users_paged_replica", "Users, paged", XU_COUNT);
    total_row(c, "kv_tokens", "kv_tokens_replica", "Tokens held", XU_TOKENS);
    money_and_speed(c);
    host_tier_compute(c);
}

/* the generic rule's figures beside an engine's */
static void plan_generic(const struct scenario *s, const char *const names[SF_COUNT],
                         struct plan_result *r)
{
    /* the headroom rule on the same GPUs, model and context: the engine's
     * own flags and layouts are not its (they would be refused) */
    struct scenario g = *s;
    memset(&g.engine, 0, sizeof g.engine);
    g.engine.kind = ENGINE_GENERIC;
    g.engine.rule = RULE_CURRENT;
    g.dp_attention = g.expert_parallel = false;
    struct plan_result gr;
    struct diag ignore = {0};
    if (plan_compute(&g, PLAN_NUMBERS, names, &gr, &ignore)) {
        r->generic.present = true;
        r->generic.headroom_percent = s->headroom_percent;
        r->generic.max_users = gr.max_users;
        r->generic.max_users_paged = gr.max_users_paged;
        r->generic.kv_tokens = gr.kv_tokens;
        r->generic.kv_pool_bytes = gr.kv_pool_bytes;
    }
}

bool plan_compute(const struct scenario *s, struct explain *x, const char *const names[SF_COUNT],
                  struct plan_result *r, struct diag *d)
{
    memset(r, 0, sizeof *r);
    if (!scenario_validate(s, names, NULL, d))
        return false;
    struct scenario with_images; /* image tokens join the context (core/images.h) */
    images_apply(s, &with_images, r);
    s = &with_images;
    const struct engine_desc *e = engine_desc(s->engine.kind);
    plan_layout(s, e, names, r);
    struct scenario costed;
    plan_costed(s, e, r, &costed);
    /* DP attention: no rank splits the heads; each holds its own requests (and
     * an engine that splits layers splits no heads) */
    uint32_t attention_tp = e->splits_layers || s->dp_attention ? 1 : r->tp;
    if (r->weights_bytes == UINT64_MAX || !kvcost_compute(&costed, attention_tp, &r->cost) ||
        kvcost_bytes(&r->cost, s->context_tokens, s->context_tokens) == UINT64_MAX) {
        memset(r, 0, sizeof *r);
        return diag_fail(d, "the scenario's byte counts exceed 64 bits; reduce %s or %s",
                         (names ? names : scenario_option_names)[SF_CONTEXT],
                         (names ? names : scenario_option_names)[SF_GPUS]);
    }
    plan_cell_cost(s, e, attention_tp, r);
    /* x is first written here, past every refusal; its rows are not
     * cleared: each row is written whole when it is used */
    if (x) {
        x->count = 0;
        x->units = s->units;
    }
    struct scenario run;
    plan_lookahead(s, e, r, &run);
    struct policy_ctx c = {&run, r, x};
    plan_rows(&c, s, e, attention_tp, costed.model.layers);
    c.s = s;
    plan_totals(&c);
    warnings(s, r);
    if (e->server && x)
        plan_generic(s, names, r);
    return true;
}
