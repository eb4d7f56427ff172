/* plan: the stages in their order (plan_compute; along the context,
 * plan_prepare and plan_at_context), and the rows of the totals over the
 * replicas (the per-token cost's and LoRA's: plan_rows.c). */
#include "plan.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "calibration_origin.h"
#include "policy.h"

/* The replica rows become the answer, or are multiplied by the replicas. */
static void total_row(const struct placement *l, struct explain *x, const char *key,
                      const char *replica_key, const char *label, enum xunit unit)
{
    if (l->replicas == 1) {
        explain_rename(x, replica_key, key);
        return;
    }
    struct explain_row *row = explain_row_begin(x, key, label, "all replicas");
    explain_ref(x, row, replica_key, "per replica");
    explain_term(row, l->replicas, XU_COUNT, "replicas");
    explain_op(row, XOP_MUL);
    explain_row_end(x, row, unit, 0, NULL);
}

/* DP attention: the rule's per-replica figures count one rank's requests;
 * the replica serves every rank's. */
static void dp_attention_ranks(const struct placement *l, struct plan_budget *b, struct explain *x)
{
    static const struct {
        const char *key, *rank, *label;
        enum xunit unit;
    } rows[] = {{"users_replica", "users_rank", "Users", XU_COUNT},
                {"users_paged_replica", "users_paged_rank", "Users, paged", XU_COUNT},
                {"kv_tokens_replica", "kv_tokens_rank", "Tokens held", XU_TOKENS}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        explain_rename(x, rows[i].key, rows[i].rank);
        struct explain_row *row = explain_row_begin(x, rows[i].key, rows[i].label, "per replica");
        explain_ref(x, row, rows[i].rank, "per rank");
        explain_term(row, l->tp, XU_COUNT, "attention ranks");
        explain_op(row, XOP_MUL);
        explain_row_end(x, row, rows[i].unit, 0, "each rank holds its own requests");
    }
    b->users_per_replica = kv_sat_mul(b->users_per_replica, l->tp);
    b->users_fit_per_replica = kv_sat_mul(b->users_fit_per_replica, l->tp);
    b->users_paged_per_replica = kv_sat_mul(b->users_paged_per_replica, l->tp);
    b->counted_users_per_replica = kv_sat_mul(b->counted_users_per_replica, l->tp);
    b->kv_tokens_per_replica = kv_sat_mul(b->kv_tokens_per_replica, l->tp);
}

/* every replica: the budget's replica times the replicas */
static void totals_compute(const struct placement *l, const struct plan_budget *b,
                           struct plan_totals *out, struct explain *x)
{
    out->max_users = kv_sat_mul(b->users_per_replica, l->replicas);
    out->max_users_paged = kv_sat_mul(b->users_paged_per_replica, l->replicas);
    out->kv_tokens = kv_sat_mul(b->kv_tokens_per_replica, l->replicas);
    out->kv_pool_bytes = kv_sat_mul(b->kv_pool_bytes_per_gpu, l->gpus);
    out->spare_bytes_per_gpu = b->kv_pool_bytes_per_gpu > b->kv_used_bytes_per_gpu
                                   ? b->kv_pool_bytes_per_gpu - b->kv_used_bytes_per_gpu
                                   : 0;
    if (x == NULL) /* the rows below only */
        return;
    total_row(l, x, "users", "users_replica", "Users", XU_COUNT);
    total_row(l, x, "users_paged", "users_paged_replica", "Users, paged", XU_COUNT);
    total_row(l, x, "kv_tokens", "kv_tokens_replica", "Tokens held", XU_TOKENS);
}

/* an engine that sizes every layer for the whole context (SGLang,
 * TensorRT-LLM, vLLM V0) saves nothing by sliding windows */
static bool windows_sized_whole(const struct scenario *s, const struct engine_desc *e)
{
    return e->windows_full && e->windows_full(s) && s->model.windowed_layers > 0 &&
           !s->full_attention;
}

