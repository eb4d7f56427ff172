/* Engine profiles, one rule per test, each citing the upstream code it
 * mirrors (paths in the engine's own repository, as doc/MODEL.md section 10 cites them). */
#include "engine_fixture.h"

static void vllm_v0_blocks_are_the_kv_memory_over_the_page_size(void **state)
{
    (void)state;
    /* vllm/worker/worker.py (V0): available = total x utilisation - non-KV;
     * num_gpu_blocks = available // (block_size x per-layer bytes x layers).
     * Log vllm#12330: 39.50 GiB x 0.90 - (14.96 + 0.10 + 9.37) GiB = 11.12 GiB;
     * 11.12 GiB // (16 x 4,096 B x 32) = 5,693 (the log: 5,691, from unrounded GiB). */
    struct scenario s = base(ENGINE_VLLM);
    s.engine.rule = RULE_VLLM_V0;
    s.engine.non_kv_bytes = (uint64_t)(24.43 * 1073741824.0);
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.unit_bytes, 16ull * 4096 * 32);
    assert_int_equal(r.engine.units, 5693);
    assert_int_equal(r.kv_tokens_per_replica, 5693ull * 16);
    /* concurrency = blocks / ceil(8192 / 16) = 5693 / 512 = 11.12 */
    assert_true(r.engine.max_concurrency > 11.11 && r.engine.max_concurrency < 11.13);
    assert_int_equal(r.max_users, 11);
}

static void vllm_takes_a_fraction_of_the_total_not_of_the_free(void **state)
{
    (void)state;
    /* vllm/v1/worker/gpu_worker.py::determine_available_memory:
     * requested = total_gpu_memory x gpu_memory_utilization */
    struct scenario s = base(ENGINE_VLLM);
    s.engine.non_kv_bytes = 20ull << 30;
    s.engine.gpu_memory_utilization = 0.8;
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.budget_bytes, (uint64_t)(42412802048.0 * 0.8 + 0.5));
    assert_int_equal(r.kv_pool_bytes_per_gpu, r.engine.budget_bytes - (20ull << 30));
}

/* vLLM, gpt-oss's shape: 36 layers of 8 KV heads of 64, half of them windowed */
static struct scenario half_windowed(uint64_t window, uint64_t context, uint64_t batched)
{
    struct scenario s = base(ENGINE_VLLM);
    s.model.layers = 36;
    s.model.attention_heads = 64;
    s.model.kv_heads = 8;
    s.model.head_dim = 64;
    s.model.windowed_layers = 18;
    s.model.window_tokens = window;
    s.model.max_context_tokens = 131072;
    s.model.params = 1000000000;
    s.context_tokens = context;
    s.engine.max_num_batched_tokens = batched;
    return s;
}

static void vllm_sliding_layers_need_only_the_window_and_a_batch(void **state)
{
    (void)state;
    /* vllm/v1/core/kv_cache_utils.py (hybrid allocator): a sliding layer needs
     * (ceil(min(window - 1 + max_num_batched_tokens, L) / block) + 1) blocks.
     * gpt-oss-120b shape, 131,072 tokens, batch 1,024: 18 full layers x 8,192 blocks
     * + 18 sliding x (ceil(1,151 / 16) + 1 = 73) blocks; x 16 tokens x 2,048 B
     * = 4,874,895,360 B = 4.54 GiB, as vllm#27508 logged. */
    struct scenario s = half_windowed(128, 131072, 1024);
    struct plan_result r = run(&s);
    /* layer-weighted blocks of one request x 16 tokens x 2,048 B per layer */
    assert_int_equal(r.engine.request_units, 18ull * 8192 + 18 * 73);
    assert_int_equal(r.engine.request_units * 16 * r.cost.bytes_per_layer, 4874895360ull);
}

static void vllm_sliding_layers_take_one_block_more_than_a_short_request(void **state)
{
    (void)state;
    /* vllm/v1/kv_cache_interface.py, SlidingWindowSpec.max_memory_usage_bytes
     * (vllm-project/vllm main, 2026): num_tokens = min(window - 1 +
     * max_num_batched_tokens, max_model_len), then (cdiv(num_tokens, block) + 1)
     * blocks, the + 1 not capped by what full attention would take. Gemma 3's
     * shape (window 1,024), 8,192 tokens, batch 8,192: min(9,215, 8,192) = 8,192
     * tokens, 512 + 1 = 513 blocks a sliding layer, where a full layer takes 512:
     * 18 full x 512 + 18 sliding x 513 = 18,450 layer-blocks a request. */
    struct scenario s = half_windowed(1024, 8192, 8192);
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.request_units, 18ull * 512 + 18 * 513);
}

