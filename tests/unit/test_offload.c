/* llama.cpp's layers, experts and cache in host memory (core/offload.h), with
 * the numbers worked by hand. The rules, as ggml-org/llama.cpp has them:
 * src/llama-model.cpp load_tensors, from PR #18148 ("llama: offload output
 * layer to GPU first", December 2025; llama.cpp@output-first and the current
 * rule): i_gpu_start = max(n_layer + 1 - n_gpu_layers, 0) and act_gpu_layers
 * = min(n_gpu_layers, n_layer + 1), the output layer being layer n_layer, so
 * -ngl N >= 1 puts the output layer and the last N - 1 layers on the GPUs.
 * Before it (llama.cpp@mla-kv, @pre-mla) i_gpu_start = max(n_layer -
 * n_gpu_layers, 0): the last N layers, the output layer only when N passes
 * n_layer. dev_input is the CPU ("there is very little benefit
 * to offloading the input layer"). common/arg.cpp --n-cpu-moe N: the
 * tensors blk.i.ffn_(up|down|gate)_exps of layers i < N in the CPU buffer
 * type. src/llama-kv-cache.cpp: a layer's cache on its layer's device, or
 * the CPU's with --no-kv-offload (offload_kqv false). ggml-cuda.cu
 * ggml_backend_cuda_device_offload_op: an op on host weights runs on the GPU
 * from a batch of 32 (op_offload_min_batch_size), the weights copied. */
#include <math.h>

#include "catalog_fixture.h"

#include "core/offload_fit.h"
#include "core/plan.h"
#include "core/steptime.h"
#include "io/report.h"

static struct plan_result r;

static struct explain rows; /* the launch line is written when explaining */

static bool run(const struct scenario *s)
{
    struct diag d = {0};
    return plan_compute(s, &rows, NULL, &r, &d);
}

static struct scenario llama(const char *gpu, const char *model)
{
    struct scenario s = base(gpu, model);
    s.engine.kind = ENGINE_LLAMACPP;
    s.offload.host_memory_bytes = 64ull << 30; /* a desktop's 64 GiB */
    return s;
}

/* Llama 3.1 70B in Q4_K_M (4.9 bits, 49/80 B a weight) with -ngl 40 on a
 * 24 GB card, 8k context, as builds before PR #18148 split it
 * (llama.cpp@mla-kv): half its 80 layers on the GPU, the output layer not. */
