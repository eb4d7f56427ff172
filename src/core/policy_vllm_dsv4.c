/* vLLM V1's cache for DeepSeek V4's compressed attention (core/kvcost.h:
 * a window row in every layer, compressed rows in the CSA and HCA layers, an
 * indexer key beside each CSA row, the compressor's fp32 state), as its
 * source lays it out (main as read in late 2026):
 *
 * - model_executor/layers/deepseek_v4_attention.py (commit 0a291a2e):
 *   DeepseekV4MLAAttention.get_kv_cache_spec gives a CSA or HCA layer an
 *   MLAAttentionSpec of the cache's block (compress_ratio 4 or 128,
 *   alignment 576); a window-only layer none of its own. Every layer's
 *   window is a DeepseekV4SWACache (v1/attention/backends/mla/sparse_swa.py):
 *   a SlidingWindowMLASpec of 64 tokens a block, "so that its page is the
 *   C4A block's [256 // 4, 584]". DeepseekV4IndexerCache: an MLAAttentionSpec
 *   of the indexer key (132 B), compress_ratio 4, alignment 576.
 * - model_executor/layers/deepseek_compressor.py (commit 0de10a27):
 *   CompressorStateCache, a SlidingWindowMLASpec of state_dim 2 x coff x
 *   head_dim fp32 values, window coff x ratio, in blocks of 4 (ratio 4) or 8
 *   (ratio 128); the CSA layer's indexer has one of its own at its dims.
 * - v1/kv_cache_interface.py: MLAAttentionSpec.storage_block_size (block /
 *   compress_ratio rows a page), real_page_size_bytes (584 B a row under
 *   fp8_ds_mla), _apply_alignment_padding (the page rounded up to the
 *   alignment); SlidingWindowSpec.max_memory_usage_bytes (the window less
 *   one plus a batch, at most the context, in blocks, and one more).
 * - v1/core/kv_cache_utils.py: group_and_unify_kv_cache_specs ("only used
 *   for DeepseekV4": the MLA specs one bucket, the sliding ones a bucket per
 *   block and window), _get_kv_cache_groups_uniform_groups (each bucket in
 *   layer tuples, the tuple counts rounded to _approximate_gcd's chunk: the
 *   d from the MLA bucket's count to the largest that pads the fewest
 *   tuples, ties to the larger; a bucket of n tuples in ceil(n / d) groups,
 *   tuples[i::groups]), _get_packed_kv_cache_layout (a group's pages side by
 *   side; the block stride the widest group) and _get_kv_cache_config_packed
 *   (blocks = available memory // block stride). */
#include "policy.h"
#include "shell.h"

#include <stdio.h>

uint64_t vllm_window_blocks(uint64_t window, bool chunked, uint64_t batched, uint64_t len,
                            uint64_t unit)
{
    uint64_t need = chunked ? window + batched : window - 1 + batched;
    return kv_ceil_div(need < len ? need : len, unit) + (chunked ? 0 : 1);
}

void vllm_concurrency_row(const struct policy_ctx *c, const char *ref)
{
    struct plan_budget *r = c->b;
    uint64_t counted = (uint64_t)r->engine.max_concurrency, cap = r->engine.max_num_seqs;
    r->counted_users_per_replica = cap && counted > cap ? cap : counted;
    char t[32], note[200];
    units_format_int(c->s->context_tokens, t, sizeof t);
    snprintf(note, sizeof note,
             "vLLM's log: \"Maximum concurrency for %s tokens per request: %.2fx\"; the pool "
             "runs the users above it, each holding its windows only",
             t, c->b->engine.max_concurrency);
    struct explain_row *row =
        explain_row_begin(c->x, "max_concurrency", "Max concurrency", "per replica");
    explain_ref(c->x, row, "units", "blocks");
    explain_ref(c->x, row, ref, "per request");
    explain_op(row, XOP_DIV);
    explain_row_end(c->x, row, XU_RATIO, 0, note);
}