static void sglang_pool_is_token_granular_over_the_static_fraction(void **state)
{
    (void)state;
    /* python/sglang/srt/model_executor/model_runner.py: cell_size =
     * kv_heads_per_rank x (head_dim + v_head_dim) x layers x bytes;
     * max_total_num_tokens = rest // cell_size. Llama 3.3 70B at TP 8 on a logged
     * 106.62 GiB pool: 106.62 GiB // (1 x 256 x 80 x 2 = 40,960) = 2,794,979 tokens. */
    struct scenario s = base(ENGINE_SGLANG);
    s.model.layers = 80;
    s.model.attention_heads = 64;
    s.model.params = 70553706496;
    s.model.max_context_tokens = 131072;
    s.gpus = 8;
    s.context_tokens = 131072;
    s.engine.kv_memory_bytes = (uint64_t)(106.62 * 1073741824.0);
    /* the log's GPU holds that pool with the weights (an H200's 141 GB): a
     * 40 GB card, the fixture's, would not fit it (policy_logged_pool) */
    s.gpu.memory_bytes = 144384ull << 20;
    s.gpu.cuda_visible_bytes = 0;
    s.tp = 8;
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.unit_bytes, 40960);
    assert_int_equal(r.kv_tokens_per_replica, 2794979);
    /* max_running_requests = min(max(tokens / context x 512, 2048), 4096) = 4096 */
    assert_int_equal(r.engine.scheduler_cap, 4096);
}

static void sglang_default_fraction_comes_from_its_reserve(void **state)
{
    (void)state;
    /* python/sglang/srt/server_args.py: reserved MB = 512 + max(chunked, 2048) x 1.5
     * + cuda_graph_max_bs x 2 + tp / 8 x 1024, at least 10 GiB above 60 GiB;
     * the table reads nvidia-smi's memory.total (get_nvgpu_memory_capacity), the
     * driver total: A100 40GB, 40,960 MiB, TP 1: chunked 4,096, graphs 32:
     * 512 + 6,144 + 64 + 128 = 6,848 MB; fraction = round((40,960 - 6,848) / 40,960, 3)
     * = round(0.83281, 3) = 0.833 (server_args.py rounds it itself), the value the
     * launch line passes (--mem-fraction-static 0.833), so the plan is what it runs */
    struct scenario s = base(ENGINE_SGLANG);
    struct plan_result r = run(&s);
    assert_true(r.engine.fraction == 0.833);
}

static void llamacpp_allocates_every_cell_of_every_slot(void **state)
{
    (void)state;
    /* src/llama-kv-cache.cpp: K and V of ggml_row_size(type, n_embd_k_gqa) per cell
     * and layer; -np 4 of 8,192 tokens = 32,768 cells; q8_0 rows of 1,024 values =
     * 1,088 B: 2 x 32 x 32,768 x 1,088 = 2,281,701,376 B (2,176 MiB) */
    struct scenario s = base(ENGINE_LLAMACPP);
    s.context_tokens = 8192;
    s.engine.parallel = 4;
    s.kv_dtype = DTYPE_Q8_0;
    struct plan_result r = run(&s);
    assert_int_equal(r.kv_tokens_per_replica, 32768);
    assert_int_equal(r.engine.kv_cache_bytes, 2281701376ull);
    assert_int_equal(r.engine.scheduler_cap, 4);
}