/* The warnings of the stages a context leaves as they are (plan_fixed):
 * the split of the heads, the precisions, the engine's support, the speed
 * model's limits, the draft. */
static uint32_t fixed_warnings(const struct scenario *s, const struct plan_result *r)
{
    uint32_t w = 0;
    const struct model_spec *m = &s->model;
    const struct kv_cost *k = &r->cost;
    const struct engine_desc *e = engine_desc(s->engine.kind);
    uint32_t tp = k->tp; /* 1 when the engine splits layers, never heads */
    if (k->mla && tp > 1)
        w |= WARN_MLA_REPLICATED;
    if (!k->mla && tp > k->kv_heads)
        w |= WARN_KV_HEADS_REPLICATED;
    if (!scenario_heads_split(m, k->kv_heads, k->mla, tp))
        w |= WARN_HEADS_UNEVEN_SPLIT;
    if (s->gpu.bandwidth_bytes_per_s == 0)
        w |= WARN_BANDWIDTH_UNKNOWN;
    if (r->kv_dtype == DTYPE_FP8 && !s->gpu.fp8)
        w |= WARN_FP8_UNSUPPORTED;
    enum dtype v = s->engine.v_dtype;
    if (!engine_supports(s->engine.kind, r->kv_dtype) ||
        (e->v_dtype && v != DTYPE_AUTO && !engine_supports(s->engine.kind, v)))
        w |= WARN_ENGINE_DTYPE;
    /* an engine that loads only its own formats (llama.cpp: GGUF) converts an
     * fp8 or fp4 checkpoint first */
    if (!engine_loads(s->engine.kind, r->weight_dtype))
        w |= WARN_ENGINE_WEIGHTS;
    if (e->state_per_user && k->state_layers > 0)
        w |= WARN_STATE_GENERIC;
    /* doc/SPEED-FIT.md: DeepSeek-R1 (256 experts) needs the fitted MoE kernel
     * time and stays within 20% in most, not all, 2026 cases; Mixtral (8
     * experts) needs none. */
    if (m->experts > SPEED_MOE_FINE_EXPERTS && s->gpu.bandwidth_bytes_per_s > 0)
        w |= WARN_SPEED_MOE;
    if (r->tp > spec_gpu_domain(&s->gpu) && !e->splits_layers) /* no TP in a layer split */
        w |= WARN_TP_ACROSS_NODES;
    if (s->spec_method == SPEC_DRAFT && s->draft.vocab_size && m->vocab_size &&
        s->draft.vocab_size != m->vocab_size)
        w |= WARN_DRAFT_VOCAB;
    /* a draft pays when it is much cheaper than the model: the planner offers
     * drafts of at most a quarter of its parameters */
    if (s->spec_method == SPEC_DRAFT && m->params && s->draft.params > m->params / 4)
        w |= WARN_DRAFT_SIZE;
    if (!engine_runs_on(s->engine.kind, s->gpu.vendor))
        w |= WARN_ENGINE_HARDWARE;
    if (windows_sized_whole(s, e))
        w |= WARN_WINDOWS_UNUSED;
    if (s->calibration_note[0] || calibration_origin_mismatch(s, NULL, 0) > 0)
        w |= WARN_CALIBRATION;
    return w;
}

/* The calibration's warning for the scenario as it is (its origin against
 * it), with what was done to its memory on another GPU after it. */
static void calibration_note(const struct scenario *s, struct plan_result *r)
{
    char *buf = r->calibration_note;
    size_t size = sizeof r->calibration_note;
    memset(buf, 0, size);
    bool other = calibration_origin_mismatch(s, buf, size) > 0;
    size_t at = strlen(buf);
    if (s->calibration_note[0] && (other || !s->calibration_from.present) && at + 3 < size)
        snprintf(buf + at, size - at, "%s%s", at ? "; " : "", s->calibration_note);
}

/* A calibrated band carried to users or prompts its fit's points were not
 * measured at (a first token fitted at 1 user, planned at 46, is off by far
 * more than the fit's own spread): that figure takes the public cases' band,
 * as on another GPU, and the warning says why. True when one did. */