enum {
    DSV4_BLOCK = 256,     /* the sparse MLA backends' block (get_preferred_block_size) */
    DSV4_SWA_BLOCK = 64,  /* DeepseekV4SWACache.block_size */
    DSV4_ALIGN = 576,     /* FlashMLA's page alignment */
    DSV4_STATE_BLOCK = 4, /* CompressorStateCache at ratio 4 */
    DSV4_STATE_BLOCK_HCA = 8
};

static uint64_t aligned(uint64_t n)
{
    return kv_ceil_div(n, DSV4_ALIGN) * DSV4_ALIGN;
}

/* One bucket of kv_cache_utils.py's grouping: `tuples` layer tuples of
 * `tuple_bytes` a block, in blocks of `block` tokens, a window of `window`
 * (0: the whole context). */
struct bucket {
    const char *key, *label, *what;
    uint64_t tuples, tuple_bytes, block, window;
    uint64_t groups; /* after _approximate_gcd */
};

/* A page: rows a block x bytes a row, rounded up to 576 B. */
static uint64_t page_row(const struct policy_ctx *c, const char *key, const char *label,
                         uint64_t rows, uint64_t row_bytes, const char *note)
{
    struct explain_row *row = explain_row_begin(c->x, key, label, "per block");
    explain_term(row, (long double)rows, XU_COUNT, "rows a block");
    explain_term(row, (long double)row_bytes, XU_BYTES_EXACT, "a row");
    explain_op(row, XOP_MUL);
    explain_term(row, DSV4_ALIGN, XU_BYTES_EXACT, "alignment");
    explain_op(row, XOP_DIV);
    explain_op(row, XOP_CEIL);
    explain_term(row, DSV4_ALIGN, XU_BYTES_EXACT, "alignment");
    explain_op(row, XOP_MUL);
    explain_row_end(c->x, row, XU_BYTES_EXACT, 0, note);
    return aligned(rows * row_bytes);
}

/* _approximate_gcd: the chunk from `lower` to the largest count padding the
 * counts up to its multiples the least, ties to the larger. */
static uint64_t approximate_gcd(const struct bucket *b, int n, uint64_t lower)
{
    uint64_t hi = lower, best = lower, least = UINT64_MAX;
    for (int i = 0; i < n; i++)
        hi = b[i].tuples > hi ? b[i].tuples : hi;
    for (uint64_t d = lower; d >= 1 && d <= hi; d++) {
        uint64_t pad = 0;
        for (int i = 0; i < n; i++)
            pad += kv_ceil_div(b[i].tuples, d) * d - b[i].tuples;
        if (pad <= least) {
            least = pad;
            best = d;
        }
    }
    return best;
}

