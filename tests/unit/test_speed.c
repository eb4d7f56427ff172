/* The service level's terms against numbers worked by hand: bytes and
 * flops of one decode step, the experts a batch touches, the all-reduces,
 * the first token, and the users that keep a target speed. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/plan.h"
#include "core/speed.h"
#include "model_fixture.h"

static struct explain rows; /* the explain rows of the last plan computed with them */

static struct plan_result plan(const struct scenario *s)
{
    struct plan_result r;
    struct diag d = {0};
    if (!plan_compute(s, &rows, NULL, &r, &d))
        fail_msg("%s", d.message);
    return r;
}

static bool close_to(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fabs(b);
}

static void a_decode_step_reads_the_weights_and_every_cache_once(void **state)
{
    (void)state;
    /* Llama 3.1 8B bf16 on one H100, 64 users at 2,048 tokens, each reading
     * its cache and writing its new token's KV:
     * weights 16,060,522,496 B + 64 x 2,049 x 131,072 B = 33,248,780,288 B;
     * over 3.35 TB/s x 0.7: 33,248,780,288 / 2.345e12 = 14.1786 ms */
    struct gpu_spec g = h100_sxm();
    g.achievable_mbu = 0; /* the global default, 0.7, not the preset's Hopper fit */
    struct model_spec m = llama31_8b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.context_tokens = 2048;
    s.concurrency = 64;
    struct plan_result r = plan(&s);
    assert_int_equal(r.speed.step_bytes_per_gpu, 16060522496ull + 64ull * 2049 * 131072);
    assert_true(close_to(r.speed.memory_seconds, 33248780288.0 / (3.35e12 * 0.7)));
    /* compute: 2 x 8,030,261,248 x 64 + 4 x 32 heads x 128 x 2,049 (the context and
     * the new token) x 32 layers x 64 = 1.0965e12 flop, over 989.4e12 x 0.5:
     * 2.216 ms, so memory binds */
    double flops = 2.0 * 8030261248.0 * 64 + 4.0 * 32 * 128 * 2049.0 * 32 * 64;
    assert_true(close_to(r.speed.step_flops_per_gpu, flops));
    assert_true(close_to(r.speed.compute_seconds, flops / (989.4e12 * 0.5)));
    /* and each step's own overhead */
    assert_true(close_to(r.speed.step_seconds, r.speed.memory_seconds + SPEED_STEP_OVERHEAD_S));
    assert_true(close_to(r.speed.tokens_per_s_per_user, 1.0 / r.speed.step_seconds));
    assert_true(close_to(r.speed.tokens_per_s_total, 64.0 / r.speed.step_seconds));
    assert_true(close_to(r.decode_tokens_per_s_per_user, r.speed.tokens_per_s_per_user));
}

static void a_batch_touches_a_share_of_the_experts(void **state)
{
    (void)state;
    /* Mixtral: 8 experts, 2 a token: one token touches 2/8; two tokens
     * 1 - (6/8)^2 = 0.4375 of them; a large batch all of them */
    struct model_spec m = llama31_8b();
    m.experts = 8;
    m.experts_per_token = 2;
    assert_true(close_to(speed_expert_share(&m, 1), 0.25));
    assert_true(close_to(speed_expert_share(&m, 2), 0.4375));
    assert_true(speed_expert_share(&m, 256) > 0.999999);
    m.experts = 0;
    assert_true(close_to(speed_expert_share(&m, 1), 1.0));
}

static void moe_decode_reads_only_the_experts_in_use(void **state)
{
    (void)state;
    /* half the parameters in experts, 8 of them, 2 a token, one user: the step
     * reads the other half and a quarter of the experts: 5/8 of the weights */
    struct gpu_spec g = h100_sxm();
    g.achievable_mbu = 0; /* the global default, 0.7, not the preset's Hopper fit */
    struct model_spec m = coarse_moe_8b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.context_tokens = 2048;
    s.concurrency = 1;
    struct plan_result r = plan(&s);
    double weights = 16060522496.0;
    double expect = weights / 2 + weights / 2 * 0.25 + 2049.0 * 131072;
    assert_true(fabs((double)r.speed.step_bytes_per_gpu - expect) <= 1.0);
}

