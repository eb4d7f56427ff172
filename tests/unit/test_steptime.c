/* The step-time function (core/steptime.h), term by term, with numbers
 * worked by hand. Round machines (1 TB/s, 100 TFLOP/s, fractions of 1) make
 * each expected time a byte or flop count over a power of ten. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/steptime.h"

static struct step_machine round_machine(void)
{
    struct step_machine hw = {0};
    hw.bytes_per_s = 1e12;
    hw.flops_per_s = 1e14;
    hw.mbu = 1.0;
    hw.mfu = 1.0;
    hw.moe_mbu = 1.0;
    hw.link_bytes_per_s = 1e11;
    hw.link_latency_s = 1e-5;
    return hw;
}

static void close_to(double got, double want)
{
    assert_true(fabs(got - want) <= 1e-9 * fabs(want) + 1e-15);
}

/* One Mamba-2 layer of Nemotron-Nano-9B-v2 (mamba_num_heads 128,
 * mamba_head_dim 80, ssm_state_size 128, n_groups 8, conv_kernel 4), bf16:
 * recurrent 128 x 80 x 128 = 1,310,720 values, convolution
 * 3 x (128 x 80 + 2 x 8 x 128) = 36,864 values, 2,695,168 bytes a sequence.
 * A decode step reads it and writes it back: 5,390,336 bytes, 5.390336 us at
 * 1 TB/s; 257 sequences 1,385,316,352 bytes. */
static void a_mamba2_state_is_read_and_written_back(void **state)
{
    (void)state;
    struct step_machine hw = round_machine();
    struct step_model m = {0};
    m.state_bytes = (1310720.0 + 36864.0) * 2;
    m.stages = 1;
    m.tp = 1;
    struct step_seq one = {.context = 8192, .tokens = 1};
    struct step_time t;
    step_time(&m, &hw, &one, 1, &t);
    close_to(t.state_bytes, 5390336.0);
    close_to(t.state_s, 5.390336e-6);
    struct step_seq many[257];
    for (int i = 0; i < 257; i++)
        many[i] = one;
    step_time(&m, &hw, many, 257, &t);
    close_to(t.state_bytes, 1385316352.0);
    close_to(t.total_s, 1385316352.0 / 1e12); /* no weights, no KV: the state alone */
}

/* DeepSeek-V3's routing: 256 experts, 8 a token. 1 token touches 8 experts
 * (share 8/256), 1 token each; 256 tokens touch 256 x (1 - (31/32)^256) =
 * 255.9246 experts, 8.0024 tokens each; 2,048 tokens touch them all (share
 * 1 - 1.7e-29), 64 tokens each. With 1 GB of experts and 0.1 GB of other
 * weights on the GPU and the grouped GEMM at half the bandwidth: 1 token
 * reads 0.1 + 0.03125 GB in 0.1 ms + 62.5 us. */
static void an_moe_step_reads_the_experts_its_tokens_touch(void **state)
{
    (void)state;
    struct step_machine hw = round_machine();
    hw.moe_mbu = 0.5;
    struct step_model m = {0};
    m.dense_bytes = 1e8;
    m.expert_bytes = 1e9;
    m.experts = 256;
    m.experts_per_token = 8;
    m.stages = 1;
    m.tp = 1;
    struct step_seq s[2048];
    for (int i = 0; i < 2048; i++)
        s[i] = (struct step_seq){.context = 0, .tokens = 1};
    struct step_time t;

    step_time(&m, &hw, s, 1, &t);
    close_to(t.experts_touched, 8.0);
    close_to(t.tokens_per_expert, 1.0);
    close_to(t.weights_bytes, 1e8 + 1e9 / 32);
    close_to(t.weights_s, 1e-4 + 6.25e-5);

    step_time(&m, &hw, s, 256, &t);
    double share = 1.0 - pow(31.0 / 32.0, 256);
    close_to(t.experts_touched, 256 * share);
    assert_true(fabs(t.tokens_per_expert - 8.0024) < 1e-4);
    close_to(t.weights_s, 1e-4 + 1e9 * share / 0.5e12);

    step_time(&m, &hw, s, 2048, &t);
    assert_true(fabs(t.tokens_per_expert - 64.0) < 1e-9);
    close_to(t.weights_bytes, 1.1e9);
}

/* Attention over a context: a decode token attends to its whole context
 * (global layers) or its window; a 1,000-token prefill chunk after 3,000
 * tokens attends to 3,000 x 1,000 + 1,000 x 1,001 / 2 = 3,500,500
 * (query, key) pairs globally, and with a 3,500-token window to
 * 500 x 3,000 + 500 x 501 / 2 + 500 x 3,500 = 3,375,250. */
