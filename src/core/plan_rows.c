/* plan_rows: the explain rows of the stages that have none of their own:
 * the per-token cost on one GPU and LoRA's slots (core/policy.h). */
#include <stdio.h>

#include "policy.h"

/* Gemma 4's global layers, dimensions of their own: one layer's KV, with
 * the key that is the value stored once or twice (core/kvcost_global.c). */
static void global_layer_row(const struct policy_ctx *c)
{
    const struct kv_cost *k = c->k;
    const struct dtype_info *info = dtype_info(k->kv_dtype);
    char bpv[48];
    snprintf(bpv, sizeof bpv, "B (%s)", info->name);
    struct explain_row *row =
        explain_row_begin(c->x, "kv_per_global_layer", "KV global layer", "per GPU");
    explain_term(row, k->global_rows, XU_COUNT, k->global_rows == 1 ? "(K=V)" : "(K,V)");
    explain_term(row, k->global_kv_heads_per_gpu, XU_COUNT,
                 k->tp > 1 ? "global KV heads/GPU" : "global KV heads");
    explain_term(row, k->global_head_dim, XU_COUNT, "global head_dim");
    explain_op(row, XOP_MUL);
    explain_term(row, (long double)info->bytes_num / info->bytes_den, XU_PER_VALUE, bpv);
    explain_op(row, XOP_MUL);
    explain_op(row, XOP_MUL);
    explain_row_end(c->x, row, XU_BYTES_EXACT, 0,
                    !k->k_eq_v           ? "the global layers' own KV heads and head_dim"
                    : k->global_rows == 1 ? "K=V (attention_k_eq_v): the key is the value, "
                                            "one row a head"
                                          : "K=V (attention_k_eq_v), yet K and V each kept: the "
                                            "engine's cache holds both");
}

/* KV per token with Gemma 4's global layers: the others at kv_per_layer,
 * the global ones at kv_per_global_layer. */
static void global_token_row(const struct policy_ctx *c, const char *key, uint32_t narrow,
                             const char *unit, const char *note)
{
    const struct kv_cost *k = c->k;
    struct explain_row *row = explain_row_begin(c->x, key, unit, "per GPU");
    explain_term(row, k->wide_layers, XU_COUNT, "global layers");
    explain_ref(c->x, row, "kv_per_global_layer", "");
    explain_op(row, XOP_MUL);
    if (narrow) {
        explain_term(row, narrow, XU_COUNT, k->windowed_layers ? "windowed layers" : "other layers");
        explain_ref(c->x, row, "kv_per_layer", "");
        explain_op(row, XOP_MUL);
        explain_op(row, XOP_ADD);
    }
    if (c->spec->method != SPEC_NONE) {
        explain_ref(c->x, row, "draft_kv_per_token", c->spec->method == SPEC_MTP ? "MTP" : "draft");
        explain_op(row, XOP_ADD);
    }
    explain_row_end(c->x, row, XU_BYTES_EXACT, 0, note);
}

/* KV per token: the stage's layers at kv_per_layer, and the draft's. */
static void token_row(const struct policy_ctx *c)
{
    const struct kv_cost *k = c->k;
    struct explain_row *row = explain_row_begin(c->x, "kv_per_token", "KV per token", "per GPU");
    if (c->l->pp > 1)
        explain_ref(c->x, row, "stage_layers", "layers");
    else
        explain_term(row, k->layers, XU_COUNT, k->state_layers ? "attention layers" : "layers");
    explain_ref(c->x, row, "kv_per_layer", "");
    explain_op(row, XOP_MUL);
    if (c->spec->method != SPEC_NONE) {
        explain_ref(c->x, row, "draft_kv_per_token", c->spec->method == SPEC_MTP ? "MTP" : "draft");
        explain_op(row, XOP_ADD);
    }
    explain_row_end(c->x, row, XU_BYTES_EXACT, 0,
                    c->spec->method == SPEC_MTP    ? "the model's layers and the MTP layers'"
                    : c->spec->method != SPEC_NONE ? "the model's layers and the draft's"
                                                   : NULL);
}

/* The cost of a token on one GPU: a layer, the stage's layers, the draft's,
 * a replica's GPUs, past the window. */
