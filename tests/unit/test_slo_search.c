/* The search for the fewest GPUs that keep a service level in simulation
 * (core/slo_search.h): on a model whose heads allow only TP 1 (Falcon 7B's
 * 71), a stream at 2.5 times what one replica serves flat out needs three
 * replicas (two serve at most twice it); on a model with TP 1, 2, 4, 8 ...
 * the answer meets the target and no layout of fewer GPUs does (every one
 * run by hand); the bounds: too few GPUs allowed is not solved, too few runs
 * is out of runs; a layout the weights do not fit is memory. */
#include <math.h>
#include <stdlib.h>

#include "catalog_fixture.h"
#include "core/plan.h"
#include "core/sim.h"
#include "core/slo_search.h"
#include "core/workload.h"

enum { RUNS = 200 };

static struct scenario vllm(const char *gpu, const char *model, uint64_t context)
{
    struct scenario s = base(gpu, model);
    s.engine.kind = ENGINE_VLLM;
    s.engine.rule = RULE_CURRENT;
    s.context_tokens = context;
    return s;
}

static struct workload_request *stream(uint64_t n, double rate, double burst, uint64_t in,
                                       uint64_t out)
{
    struct workload_params p = {.num_prompts = n, .request_rate = rate, .burstiness = burst,
                                .input_len = in, .output_len = out, .seed = 0};
    struct workload_request *q = calloc(n, sizeof *q);
    assert_non_null(q);
    workload_generate(&p, q);
    return q;
}

static struct slo_search search_of(const struct scenario *s, struct workload_request *q,
                                   size_t n, uint32_t max_gpus)
{
    struct slo_search x = {.base = s, .reqs = q, .nreqs = n, .slo_ttft = -1, .slo_tpot = -1,
                           .slo_e2el = -1, .target = 0.95, .max_gpus = max_gpus,
                           .max_runs = RUNS};
    x.tried = calloc(RUNS, sizeof *x.tried);
    assert_non_null(x.tried);
    return x;
}

static void two_and_a_half_replicas_of_load_need_three(void **state)
{
    (void)state;
    struct scenario s = vllm("h100-sxm", "falcon-7b", 2048);
    enum { N = 1000 };
    /* one replica flat out: every request at once */
    struct workload_request *all = stream(N, INFINITY, 1, 512, 128);
    struct slo_search x = search_of(&s, all, N, 1);
    struct slo_layout one;
    assert_true(slo_search_layout(&x, 1, 1, &one));
    double capacity = one.out.request_throughput;
    assert_true(capacity > 0);
    /* one request alone: its end-to-end time; the objective is twice it */
    struct slo_layout alone;
    x.nreqs = 1;
    assert_true(slo_search_layout(&x, 1, 1, &alone));
    free(all);
    struct workload_request *q = stream(N, 2.5 * capacity, INFINITY, 512, 128);
    x = (struct slo_search){.base = &s, .reqs = q, .nreqs = N, .slo_ttft = -1, .slo_tpot = -1,
                            .slo_e2el = 2 * alone.out.e2el.mean, .target = 0.95,
                            .max_gpus = 64, .max_runs = RUNS, .tried = x.tried};
    struct slo_answer a = slo_search_run(&x);
    assert_true(a.solved);
    assert_int_equal(a.gpus, 3);
    assert_int_equal(x.tried[a.best].tp, 1);
    assert_int_equal(x.tried[a.best].replicas, 3);
    /* two replicas finish fewer a second than are sent */
    struct slo_layout two;
    assert_true(slo_search_layout(&x, 1, 2, &two));
    assert_true(two.verdict != SLO_MEETS);
    assert_true(two.out.request_throughput < 2.5 * capacity);
    /* TP 71 is past the largest tried, and no other TP divides 71 heads */
    for (size_t i = 0; i < a.ntried; i++)
        assert_int_equal(x.tried[i].tp, 1);
    free(q);
    free(x.tried);
}