static bool calibration_shape(const struct scenario *s, struct plan_result *r)
{
    struct speed_band *bands[2] = {&r->bands.decode, &r->bands.ttft};
    bool any = false;
    static struct scenario wide;
    static struct speed_bands public_bands;
    bool looked = false;
    for (int k = 0; k < 2; k++) {
        struct speed_band *b = bands[k];
        char why[320];
        if (b->basis != SPEEDBAND_CALIBRATED || b->elsewhere || b->replaced ||
            !calibration_origin_shape_outside(s, k, r->speed.concurrency_per_replica,
                                              r->speed.prompt_tokens, why, sizeof why))
            continue;
        if (!looked) {
            wide = *s;
            wide.calibration_from.shape_elsewhere = true;
            speedband_lookup(&wide, &public_bands);
            looked = true;
        }
        *b = k ? public_bands.ttft : public_bands.decode;
        char *buf = r->calibration_note;
        size_t at = strlen(buf), size = sizeof r->calibration_note;
        if (at + 3 < size)
            snprintf(buf + at, size - at, "%s%s", at ? "; " : "", why);
        any = true;
    }
    return any;
}

/* more than one sequence decoding a step on a family where the engine's
 * batched decode was measured far off the bandwidth model */
static bool batched_unvalidated(const struct scenario *s, const struct plan_result *r)
{
    const char *fam = engine_desc(s->engine.kind)->batched_decode_unvalidated_family;
    return fam && s->gpu.bandwidth_bytes_per_s > 0 && strcmp(fam, s->gpu.family) == 0 &&
           r->speed.concurrency_per_replica > 1;
}

/* The warnings of the stages the context changes, the rule's among them. */
static uint32_t varied_warnings(const struct scenario *s, const struct plan_result *r)
{
    uint32_t w = r->rule_warnings;
    const struct offload_split *o = &r->engine.offload;
    if (!r->fits && r->engine.offload_tried.placed) /* llama.cpp: no split fits */
        w |= WARN_NO_SPLIT_FITS;
    else if (!r->weights_fit)
        w |= WARN_WEIGHTS_DO_NOT_FIT;
    else if (!r->fits && o->active && !o->host_fits) /* the host, not the GPU, is short */
        w |= WARN_HOST_DOES_NOT_FIT;
    else if (!r->fits)
        w |= WARN_KV_DOES_NOT_FIT;
    else if (r->max_users == 0)
        w |= WARN_NO_USER_FITS;
    if (r->users_fit_per_replica > r->users_per_replica)
        w |= WARN_SCHEDULER_CAP;
    if (r->fits && r->kv_pool_bytes_per_gpu < r->prefix_bytes_per_gpu)
        w |= WARN_PREFIX_DOES_NOT_FIT;
    if (r->price_usd_per_hour < 0)
        w |= WARN_PRICE_UNKNOWN;
    if (s->context_tokens > s->model.max_context_tokens)
        w |= WARN_CONTEXT_BEYOND_MODEL;
    /* the speed is then of a batch that memory cannot hold */
    if (s->concurrency > r->max_users && r->fits)
        w |= WARN_CONCURRENCY_BEYOND_FIT;
    if (r->host.below_device)
        w |= WARN_HOST_TOO_SMALL;
    if (batched_unvalidated(s, r))
        w |= WARN_SPEED_BATCHED;
    if (r->wired.suggest_mb)
        w |= WARN_WIRED_LIMIT;
    if (r->speed.level_missed || r->speed.level_forced_missed)
        w |= WARN_SERVICE_LEVEL_MISSED;
    return w;
}

