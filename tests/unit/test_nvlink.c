/* NVLink domains wider than a node: GB200 and GB300 NVL72 join 72 GPUs in
 * one NVLink domain (nvlink_domain_gpus in the preset), so tensor parallel
 * across what would be nodes all-reduces at NVLink's speed, where 2 x 8
 * H100 nodes all-reduce over the network. The all-reduce of the speed model
 * (core/steptime.c, ring_seconds): 2 (tp - 1) / tp x the bytes of one
 * token's hidden vector (16-bit) / the link, plus a latency, twice a layer. */
#include <math.h>

#include "catalog_fixture.h"

#include "core/plan.h"

static struct plan_result r;
static struct explain rows;

static void run(const struct scenario *s)
{
    struct diag d = {0};
    if (!plan_compute(s, &rows, NULL, &r, &d))
        fail_msg("%s", d.message);
}

static struct scenario tp16(const char *gpu)
{
    struct scenario s = base(gpu, "llama-3.1-70b");
    s.gpus = 16;
    s.tp = 16;
    s.concurrency = 1;
    return s;
}

static void tp16_all_reduces_over_nvlink_in_nvl72_and_the_network_between_h100_nodes(void **state)
{
    (void)state;
    /* Llama 3.1 70B: hidden 8,192, 80 layers, two all-reduces a layer = 160
     * a step; one token: 8,192 x 2 B = 16,384 B.
     * GB200 NVL72, one domain: 2 x 15/16 x 16,384 B / 900e9 B/s = 34.133 ns,
     * plus 8 us: 8.034133 us each, x 160 = 1.2854613 ms.
     * 2 x 8 H100: 2 nodes, the network's 50e9 B/s per GPU:
     * 30,720 B / 50e9 = 614.4 ns, plus the network's 25 us after a node's ring
     * of 8 (2 x 7 hops of Hopper's 2.5 us, 35 us): 60.6144 us, x 160 = 9.698304 ms.
     * (GB200 is Blackwell: no hop fitted, the flat 8 us.) */
    struct scenario s = tp16("gb200");
    run(&s);
    assert_int_equal(r.speed.domain_gpus, 72);
    assert_true(fabs(r.speed.comm_seconds - 1.2854613e-3) < 1e-9);
    const struct explain_row *row = explain_find(&rows, "speed_comm");
    assert_non_null(row);
    assert_non_null(strstr(row->formula, "in one 72-GPU NVLink domain at 900 GB/s"));
    assert_false(r.warnings & WARN_TP_ACROSS_NODES);

    s = tp16("h100-sxm");
    run(&s);
    assert_int_equal(r.speed.domain_gpus, 8);
    assert_true(fabs(r.speed.comm_seconds - 9.698304e-3) < 1e-9);
    row = explain_find(&rows, "speed_comm");
    assert_non_null(strstr(row->formula, "across 2 nodes at 50 GB/s (network)"));
    assert_true(r.warnings & WARN_TP_ACROSS_NODES);

    /* the same GPU outside its NVL72 rack (no domain): the network again */
    s = tp16("gb200");
    s.gpu.nvlink_domain_gpus = 0;
    run(&s);
    /* Blackwell has no hop fitted: the network's 25 us alone, 4.098304 ms */
    assert_true(fabs(r.speed.comm_seconds - 4.098304e-3) < 1e-9);
}

static void past_the_domain_the_network_and_the_warning_name_it(void **state)
{
    (void)state;
    /* TP 144 on GB300 NVL72: two domains of 72 */
    struct scenario s = base("gb300", "llama-3.1-405b");
    s.gpus = 144;
    s.tp = 144;
    run(&s);
    assert_true(r.warnings & WARN_TP_ACROSS_NODES);
    char text[256];
    plan_warning_format(&r, WARN_TP_ACROSS_NODES, text, sizeof text);
    assert_non_null(strstr(text, "--tp 144 over 72-GPU NVLink domains"));
    const struct explain_row *row = explain_find(&rows, "speed_comm");
    assert_non_null(strstr(row->formula, "across 2 nodes at 50 GB/s (network)"));
    /* and an 8-GPU node says nodes, as before */
    s = base("h100-sxm", "llama-3.1-70b");
    s.gpus = 16;
    s.tp = 16;
    run(&s);
    plan_warning_format(&r, WARN_TP_ACROSS_NODES, text, sizeof text);
    assert_non_null(strstr(text, "--tp 16 over 8-GPU nodes"));
}

static void the_domain_is_the_presets(void **state)
{
    (void)state;
    const struct catalog_gpu *g = catalog_find_gpu(&cat, "gb200");
    assert_int_equal(g->spec.nvlink_domain_gpus, 72);
    assert_int_equal(spec_gpu_domain(&g->spec), 72);
    g = catalog_find_gpu(&cat, "gb300");
    assert_int_equal(g->spec.nvlink_domain_gpus, 72);
    /* GB300: 284,208 MiB in nvidia-smi; NVLink 5 900 GB/s each way; FP4 15 PF dense */
    assert_int_equal(g->spec.memory_bytes, 284208ull << 20);
    assert_int_equal(g->spec.link_bytes_per_s, 900000000000ull);
    assert_true(g->spec.tflops_fp4 == 15000);
    g = catalog_find_gpu(&cat, "b300"); /* HGX: 8-GPU nodes */
    assert_int_equal(spec_gpu_domain(&g->spec), SPEC_GPUS_PER_NODE);
    /* MI355X: one Infinity Fabric link to each other GPU of the platform,
     * 153.6 GB/s both ways: 76.8 GB/s each way GPU to GPU */
    g = catalog_find_gpu(&cat, "mi355x");
    assert_int_equal(g->spec.link_bytes_per_s, 76800000000ull);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tp16_all_reduces_over_nvlink_in_nvl72_and_the_network_between_h100_nodes),
        cmocka_unit_test(past_the_domain_the_network_and_the_warning_name_it),
        cmocka_unit_test(the_domain_is_the_presets),
    };
    return cmocka_run_group_tests_name("nvlink", tests, setup, teardown);
}