/* The page of each kind, the buckets of layer tuples (the MLA one first). */
static int buckets_of(const struct policy_ctx *c, uint64_t block, struct bucket *b)
{
    const struct model_spec *m = &c->s->model;
    const struct kv_cost *k = c->k;
    uint64_t row = k->bytes_per_layer;
    uint64_t csa = 0, index = 0, hca = 0, state = 0, index_state = 0, hca_state = 0;
    if (k->csa_layers) {
        csa = page_row(c, "page_csa", "CSA page", block / k->csa_ratio, row,
                       "a CSA layer's compressed rows of a block (MLAAttentionSpec)");
        index = page_row(c, "page_index", "Indexer page", block / k->csa_ratio, k->csa_index_bytes,
                         "their indexer keys (DeepseekV4IndexerCache)");
        state = page_row(c, "page_state_csa", "CSA state page", DSV4_STATE_BLOCK,
                         2ull * 2 * m->head_dim * 4,
                         "the compressor's fp32 kv and score, two overlapping groups");
        index_state = page_row(c, "page_state_index", "Indexer state page", DSV4_STATE_BLOCK,
                               2ull * 2 * m->csa_index_dim * 4, "the indexer's compressor");
    }
    if (k->hca_layers) {
        hca = page_row(c, "page_hca", "HCA page", block / k->hca_ratio, row,
                       "an HCA layer's compressed rows of a block");
        hca_state = page_row(c, "page_state_hca", "HCA state page", DSV4_STATE_BLOCK_HCA,
                             2ull * m->head_dim * 4, "the HCA compressor's fp32 kv and score");
    }
    uint64_t swa = page_row(c, "page_swa", "Window page", DSV4_SWA_BLOCK, row,
                            "a layer's window (DeepseekV4SWACache)");
    int n = 0;
    uint64_t mla = k->csa_layers > k->hca_layers ? k->csa_layers : k->hca_layers;
    b[n++] = (struct bucket){.key = "group_mla", .label = "MLA group",
                             .what = "compressed rows and indexer keys", .tuples = mla,
                             .tuple_bytes = kv_sat_add(kv_sat_mul(k->csa_layers, csa + index),
                                                       kv_sat_mul(k->hca_layers, hca)),
                             .block = block, .groups = 1};
    b[n++] = (struct bucket){.key = "group_swa", .label = "Window groups", .what = "windows",
                             .tuples = k->windowed_layers, .tuple_bytes = swa,
                             .block = DSV4_SWA_BLOCK, .window = k->window_tokens};
    if (k->csa_layers)
        b[n++] = (struct bucket){.key = "group_state_csa", .label = "CSA state group",
                                 .what = "CSA compressor states", .tuples = k->csa_layers,
                                 .tuple_bytes = state + index_state, .block = DSV4_STATE_BLOCK,
                                 .window = 2ull * k->csa_ratio};
    if (k->hca_layers)
        b[n++] = (struct bucket){.key = "group_state_hca", .label = "HCA state group",
                                 .what = "HCA compressor states", .tuples = k->hca_layers,
                                 .tuple_bytes = hca_state, .block = DSV4_STATE_BLOCK_HCA,
                                 .window = k->hca_ratio};
    return n;
}

/* A group's pages side by side: the MLA group all its pages, another the
 * tuples of its widest group. */
static uint64_t group_width(const struct bucket *g)
{
    return g->window == 0 ? g->tuple_bytes
                          : kv_sat_mul(kv_ceil_div(g->tuples, g->groups), g->tuple_bytes);
}

static void group_row(const struct policy_ctx *c, const struct bucket *g)
{
    const struct kv_cost *k = c->k;
    struct explain_row *row = explain_row_begin(c->x, g->key, g->label, "per block");
    char note[120];
    if (g->window == 0) {
        bool add = false;
        if (k->csa_layers) {
            explain_term(row, k->csa_layers, XU_COUNT, "CSA layers");
            explain_ref(c->x, row, "page_csa", "");
            explain_ref(c->x, row, "page_index", "");
            explain_op(row, XOP_ADD);
            explain_op(row, XOP_MUL);
            add = true;
        }
        if (k->hca_layers) {
            explain_term(row, k->hca_layers, XU_COUNT, "HCA layers");
            explain_ref(c->x, row, "page_hca", "");
            explain_op(row, XOP_MUL);
            if (add)
                explain_op(row, XOP_ADD);
        }
        snprintf(note, sizeof note, "one group, blocks of %llu tokens: the %s",
                 (unsigned long long)g->block, g->what);
        explain_row_end(c->x, row, XU_BYTES_EXACT, 0, note);
        return;
    }
    explain_term(row, (long double)g->tuples, XU_COUNT, "layers");
    explain_term(row, (long double)g->groups, XU_COUNT, g->groups == 1 ? "group" : "groups");
    explain_op(row, XOP_DIV);
    explain_op(row, XOP_CEIL);
    explain_term(row, (long double)g->tuple_bytes, XU_BYTES_EXACT, "pages a layer");
    explain_op(row, XOP_MUL);
    snprintf(note, sizeof note,
             "the widest of %llu group%s: %s, blocks of %llu tokens, a "
             "window of %llu",
             (unsigned long long)g->groups, g->groups == 1 ? "" : "s", g->what,
             (unsigned long long)g->block, (unsigned long long)g->window);
    explain_row_end(c->x, row, XU_BYTES_EXACT, 0, note);
}