static void llama_70b_q4_40_of_80_layers_on_a_4090(void **state)
{
    (void)state;
    struct scenario s = llama("rtx-4090", "llama-3.1-70b");
    s.engine.rule = RULE_LLAMACPP_MLA_KV;
    s.weight_dtype = DTYPE_Q4_K_M;
    s.context_tokens = 8192;
    s.offload.ngl_given = true;
    s.offload.ngl = 40;
    assert_true(run(&s));
    const struct offload_split *o = &r.engine.offload;
    /* 70,553,706,496 params x 49/80 = 43,214,145,228.8 -> 43,214,145,229 B.
     * Token embedding and output: 128,256 x 8,192 = 1,050,673,152 params x
     * 49/80 = 643,537,305.6 -> 643,537,306 B each. A layer: (43,214,145,229 -
     * 2 x 643,537,306) / 80 = 524,088,382.7 -> 524,088,382 B. */
    assert_int_equal(r.weights_bytes, 43214145229ull);
    assert_int_equal(o->embed_bytes, 643537306ull);
    assert_int_equal(o->layer_bytes, 524088382ull);
    assert_int_equal(o->gpu_layers, 40);
    assert_false(o->output_on_gpu); /* -ngl 40 of 81 */
    /* GPU: 40 x 524,088,382 = 20,963,535,280 B; host: the rest,
     * 43,214,145,229 - 20,963,535,280 = 22,250,609,949 B */
    assert_int_equal(o->gpu_weights_bytes, 20963535280ull);
    assert_int_equal(o->host_weights_bytes, 22250609949ull);
    /* KV: 80 layers x 8,192 cells x 4,096 B (f16 K and V of 8 heads x 128)
     * = 2,684,354,560 B, half beside the GPU's layers, half in host memory */
    assert_int_equal(o->gpu_kv_bytes, 1342177280ull);
    assert_int_equal(o->host_kv_bytes, 1342177280ull);
    assert_int_equal(o->host_bytes, 22250609949ull + 1342177280ull);
    assert_true(o->host_fits);
    assert_true(r.fits);
    assert_int_equal(r.users_per_replica, 1); /* 2.46 GiB of pool, 1.25 GiB a slot */
    /* A decode step of one user at 8,192 tokens: the GPU reads its weights
     * and its half of the cache (163,840 B a token, the new one written too)
     * at 1.008 TB/s x 0.75; then the CPU its 40 layers (the embedding's row
     * aside: 22,250,609,949 - 643,537,306 B) and its half of the cache at
     * 76.8 GB/s (DDR5-4800, two channels) x 0.6. */
    double gpu_bytes = 20963535280.0 + 163840.0 * 8192 + 163840.0;
    double host_bytes = 22250609949.0 - 643537306.0 + 163840.0 * 8192 + 163840.0;
    double gpu_s = gpu_bytes / ((double)s.gpu.bandwidth_bytes_per_s * s.gpu.achievable_mbu);
    double host_s = host_bytes / (76.8e9 * 0.6);
    assert_float_equal(r.speed.step_seconds, gpu_s + host_s, 1e-6);
    assert_float_equal(r.speed.tokens_per_s_per_user, 1.0 / (gpu_s + host_s), 1e-3);
    assert_true(r.speed.tokens_per_s_per_user > 1.5 && r.speed.tokens_per_s_per_user < 2.5);
    /* the output layer joins at -ngl 81: 643,537,306 B more on the GPU */
    s.offload.ngl = 81;
    run(&s);
    assert_true(o->output_on_gpu);
    assert_int_equal(o->gpu_weights_bytes, 80ull * 524088382 + 643537306);
}

/* The same under the current rule (and llama.cpp@output-first, builds from
 * PR #18148): -ngl 40 is the output layer and the last 39 layers; -ngl 1 the
 * output layer alone, every layer and its cache in host memory. */
static void llama_70b_q4_ngl_40_and_1_offload_the_output_layer_first(void **state)
{
    (void)state;
    struct scenario s = llama("rtx-4090", "llama-3.1-70b");
    s.weight_dtype = DTYPE_Q4_K_M;
    s.context_tokens = 8192;
    s.offload.ngl_given = true;
    s.offload.ngl = 40;
    enum engine_rule rules[] = {RULE_CURRENT, RULE_LLAMACPP_OUTPUT_FIRST};
    for (int i = 0; i < 2; i++) {
        s.engine.rule = rules[i];
        assert_true(run(&s));
        const struct offload_split *o = &r.engine.offload;
        assert_int_equal(o->gpu_layers, 39);
        assert_true(o->output_on_gpu);
        /* GPU: 39 x 524,088,382 + 643,537,306 = 21,082,984,204 B; host:
         * 43,214,145,229 - 21,082,984,204 = 22,131,161,025 B (the embedding
         * and 41 layers) */
        assert_int_equal(o->gpu_weights_bytes, 21082984204ull);
        assert_int_equal(o->host_weights_bytes, 22131161025ull);
        /* KV: 39/80 of 2,684,354,560 B = 1,308,622,848 B on the GPU, the 41
         * CPU layers' 1,375,731,712 B beside them */
        assert_int_equal(o->gpu_kv_bytes, 1308622848ull);
        assert_int_equal(o->host_kv_bytes, 1375731712ull);
        /* decode: the GPU its 39 layers, the output layer and 39/80 of the
         * cache (39 x 4,096 = 159,744 B a token, 8,193 tokens with the new
         * one); the CPU 41 layers (22,131,161,025 - 643,537,306 B) and their
         * 41 x 4,096 = 167,936 B a token */
        double gpu_bytes = 21082984204.0 + 159744.0 * 8193;
        double host_bytes = 22131161025.0 - 643537306.0 + 167936.0 * 8193;
        double gpu_s = gpu_bytes / ((double)s.gpu.bandwidth_bytes_per_s * s.gpu.achievable_mbu);
        double host_s = host_bytes / (76.8e9 * 0.6);
        assert_float_equal(r.speed.step_seconds, gpu_s + host_s, 1e-6);
    }
    /* -ngl 1: the output layer's 643,537,306 B alone on the GPU; the 80
     * layers (42,570,607,923 B with the embedding) and all 2,684,354,560 B of
     * cache in host memory */
    s.engine.rule = RULE_CURRENT;
    s.engine.parallel = 1;
    s.offload.ngl = 1;
    assert_true(run(&s));
    const struct offload_split *o = &r.engine.offload;
    assert_int_equal(o->gpu_layers, 0);
    assert_true(o->output_on_gpu);
    assert_int_equal(o->gpu_weights_bytes, 643537306ull);
    assert_int_equal(o->host_weights_bytes, 42570607923ull);
    assert_int_equal(o->host_kv_bytes, 2684354560ull);
    /* the older rule keeps -ngl 1 a repeating layer, the output on the CPU */
    s.engine.rule = RULE_LLAMACPP_MLA_KV;
    assert_true(run(&s));
    assert_int_equal(o->gpu_layers, 1);
    assert_false(o->output_on_gpu);
    assert_int_equal(o->gpu_weights_bytes, 524088382ull);
}