static void llamacpp_slots_stop_at_llama_max_seq(void **state)
{
    (void)state;
    /* llama.cpp src/llama-cparams.h LLAMA_MAX_SEQ = 256; llama_context (src/llama-context.cpp)
     * throws "n_seq_max must be <= 256" above it. Llama 3 8B at 256 tokens: a slot is
     * 32 layers x 256 cells x 4,096 B (K+V f16 of 8 heads x 128) = 33,554,432 B (32 MiB);
     * an A100 40 GB's 42,412,802,048 B less 1 GiB (--fit), the GPU's 15,009,849,344 B
     * of bf16 weights (16,060,522,496 B less the token embedding's 128,256 x 4,096 x 2 =
     * 1,050,673,152 B, which llama-model.cpp load_tensors keeps on the CPU) and
     * 538.5 MiB of runtime leaves 25,764,552,704 B, room for
     * floor(25,764,552,704 / 33,554,432) = floor(767.8) = 767 slots, but -np stops
     * at 256: 256 x 32 MiB = 8,589,934,592 B. */
    struct scenario s = base(ENGINE_LLAMACPP);
    s.context_tokens = 256;
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.slots, 256);
    assert_int_equal(r.users_per_replica, 256);
    assert_int_equal(r.engine.offload.gpu_weights_bytes, 16060522496ull - 1050673152ull);
    assert_int_equal(r.engine.offload.host_weights_bytes, 1050673152ull);
    assert_int_equal(42412802048ull - (1ull << 30) - 15009849344ull - 564658176ull, 25764552704ull);
    assert_int_equal(r.users_fit_per_replica, 25764552704ull / 33554432ull);
    assert_int_equal(r.users_fit_per_replica, 767);
    assert_int_equal(r.engine.kv_cache_bytes, 8589934592ull);
    assert_true(r.warnings & WARN_SCHEDULER_CAP);
}

static void llamacpp_before_mla_expanded_deepseek_per_head(void **state)
{
    (void)state;
    /* llama.cpp before MLA support (early 2025): n_embd_k_gqa = heads x (nope + rope),
     * n_embd_v_gqa = heads x v_head_dim. DeepSeek-V3 at 8,192 cells, K q4_0 and V f16:
     * K 61 x 8,192 x (24,576 x 18/32 = 13,824) = 6,908,018,688 B (6,588 MiB),
     * V 61 x 8,192 x 16,384 x 2 = 16,374,562,816 B (15,616 MiB), as unsloth#1621 logged. */
    struct scenario s = base(ENGINE_LLAMACPP);
    s.engine.rule = RULE_LLAMACPP_PRE_MLA;
    deepseek_v3_shape(&s);
    s.kv_dtype = DTYPE_Q4_0;
    s.engine.v_dtype = DTYPE_FP16;
    /* every layer on the GPU, as logged (without -ngl the fit search would
     * keep most of a model this size, and its cache, in host memory) */
    s.offload.ngl_given = true;
    s.offload.ngl = OFFLOAD_NGL_ALL;
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.kv_cache_bytes, 6908018688ull + 16374562816ull);
    /* with MLA support: the 576-value latent as K, V a view of it */
    s.engine.rule = RULE_CURRENT;
    s.kv_dtype = DTYPE_FP16;
    r = run(&s);
    assert_int_equal(r.engine.kv_cache_bytes, 61ull * 8192 * 1152);
}

static void trtllm_takes_a_fraction_of_what_is_free(void **state)
{
    (void)state;
    /* tensorrt_llm KvCacheConfig.free_gpu_memory_fraction: kv = (total - non-KV) x 0.9,
     * where vLLM would take total x 0.9 - non-KV */
    struct scenario s = base(ENGINE_TRTLLM);
    s.engine.non_kv_bytes = 20ull << 30;
    struct plan_result r = run(&s);
    uint64_t expect = (uint64_t)((double)(42412802048ull - (20ull << 30)) * 0.9);
    assert_int_equal(r.kv_pool_bytes_per_gpu, expect);
    assert_int_equal(r.engine.unit_tokens, 32);
}

static void replicas_multiply_users_and_keep_per_gpu_figures(void **state)
{
    (void)state;
    /* 4 GPUs as 2 replicas of TP 2: each replica is the TP-2 plan; users double */
    struct scenario s = base(ENGINE_VLLM);
    s.gpus = 2;
    struct plan_result one = run(&s);
    s.gpus = 4;
    s.tp = 2;
    struct plan_result two = run(&s);
    assert_int_equal(two.replicas, 2);
    assert_int_equal(two.kv_pool_bytes_per_gpu, one.kv_pool_bytes_per_gpu);
    assert_int_equal(two.max_users, 2 * one.max_users);
    assert_int_equal(two.max_users, 2 * one.max_users);
    assert_non_null(strstr(two.engine.launch, "--data-parallel-size 2"));
}