static void attention_counts_each_query_against_its_context(void **state)
{
    (void)state;
    struct step_machine hw = round_machine();
    struct step_model m = {0};
    m.attn_decode_global = 1.0;
    m.attn_prefill_global = 10.0;
    m.attn_decode_windowed = 100.0;
    m.attn_prefill_windowed = 1000.0;
    m.window = 3500;
    m.stages = 1;
    m.tp = 1;
    struct step_seq decode = {.context = 8000, .tokens = 1};
    struct step_time t;
    step_time(&m, &hw, &decode, 1, &t);
    close_to(t.attention_flops, 8001.0 + 100.0 * 3500.0);
    struct step_seq chunk = {.context = 3000, .tokens = 1000};
    step_time(&m, &hw, &chunk, 1, &t);
    close_to(t.attention_flops, 10.0 * 3500500.0 + 1000.0 * 3375250.0);
    close_to(t.gemm_flops, 0);
}

/* KV: a step reads the cache before it (at most the window in windowed
 * layers; a sparse share of the global ones) and writes its own tokens. */
static void kv_reads_the_context_and_writes_the_new_tokens(void **state)
{
    (void)state;
    struct step_machine hw = round_machine();
    struct step_model m = {0};
    m.kv_bytes_global = 100;
    m.kv_bytes_windowed = 10;
    m.window = 1024;
    m.kv_read_share = 0.25;
    m.stages = 1;
    m.tp = 1;
    struct step_seq q[2] = {{.context = 4096, .tokens = 1}, {.context = 512, .tokens = 1}};
    struct step_time t;
    step_time(&m, &hw, q, 2, &t);
    close_to(t.kv_bytes, (100 * 4096 * 0.25 + 10 * 1024 + 110) + (100 * 512 * 0.25 + 10 * 512 + 110));
}

/* Memory and compute overlap; a fine-grained MoE layer's kernels, the
 * all-reduces and the step's overhead add. With 8 GPUs in a ring, 4 tokens
 * of an 8,192-wide hidden state in 16 bits are 65,536 bytes: 2 x 7/8 x
 * 65,536 / 100 GB/s = 1.1469 us plus 10 us, 122 times; the step 1 ms of
 * weights (compute 0.08 ms hides under it), 58 MoE layers x 60 us, the
 * all-reduces and 0.5 ms each step; two pipeline stages pass in turn. */
static void the_parts_combine_as_the_engine_runs_them(void **state)
{
    (void)state;
    struct step_machine hw = round_machine();
    hw.step_overhead_s = 5e-4;
    hw.moe_layer_overhead_s = 6e-5;
    struct step_model m = {0};
    m.dense_bytes = 1e9;
    m.flops_per_token = 2e9;
    m.hidden = 8192;
    m.tp = 8;
    m.allreduces = 122;
    m.layers = 61;
    m.moe_layers = 58;
    m.stages = 1;
    struct step_seq q[4];
    for (int i = 0; i < 4; i++)
        q[i] = (struct step_seq){.context = 0, .tokens = 1};
    struct step_time t;
    double total = step_time(&m, &hw, q, 4, &t);
    double ring = 122 * (2.0 * 7 / 8 * 65536 / 1e11 + 1e-5);
    close_to(t.compute_s, 8e9 / 1e14);
    close_to(t.comm_s, ring);
    close_to(t.moe_s, 58 * 6e-5);
    close_to(total, 1e-3 + 58 * 6e-5 + ring + 5e-4);
    m.stages = 2;
    close_to(step_time(&m, &hw, q, 4, NULL), 2 * (1e-3 + 58 * 6e-5 + ring) + 5e-4);
    /* each stage but the last sends the 4 tokens' activations (4 bytes a
     * hidden value: vLLM's hidden states and residual, 16 bits each) to the
     * next: 4 x 32,768 B / 450 GB/s + 2.5 us a send */
    m.stage_send_bytes = 4.0 * 8192;
    hw.stage_bytes_per_s = 450e9;
    hw.stage_latency_s = 2.5e-6;
    m.stages = 4;
    step_time(&m, &hw, q, 4, &t);
    close_to(t.send_s, 3 * (2.5e-6 + 4 * 32768.0 / 450e9)); /* 8.37 us */
    close_to(t.total_s, 4 * (1e-3 + 58 * 6e-5 + ring) + t.send_s + 5e-4);
    hw.stage_bytes_per_s = 0; /* no link figure: no send counted */
    step_time(&m, &hw, q, 4, &t);
    assert_true(t.send_s == 0);
    /* a prompt's prefill is compute bound: its weights read hides under it */
    struct step_seq p = {.context = 0, .tokens = 4096};
    m.tp = 1;
    m.stages = 1;
    m.moe_layers = 0;
    step_time(&m, &hw, &p, 1, &t);
    close_to(t.stage_s, 4096 * 2e9 / 1e14);
}

