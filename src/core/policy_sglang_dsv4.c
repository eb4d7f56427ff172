/* SGLang's pools for DeepSeek V4's compressed attention (core/kvcost.h: a
 * window in every layer, compressed rows in the CSA and HCA layers, an
 * indexer key beside each CSA row, the compressors' fp32 state), as its
 * source sizes them (sgl-project/sglang main as stored, late 2026; DeepSeek
 * V4 is served from release 0.5.12):
 *
 * - python/sglang/srt/model_executor/pool_configurator.py (commit 003fca80),
 *   DSV4PoolConfigurator: _get_bytes_per_full_token gives the bytes one
 *   token of the full (virtual) pool costs across the physical pools, with
 *   kv_bytes = qk_nope_head_dim + 2 x qk_rope_head_dim + 8 (584 B: FP8 nope,
 *   bf16 rope, the scales) and the indexer's 128 + 128 / 128 x 4 = 132 B:
 *       swa_ratio x kv_bytes x layers           (the window pool, every layer)
 *     + 1/4 x kv_bytes x CSA layers + 1/128 x kv_bytes x HCA layers
 *     + 1/4 x 132 x CSA layers                  (the indexer keys)
 *     + swa_ratio x ring / window x (2 x 2 x 512 + 2 x 2 x 128) x 4 B x CSA
 *                                               (the c4 compressor states)
 *   the c128 states being request-scoped (c128_state_ratio 0): their bytes,
 *   _get_c128_state_fixed_bytes, come off the available bytes first, for
 *   max_running_requests // attn_dp_size + 1 request slots of 128 rows each
 *   plus 128 + 1, in whole 128s, x 2 x 512 x 4 B x HCA layers.
 *   calculate_pool_sizes: full_token = int((available - that) /
 *   bytes_per_full_token), _compute_dsv4_sizes aligns it down to the page
 *   (256) and gives swa = int(full x swa_ratio) // page x page, c4 = full //
 *   4, c128 = full // 128, c4_state = swa // window x ring; the logs "DSV4
 *   memory calculation: ..." and "DSV4 pool sizes: ...". max_total_num_tokens
 *   is the full count. The ring (get_compress_state_ring_size,
 *   mem_cache/deepseek_v4_memory_pool.py) is 8 at ratio 4 and 128 at 128
 *   (16 and 256 with a draft); the states fp32 (SGLANG_DSV4_COMPRESS_STATE_
 *   DTYPE "float32"), the online c128 off (SGLANG_OPT_USE_ONLINE_COMPRESS).
 * - python/sglang/srt/arg_groups/model_overrides/deepseek_v4.py (commit
 *   01a4a991), _deepseek_v4_overrides: page_size 256 (CUDA),
 *   swa_full_tokens_ratio 0.1 unless given.
 * - python/sglang/srt/arg_groups/deepseek_v4_hook.py (commit 006cbb66),
 *   apply_deepseek_v4_defaults: max_running_requests 256 unless given.
 * - The available bytes are the profile's (_profile_available_bytes), the
 *   pool every SGLang plan has (policy_sglang.c). */
#include "policy.h"
#include "policy_sglang.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

enum {
    DSV4_SGLANG_PAGE = 256,     /* _deepseek_v4_overrides: page_size on CUDA */
    DSV4_SGLANG_RUNNING = 256,  /* apply_deepseek_v4_defaults */
    DSV4_SGLANG_RING_C4 = 8,    /* get_compress_state_ring_size(4) */
    DSV4_SGLANG_RING_C128 = 128, /* get_compress_state_ring_size(128) */
    DSV4_SGLANG_SCALE = 8,      /* kv_bytes: the FP8 nope's scales, 8 B */
    DSV4_SGLANG_STATE = 4       /* fp32 compressor states */
};
#define DSV4_SGLANG_SWA_RATIO 0.1 /* _deepseek_v4_overrides: swa_full_tokens_ratio */

uint64_t sglang_dsv4_page(const char **why)
{
    *why = "_deepseek_v4_overrides sets page_size 256 on CUDA (python/sglang/srt/arg_groups/"
           "model_overrides/deepseek_v4.py)";
    return DSV4_SGLANG_PAGE;
}