/* gpt-oss-120b with --n-cpu-moe 36 on a 24 GB card: every layer on the GPU,
 * every layer's experts in host memory. */
static void gpt_oss_120b_keeps_its_36_layers_of_experts_in_host_memory(void **state)
{
    (void)state;
    struct scenario s = llama("rtx-4090", "gpt-oss-120b");
    s.context_tokens = 32768;
    s.offload.n_cpu_moe_given = true;
    s.offload.n_cpu_moe = 36;
    s.offload.host_memory_bytes = 128ull << 30;
    assert_true(run(&s));
    const struct offload_split *o = &r.engine.offload;
    /* The checkpoint: 65,248,815,744 B; the 2,167,371,072 parameters outside
     * the experts in bf16 = 4,334,742,144 B, the MXFP4 experts the rest,
     * 60,914,073,600 B (1,692,057,600 B a layer). Embedding and output:
     * 201,088 x 2,880 x 2 B = 1,158,266,880 B each; a layer (65,248,815,744 -
     * 2 x 1,158,266,880) / 36 = 1,748,118,944 B. */
    assert_int_equal(o->layer_bytes, 1748118944ull);
    assert_int_equal(o->layer_expert_bytes, 1692057600ull);
    assert_int_equal(o->gpu_layers, 36);
    assert_true(o->output_on_gpu); /* no -ngl: 999 */
    assert_int_equal(o->moe_host_layers, 36);
    /* GPU: 36 x (1,748,118,944 - 1,692,057,600) + 1,158,266,880 = 3,176,475,264 B */
    assert_int_equal(o->gpu_weights_bytes, 3176475264ull);
    assert_int_equal(o->host_expert_bytes, 60914073600ull);
    assert_int_equal(o->host_weights_bytes, 65248815744ull - 3176475264ull);
    assert_int_equal(o->host_kv_bytes, 0); /* every layer's cache beside it on the GPU */
    assert_true(r.fits);
    assert_true(r.users_per_replica >= 1);
}

/* Jamba 1.5 Mini in bf16 (96 GiB) on one H100: it did not fit whole (-ngl
 * 999 still does not); the fit search keeps the experts of its first layers
 * in host memory and it now fits. */
static void jamba_mini_fits_one_h100_with_experts_in_host_memory(void **state)
{
    (void)state;
    struct scenario s = llama("h100-sxm", "jamba-1.5-mini");
    s.context_tokens = 32768;
    s.offload.ngl_given = true;
    s.offload.ngl = OFFLOAD_NGL_ALL;
    assert_true(run(&s));
    assert_false(r.weights_fit);
    s.offload.ngl_given = false;
    assert_true(run(&s));
    const struct offload_split *o = &r.engine.offload;
    assert_true(o->active && o->searched);
    assert_true(r.weights_fit && r.fits);
    assert_int_equal(r.users_per_replica, 1);
    assert_true(o->n_cpu_moe > 0 && o->n_cpu_moe < 32);
    /* the fewest layers' experts that fit: one fewer does not */
    uint32_t k = o->n_cpu_moe;
    s.offload.n_cpu_moe_given = true;
    s.offload.n_cpu_moe = k - 1;
    assert_true(run(&s));
    assert_false(r.fits);
    /* a speed, slower than the GPU alone: the host's part is read at 76.8 GB/s */
    s.offload.n_cpu_moe = k;
    assert_true(run(&s));
    assert_true(r.fits && r.speed.tokens_per_s_per_user > 0);
}