static void engine_names_parse_with_versions(void **state)
{
    (void)state;
    enum engine_kind k;
    enum engine_rule rule;
    struct diag d = {0};
    assert_true(engine_parse("vllm@0", &k, &rule, &d));
    assert_int_equal(k, ENGINE_VLLM);
    assert_int_equal(rule, RULE_VLLM_V0);
    /* Ollama is a profile of its own now, no longer llama.cpp's alias */
    assert_true(engine_parse("Ollama", &k, &rule, &d));
    assert_int_equal(k, ENGINE_OLLAMA);
    assert_true(engine_parse("ollama@0.30", &k, &rule, &d));
    assert_int_equal(k, ENGINE_OLLAMA);
    assert_int_equal(rule, RULE_CURRENT);
    assert_true(engine_parse("llama-cpp", &k, &rule, &d));
    assert_int_equal(k, ENGINE_LLAMACPP);
    assert_true(engine_parse("tensorrt-llm", &k, &rule, &d));
    assert_int_equal(k, ENGINE_TRTLLM);
    assert_true(engine_parse("trtllm@trt", &k, &rule, &d));
    assert_int_equal(rule, RULE_TRTLLM_ENGINE);
    /* a release past the newest known takes the newest rule (test_engine_release.c) */
    assert_true(engine_parse("sglang@9", &k, &rule, &d));
    assert_int_equal(rule, RULE_CURRENT);
    assert_false(engine_parse("sglang@nine", &k, &rule, &d));
    assert_non_null(strstr(d.message, "not a release of sglang"));
}

static void vllm_sampler_term_is_one_row_per_dummy_request(void **state)
{
    (void)state;
    /* vllm/v1/worker/gpu_model_runner.py: profile_run runs _dummy_run with
     * min(max_num_tokens, max_num_reqs) requests and hands _dummy_sampler_run the
     * hidden states at logits_indices, the last token of each request; its dummy
     * metadata asks for top-p 0.9 and top-k vocab - 1, so the sampler
     * (vllm/v1/sample/sampler.py) holds the bf16 logits and an fp32 copy while
     * apply_top_k_top_p (v1/sample/ops/topk_topp_sampler.py) sorts the copy:
     * 6 B + PyTorch's sort at 128 rows or more (SortStable.cu segmented_sort_pairs:
     * values 4, indices 8, reverse indices 8, cub's spare keys 4 and values 8)
     * = 38 B per row and vocabulary entry (was 14 B before the sort was counted).
     * Llama 3 8B on H100 defaults (1,024 sequences, 8,192 tokens), under the
     * releases that sort (vllm@0.17, 0.14 to 0.17):
     * 1,024 x 128,256 x 38 = 4,990,697,472 B (4.65 GiB), above the forward pass. */
    struct scenario s = on(ENGINE_VLLM, "h100-sxm", 81559);
    s.engine.rule = RULE_VLLM_0_17;
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.max_num_seqs, 1024);
    assert_int_equal(r.engine.activation_bytes, 1024ull * 128256 * 38);
    /* fewer requests than tokens: rows = max_num_seqs, not the 8,192 tokens */
    s.engine.max_num_batched_tokens = 512;
    r = run(&s);
    assert_int_equal(r.engine.activation_bytes, 512ull * 128256 * 38);
    /* from 0.18 (the current rule) apply_top_k_top_p_triton masks in place
     * (v1/sample/ops/topk_topp_triton.py, vllm PR #33538): 512 x 128,256 x
     * 14 B (logits 2 + 4, softmax 4, noise 4) + the kernel's fp32 buffer of
     * min(132 SMs, 512) rows x 128,256 = 919,339,008 + 67,719,168 =
     * 987,058,176 B */
    s.engine.rule = RULE_CURRENT;
    r = run(&s);
    assert_int_equal(r.engine.activation_bytes, 987058176ull);
}

