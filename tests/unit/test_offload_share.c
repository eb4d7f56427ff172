/* llama.cpp with layers or experts in host memory on more than one GPU, and
 * its prefill's copies (core/offload.h), with the numbers worked by hand:
 *
 * - The host is one a node. Two servers on one box (--gpus 2 --tp 1, one
 *   llama-server a GPU) each hold their CPU layers in the same RAM and read
 *   them over the same memory bus: their host bytes add up against the
 *   node's memory, and two decoding at once read at half its bandwidth each.
 * - A layer split (one server over 2 GPUs, --split-mode layer) runs the
 *   CPU layers once a token, not once a GPU.
 * - A prefill batch of 32 tokens or more runs the host layers' matmuls on
 *   the GPU, their weights copied over the host link once a micro-batch of
 *   512 (ggml-org/llama.cpp, 2026 builds, read at commits 0054c013 and
 *   00108827, the snapshots' own; no release tag there: ggml/src/ggml-backend.cpp
 *   ggml_backend_sched_backend_id_from_cur, "check if a backend with higher
 *   prio wants to offload the op", and ggml_backend_sched_compute_splits,
 *   which copies the inputs of each split and of a MUL_MAT_ID's experts only
 *   those its ids use; ggml/src/ggml-cuda/ggml-cuda.cu
 *   ggml_backend_cuda_device_offload_op, get_op_batch_size(op) >=
 *   op_offload_min_batch_size, 32 unless GGML_OP_OFFLOAD_MIN_BATCH;
 *   common/common.h n_ubatch 512). */
#include <math.h>

#include "catalog_fixture.h"

#include "core/solve.h"

#include "core/offload_fit.h"
#include "core/plan.h"
#include "core/speed.h"
#include "core/steptime.h"

static struct plan_result r;

static struct explain rows;

static bool run(const struct scenario *s)
{
    struct diag d = {0};
    return plan_compute(s, &rows, NULL, &r, &d);
}

/* Llama 3.1 70B in Q4_K_M on RTX 4090s, 8k context, 64 GiB of host memory:
 * the figures of test_offload.c's 40-of-80 case (a layer 524,088,382 B, the
 * token embedding 643,537,306 B, the weights 43,214,145,229 B). */
static struct scenario llama_70b(uint32_t gpus, uint32_t tp, uint32_t ngl)
{
    struct scenario s = base("rtx-4090", "llama-3.1-70b");
    s.engine.kind = ENGINE_LLAMACPP;
    s.offload.host_memory_bytes = 64ull << 30;
    s.weight_dtype = DTYPE_Q4_K_M;
    s.context_tokens = 8192;
    s.gpus = gpus;
    s.tp = tp;
    s.offload.ngl_given = true;
    s.offload.ngl = ngl;
    return s;
}

static double gpu_rate(const struct scenario *s)
{
    return (double)s->gpu.bandwidth_bytes_per_s * s->gpu.achievable_mbu;
}

/* Two RTX 4090s in one box as two replicas, -ngl 40 each. */
static void two_replicas_share_the_hosts_memory_and_bandwidth(void **state)
{
    (void)state;
    struct scenario s = llama_70b(2, 1, 40);
    /* worked with -ngl N the last N layers (builds before PR #18148) */
    s.engine.rule = RULE_LLAMACPP_MLA_KV;
    s.engine.parallel = 1;
    assert_true(run(&s));
    const struct offload_split *o = &r.engine.offload;
    assert_int_equal(o->node_servers, 2);
    assert_int_equal(o->host_readers, 2);
    /* a server: 43,214,145,229 - 40 x 524,088,382 = 22,250,609,949 B of
     * weights and half of 2,684,354,560 B of cache, 1,342,177,280 B; the
     * node holds both servers' */
    assert_int_equal(o->host_bytes, 22250609949ull + 1342177280ull);
    assert_int_equal(o->node_host_bytes, 2 * (22250609949ull + 1342177280ull));
    assert_true(o->host_fits && r.fits); /* 47,185,574,458 B within 64 GiB */
    /* each server reads 22,250,609,949 - 643,537,306 B of weights and its
     * half of the cache (163,840 B a token, the new one too) at 76.8 GB/s
     * x 0.6, the bus shared by the two servers decoding at once */
    double gpu_s = (20963535280.0 + 163840.0 * 8193) / gpu_rate(&s);
    double host = 22250609949.0 - 643537306.0 + 163840.0 * 8193;
    double host_s = host / (76.8e9 / 2 * 0.6);
    assert_float_equal(r.speed.step_seconds, gpu_s + host_s, 1e-6);
    assert_true(r.speed.tokens_per_s_per_user < 1.1); /* 0.97; one server alone: 1.9 */
    /* the explain rows say it: the node's row, and the host time's figure */
    const struct explain_row *node = explain_find(&rows, "offload_host_node");
    assert_non_null(node);
    assert_float_equal((double)node->result.value, 2.0 * (22250609949.0 + 1342177280.0), 1);
    const struct explain_row *h = explain_find(&rows, "speed_host");
    assert_non_null(h);
    assert_float_equal((double)h->result.value, host_s, 1e-6);
    /* one user in all: one server decodes, at the whole bandwidth */
    s.concurrency = 1;
    assert_true(run(&s));
    assert_int_equal(o->host_readers, 1);
    assert_float_equal(r.speed.step_seconds, gpu_s + host / (76.8e9 * 0.6), 1e-6);
    /* 40 GiB of host memory holds one server's 23.59 GB, not two */
    s.concurrency = 0;
    s.offload.host_memory_bytes = 40ull << 30;
    assert_true(run(&s));
    assert_false(o->host_fits);
    assert_false(r.fits);
    s.gpus = 1;
    assert_true(run(&s));
    assert_true(o->host_fits && r.fits);
}

