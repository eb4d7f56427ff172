/* Speculative decoding in GPU memory: the draft's (or MTP layers') weights
 * and KV, folded into the plan before the budgeting rule runs. Sources in
 * specdec.h. */
#include "specdec.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "engine_desc.h"
#include "policy.h"

const char *spec_method_name(enum spec_method m)
{
    switch (m) {
    case SPEC_DRAFT:
        return "draft";
    case SPEC_MTP:
        return "mtp";
    default:
        return "none";
    }
}

bool spec_method_parse(const char *text, enum spec_method *out)
{
    static const enum spec_method all[] = {SPEC_NONE, SPEC_DRAFT, SPEC_MTP};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcasecmp(text, spec_method_name(all[i])) == 0) {
            *out = all[i];
            return true;
        }
    /* the engines' own names: vLLM "draft_model", "deepseek_mtp"; SGLang "NEXTN" */
    if (strcasecmp(text, "draft_model") == 0 || strcasecmp(text, "standalone") == 0) {
        *out = SPEC_DRAFT;
        return true;
    }
    if (strcasecmp(text, "deepseek_mtp") == 0 || strcasecmp(text, "nextn") == 0) {
        *out = SPEC_MTP;
        return true;
    }
    return false;
}

uint32_t spec_default_tokens(const struct scenario *s)
{
    if (s->spec_method == SPEC_NONE)
        return 0;
    if (s->spec_tokens)
        return s->spec_tokens;
    if (s->spec_method == SPEC_MTP)
        return s->model.nextn_layers ? s->model.nextn_layers : 1;
    /* the engine's default (llama.cpp common/common.h: --draft-max 16) */
    return engine_desc(s->engine.kind)->spec_tokens;
}

/* The draft as a scenario of its own (its released weights, the model's cache
 * type, or the engine's default type under auto: llama.cpp's f16) and its KV
 * per token at the model's attention TP. */
static void draft_cost(const struct scenario *s, enum dtype model_kv, uint32_t attention_tp,
                       struct scenario *ds, struct kv_cost *dc)
{
    scenario_default(ds, &s->gpu, &s->draft);
    enum dtype given = engine_desc(s->engine.kind)->cache_default;
    ds->kv_dtype = s->kv_dtype == DTYPE_AUTO && given != DTYPE_AUTO ? given : model_kv;
    ds->full_attention = true; /* counted at every token (see kvcost_bytes) */
    kvcost_compute(ds, attention_tp, dc);
}

void specdec_compute(const struct scenario *s, const struct kv_cost *k, struct spec_result *out)
{
    struct spec_result *p = out;
    memset(p, 0, sizeof *p);
    p->method = s->spec_method;
    p->tokens = spec_default_tokens(s);
    if (s->spec_method == SPEC_NONE)
        return;
    /* the draft runs at the model's TP (vLLM draft_model.py, SGLang's draft
     * worker): its weights split over the replica's TP ranks */
    uint32_t tp = scenario_tp(s);
    if (s->spec_method == SPEC_DRAFT) {
        struct scenario ds;
        struct kv_cost dc;
        draft_cost(s, k->kv_dtype, k->tp, &ds, &dc);
        enum dtype used;
        p->weights_bytes = scenario_weights_bytes(&ds, &used);
        p->layers = dc.layers;
        p->kv_bytes_per_token = dc.bytes_per_token;
    } else {
        /* the MTP layers at the model's bytes per parameter as counted */
        const struct model_spec *m = &s->model;
        enum dtype used;
        long double per = m->params ? (long double)scenario_weights_bytes(s, &used) / m->params : 0;
        p->weights_bytes = (uint64_t)ceill((long double)m->mtp_params * per);
        p->layers = m->nextn_layers;
        p->kv_bytes_per_token = kv_sat_mul(k->bytes_per_layer, m->nextn_layers);
    }
    p->weights_bytes_per_gpu = kv_ceil_div(p->weights_bytes, tp ? tp : 1);
}