static void tensor_parallel_adds_two_all_reduces_a_layer(void **state)
{
    (void)state;
    /* TP 2, 8 users: each all-reduce moves 2 x (2 - 1)/2 x 8 x 4,096 x 2 B = 65,536 B
     * over 450 GB/s (145.6 ns) plus its latency, 2 x (2 - 1) hops of Hopper's
     * 2.5 us (core/speedfamily.c) = 5 us; 32 layers x 2 of them. A family
     * with no hop fitted takes the flat 8 us whatever the ring. */
    struct gpu_spec g = h100_sxm();
    g.achievable_mbu = 0; /* the global default, 0.7, not the preset's Hopper fit */
    struct model_spec m = llama31_8b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.gpus = 2;
    s.context_tokens = 2048;
    s.concurrency = 8;
    struct plan_result r = plan(&s);
    double each = 65536.0 / 450e9 + 5e-6;
    assert_true(close_to(r.speed.comm_seconds, 64 * each));
    strcpy(s.gpu.family, "");
    r = plan(&s);
    assert_true(close_to(r.speed.comm_seconds, 64 * (65536.0 / 450e9 + SPEED_ALLREDUCE_LATENCY_S)));
}

static void the_first_token_computes_the_prompt(void **state)
{
    (void)state;
    /* a 1,000-token prompt: 2 x 8,030,261,248 x 1,000 + 4 x 32 x 128 x 32 layers x
     * 500,500 (causal: token j attends to j) flop, at 0.5 x 989.4 TFLOP/s; the
     * weights read once and the prompt's KV written overlap it (the slower binds) */
    struct gpu_spec g = h100_sxm();
    g.achievable_mbu = 0; /* the global default, 0.7, not the preset's Hopper fit */
    struct model_spec m = llama31_8b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.context_tokens = 8192;
    s.prompt_tokens = 1000;
    struct plan_result r = plan(&s);
    double flops = 2.0 * 8030261248.0 * 1000 + 4.0 * 32 * 128 * 32 * 500500.0;
    double compute = flops / (989.4e12 * 0.5);
    double memory = (16060522496.0 + 1000.0 * 131072) / (3.35e12 * 0.7);
    double t = (compute > memory ? compute : memory) + SPEED_STEP_OVERHEAD_S;
    assert_true(compute > memory);
    assert_true(close_to(r.speed.ttft_prefill_seconds, t));
    assert_true(close_to(r.speed.prefill_tokens_per_s, 1000.0 / t));
    /* the generic engine has no per-request term; every user that fits
     * decodes, so a new prompt waits half their step (test_speed_ttft.c) */
    assert_true(r.speed.ttft_request_seconds == 0);
    assert_true(close_to(r.speed.ttft_seconds, t + 0.5 * r.speed.step_seconds));
}

static void the_service_level_keeps_the_users_that_hold_the_speed(void **state)
{
    (void)state;
    struct gpu_spec g = h100_sxm();
    g.achievable_mbu = 0; /* the global default, 0.7, not the preset's Hopper fit */
    struct model_spec m = llama31_8b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.context_tokens = 8192;
    struct plan_result r = plan(&s);
    assert_int_equal(r.speed.users_at_service_level, r.max_users); /* no target */
    assert_int_equal(r.speed.binding, BIND_MEMORY);
    s.min_tokens_per_s = 40;
    r = plan(&s);
    uint64_t n = r.speed.users_at_service_level;
    assert_true(n > 0 && n < r.max_users);
    assert_int_equal(r.speed.binding, BIND_DECODE);
    /* n keeps 40 tok/s, n + 1 does not */
    struct speed_basis b = plan_speed_basis(&r);
    assert_true(1.0 / speed_step_seconds(&s, &b, n) >= 40);
    assert_true(1.0 / speed_step_seconds(&s, &b, n + 1) < 40);
    /* a first token slower than allowed leaves no one */
    s.max_ttft_seconds = 0.01;
    r = plan(&s);
    assert_int_equal(r.speed.users_at_service_level, 0);
    assert_int_equal(r.speed.binding, BIND_PREFILL);
}