static void vllm_forward_term_scales_with_tokens_hidden_and_mlp_over_tp(void **state)
{
    (void)state;
    /* vllm/worker/model_runner.py (V0) profile_run: 256 dummy sequences sharing
     * 8,192 tokens; the forward holds per token 5 hidden-sized bf16 tensors, the
     * fused QKV of this rank ((32 + 2 x 8) x 128) and gate_up plus its activated
     * half (3 x 14,336 / TP): 2 x (20,480 + 6,144 + 43,008) = 139,264 B; x 8,192 =
     * 1,140,850,688 B (1.06 GiB; vllm#10511 logged 1.26 GiB for this model and
     * length on H100). The V0 sampler (top-k/top-p profiled: 30 B per entry)
     * over 256 rows is 985,006,080 B, the smaller. At TP 2 the QKV and MLP halve:
     * 8,192 x 2 x (20,480 + 3,072 + 21,504) = 738,197,504 B, and the sampler's
     * 985,006,080 B becomes the peak. */
    struct scenario s = on(ENGINE_VLLM, "h100-sxm", 81559);
    s.engine.rule = RULE_VLLM_V0;
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.max_num_batched_tokens, 8192);
    assert_int_equal(r.engine.activation_bytes, 8192ull * 139264);
    s.gpus = 2;
    r = run(&s);
    assert_int_equal(r.engine.activation_bytes, 256ull * 128256 * 30);
    /* the forward pass it was weighed against: 738,197,504 B = 704.00 MiB */
    const struct explain_row *row = explain_find(&rows, "activation");
    assert_non_null(row);
    assert_non_null(strstr(row->formula, "(forward 704.00 MiB)"));
}

static void vllm_v0_turns_on_chunked_prefill_past_32k(void **state)
{
    (void)state;
    /* vllm/engine/arg_utils.py (V0): chunked prefill is on by default when
     * max_model_len > 32K (CUDA, no sliding window); vllm/config.py then sets
     * max_num_batched_tokens to 2,048. Llama 3.1 8B at 65,536 on an H100 profiles
     * 2,048 tokens, not 65,536 (65,536 x 139,264 B = 8.5 GiB of forward
     * activations): (81,559 - 460) MiB x 0.9 = 71.28 GiB - 14.96 GiB weights - 0.92 GiB sampler (256 x 128,256
     * x 30 B) - 0.1 GiB = 55.30 GiB = 28,315 blocks; / 4,096 per user = 6 users. */
    struct scenario s = on(ENGINE_VLLM, "h100-sxm", 81559);
    s.engine.rule = RULE_VLLM_V0;
    s.context_tokens = 65536;
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.max_num_batched_tokens, 2048);
    assert_true(r.fits);
    assert_int_equal(r.engine.units, 28315);
    assert_int_equal(r.max_users, 6);
    s.context_tokens = 32768; /* not past 32K: the whole context is batched */
    r = run(&s);
    assert_int_equal(r.engine.max_num_batched_tokens, 32768);
}

static void vllm_v0_caps_a_windowed_sequence_at_the_window(void **state)
{
    (void)state;
    /* vllm/core/block_manager.py (V0): for a model windowed in every layer
     * (Mistral 7B v0.1, 4,096 tokens), a sequence keeps at most
     * window / block_size + 2 = 4,096 / 16 + 2 = 258 blocks; at 32,768 tokens it
     * would otherwise need 2,048. */
    struct scenario s = on(ENGINE_VLLM, "h100-sxm", 81559);
    s.engine.rule = RULE_VLLM_V0;
    s.model.windowed_layers = 32;
    s.model.window_tokens = 4096;
    s.context_tokens = 32768;
    struct plan_result r = run(&s);
    const struct explain_row *row = explain_find(&rows, "units_per_user");
    assert_non_null(row);
    assert_true(explain_eval(row) == 258);
    assert_int_equal(r.users_fit_per_replica, r.engine.units / 258);
}

static void sglang_big_gpus_chunk_16k_and_graph_512(void **state)
{
    (void)state;
    /* python/sglang/srt/server_args.py (the GPU-memory defaults): 160 GiB and
     * more (B200, MI300X): chunked_prefill_size 16,384, cuda_graph_max_bs 512.
     * B200, 183,359 MiB, TP 1: reserve 512 + 16,384 x 1.5 + 512 x 2 + 1 / 8 x 1,024
     * = 26,240 MB; round((183,359 - 26,240) / 183,359, 3) = 0.857. */
    struct scenario s = on(ENGINE_SGLANG, "b200", 183359);
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.max_num_batched_tokens, 16384);
    assert_true(r.engine.fraction == 0.857);
}