/* The blocks one request holds in the window and state groups at len
 * tokens with `batched` tokens computed in its step, and their row (key
 * NULL: none): a whole batch prefilled is SlidingWindowSpec.
 * max_memory_usage_bytes, what vLLM's Maximum concurrency counts; 1, a
 * request decoding, holds each window's blocks and one more, the pool
 * freeing the blocks behind a window as tokens are computed
 * (v1/core/single_type_kv_cache_manager.py, SlidingWindowManager
 * get_num_skipped_tokens and remove_skipped_blocks). Flash at 128k on 8
 * H200s: 2 x 3 + 3 + 17 = 26 decoding, 3,354 prefilling. */
static uint64_t window_blocks_of(const struct policy_ctx *c, const struct bucket *b, int n,
                                 uint64_t len, uint64_t batched, const char *key,
                                 const char *label)
{
    uint64_t sum = 0;
    struct explain_row *row = key ? explain_row_begin(c->x, key, label, "per user") : NULL;
    for (int i = 1; i < n; i++) {
        uint64_t one = vllm_window_blocks(b[i].window, false, batched, len, b[i].block);
        sum = kv_sat_add(sum, kv_sat_mul(b[i].groups, one));
        explain_term(row, (long double)b[i].groups, XU_COUNT, b[i].what);
        explain_term(row, (long double)one, XU_COUNT, "blocks each");
        explain_op(row, XOP_MUL);
        if (i > 1)
            explain_op(row, XOP_ADD);
    }
    char note[160], t[32];
    if (batched > 1)
        snprintf(note, sizeof note,
                 "each group prefilling: min(window - 1 + %s batched tokens, context) in "
                 "its blocks, rounded up, and one more",
                 units_format_int(batched, t, sizeof t));
    else
        snprintf(note, sizeof note,
                 "each group decoding: its window's blocks and one more, those behind it freed");
    explain_row_end(c->x, row, XU_COUNT, 0, note);
    return sum;
}

uint64_t vllm_dsv4_block(const struct scenario *s, const char **why)
{
    uint64_t span = kvcost_compressed_span(&s->model);
    *why = "DeepSeek V4 (vLLM 0.20.1 on): its sparse MLA backends take 256, or a multiple of "
           "128 given";
    return s->block_tokens && span && s->block_tokens % span == 0 ? s->block_tokens : DSV4_BLOCK;
}

/* The blocks, their bytes and the users (policy_blocks), and what vLLM
 * prints of one request. */
