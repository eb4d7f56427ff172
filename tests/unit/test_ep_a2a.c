/* Expert parallel under data-parallel attention: what a MoE layer moves
 * between the ranks each way, and the experts every rank's tokens touch.
 *
 * vLLM (vllm/model_executor/layers/fused_moe/config.py,
 * FusedMoEParallelConfig.make): --data-parallel-size R spreads the routed
 * experts over the R x TP GPUs (whole with --enable-expert-parallel, slices
 * without); each GPU's experts compute for the tokens of every replica. The
 * EP group's all2all manager (vllm/distributed/device_communicators/
 * all2all.py) under the default backend, allgather_reducescatter
 * (vllm/envs.py VLLM_ALL2ALL_BACKEND), gathers every rank's hidden states to
 * every rank (dispatch) and reduce-scatters the partial sums (combine): in
 * a ring, bytes a rank receives (and sends) a layer = (R - 1) / R x the
 * tokens of all ranks x hidden x (2 B dispatch + 2 B combine), R - 1 times
 * a rank's own at an even load. Seconds a step = MoE layers x
 * (bytes / link + 2 x latency). (A DeepEP all-to-all would move k (E-1)/E
 * copies; at E = 8, k = 8 both are 7.) */
#include <math.h>

#include "core/speed.h"
#include "core/steptime.h"
#include "model_fixture.h"

static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-9 + fabs(b) * 1e-6;
}

static struct plan_result planned(const struct scenario *s)
{
    struct plan_result r;
    struct diag d = {0};
    if (!plan_compute(s, NULL, NULL, &r, &d))
        fail_msg("%s", d.message);
    return r;
}

/* DeepSeek-V3 under vLLM, 1-GPU replicas with the experts over all GPUs. */
static struct scenario dsv3_dp(const char *gpu, uint32_t gpus, bool ep)
{
    struct gpu_spec g = preset_gpu(gpu);
    struct model_spec m = deepseek_v3();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.gpus = gpus;
    s.tp = 1;
    s.engine.kind = ENGINE_VLLM;
    s.expert_parallel = ep;
    s.concurrency = 64;
    return s;
}

/* 8 H200s, DP 8 + EP, 64 users: 8 a rank. A layer: 8 tokens x 7 copies x
 * 7,168 x (2 + 2) = 1,605,632 B each way; at 450 GB/s plus 2 x 2.5 us (Hopper's
 * fitted hop, core/speedfamily.c) over 58 MoE layers (61 less 3 dense):
 * 58 x (3.568 us + 5 us) = 496.9 us. The experts: 64 tokens over all ranks,
 * 1 - (1 - 8/256)^64 = 0.8689 of each GPU's 32, not 1 - (1 - 8/256)^8 =
 * 0.224 of a batch of 8 (before). */
static void dp8_ep_on_h200(void **state)
{
    (void)state;
    struct scenario s = dsv3_dp("h200", 8, true);
    struct plan_result r = planned(&s);
    double layer = 8.0 * 7 * 7168 * 4;
    assert_true(close_to(layer, 1605632.0));
    assert_true(close_to(r.speed.a2a_bytes_per_gpu, 58 * layer));
    double t = 58 * (layer / 450e9 + 2 * 2.5e-6);
    assert_true(close_to(r.speed.a2a_seconds, t));
    assert_true(fabs(t - 496.9e-6) < 0.1e-6);
    assert_true(r.speed.comm_seconds >= r.speed.a2a_seconds); /* TP 1: no all-reduce */
    assert_true(close_to(r.speed.comm_seconds, r.speed.a2a_seconds));

    struct step_model m;
    struct step_machine hw;
    struct speed_basis b = plan_speed_basis(&r);
    speed_step_inputs(&s, &b, &m, &hw);
    struct step_seq one[8];
    for (int i = 0; i < 8; i++)
        one[i] = (struct step_seq){.context = 8192, .tokens = 1};
    struct step_time st;
    step_time(&m, &hw, one, 8, &st);
    double share = 1 - pow(1 - 8.0 / 256, 64);
    assert_true(fabs(share - 0.8689) < 1e-4);
    assert_true(close_to(st.experts_touched, share * 256)); /* of the layer's */
    assert_true(close_to(st.expert_read_bytes, m.expert_bytes * share)); /* this GPU's 32 */
    assert_true(close_to(st.a2a_s, t));
    /* a prefill of 8,192 tokens on one rank: 7/8 of them each way,
     * 58 x (7/8 x 8,192 x 7,168 x 4 B / 450 GB/s + 5 us) = 26.78 ms */
    speed_prefill_parts(&s, &b, 8192, &st);
    double pre = 58 * (7.0 / 8 * 8192 * 7168 * 4 / 450e9 + 2 * 2.5e-6);
    assert_true(close_to(st.a2a_s, pre));
    assert_true(fabs(pre - 26.78e-3) < 0.01e-3);
}