static void sglang_graph_batch_follows_tp(void **state)
{
    (void)state;
    /* server_args.py: under 160 GiB and from 60 GiB the CUDA-graph batch is 256
     * below TP 4 and 512 from TP 4. H100 (81,559 MiB) TP 4: reserve 512 + 8,192 x 1.5
     * + 512 x 2 + 4 / 8 x 1,024 = 14,336 MB (above the 10 GiB floor):
     * round((81,559 - 14,336) / 81,559, 3) = 0.824; TP 1 with 256: 13,440 MB: 0.835. */
    struct scenario s = on(ENGINE_SGLANG, "h100-sxm", 81559);
    s.gpus = 4;
    struct plan_result r = run(&s);
    assert_true(r.engine.fraction == 0.824);
    s.gpus = 1;
    r = run(&s);
    assert_true(r.engine.fraction == 0.835);
}

static void llamacpp_pads_context_to_256(void **state)
{
    (void)state;
    /* src/llama-context.cpp (llama_context constructor): n_ctx = GGML_PAD(n_ctx, 256);
     * with -np given the cache is not unified and each slot gets
     * GGML_PAD(n_ctx / n_seq_max, 256) cells. -c 3 x 1,000 -np 3: 3,000 -> 3,072;
     * 3,072 / 3 = 1,024 per slot; 3,072 cells x 32 layers x 4,096 B (f16 K+V) =
     * 402,653,184 B, and the launch line says -c 3072 so llama-server makes the same. */
    struct scenario s = base(ENGINE_LLAMACPP);
    s.context_tokens = 1000;
    s.engine.parallel = 3;
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.units, 3072);
    assert_int_equal(r.engine.kv_cache_bytes, 3072ull * 32 * 4096);
    assert_non_null(strstr(r.engine.launch, "-c 3072 -np 3"));
}

static void llamacpp_window_cache_is_per_slot_when_slots_are_given(void **state)
{
    (void)state;
    /* src/llama-kv-cache-iswa.cpp (llama_kv_cache_iswa constructor): the windowed
     * cache holds GGML_PAD(min(size, n_swa x (unified ? n_seq_max : 1) + n_ubatch), 256)
     * cells per stream; -np given means one stream per slot, not unified. Gemma 3
     * shape (window 1,024, 5 of 6 layers windowed), -np 2 of 32,768: per slot
     * PAD(1,024 + 512) = 1,536 cells, x 2 slots = 3,072 window cells; global layers
     * hold 65,536. */
    struct scenario s = base(ENGINE_LLAMACPP);
    s.model.layers = 12;
    s.model.windowed_layers = 10;
    s.model.window_tokens = 1024;
    s.model.max_context_tokens = 131072;
    s.context_tokens = 32768;
    s.engine.parallel = 2;
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.kv_cache_bytes, (2ull * 65536 + 10ull * 3072) * 4096);
}

static void trtllm_blocks_are_32_tokens_on_pytorch_and_64_on_the_engine_path(void **state)
{
    (void)state;
    /* tensorrt_llm/llmapi/llm_args.py (KvCacheConfig.tokens_per_block, the
     * PyTorch backend): 32; tensorrt_llm/plugin/plugin.py (PluginConfig
     * _tokens_per_block, trtllm-build engines): 64. Llama 3 8B at 8,192 tokens:
     * 256 blocks of 32 or 128 blocks of 64 per request; a block of 64 holds
     * 64 x 131,072 B = 8 MiB. */
    struct scenario s = base(ENGINE_TRTLLM);
    s.engine.non_kv_bytes = 20ull << 30;
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.unit_tokens, 32);
    assert_int_equal(r.engine.request_units, 256ull * 32);
    s.engine.rule = RULE_TRTLLM_ENGINE;
    r = run(&s);
    assert_int_equal(r.engine.unit_tokens, 64);
    assert_int_equal(r.engine.unit_bytes, 64ull * 131072);
    assert_int_equal(r.engine.request_units, 128ull * 32);
}