/* A dense model: the search gives up whole layers from the first, and keeps
 * the most that fit. */
static void the_fit_search_keeps_the_most_layers_that_fit(void **state)
{
    (void)state;
    struct scenario s = llama("rtx-4090", "llama-3.1-70b");
    s.weight_dtype = DTYPE_Q4_K_M;
    s.context_tokens = 8192;
    assert_true(run(&s));
    const struct offload_split *o = &r.engine.offload;
    assert_true(o->searched && r.fits);
    uint32_t ngl = o->ngl;
    assert_true(ngl > 20 && ngl < 81);
    assert_int_equal(o->n_cpu_moe, 0);
    s.offload.ngl_given = true;
    s.offload.ngl = ngl + 1;
    assert_true(run(&s));
    assert_false(r.fits);
    s.offload.ngl = ngl;
    assert_true(run(&s));
    assert_true(r.fits);
    /* a model that fits whole is left alone: no split, -ngl 999 */
    s = llama("h100-sxm", "llama-3.1-8b");
    assert_true(run(&s));
    assert_false(r.engine.offload.active);
    assert_non_null(strstr(r.engine.launch, "-ngl 999"));
    /* unified memory (Apple silicon) searches too: the CPU layers take what
     * the GPU's part and macOS leave of the Mac's 128 GiB: 123 GiB (macOS
     * keeps min(20%, 5 GiB)) less -ngl 64's weights (the output layer and
     * 63 layers: 643,537,306 + 63 x 524,088,382 = 33,661,105,372 B),
     * 67,645,734,912 B of cache (63 x 262,144 cells x 4 KiB) and 598,212,608 B
     * of buffers = 30,165,191,460 B, never the 64 GiB the scenario says this
     * machine has, read at the M4 Max's 546 GB/s */
    s = llama("apple-m4-max", "llama-3.1-70b");
    s.weight_dtype = DTYPE_Q4_K_M;
    s.context_tokens = 131072;
    s.engine.parallel = 2;
    assert_true(run(&s));
    assert_true(o->active && o->searched && r.fits);
    assert_true(o->gpu_layers < 80);
    assert_int_equal(o->ngl, 64);
    assert_int_equal(o->gpu_weights_bytes, 33661105372ull);
    assert_int_equal(o->host_memory_bytes, 30165191460ull);
    assert_true(o->host_bytes <= 30165191460ull);
    assert_float_equal(o->host_bytes_per_s, 546e9, 1);
    /* one more layer on the GPU does not fit there */
    s.offload.ngl_given = true;
    s.offload.ngl = o->ngl + 1;
    assert_true(run(&s));
    assert_false(r.fits);
}

static void no_kv_offload_moves_the_whole_cache_to_host_memory(void **state)
{
    (void)state;
    struct scenario s = llama("h100-sxm", "llama-3.1-8b");
    s.context_tokens = 32768;
    s.engine.parallel = 2;
    s.offload.no_kv_offload = true;
    assert_true(run(&s));
    const struct offload_split *o = &r.engine.offload;
    /* 2 slots x 32,768 cells x 32 layers x 4,096 B = 8,589,934,592 B */
    assert_int_equal(o->host_kv_bytes, 8589934592ull);
    assert_int_equal(o->gpu_kv_bytes, 0);
    assert_int_equal(r.engine.kv_cache_bytes, 0);
    assert_true(r.fits);
    assert_non_null(strstr(r.engine.launch, "--no-kv-offload"));
    /* and host memory too small for it: it does not fit */
    s.offload.host_memory_bytes = 8ull << 30;
    assert_true(run(&s));
    assert_false(r.engine.offload.host_fits);
    assert_false(r.fits);
}