static void no_fewer_gpus_meet_it(void **state)
{
    (void)state;
    struct scenario s = vllm("h100-sxm", "llama-3.1-8b", 8192);
    enum { N = 600 };
    struct workload_request *q = stream(N, 40, 1, 2048, 300);
    struct slo_search x = search_of(&s, q, N, 64);
    x.slo_ttft = 1.0;
    x.slo_tpot = 0.05;
    struct slo_answer a = slo_search_run(&x);
    assert_true(a.solved);
    assert_false(a.out_of_runs);
    const struct slo_layout *b = &x.tried[a.best];
    assert_int_equal(b->verdict, SLO_MEETS);
    assert_int_equal(b->gpus, a.gpus);
    assert_true(b->share >= 0.95);
    assert_true(b->gpus > 1); /* one GPU does not serve 40 a second of these */
    /* every layout of fewer GPUs, run here: none meets it */
    for (uint32_t g = 1; g < a.gpus; g++)
        for (uint32_t tp = 1; tp <= g; tp++) {
            struct slo_layout l;
            if (g % tp == 0 && slo_search_layout(&x, tp, g / tp, &l))
                assert_true(l.verdict != SLO_MEETS);
        }
    /* every layout of that count the engine takes is among those listed */
    for (uint32_t tp = 1; tp <= a.gpus; tp++) {
        struct slo_layout l;
        if (a.gpus % tp || !slo_search_layout(&x, tp, a.gpus / tp, &l))
            continue;
        bool listed = false;
        for (size_t i = 0; i < a.ntried; i++)
            listed = listed || (x.tried[i].tp == tp && x.tried[i].gpus == a.gpus);
        assert_true(listed);
    }
    /* a price: the cost of a million output tokens at the rate offered (it
     * keeps up: the stream's requests over its last arrival, their outputs),
     * not the run's throughput, which counts its drain */
    assert_true(b->usd_per_hour > 0 && b->offered);
    double rate = (double)N / q[N - 1].arrival, out = 0;
    for (size_t i = 0; i < N; i++)
        out += (double)q[i].output;
    assert_true(fabs(b->output_throughput - rate * out / N) < 1e-9 * b->output_throughput);
    assert_true(b->out.output_throughput < b->output_throughput);
    assert_true(fabs(b->usd_per_million_output -
                     b->usd_per_hour / (b->output_throughput * 3600) * 1e6) < 1e-9);
    /* and of a million input tokens, at the same rate: its prompts */
    double in = 0;
    for (size_t i = 0; i < N; i++)
        in += (double)q[i].prompt;
    assert_true(fabs(b->usd_per_million_input -
                     b->usd_per_hour / (rate * in / N * 3600) * 1e6) < 1e-9);
    /* bounded: fewer GPUs than it needs is not solved; too few runs stop it */
    x.max_gpus = a.gpus - 1;
    struct slo_answer none = slo_search_run(&x);
    assert_false(none.solved);
    assert_false(none.out_of_runs);
    x.max_gpus = 64;
    x.max_runs = 2;
    struct slo_answer cut = slo_search_run(&x);
    assert_false(cut.solved);
    assert_true(cut.out_of_runs);
    assert_int_equal(cut.ntried, 2);
    free(q);
    free(x.tried);
}

static void weights_that_do_not_fit_are_memory(void **state)
{
    (void)state;
    struct scenario s = vllm("l4", "llama-3.1-70b", 8192);
    enum { N = 50 };
    struct workload_request *q = stream(N, 1, 1, 512, 64);
    struct slo_search x = search_of(&s, q, N, 2);
    x.slo_ttft = 1.0;
    struct slo_layout l;
    assert_true(slo_search_layout(&x, 1, 1, &l));
    assert_int_equal(l.verdict, SLO_MEMORY);
    struct slo_answer a = slo_search_run(&x);
    assert_false(a.solved);
    for (size_t i = 0; i < a.ntried; i++)
        assert_int_equal(x.tried[i].verdict, SLO_MEMORY);
    free(q);
    free(x.tried);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_and_a_half_replicas_of_load_need_three),
        cmocka_unit_test(no_fewer_gpus_meet_it),
        cmocka_unit_test(weights_that_do_not_fit_are_memory),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
