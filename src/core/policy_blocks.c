/* Allocation in fixed units of tokens, shared by the policies (vLLM
 * blocks, SGLang tokens, TensorRT-LLM blocks): the units a pool holds, a
 * user's units, the users the scheduler takes, and a separate pool of whole
 * states (core/policy.h). */
#include "policy.h"

#include <stdio.h>

static uint64_t users_of(uint64_t units, uint64_t prefix_units, uint64_t per_user, uint32_t cap,
                         uint64_t *fit)
{
    uint64_t n = per_user && units > prefix_units ? (units - prefix_units) / per_user : 0;
    if (fit)
        *fit = n;
    return cap && n > cap ? cap : n;
}

/* Units one user holds privately at length len (prefix blocks shared whole). */
static uint64_t user_units(const struct block_rule *b, uint64_t len, uint64_t prefix,
                           uint64_t window_units)
{
    uint64_t own = kv_ceil_div(len, b->unit_tokens) - prefix / b->unit_tokens;
    if (!b->hybrid)
        return kv_sat_add(b->user_cap_units && own > b->user_cap_units ? b->user_cap_units : own,
                          b->state_units);
    return kv_sat_add(kv_sat_mul(b->full_groups, own),
                      kv_sat_mul(b->window_ref ? 1 : b->window_groups, window_units));
}

struct explain_row *policy_users_row_begin(const struct policy_ctx *c, bool paged, char *note,
                                           size_t size)
{
    char t[32];
    note[0] = '\0';
    if (paged && c->x) { /* the text only when the rows are kept */
        units_format_int(scenario_avg_tokens(c->s), t, sizeof t);
        snprintf(note, size, "at %s tokens in use", t);
    }
    return explain_row_begin(c->x, paged ? "users_paged_replica" : "users_replica",
                             paged ? "Users, paged" : "Users", "per replica");
}

/* min(floor((units - prefix units) / per user), cap) as a row: the users at
 * the full context (per user the row "units_per_user"), or paged */
static void users_row(const struct policy_ctx *c, const struct block_rule *b, bool paged,
                      uint64_t per_user, uint64_t prefix_units)
{
    uint64_t avail = c->b->engine.units;
    char note[96];
    struct explain_row *row = policy_users_row_begin(c, paged, note, sizeof note);
    if (avail == 0) {
        explain_row_end(c->x, row, XU_COUNT, 0, "no memory is left for the KV cache");
        return;
    }
    if (avail <= prefix_units) {
        explain_row_end(c->x, row, XU_COUNT, 0, "the shared prefix fills the KV pool");
        return;
    }
    if (avail <= kv_sat_add(prefix_units, b->scratch_units)) {
        explain_row_end(c->x, row, XU_COUNT, 0, "one prompt's prefill fills the KV pool");
        return;
    }
    explain_ref(c->x, row, "units", b->unit_tokens == 1 ? "tokens" : "blocks");
    if (prefix_units) {
        explain_term(row, (long double)prefix_units, XU_COUNT,
                     b->unit_tokens == 1 ? "shared prefix tokens" : "shared prefix blocks");
        explain_op(row, XOP_SUB);
    }
    if (b->scratch_units) {
        explain_ref(c->x, row, "prefill_scratch", "prefill scratch");
        explain_op(row, XOP_SUB);
    }
    if (!paged)
        explain_ref(c->x, row, "units_per_user", "per user");
    else
        explain_term(row, (long double)per_user, XU_COUNT, "per user");
    explain_op(row, XOP_DIV);
    explain_op(row, XOP_FLOOR);
    if (b->cap) {
        explain_term(row, b->cap, XU_COUNT, b->cap_name);
        explain_op(row, XOP_MIN);
    }
    explain_row_end(c->x, row, XU_COUNT, 0, paged ? note : NULL);
}

