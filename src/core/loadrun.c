/* loadrun: the checks simulate makes, one run, and a sweep of rates
 * (loadrun.h). */
#include "loadrun.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_desc.h"
#include "optname.h"
#include "units.h"

void load_defaults(const struct scenario *s, struct load_settings *ls)
{
    memset(ls, 0, sizeof *ls);
    uint64_t room = s->context_tokens > s->prefix_tokens ? s->context_tokens - s->prefix_tokens : 1;
    ls->output_len = WORKLOAD_DEFAULT_OUTPUT_LEN < room / 2 ? WORKLOAD_DEFAULT_OUTPUT_LEN
                                                           : (room / 2 ? room / 2 : 1);
    uint64_t in = s->prompt_tokens > s->prefix_tokens ? s->prompt_tokens - s->prefix_tokens
                                                      : WORKLOAD_DEFAULT_INPUT_LEN;
    uint64_t most = room > ls->output_len ? room - ls->output_len : 1;
    ls->input_len = in < most ? in : most;
    ls->slo_ttft_ms = s->max_ttft_seconds > 0 ? s->max_ttft_seconds * 1000.0 : 1000.0;
    ls->slo_tpot_ms = s->min_tokens_per_s > 0 ? 1000.0 / s->min_tokens_per_s : 50.0;
}

static bool simulates(const struct engine_desc *e)
{
    return e->simulated != NULL;
}

bool load_without_stages(struct scenario *s)
{
    if (s->pp != 0 || scenario_pp(s) <= 1)
        return false;
    s->pp = 1; /* the layouts of one stage: replicas of TP */
    return true;
}

void load_scenario(const struct scenario *s, struct scenario *out)
{
    *out = *s;
    load_without_stages(out);
    const struct engine_desc *v1 = engine_find(simulates);
    if (!engine_desc(s->engine.kind)->server && v1) {
        out->engine.kind = v1->kind;
        out->engine.rule = RULE_CURRENT;
    }
}

bool load_check_plan(const struct scenario *s, const struct plan_result *r, struct diag *d)
{
    const struct engine_desc *e = engine_desc(s->engine.kind);
    if (!e->server)
        return diag_fail(d, "%s: the generic rule has no scheduler: simulate models vLLM V1's, "
                         "SGLang's, llama.cpp's and TensorRT-LLM's (--engine NAME)",
                         OPTNAME_ENGINE);
    if (!e->simulated || !e->simulated(s->engine.rule))
        return diag_fail(d, "simulate models vLLM V1's scheduler; %s %s%s is not simulated yet",
                         OPTNAME_ENGINE, e->name, e->simulated ? "@0" : "");
    if (s->spec_method != SPEC_NONE)
        return diag_fail(d, "%s: simulate does not model speculative decoding yet",
                         s->spec_method == SPEC_DRAFT ? OPTNAME_DRAFT_MODEL
                                                      : OPTNAME_SPECULATIVE_METHOD);
    if (r->placement.pp > 1)
        return diag_fail(d, "%s %u: simulate does not model pipeline stages yet (their batches "
                         "in flight)", OPTNAME_PP, r->placement.pp);
    if (r->placement.dp_attention)
        return diag_fail(d, "%s: simulate does not model DP attention yet (each rank's own "
                         "requests)", OPTNAME_DP_ATTENTION);
    if (s->host_kv_bytes)
        return diag_fail(d, "%s: simulate does not model a host tier yet", OPTNAME_HOST_KV);
    if (r->image_counts.images)
        return diag_fail(d, "%s: simulate does not model images yet", OPTNAME_IMAGES);
    if (r->placement.replicas > SIM_MAX_REPLICAS)
        return diag_fail(d, "%s %u: %u replicas; simulate takes at most %u (give --tp)",
                         OPTNAME_GPUS, s->gpus, r->placement.replicas, SIM_MAX_REPLICAS);
    if (s->gpu.bandwidth_bytes_per_s == 0 || r->speed.peak_flops <= 0)
        return diag_fail(d, "%s %s: no %s figure, so no step time to simulate with", OPTNAME_GPU,
                         s->gpu.id, s->gpu.bandwidth_bytes_per_s ? "compute" : "bandwidth");
    return true;
}

/* The engine whose scheduler c runs (its words for the messages); NULL for
 * none. */
static const struct engine_desc *scheduler_engine(const struct sim_config *c)
{
    for (int k = 0; k < ENGINE_COUNT; k++) {
        const struct engine_desc *e = engine_desc((enum engine_kind)k);
        if (e->server && e->simulated && e->sched.kind == c->sched)
            return e;
    }
    return NULL;
}

