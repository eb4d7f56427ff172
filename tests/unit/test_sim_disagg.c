/* Disaggregated prefill and decode (core/sim_disagg.h): a hand-checked
 * timeline of one request (its prefill, its KV's bytes over the link at its
 * rate after its latency, then its decode), a prefill pool's blocks held
 * until the transfer ends, and properties of runs on real plans: no request
 * lost, Little's law in each pool, an instant link giving the prefill-only
 * run's first tokens plus the decode's first step, the bytes of a decode
 * pool of another TP. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/plan.h"
#include "core/sim.h"
#include "core/sim_disagg.h"
#include "core/workload.h"
#include "model_fixture.h"
#include "sim_fixture.h"

/* Two pools of 10 ms steps (the prefill's budget 8 tokens), a link of
 * 1 MB/s after 5 ms, 1,000 bytes a token on the busier end. */
static struct sim_disagg_config fixed_pools(struct trace *pre, struct trace *dec)
{
    struct sim_disagg_config c = {0};
    c.prefill = fixed_step(pre);
    c.decode = fixed_step(dec);
    c.kv_bytes_per_token = 1000;
    c.decode_bytes_per_token = 500;
    c.decode_gpus = 2;
    c.link_bytes_per_s = 1e6;
    c.link_latency = 0.005;
    c.slo_ttft = c.slo_tpot = c.slo_e2el = -1;
    return c;
}

static void one_request_prefill_transfer_decode(void **state)
{
    (void)state;
    /* 10 prompt tokens, 3 out, at 0.
     * prefill: 8 tokens 0-10 ms, its last 2 10-20 ms (its first token);
     * transfer: 5 ms + 10 x 1,000 B / 1 MB/s = 15 ms, to 35 ms;
     * decode: the last prompt token over the 9 before it, 35-45 ms (the
     * first token the client sees), then 45-55 and 55-65 ms. */
    struct trace pre = {0}, dec = {0};
    struct sim_disagg_config c = fixed_pools(&pre, &dec);
    struct workload_request reqs[] = {{0, 10, 3}};
    struct sim_disagg_result r;
    assert_int_equal(sim_disagg_run(&c, reqs, 1, &r), SIM_OK);
    assert_int_equal(pre.steps, 2);
    seq_is(&pre, 0, 0, 0, 8);
    seq_is(&pre, 1, 0, 8, 2);
    assert_true(near(pre.t[0], 0.02));
    assert_int_equal(dec.steps, 3);
    seq_is(&dec, 0, 0, 9, 1);
    seq_is(&dec, 1, 0, 10, 1);
    seq_is(&dec, 2, 0, 11, 1);
    assert_true(near(dec.start[0], 0.035));
    assert_true(near(r.transfer.mean, 0.015));
    assert_true(near(r.transfer.p95, 0.015));
    assert_true(near(r.bytes_moved, 10 * 500 * 2));
    assert_true(near(r.all.ttft.mean, 0.045));
    assert_true(near(r.all.e2el.mean, 0.065));
    assert_true(near(r.all.tpot.mean, 0.01));
    assert_true(near(r.all.itl.mean, 0.01));
    assert_true(near(r.all.duration, 0.065));
    assert_int_equal(r.all.completed, 1);
    assert_int_equal(r.all.total_input, 10);
    assert_int_equal(r.all.total_output, 3);
    assert_int_equal(r.all.steps, 5);
    assert_true(near(r.prefill.busy, 0.02));
    assert_true(near(r.decode.busy, 0.03));
    assert_true(near(r.prefill.utilisation, 0.02 / 0.065));
    assert_true(near(r.decode.utilisation, 0.03 / 0.065));
    assert_true(near(r.prefill.mean_sojourn, 0.02));
    assert_true(near(r.decode.mean_sojourn, 0.03));
}