void plan_cost_rows(const struct policy_ctx *c)
{
    if (c->x == NULL) /* rows only: without them, nothing to do */
        return;
    const struct scenario *s = c->s;
    const struct model_spec *m = &s->model;
    const struct placement *l = c->l;
    const struct kv_cost *k = c->k;
    uint32_t atp = k->tp; /* the attention's tensor parallel: 1 under DP attention */
    struct explain_row *row;
    char note[160] = "";
    if (k->compressed_span) { /* DeepSeek V4 (plan_rows_compressed.c) */
        plan_compressed_rows(c);
        goto per_replica;
    }
    row = explain_row_begin(c->x, "kv_per_layer", "KV per layer", "per GPU");
    policy_kv_layer_expr(row, m, k);
    if (k->index_bytes)
        snprintf(note, sizeof note,
                 "one latent%s and one sparse-attention indexer key (%u FP8 values + fp32 scale "
                 "per 128) per layer%s",
                 k->latent_fp8_blocks ? " (FlashMLA FP8 layout)" : "", m->index_head_dim,
                 l->dp_attention ? ", each rank its own requests"
                 : atp > 1       ? ", on every GPU"
                                 : "");
    else if (k->mla)
        snprintf(note, sizeof note, "one latent per layer%s",
                 l->dp_attention ? ", each rank its own requests"
                 : atp > 1       ? ", on every GPU"
                                 : "");
    else if (atp > 1)
        snprintf(note, sizeof note, "%u KV heads over %u GPUs%s", k->kv_heads, atp,
                 k->kv_heads < atp ? ", replicated" : "");
    else if (l->dp_attention)
        snprintf(note, sizeof note, "DP attention: each rank holds all heads of its own requests");
    explain_row_end(c->x, row, XU_BYTES_EXACT, 0, note);

    if (l->pp > 1) {
        row = explain_row_begin(c->x, "stage_layers", "Layers per stage", "per GPU");
        explain_term(row, spec_kv_layers(m), XU_COUNT,
                     k->state_layers ? "attention layers" : "layers");
        explain_term(row, l->pp, XU_COUNT, "pipeline stages");
        explain_op(row, XOP_DIV);
        explain_op(row, XOP_CEIL);
        explain_row_end(c->x, row, XU_COUNT, 0, "the fullest stage; each holds its layers' KV");
    }
    specdec_kv_row(c);
    if (k->wide_layers) {
        global_layer_row(c);
        global_token_row(c, "kv_per_token", k->layers - k->wide_layers, "KV per token", NULL);
    } else {
        token_row(c);
    }

per_replica:
    if (atp > 1) {
        row = explain_row_begin(c->x, "kv_per_token_tp", "KV per token",
                                l->pp > 1 ? "all GPUs of a stage" : "all GPUs of a replica");
        explain_ref(c->x, row, "kv_per_token", "per GPU");
        explain_term(row, l->tp, XU_COUNT, "GPUs");
        explain_op(row, XOP_MUL);
        explain_row_end(c->x, row, XU_BYTES_EXACT, 0,
                        k->mla || k->kv_heads < atp ||
                                (k->wide_layers && m->global_kv_heads < atp)
                            ? "replicated copies included"
                            : NULL);
    }
    if (k->windowed_layers > 0 && !k->compressed_span) {
        char w[32];
        units_format_int(k->window_tokens, w, sizeof w);
        snprintf(note, sizeof note, "%u windowed layers (%s) hold at most %s tokens",
                 k->windowed_layers, m->window_pattern, w);
        if (k->wide_layers) {
            global_token_row(c, "kv_past_window", 0, "Past the window", note);
            return;
        }
        row = explain_row_begin(c->x, "kv_past_window", "Past the window", "per GPU");
        explain_term(row, k->global_layers, XU_COUNT, "global layers");
        explain_ref(c->x, row, "kv_per_layer", "");
        explain_op(row, XOP_MUL);
        if (c->spec->method != SPEC_NONE) {
            explain_ref(c->x, row, "draft_kv_per_token",
                        c->spec->method == SPEC_MTP ? "MTP" : "draft");
            explain_op(row, XOP_ADD);
        }
        explain_row_end(c->x, row, XU_BYTES_EXACT, 0, note);
    }
}

/* The LoRA slots one GPU holds (core/lora.h): the modules' features, one
 * slot, every slot. */
void plan_lora_rows(const struct policy_ctx *c)
{
    const struct scenario *s = c->s;
    const struct lora_cost *l = c->lora;
    if (l->bytes == 0)
        return;
    struct explain_row *row = explain_row_begin(c->x, "lora_features", "LoRA in+out", "per GPU");
    int n = 0;
    for (int i = 0; i < LORA_MODULES; i++) {
        if (!(l->targets & (1u << i)))
            continue;
        explain_term(row, (long double)l->features[i], XU_COUNT,
                     lora_module_name((enum lora_module)i));
        if (n++ > 0)
            explain_op(row, XOP_ADD);
    }
    /* the engines allocate packed projections whole (core/lora.h lora_allocated) */
    uint32_t asked = lora_targets(s) & (s->model.mlp_ungated ? ~(1u << LORA_GATE) : ~0u);
    char note[200];
    snprintf(note, sizeof note, "%s%s%s",
             c->l->tp > 1 ? "features of A (in) and B (out) per layer; q, k, v, gate, up split "
                            "their output over TP, o and down their input"
                          : "features of A (in) and B (out) per layer",
             l->targets != asked ? "; packed qkv_proj and gate_up_proj are allocated whole" : "",
             s->model.mlp_ungated ? "; an MLP of two matrices (no gate)" : "");
    explain_row_end(c->x, row, XU_COUNT, 0, note);
    char bpv[48];
    snprintf(bpv, sizeof bpv, "B (%s)", dtype_info(l->dtype)->name);
    row = explain_row_begin(c->x, "lora_slot", "LoRA per slot", "per GPU");
    if (c->l->pp > 1)
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
