/* plan_rows_compressed: the explain rows of the cost of a token for DeepSeek
 * V4's compressed attention (core/kvcost_compressed.c): the window row, a
 * CSA layer's compressed row with its indexer key, the compressed rows of
 * every layer over a span of tokens, a token past the window, and the
 * compressor's state of one sequence. */
#include <stdio.h>
#include <string.h>

#include "policy.h"

/* one row of head_dim values as the cache holds it (the window's and the
 * compressed): FP8 values, bf16 rope dims and a scale per 64, or values */
static void row_expr(struct explain_row *row, const struct model_spec *m, const struct kv_cost *k)
{
    const struct dtype_info *info = dtype_info(k->kv_dtype);
    uint32_t nope = m->head_dim - m->qk_rope_head_dim;
    if (k->kv_dtype == DTYPE_FP8 && m->qk_rope_head_dim < m->head_dim) {
        explain_term(row, nope, XU_COUNT, "non-rope dims");
        explain_term(row, 1, XU_PER_VALUE, "B (fp8)");
        explain_op(row, XOP_MUL);
        explain_term(row, m->qk_rope_head_dim, XU_COUNT, "rope dims");
        explain_term(row, 2, XU_PER_VALUE, "B (bf16)");
        explain_op(row, XOP_MUL);
        explain_op(row, XOP_ADD);
        explain_term(row, (long double)(k->bytes_per_layer - nope - 2ull * m->qk_rope_head_dim),
                     XU_BYTES_EXACT, "scale per 64, to 8 B");
        explain_op(row, XOP_ADD);
        return;
    }
    char bpv[48];
    snprintf(bpv, sizeof bpv, "B (%s)", info->name);
    explain_term(row, m->head_dim, XU_COUNT, "head_dim");
    explain_term(row, (long double)info->bytes_num / info->bytes_den, XU_PER_VALUE, bpv);
    explain_op(row, XOP_MUL);
}

/* layers x (span / ratio) rows x the row of `ref`, added to what came before */
static void kind_terms(const struct policy_ctx *c, struct explain_row *row, uint32_t layers,
                       const char *kind, uint32_t ratio, const char *ref, bool add)
{
    explain_term(row, layers, XU_COUNT, kind);
    explain_term(row, (long double)(c->k->compressed_span / ratio), XU_COUNT,
                 "rows (span / ratio)");
    explain_op(row, XOP_MUL);
    explain_ref(c->x, row, ref, strcmp(ref, "kv_per_layer") == 0 ? "row" : "");
    explain_op(row, XOP_MUL);
    if (add)
        explain_op(row, XOP_ADD);
}

/* The compressed rows of `span` tokens in every compressed layer */
static void span_row(const struct policy_ctx *c)
{
    const struct kv_cost *k = c->k;
    struct explain_row *row = explain_row_begin(c->x, "kv_compressed_span", "Compressed rows",
                                                "per GPU");
    if (k->csa_layers)
        kind_terms(c, row, k->csa_layers, "CSA layers", k->csa_ratio, "kv_csa_row", false);
    if (k->hca_layers)
        kind_terms(c, row, k->hca_layers, "HCA layers", k->hca_ratio, "kv_per_layer",
                   k->csa_layers > 0);
    char note[120];
    snprintf(note, sizeof note, "a span of %llu tokens: a CSA layer keeps a row per %u tokens, "
             "an HCA layer per %u",
             (unsigned long long)k->compressed_span, k->csa_ratio, k->hca_ratio);
    explain_row_end(c->x, row, XU_BYTES_EXACT, 0, note);
}

/* The compressor's state of one sequence: fp32 kv and score of the tokens
 * not yet compressed (kvcost_compressed.c) */
static void state_rows(const struct policy_ctx *c)
{
    const struct model_spec *m = &c->s->model;
    const struct kv_cost *k = c->k;
    struct explain_row *row;
    if (k->csa_layers) {
        row = explain_row_begin(c->x, "state_csa", "CSA compressor", "per GPU");
        /* CompressorStateCache: coff x ratio rows of 2 (kv, score) x coff x
         * head_dim, coff 2 (the overlap) at ratio 4 */
        explain_term(row, 2.0L * k->csa_ratio, XU_TOKENS, "tokens (2 x ratio)");
        explain_term(row, 2, XU_COUNT, "(kv,score)");
        explain_op(row, XOP_MUL);
        explain_term(row, 2, XU_COUNT, "(coff, the overlap)");
        explain_op(row, XOP_MUL);
        explain_term(row, m->head_dim, XU_COUNT, "head_dim");
        explain_term(row, m->csa_index_dim, XU_COUNT, "indexer dims");
        explain_op(row, XOP_ADD);
        explain_op(row, XOP_MUL);
        explain_term(row, 4, XU_PER_VALUE, "B (fp32)");
        explain_op(row, XOP_MUL);
        explain_row_end(c->x, row, XU_BYTES_EXACT, 0,
                        "one layer, one sequence: two overlapping groups, the indexer's too");
    }
    if (k->hca_layers) {
        row = explain_row_begin(c->x, "state_hca", "HCA compressor", "per GPU");
        explain_term(row, k->hca_ratio, XU_TOKENS, "tokens (ratio)");
        explain_term(row, 2, XU_COUNT, "(kv,score)");
        explain_op(row, XOP_MUL);
        explain_term(row, m->head_dim, XU_COUNT, "head_dim");
        explain_op(row, XOP_MUL);
        explain_term(row, 4, XU_PER_VALUE, "B (fp32)");
        explain_op(row, XOP_MUL);
        explain_row_end(c->x, row, XU_BYTES_EXACT, 0, "one layer, one sequence");
    }
    row = explain_row_begin(c->x, "state_per_user", "State per user", "per GPU");
    if (k->csa_layers) {
        explain_term(row, k->csa_layers, XU_COUNT, "CSA layers");
        explain_ref(c->x, row, "state_csa", "");
        explain_op(row, XOP_MUL);
    }
    if (k->hca_layers) {
        explain_term(row, k->hca_layers, XU_COUNT, "HCA layers");
        explain_ref(c->x, row, "state_hca", "");
        explain_op(row, XOP_MUL);
        if (k->csa_layers)
            explain_op(row, XOP_ADD);
    }
    explain_row_end(c->x, row, XU_BYTES_EXACT, 0,
                    "fixed: the compressor's tokens not yet compressed, in fp32");
}