static void the_launch_line_carries_the_split(void **state)
{
    (void)state;
    struct scenario s = llama("rtx-4090", "qwen3-30b-a3b");
    s.weight_dtype = DTYPE_Q4_K_M;
    s.offload.ngl_given = true;
    s.offload.ngl = 30;
    s.offload.n_cpu_moe_given = true;
    s.offload.n_cpu_moe = 10;
    assert_true(run(&s));
    assert_non_null(strstr(r.engine.launch, " -ngl 30 --n-cpu-moe 10"));
    /* layers 18 to 47 on the GPU: --n-cpu-moe 10 reaches none of them */
    assert_int_equal(r.engine.offload.moe_host_layers, 0);
    assert_non_null(explain_find(&rows, "offload_gpu_weights"));
    assert_non_null(explain_find(&rows, "offload_host_memory"));
}

/* Another engine keeps everything on its GPUs: the options are refused,
 * each by its name; --n-cpu-moe on a dense model too. */
static void other_engines_and_dense_models_refuse_the_options(void **state)
{
    (void)state;
    struct diag d = {0};
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    s.engine.kind = ENGINE_VLLM;
    s.offload.ngl_given = true;
    assert_false(scenario_validate(&s, NULL, NULL, &d));
    assert_non_null(strstr(d.message, "--n-gpu-layers: is an option of llama.cpp"));
    s.offload.ngl_given = false;
    s.offload.no_kv_offload = true;
    d = (struct diag){0};
    assert_false(scenario_validate(&s, NULL, NULL, &d));
    assert_non_null(strstr(d.message, "--no-kv-offload: is an option of llama.cpp"));
    s.engine.kind = ENGINE_LLAMACPP;
    s.offload.no_kv_offload = false;
    s.offload.n_cpu_moe_given = true;
    s.offload.n_cpu_moe = 4;
    d = (struct diag){0};
    assert_false(scenario_validate(&s, NULL, NULL, &d));
    assert_non_null(strstr(d.message, "--n-cpu-moe: llama-3.1-8b has no MoE experts"));
}

/* Prefill: a batch of 32 tokens or more copies the host weights to the GPU
 * once a 512-token micro-batch; a smaller one reads them on the CPU. */
static void prefill_copies_host_layers_over_the_link(void **state)
{
    (void)state;
    struct step_model m = {.dense_bytes = 1e9, .host_dense_bytes = 4e9, .layers = 1};
    struct step_machine hw = {.bytes_per_s = 1e12, .mbu = 1, .host_bytes_per_s = 80e9,
                              .host_mbu = 0.5, .host_link_bytes_per_s = 32e9,
                              .host_offload_batch = 32, .host_ubatch = 512};
    struct step_seq q = {.context = 0, .tokens = 2048};
    struct step_time st;
    step_time(&m, &hw, &q, 1, &st);
    /* 4 micro-batches x 4e9 B / 32e9 B/s = 0.5 s */
    assert_float_equal(st.host_s, 0.5, 1e-9);
    assert_int_equal(st.host_copied, 1);
    q.tokens = 1;
    step_time(&m, &hw, &q, 1, &st);
    /* 4e9 B / (80e9 x 0.5) = 0.1 s on the CPU */
    assert_float_equal(st.host_s, 0.1, 1e-9);
    assert_int_equal(st.host_copied, 0);
    /* the CPU layers' cache goes too, its views once a micro-batch
     * (steptime.c copied_views: ggml-backend.cpp's sched gives the GPU the
     * attention between offloaded matmuls and copies the cache's views in;
     * ggml-org/llama.cpp 0054c01): 1,000 B a cell, a 2,048-token prompt
     * after 1,000 cells: views of 1,512 + 2,024 + 2,536 + 3,048 = 9,120
     * cells, 2,048 cells written back: 4 x 4e9 + 11,168,000 B over 32e9 B/s
     * = 0.500349 s; it was counted once a step, (1,000 + 2,048) cells */
    m.host_kv_global = 1000;
    q = (struct step_seq){.context = 1000, .tokens = 2048};
    step_time(&m, &hw, &q, 1, &st);
    assert_float_equal(st.host_bytes, 16e9 + 11168000, 1e-3);
    assert_float_equal(st.host_s, (16e9 + 11168000) / 32e9, 1e-12);
    /* 32 users decoding one token each after 1,000 cells: one micro-batch,
     * each user's 1,001 cells copied and 1 written back */
    struct step_seq users[32];
    for (int i = 0; i < 32; i++)
        users[i] = (struct step_seq){.context = 1000, .tokens = 1};
    step_time(&m, &hw, users, 32, &st);
    assert_int_equal(st.host_copied, 1);
    assert_float_equal(st.host_bytes, 4e9 + 32 * 1002 * 1000.0, 1e-3);
    /* -ub 16: ggml-cuda.cu ggml_backend_cuda_device_offload_op wants a batch
     * of 32 (the graph's, a micro-batch's), so nothing goes over the link:
     * the CPU runs its layers for each of the 2,048 / 16 = 128 micro-batches,
     * reading their 4e9 B each time at 80e9 x 0.5 B/s: 12.8 s (it was
     * charged 128 copies over PCIe, 16 s, host_copied 1) */
    m.host_kv_global = 0;
    hw.host_ubatch = 16;
    q = (struct step_seq){.context = 0, .tokens = 2048};
    step_time(&m, &hw, &q, 1, &st);
    assert_int_equal(st.host_copied, 0);
    assert_float_equal(st.host_bytes, 128 * 4e9, 1e-3);
    assert_float_equal(st.host_s, 12.8, 1e-9);
}