static void units_row(const struct policy_ctx *c, const struct block_rule *b, uint64_t pool)
{
    struct explain_row *row = b->units_given ? NULL : explain_row_begin(
        c->x, "units", b->unit_tokens == 1 ? "KV tokens" : "KV blocks", "per GPU");
    if (row && pool == 0) {
        explain_row_end(c->x, row, XU_COUNT, 0, "no memory is left for the KV cache");
        row = NULL;
    }
    explain_ref(c->x, row, b->pool_key ? b->pool_key : "pool", "pool");
    if (b->hybrid) {
        explain_term(row, b->unit_tokens, XU_TOKENS, "tokens per block");
        /* a block of a full group (Gemma 4: of its global layers, core/kvcost.h) */
        explain_ref(c->x, row, c->k->wide_layers ? "kv_per_global_layer" : "kv_per_layer",
                    "per layer");
        explain_op(row, XOP_MUL);
        explain_term(row, b->group_layers, XU_COUNT, "layers per group");
        explain_op(row, XOP_MUL);
    } else if (b->unit_tokens > 1) {
        explain_term(row, b->unit_tokens, XU_TOKENS, "tokens per block");
        explain_ref(c->x, row, "kv_per_token", "per token");
        explain_op(row, XOP_MUL);
    } else {
        explain_ref(c->x, row, "kv_per_token", "per token");
    }
    explain_op(row, XOP_DIV);
    explain_op(row, XOP_FLOOR);
    explain_row_end(c->x, row, XU_COUNT, 0, NULL);
}

static void per_user_row(const struct policy_ctx *c, const struct block_rule *b, uint64_t ctx,
                         uint64_t prefix)
{
    struct explain_row *row = explain_row_begin(
        c->x, "units_per_user", b->unit_tokens == 1 ? "Tokens per user" : "Blocks per user", "");
    if (b->hybrid)
        explain_term(row, b->full_groups, XU_COUNT,
                     b->full_groups == 1 ? "full group" : "full groups");
    explain_term(row, ctx, XU_TOKENS, "context tokens");
    if (b->unit_tokens > 1) {
        explain_term(row, b->unit_tokens, XU_TOKENS, "per block");
        explain_op(row, XOP_DIV);
        explain_op(row, XOP_CEIL);
    }
    if (prefix >= b->unit_tokens) {
        explain_term(row, prefix, XU_TOKENS, "prefix tokens");
        if (b->unit_tokens > 1) {
            explain_term(row, b->unit_tokens, XU_TOKENS, "per block");
            explain_op(row, XOP_DIV);
            explain_op(row, XOP_FLOOR);
        }
        explain_op(row, XOP_SUB);
    }
    if (b->user_cap_units && !b->hybrid) {
        explain_term(row, b->user_cap_units, XU_COUNT, "blocks of the window");
        explain_op(row, XOP_MIN);
    }
    if (b->state_units && !b->hybrid) {
        explain_term(row, b->state_units, XU_COUNT,
                     b->unit_tokens == 1 ? "tokens' worth of state" : "blocks of state");
        explain_op(row, XOP_ADD);
    }
    if (b->hybrid && b->window_ref) {
        explain_op(row, XOP_MUL);
        explain_ref(c->x, row, b->window_ref, "in the window and state groups");
        explain_op(row, XOP_ADD);
    } else if (b->hybrid) {
        explain_op(row, XOP_MUL);
        explain_term(row, b->window_groups, XU_COUNT, b->state ? "state groups" : "window groups");
        if (b->state && b->spec_units) {
            explain_term(row, 1, XU_COUNT, "running state");
            explain_term(row, b->spec_units, XU_COUNT, "speculative tokens' states");
            explain_op(row, XOP_ADD);
        } else {
            explain_term(row, b->window_units, XU_COUNT,
                         b->state ? "block of state each" : "blocks of its window");
        }
        explain_op(row, XOP_MUL);
        explain_op(row, XOP_ADD);
    }
    explain_row_end(c->x, row, XU_COUNT, 0,
                    b->state && b->spec_units
                        ? "blocks of a group: a state group keeps a block per sequence and one "
                          "per speculative token"
                    : b->state  ? "blocks of a group: a state group keeps one block per sequence"
                    : b->window_units_peak
                        ? "blocks of a group: a windowed group holds its window's blocks and one "
                          "more (vLLM frees the blocks behind a window as tokens are computed: "
                          "SlidingWindowManager.remove_skipped_blocks)"
                    : b->hybrid ? "blocks of a group: windowed groups keep the window and a batch"
                                : NULL);
}

/* The blocks one prompt holds beyond its share decoding while a batch of it
 * is prefilled: each window group min(window - 1 + a batch, context), not
 * its window alone; set aside once, since a step's batch is shared. */
