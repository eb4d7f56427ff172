/* The search for the fewest GPUs of an xPyD split that keep a service level
 * (core/slo_disagg.h): on Llama 3.1 8B, the answer meets the target and no
 * split of fewer instances does, every one run by hand, those the search
 * left out too; the prefill pool runs the same beside any decode pool (what
 * the search's pruning rests on); a model the GPU cannot hold is memory,
 * after one run a TP; too few runs is out of runs. */
#include <math.h>
#include <stdlib.h>

#include "catalog_fixture.h"
#include "core/plan.h"
#include "core/sim_disagg.h"
#include "core/slo_disagg.h"
#include "core/workload.h"

enum { RUNS = 100, N = 600 };

static struct scenario vllm(const char *gpu, const char *model)
{
    struct scenario s = base(gpu, model);
    s.engine.kind = ENGINE_VLLM;
    s.engine.rule = RULE_CURRENT;
    s.context_tokens = 4096;
    return s;
}

/* 16 req/s of 2,000 + 100 tokens, p95 TTFT 1.5 s and TPOT 30 ms. */
static struct slo_search question(const struct scenario *s, struct workload_request *q)
{
    struct workload_params p = {.num_prompts = N, .request_rate = 16, .burstiness = 1,
                                .input_len = 2000, .output_len = 100, .seed = 0};
    workload_generate(&p, q);
    return (struct slo_search){.base = s, .reqs = q, .nreqs = N, .slo_ttft = 1.5,
                               .slo_tpot = 0.03, .slo_e2el = -1, .target = 0.95,
                               .max_gpus = 16, .max_runs = RUNS};
}

/* A search on GPU gpu of model model: its question, its stream, its room. */
struct fixture {
    struct scenario s;
    struct workload_request *reqs;
    struct slo_search q;
    struct slo_disagg_search x;
};

static void fixture_of(struct fixture *f, const char *gpu, const char *model, uint32_t runs)
{
    f->s = vllm(gpu, model);
    f->reqs = calloc(N, sizeof *f->reqs);
    assert_non_null(f->reqs);
    f->q = question(&f->s, f->reqs);
    f->x = (struct slo_disagg_search){.q = &f->q, .prefill_base = &f->s, .decode_base = &f->s,
                                      .bytes_per_s = 50e9, .latency = 1e-5,
                                      .max_gpus = f->q.max_gpus, .max_runs = runs};
    f->x.tried = calloc(runs, sizeof *f->x.tried);
    assert_non_null(f->x.tried);
}

static void fixture_free(struct fixture *f)
{
    free(f->x.tried);
    free(f->reqs);
}

static void the_answer_meets_and_no_fewer_instances_do(void **state)
{
    (void)state;
    static struct fixture f;
    fixture_of(&f, "h100-sxm", "llama-3.1-8b", RUNS);
    struct slo_disagg_search *x = &f.x;
    struct slo_disagg_answer a = slo_disagg_run(x);
    assert_true(a.solved);
    assert_false(a.out_of_runs);
    const struct slo_disagg_layout *b = &x->tried[a.best];
    assert_int_equal(b->l.verdict, SLO_MEETS);
    assert_int_equal(a.gpus, b->l.gpus);
    assert_int_equal(b->l.gpus, (b->prefill + b->decode) * b->l.tp);
    assert_true(b->l.share >= 0.95);
    assert_true(b->l.usd_per_hour > 0);
    /* every split of fewer instances, run or not by the search, misses */
    uint32_t n = b->prefill + b->decode;
    assert_true(n > 2);
    for (uint32_t k = 2; k < n; k++)
        for (uint32_t p = 1; p < k; p++) {
            struct slo_disagg_layout l;
            assert_true(slo_disagg_layout(x, b->l.tp, p, k - p, &l));
            assert_true(l.l.verdict != SLO_MEETS);
        }
    /* and no split of its count does better */
    for (uint32_t p = 1; p < n; p++) {
        struct slo_disagg_layout l;
        assert_true(slo_disagg_layout(x, b->l.tp, p, n - p, &l));
        if (l.l.verdict == SLO_MEETS)
            assert_true(l.l.share < b->l.share ||
                        (l.l.share == b->l.share && l.l.out.ttft.p95 >= b->l.out.ttft.p95));
    }
    fixture_free(&f);
    fixture_of(&f, "h100-sxm", "llama-3.1-8b", 1);
    a = slo_disagg_run(&f.x);
    assert_true(a.out_of_runs);
    assert_false(a.solved);
    fixture_free(&f);
}

static void the_prefill_pool_runs_the_same_beside_any_decode_pool(void **state)
{
    (void)state;
    static struct fixture f;
    fixture_of(&f, "h100-sxm", "llama-3.1-8b", 1);
    struct slo_disagg_layout one, three;
    assert_true(slo_disagg_layout(&f.x, 1, 2, 1, &one));
    assert_true(slo_disagg_layout(&f.x, 1, 2, 3, &three));
    assert_int_equal(one.out.prefill.steps, three.out.prefill.steps);
    assert_true(one.out.prefill.busy == three.out.prefill.busy);
    assert_true(one.out.prefill.mean_sojourn == three.out.prefill.mean_sojourn);
    assert_true(one.out.decode.steps != three.out.decode.steps);
    fixture_free(&f);
}

static void a_model_too_large_is_memory_after_one_run(void **state)
{
    (void)state;
    static struct fixture f;
    fixture_of(&f, "l4", "llama-3.1-70b", RUNS);
    f.x.max_gpus = 4; /* TP 1 and TP 2: 1P1D each, the only splits */
    struct slo_disagg_answer a = slo_disagg_run(&f.x);
    assert_false(a.solved);
    assert_int_equal(a.ntried, 2);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(f.x.tried[i].l.tp, i + 1);
        assert_int_equal(f.x.tried[i].l.verdict, SLO_MEMORY);
    }
    /* more GPUs allowed: still one run a TP, the memory the same at every count */
    fixture_free(&f);
    fixture_of(&f, "l4", "llama-3.1-70b", RUNS);
    f.x.max_gpus = 6;
    a = slo_disagg_run(&f.x);
    assert_int_equal(a.ntried, 2);
    fixture_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_answer_meets_and_no_fewer_instances_do),
        cmocka_unit_test(the_prefill_pool_runs_the_same_beside_any_decode_pool),
        cmocka_unit_test(a_model_too_large_is_memory_after_one_run),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
