/* The generic rule (the seed article's): memory x (1 - headroom) - weights
 * is the KV pool; users are the pool over one user's full context, paged
 * users the pool over the tokens in use rounded up to whole blocks. */
#include "engine_desc.h"
#include "policy.h"
#include "speed.h"

#include <math.h>
#include <stdio.h>

static uint64_t round_up(uint64_t tokens, uint64_t block)
{
    return kv_ceil_div(tokens, block) * block;
}

static uint64_t users_of(uint64_t pool, uint64_t prefix, uint64_t per_user)
{
    return per_user && pool > prefix ? (pool - prefix) / per_user : 0;
}

/* floor((pool - prefix) / per user), or why no user fits: the users at the
 * full context, or paged (the prefix and each user in whole blocks) */
static void users_row(const struct policy_ctx *c, bool paged)
{
    const struct plan_budget *r = c->b;
    if (c->x == NULL) /* a row only */
        return;
    uint64_t prefix = paged ? r->prefix_bytes_paged_per_gpu : r->prefix_bytes_per_gpu;
    char note[64];
    struct explain_row *row = policy_users_row_begin(c, paged, note, sizeof note);
    if (!r->fits) {
        explain_row_end(c->x, row, XU_COUNT, 0, r->weights_fit
                        ? "the weights and LoRA slots leave no KV pool"
                        : "the weights do not fit: no KV pool");
        return;
    }
    if (r->kv_pool_bytes_per_gpu <= prefix) {
        explain_row_end(c->x, row, XU_COUNT, 0, "the shared prefix fills the KV pool");
        return;
    }
    explain_ref(c->x, row, "pool", "pool");
    if (prefix) {
        explain_term(row, (long double)prefix, XU_BYTES,
                     paged ? "prefix in whole blocks" : "prefix");
        explain_op(row, XOP_SUB);
    }
    explain_ref(c->x, row, paged ? "kv_per_user_paged" : "kv_per_user", "per user");
    explain_op(row, XOP_DIV);
    explain_op(row, XOP_FLOOR);
    explain_row_end(c->x, row, XU_COUNT, 0, paged ? note : NULL);
}

/* The row "kv_per_user_paged": the user's tokens in use in whole blocks
 * (`global` and `windowed` of them, with windows), and its state. */
static void paged_user_row(const struct policy_ctx *c, uint64_t global, uint64_t windowed)
{
    const struct scenario *s = c->s;
    const struct kv_cost *k = c->k;
    uint64_t b = c->l->block_tokens;
    if (c->x == NULL) /* a row only */
        return;
    struct explain_row *row = explain_row_begin(
        c->x, "kv_per_user_paged", k->state_bytes ? "KV+state, paged" : "KV per user, paged",
        "per GPU");
    if (k->windowed_layers == 0 && !k->compressed_span) {
        explain_term(row, scenario_avg_tokens(s), XU_TOKENS, "tokens in use");
        if (s->prefix_tokens) {
            explain_term(row, s->prefix_tokens, XU_TOKENS, "prefix");
            explain_op(row, XOP_SUB);
        }
        explain_term(row, b, XU_TOKENS, "per block");
        explain_op(row, XOP_DIV);
        explain_op(row, XOP_CEIL);
        explain_term(row, b, XU_TOKENS, "per block");
        explain_op(row, XOP_MUL);
        explain_ref(c->x, row, "kv_per_token", "per token");
        explain_op(row, XOP_MUL);
    } else {
        policy_bytes_expr(c, row, global, windowed, "tokens in whole blocks");
    }
    if (k->state_bytes > 0) {
        explain_ref(c->x, row, "state_per_user", "state");
        explain_op(row, XOP_ADD);
    }
    explain_row_end(c->x, row, XU_BYTES, 0, NULL);
}