static void vllm_hybrid_groups_pad_to_the_smallest_layer_type(void **state)
{
    (void)state;
    /* vllm/v1/core/kv_cache_utils.py (_get_kv_cache_groups_uniform_page_size):
     * layers are grouped by type in groups of the smallest type's count (the
     * largest when under 1.5x it), the last of a type padded; one block is a
     * page of every layer of a group, and all groups draw from one pool.
     * Gemma 3 27B shape, 10 global and 52 sliding layers: groups of 10, 1 full
     * and ceil(52 / 10) = 6 windowed (8 padding layers). On a 10 GiB pool of
     * 4,096 B per layer: 10 GiB // (16 x 4,096 x 10) = 16,384 blocks. At 32,768
     * tokens with 2,048 batched: a full group needs 2,048 blocks, a window group
     * ceil((1,024 - 1 + 2,048) / 16) + 1 = 193 while a batch is prefilled
     * (SlidingWindowSpec.max_memory_usage_bytes): vLLM counts 2,048 + 6 x 193
     * = 3,206 a user, 16,384 / 3,206 = 5.11x; vLLM logs 16,384 / 7 groups x
     * 16 = 37,440 tokens. Decoding, a window group holds ceil(1,024 / 16) + 1
     * = 65 (v1/core/single_type_kv_cache_manager.py, SlidingWindowManager
     * remove_skipped_blocks): 2,048 + 6 x 65 = 2,438 a user, one prefill's
     * 6 x (193 - 65) = 768 set aside: floor((16,384 - 768) / 2,438) = 6. */
    struct scenario s = hybrid_on_10_gib(62, 52, 1024, 32768);
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.unit_bytes, 16ull * 4096 * 10);
    assert_int_equal(r.engine.units, 16384);
    assert_true(explain_eval(explain_find(&rows, "blocks_counted")) == 2048 + 6 * 193);
    assert_true(explain_eval(explain_find(&rows, "units_per_user")) == 2048 + 6 * 65);
    assert_true(explain_eval(explain_find(&rows, "prefill_scratch")) == 6 * (193 - 65));
    assert_int_equal(r.max_users, 6);
    assert_int_equal(r.kv_tokens, 16384 / 7 * 16);
    assert_true(r.engine.max_concurrency > 5.11 && r.engine.max_concurrency < 5.12);
    /* 13 full and 12 sliding (gpt-oss-20b with a drafter layer): under 1.5x,
     * one group of 13 each, the sliding one padded */
    s.model.layers = 25;
    s.model.windowed_layers = 12;
    r = run(&s);
    assert_int_equal(r.engine.unit_bytes, 16ull * 4096 * 13);
}

static void vllm_chunked_local_layers_keep_a_chunk_and_a_batch_without_the_extra_block(void **state)
{
    (void)state;
    /* vllm/v1/kv_cache_interface.py (ChunkedLocalAttentionSpec,
     * max_admission_blocks_per_request): ceil(min(chunk + batched tokens, L) /
     * block) blocks, without SlidingWindowSpec's window - 1 and its extra block.
     * Llama 4 shape (12 global, 36 chunked layers of 8,192) at 131,072 tokens,
     * 2,048 batched: ceil(10,240 / 16) = 640 blocks per chunked group, where a
     * sliding window of 8,192 would take ceil(10,239 / 16) + 1 = 641. That is
     * what vLLM counts; decoding, a chunked group holds its current chunk
     * (ChunkedLocalAttentionManager frees the chunks before it): at most
     * ceil(8,193 / 16) = 513, a sliding one ceil(8,192 / 16) + 1 = 513. */
    struct scenario s = hybrid_on_10_gib(48, 36, 8192, 131072);
    snprintf(s.model.window_pattern, sizeof s.model.window_pattern, "3 chunked : 1 global");
    run(&s);
    /* groups of 12: 1 full + 3 chunked */
    assert_true(explain_eval(explain_find(&rows, "blocks_counted")) == 8192 + 3 * 640);
    assert_true(explain_eval(explain_find(&rows, "units_per_user")) == 8192 + 3 * 513);
    snprintf(s.model.window_pattern, sizeof s.model.window_pattern, "3 local : 1 global");
    run(&s);
    assert_true(explain_eval(explain_find(&rows, "blocks_counted")) == 8192 + 3 * 641);
    assert_true(explain_eval(explain_find(&rows, "units_per_user")) == 8192 + 3 * 513);
}