static void pipeline_stages_take_a_token_in_turn_with_a_batch_each(void **state)
{
    (void)state;
    /* Llama 3.1 8B bf16 on 2 H100 as 2 stages, 64 users at 2,048 tokens. vLLM
     * keeps one batch in flight per stage (vllm/v1/engine/core.py,
     * EngineCore.__init__: batch_queue_size = the executor's
     * max_concurrent_batches, the pipeline-parallel size, "required by
     * pipeline parallelism to eliminate pipeline bubbles"), so each
     * stage reads its 16 layers for 32 users: 8,030,261,248 B of weights +
     * 32 x 2,049 x 65,536 B (the cache, and the new tokens written) =
     * 12,327,325,696 B, 7.5582 ms at 3.35 TB/s x 0.7;
     * a user's token passes both stages: 15.114 ms */
    struct gpu_spec g = h100_sxm();
    g.achievable_mbu = 0; /* the global default, 0.7, not the preset's Hopper fit */
    struct model_spec m = llama31_8b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.engine.kind = ENGINE_VLLM;
    s.context_tokens = 2048;
    s.gpus = 2;
    s.tp = 1;
    s.pp = 2;
    s.concurrency = 64;
    struct plan_result r = plan(&s);
    assert_int_equal(r.speed.step_bytes_per_gpu, 8030261248ull + 32ull * 2049 * 65536);
    assert_true(close_to(r.speed.memory_seconds, 12327325696.0 / (3.35e12 * 0.7)));
    /* the first stage sends its 32 users' activations to the second: the
     * hidden states and the residual, 2 x 4,096 x 2 B a token, over the H100's
     * 450 GB/s NVLink plus a hop (Hopper's 2.5 us): 2.5 + 1.165 us */
    assert_true(close_to(g.link_bytes_per_s, 450e9));
    assert_true(close_to(r.speed.send_seconds, 2.5e-6 + 32.0 * 16384 / 450e9));
    assert_true(close_to(r.speed.step_seconds, 2 * r.speed.memory_seconds + r.speed.send_seconds +
                                                   SPEED_STEP_OVERHEAD_S));
    assert_true(close_to(r.speed.tokens_per_s_total, 64.0 / r.speed.step_seconds));
    /* the prompt alone passes both stages: as long as on one GPU, less the TP
     * it does not have (no all-reduce either way at TP 1), and its 2,048
     * tokens' send between them */
    struct scenario one = s;
    one.gpus = 1;
    one.pp = 0;
    struct plan_result r1 = plan(&one);
    assert_true(close_to(r.speed.ttft_prefill_seconds,
                         r1.speed.ttft_prefill_seconds + 2.5e-6 + 2048.0 * 16384 / 450e9));
}

static void llama_cpp_gpus_take_a_token_in_turn_one_batch_at_a_time(void **state)
{
    (void)state;
    /* llama.cpp splits layers over its GPUs (--split-mode layer): a step of
     * 64 users visits GPU 0's 16 layers, then GPU 1's, the whole batch each
     * time, with no all-reduce: 2 x (8,030,261,248 + 64 x 2,049 x 65,536) B
     * over 3.35 TB/s x 0.7 */
    struct gpu_spec g = h100_sxm();
    g.achievable_mbu = 0; /* the global default, 0.7, not the preset's Hopper fit */
    struct model_spec m = llama31_8b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.engine.kind = ENGINE_LLAMACPP;
    s.context_tokens = 2048;
    s.gpus = 2;
    s.concurrency = 64;
    struct plan_result r = plan(&s);
    assert_int_equal(r.speed.step_bytes_per_gpu, 8030261248ull + 64ull * 2049 * 65536);
    assert_true(close_to(r.speed.comm_seconds, 0));
    /* GPU 0 copies the batch's F32 activations, 4,096 x 4 B a token, to GPU 1
     * (ggml_backend_tensor_copy), over the link plus a hop: 2.5 + 2.330 us */
    assert_true(close_to(r.speed.send_seconds, 2.5e-6 + 64.0 * 16384 / 450e9));
    assert_true(close_to(r.speed.step_seconds,
                         2 * (8030261248.0 + 64.0 * 2049 * 65536) / (3.35e12 * 0.7) +
                             r.speed.send_seconds));
    /* the same prompt takes as long as on one GPU, half the layers twice, and
     * its 2,048 tokens' copy between them; it waits half the others' step,
     * their copy in it */
    struct scenario one = s;
    one.gpus = 1;
    struct plan_result r1 = plan(&one);
    assert_true(close_to(r.speed.ttft_prefill_seconds,
                         r1.speed.ttft_prefill_seconds + 2.5e-6 + 2048.0 * 16384 / 450e9));
    assert_true(close_to(r.speed.ttft_wait_seconds,
                         r1.speed.ttft_wait_seconds + 0.5 * r.speed.send_seconds));
}