static void scratch_row(const struct policy_ctx *c, const struct block_rule *b)
{
    struct explain_row *row =
        explain_row_begin(c->x, "prefill_scratch", "Prefill scratch", "per replica");
    if (b->window_ref) {
        explain_ref(c->x, row, b->peak_ref, "window blocks prefilling");
        explain_ref(c->x, row, b->window_ref, "decoding");
    } else {
        explain_term(row, b->window_groups, XU_COUNT, "window groups");
        explain_term(row, (long double)b->window_units_peak, XU_COUNT, "blocks prefilling");
        explain_term(row, (long double)b->window_units, XU_COUNT, "decoding");
    }
    explain_op(row, XOP_SUB);
    if (!b->window_ref)
        explain_op(row, XOP_MUL);
    char note[200], t[32];
    units_format_int(c->b->engine.max_num_batched_tokens, t, sizeof t);
    snprintf(note, sizeof note,
             "a prompt being prefilled holds min(window - 1 + %s batched tokens, context) in "
             "each window group until its step ends; set aside once: a step's batch is shared",
             t);
    explain_row_end(c->x, row, XU_COUNT, 0, note);
}

static void tokens_held_row(const struct policy_ctx *c, const struct block_rule *b,
                            uint32_t groups)
{
    struct explain_row *row =
        explain_row_begin(c->x, "kv_tokens_replica", "Tokens held", "per replica");
    explain_ref(c->x, row, "units", b->unit_tokens == 1 ? "tokens" : "blocks");
    if (groups > 1) {
        explain_term(row, groups, XU_COUNT, "groups");
        explain_op(row, XOP_DIV);
        explain_op(row, XOP_FLOOR);
    }
    if (b->unit_tokens > 1) {
        explain_term(row, b->unit_tokens, XU_TOKENS, "per block");
        explain_op(row, XOP_MUL);
    }
    explain_row_end(c->x, row, XU_TOKENS, 0, NULL);
}

void policy_blocks(const struct policy_ctx *c, const struct block_rule *b)
{
    const struct scenario *s = c->s;
    struct plan_budget *r = c->b;
    struct engine_detail *e = &r->engine;
    const struct kv_cost *k = c->k;
    e->unit_tokens = b->unit_tokens;
    /* a block of one group under the hybrid grouping, else of every layer */
    if (!b->units_given)
        e->unit_bytes = b->hybrid ? kv_sat_mul(kv_sat_mul(b->unit_tokens,
                                                      k->global_bytes_per_layer),
                                           b->group_layers)
                              : kv_sat_mul(b->unit_tokens, k->bytes_per_token);
    uint64_t pool = b->pool_key ? b->pool_bytes : r->kv_pool_bytes_per_gpu;
    if (!b->units_given)
        e->units = e->unit_bytes ? pool / e->unit_bytes : 0;
    e->scheduler_cap = b->cap;
    e->kv_cache_bytes = r->kv_pool_bytes_per_gpu;

    units_row(c, b, pool);
    /* Units of one user: its own blocks (whole prefix blocks are shared). */
    uint64_t ctx = s->context_tokens, prefix = s->prefix_tokens, avg = scenario_avg_tokens(s);
    uint64_t per_user = user_units(b, ctx, prefix, b->window_units);
    uint64_t per_user_avg = user_units(b, avg, prefix, b->window_units_avg);
    uint64_t prefix_units = prefix / b->unit_tokens;
    if (b->hybrid)
        prefix_units = kv_sat_mul(prefix_units, b->full_groups);
    uint64_t avail = e->units;
    per_user_row(c, b, ctx, prefix);
    if (b->scratch_units)
        scratch_row(c, b);
    /* the prefix and one prefill's scratch set aside, then whole users */
    uint64_t aside = kv_sat_add(prefix_units, b->scratch_units);
    r->users_per_replica = users_of(avail, aside, per_user, b->cap, &r->users_fit_per_replica);
    r->users_paged_per_replica = users_of(avail, aside, per_user_avg, b->cap, NULL);
    /* hybrid: vLLM logs the blocks over the groups as its token count */
    uint32_t groups = b->hybrid ? b->full_groups + b->window_groups : 1;
    r->kv_tokens_per_replica = kv_sat_mul(e->units / groups, b->unit_tokens);
    uint64_t unit_layer_bytes = e->unit_bytes;
    r->kv_used_bytes_per_gpu = kv_sat_mul(
        kv_sat_add(r->users_per_replica ? aside : prefix_units,
                   kv_sat_mul(r->users_per_replica, per_user)),
        unit_layer_bytes);
    r->prefix_bytes_paged_per_gpu = kv_sat_mul(prefix_units, unit_layer_bytes);
    r->prefix_bytes_per_gpu = r->prefix_bytes_paged_per_gpu;
    r->user_bytes_paged_per_gpu = kv_sat_mul(per_user_avg, unit_layer_bytes);

    if (!r->fits || e->units == 0) {
        struct explain_row *row =
            explain_row_begin(c->x, "users_replica", "Users", "per replica");
        explain_row_end(c->x, row, XU_COUNT, 0, "no memory is left for the KV cache");
    } else {
        users_row(c, b, false, per_user, prefix_units);
    }
    users_row(c, b, true, per_user_avg, prefix_units);

    tokens_held_row(c, b, groups);
}