static void sglang_splits_llama4_tokens_into_full_and_chunk_pools(void **state)
{
    (void)state;
    /* python/sglang/srt/model_executor/model_runner.py (set_num_token_hybrid,
     * Llama4ForConditionalGeneration): with r = chunk / context, the tokens T the
     * pool holds at every layer's cell size become a chunk pool of
     * 4 T r / (3 r + 1) and a full pool of 4 T - 12 T r / (3 r + 1), so that
     * 12 global layers x full + 36 chunked x chunk pool = 48 x T. Logged 10 GiB at
     * 4,096 B per layer: T = 10 GiB // (48 x 4,096) = 54,613; at 32,768 tokens with
     * chunks of 8,192 (r = 1/4): full = 4 x 54,613 / 1.75 = 124,830 (ceil), 3 users,
     * where every layer at full length would hold 1. Gemma and gpt-oss keep no
     * window pool (server_args.py disable_hybrid_swa_memory). */
    struct scenario s = hybrid_on_10_gib(48, 36, 8192, 32768);
    s.engine.kind = ENGINE_SGLANG;
    snprintf(s.model.window_pattern, sizeof s.model.window_pattern, "3 chunked : 1 global");
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.units, 124830);
    assert_int_equal(r.max_users, 3);
    assert_false(r.warnings & WARN_WINDOWS_UNUSED);
    snprintf(s.model.window_pattern, sizeof s.model.window_pattern, "5 local : 1 global");
    r = run(&s);
    assert_int_equal(r.engine.units, 54613);
    assert_int_equal(r.max_users, 1);
    assert_true(r.warnings & WARN_WINDOWS_UNUSED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vllm_v0_blocks_are_the_kv_memory_over_the_page_size),
        cmocka_unit_test(vllm_takes_a_fraction_of_the_total_not_of_the_free),
        cmocka_unit_test(vllm_sliding_layers_need_only_the_window_and_a_batch),
        cmocka_unit_test(vllm_sliding_layers_take_one_block_more_than_a_short_request),
        cmocka_unit_test(sglang_pool_is_token_granular_over_the_static_fraction),
        cmocka_unit_test(sglang_default_fraction_comes_from_its_reserve),
        cmocka_unit_test(llamacpp_allocates_every_cell_of_every_slot),
        cmocka_unit_test(llamacpp_before_mla_expanded_deepseek_per_head),
        cmocka_unit_test(trtllm_takes_a_fraction_of_what_is_free),
        cmocka_unit_test(replicas_multiply_users_and_keep_per_gpu_figures),
        cmocka_unit_test(engine_names_parse_with_versions),
        cmocka_unit_test(sglang_splits_llama4_tokens_into_full_and_chunk_pools),
        cmocka_unit_test(vllm_chunked_local_layers_keep_a_chunk_and_a_batch_without_the_extra_block),
        cmocka_unit_test(vllm_hybrid_groups_pad_to_the_smallest_layer_type),
        cmocka_unit_test(trtllm_blocks_are_32_tokens_on_pytorch_and_64_on_the_engine_path),
        cmocka_unit_test(vllm_sampler_term_is_one_row_per_dummy_request),
        cmocka_unit_test(vllm_forward_term_scales_with_tokens_hidden_and_mlp_over_tp),
        cmocka_unit_test(vllm_v0_turns_on_chunked_prefill_past_32k),
        cmocka_unit_test(vllm_v0_caps_a_windowed_sequence_at_the_window),
        cmocka_unit_test(sglang_big_gpus_chunk_16k_and_graph_512),
        cmocka_unit_test(sglang_graph_batch_follows_tp),
        cmocka_unit_test(llamacpp_pads_context_to_256),
        cmocka_unit_test(llamacpp_slots_stop_at_llama_max_seq),
        cmocka_unit_test(llamacpp_window_cache_is_per_slot_when_slots_are_given),
    };
    return cmocka_run_group_tests_name("engine", tests, NULL, NULL);
}
