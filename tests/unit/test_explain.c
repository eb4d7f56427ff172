/* Every explain row computes. Over more than 10,000 generated scenarios
 * (every catalogue model; 1 to 16 GPUs with every tensor-parallel size that
 * divides them; every profile; prefixes, tokens in use, cache and weight
 * precisions varied), each row's operands give the value it prints, that
 * value is the number the rest of kvplan uses (the count, the pool, the
 * tokens, the costs per user-hour and per million tokens, with a speed target
 * or none), the rows chain (an operand taken from another row is that row's
 * result), every operand is written in the formula, and users never rise
 * when the context grows. */
#include <math.h>

#include "catalog_fixture.h"

#include "io/report.h"
#include "core/engine_desc.h"
#include "core/kvcost.h"
#include "core/plan.h"

static struct explain rows; /* the explain rows of the last plan computed with them */

/* A small deterministic generator (xorshift), so a failure reproduces. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(uint64_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return n ? rng % n : 0;
}

static const enum dtype kv_choices[] = {DTYPE_AUTO, DTYPE_FP16, DTYPE_BF16, DTYPE_FP8,
                                        DTYPE_INT8, DTYPE_INT4, DTYPE_Q8_0, DTYPE_Q4_0};
static const enum dtype weight_choices[] = {DTYPE_AUTO, DTYPE_BF16, DTYPE_FP8, DTYPE_INT4};

/* The number a row stands for, as the rest of the program uses it. */
static bool expected(const struct plan_result *r, const char *key, long double *v)
{
    const struct {
        const char *key;
        long double value;
    } map[] = {
        {"kv_per_layer", r->cost.bytes_per_layer},
        {"kv_per_token", r->cost.bytes_per_token},
        {"kv_per_token_tp", (long double)r->cost.bytes_per_token * r->tp},
        {"kv_past_window", r->cost.bytes_per_token_global},
        {"weights_per_gpu", r->weights_bytes_per_gpu},
        {"kv_per_user", r->user_bytes_per_gpu},
        {"users", r->max_users},
        {"users_replica", r->users_per_replica},
        {"users_paged", r->max_users_paged},
        {"users_paged_replica", r->users_paged_per_replica},
        {"kv_tokens", r->kv_tokens},
        {"kv_tokens_replica", r->kv_tokens_per_replica},
        {"kv_per_user_paged", r->user_bytes_paged_per_gpu},
        {"waste", r->reservation_waste_bytes_per_gpu},
        {"units", r->engine.units},
        {"activation", r->engine.activation_bytes},
        {"cache", r->engine.kv_cache_bytes},
        {"cost", r->cost_per_user_hour},
        {"cost_output", r->cost_per_million_output_tokens},
        {"cost_input", r->cost_per_million_input_tokens},
        {"decode", r->decode_tokens_per_s_per_user},
        {"speed_bytes", r->speed.step_bytes_per_gpu},
        {"speed_memory", r->speed.memory_seconds},
        {"speed_flops", r->speed.step_flops_per_gpu},
        {"speed_step", r->speed.step_seconds},
        {"speed_comm", r->speed.comm_seconds - r->speed.a2a_seconds}, /* the all-reduces */
        {"speed_a2a", r->speed.a2a_seconds},
        /* a target no count keeps serves no throughput: the row says so */
        {"speed_total", r->speed.level_missed ? -1 : r->speed.tokens_per_s_total},
        {"host_user", r->host.user_bytes_per_gpu},
        {"host_users", r->host.users},
        {"host_beyond", r->host.beyond_gpu},
        {"host_reload", r->host.reload_seconds},
        {"host_recompute", r->host.recompute_seconds},
        {"host_restore", r->host.restore_seconds},
        {"ttft", r->speed.ttft_seconds},
        {"users_slo", r->speed.users_at_service_level},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(map[i].key, key) == 0) {
            *v = map[i].value;
            return true;
        }
    if (strcmp(key, "pool") == 0) {
        /* TensorRT-LLM's shortfall shows in its "free" row; its pool is then 0 */
        *v = r->kv_pool_bytes_per_gpu > 0  ? (long double)r->kv_pool_bytes_per_gpu
             : r->profile == ENGINE_TRTLLM ? 0
                                           : -(long double)r->shortfall_bytes_per_gpu;
        return !engine_desc(r->profile)->splits_layers || r->kv_pool_bytes_per_gpu > 0;
    }
    if (strcmp(key, "budget") == 0 && !engine_desc(r->profile)->splits_layers) {
        *v = r->engine.budget_bytes;
        return true;
    }
    return false;
}