uint32_t sglang_dsv4_running(const struct scenario *s)
{
    return s->engine.max_num_seqs ? s->engine.max_num_seqs : DSV4_SGLANG_RUNNING;
}

/* The running requests one worker holds states for: a DP rank's share. */
static uint64_t running_a_worker(const struct policy_ctx *c)
{
    uint32_t dp = c->l->dp_attention && c->l->tp > 1 ? c->l->tp : 1;
    return sglang_dsv4_running(c->s) / dp;
}

/* _get_c128_state_fixed_bytes at `running` requests a worker. */
static uint64_t c128_fixed_bytes(const struct policy_ctx *c, uint64_t running, uint64_t *rows)
{
    const struct model_spec *m = &c->s->model;
    uint64_t slots = running + 1; /* _get_num_req_slots */
    uint64_t n = slots * DSV4_SGLANG_RING_C128 + DSV4_SGLANG_RING_C128 + 1;
    n = kv_ceil_div(n, 128) * 128;
    *rows = n;
    return kv_sat_mul(kv_sat_mul(n, 2ull * m->head_dim * DSV4_SGLANG_STATE), c->k->hca_layers);
}

/* the row's value rounded down to whole pages: floor, / page, floor, x page */
static void whole_pages(struct explain_row *row)
{
    explain_op(row, XOP_FLOOR);
    explain_term(row, DSV4_SGLANG_PAGE, XU_TOKENS, "page");
    explain_op(row, XOP_DIV);
    explain_op(row, XOP_FLOOR);
    explain_term(row, DSV4_SGLANG_PAGE, XU_TOKENS, "page");
    explain_op(row, XOP_MUL);
}

/* The sizes DSV4PoolConfigurator works from: a row's dims, the indexer key,
 * the window, the c4 compressor states (kv and score, and the indexer's). */
struct dsv4_dims {
    uint32_t nope, rope;
    double kv, index, window, c4_state, c4_index_state;
};

static struct dsv4_dims dims_of(const struct policy_ctx *c)
{
    const struct model_spec *m = &c->s->model;
    struct dsv4_dims d;
    d.rope = m->qk_rope_head_dim;
    d.nope = m->head_dim > d.rope ? m->head_dim - d.rope : 0;
    d.kv = (double)d.nope + 2.0 * d.rope + DSV4_SGLANG_SCALE;
    d.index = (double)m->csa_index_dim + m->csa_index_dim / 128 * 4;
    d.window = (double)(c->k->window_tokens ? c->k->window_tokens : 128);
    d.c4_state = 2.0 * 2 * m->head_dim * DSV4_SGLANG_STATE;
    d.c4_index_state = 2.0 * 2 * m->csa_index_dim * DSV4_SGLANG_STATE;
    return d;
}

/* _get_bytes_per_full_token, term by term in its order, in doubles as
 * Python's floats. */
static double bytes_per_full_token(const struct kv_cost *k, const struct dsv4_dims *d)
{
    double ring_ratio = DSV4_SGLANG_RING_C4 / d->window, swa = DSV4_SGLANG_SWA_RATIO;
    double c4_frac = 1.0 / (4 * 1); /* no HiSparse: c4_shrink_factor 1 */
    return swa * d->kv * k->layers + c4_frac * d->kv * k->csa_layers +
           1.0 / 128 * d->kv * k->hca_layers + 1.0 / 4 * d->index * k->csa_layers +
           swa * ring_ratio * d->c4_state * k->csa_layers +
           swa * ring_ratio * d->c4_index_state * k->csa_layers;
}

/* A compressed pool's bytes a token: its row (and the indexer key beside it)
 * every `ratio` tokens, in its layers. */
static void compressed_row(const struct policy_ctx *c, const char *key, const char *label,
                           double index, int ratio, uint32_t layers, const char *layer_name,
                           const char *note)
{
    struct explain_row *row = explain_row_begin(c->x, key, label, "per GPU");
    explain_ref(c->x, row, "sglang_dsv4_row", "row");
    if (index > 0) {
        explain_term(row, (long double)index, XU_BYTES_EXACT, "indexer key");
        explain_op(row, XOP_ADD);
    }
    explain_term(row, ratio, XU_COUNT, "ratio");
    explain_op(row, XOP_DIV);
    explain_term(row, layers, XU_COUNT, layer_name);
    explain_op(row, XOP_MUL);
    explain_row_end(c->x, row, XU_BYTES_FRACTION, 0, note);
}