void specdec_weights_row(const struct policy_ctx *c)
{
    const struct scenario *s = c->s;
    const struct spec_result *p = c->spec;
    if (p->method == SPEC_NONE)
        return;
    char name[EXPLAIN_NAME_MAX];
    struct explain_row *row;
    if (p->method == SPEC_DRAFT) {
        row = explain_row_begin(c->x, "draft_weights", "Draft weights", "per GPU");
        snprintf(name, sizeof name, "%s (%s)", s->draft.id,
                 s->draft.weights_bytes ? "checkpoint" : dtype_info(s->draft.weight_dtype)->name);
        explain_term(row, (long double)p->weights_bytes, XU_BYTES, name);
    } else {
        const struct model_spec *m = &s->model;
        row = explain_row_begin(c->x, "draft_weights", "MTP weights", "per GPU");
        explain_term(row, (long double)m->mtp_params, XU_COUNT,
                     m->nextn_layers == 1 ? "MTP layer params" : "MTP layers' params");
        snprintf(name, sizeof name, "B/param (%s)", placement_weights_label(c->l));
        explain_term(row, m->params ? (long double)c->l->weights_bytes / m->params : 0,
                     XU_PER_VALUE, name);
        explain_op(row, XOP_MUL);
        explain_op(row, XOP_CEIL);
    }
    if (c->l->tp > 1) {
        explain_term(row, c->l->tp, XU_COUNT, "GPUs (TP)");
        explain_op(row, XOP_DIV);
        explain_op(row, XOP_CEIL);
    }
    explain_row_end(c->x, row, XU_BYTES, 0,
                    p->method == SPEC_DRAFT ? "the draft runs at the model's TP, its own embedding "
                                              "and head"
                                            : "one decoder layer and eh_proj each; embedding and "
                                              "head shared");
}

void specdec_kv_row(const struct policy_ctx *c)
{
    const struct scenario *s = c->s;
    const struct spec_result *p = c->spec;
    if (p->method == SPEC_NONE)
        return;
    struct explain_row *row = explain_row_begin(c->x, "draft_kv_per_token",
                                                p->method == SPEC_MTP ? "MTP KV per token"
                                                                      : "Draft KV per token",
                                                engine_desc(c->s->engine.kind)->splits_layers &&
                                                        c->l->tp > 1
                                                    ? "all GPUs"
                                                    : "per GPU");
    if (p->method == SPEC_MTP) {
        explain_term(row, p->layers, XU_COUNT, p->layers == 1 ? "MTP layer" : "MTP layers");
        explain_ref(c->x, row, "kv_per_layer", "");
        explain_op(row, XOP_MUL);
        explain_row_end(c->x, row, XU_BYTES_EXACT, 0, "the MTP layer caches like the model's");
        return;
    }
    const struct model_spec *d = &s->draft;
    struct scenario ds;
    struct kv_cost dc;
    draft_cost(s, c->k->kv_dtype, c->k->tp, &ds, &dc);
    if (dc.wide_layers) { /* Gemma 4's global layers at their own size (core/kvcost.h) */
        explain_term(row, dc.wide_layers, XU_COUNT, "draft global layers");
        explain_term(row, (long double)dc.global_bytes_per_layer, XU_BYTES_EXACT, "a layer");
        explain_op(row, XOP_MUL);
    }
    explain_term(row, p->layers - dc.wide_layers, XU_COUNT, "draft layers");
    policy_kv_layer_expr(row, d, &dc); /* the model's own per-layer terms */
    explain_op(row, XOP_MUL);
    if (dc.wide_layers)
        explain_op(row, XOP_ADD);
    char note[96];
    snprintf(note, sizeof note, "%s keeps its own KV of every token", d->id);
    explain_row_end(c->x, row, XU_BYTES_EXACT, 0, note);
}

void specdec_tokens_row(const struct policy_ctx *c, uint64_t context)
{
    const struct spec_result *p = c->spec;
    const struct engine_desc *e = engine_desc(c->s->engine.kind);
    if (p->method == SPEC_NONE || !e->spec_lookahead)
        return;
    struct explain_row *row = explain_row_begin(c->x, "spec_tokens", "Tokens + lookahead", "");
    explain_term(row, (long double)context, XU_TOKENS, "context");
    explain_term(row, p->tokens, XU_TOKENS, p->tokens == 1 ? "speculative token" : "speculative tokens");
    explain_op(row, XOP_ADD);
    char note[96];
    snprintf(note, sizeof note, "each step holds the speculative tokens%s%s%s",
             e->lookahead_source ? " (" : "", e->lookahead_source ? e->lookahead_source : "",
             e->lookahead_source ? ")" : "");
    explain_row_end(c->x, row, XU_TOKENS, 0, note);
}