static int checked_rows;

static void check_rows(const struct scenario *s, const struct plan_result *r, const char *what)
{
    const struct explain *e = &rows; /* r's, computed last */
    static const char *always[] = {"users", "kv_per_token", "pool",       "kv_tokens",
                                   "cost",  "cost_output",  "cost_input", "decode"};
    for (size_t k = 0; k < sizeof always / sizeof always[0]; k++)
        if (explain_find(e, always[k]) == NULL)
            fail_msg("%s: no %s row among %d", what, always[k], e->count);
    /* no row was lost to a full table (the last slot is reused when full) */
    if (e->count >= EXPLAIN_ROWS_MAX)
        fail_msg("%s: %d explain rows fill the table of %d", what, e->count, EXPLAIN_ROWS_MAX);
    if (s->host_kv_bytes && explain_find(e, "host_users") == NULL)
        fail_msg("%s: a host tier without its host_users row", what);
    for (int i = 0; i < e->count; i++) {
        const struct explain_row *row = &e->rows[i];
        char text[EXPLAIN_VALUE_MAX];
        /* the operands give the value printed */
        if (row->nsteps > 0) {
            long double v = explain_eval(row);
            explain_format(v, row->result.unit, e->units, text, sizeof text);
            if (strcmp(text, row->result.text) != 0)
                fail_msg("%s: row %s prints %s, its operands give %s", what, row->key,
                         row->result.text, text);
        }
        /* every operand is written in the formula, and chained rows agree */
        for (int t = 0; t < row->nterms; t++) {
            const struct xterm *term = &row->terms[t];
            if (strstr(row->formula, term->text) == NULL)
                fail_msg("%s: row %s does not show its operand %s (%s)", what, row->key,
                         term->text, row->formula);
            if (term->ref[0]) {
                const struct explain_row *from = explain_find(e, term->ref);
                if (from == NULL)
                    fail_msg("%s: row %s refers to a missing row %s", what, row->key, term->ref);
                if (from->result.value != term->value)
                    fail_msg("%s: row %s takes %s = %Lg, that row printed %Lg", what, row->key,
                             term->ref, term->value, from->result.value);
            }
        }
        /* the value printed is the number used everywhere else */
        long double want;
        if (expected(r, row->key, &want)) {
            bool money = row->result.unit == XU_USD || row->result.unit == XU_TOK_PER_S ||
                         row->result.unit == XU_SECONDS || row->result.unit == XU_FLOPS ||
                         strncmp(row->key, "speed_", 6) == 0;
            if (money && want < 0)
                want = row->result.value; /* unknown: a sentence, not a number */
            explain_format(want, row->result.unit, e->units, text, sizeof text);
            /* rates are doubles: equal within a part in 10^9 (a printed
             * half-cent may round either way), counts and bytes to the byte */
            if (money && fabsl(want - row->result.value) <= 1e-6L * fabsl(want) + 1e-12L)
                ;
            else if (strcmp(text, row->result.text) != 0)
                fail_msg("%s: row %s prints %s; the plan uses %s (%Lg)", what, row->key,
                         row->result.text, text, want);
            if (!money && fabsl(want - row->result.value) >= 1.0L)
                fail_msg("%s: row %s is %Lg; the plan uses %Lg", what, row->key,
                         row->result.value, want);
        }
        checked_rows++;
    }
    /* the headline says the same count; with a service level it can check,
     * it leads with the users who keep it, and those that fit follow */
    char line[512], n[32], lead[32], fit[48];
    report_headline(s, r, line, sizeof line);
    units_format_int(r->max_users, n, sizeof n);
    bool level = (s->min_tokens_per_s > 0 || s->max_ttft_seconds > 0) &&
                 !(s->max_ttft_seconds > 0 && r->speed.known && r->speed.peak_flops <= 0);
    units_format_int(level ? r->speed.users_at_service_level : r->max_users, lead, sizeof lead);
    snprintf(fit, sizeof fit, "; %s fit in memory at ", n);
    if (r->fits && r->max_users > 0 && strstr(line, lead) != line)
        fail_msg("%s: the headline '%s' does not lead with %s users", what, line, lead);
    if (r->fits && r->max_users > 0 && level && strstr(line, fit) == NULL)
        fail_msg("%s: the headline '%s' does not say %s fit", what, line, n);
    assert_int_equal(r->max_users, r->users_per_replica * r->replicas);
}