/* An engine without chunked prefill runs a prompt whole in one step: one
 * longer than a step's tokens never runs. */
static bool prompts_fit(const struct workload_params *p, const struct sim_config *c,
                        struct diag *d)
{
    const struct engine_desc *e = scheduler_engine(c);
    uint64_t longest = p->prefix_len + workload_bounds(p).in_hi;
    if (e == NULL || !e->sched.whole_prompts || longest <= c->max_num_batched_tokens)
        return true;
    return diag_fail(d, "%s %llu: a prompt of up to %llu tokens is longer than %s's %s %llu "
                     "(%s): without chunked prefill it never runs", OPTNAME_RANDOM_INPUT_LEN,
                     (unsigned long long)p->input_len, (unsigned long long)longest, e->title,
                     e->sched.tokens_name, (unsigned long long)c->max_num_batched_tokens,
                     OPTNAME_MAX_NUM_BATCHED_TOKENS);
}

/* A profile's bounds: the context and the pool for every request, a step's
 * tokens for a prompt run whole; at least one request within them. */
static bool profile_bounds(struct workload_params *p, const struct sim_config *c, struct diag *d)
{
    const struct engine_desc *e = scheduler_engine(c);
    uint64_t pool = sim_most_tokens(c);
    p->most_total = c->max_model_len < pool ? c->max_model_len : pool;
    p->most_prompt = e && e->sched.whole_prompts ? c->max_num_batched_tokens : 0;
    struct workload_fit f = workload_profile_fit(p);
    if (f.count > 0)
        return true;
    char n[32];
    units_format_int(p->profile->n, n, sizeof n);
    return diag_fail(d, "%s %s: none of its %s requests fits %s (%llu tokens%s%s)",
                     OPTNAME_DATASET, p->profile->name, n,
                     p->most_total == c->max_model_len ? "the context" : "the KV pool",
                     (unsigned long long)p->most_total, p->prefix_len ? " with the prefix" : "",
                     p->most_prompt ? ", prompts run whole within the step's tokens" : "");
}

bool load_check_workload(struct workload_params *p, const struct sim_config *c, struct diag *d)
{
    if (p->profile)
        return profile_bounds(p, c, d);
    struct workload_bounds b = workload_bounds(p);
    const char *in = OPTNAME_RANDOM_INPUT_LEN, *out = OPTNAME_RANDOM_OUTPUT_LEN;
    if (p->prefix_len + b.in_lo < 1)
        return diag_fail(d, "%s %llu: with %s %g the shortest prompt has no token", in,
                         (unsigned long long)p->input_len, OPTNAME_RANDOM_RANGE_RATIO,
                         p->range_ratio);
    uint64_t longest = p->prefix_len + b.in_hi + b.out_hi;
    if (longest > c->max_model_len)
        return diag_fail(d, "%s %llu and %s %llu: a request of up to %llu tokens (prefix, "
                         "prompt and output, %s %g) is longer than the context (%s %llu)", in,
                         (unsigned long long)p->input_len, out, (unsigned long long)p->output_len,
                         (unsigned long long)longest, OPTNAME_RANDOM_RANGE_RATIO,
                         p->range_ratio, OPTNAME_CONTEXT, (unsigned long long)c->max_model_len);
    uint64_t need = sim_request_blocks(c, longest - 1), prefix = sim_prefix_blocks(c);
    if (need + prefix > c->blocks)
        return diag_fail(d, "%s %llu and %s %llu: a request of up to %llu tokens needs %llu KV "
                         "blocks; the pool holds %llu", in, (unsigned long long)p->input_len, out,
                         (unsigned long long)p->output_len, (unsigned long long)longest,
                         (unsigned long long)(need + prefix), (unsigned long long)c->blocks);
    return prompts_fit(p, c, d);
}

/* The config's scheduler checks, after sim_config_of_plan. */
bool load_check_config(const struct plan_result *r, const struct sim_config *c, struct diag *d)
{
    const struct engine_desc *e = scheduler_engine(c);
    if (c->blocks == 0 || !r->fits)
        return diag_fail(d, "no KV cache: the weights leave %s no memory for it (see kvplan "
                         "plan)", e ? e->title : "the engine");
    /* vLLM refuses it at startup: vllm/config/scheduler.py, SchedulerConfig's
     * checks ("max_num_batched_tokens ... must be greater than or equal to
     * max_num_seqs") */
    if (e && e->sched.seqs_within_batch && c->max_num_batched_tokens < c->max_num_seqs)
        return diag_fail(d, "--max-num-batched-tokens %llu is below --max-num-seqs %llu: vLLM "
                         "refuses to start so (give --max-num-seqs %llu or fewer)",
                         (unsigned long long)c->max_num_batched_tokens,
                         (unsigned long long)c->max_num_seqs,
                         (unsigned long long)c->max_num_batched_tokens);
    return true;
}