static void prefill_blocks_held_until_the_transfer_ends(void **state)
{
    (void)state;
    /* A prefill pool of 3 blocks of 4 tokens, two prompts of 8 at 0: A takes
     * 2 blocks, B waits for them. A's prefill ends at 10 ms and its KV takes
     * 5 ms + 8 x 1,000 B / 1 MB/s = 13 ms more: B starts at 23 ms, not
     * 10 ms, and ends at 33 ms. */
    struct trace pre = {0}, dec = {0};
    struct sim_disagg_config c = fixed_pools(&pre, &dec);
    c.prefill.blocks = 3;
    struct workload_request reqs[] = {{0, 8, 2}, {0, 8, 2}};
    struct sim_disagg_result r;
    assert_int_equal(sim_disagg_run(&c, reqs, 2, &r), SIM_OK);
    assert_int_equal(pre.steps, 2);
    assert_true(near(pre.start[0], 0));
    assert_true(near(pre.start[1], 0.023));
    assert_int_equal(pre.req[1], 1);
    assert_true(near(pre.t[1], 0.033));
    assert_int_equal(r.all.completed, 2);
    assert_true(near(r.prefill.peak_kv_usage, 2.0 / 3.0));
}

/* Llama 3.1 8B under vLLM on gpus x H100 of TP tp, context 8k. */
static void plan_of(uint32_t gpus, uint32_t tp, struct scenario *s, struct plan_result *r)
{
    static struct gpu_spec g;
    static struct model_spec m;
    g = h100_sxm();
    m = llama31_8b();
    scenario_default(s, &g, &m);
    s->engine.kind = ENGINE_VLLM;
    s->context_tokens = 8192;
    s->gpus = gpus;
    s->tp = tp;
    struct diag d = {0};
    if (!plan_compute(s, PLAN_NUMBERS, NULL, r, &d))
        fail_msg("%s", d.message);
}

static struct sim_disagg_config real_pools(uint32_t dgpus, uint32_t dtp, double bw, double lat)
{
    static struct scenario sp, sd;
    static struct plan_result rp, rd;
    plan_of(1, 1, &sp, &rp);
    plan_of(dgpus, dtp, &sd, &rd);
    struct sim_disagg_config c;
    sim_disagg_config_of_plans(&sp, &rp, &sd, &rd, bw, lat, &c);
    return c;
}

static struct workload_request *stream(struct workload_params p)
{
    struct workload_request *q = calloc(p.num_prompts, sizeof *q);
    assert_non_null(q);
    workload_generate(&p, q);
    return q;
}

static void no_request_lost_and_littles_law_per_pool(void **state)
{
    (void)state;
    struct sim_disagg_config c = real_pools(1, 1, 50e9, 10e-6);
    struct workload_params p = {.num_prompts = 400, .request_rate = 20, .burstiness = 1,
                                .input_len = 2000, .output_len = 200, .range_ratio = 0.5,
                                .seed = 7};
    struct workload_request *q = stream(p);
    struct sim_disagg_result r;
    assert_int_equal(sim_disagg_run(&c, q, p.num_prompts, &r), SIM_OK);
    uint64_t in = 0, out = 0;
    for (size_t i = 0; i < p.num_prompts; i++)
        in += q[i].prompt, out += q[i].output;
    assert_int_equal(r.all.completed, p.num_prompts);
    assert_int_equal(r.all.total_input, in);
    assert_int_equal(r.all.total_output, out);
    const struct sim_pool_figures *pool[2] = {&r.prefill, &r.decode};
    for (int k = 0; k < 2; k++) {
        /* L = lambda W: the requests in the pool on average over its run,
         * against its throughput times a request's time in it */
        double l = pool[k]->mean_running + pool[k]->mean_waiting;
        double lw = (double)p.num_prompts / pool[k]->duration * pool[k]->mean_sojourn;
        assert_true(fabs(l - lw) <= 1e-9 * lw);
        assert_true(pool[k]->utilisation > 0 && pool[k]->utilisation <= 1);
    }
    /* the first token after the prefill, the transfer and a decode step */
    assert_true(r.all.ttft.mean > r.prefill.mean_sojourn + r.transfer.mean);
    assert_true(r.all.e2el.mean > r.all.ttft.mean);
    free(q);
}