/* The rows of a full token's bytes: the row, the window, c4, c128 and the
 * c4 states, then their sum (bytes_per_full_token's terms). */
static void per_token_rows(const struct policy_ctx *c, const struct dsv4_dims *d)
{
    const struct kv_cost *k = c->k;
    double swa = DSV4_SGLANG_SWA_RATIO;
    struct explain_row *row = explain_row_begin(c->x, "sglang_dsv4_row", "SGLang KV row", "per layer");
    explain_term(row, d->nope, XU_COUNT, "nope dims (FP8)");
    explain_term(row, d->rope, XU_COUNT, "rope dims");
    explain_term(row, 2, XU_BYTES_EXACT, "bf16");
    explain_op(row, XOP_MUL);
    explain_op(row, XOP_ADD);
    explain_term(row, DSV4_SGLANG_SCALE, XU_BYTES_EXACT, "scales");
    explain_op(row, XOP_ADD);
    explain_row_end(c->x, row, XU_BYTES_EXACT, 0,
                    "kv_bytes of DSV4PoolConfigurator: a token's row in every pool");

    row = explain_row_begin(c->x, "sglang_dsv4_window", "Window a token", "per GPU");
    explain_term(row, swa, XU_FRACTION, "swa-full-tokens-ratio");
    explain_ref(c->x, row, "sglang_dsv4_row", "row");
    explain_op(row, XOP_MUL);
    explain_term(row, k->layers, XU_COUNT, "layers");
    explain_op(row, XOP_MUL);
    explain_row_end(c->x, row, XU_BYTES_FRACTION, 0, "the window pool holds the ratio of the full tokens, "
                                            "in every layer");
    compressed_row(c, "sglang_dsv4_c4", "C4 a token", d->index, 4, k->csa_layers, "CSA layers",
                   "a compressed row and its indexer key per 4 tokens");
    compressed_row(c, "sglang_dsv4_c128", "C128 a token", 0, 128, k->hca_layers, "HCA layers",
                   "a compressed row per 128 tokens");
    row = explain_row_begin(c->x, "sglang_dsv4_c4_state", "C4 states a token", "per GPU");
    explain_term(row, swa, XU_FRACTION, "swa ratio");
    explain_term(row, DSV4_SGLANG_RING_C4, XU_COUNT, "c4 ring");
    explain_op(row, XOP_MUL);
    explain_term(row, (long double)d->window, XU_TOKENS, "window");
    explain_op(row, XOP_DIV);
    explain_term(row, (long double)(d->c4_state + d->c4_index_state), XU_BYTES_EXACT,
                 "kv, score and the indexer's, fp32");
    explain_op(row, XOP_MUL);
    explain_term(row, k->csa_layers, XU_COUNT, "CSA layers");
    explain_op(row, XOP_MUL);
    explain_row_end(c->x, row, XU_BYTES_FRACTION, 0,
                    "a ring of 8 compressor states per window page of the window pool");
    row = explain_row_begin(c->x, "sglang_dsv4_per_token", "Bytes a full token", "per GPU");
    explain_ref(c->x, row, "sglang_dsv4_window", "window");
    explain_ref(c->x, row, "sglang_dsv4_c4", "c4");
    explain_op(row, XOP_ADD);
    explain_ref(c->x, row, "sglang_dsv4_c128", "c128");
    explain_op(row, XOP_ADD);
    explain_ref(c->x, row, "sglang_dsv4_c4_state", "c4 states");
    explain_op(row, XOP_ADD);
    explain_row_end(c->x, row, XU_BYTES_FRACTION, 0,
                    "_get_bytes_per_full_token (the c128 states apart: request-scoped)");
}

/* The c128 states set aside first, for the running requests a worker
 * (a DP rank's share); returns their bytes. */