static void mla_prefills_expanded_and_decodes_absorbed(void **state)
{
    (void)state;
    /* vLLM vllm/v1/attention/backends/mla/common.py (module notes;
     * MLACommonImpl._forward_prefill and _forward_decode): prefill is an MHA
     * with QK head dim qk_nope + qk_rope and V head dim v_head_dim; decode an
     * MQA over the latent (QK over rank + rope, PV over rank). A small MLA
     * model: 16 heads, rank 512, rope 64, nope 128, v 128, 4 layers. */
    struct gpu_spec g = h100_sxm();
    g.achievable_mbu = 0; /* the global default, 0.7, not the preset's Hopper fit */
    struct model_spec m = llama31_8b();
    m.attention = ATTENTION_MLA;
    m.layers = 4;
    m.attention_heads = 16;
    m.kv_heads = 16;
    m.kv_lora_rank = 512;
    m.qk_rope_head_dim = 64;
    m.qk_nope_head_dim = 128;
    m.v_head_dim = 128;
    m.head_dim = 192;
    m.params = 1000000000ull;
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.context_tokens = 4096;
    s.prompt_tokens = 1000;
    s.concurrency = 2;
    struct plan_result r = plan(&s);
    /* decode, absorbed: 16 x (2 x (512 + 64) + 2 x 512) = 34,816 a context token a
     * layer, over the context and the new token */
    double decode = 2.0 * 1e9 * 2 + 16.0 * (2 * 576 + 2 * 512) * 4097.0 * 4 * 2;
    assert_true(close_to(r.speed.step_flops_per_gpu, decode));
    /* prefill, expanded: 16 x (2 x (128 + 64) + 2 x 128) = 10,240; causal: 500,500 pairs */
    double prefill = 2.0 * 1e9 * 1000 + 16.0 * (2 * 192 + 2 * 128) * 4 * 500500.0;
    assert_true(close_to(r.speed.prefill_flops_per_gpu, prefill));
}

static void tensor_parallel_past_a_node_all_reduces_over_the_network(void **state)
{
    (void)state;
    /* TP 16 spans 2 nodes of 8: each all-reduce moves 2 x 15/16 x 8 x 4,096 x 2 B
     * over 50 GB/s a GPU (a 400 Gb/s NIC each) plus 25 us; 32 layers x 2 */
    struct gpu_spec g = h100_sxm();
    g.achievable_mbu = 0; /* the global default, 0.7, not the preset's Hopper fit */
    struct model_spec m = llama31_8b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.gpus = 16;
    s.tp = 16; /* as asked: the default stays within a node */
    s.context_tokens = 2048;
    s.concurrency = 8;
    struct plan_result r = plan(&s);
    /* the network's latency after a node's ring of 8: 2 x 7 hops of 2.5 us */
    double each = 2.0 * 15 / 16 * 8 * 4096 * 2 / SPEED_INTERNODE_BYTES_PER_S +
                  SPEED_INTERNODE_LATENCY_S + 35e-6;
    assert_true(close_to(r.speed.comm_seconds, 64 * each));
    assert_true(r.warnings & WARN_TP_ACROSS_NODES);
    bool named = false;
    for (int i = 0; i < rows.count; i++)
        if (strcmp(rows.rows[i].key, "speed_comm") == 0)
            named = strstr(rows.rows[i].formula,
                           "ring over 16 GPUs across 2 nodes at 50 GB/s") != NULL;
    assert_true(named);
    char line[512];
    plan_warning_format(&r, WARN_TP_ACROSS_NODES, line, sizeof line);
    assert_non_null(strstr(line, "--pp"));
    /* TP 8 stays on NVLink, with no warning: 2 x 7 hops of 2.5 us = 35 us an
     * all-reduce (vLLM's one-shot custom all-reduce or NCCL's ring, both a
     * latency that grows with the GPUs it spans) */
    s.gpus = 8;
    s.tp = 0;
    r = plan(&s);
    assert_false(r.warnings & WARN_TP_ACROSS_NODES);
    assert_true(close_to(r.speed.comm_seconds,
                         64 * (2.0 * 7 / 8 * 8 * 4096 * 2 / 450e9 + 35e-6)));
}

