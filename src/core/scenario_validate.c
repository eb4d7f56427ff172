/* scenario_validate: whether a scenario is one an engine can run, each
 * refusal naming its field (the option's or the file's name). The
 * scenario's derived quantities are in scenario.c. */
#include "scenario.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engine_desc.h"
#include "kvcost.h"
#include "lora.h"
#include "optname.h"

/* "NAME: message", the field recorded. */
static bool fail(struct diag *d, const char *const *names, enum scenario_field f,
                 enum scenario_field *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static bool fail(struct diag *d, const char *const *names, enum scenario_field f,
                 enum scenario_field *field, const char *fmt, ...)
{
    char body[DIAG_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    if (field)
        *field = f;
    return diag_fail(d, "%s: %s", names[f], body);
}

typedef unsigned long long ull;

/* Traits the messages list engines by. */
static bool has_dp_attention(const struct engine_desc *e)
{
    return e->dp_attention;
}

static bool has_experts_over_dp(const struct engine_desc *e)
{
    return e->experts_over_dp && e->experts_over_dp(RULE_CURRENT);
}

static bool has_global_dims(const struct engine_desc *e)
{
    return e->global_dims;
}

static bool has_compressed(const struct engine_desc *e)
{
    return e->compressed && e->compressed(RULE_CURRENT);
}

static bool has_mtp(const struct engine_desc *e)
{
    return e->mtp;
}

static bool keeps_lora_slots(const struct engine_desc *e)
{
    return e->lora_none == NULL;
}

/* Speculative decoding: a draft model, or the model's MTP layers. */
static bool scenario_validate_spec(const struct scenario *s, const char *const *n,
                                   enum scenario_field *field, struct diag *d)
{
    if ((int)s->spec_method < 0 || s->spec_method > SPEC_MTP)
        return fail(d, n, SF_SPEC_METHOD, field, "unknown method");
    if (s->spec_method == SPEC_NONE) {
        if (s->spec_tokens)
            return fail(d, n, SF_SPEC_TOKENS, field, "needs %s or %s mtp", n[SF_DRAFT_MODEL],
                        n[SF_SPEC_METHOD]);
        return true;
    }
    if (s->spec_tokens > SPEC_TOKENS_MAX)
        return fail(d, n, SF_SPEC_TOKENS, field, "%u is out of range (1 to %d)", s->spec_tokens,
                    SPEC_TOKENS_MAX);
    if (s->spec_method == SPEC_MTP) {
        if (s->model.nextn_layers == 0 && kvcost_has_compressed(&s->model))
            return fail(d, n, SF_SPEC_METHOD, field, "mtp: %s's MTP layer (its config's "
                        "num_nextn_predict_layers) is a compressed-attention layer, whose "
                        "weights and cache kvplan has no rule for yet: plan it without the "
                        "draft", s->model.id);
        if (s->model.nextn_layers == 0)
            return fail(d, n, SF_SPEC_METHOD, field, "mtp: the preset of %s holds no MTP "
                        "layers (num_nextn_predict_layers 0: none in its config, or none "
                        "kvplan counts); give %s", s->model.id, n[SF_DRAFT_MODEL]);
        if (!engine_desc(s->engine.kind)->mtp) {
            char who[96];
            engine_list(has_mtp, (struct engine_list){true, " and ", true}, who, sizeof who);
            return fail(d, n, SF_SPEC_METHOD, field, "mtp: kvplan counts MTP drafting for %s only",
                        who);
        }
        return true;
    }
    struct diag inner = {0};
    const struct engine_desc *e = engine_desc(s->engine.kind);
    if (e->refuses_draft)
        return fail(d, n, SF_DRAFT_MODEL, field, "%s", e->refuses_draft);
    if (s->draft.layers == 0)
        return fail(d, n, SF_DRAFT_MODEL, field, "no draft model given");
    if (!spec_model_validate(&s->draft, &inner))
        return fail(d, n, SF_DRAFT_MODEL, field, "%s: %s", s->draft.id, inner.message);
    if (kvcost_has_compressed(&s->draft)) /* its layers counted at every token: not its cache */
        return fail(d, n, SF_DRAFT_MODEL, field, "%s: kvplan counts no draft with DeepSeek V4's "
                    "compressed attention", s->draft.id);
    return true;
}

/* The LoRA slots: in range, and only where they are modelled (core/lora.h). */
static bool lora_validate(const struct scenario *s, const char *const *n,
                          enum scenario_field *field, struct diag *d)
{
    const struct model_spec *m = &s->model;
    if (s->max_loras > LORA_SLOTS_MAX)
        return fail(d, n, SF_MAX_LORAS, field, "%u slots is out of range (1 to %d)", s->max_loras,
                    LORA_SLOTS_MAX);
    if (s->max_lora_rank > LORA_RANK_MAX)
        return fail(d, n, SF_MAX_LORA_RANK, field, "%u is out of range (1 to %d)",
                    s->max_lora_rank, LORA_RANK_MAX);
    if (s->lora_targets & ~(uint32_t)LORA_ALL)
        return fail(d, n, SF_LORA_TARGETS, field, "unknown module");
    if (s->max_loras == 0)
        return true;
    /* an engine without slots: its adapters are files loaded whole (llama.cpp),
     * or kept in a cache kvplan does not model (TensorRT-LLM) */
    const struct engine_desc *e = engine_desc(s->engine.kind);
    if (e->lora_none && e->lora_in_weights)
        return fail(d, n, SF_MAX_LORAS, field, "%s %s (add the files' size to %s)", e->title,
                    e->lora_none, n[SF_WEIGHTS]);
    if (e->lora_none) {
        char who[96];
        engine_list(keeps_lora_slots, (struct engine_list){false, " or ", false}, who, sizeof who);
        return fail(d, n, SF_MAX_LORAS, field, "%s %s (--engine %s)", e->title, e->lora_none, who);
    }
    if (m->attention == ATTENTION_MLA)
        return fail(d, n, SF_MAX_LORAS, field, "%s has MLA attention: LoRA on its low-rank "
                    "projections is not modelled", m->name);
    if (m->state_layers > 0)
        return fail(d, n, SF_MAX_LORAS, field, "%s has state-space layers: LoRA on their "
                    "projections is not modelled", m->name);
    if (kvcost_has_compressed(m))
        return fail(d, n, SF_MAX_LORAS, field, "%s has compressed attention: LoRA on its "
                    "low-rank and grouped projections is not modelled", m->name);
    uint32_t t = s->lora_targets ? s->lora_targets : (uint32_t)LORA_ALL;
    if (m->experts > 0 && s->lora_targets && (t & LORA_MLP))
        return fail(d, n, SF_LORA_TARGETS, field, "the MLP of %s is MoE experts: LoRA on experts "
                    "is not modelled (adapt q_proj,k_proj,v_proj,o_proj)", m->name);
    if (m->experts == 0 && m->intermediate_size == 0 && (t & LORA_MLP))
        return fail(d, n, SF_LORA_TARGETS, field, "%s gives no intermediate_size: adapt "
                    "attention only (q_proj,k_proj,v_proj,o_proj)", m->name);
    return true;
}

/* Whole experts over a replica's TP ranks (an engine's experts_over_tp,
 * SGLang's --ep-size TP): more than one rank, and as SGLang's FusedMoE takes
 * them (layers/moe/fused_moe_triton/layer.py, FusedMoE.__init__: assert
 * num_experts % moe_ep_size == 0), the routed experts a multiple of them. */
static bool experts_over_tp_validate(const struct scenario *s, const char *const *n,
                                     enum scenario_field *field, struct diag *d)
{
    const struct engine_desc *e = engine_desc(s->engine.kind);
    if (!s->expert_parallel || !e->experts_over_tp)
        return true;
    uint32_t tp = scenario_tp(s), experts = s->model.experts;
    if (tp < 2)
        return fail(d, n, SF_EXPERT_PARALLEL, field, "%s places whole experts on each TP rank: "
                    "it needs %s above 1", e->title, n[SF_TP]);
    if (experts && experts % tp != 0)
        return fail(d, n, SF_EXPERT_PARALLEL, field, "%s wants the %u routed experts of %s a "
                    "multiple of the expert-parallel size, TP %u", e->title, experts,
                    s->model.id, tp);
    return true;
}

/* A replica past a node where the engine spreads it evenly over its nodes
 * (vLLM, SGLang): as many whole stages on each, or it does not run. */
static bool nodes_validate(const struct scenario *s, const char *const *n,
                           enum scenario_field *field, struct diag *d)
{
    const struct engine_desc *e = engine_desc(s->engine.kind);
    uint32_t tp = scenario_tp(s), node = spec_gpu_domain(&s->gpu), per = tp * s->pp;
    if (s->pp <= 1 || !e->refuses_uneven_nodes || scenario_layout_spans(s, tp, s->pp))
        return true;
    uint32_t span = (per + node - 1) / node;
    if (per % span == 0)
        return fail(d, n, SF_PP, field, "%s spreads a replica over its nodes evenly (%s): TP %u "
                    "x PP %u puts %u GPUs on each of its %u nodes, a TP group split between two",
                    e->title, e->refuses_uneven_nodes, tp, s->pp, per / span, span);
    return fail(d, n, SF_PP, field, "%s spreads a replica over its nodes evenly (%s): TP %u x "
                "PP %u would put %u and %u GPUs on its %u nodes of %u", e->title,
                e->refuses_uneven_nodes, tp, s->pp, node, per - (span - 1) * node, span, node);
}

/* The layouts an engine may not take: pipeline stages where it splits
 * layers already, DP attention and expert parallel where it has no such
 * option. */
static bool layout_validate(const struct scenario *s, const char *const *n,
                            enum scenario_field *field, struct diag *d)
{
    const struct engine_desc *e = engine_desc(s->engine.kind);
    if (s->tp != 0 && (s->tp > 1 || s->gpus > 1) && e->refuses_tp)
        return fail(d, n, SF_TP, field, "%s", e->refuses_tp);
    enum scenario_field at = SF_ENGINE;
    const char *why = e->refuses_model ? e->refuses_model(s, &at) : NULL;
    if (why)
        return fail(d, n, at, field, "%s: %s", s->model.id, why);
    uint32_t tp = scenario_tp(s), kv = s->kv_heads ? s->kv_heads : s->model.kv_heads;
    bool even = e->kv_heads_rounded_up ? s->model.attention_heads % tp == 0
                                       : scenario_tp_even(s, tp);
    if (e->refuses_uneven_tp && !s->dp_attention && !even) {
        /* MLA caches one latent a token, no KV heads to split: the query heads are */
        bool mla = s->model.attention == ATTENTION_MLA;
        char heads[48];
        snprintf(heads, sizeof heads, mla ? "MLA: one latent, no KV heads" : "%u KV heads", kv);
        return fail(d, n, s->tp ? SF_TP : SF_GPUS, field, "tensor parallel %u does not split the "
                    "%u attention heads of %s evenly (%s): %s refuses it (%s)%s",
                    tp, s->model.attention_heads, s->model.id, heads, e->title,
                    mla && e->refuses_uneven_tp_mla ? e->refuses_uneven_tp_mla
                                                    : e->refuses_uneven_tp,
                    e->kv_heads_rounded_up ? "; the KV heads it rounds up on each rank" : "");
    }
    if (s->pp > 1 && e->splits_layers)
        return fail(d, n, SF_PP, field, "%s already splits layers across its GPUs; give "
                    "them with %s instead", e->title, n[e->refuses_tp ? SF_GPUS : SF_TP]);
    if (!nodes_validate(s, n, field, d))
        return false;
    const struct engine_desc *owner = engine_find(has_dp_attention);
    if (s->dp_attention && !e->dp_attention)
        return fail(d, n, SF_DP_ATTENTION, field, "is %s option (--engine %s)",
                    owner ? owner->title_a : "an engine's", owner ? owner->name : "?");
    if (s->dp_attention && scenario_tp(s) < 2)
        return fail(d, n, SF_DP_ATTENTION, field, "spreads requests over the TP ranks: it needs "
                    "%s above 1", n[SF_TP]);
    owner = engine_find(has_experts_over_dp);
    if (s->expert_parallel && !engine_expert_parallel(e, s->engine.rule))
        return fail(d, n, SF_EXPERT_PARALLEL, field, "is an option of %s (--engine %s)",
                    owner ? owner->experts_owner : "an engine", owner ? owner->name : "?");
    if (!e->global_dims && kvcost_has_global_dims(&s->model)) {
        char who[96];
        engine_list(has_global_dims, (struct engine_list){true, " and ", true}, who, sizeof who);
        return fail(d, n, SF_ENGINE, field, "%s: kvplan has no %s rule for global layers with "
                    "KV heads and a head_dim of their own%s; it counts them for %s",
                    s->model.id, e->title, s->model.global_k_eq_v ? " (K=V)" : "", who);
    }
    if (has_compressed(e) && !e->compressed(s->engine.rule) && kvcost_has_compressed(&s->model))
        return fail(d, n, SF_ENGINE, field, "%s: %s predates DeepSeek V4's compressed "
                    "attention (--engine %s)", s->model.id, engine_label(e->kind, s->engine.rule),
                    e->name);
    if (has_compressed(e) && e->compressed_from && s->engine.release_asked[0] &&
        kvcost_has_compressed(&s->model) &&
        engine_release_before(s->engine.release_asked, e->compressed_from))
        return fail(d, n, SF_ENGINE, field, "%s: %s %s %s DeepSeek V4, which it serves "
                    "from %s: take --engine %s@%s or later", s->model.id, e->title,
                    s->engine.release_asked,
                    strstr(s->engine.release_asked, ".x") ? "holds releases before"
                                                          : "predates",
                    e->compressed_from, e->name, e->compressed_from);
    /* the model's own first release under this engine (its preset's served_from):
     * a release asked for before it, or a rule all of whose releases are */
    const struct model_served *v = s->model.served;
    for (int i = 0; i < SPEC_SERVED_MAX && v && v->engine[i][0]; i++) {
        const char *first = v->first[i];
        if (strcmp(v->engine[i], e->name) != 0)
            continue;
        /* looked up only here: validation runs for every point the planner draws */
        const char *until = s->engine.release_asked[0] ? NULL : engine_rule_until(e, s->engine.rule);
        if (!s->engine.release_asked[0] && until && !engine_release_before(first, until))
            return fail(d, n, SF_ENGINE, field, "%s: %s's releases (before %s) predate it, "
                        "which %s serves from %s (kvplan show model %s cites where): take "
                        "--engine %s@%s or later", s->model.id,
                        engine_label(e->kind, s->engine.rule), until, e->title, first,
                        s->model.id, e->name, first);
        if (s->engine.release_asked[0] && engine_release_before(s->engine.release_asked, first))
            return fail(d, n, SF_ENGINE, field, "%s: %s %s %s it, which it serves from %s "
                        "(kvplan show model %s cites where): take --engine %s@%s or later",
                        s->model.id, e->title, s->engine.release_asked,
                        strstr(s->engine.release_asked, ".x") ? "holds releases before"
                                                              : "predates",
                        v->first[i], s->model.id, e->name, v->first[i]);
    }
    if (!has_compressed(e) && kvcost_has_compressed(&s->model)) {
        char who[96];
        engine_list(has_compressed, (struct engine_list){true, " and ", true}, who, sizeof who);
        return fail(d, n, SF_ENGINE, field, "%s: kvplan has no %s rule for DeepSeek V4's "
                    "compressed attention (CSA and HCA layers, the indexer, the window); it "
                    "counts it for %s", s->model.id, e->title, who);
    }
    if (s->expert_parallel && s->model.expert_params == 0)
        return fail(d, n, SF_EXPERT_PARALLEL, field, "%s has no MoE experts to spread",
                    s->model.id);
    return experts_over_tp_validate(s, n, field, d);
}

/* An engine's option given to another would be ignored without a word: an
 * option of one engine is named before one several engines share; then the
 * bounds of the knobs (core/engine_desc.h). */
static bool knobs_validate(const struct scenario *s, const char *const *n,
                           enum scenario_field *field, struct diag *d)
{
    const struct engine_flags *f = &s->engine;
    if ((int)f->kind < 0 || f->kind >= ENGINE_COUNT)
        return fail(d, n, SF_ENGINE, field, "unknown engine");
    const struct engine_desc *e = engine_desc(f->kind);
    size_t count;
    const struct engine_option *opt = engine_options(&count);
    for (int shared = 0; shared < 2; shared++)
        for (size_t i = 0; i < count; i++) {
            const struct engine_option *o = &opt[i];
            if (!o->refused || (o->refusal != NULL) != shared || !engine_option_given(f, o) ||
                engine_knob(e, o->offset))
                continue;
            char why[160];
            engine_refusal(e, o, why, sizeof why);
            return fail(d, n, o->field, field, "%s", why);
        }
    for (size_t i = 0; i < count; i++) {
        double v = engine_option_value(f, &opt[i]);
        if (opt[i].type == EOPT_FRACTION && (v < 0 || v > 1))
            return fail(d, n, opt[i].field, field, "%g is out of range (0 to 1)", v);
    }
    const struct engine_knob *slots = engine_knob_any(offsetof(struct engine_flags, parallel));
    if (slots && f->parallel > slots->max)
        return fail(d, n, SF_PARALLEL, field, "%u is more than %s's %.0f sequences (%s)",
                    f->parallel, engine_owner(offsetof(struct engine_flags, parallel))->title,
                    slots->max, slots->max_name);
    const struct engine_knob *seqs = engine_knob_any(offsetof(struct engine_flags, max_num_seqs));
    if (seqs && f->max_num_seqs > seqs->max)
        return fail(d, n, SF_MAX_NUM_SEQS, field, "%u is out of range (1 to 1,000,000)",
                    f->max_num_seqs);
    return true;
}

static bool offloads(const struct engine_desc *e)
{
    return e->offloads;
}

/* llama.cpp's placement options (core/offload.h), given to an engine that
 * keeps everything on its GPUs, would be ignored without a word. */
static bool offload_validate(const struct scenario *s, const char *const *n,
                             enum scenario_field *field, struct diag *d)
{
    const struct offload_opts *o = &s->offload;
    const struct engine_desc *e = engine_desc(s->engine.kind);
    const struct engine_desc *owner = engine_find(offloads);
    enum scenario_field f = o->ngl_given         ? SF_N_GPU_LAYERS
                            : o->n_cpu_moe_given ? SF_N_CPU_MOE
                            : o->no_kv_offload   ? SF_NO_KV_OFFLOAD
                            : o->ubatch          ? SF_UBATCH
                                                 : SF_COUNT;
    if (f != SF_COUNT && !e->offloads)
        return fail(d, n, f, field, "is an option of %s (--engine %s)",
                    owner ? owner->title : "an engine", owner ? owner->name : "?");
    if ((o->n_cpu_moe_given || o->no_kv_offload || o->ubatch) && e->refuses_offload)
        return fail(d, n, o->n_cpu_moe_given ? SF_N_CPU_MOE
                          : o->no_kv_offload ? SF_NO_KV_OFFLOAD
                                             : SF_UBATCH, field, "%s", e->refuses_offload);
    if (o->ubatch > 65536)
        return fail(d, n, SF_UBATCH, field, "%u is out of range (1 to 65,536)", o->ubatch);
    if (f != SF_COUNT && f != SF_UBATCH && (s->engine.non_kv_bytes || s->engine.kv_memory_bytes))
        return fail(d, n, f, field, "not with %s or %s: what a log gave holds the GPU's part "
                    "already", OPTNAME_NON_KV, OPTNAME_KV_MEMORY);
    if (o->n_cpu_moe_given && o->n_cpu_moe > 0 && s->model.expert_params == 0)
        return fail(d, n, SF_N_CPU_MOE, field, "%s has no MoE experts to keep in host memory",
                    s->model.id);
    if (o->host_bytes_per_s < 0 || o->host_bytes_per_s > 1e14)
        return fail(d, n, SF_HOST_BANDWIDTH, field, "%g GB/s is out of range (0 to 100,000)",
                    o->host_bytes_per_s / 1e9);
    return true;
}

/* the GPUs, the stages and the tensor split */
static bool parallel_validate(const struct scenario *s, const char *const *n,
                              enum scenario_field *field, struct diag *d)
{
    if (s->gpus < 1 || s->gpus > GPUS_MAX)
        return fail(d, n, SF_GPUS, field, "%u is out of range (1 to %d)", s->gpus, GPUS_MAX);
    if (s->pp > s->gpus || (s->pp && s->gpus % s->pp != 0))
        return fail(d, n, SF_PP, field, "%u stages do not divide %s %u", s->pp, n[SF_GPUS],
                    s->gpus);
    if (s->tp != 0 && (s->tp > s->gpus / scenario_pp(s) || s->gpus % (s->tp * scenario_pp(s)) != 0))
        return scenario_pp(s) > 1
                   ? fail(d, n, SF_TP, field, "%u x %u stages (%s) does not divide %s %u into "
                          "whole replicas", s->tp, scenario_pp(s), n[SF_PP], n[SF_GPUS], s->gpus)
                   : fail(d, n, SF_TP, field, "%u does not divide %s %u into whole replicas",
                          s->tp, n[SF_GPUS], s->gpus);
    if (s->pp > 1 && s->pp > s->model.layers)
        return fail(d, n, SF_PP, field, "%u stages is more than the model's %u layers", s->pp,
                    s->model.layers);
    return true;
}

/* Which checks run: those the context takes part in (the context, its
 * prefix and average, and what is measured against them), the others, or
 * both; each check is in one part, in scenario_validate's order. */
enum { CHECK_FIXED = 1, CHECK_CONTEXT = 2, CHECK_ALL = CHECK_FIXED | CHECK_CONTEXT };

/* A context past the model's longest, under an engine that then refuses to
 * start (vLLM's _get_and_verify_max_len, SGLang's _derive_context_length:
 * core/engine_desc.h long_context), unless its environment variable is set;
 * --allow-long-context sets it, and is taken only by such an engine. */
static bool long_context_validate(const struct scenario *s, const char *const *n,
                                  enum scenario_field *field, struct diag *d)
{
    const struct engine_desc *e = engine_desc(s->engine.kind);
    const struct engine_long_context *lc = &e->long_context;
    uint64_t top = scenario_context_ceiling(s);
    if (s->allow_long_context && !lc->env)
        return fail(d, n, SF_ALLOW_LONG_CONTEXT, field, "is an option of vLLM and SGLang, "
                    "which refuse a context past the model's (%s plans it and warns)", e->title);
    if (top == 0 || s->context_tokens <= top)
        return true;
    char ctx[32], max[32];
    units_format_int(s->context_tokens, ctx, sizeof ctx);
    units_format_int(top, max, sizeof max);
    return fail(d, n, SF_CONTEXT, field, "%s tokens is past %s's longest context, %s tokens: %s "
                "refuses to start with %s beyond it (%s) unless %s=1; give %s %llu or less, or "
                "%s to plan it with %s=1", ctx, s->model.id, max, e->title, lc->option, lc->where,
                lc->env, n[SF_CONTEXT], (ull)top, n[SF_ALLOW_LONG_CONTEXT], lc->env);
}

/* the context, its prefix and average, the blocks and the logged sizes */
static bool tokens_validate(const struct scenario *s, const char *const *n,
                            enum scenario_field *field, struct diag *d, unsigned parts)
{
    const struct engine_flags *e = &s->engine;
    bool fixed = parts & CHECK_FIXED, context = parts & CHECK_CONTEXT;
    if (context && e->parallel > 1 && s->context_tokens > TOKENS_MAX / e->parallel)
        return fail(d, n, SF_PARALLEL, field, "%u slots of %llu tokens is more than %llu cells",
                    e->parallel, (ull)s->context_tokens, (ull)TOKENS_MAX);
    if (fixed && e->max_num_batched_tokens > TOKENS_MAX)
        return fail(d, n, SF_MAX_NUM_BATCHED_TOKENS, field, "too many tokens");
    if (fixed && (e->gpu_total_bytes | e->non_kv_bytes | e->kv_memory_bytes) > ((uint64_t)1 << 44))
        return fail(d, n, SF_LOGGED, field, "must be at most 16 TiB");
    if (context && (s->context_tokens < 1 || s->context_tokens > TOKENS_MAX))
        return fail(d, n, SF_CONTEXT, field, "%llu tokens is out of range (1 to %llu)",
                    (ull)s->context_tokens, (ull)TOKENS_MAX);
    if (context && !long_context_validate(s, n, field, d))
        return false;
    if (context && s->prefix_tokens >= s->context_tokens)
        return fail(d, n, SF_PREFIX, field, "%llu tokens must be less than %s (%llu tokens)",
                    (ull)s->prefix_tokens, n[SF_CONTEXT], (ull)s->context_tokens);
    if (context && s->avg_context_tokens != 0) {
        if (s->avg_context_tokens > s->context_tokens)
            return fail(d, n, SF_AVG, field, "%llu tokens is more than %s (%llu tokens)",
                        (ull)s->avg_context_tokens, n[SF_CONTEXT], (ull)s->context_tokens);
        if (s->avg_context_tokens <= s->prefix_tokens)
            return fail(d, n, SF_AVG, field, "%llu tokens must be more than %s (%llu tokens)",
                        (ull)s->avg_context_tokens, n[SF_PREFIX], (ull)s->prefix_tokens);
    }
    if (fixed && s->block_tokens > BLOCK_TOKENS_MAX)
        return fail(d, n, SF_BLOCK, field, "%llu tokens is out of range (1 to %d)",
                    (ull)s->block_tokens, BLOCK_TOKENS_MAX);
    char why[320], title[96];
    if (fixed && scenario_block_refusal(s, why, sizeof why))
        return fail(d, n, SF_BLOCK, field, "%llu tokens a block under %s: %s",
                    (ull)s->block_tokens, engine_flags_title(e, title, sizeof title), why);
    return true;
}

bool scenario_block_given(const struct scenario *s)
{
    return s->block_given || (s->block_tokens && s->block_tokens != DEFAULT_BLOCK_TOKENS);
}

const char *scenario_block_refusal(const struct scenario *s, char *buf, size_t size)
{
    const struct engine_desc *e = engine_desc(s->engine.kind);
    return scenario_block_given(s) && e->refuses_block ? e->refuses_block(s, buf, size) : NULL;
}

uint64_t scenario_block_override(const struct scenario *s, const char **why)
{
    const struct engine_desc *e = engine_desc(s->engine.kind);
    uint64_t used = scenario_block_given(s) && e->block_override ? e->block_override(s, why) : 0;
    return used != s->block_tokens ? used : 0;
}

/* the headroom, the memory, the weights and the price */
static bool budget_validate(const struct scenario *s, const char *const *n,
                            enum scenario_field *field, struct diag *d)
{
    if (!(s->headroom_percent >= 0.0 && s->headroom_percent < 100.0))
        return fail(d, n, SF_HEADROOM, field, "%g%% is out of range (0 to less than 100)",
                    s->headroom_percent);
    if (s->has_vram && (s->vram_bytes == 0 || s->vram_bytes > ((uint64_t)1 << 44)))
        return fail(d, n, SF_VRAM, field, "must be more than 0 B and at most 16 TiB");
    if (s->wired_limit_mb && !s->gpu.unified_bytes)
        return fail(d, n, SF_WIRED_LIMIT, field,
                    "%s has no unified memory: the wired limit is macOS's, on Apple silicon",
                    s->gpu.id);
    if (s->wired_limit_mb && (uint64_t)s->wired_limit_mb * MIB > spec_wired_limit_max(s->gpu.unified_bytes))
        return fail(d, n, SF_WIRED_LIMIT, field,
                    "%u MiB leaves macOS too little of the %llu MiB %s has: at most %llu MiB "
                    "(80%% of it, or all but 5 GiB)",
                    s->wired_limit_mb, (ull)(s->gpu.unified_bytes / MIB), s->gpu.id,
                    (ull)(spec_wired_limit_max(s->gpu.unified_bytes) / MIB));
    if (s->has_weights && s->weights_bytes > ((uint64_t)1 << 60))
        return fail(d, n, SF_WEIGHTS, field, "is larger than any cluster (1 EiB)");
    if (s->has_price && !(s->price_usd_per_hour >= 0.0 && s->price_usd_per_hour < 1e6))
        return fail(d, n, SF_PRICE, field,
                    "%g is out of range (0 to 1,000,000 USD per GPU-hour)", s->price_usd_per_hour);
    return true;
}

/* the precisions and the K/V heads */
static bool dtypes_validate(const struct scenario *s, const char *const *n,
                            enum scenario_field *field, struct diag *d)
{
    const struct model_spec *m = &s->model;
    if ((int)s->kv_dtype < 0 || s->kv_dtype >= DTYPE_COUNT)
        return fail(d, n, SF_KV_DTYPE, field, "unknown precision");
    if ((int)s->weight_dtype < 0 || s->weight_dtype >= DTYPE_COUNT)
        return fail(d, n, SF_WEIGHT_DTYPE, field, "unknown precision");
    /* a cache type the engine has no kernels for: its launch would not start, or
     * would start in another precision (engine.c engine_supports) */
    if (s->engine.v_dtype != DTYPE_AUTO && engine_desc(s->engine.kind)->refuses_v_dtype) {
        if (field)
            *field = SF_KV_DTYPE;
        return diag_fail(d, "%s: %s", OPTNAME_KV_DTYPE_V,
                         engine_desc(s->engine.kind)->refuses_v_dtype);
    }
    const struct engine_desc *e = engine_desc(s->engine.kind);
    const struct engine_cache_flags *cf = e->cache_flags ? e->cache_flags(s->engine.rule) : NULL;
    if (s->kv_dtype != DTYPE_AUTO && !engine_supports(s->engine.kind, s->kv_dtype)) {
        char types[96];
        engine_cache_types(s->engine.kind, types, sizeof types);
        return fail(d, n, SF_KV_DTYPE, field, "%s has no %s cache (%s)%s%s%s%s%s",
                    engine_name(s->engine.kind), dtype_info(s->kv_dtype)->name, types,
                    cf ? "; its --kv-cache-dtype takes " : "", cf ? cf->accepts : "",
                    cf ? " (" : "", cf ? cf->where : "", cf ? ")" : "");
    }
    if (s->kv_dtype == DTYPE_Q6_K || s->kv_dtype == DTYPE_Q5_K_M || s->kv_dtype == DTYPE_Q4_K_M)
        return fail(d, n, SF_KV_DTYPE, field, "%s is a weight format (llama.cpp's K-quant mixes): "
                    "no engine caches in it", dtype_info(s->kv_dtype)->name);
    if (s->kv_heads != 0) {
        if (m->attention == ATTENTION_MLA)
            return fail(d, n, SF_KV_HEADS, field,
                        "%s caches one MLA latent per layer, not K/V heads", m->name);
        if (kvcost_has_compressed(m))
            return fail(d, n, SF_KV_HEADS, field,
                        "%s caches one row a token for its one KV head (compressed attention)",
                        m->name);
        if (s->kv_heads > m->attention_heads || m->attention_heads % s->kv_heads != 0)
            return fail(d, n, SF_KV_HEADS, field, "%u does not divide the %u attention heads of %s",
                        s->kv_heads, m->attention_heads, m->name);
    }
    return true;
}

/* the workload: users, prompt, targets, the host tier, the LoRAs */
static bool workload_validate(const struct scenario *s, const char *const *n,
                              enum scenario_field *field, struct diag *d, unsigned parts)
{
    if ((parts & CHECK_FIXED) && s->concurrency > 100000000)
        return fail(d, n, SF_CONCURRENCY, field, "%llu users is out of range (1 to 100,000,000)",
                    (ull)s->concurrency);
    if ((parts & CHECK_CONTEXT) && s->prompt_tokens > s->context_tokens)
        return fail(d, n, SF_PROMPT, field, "%llu tokens is more than %s (%llu tokens)",
                    (ull)s->prompt_tokens, n[SF_CONTEXT], (ull)s->context_tokens);
    if (s->output_tokens == 1)
        return fail(d, n, SF_OUTPUT, field, "1 token has no time per output token (TPOT is over "
                    "the tokens after the first): at least 2, or 0 for the step alone");
    if ((parts & CHECK_CONTEXT) && s->output_tokens && s->prompt_tokens &&
        s->prefix_tokens >= s->prompt_tokens)
        return fail(d, n, SF_PREFIX, field, "%llu tokens is not less than %s (%llu tokens): "
                    "under %s each prompt holds the shared prefix and its own tokens",
                    (ull)s->prefix_tokens, n[SF_PROMPT], (ull)s->prompt_tokens, n[SF_OUTPUT]);
    if ((parts & CHECK_CONTEXT) && s->output_tokens &&
        (s->prompt_tokens ? s->prompt_tokens : s->context_tokens) + s->output_tokens >
            s->context_tokens)
        return fail(d, n, SF_OUTPUT, field, "%llu tokens after a prompt of %llu is more than %s "
                    "(%llu tokens): a request's prompt and output are held in its context (%s)",
                    (ull)s->output_tokens,
                    (ull)(s->prompt_tokens ? s->prompt_tokens : s->context_tokens), n[SF_CONTEXT],
                    (ull)s->context_tokens, n[SF_PROMPT]);
    if (!(parts & CHECK_FIXED))
        return true;
    if (!(s->min_tokens_per_s >= 0 && s->min_tokens_per_s <= 1e6))
        return fail(d, n, SF_MIN_TOK_S, field, "%g is out of range (0 to 1,000,000)",
                    s->min_tokens_per_s);
    if (!(s->max_ttft_seconds >= 0 && s->max_ttft_seconds <= 86400))
        return fail(d, n, SF_MAX_TTFT, field, "%g s is out of range (0 to 86,400)",
                    s->max_ttft_seconds);
    if (!(s->mbu >= 0 && s->mbu <= 1))
        return fail(d, n, SF_MBU, field, "%g is out of range (0 to 1)", s->mbu);
    if (!(s->mfu >= 0 && s->mfu <= 1))
        return fail(d, n, SF_MFU, field, "%g is out of range (0 to 1)", s->mfu);
    if (s->has_step_overhead && !(s->step_overhead_s >= 0 && s->step_overhead_s <= STEP_OVERHEAD_MAX_S))
        return fail(d, n, SF_STEP_OVERHEAD, field, "%g s is out of range (0 to %g)",
                    s->step_overhead_s, STEP_OVERHEAD_MAX_S);
    if (s->speed_calibrated > SPEED_CAL_ALL || (s->speed_calibrated && !s->speed_basis[0]))
        return fail(d, n, SF_MBU, field, "a speed calibration without its basis");
    if (s->host_kv_bytes > ((uint64_t)1 << 50))
        return fail(d, n, SF_HOST_KV, field, "must be at most 1 PiB per GPU");
    if (s->has_prefix_hit_rate && !(s->prefix_hit_rate >= 0 && s->prefix_hit_rate <= 1))
        return fail(d, n, SF_PREFIX_HIT_RATE, field, "%g is out of range (0 to 1)",
                    s->prefix_hit_rate);
    if (!lora_validate(s, n, field, d))
        return false;
    return true;
}

/* the images and their tokens */
static bool images_validate(const struct scenario *s, const char *const *n,
                            enum scenario_field *field, struct diag *d, unsigned parts)
{
    const struct model_spec *m = &s->model;
    if (parts & CHECK_FIXED) {
        if (s->images > 1000)
            return fail(d, n, SF_IMAGES, field, "%u is out of range (1 to 1,000 a request)",
                        s->images);
        if (s->image_tokens > 1000000)
            return fail(d, n, SF_IMAGE_TOKENS, field,
                        "%u is out of range (1 to 1,000,000 an image)", s->image_tokens);
        if (s->images && scenario_tokens_per_image(s) == 0)
            return fail(d, n, SF_IMAGES, field, "%s gives no tokens per image: give %s T",
                        m->name, n[SF_IMAGE_TOKENS]);
    }
    if ((parts & CHECK_CONTEXT) && s->context_tokens + scenario_image_tokens(s) > TOKENS_MAX)
        return fail(d, n, SF_IMAGES, field, "%llu image tokens and %s %llu pass %llu tokens",
                    (ull)scenario_image_tokens(s), n[SF_CONTEXT], (ull)s->context_tokens,
                    (ull)TOKENS_MAX);
    return true;
}

/* The checks of `parts`, in their order. */
static bool validate(const struct scenario *s, const char *const names[SF_COUNT],
                     enum scenario_field *field, struct diag *d, unsigned parts)
{
    const char *const *n = names ? names : scenario_option_names;
    const struct model_spec *m = &s->model;
    bool fixed = parts & CHECK_FIXED;
    if (fixed && !parallel_validate(s, n, field, d))
        return false;
    if (fixed && (!layout_validate(s, n, field, d) || !knobs_validate(s, n, field, d) ||
                  !offload_validate(s, n, field, d)))
        return false;
    if (!tokens_validate(s, n, field, d, parts) || (fixed && !budget_validate(s, n, field, d)) ||
        (fixed && !dtypes_validate(s, n, field, d)) || !workload_validate(s, n, field, d, parts) ||
        !images_validate(s, n, field, d, parts))
        return false;
    if (!fixed)
        return true;
    struct diag inner = {0};
    if (!spec_model_validate(m, &inner))
        return fail(d, n, SF_MODEL, field, "%s: %s", m->id, inner.message);
    if (!scenario_validate_spec(s, n, field, d))
        return false;
    if (!spec_gpu_validate(&s->gpu, &inner))
        return fail(d, n, SF_GPU, field, "%s: %s", s->gpu.id, inner.message);
    return true;
}

bool scenario_validate(const struct scenario *s, const char *const names[SF_COUNT],
                       enum scenario_field *field, struct diag *d)
{
    return validate(s, names, field, d, CHECK_ALL);
}

bool scenario_validate_fixed(const struct scenario *s, const char *const names[SF_COUNT],
                             enum scenario_field *field, struct diag *d)
{
    return validate(s, names, field, d, CHECK_FIXED);
}

bool scenario_validate_context(const struct scenario *s, const char *const names[SF_COUNT],
                               enum scenario_field *field, struct diag *d)
{
    return validate(s, names, field, d, CHECK_CONTEXT);
}