/* Without --enable-expert-parallel vLLM slices every expert over the DP
 * group: each rank's 8 tokens reach every GPU (7 copies), bf16. */
static void dp8_slices_gather_to_every_rank(void **state)
{
    (void)state;
    struct scenario s = dsv3_dp("h200", 8, false);
    struct plan_result r = planned(&s);
    double layer = 8.0 * 7 * 7168 * 4;
    assert_true(close_to(r.speed.a2a_bytes_per_gpu, 58 * layer));
}

/* 16 GPUs, DP 16 + EP, 64 users: 4 a rank, 4 x 15 x 7,168 x 4 = 1,720,320 B
 * a layer. GB300 NVL72: one NVLink domain of 72 at 900 GB/s and the flat
 * 8 us: 58 x (1.91 + 16) us = 1.039 ms; B300 in nodes of 8: the network,
 * 50 GB/s and 25 us: 58 x (34.41 + 50) us = 4.896 ms. */
static void sixteen_gpus_nvl72_against_nodes(void **state)
{
    (void)state;
    double layer = 4.0 * 15 * 7168 * 4;
    assert_true(close_to(layer, 1720320.0));
    struct scenario s = dsv3_dp("gb300", 16, true);
    struct plan_result nvl = planned(&s);
    assert_true(close_to(nvl.speed.a2a_seconds, 58 * (layer / 900e9 + 2 * 8e-6)));
    s = dsv3_dp("b300", 16, true);
    struct plan_result net = planned(&s);
    assert_true(close_to(net.speed.a2a_seconds,
                         58 * (layer / SPEED_INTERNODE_BYTES_PER_S + 2 * SPEED_INTERNODE_LATENCY_S)));
    assert_true(fabs(nvl.speed.a2a_seconds - 1.039e-3) < 1e-6);
    assert_true(fabs(net.speed.a2a_seconds - 4.896e-3) < 1e-6);
    assert_true(net.speed.tokens_per_s_per_user < nvl.speed.tokens_per_s_per_user);
}

/* One replica (TP 8 + EP): the ranks hold the same tokens and all-reduce;
 * no all-to-all (vLLM's all2all kernels need DP > 1). */
static void one_replica_has_none(void **state)
{
    (void)state;
    struct scenario s = dsv3_dp("h200", 8, true);
    s.tp = 8;
    struct plan_result r = planned(&s);
    assert_true(r.speed.a2a_seconds == 0);
    assert_true(r.speed.comm_seconds > 0);
    /* SGLang's DP attention with --ep-size (no DeepEP backend in the launch
     * line): the MoE layers take the gathered tokens the all-reduce term
     * counts */
    s.engine.kind = ENGINE_SGLANG;
    s.dp_attention = true;
    r = planned(&s);
    assert_true(r.speed.a2a_seconds == 0);
    assert_true(r.speed.comm_seconds > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dp8_ep_on_h200),
        cmocka_unit_test(dp8_slices_gather_to_every_rank),
        cmocka_unit_test(sixteen_gpus_nvl72_against_nodes),
        cmocka_unit_test(one_replica_has_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