/* The command line that reproduces a scenario (the planner copies it)
 * carries the options given, and not a host memory read from this machine. */
static void the_command_line_carries_the_options(void **state)
{
    (void)state;
    struct scenario s = llama("rtx-4090", "qwen3-30b-a3b");
    s.offload.ngl_given = true;
    s.offload.ngl = 30;
    s.offload.n_cpu_moe_given = true;
    s.offload.n_cpu_moe = 0;
    s.offload.no_kv_offload = true;
    snprintf(s.offload.cpu, sizeof s.offload.cpu, "ddr5-6400-2ch");
    char line[1024];
    report_command_line(&s, line, sizeof line);
    assert_non_null(strstr(line, " --n-gpu-layers 30 --n-cpu-moe 0 --no-kv-offload "
                                 "--host-memory 64GiB --cpu ddr5-6400-2ch"));
    s.offload.host_memory_read = true;
    s.offload.cpu[0] = '\0';
    s.offload.host_bytes_per_s = 90e9;
    report_command_line(&s, line, sizeof line);
    assert_null(strstr(line, "--host-memory"));
    assert_non_null(strstr(line, " --host-bandwidth 90"));
}

static void cpu_presets_are_channels_times_8_bytes_times_the_rate(void **state)
{
    (void)state;
    assert_float_equal(offload_cpu_bandwidth(offload_cpu_find("ddr4-3200-2ch")), 51.2e9, 1);
    assert_float_equal(offload_cpu_bandwidth(offload_cpu_find("ddr5-4800-12ch")), 460.8e9, 1);
    assert_float_equal(offload_cpu_bandwidth(offload_cpu_default()), 76.8e9, 1);
    assert_null(offload_cpu_find("ddr3"));
    /* Apple's buses in 64-bit channels: M4 Pro 256-bit LPDDR5X-8533, 273 GB/s;
     * M4 128-bit LPDDR5X-7500, 120 GB/s; M2 Ultra 1024-bit LPDDR5-6400 */
    assert_float_equal(offload_cpu_bandwidth(offload_cpu_find("apple-m4-pro")), 273.056e9, 1);
    assert_float_equal(offload_cpu_bandwidth(offload_cpu_find("apple-m4")), 120e9, 1);
    assert_float_equal(offload_cpu_bandwidth(offload_cpu_find("apple-m2-ultra")), 819.2e9, 1);
}

/* What binds is named. Llama 3.1 70B Q4_K_M on an RTX 4090, 8k, 16 GiB of
 * host memory. -ngl 40: 22,250,609,949 B of weights + 40 layers x 8,192
 * cells x 4 KiB = 1,342,177,280 B of cache in host memory, 23,592,787,229 B
 * (21.97 GiB): the host is short, not the cache's GPU room (the warning
 * said "the KV cache does not fit"). No -ngl: no split fits; the closest
 * is --fit's, -ngl 42 (the most layers whose GPU side fits: -ngl 43 lacks
 * 358.31 MiB), 22,477,501,601 B (20.93 GiB) in host memory (the plan said
 * "the weights exceed each GPU's budget by 17.67 GiB", all on the GPU). */