static uint64_t c128_state_row(const struct policy_ctx *c)
{
    const struct model_spec *m = &c->s->model;
    uint64_t running = running_a_worker(c), rows = 0;
    uint64_t fixed = c128_fixed_bytes(c, running, &rows);
    struct explain_row *row = explain_row_begin(c->x, "sglang_dsv4_c128_state", "C128 states", "per GPU");
    explain_term(row, (long double)rows, XU_COUNT, "rows");
    explain_term(row, 2ull * m->head_dim * DSV4_SGLANG_STATE, XU_BYTES_EXACT, "kv and score, fp32");
    explain_op(row, XOP_MUL);
    explain_term(row, c->k->hca_layers, XU_COUNT, "HCA layers");
    explain_op(row, XOP_MUL);
    char note[160];
    snprintf(note, sizeof note,
             "_get_c128_state_fixed_bytes: (%llu requests + 1) x 128 + 129 rows, in whole 128s, "
             "set aside first", (unsigned long long)running);
    explain_row_end(c->x, row, XU_BYTES, 0, note);
    return fixed;
}

void sglang_dsv4_units(const struct policy_ctx *c, uint64_t pool, struct block_rule *b)
{
    struct engine_detail *e = &c->b->engine;
    struct dsv4_dims d = dims_of(c);
    double per = bytes_per_full_token(c->k, &d);
    per_token_rows(c, &d);
    uint64_t fixed = c128_state_row(c);

    uint64_t rest = pool > fixed ? pool - fixed : 0;
    uint64_t full = per > 0 ? (uint64_t)((double)rest / per) : 0;
    full = full / DSV4_SGLANG_PAGE * DSV4_SGLANG_PAGE;
    e->units = full;
    e->unit_bytes = (uint64_t)ceil(per);
    /* one full-context request at a full token's bytes, from what the c128
     * states leave (the headline's "one needs ..., the pool holds ...") */
    e->request_bytes = kv_sat_mul(c->s->context_tokens, e->unit_bytes);
    e->request_room_bytes = rest;
    struct explain_row *row = explain_row_begin(c->x, "units", "Full pool tokens", "per GPU");
    if (pool == 0 || full == 0) {
        explain_row_end(c->x, row, XU_COUNT, 0, "no memory is left for the KV cache");
    } else {
        explain_ref(c->x, row, "pool", "pool");
        explain_ref(c->x, row, "sglang_dsv4_c128_state", "c128 states");
        explain_op(row, XOP_SUB);
        explain_ref(c->x, row, "sglang_dsv4_per_token", "a full token");
        explain_op(row, XOP_DIV);
        whole_pages(row);
        explain_row_end(c->x, row, XU_COUNT, 0,
                        "max_total_num_tokens: the full pool's tokens, in whole pages");
    }
    row = explain_row_begin(c->x, "sglang_dsv4_swa_tokens", "Window pool", "per GPU");
    explain_ref(c->x, row, "units", "full tokens");
    explain_term(row, DSV4_SGLANG_SWA_RATIO, XU_FRACTION, "swa-full-tokens-ratio");
    explain_op(row, XOP_MUL);
    whole_pages(row);
    explain_row_end(c->x, row, XU_TOKENS, 0,
                    "the window pool's tokens: every running request keeps its last window "
                    "there (not modelled as a limit)");
    b->units_given = true;
}

/* The c128 state pool is allocated whole, used or not: kv_used counts it
 * (after policy_blocks). */
