/* bench_steptime: calls the step-time function (src/core/steptime.c) on a
 * 64-request batch, N times, for tools/bench.py: callgrind counts the
 * instructions (one run of N and one of 2N; their difference over N is one
 * call's cost), and the wall time per call is printed, reported, never
 * asserted. The batch is Llama 3.1 70B's share of one H100 under TP 4 with a
 * DeepSeek-like routing, so every term runs: windows, experts, all-reduces,
 * state, a prefill chunk beside 63 decodes.
 *
 * Usage: bench_steptime N */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/steptime.h"

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    struct step_machine hw = {.bytes_per_s = 3.35e12, .flops_per_s = 989.4e12, .mbu = 0.55,
                              .mfu = 0.5, .moe_mbu = 1.0, .link_bytes_per_s = 450e9,
                              .link_latency_s = 8e-6, .step_overhead_s = 0.9e-3,
                              .moe_layer_overhead_s = 75e-6, .a2a_bytes_per_s = 450e9,
                              .a2a_latency_s = 2.5e-6};
    struct step_model m = {.dense_bytes = 35e9, .expert_bytes = 1e9, .experts = 256,
                           .experts_per_token = 8, .moe_layers = 58, .layers = 80,
                           .flops_per_token = 35e9, .kv_bytes_global = 81920,
                           .kv_bytes_windowed = 20480, .window = 4096, .kv_read_share = 1,
                           .state_bytes = 1e6, .attn_decode_global = 2.6e5,
                           .attn_decode_windowed = 6.5e4, .attn_prefill_global = 2.6e5,
                           .attn_prefill_windowed = 6.5e4, .hidden = 8192, .tp = 4,
                           .allreduces = 160, .stages = 1, .ep_scale = 8, .a2a_copies = 7,
                           .a2a_bytes = 4 * 8192, .a2a_layers = 58};
    struct step_seq batch[64];
    for (int i = 0; i < 64; i++)
        batch[i] = (struct step_seq){.context = 1000 + 131u * (unsigned)i, .tokens = 1};
    batch[0].tokens = 512; /* a prefill chunk beside the decodes */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    volatile double sink = 0;
    for (long k = 0; k < n; k++) {
        batch[1].context = 1000 + (uint64_t)(k & 1023); /* a batch that moves */
        sink += step_time(&m, &hw, batch, 64, NULL);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (double)n;
    printf("%ld calls, %.0f ns a call (%g)\n", n, ns, (double)sink);
    return 0;
}