static void instant_link_is_the_prefill_only_run_then_a_decode_step(void **state)
{
    (void)state;
    struct sim_disagg_config c = real_pools(1, 1, INFINITY, 0);
    struct workload_params p = {.num_prompts = 300, .request_rate = 8, .burstiness = 1,
                                .input_len = 3000, .output_len = 100, .seed = 3};
    struct workload_request *q = stream(p);
    struct sim_disagg_result r;
    assert_int_equal(sim_disagg_run(&c, q, p.num_prompts, &r), SIM_OK);
    assert_true(r.transfer.mean == 0 && r.transfer.p95 == 0);
    /* the prefill pool alone, each request to its first token, freed then */
    for (size_t i = 0; i < p.num_prompts; i++)
        q[i].output = 1;
    struct sim_result alone;
    assert_int_equal(sim_run(&c.prefill, q, p.num_prompts, &alone), SIM_OK);
    /* (the run alone counts the engine's time outside the steps in its TTFT) */
    assert_true(near(r.prefill.mean_sojourn, alone.ttft.mean - c.prefill.request_overhead_s));
    assert_int_equal(r.prefill.steps, alone.steps);
    assert_true(near(r.prefill.mean_running, alone.mean_running));
    /* the deployment's TTFT counts that time once, as the run alone does */
    assert_true(c.prefill.request_overhead_s > 0);
    assert_true(r.all.ttft.mean > alone.ttft.mean);
    free(q);
    /* one request: exactly that, plus the decode's step of one token over
     * the prompt before it */
    struct workload_request one[] = {{0, 3000, 10}};
    struct workload_request first[] = {{0, 3000, 1}};
    assert_int_equal(sim_disagg_run(&c, one, 1, &r), SIM_OK);
    assert_int_equal(sim_run(&c.prefill, first, 1, &alone), SIM_OK);
    struct step_seq s = {2999, 1};
    double step = step_time(&c.decode.model, &c.decode.machine, &s, 1, NULL);
    assert_true(near(r.all.ttft.mean, alone.ttft.mean + step));
    assert_true(near(r.all.e2el.mean - r.all.ttft.mean, r.decode.mean_sojourn - step));
}

static void decode_pool_of_another_tp_moves_its_share(void **state)
{
    (void)state;
    /* Llama 3.1 8B: 8 KV heads; a decode GPU of TP 2 holds half a token's
     * KV, the prefill GPU (TP 1) all of it: the prefill end's link is the
     * busier, and the bytes moved are the whole KV either way. */
    struct sim_disagg_config c = real_pools(2, 2, 50e9, 0);
    assert_int_equal(c.decode_gpus, 2);
    assert_int_equal(c.decode_bytes_per_token * 2, c.kv_bytes_per_token);
    struct workload_request one[] = {{0, 4096, 4}};
    struct sim_disagg_result r;
    assert_int_equal(sim_disagg_run(&c, one, 1, &r), SIM_OK);
    assert_true(near(r.bytes_moved, 4096.0 * (double)c.kv_bytes_per_token));
    assert_true(near(r.transfer.mean, 4096.0 * (double)c.kv_bytes_per_token / 50e9));
}

static void link_figures(void **state)
{
    (void)state;
    struct gpu_spec a = h100_sxm(), b = h100_sxm();
    b.link_bytes_per_s = a.link_bytes_per_s * 2;
    double bw, lat;
    sim_link_figures(SIM_LINK_NVLINK, &a, &b, &bw, &lat);
    assert_true(bw == (double)a.link_bytes_per_s);
    sim_link_figures(SIM_LINK_NVLINK, &b, &a, &bw, &lat);
    assert_true(bw == (double)a.link_bytes_per_s);
    sim_link_figures(SIM_LINK_IB, &a, &b, &bw, &lat);
    assert_true(bw == 50e9 && lat > 0);
    assert_int_equal(sim_link_parse("roce"), SIM_LINK_ROCE);
    assert_int_equal(sim_link_parse("ethernet"), SIM_LINK_COUNT);
    assert_string_equal(sim_link_name(SIM_LINK_IB), "ib");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_request_prefill_transfer_decode),
        cmocka_unit_test(prefill_blocks_held_until_the_transfer_ends),
        cmocka_unit_test(no_request_lost_and_littles_law_per_pool),
        cmocka_unit_test(instant_link_is_the_prefill_only_run_then_a_decode_step),
        cmocka_unit_test(decode_pool_of_another_tp_moves_its_share),
        cmocka_unit_test(link_figures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