uint64_t policy_state_pool(const struct policy_ctx *c, uint64_t slots, uint64_t spec,
                           const char *note)
{
    struct plan_budget *r = c->b;
    uint64_t pool = r->kv_pool_bytes_per_gpu;
    uint64_t bytes = kv_sat_add(kv_sat_mul(slots, c->k->state_bytes), spec);
    r->state_slots_per_replica = slots;
    struct explain_row *row = explain_row_begin(c->x, "kv_pool_after_state", "KV pool left", "per GPU");
    if (pool <= bytes) {
        explain_row_end(c->x, row, XU_BYTES, 0, "no memory is left for the KV cache");
        return 0;
    }
    explain_ref(c->x, row, "pool", "pool");
    explain_ref(c->x, row, "state_slots", "state slots");
    explain_ref(c->x, row, "state_per_user", "state each");
    explain_op(row, XOP_MUL);
    explain_op(row, XOP_SUB);
    if (spec) {
        explain_ref(c->x, row, "state_spec", "draft-token states");
        explain_op(row, XOP_SUB);
    }
    explain_row_end(c->x, row, XU_BYTES, 0, note);
    return pool - bytes;
}

void policy_state_pool_used(const struct policy_ctx *c)
{
    struct plan_budget *r = c->b;
    /* the state pool is allocated whole, used or not: kv_used counts it all,
     * state_used the users' states, the rest is idle (plan_segments: spare) */
    uint64_t bytes = kv_sat_add(kv_sat_mul(r->state_slots_per_replica, c->k->state_bytes),
                                r->state_spec_bytes_per_gpu);
    uint64_t users = r->users_per_replica < r->state_slots_per_replica ? r->users_per_replica
                                                                       : r->state_slots_per_replica;
    r->state_pool_bytes_per_gpu = bytes;
    r->state_used_bytes_per_gpu =
        kv_sat_add(kv_sat_mul(users, c->k->state_bytes), r->state_spec_bytes_per_gpu);
    r->kv_used_bytes_per_gpu = kv_sat_add(r->kv_used_bytes_per_gpu, bytes);
    r->state_bytes_per_user_per_gpu = c->k->state_bytes;
    r->user_bytes_paged_per_gpu = kv_sat_add(r->user_bytes_paged_per_gpu, c->k->state_bytes);
}

/* Pages that are not multiples of one another (vLLM refuses or pads them;
 * heads that divide the TP give powers of two) are taken at the next
 * multiple. */
uint64_t policy_unify_pages(const struct policy_ctx *c, struct block_rule *b)
{
    const struct kv_cost *k = c->k;
    uint64_t unit = b->unit_tokens, pw = k->bytes_per_layer, pf = k->global_bytes_per_layer;
    if (k->wide_layers == 0 || pw == pf || pw == 0 || pf == 0)
        return unit;
    bool wide_small = pf < pw;
    uint64_t ratio = wide_small ? kv_ceil_div(pw, pf) : kv_ceil_div(pf, pw);
    if (wide_small)
        b->unit_tokens = unit * ratio;
    struct explain_row *row = explain_row_begin(c->x, wide_small ? "global_block" : "window_block",
                                                wide_small ? "Global block" : "Windowed block",
                                                "per block");
    explain_term(row, unit, XU_TOKENS, "block size");
    explain_term(row, ratio, XU_COUNT, wide_small ? "windowed page / global page"
                                                  : "global page / windowed page");
    explain_op(row, XOP_MUL);
    explain_row_end(c->x, row, XU_TOKENS, 0,
                    "vLLM's pages are one size (unify_kv_cache_spec_page_size): the layers with "
                    "the smaller page per token take blocks that many times larger");
    return wide_small ? unit : unit * ratio;
}