/* DeepSeek-V3 under vLLM's DP 8 + EP (one GPU a rank): 37.55e9 active
 * parameters a token, of them the routed experts' 653.9e9 x 8 / 256 =
 * 20.43e9, spread over the 8 GPUs. A 4,096-token prompt on one rank: its
 * dense part (17.12e9 x 2 flops a token) on that GPU, its experts' split
 * eight ways; a decode step of 8 sequences a rank computes every rank's 64
 * tokens' experts here, 8 of them each (the experts' share of the gathered
 * batch), so the decode GEMMs are the rank's own 8 tokens' in full. */
static void expert_flops_spread_over_the_expert_ranks(void **state)
{
    (void)state;
    struct step_machine hw = round_machine();
    struct step_model m = {0};
    m.dense_bytes = 1e9;
    m.stages = 1;
    double routed = 653908770816.0 * 8 / 256, dense = 37552297472.0 - routed;
    m.flops_per_token = 2.0 * dense;                 /* TP 1 within a rank */
    m.expert_flops_per_token = 2.0 * routed / 8;     /* the experts over 8 GPUs */
    m.experts = 256;
    m.experts_per_token = 8;
    struct step_seq p = {.context = 0, .tokens = 4096};
    struct step_time t;
    step_time(&m, &hw, &p, 1, &t);
    close_to(t.gemm_flops, 4096 * (2.0 * dense + 2.0 * routed / 8));
    /* 34.24e9 + 5.11e9 = 39.35e9 flops a token, not all 75.10e9 of them on
     * the prompt's GPU: 0.524 of it */
    assert_true(t.gemm_flops < 0.53 * 4096 * 2.0 * 37552297472.0);
    /* decode: 8 sequences a rank, every rank's 64 tokens reach these experts */
    m.ep_scale = 8;
    struct step_seq d[8];
    for (int i = 0; i < 8; i++)
        d[i] = (struct step_seq){.context = 1000, .tokens = 1};
    step_time(&m, &hw, d, 8, &t);
    close_to(t.gemm_flops, 8 * 2.0 * dense + 64 * 2.0 * routed / 8);
    close_to(t.gemm_flops, 8 * 2.0 * 37552297472.0);
}

static void no_bandwidth_figure_or_no_batch_gives_no_time(void **state)
{
    (void)state;
    struct step_machine hw = round_machine();
    struct step_model m = {.dense_bytes = 1e9, .stages = 1, .tp = 1};
    struct step_seq q = {.context = 1, .tokens = 1};
    assert_true(step_time(&m, &hw, &q, 0, NULL) == 0);
    hw.bytes_per_s = 0;
    assert_true(step_time(&m, &hw, &q, 1, NULL) == 0);
}

/* Users alike, given once with their count (step_time_alike), make the
 * step the whole list makes: 40 users at 3,000 tokens and a 512-token
 * chunk at 1,024 on a model with KV, state, attention, experts, TP and a
 * shared prefix. */
static void users_alike_step_as_the_whole_list(void **state)
{
    (void)state;
    struct step_machine hw = round_machine();
    struct step_model m = {0};
    m.dense_bytes = 4e9;
    m.expert_bytes = 8e9;
    m.experts = 64;
    m.experts_per_token = 4;
    m.flops_per_token = 2e9;
    m.expert_flops_per_token = 1e9;
    m.kv_bytes_global = 65536;
    m.state_bytes = 1e6;
    m.attn_decode_global = m.attn_prefill_global = 16384;
    m.shared_tokens = 100;
    m.shared_bytes = 100 * 65536.0;
    m.hidden = 4096;
    m.tp = 2;
    m.allreduces = 64;
    m.layers = 32;
    m.stages = 1;
    struct step_seq list[41], user = {.context = 3000, .tokens = 1}, chunk = {.context = 1024, .tokens = 512};
    for (int i = 0; i < 40; i++)
        list[i] = user;
    list[40] = chunk;
    struct step_time a, b;
    double whole = step_time(&m, &hw, list, 41, &a);
    double alike = step_time_alike(&m, &hw, &user, 40, &chunk, 1, &b);
    close_to(alike, whole);
    close_to(b.kv_bytes, a.kv_bytes);
    close_to(b.attention_flops, a.attention_flops);
    close_to(b.state_bytes, a.state_bytes);
    close_to(b.tokens, 41 + 511);
    close_to(b.experts_touched, a.experts_touched);
    /* no chunk: the 40 alone, as 40 in a list */
    close_to(step_time_alike(&m, &hw, &user, 40, NULL, 0, NULL), step_time(&m, &hw, list, 40, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_mamba2_state_is_read_and_written_back),
        cmocka_unit_test(an_moe_step_reads_the_experts_its_tokens_touch),
        cmocka_unit_test(attention_counts_each_query_against_its_context),
        cmocka_unit_test(kv_reads_the_context_and_writes_the_new_tokens),
        cmocka_unit_test(the_parts_combine_as_the_engine_runs_them),
        cmocka_unit_test(expert_flops_spread_over_the_expert_ranks),
        cmocka_unit_test(no_bandwidth_figure_or_no_batch_gives_no_time),
        cmocka_unit_test(users_alike_step_as_the_whole_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