/* the scenario the cache is costed on: the layers a GPU holds */
static void plan_costed(const struct scenario *s, const struct engine_desc *e,
                        struct scenario *costed)
{
    *costed = *s;
    if (windows_sized_whole(s, e))
        costed->full_attention = true;
    /* pipeline stages: a GPU holds the fullest stage's layers, windowed ones
     * in proportion */
    uint32_t pp = scenario_pp(s);
    if (pp > 1) {
        uint32_t stage = (uint32_t)kv_ceil_div(s->model.layers, pp);
        uint32_t w = (uint32_t)kv_ceil_div(s->model.windowed_layers, pp);
        costed->model.layers = stage;
        costed->model.windowed_layers = w < stage ? w : stage;
        if (kvcost_has_compressed(&s->model)) { /* DeepSeek V4: each kind in proportion */
            uint32_t csa = (uint32_t)kv_ceil_div(s->model.csa_layers, pp);
            uint32_t hca = (uint32_t)kv_ceil_div(s->model.hca_layers, pp);
            costed->model.csa_layers = csa < stage ? csa : stage;
            costed->model.hca_layers = hca < stage - costed->model.csa_layers
                                           ? hca
                                           : stage - costed->model.csa_layers;
        }
        if (s->model.state_layers > 0) {
            /* the fullest stage of each kind: its attention and its state layers */
            uint32_t kv = (uint32_t)kv_ceil_div(spec_kv_layers(&s->model), pp);
            costed->model.state_layers = (uint32_t)kv_ceil_div(s->model.state_layers, pp);
            costed->model.plain_layers = 0;
            costed->model.layers = s->model.state_parallel ? kv : kv + costed->model.state_layers;
        }
    }
}

/* The per-token cost of the model on one GPU: kvcost on the layers a GPU
 * holds, at the attention's TP (1 under DP attention, and for an engine that
 * splits layers), kept in *plain, then the engine's own cells and state
 * precisions. False when a product passes 64 bits. */
static bool plan_cost(const struct scenario *s, const struct engine_desc *e,
                      const struct scenario *costed, struct kv_cost *k, struct kv_cost *plain)
{
    uint32_t attention_tp = e->splits_layers || s->dp_attention ? 1 : scenario_tp(s);
    if (!kvcost_compute(costed, attention_tp, k))
        return false;
    *plain = *k;
    if (e->cell_cost) /* the engine stores a layer its own way (llama.cpp: cells of every head) */
        e->cell_cost(s, k);
    /* the state's precisions, each engine's own (the generic rule and vLLM
     * keep vLLM's "auto": conv state in the model's precision, the recurrent
     * state as the config asks) */
    if (k->state_layers > 0 && e->state_conv != DTYPE_AUTO)
        kvcost_state_dtypes(k, e->state_conv, e->state_ssm);
    return true;
}

/* A user's bytes at the context, by kvcost's own cost of a token (plain),
 * pass 64 bits. */
static bool context_overflows(const struct kv_cost *plain, const struct scenario *s)
{
    return kvcost_bytes(plain, s->context_tokens, s->context_tokens) == UINT64_MAX;
}

/* The stages a context leaves as they are, on s (its images' tokens in its
 * context): the cost of a token, the draft's weights and KV, the placement
 * (the context it holds aside: placement_context), LoRA's slots, the speed
 * bands of the GPU and engine. False when a figure passes 64 bits. */
static bool plan_fixed(const struct scenario *s, const struct engine_desc *e, struct plan_result *r,
                       struct kv_cost *plain)
{
    /* the per-token cost, then the draft's weights and KV, then the cost with them */
    struct scenario costed;
    plan_costed(s, e, &costed);
    if (!plan_cost(s, e, &costed, &r->cost, plain))
        return false;
    specdec_compute(s, &r->cost, &r->spec);
    kvcost_add_draft(&r->cost, r->spec.kv_bytes_per_token);
    /* the layout and the weights each GPU holds, the draft's included */
    placement_compute(s, &r->spec, &r->placement);
    calibration_note(s, r);
    if (r->weights_bytes == UINT64_MAX)
        return false;
    /* LoRA's slots */
    if (s->max_loras)
        lora_compute(s, r->cost.tp, r->tp, costed.model.layers, r->cost.kv_heads_per_gpu, &r->lora);
    /* the measured spread of the speed's figures: the bands of the GPU and engine */
    speedband_lookup(s, &r->bands);
    return true;
}