void plan_compressed_rows(const struct policy_ctx *c)
{
    const struct model_spec *m = &c->s->model;
    const struct kv_cost *k = c->k;
    struct explain_row *row = explain_row_begin(c->x, "kv_per_layer", "KV row", "per GPU");
    row_expr(row, m, k);
    char note[160];
    snprintf(note, sizeof note, "a token's key and value in one row (one KV head%s), in the "
             "window of every layer and in a compressed row",
             k->tp > 1 ? ", on every GPU" : "");
    explain_row_end(c->x, row, XU_BYTES_EXACT, 0, note);
    if (k->csa_layers) {
        row = explain_row_begin(c->x, "kv_csa_row", "CSA row", "per GPU");
        explain_ref(c->x, row, "kv_per_layer", "row");
        explain_term(row, m->csa_index_dim, XU_COUNT, "indexer dims");
        explain_term(row, 1, XU_PER_VALUE, "B (fp8)");
        explain_op(row, XOP_MUL);
        explain_term(row, (long double)(k->csa_index_bytes - m->csa_index_dim), XU_BYTES_EXACT,
                     "fp32 scale per 128");
        explain_op(row, XOP_ADD);
        explain_op(row, XOP_ADD);
        explain_row_end(c->x, row, XU_BYTES_EXACT, 0,
                        "a compressed row and its lightning-indexer key");
    }
    span_row(c);
    specdec_kv_row(c);
    row = explain_row_begin(c->x, "kv_per_token", "KV per token", "per GPU");
    explain_ref(c->x, row, "kv_compressed_span", "");
    explain_term(row, (long double)k->compressed_span, XU_TOKENS, "span");
    explain_op(row, XOP_DIV);
    explain_op(row, XOP_CEIL);
    if (k->global_layers) { /* windows held whole (--full-attention) */
        explain_term(row, k->global_layers, XU_COUNT, "layers, whole");
        explain_ref(c->x, row, "kv_per_layer", "row");
        explain_op(row, XOP_MUL);
        explain_op(row, XOP_ADD);
    }
    if (c->spec->method != SPEC_NONE) {
        explain_ref(c->x, row, "draft_kv_per_token", c->spec->method == SPEC_MTP ? "MTP" : "draft");
        explain_op(row, XOP_ADD);
    }
    char w[32];
    units_format_int(k->window_tokens, w, sizeof w);
    snprintf(note, sizeof note, "past the window: the compressed rows a token adds; every layer "
             "also holds its last %s tokens' rows", w);
    explain_row_end(c->x, row, XU_BYTES_EXACT, 0, note);
    state_rows(c);
}

void policy_compressed_expr(const struct policy_ctx *c, struct explain_row *row, uint64_t global,
                            uint64_t windowed, const char *what)
{
    const struct kv_cost *k = c->k;
    explain_term(row, global, XU_TOKENS, what);
    explain_ref(c->x, row, "kv_compressed_span", "compressed");
    explain_op(row, XOP_MUL);
    explain_term(row, (long double)k->compressed_span, XU_TOKENS, "span");
    explain_op(row, XOP_DIV);
    explain_op(row, XOP_CEIL);
    uint32_t rows = k->windowed_layers ? k->windowed_layers : k->global_layers;
    explain_term(row, k->windowed_layers ? windowed : global, XU_TOKENS,
                 k->windowed_layers ? "tokens in the window" : "tokens, windows whole");
    explain_term(row, rows, XU_COUNT, "layers");
    explain_op(row, XOP_MUL);
    explain_ref(c->x, row, "kv_per_layer", "row");
    explain_op(row, XOP_MUL);
    explain_op(row, XOP_ADD);
    if (c->spec->method != SPEC_NONE) {
        explain_term(row, global, XU_TOKENS, what);
        explain_ref(c->x, row, "draft_kv_per_token", c->spec->method == SPEC_MTP ? "MTP" : "draft");
        explain_op(row, XOP_MUL);
        explain_op(row, XOP_ADD);
    }
}