/* One server over two RTX 4090s (llama.cpp's --split-mode layer), -ngl 60:
 * 30 layers a GPU, 20 layers and the output layer on the CPU. */
static void a_layer_split_runs_the_cpu_layers_once_a_token(void **state)
{
    (void)state;
    struct scenario s = llama_70b(2, 0, 60);
    /* worked with -ngl N the last N layers (builds before PR #18148) */
    s.engine.rule = RULE_LLAMACPP_MLA_KV;
    s.engine.parallel = 1;
    s.concurrency = 1;
    assert_true(run(&s));
    const struct offload_split *o = &r.engine.offload;
    assert_int_equal(o->node_servers, 1);
    /* GPU: 60 x 524,088,382 / 2 = 15,722,651,460 B each; host: 43,214,145,229
     * - 31,445,302,920 = 11,768,842,309 B */
    assert_int_equal(o->gpu_weights_bytes, 15722651460ull);
    assert_int_equal(o->host_weights_bytes, 11768842309ull);
    /* A token: each GPU reads its 30 layers and their cache (327,680 B a
     * token x 60/80 / 2 = 122,880 B) in turn; then the CPU its 20 layers,
     * the embedding's row aside, and their cache (81,920 B a token), once */
    double gpu_s = (15722651460.0 + 122880.0 * 8193) / gpu_rate(&s);
    double host_s = (11768842309.0 - 643537306.0 + 81920.0 * 8193) / (76.8e9 * 0.6);
    /* and GPU 0 copies the token's F32 activations, 8,192 x 4 B, to GPU 1 over
     * the link, a send's latency on top (Ada has no fitted hop: 8 us) */
    double send_s = SPEED_ALLREDUCE_LATENCY_S + 32768.0 / (double)s.gpu.link_bytes_per_s;
    assert_float_equal(r.speed.send_seconds, send_s, 1e-12);
    assert_float_equal(r.speed.step_seconds, 2 * gpu_s + host_s + send_s, 1e-6);
    /* 1 / (2 x 22.13 ms + 256.00 ms) = 3.33 tok/s; the host's part counted
     * once a GPU would give 1 / (2 x (22.13 + 256.00) ms) = 1.80 */
    assert_true(r.speed.tokens_per_s_per_user > 3.3 && r.speed.tokens_per_s_per_user < 3.4);
    const struct explain_row *step = explain_find(&rows, "speed_step");
    assert_non_null(step);
    assert_float_equal((double)step->result.value, 2 * gpu_s + host_s + send_s, 1e-6);
}

/* gpt-oss-120b with --n-cpu-moe 36 on an RTX 4090 (PCIe Gen4 x16, 32 GB/s):
 * a 4,096-token prompt is 8 micro-batches, each copying the 36 layers'
 * experts (60,914,073,600 B; of them those its 512 tokens use, 4 of 128
 * each: 1 - (124/128)^512, all but 8.6e-8). */
static void a_prefill_copies_the_host_experts_each_micro_batch(void **state)
{
    (void)state;
    struct scenario s = base("rtx-4090", "gpt-oss-120b");
    s.engine.kind = ENGINE_LLAMACPP;
    s.offload.host_memory_bytes = 128ull << 30;
    s.context_tokens = 4096;
    s.prompt_tokens = 4096;
    s.offload.n_cpu_moe_given = true;
    s.offload.n_cpu_moe = 36;
    assert_true(run(&s));
    const struct offload_split *o = &r.engine.offload;
    assert_float_equal(o->link_bytes_per_s, 32e9, 1);
    assert_false(o->link_assumed);
    struct speed_basis b = plan_speed_basis(&r);
    struct step_time st;
    speed_prefill_parts(&s, &b, 4096, &st);
    double used = 1.0 - pow(124.0 / 128.0, 512);
    double copy_s = 8 * 60914073600.0 * used / 32e9; /* 15.23 s */
    assert_int_equal(st.host_copied, 1);
    assert_float_equal(st.host_s, copy_s, 1e-6);
    assert_true(r.speed.ttft_seconds > copy_s);
    assert_true(r.speed.prefill_tokens_per_s < 269); /* 4,096 / (15.23 s + compute) */
    /* a GPU whose preset gives no host link: PCIe Gen4 x16 assumed */
    s.gpu.host_link_bytes_per_s = 0;
    assert_true(run(&s));
    assert_true(o->link_assumed);
    assert_float_equal(o->link_bytes_per_s, OFFLOAD_LINK_DEFAULT, 1);
    b = plan_speed_basis(&r);
    speed_prefill_parts(&s, &b, 4096, &st);
    assert_float_equal(st.host_s, copy_s, 1e-6);
}