/* The context of the run, the scenario the budget runs on (otherwise s):
 * speculative decoding's tokens in each user's context (vLLM
 * v1/core/sched/scheduler.py, allocate_slots with num_lookahead_tokens),
 * unless the engine's slots have fixed cells (llama.cpp) */
static void lookahead_context(const struct scenario *s, const struct engine_desc *e,
                              const struct spec_result *spec, struct scenario *run)
{
    uint64_t ahead = spec->method != SPEC_NONE && e->spec_lookahead ? spec->tokens : 0;
    run->context_tokens = s->context_tokens + ahead;
    run->prefix_tokens = s->prefix_tokens;
    run->avg_context_tokens = s->avg_context_tokens ? s->avg_context_tokens + ahead : 0;
}

/* The rows of the stages before the budget, in the order they are read:
 * the context, the cost of a token (unless the engine writes its own), the
 * state, the weights, the speculative tokens, LoRA. Only rows. */
static void earlier_rows(const struct policy_ctx *c, const struct engine_desc *e, uint64_t context)
{
    images_context_row(c);
    if (!e->own_cost_rows)
        plan_cost_rows(c); /* else the budget writes its own (llama.cpp: cells of every head) */
    policy_state_rows(c, c->k->tp);
    placement_weights_row(c);
    specdec_tokens_row(c, context);
    plan_lora_rows(c);
}

/* The budget stage: the engine's rule, then, when explaining, its launch
 * line and log, then under DP attention every rank's users. Writes c->b. */
static void plan_budget(const struct policy_ctx *c, const struct engine_desc *e)
{
    e->budget(c);
    if (c->x && e->launch)
        e->launch(c);
    if (c->x && e->log)
        e->log(c);
    if (c->l->dp_attention)
        dp_attention_ranks(c->l, c->b, c->x);
}

/* the generic rule's figures beside an engine's */
static void plan_generic(const struct scenario *s, const char *const names[SF_COUNT],
                         struct generic_figures *out)
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
        out->present = true;
        out->headroom_percent = s->headroom_percent;
        out->max_users = gr.max_users;
        out->max_users_paged = gr.max_users_paged;
        out->kv_tokens = gr.kv_tokens;
        out->kv_pool_bytes = gr.kv_pool_bytes;
    }
}

struct speed_basis plan_speed_basis(const struct plan_result *r)
{
    return (struct speed_basis){&r->placement, &r->cost, &r->spec, &r->budget, &r->totals};
}

static bool refuse(const char *const names[SF_COUNT], struct diag *d)
{
    const char *const *n = names ? names : scenario_option_names;
    return diag_fail(d, "the scenario's byte counts exceed 64 bits; reduce %s or %s", n[SF_CONTEXT],
                     n[SF_GPUS]);
}

/* The stages the context changes, on s (its images' tokens in its context)
 * and the run (its lookahead too), past every refusal: the earlier stages'
 * rows, the budget, every replica, the speed at the service level and its
 * measured spread, its price, the host tier, the warnings (those of the
 * fixed stages given). */
static void plan_varied(const struct scenario *s, const struct scenario *run,
                        const struct engine_desc *e, struct plan_result *r, struct explain *x,
                        uint32_t fixed)
{
    struct policy_ctx c = {.s = run,
                           .l = &r->placement,
                           .k = &r->cost,
                           .spec = &r->spec,
                           .lora = &r->lora,
                           .img = &r->image_counts,
                           .b = &r->budget,
                           .x = x};
    if (x)
        earlier_rows(&c, e, s->context_tokens);
    plan_budget(&c, e);
    totals_compute(&r->placement, &r->budget, &r->totals, x);
    struct speed_basis basis = plan_speed_basis(r);
    speed_compute(s, &basis, &r->speed, x);
    r->decode_step_bytes_per_gpu = r->speed.step_bytes_per_gpu;
    r->decode_tokens_per_s_per_user = r->speed.tokens_per_s_per_user;
    bool shape = calibration_shape(s, r);
    speedband_figures(&r->speed, &r->bands); /* the spread the measurements saw */
    price_compute(s, &r->placement, &r->totals, &r->speed, &r->price, x);
    host_tier_compute(s, &basis, &r->host, x);
    wired_compute(s, r);
    r->warnings = fixed | varied_warnings(s, r) | (shape ? WARN_CALIBRATION : 0);
}