static void concurrency_beyond_the_fit_is_warned_in_the_callers_words(void **state)
{
    (void)state;
    struct gpu_spec g = h100_sxm();
    g.achievable_mbu = 0; /* the global default, 0.7, not the preset's Hopper fit */
    struct model_spec m = llama31_8b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.context_tokens = 8192;
    s.concurrency = 500;
    struct plan_result r = plan(&s);
    assert_int_equal(r.max_users, 56);
    assert_true(r.warnings & WARN_CONCURRENCY_BEYOND_FIT);
    char line[512];
    plan_warning_format(&r, WARN_CONCURRENCY_BEYOND_FIT, line, sizeof line);
    assert_string_equal(line, "more users decoding at once (--concurrency 500) than fit in "
                              "memory (56): the speed is for a batch that cannot be held");
    /* a planner with its own labels sees them */
    const char *names[SF_COUNT];
    for (int i = 0; i < SF_COUNT; i++)
        names[i] = scenario_option_names[i];
    names[SF_CONCURRENCY] = "Decoding at once";
    struct diag d = {0};
    assert_true(plan_compute(&s, PLAN_NUMBERS, names, &r, &d));
    plan_warning_format(&r, WARN_CONCURRENCY_BEYOND_FIT, line, sizeof line);
    assert_non_null(strstr(line, "(Decoding at once 500)"));
    s.concurrency = 56;
    r = plan(&s);
    assert_false(r.warnings & WARN_CONCURRENCY_BEYOND_FIT);
}

static void a_closed_loop_solves_for_the_others_prompts(void **state)
{
    (void)state;
    const struct speed_prompt P100 = {.prompt_s = 0.100}; /* no step budget: no cap */
    /* step 10 ms, a prompt adds 100 ms, the first token 200 ms, 9 users, 101
     * output tokens (100 gaps): D = 100 x 10 ms + 8 x 100 ms x D / (0.2 s + D),
     * D^2 + (0.2 - 1.0 - 0.8) D - 1.0 x 0.2 = 0, D = (1.6 + sqrt(3.36)) / 2
     * = 1.716515 s; TPOT 17.16515 ms; the prompts shared (D - 1.0) / 0.1 = 7.16515 */
    struct speed_loop l = speed_loop_of(0.010, P100, 0.200, 9, 1, 101);
    double d = (1.6 + sqrt(3.36)) / 2.0;
    assert_true(fabs(l.tpot_s - d / 100.0) < 1e-12);
    assert_true(fabs(l.prompts - (d - 1.0) / 0.1) < 1e-9);
    assert_true(fabs(l.prompts_max - 8.0) < 1e-12);
    assert_true(fabs(d - (1.0 + 0.8 * d / (0.2 + d))) < 1e-12); /* the fixed point */
    /* alone, no one else's prompt; with no first-token time, every prompt */
    assert_true(fabs(speed_loop_of(0.010, P100, 0.200, 1, 1, 101).tpot_s - 0.010) < 1e-15);
    assert_true(fabs(speed_loop_of(0.010, P100, 0, 9, 1, 101).tpot_s - 0.018) < 1e-15);
    /* DP attention: a rank's users share its prompts (8 others over 4 ranks) */
    assert_true(fabs(speed_loop_of(0.010, P100, 0, 9, 4, 101).tpot_s - 0.012) < 1e-15);
    /* saturated: 64 users, 2 tokens out (1 gap), a prompt adds 22 ms, a full
     * step of prompts 180 ms: the 63 others would add 1.39 s to the one gap,
     * more than any step takes: the gap is a full step, 10 + 180 ms */
    const struct speed_prompt full = {.prompt_s = 0.022, .full_s = 0.180};
    struct speed_loop sat = speed_loop_of(0.010, full, 0.080, 64, 1, 2);
    assert_true(sat.saturated);
    assert_true(fabs(sat.tpot_s - 0.190) < 1e-15);
    assert_true(fabs(sat.prompts - 0.180 / 0.022) < 1e-9);
    /* 8.18 prompts a 190 ms gap: 64 users cycle in 64 x 0.190 / 8.18 = 1.486 s, of
     * which 1.296 s is the first token, 1.216 s of it past the 80 ms alone */
    assert_true(fabs(sat.queue_s - (64 * 0.190 / (0.180 / 0.022) - 0.190 - 0.080)) < 1e-12);
    /* 1,024 out: far from it, unsaturated */
    assert_false(speed_loop_of(0.010, full, 0.080, 64, 1, 1024).saturated);
}