static void budget(const struct policy_ctx *c)
{
    const struct scenario *s = c->s;
    struct plan_budget *r = c->b;
    const struct kv_cost *k = c->k;
    uint64_t mem = scenario_gpu_memory(s);
    uint64_t headroom = (uint64_t)llroundl((long double)mem * s->headroom_percent / 100.0L);
    uint64_t budget = mem - headroom;
    r->memory_bytes_per_gpu = mem;
    r->reserved_bytes_per_gpu = headroom;
    /* LoRA slots (core/lora.h) are held beside the weights */
    uint64_t held = kv_sat_add(c->l->weights_bytes_per_gpu, c->lora->bytes);
    r->weights_fit = c->l->weights_bytes_per_gpu <= budget;
    r->fits = held <= budget;
    if (r->fits)
        r->kv_pool_bytes_per_gpu = budget - held;
    else
        r->shortfall_bytes_per_gpu = held - budget;

    policy_user_bytes(c);

    struct explain_row *row = explain_row_begin(c->x, "pool", "KV pool", "per GPU");
    explain_term(row, mem, XU_BYTES,
                 s->has_vram                             ? "memory (--vram)"
                 : s->gpu.unified_bytes && s->wired_limit_mb ? "memory (--wired-limit-mb)"
                 : s->gpu.unified_bytes                  ? "memory (Metal's working set)"
                                                         : "memory");
    char name[48] = "";
    if (row) /* the texts only when the rows are kept */
        snprintf(name, sizeof name, "headroom (%g%%)", s->headroom_percent);
    explain_term(row, headroom, XU_BYTES, name);
    explain_op(row, XOP_SUB);
    policy_weights_term(c, row);
    explain_op(row, XOP_SUB);
    if (c->lora->bytes) {
        explain_ref(c->x, row, "lora", "LoRA slots");
        explain_op(row, XOP_SUB);
    }
    explain_row_end(c->x, row, XU_BYTES, 0, NULL);

    /* Every user reserves the full context. */
    r->users_fit_per_replica = r->fits ? users_of(r->kv_pool_bytes_per_gpu, r->prefix_bytes_per_gpu,
                                                  r->user_bytes_per_gpu)
                                       : 0;
    r->users_per_replica = r->users_fit_per_replica;
    users_row(c, false);
    r->kv_used_bytes_per_gpu = r->prefix_bytes_per_gpu + r->users_per_replica * r->user_bytes_per_gpu;
    r->state_used_bytes_per_gpu = kv_sat_mul(r->users_per_replica, k->state_bytes);
    r->reservation_waste_bytes_per_gpu =
        r->users_per_replica * (r->user_bytes_per_gpu - r->user_bytes_avg_per_gpu);

    /* Paged: the tokens in use, each sequence rounded up to whole blocks. */
    uint64_t b = c->l->block_tokens;
    struct token_split avg = kvcost_split(k, scenario_avg_tokens(s), s->prefix_tokens);
    uint64_t ug = round_up(avg.user_global, b), uw = round_up(avg.user_windowed, b);
    r->user_bytes_paged_per_gpu = kv_sat_add(kvcost_bytes(k, ug, uw), k->state_bytes);
    r->prefix_bytes_paged_per_gpu =
        kvcost_bytes(k, round_up(avg.prefix_global, b), round_up(avg.prefix_windowed, b));
    r->users_paged_per_replica = r->fits ? users_of(r->kv_pool_bytes_per_gpu,
                                                    r->prefix_bytes_paged_per_gpu,
                                                    r->user_bytes_paged_per_gpu)
                                         : 0;
    paged_user_row(c, ug, uw);
    users_row(c, true);

    if (r->reservation_waste_bytes_per_gpu > 0) {
        row = explain_row_begin(c->x, "waste", "Reservation waste", "per GPU");
        explain_ref(c->x, row, "users_replica", r->users_per_replica == 1 ? "user" : "users");
        explain_ref(c->x, row, "kv_per_user", "reserved");
        explain_term(row, r->user_bytes_avg_per_gpu, XU_BYTES, "in use");
        explain_op(row, XOP_SUB);
        explain_op(row, XOP_MUL);
        explain_row_end(c->x, row, XU_BYTES, 0, "what paging would give back");
    }

    r->kv_tokens_per_replica = k->bytes_per_token ? r->kv_pool_bytes_per_gpu / k->bytes_per_token : 0;
    row = explain_row_begin(c->x, "kv_tokens_replica", "Tokens held", "per replica");
    if (!r->fits) {
        explain_row_end(c->x, row, XU_TOKENS, 0, r->weights_fit
                        ? "the weights and LoRA slots leave no KV pool"
                        : "the weights do not fit: no KV pool");
        return;
    }
    explain_ref(c->x, row, "pool", "pool");
    explain_ref(c->x, row, "kv_per_token", "per token");
    explain_op(row, XOP_DIV);
    explain_op(row, XOP_FLOOR);
    explain_row_end(c->x, row, XU_TOKENS, 0,
                    k->compressed_span ? "a token's compressed rows; each user's window and "
                                         "state come beside them"
                    : k->windowed_layers ? "every layer counted at full length: windows hold more"
                                         : NULL);
}

/* The headroom rule: no launch line, no log; windows held as windows, the
 * state in vLLM's precisions, LoRA slots beside the weights. */
const struct engine_desc engine_generic = {
    .step_overhead_s = SPEED_STEP_OVERHEAD_S,
    .kind = ENGINE_GENERIC,
    .global_dims = true,
    .compressed = engine_any_rule,
    .name = "generic",
    .title = "the generic rule",
    .title_a = "a generic",
    .mtp = true,
    .spec_tokens = 1,
    .spec_lookahead = true,
    .lora_flag = "--max-loras",
    .runtime_words = "activations+rt",
    .reserved_words = "headroom",
    .host = {.words = "each GPU's host memory for parked caches, their caches whole"},
    .budget = budget,
};