/* The step function: of a micro-batch's experts only those its tokens use
 * cross; a prompt of 600 tokens is a batch of 512 and one of 88. */
static void a_micro_batch_copies_the_experts_it_uses(void **state)
{
    (void)state;
    struct step_model m = {.dense_bytes = 1e9, .host_dense_bytes = 1e9, .host_expert_bytes = 8e9,
                           .experts = 128, .experts_per_token = 4, .layers = 1};
    struct step_machine hw = {.bytes_per_s = 1e12, .mbu = 1, .host_bytes_per_s = 80e9,
                              .host_mbu = 0.5, .host_link_bytes_per_s = 32e9,
                              .host_offload_batch = 32, .host_ubatch = 512};
    struct step_seq q = {.context = 0, .tokens = 600};
    struct step_time st;
    step_time(&m, &hw, &q, 1, &st);
    double used = 2.0 - pow(124.0 / 128.0, 512) - pow(124.0 / 128.0, 88); /* 1 + 0.9393 */
    assert_float_equal(st.host_bytes, 2 * 1e9 + 8e9 * used, 1);
    assert_float_equal(st.host_s, (2e9 + 8e9 * used) / 32e9, 1e-9);
    /* and the host's part once a step over two stages (a layer split) */
    m.stages = 2;
    double once = st.host_s;
    step_time(&m, &hw, &q, 1, &st);
    assert_float_equal(st.total_s, 2 * st.stage_s + once, 1e-12);
}

/* solve --max-context tries the fit search's expert splits as plan does:
 * Qwen3-30B-A3B Q4_K_M for two users on an RTX 3090 with 32 GiB of host
 * memory. Whole on the GPU (-ngl 999) two slots reach 25,856 tokens; with
 * the slots it must hold, the search (common/fit.cpp llama_params_fit: the
 * experts of the first layers to host memory first) keeps --n-cpu-moe 8 and
 * two slots of the model's whole 40,960 tokens fit, as `plan --context
 * 40960 --parallel 2` finds. Before, solve sized the search for one slot,
 * which fit whole, and answered 25,856. */
static void solve_max_context_tries_the_expert_splits(void **state)
{
    (void)state;
    struct scenario s = base("rtx-3090", "qwen3-30b-a3b");
    s.engine.kind = ENGINE_LLAMACPP;
    s.weight_dtype = DTYPE_Q4_K_M;
    s.offload.host_memory_bytes = 32ull << 30;
    assert_int_equal(s.model.max_context_tokens, 40960);
    assert_int_equal(solve_max_context(&s, 2), 40960);
    struct scenario at;
    struct plan_result got;
    assert_true(solve_plan_at(&s, 2, 40960, NULL, &at, &got));
    assert_int_equal(at.engine.parallel, 2);
    assert_true(got.engine.offload.active && got.engine.offload.searched);
    assert_int_equal(got.engine.offload.n_cpu_moe, 8);
    assert_true(got.speed.users_at_service_level >= 2);
    /* the plan with --parallel 2 agrees */
    s.context_tokens = 40960;
    s.engine.parallel = 2;
    assert_true(run(&s));
    assert_int_equal(r.engine.offload.n_cpu_moe, 8);
    /* a split given is kept: -ngl 999 alone (every expert on the GPU) stops
     * at 25,856 tokens for two slots */
    s.engine.parallel = 0;
    s.offload.ngl_given = true;
    s.offload.ngl = OFFLOAD_NGL_ALL;
    assert_int_equal(solve_max_context(&s, 2), 25856);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_replicas_share_the_hosts_memory_and_bandwidth),
        cmocka_unit_test(a_layer_split_runs_the_cpu_layers_once_a_token),
        cmocka_unit_test(solve_max_context_tries_the_expert_splits),
        cmocka_unit_test(a_prefill_copies_the_host_experts_each_micro_batch),
        cmocka_unit_test(a_micro_batch_copies_the_experts_it_uses),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