void vllm_dsv4_blocks(const struct policy_ctx *c, struct block_rule *rule)
{
    const struct scenario *s = c->s;
    struct engine_detail *e = &c->b->engine;
    const char *why;
    uint64_t block = vllm_dsv4_block(s, &why);
    struct explain_row *row = explain_row_begin(c->x, "dsv4_block", "MLA block", "per block");
    explain_row_end(c->x, row, XU_TOKENS, (long double)block, why);
    struct bucket b[4];
    int n = buckets_of(c, block, b);
    uint64_t d = approximate_gcd(b, n, b[0].tuples);
    uint64_t stride = 0;
    uint32_t groups = 0;
    for (int i = 0; i < n; i++) {
        if (i > 0)
            b[i].groups = kv_ceil_div(b[i].tuples, d);
        groups += (uint32_t)b[i].groups;
        group_row(c, &b[i]);
        stride = group_width(&b[i]) > stride ? group_width(&b[i]) : stride;
    }
    int widest = 0;
    for (int i = 1; i < n; i++)
        widest = group_width(&b[i]) > group_width(&b[widest]) ? i : widest;
    row = explain_row_begin(c->x, "block_stride", "Block stride", "per block");
    explain_ref(c->x, row, b[widest].key, "");
    char note[120];
    snprintf(note, sizeof note,
             "the widest of the %u groups: a block of every group is one "
             "slab of this many bytes",
             groups);
    explain_row_end(c->x, row, XU_BYTES_EXACT, 0, note);
    e->unit_bytes = stride;
    e->units = c->b->kv_pool_bytes_per_gpu / stride;
    row = explain_row_begin(c->x, "units", "KV blocks", "per GPU");
    if (e->units == 0 && c->b->kv_pool_bytes_per_gpu == 0) {
        explain_row_end(c->x, row, XU_COUNT, 0, "no memory is left for the KV cache");
        row = NULL;
    }
    explain_ref(c->x, row, "pool", "pool");
    explain_ref(c->x, row, "block_stride", "a block");
    explain_op(row, XOP_DIV);
    explain_op(row, XOP_FLOOR);
    explain_row_end(c->x, row, XU_COUNT, 0, NULL);
    rule->unit_tokens = block;
    rule->units_given = rule->hybrid = true;
    rule->full_groups = 1;
    rule->window_groups = groups - 1;
    rule->window_ref = "window_blocks";
    rule->peak_ref = "window_blocks_prefill";
    uint64_t batched = e->max_num_batched_tokens, ctx = s->context_tokens;
    rule->window_units = window_blocks_of(c, b, n, ctx, 1, rule->window_ref, "Window blocks");
    rule->window_units_avg = window_blocks_of(c, b, n, scenario_avg_tokens(s), 1, NULL, NULL);
    rule->window_units_peak =
        window_blocks_of(c, b, n, ctx, batched, rule->peak_ref, "Prefill windows");
    if (rule->window_units_peak > rule->window_units)
        rule->scratch_units = rule->window_units_peak - rule->window_units;
    policy_blocks(c, rule);
    e->full_groups = 1; /* the simulator's pool: each window and state kind as it allocates */
    e->nwindows = 0;
    for (int i = 1; i < n && e->nwindows < ENGINE_WINDOW_KINDS; i++)
        e->windows[e->nwindows++] = (struct engine_window){
            .groups = (uint32_t)b[i].groups, .window = b[i].window, .block = b[i].block};
    uint64_t full = kv_ceil_div(ctx, block);
    uint64_t request = kv_sat_add(full, rule->window_units_peak);
    e->request_units = request;
    e->max_concurrency = (double)e->units / (double)request;
    row = explain_row_begin(c->x, "blocks_counted", "Blocks vLLM counts", "per request");
    explain_term(row, (long double)full, XU_COUNT, "MLA blocks");
    explain_ref(c->x, row, rule->peak_ref, "window blocks prefilling");
    explain_op(row, XOP_ADD);
    explain_row_end(c->x, row, XU_COUNT, 0,
                    "one request as vLLM's Maximum concurrency and its start-up check count it: "
                    "every window and state group holding a whole batch");
    vllm_concurrency_row(c, "blocks_counted");
    /* the smallest block over the groups, the unit of the log up to 0.20
     * (vllm_logged_tokens): the compressor states' 4 with CSA layers; from
     * 0.21 the log is int(max_concurrency x max_model_len), Flash at 128k on
     * 8 H200s int(111,608 / 3,866 x 131,072) = 3,783,932 tokens */
    uint64_t small = block;
    for (int i = 0; i < n; i++)
        small = b[i].block < small ? b[i].block : small;
    e->log_unit_tokens = small;
}

/* DeepSeek V4 in vLLM's recipe (0.20.1): the FP8 layout by name and the
 * model's own tokenizer mode. */
void vllm_dsv4_launch(const struct policy_ctx *c, struct shell_line *l)
{
    if (!c->k->compressed_span)
        return;
    if (c->k->kv_dtype == DTYPE_FP8)
        shell_words(l, "--kv-cache-dtype fp8_ds_mla");
    shell_words(l, "--tokenizer-mode deepseek_v4");
}