bool load_prepare(const struct scenario *s, const struct plan_result *r,
                  const struct load_settings *ls, uint64_t n, struct sim_config *c,
                  struct workload_params *w, struct diag *d)
{
    sim_config_of_plan(s, r, c);
    if (!load_check_config(r, c, d))
        return false;
    c->max_concurrency = ls->max_concurrency;
    c->slo_ttft = ls->slo_ttft_ms / 1000.0;
    c->slo_tpot = ls->slo_tpot_ms / 1000.0;
    *w = (struct workload_params){.num_prompts = n, .request_rate = ls->rate, .burstiness = 1.0,
                                  .input_len = ls->input_len, .output_len = ls->output_len,
                                  .prefix_len = s->prefix_tokens, .seed = ls->seed,
                                  .profile = ls->profile};
    return load_check_workload(w, c, d);
}

enum sim_status load_run(const struct sim_config *c, const struct workload_params *w,
                         struct sim_result *out)
{
    struct workload_request *q = malloc((size_t)w->num_prompts * sizeof *q);
    if (q == NULL) {
        memset(out, 0, sizeof *out);
        return out->status = SIM_NO_MEMORY;
    }
    workload_generate(w, q);
    enum sim_status st = sim_run(c, q, (size_t)w->num_prompts, out);
    free(q);
    return st;
}

int load_knee(const struct load_sweep *sw, const struct load_settings *ls)
{
    for (int i = 0; i < sw->count; i++) {
        const struct load_point *p = &sw->pt[i];
        if (!p->ok || p->over || p->ttft_p95 > ls->slo_ttft_ms || p->tpot_p95 > ls->slo_tpot_ms)
            return i;
    }
    return -1;
}

bool load_sweep_run(const struct sim_config *c, const struct workload_params *w,
                    const struct load_settings *ls, struct load_sweep *out)
{
    memset(out, 0, sizeof *out);
    out->knee = -1;
    struct workload_params at = *w;
    struct sim_result res;
    at.request_rate = INFINITY;
    if (load_run(c, &at, &res) != SIM_OK || res.duration <= 0)
        return false;
    out->capacity = res.request_throughput;
    for (int i = 0; i < LOAD_SWEEP_POINTS; i++) {
        struct load_point *p = &out->pt[i];
        p->rate = out->capacity * (0.125 + 1.375 * i / (LOAD_SWEEP_POINTS - 1));
        at.request_rate = p->rate;
        p->ok = load_run(c, &at, &res) == SIM_OK;
        p->ttft_p50 = res.ttft.median * 1000.0;
        p->ttft_p95 = res.ttft.p95 * 1000.0;
        p->tpot_p50 = res.tpot.median * 1000.0;
        p->tpot_p95 = res.tpot.p95 * 1000.0;
        p->served = res.request_throughput;
        p->over = res.over_capacity;
    }
    out->count = LOAD_SWEEP_POINTS;
    out->knee = load_knee(out, ls);
    return true;
}

double load_default_rate(double capacity)
{
    double half = capacity / 2;
    if (!(half > 0) || !isfinite(half))
        return 1.0;
    double unit = pow(10.0, floor(log10(half)) - 1);
    double r = floor(half / unit) * unit;
    return r > 0 ? r : half;
}

/* The value at quantile q (0.90 to 0.99) through the p90, p95 and p99. */
static double quantile_of(const struct sim_stats *st, double q)
{
    if (q <= 0.90)
        return st->p90;
    if (q <= 0.95)
        return st->p90 + (st->p95 - st->p90) * (q - 0.90) / 0.05;
    if (q <= 0.99)
        return st->p95 + (st->p99 - st->p95) * (q - 0.95) / 0.04;
    return st->p99;
}

double load_p95_spread(const struct sim_stats *st, uint64_t n)
{
    if (n == 0)
        return 0;
    double dq = 1.96 * sqrt(0.95 * 0.05 / (double)n);
    return (quantile_of(st, 0.95 + dq) - quantile_of(st, 0.95 - dq)) / 2;
}