void sglang_dsv4_used(const struct policy_ctx *c)
{
    struct plan_budget *r = c->b;
    const struct scenario *s = c->s;
    uint64_t rows = 0, fixed = c128_fixed_bytes(c, running_a_worker(c), &rows);
    r->kv_used_bytes_per_gpu = kv_sat_add(r->kv_used_bytes_per_gpu, fixed);
    if (!r->fits || r->engine.units == 0)
        return;
    /* the memory bar's users' KV (the shared prefix its own), term by term: what SGLang's pools take for
     * a user is its tokens at a full token's bytes (the window and c4 state
     * pools sized by their ratios of the full pool), more than the model's
     * own cache of a user (kv_per_user) */
    uint64_t own = s->context_tokens > s->prefix_tokens ? s->context_tokens - s->prefix_tokens : 0;
    struct explain_row *row = explain_row_begin(c->x, "sglang_dsv4_users_kv", "Users' KV", "per GPU");
    explain_ref(c->x, row, "users_replica", "users");
    explain_term(row, (long double)own, XU_TOKENS, s->prefix_tokens ? "tokens each, past the prefix"
                                                                     : "tokens each");
    explain_op(row, XOP_MUL);
    explain_term(row, (long double)r->engine.unit_bytes, XU_BYTES_EXACT, "a full token, whole bytes");
    explain_op(row, XOP_MUL);
    explain_ref(c->x, row, "sglang_dsv4_c128_state", "c128 states");
    explain_op(row, XOP_ADD);
    explain_row_end(c->x, row, XU_BYTES, 0,
                    "what the pools hold for the users: each token in every pool by its ratio "
                    "(a window pool of a tenth of the full tokens, their c4 state rings), more "
                    "than the cache a user needs (KV+state per user), and the c128 states whole; "
                    "a shared prefix apart");
}

/* What SGLang prints of these pools: calculate_pool_sizes' "DSV4 memory
 * calculation" (GB there are GiB: / (1 << 30)) and _to_config's "DSV4 pool
 * sizes" (c128_state 0 until finalize_with_max_running_requests). */
void sglang_dsv4_log(const struct policy_ctx *c)
{
    struct engine_detail *e = &c->b->engine;
    const struct kv_cost *k = c->k;
    uint64_t window = k->window_tokens ? k->window_tokens : 128;
    uint64_t rows = 0, fixed = c128_fixed_bytes(c, running_a_worker(c), &rows);
    struct dsv4_dims d = dims_of(c);
    double per = bytes_per_full_token(k, &d);
    uint64_t full = e->units;
    uint64_t swa = (uint64_t)((double)full * DSV4_SGLANG_SWA_RATIO) / DSV4_SGLANG_PAGE *
                   DSV4_SGLANG_PAGE;
    policy_log(e, "DSV4 memory calculation: bytes_per_full_token=%.2f, available_bytes=%.2f GB, "
                  "c128_state_fixed=%.2f GB, full_token=%llu",
               per, (double)c->b->kv_pool_bytes_per_gpu / (double)GIB, (double)fixed / (double)GIB,
               (unsigned long long)full);
    policy_log(e, "DSV4 pool sizes: full=%llu, swa=%llu, c4=%llu, c128=%llu, c4_state=%llu, "
                  "c128_state=0",
               (unsigned long long)full, (unsigned long long)swa, (unsigned long long)(full / 4),
               (unsigned long long)(full / 128),
               (unsigned long long)(swa / window * DSV4_SGLANG_RING_C4));
}

/* What kvplan takes of SGLang's DeepSeek V4 (engine_desc.refuses_model). */
const char *sglang_refuses_model(const struct scenario *s, enum scenario_field *at)
{
    if (!s->model.csa_layers && !s->model.hca_layers)
        return NULL;
    if (scenario_kv_dtype(s) != DTYPE_FP8) {
        *at = SF_KV_DTYPE;
        return "SGLang sizes DeepSeek V4's pools in its FP8 layout (pool_configurator.py, "
               "DSV4PoolConfigurator: 584 B a row; fp8_e4m3 is its default on CUDA, "
               "overrides.py _deepseek_v4_kv_cache_dtype), a bf16 cache being its NPU "
               "geometry, for which kvplan has no rule: take --kv-dtype fp8 or auto";
    }
    if (s->spec_method != SPEC_NONE) {
        *at = s->spec_method == SPEC_DRAFT ? SF_DRAFT_MODEL : SF_SPEC_METHOD;
        return "SGLang drafts DeepSeek V4 with EAGLE (its MTP layer) or DSPARK only "
               "(arg_groups/deepseek_v4_hook.py, apply_deepseek_v4_defaults), and a draft "
               "inflates DSV4PoolConfigurator's bytes a token and its rings, for which kvplan "
               "has no rule yet: plan it without the draft";
    }
    return NULL;
}