static void the_binding_side_is_named(void **state)
{
    (void)state;
    struct scenario s = llama("rtx-4090", "llama-3.1-70b");
    s.engine.rule = RULE_LLAMACPP_MLA_KV; /* -ngl N the last N layers (worked so) */
    s.weight_dtype = DTYPE_Q4_K_M;
    s.context_tokens = 8192;
    s.offload.host_memory_bytes = 16ull << 30;
    s.offload.ngl_given = true;
    s.offload.ngl = 40;
    assert_true(run(&s));
    assert_false(r.fits);
    assert_int_equal(r.engine.offload.host_bytes, 23592787229ull);
    assert_true(r.warnings & WARN_HOST_DOES_NOT_FIT);
    assert_false(r.warnings & (WARN_KV_DOES_NOT_FIT | WARN_NO_SPLIT_FITS));
    char text[512];
    plan_warning_format(&r, WARN_HOST_DOES_NOT_FIT, text, sizeof text);
    assert_string_equal(text, "host memory binds, not the GPU: 21.97 GiB of weights and cache "
                              "there, 16.00 GiB available in host memory (-ngl 40 of 81: 40 "
                              "layers and the output layer on the CPU)");
    s.offload.ngl_given = false;
    s.offload.ngl = 0;
    assert_true(run(&s));
    assert_false(r.fits);
    const struct offload_split *t = &r.engine.offload_tried;
    assert_true(t->placed && t->searched);
    assert_int_equal(t->ngl, 42);
    assert_int_equal(t->gpu_lack_bytes, 0);
    /* 43,214,145,229 - 42 x 524,088,382 = 21,202,433,185 B of weights +
     * 38/80 of 2,684,354,560 B = 1,275,068,416 B of cache (whole bytes: the
     * double share had the GPU's part a byte over) */
    assert_int_equal(t->host_bytes, 22477501601ull);
    assert_true(r.warnings & WARN_NO_SPLIT_FITS);
    assert_false(r.warnings & (WARN_WEIGHTS_DO_NOT_FIT | WARN_KV_DOES_NOT_FIT));
    plan_warning_format(&r, WARN_NO_SPLIT_FITS, text, sizeof text);
    assert_string_equal(text, "no split fits: the closest the fit search tried, -ngl 42 of 81: 38 "
                              "layers and the output layer on the CPU, needs 20.93 GiB in host "
                              "memory, 16.00 GiB available");
    report_headline(&s, &r, text, sizeof text);
    assert_non_null(strstr(text, "DOES NOT FIT under llama.cpp: no split fits; the closest tried, "
                                 "-ngl 42 of 81"));
    /* with 64 GiB it fits, and nothing was tried in vain */
    s.offload.host_memory_bytes = 64ull << 30;
    assert_true(run(&s));
    assert_true(r.fits);
    assert_false(r.engine.offload_tried.placed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_binding_side_is_named),
        cmocka_unit_test(llama_70b_q4_40_of_80_layers_on_a_4090),
        cmocka_unit_test(llama_70b_q4_ngl_40_and_1_offload_the_output_layer_first),
        cmocka_unit_test(gpt_oss_120b_keeps_its_36_layers_of_experts_in_host_memory),
        cmocka_unit_test(jamba_mini_fits_one_h100_with_experts_in_host_memory),
        cmocka_unit_test(the_fit_search_keeps_the_most_layers_that_fit),
        cmocka_unit_test(no_kv_offload_moves_the_whole_cache_to_host_memory),
        cmocka_unit_test(the_launch_line_carries_the_split),
        cmocka_unit_test(other_engines_and_dense_models_refuse_the_options),
        cmocka_unit_test(prefill_copies_host_layers_over_the_link),
        cmocka_unit_test(the_command_line_carries_the_options),
        cmocka_unit_test(cpu_presets_are_channels_times_8_bytes_times_the_rate),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