static void every_explain_row_computes_over_ten_thousand_scenarios(void **state)
{
    (void)state;
    int scenarios = 0, monotone = 0, most_rows = 0;
    static struct plan_result r, longer;
    for (size_t mi = 0; mi < cat.model_count; mi++) {
        const struct model_spec *m = &cat.models[mi].spec;
        for (uint32_t gpus = 1; gpus <= 16; gpus++) {
            for (uint32_t tp = 1; tp <= gpus; tp++) {
                if (gpus % tp != 0)
                    continue;
                for (int engine = 0; engine < ENGINE_COUNT; engine++) {
                    /* Gemma 4's global layers: refused where kvplan has no rule */
                    if (kvcost_has_global_dims(m) && !engine_desc(engine)->global_dims)
                        continue;
                    /* DeepSeek V4's compressed attention: likewise */
                    if (kvcost_has_compressed(m) && !engine_desc(engine)->compressed)
                        continue;
                    /* Ollama takes no --tp: one server over all the GPUs */
                    bool no_tp = engine_desc(engine)->refuses_tp != NULL;
                    if (no_tp && tp != gpus)
                        continue;
                    /* vLLM and SGLang refuse a TP that splits the heads unevenly */
                    if (engine_desc(engine)->refuses_uneven_tp &&
                        !scenario_heads_split(m, m->kv_heads, m->attention == ATTENTION_MLA, tp))
                        continue;
                    const struct gpu_spec *g = &cat.gpus[next(cat.gpu_count)].spec;
                    struct scenario s;
                    scenario_default(&s, g, m);
                    s.gpus = gpus;
                    s.tp = no_tp ? 0 : tp;
                    s.engine.kind = (enum engine_kind)engine;
                    s.units = next(4) == 0 ? UNITS_GB : UNITS_GIB;
                    s.context_tokens = 512ull << next(10); /* 512 to 256k */
                    if (next(3) == 0)
                        s.prefix_tokens = next(s.context_tokens / 2);
                    if (next(3) == 0)
                        s.avg_context_tokens = s.prefix_tokens + 1 +
                                               next(s.context_tokens - s.prefix_tokens);
                    s.kv_dtype = kv_choices[next(sizeof kv_choices / sizeof kv_choices[0])];
                    if (!engine_supports(engine, s.kv_dtype)) /* refused: not the engine's */
                        s.kv_dtype = DTYPE_AUTO;
                    /* SGLang's DeepSeek V4: its FP8 layout only, and no draft
                     * (refused by name: policy_sglang_dsv4.c) */
                    bool sglang_dsv4 = engine == ENGINE_SGLANG && kvcost_has_compressed(m);
                    if (sglang_dsv4)
                        s.kv_dtype = DTYPE_AUTO;
                    s.weight_dtype =
                        weight_choices[next(sizeof weight_choices / sizeof weight_choices[0])];
                    s.headroom_percent = (double)next(30);
                    if ((engine == ENGINE_LLAMACPP || engine == ENGINE_OLLAMA) && next(2) == 0)
                        s.engine.parallel = (uint32_t)(1 + next(8));
                    if (next(5) == 0)
                        s.full_attention = true;
                    /* past one node: the replicas become pipeline stages */
                    if (!engine_desc(engine)->splits_layers && gpus / tp > 1 && gpus / tp <= m->layers &&
                        next(3) == 0)
                        s.pp = gpus / tp;
                    /* vLLM and SGLang refuse stages their nodes do not share evenly */
                    if (s.pp > 1 && !scenario_layout_spans(&s, tp, s.pp))
                        s.pp = 0;
                    if (engine == ENGINE_SGLANG && tp > 1 && next(2) == 0)
                        s.dp_attention = true;
                    if (engine == ENGINE_VLLM && m->expert_params && next(2) == 0)
                        s.expert_parallel = true;
                    /* speculative decoding: MTP where the model ships it, else a draft */
                    if (next(4) == 0 && engine_desc(engine)->refuses_draft == NULL && !sglang_dsv4) {
                        bool mtp_engine = engine != ENGINE_LLAMACPP && engine != ENGINE_TRTLLM;
                        if (m->nextn_layers && mtp_engine && next(2) == 0) {
                            s.spec_method = SPEC_MTP;
                        } else {
                            s.spec_method = SPEC_DRAFT;
                            do /* no compressed draft: refused (scenario_validate) */
                                s.draft = cat.models[next(cat.model_count)].spec;
                            while (kvcost_has_compressed(&s.draft));
                        }
                        s.spec_tokens = (uint32_t)next(9); /* 0: the default */
                    }
                    /* the host tier, with and without a hit rate */
                    if (next(3) == 0) {
                        s.host_kv_bytes = (uint64_t)(1 + next(1024)) << 28;
                        s.has_prefix_hit_rate = next(2) == 0;
                        s.prefix_hit_rate = (double)next(101) / 100.0;
                    }
                    /* LoRA slots where they are modelled (core/lora.h) */
                    if ((engine == ENGINE_GENERIC || engine == ENGINE_VLLM ||
                         engine == ENGINE_SGLANG) && m->attention != ATTENTION_MLA &&
                        m->state_layers == 0 && !kvcost_has_compressed(m) && next(4) == 0) {
                        s.max_loras = (uint32_t)(1 + next(16));
                        s.max_lora_rank = 8u << next(5);
                    }
                    /* images in every request (core/images.h) */
                    if (next(5) == 0) {
                        s.images = (uint32_t)(1 + next(8));
                        if (m->image_tokens_per_image == 0 || next(2) == 0)
                            s.image_tokens = (uint32_t)(64 + next(2048));
                    }
                    /* a speed target: the costs are then the users' who keep it */
                    if (next(6) == 0)
                        s.min_tokens_per_s = (double)(1 + next(80));
                    /* vLLM and SGLang refuse a context past the model's longest
                     * (and its double, below) unless told to start anyway */
                    if (engine_desc(engine)->long_context.env &&
                        2 * s.context_tokens > m->max_context_tokens)
                        s.allow_long_context = true;
                    struct diag d = {0};
                    char what[200];
                    snprintf(what, sizeof what,
                             "%s on %u x %s (tp %u, pp %u%s, %s, ctx %llu, prefix %llu)", m->id,
                             gpus, g->id, tp, scenario_pp(&s), s.dp_attention ? ", dp-attn" : "",
                             engine_name(s.engine.kind),
                             (unsigned long long)s.context_tokens,
                             (unsigned long long)s.prefix_tokens);
                    if (!plan_compute(&s, &rows, NULL, &r, &d))
                        fail_msg("%s: %s", what, d.message);
                    check_rows(&s, &r, what);
                    if (rows.count >= EXPLAIN_ROWS_MAX)
                        fail_msg("%s: %d explain rows fill the %d slots", what, rows.count,
                                 EXPLAIN_ROWS_MAX);
                    if (rows.count > most_rows)
                        most_rows = rows.count;
                    scenarios++;
                    /* users never rise when the context doubles */
                    if (scenarios % 7 == 0) {
                        struct scenario s2 = s;
                        s2.context_tokens *= 2;
                        if (s2.avg_context_tokens == 0 && s.avg_context_tokens == 0 &&
                            plan_compute(&s2, PLAN_NUMBERS, NULL, &longer, &d)) {
                            if (longer.max_users > r.max_users)
                                fail_msg("%s: %llu users at twice the context, %llu now", what,
                                         (unsigned long long)longer.max_users,
                                         (unsigned long long)r.max_users);
                            monotone++;
                        }
                    }
                }
            }
        }
    }
    printf("explain: %d scenarios, %d rows checked, %d context doublings, at most %d rows\n",
           scenarios, checked_rows, monotone, most_rows);
    assert_true(scenarios >= 10000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_explain_row_computes_over_ten_thousand_scenarios),
    };
    return cmocka_run_group_tests_name("explain", tests, setup, teardown);
}