/* The stages in order: each reads the scenario and the results of the
 * stages above it, and writes its own member of r. */
bool plan_compute(const struct scenario *s, struct explain *x, const char *const names[SF_COUNT],
                  struct plan_result *r, struct diag *d)
{
    memset(r, 0, sizeof *r);
    if (!scenario_validate(s, names, NULL, d))
        return false;
    r->names = names ? names : scenario_option_names;
    /* the images: their tokens join the context of the scenario the rest reads */
    struct scenario with_images;
    images_apply(s, &with_images, &r->image_counts);
    s = &with_images;
    const struct engine_desc *e = engine_desc(s->engine.kind);
    struct kv_cost plain;
    if (!plan_fixed(s, e, r, &plain) || context_overflows(&plain, s)) {
        memset(r, 0, sizeof *r);
        return refuse(names, d);
    }
    /* x is first written here, past every refusal; its rows are not
     * cleared: each row is written whole when it is used */
    if (x) {
        x->count = 0;
        x->units = s->units;
    }
    /* the budget runs on the run: each user's context holds its speculative tokens */
    struct scenario run = *s;
    lookahead_context(s, e, &r->spec, &run);
    plan_varied(s, &run, e, r, x, fixed_warnings(s, r));
    /* the headroom rule beside an engine */
    if (e->server && x)
        plan_generic(s, names, &r->generic);
    return true;
}

void plan_prepare(const struct scenario *s, const char *const names[SF_COUNT], struct plan_base *b)
{
    struct plan_result *r = &b->r;
    memset(r, 0, sizeof *r);
    b->s = *s;
    b->names = names;
    struct diag ignore = {0};
    b->ready = scenario_validate_fixed(s, names, NULL, &ignore);
    if (!b->ready)
        return;
    r->names = names ? names : scenario_option_names;
    images_apply(s, &b->eff, &r->image_counts);
    const struct engine_desc *e = engine_desc(s->engine.kind);
    b->ready = plan_fixed(&b->eff, e, r, &b->plain);
    b->warnings = fixed_warnings(&b->eff, r);
    b->run = b->eff;
}

/* The budget's figures, every one a rule may leave unwritten (zero, as
 * plan_compute leaves them): all but the engine's texts, written only when
 * explaining (its launch and log). */
#define BUDGET_FIGURES (offsetof(struct plan_budget, engine) + offsetof(struct engine_detail, log_lines))

const struct plan_result *plan_at_context(struct plan_base *b, uint64_t context, uint64_t prefix,
                                          uint64_t avg, struct diag *d)
{
    struct plan_result *r = &b->r;
    b->s.context_tokens = context;
    b->s.prefix_tokens = prefix;
    b->s.avg_context_tokens = avg;
    if (!b->ready)
        return plan_compute(&b->s, PLAN_NUMBERS, b->names, r, d) ? r : NULL;
    if (!scenario_validate_context(&b->s, b->names, NULL, d))
        return NULL;
    const struct engine_desc *e = engine_desc(b->s.engine.kind);
    images_context(&b->s, &b->eff, &r->image_counts);
    if (context_overflows(&b->plain, &b->eff)) {
        refuse(b->names, d);
        return NULL;
    }
    placement_context(&b->eff, &r->placement);
    lookahead_context(&b->eff, e, &r->spec, &b->run);
    memset(&r->budget, 0, BUDGET_FIGURES);
    plan_varied(&b->eff, &b->run, e, r, PLAN_NUMBERS, b->warnings);
    return r;
}