static void the_output_length_plans_a_closed_loop(void **state)
{
    (void)state;
    /* Llama 3.1 8B bf16 on one H100 (MBU 0.7, MFU 0.5), 64 users, prompts of
     * 1,024 and outputs of 1,024 tokens: each user at 1,024 + 512 = 1,536
     * tokens; the generic engine's step takes the whole prompt beside the 64
     * decodes (no chunking), so a prompt adds that step's time less theirs */
    struct gpu_spec g = h100_sxm();
    g.achievable_mbu = 0;
    struct model_spec m = llama31_8b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.context_tokens = 2048;
    s.concurrency = 64;
    s.prompt_tokens = 1024;
    struct plan_result alone = plan(&s);
    s.output_tokens = 1024;
    struct plan_result r = plan(&s);
    assert_int_equal(r.speed.decode_context_tokens, 1536);
    assert_int_equal(r.speed.step_bytes_per_gpu, 16060522496ull + 64ull * 1537 * 131072);
    double attn = 4.0 * 32 * 128 * 32; /* flop a query token a context token */
    double dec_mem = (16060522496.0 + 64.0 * 1537 * 131072) / (3.35e12 * 0.7);
    double dec_fl = 2.0 * 8030261248.0 * 64 + attn * 1537.0 * 64;
    double mix_fl = dec_fl + 2.0 * 8030261248.0 * 1024 + attn * (1024.0 * 1025 / 2);
    double mix_mem = dec_mem + 1024.0 * 131072 / (3.35e12 * 0.7);
    double dec = fmax(dec_mem, dec_fl / (989.4e12 * 0.5));
    double mix = fmax(mix_mem, mix_fl / (989.4e12 * 0.5));
    assert_true(fabs(r.speed.loop.prompt_s - (mix - dec)) < 1e-9 * mix);
    assert_true(close_to(r.speed.loop.step_s, r.speed.step_seconds));
    /* the loop as speed_loop_of solves it, from the first token alone */
    struct speed_prompt pr = {.prompt_s = r.speed.loop.prompt_s, .full_s = r.speed.loop.full_s};
    struct speed_loop l = speed_loop_of(r.speed.step_seconds, pr,
                                        r.speed.ttft_prefill_seconds + r.speed.ttft_request_seconds,
                                        64, 1, 1024);
    assert_true(close_to(r.speed.tpot_seconds, l.tpot_s));
    assert_true(close_to(r.speed.tokens_per_s_per_user, 1.0 / l.tpot_s));
    assert_true(close_to(r.speed.tokens_per_s_total, 64.0 / l.tpot_s));
    /* slower than the step alone at the full context would say, here */
    assert_true(r.speed.tpot_seconds > r.speed.step_seconds);
    assert_true(alone.speed.tpot_seconds == alone.speed.step_seconds);
    assert_int_equal(alone.speed.decode_context_tokens, 2048);
    /* the explanation's rows give the same figure */
    const struct explain_row *row = explain_find(&rows, "decode");
    assert_non_null(row);
    assert_true(fabs((double)explain_eval(row) - r.speed.tokens_per_s_per_user) <
                1e-6 * r.speed.tokens_per_s_per_user);
    assert_non_null(explain_find(&rows, "speed_prompts"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_decode_step_reads_the_weights_and_every_cache_once),
        cmocka_unit_test(a_batch_touches_a_share_of_the_experts),
        cmocka_unit_test(moe_decode_reads_only_the_experts_in_use),
        cmocka_unit_test(tensor_parallel_adds_two_all_reduces_a_layer),
        cmocka_unit_test(the_first_token_computes_the_prompt),
        cmocka_unit_test(the_service_level_keeps_the_users_that_hold_the_speed),
        cmocka_unit_test(pipeline_stages_take_a_token_in_turn_with_a_batch_each),
        cmocka_unit_test(llama_cpp_gpus_take_a_token_in_turn_one_batch_at_a_time),
        cmocka_unit_test(mla_prefills_expanded_and_decodes_absorbed),
        cmocka_unit_test(tensor_parallel_past_a_node_all_reduces_over_the_network),
        cmocka_unit_test(concurrency_beyond_the_fit_is_warned_in_the_callers_words),
        cmocka_unit_test(a_closed_loop_solves_for_the_others_prompts),
        cmocka_unit_test(the_output_length_plans_a_closed_loop),
    };
    return cmocka_run_group_tests_name("speed", tests, NULL, NULL);
}
