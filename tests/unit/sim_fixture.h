/* The simulator's tests' fixtures: a trace of the steps and tokens a run
 * makes (its callbacks), a step of fixed length, and configs of real plans.
 * Static inline so each test file takes what it uses. */
#ifndef KVPLAN_TESTS_SIM_FIXTURE_H
#define KVPLAN_TESTS_SIM_FIXTURE_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "core/plan.h"
#include "core/sim.h"
#include "core/workload.h"
#include "model_fixture.h"

/* What a run did, as the callbacks saw it. */
enum { TRACE_MAX = 64 };
struct trace {
    size_t steps;
    double start[TRACE_MAX], seconds[TRACE_MAX];
    size_t n[TRACE_MAX];
    struct step_seq seqs[TRACE_MAX][4];
    size_t tokens;
    size_t req[TRACE_MAX];
    uint64_t index[TRACE_MAX];
    double t[TRACE_MAX];
};

static inline void on_step(void *ctx, uint32_t replica, double start, double seconds,
                    const struct step_seq *seqs, size_t n)
{
    struct trace *tr = ctx;
    (void)replica;
    if (tr->steps >= TRACE_MAX)
        return;
    tr->start[tr->steps] = start;
    tr->seconds[tr->steps] = seconds;
    tr->n[tr->steps] = n;
    for (size_t i = 0; i < n && i < 4; i++)
        tr->seqs[tr->steps][i] = seqs[i];
    tr->steps++;
}

static inline void on_token(void *ctx, size_t request, uint64_t index, double t)
{
    struct trace *tr = ctx;
    if (tr->tokens >= TRACE_MAX)
        return;
    tr->req[tr->tokens] = request;
    tr->index[tr->tokens] = index;
    tr->t[tr->tokens] = t;
    tr->tokens++;
}

/* Every step takes 10 ms whatever it runs: 1 byte of weights at 100 B/s. */
static inline struct sim_config fixed_step(struct trace *tr)
{
    struct sim_config c = {0};
    c.model.dense_bytes = 1;
    c.machine.bytes_per_s = 100;
    c.machine.mbu = 1;
    c.replicas = 1;
    c.blocks = 1000;
    c.block_tokens = 4;
    c.max_num_seqs = 8;
    c.max_num_batched_tokens = 8;
    c.max_model_len = 1000;
    c.max_steps = SIM_MAX_STEPS;
    c.max_seconds = SIM_MAX_SECONDS;
    c.slo_ttft = c.slo_tpot = c.slo_e2el = -1;
    c.on_step = on_step;
    c.on_token = on_token;
    c.ctx = tr;
    return c;
}

static inline bool near(double a, double b)
{
    return fabs(a - b) <= 1e-12 + 1e-9 * fabs(b);
}

static inline void seq_is(const struct trace *tr, size_t step, size_t i, uint64_t ctx, uint64_t tokens)
{
    assert_int_equal(tr->seqs[step][i].context, ctx);
    assert_int_equal(tr->seqs[step][i].tokens, tokens);
}

/* The config of Llama 3.1 8B on one H100 under that engine's plan. */
static inline struct sim_config plan_config(enum engine_kind engine, uint64_t context)
{
    struct gpu_spec g = h100_sxm();
    struct model_spec m = llama31_8b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.engine.kind = engine;
    s.context_tokens = context;
    static struct plan_result r;
    struct diag d = {0};
    if (!plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d))
        fail_msg("%s", d.message);
    struct sim_config c;
    sim_config_of_plan(&s, &r, &c);
    return c;
}

/* Llama 3.1 8B on one H100 under that engine, planned for one user of a
 * 1,024-token prompt (context 8k): the plan a lone request's times come from. */
static inline void lone_user_plan(enum engine_kind engine, struct scenario *s,
                                  struct plan_result *r)
{
    struct gpu_spec g = h100_sxm();
    struct model_spec m = llama31_8b();
    scenario_default(s, &g, &m);
    s->engine.kind = engine;
    s->context_tokens = 8192;
    s->prompt_tokens = 1024;
    s->concurrency = 1;
    s->avg_context_tokens = 1024 + 64;
    struct diag d = {0};
    if (!plan_compute(s, PLAN_NUMBERS, NULL, r, &d))
        fail_msg("%s", d.message);
}

static inline struct sim_result run_at(const struct sim_config *c, struct workload_params p)
{
    struct workload_request *q = calloc(p.num_prompts, sizeof *q);
    assert_non_null(q);
    workload_generate(&p, q);
    struct sim_result r;
    assert_int_equal(sim_run(c, q, p.num_prompts, &r), SIM_OK);
    free(q);
    return r;
}

#endif
