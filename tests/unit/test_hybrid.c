/* State-space and linear-attention layers (doc/MODEL.md, "State-space and
 * linear-attention layers"): the state of one layer of each family, worked
 * by hand; users against context; each engine's rule, citing the upstream
 * code it mirrors. */
#include "engine_fixture.h"

#include "core/kvcost.h"
#include "core/spec.h"

/* An 80 GB card: the fixture's 40 GB one cannot hold 37 GiB of Qwen3-Next's
 * weights a GPU with a logged 10 GiB pool (policy_logged_pool: no fit). */
static void on_80gb(struct scenario *s)
{
    s->gpu.memory_bytes = 81920ull << 20;
    s->gpu.cuda_visible_bytes = 0;
}

static struct scenario with(enum engine_kind kind, struct model_spec m, uint32_t gpus)
{
    struct scenario s = base(kind);
    s.model = m;
    s.gpus = gpus;
    s.tp = gpus; /* the worked numbers are at TP over all: the default would
                  * stage Qwen3-Next's 2 KV heads rather than copy them */
    s.context_tokens = 32768;
    return s;
}

static struct kv_cost cost_of(struct model_spec m, uint32_t tp)
{
    struct scenario s = with(ENGINE_GENERIC, m, tp);
    struct kv_cost c;
    assert_true(kvcost_compute(&s, tp, &c));
    return c;
}

static void one_gated_deltanet_layer(void **state)
{
    (void)state;
    /* vllm/model_executor/layers/mamba/mamba_utils.py
     * (MambaStateShapeCalculator.gated_delta_net_state_shape): conv
     * (kernel - 1) x (2 x key heads x key dim + value heads x value dim) / TP,
     * recurrent (value heads / TP) x value dim x key dim; "auto" dtypes: bf16.
     * TP 1: conv 3 x (2 x 16 x 128 + 32 x 128) = 3 x 8,192 = 24,576 values
     * = 49,152 B; recurrent 32 x 128 x 128 = 524,288 values = 1,048,576 B;
     * a layer 1,097,728 B; 36 layers 39,518,208 B per sequence. */
    struct kv_cost c = cost_of(qwen3_next(), 1);
    assert_int_equal(c.layers, 12); /* only the attention layers keep KV */
    assert_int_equal(c.state_conv_values, 24576);
    assert_int_equal(c.state_ssm_values, 524288);
    assert_int_equal(c.state_bytes_per_layer, 49152 + 1048576);
    assert_int_equal(c.state_bytes, 39518208);
    /* TP 4: 8 value heads and 4 key heads a GPU: conv 3 x (2 x 4 x 128 +
     * 8 x 128) = 6,144 values = 12,288 B; recurrent 8 x 128 x 128 = 131,072
     * values = 262,144 B; 36 x 274,432 = 9,879,552 B */
    c = cost_of(qwen3_next(), 4);
    assert_int_equal(c.state_bytes_per_layer, 12288 + 262144);
    assert_int_equal(c.state_bytes, 9879552);
}

static void one_mamba2_layer(void **state)
{
    (void)state;
    /* mamba_utils.py (mamba2_state_shape): conv (kernel - 1) x (intermediate
     * + 2 x n_groups x d_state) / TP, SSM (heads / TP) x head_dim x d_state.
     * TP 1: conv 3 x (128 x 80 + 2 x 8 x 128) = 3 x 12,288 = 36,864 values
     * = 73,728 B; SSM 128 x 80 x 128 = 1,310,720 values = 2,621,440 B; a
     * layer 2,695,168 B; 27 layers 72,769,536 B. */
    struct kv_cost c = cost_of(nemotron_9b_v2(), 1);
    assert_int_equal(c.layers, 4);
    assert_int_equal(c.state_conv_values, 36864);
    assert_int_equal(c.state_ssm_values, 1310720);
    assert_int_equal(c.state_bytes, 72769536ull);
    /* TP 16: 8 groups do not divide 16, so extra_groups_for_head_shards
     * replicates them to one a GPU; 8 heads a GPU: conv 3 x (8 x 80 + 2 x 1 x
     * 128) = 2,688 values */
    c = cost_of(nemotron_9b_v2(), 16);
    assert_int_equal(c.state_groups_per_gpu, 1);
    assert_int_equal(c.state_conv_values, 2688);
    assert_int_equal(c.state_ssm_values, 8ull * 80 * 128);
    /* an fp32 recurrent state (mamba_ssm_cache_dtype float32): 4 B a value */
    struct model_spec m = nemotron_9b_v2();
    m.state_dtype = DTYPE_FP32;
    c = cost_of(m, 1);
    assert_int_equal(c.state_bytes_per_layer, 73728 + 1310720ull * 4);
}

static void one_mamba1_layer(void **state)
{
    (void)state;
    /* mamba_utils.py (mamba1_state_shape): conv (intermediate / TP, kernel -
     * 1), temporal (intermediate / TP, d_state); Jamba 1.5 Mini: intermediate
     * 2 x 4,096 = 8,192, d_state 16, kernel 4, as a head a channel. TP 2:
     * conv 4,096 x 3 = 12,288 values = 24,576 B; SSM 4,096 x 16 = 65,536
     * values = 131,072 B; 28 layers x 155,648 = 4,358,144 B. */
    struct model_spec m = nemotron_9b_v2();
    m.layers = 32;
    m.plain_layers = 0;
    m.state_layers = 28;
    m.state_heads = 8192;
    m.state_head_dim = 1;
    m.state_groups = 0;
    m.state_size = 16;
    strcpy(m.state_kind, "mamba");
    struct kv_cost c = cost_of(m, 2);
    assert_int_equal(c.state_conv_values, 12288);
    assert_int_equal(c.state_ssm_values, 65536);
    assert_int_equal(c.state_bytes, 4358144);
}

static void side_by_side_layers_keep_both(void **state)
{
    (void)state;
    /* Falcon-H1: attention and Mamba-2 in every layer, so every layer keeps
     * KV and a state. Falcon-H1-Tiny's shape: 24 layers, 2 KV heads of 64,
     * Mamba-2 24 heads of 32, 1 group, d_state 64, conv 4. TP 1, bf16: KV
     * 24 x 2 x 2 x 64 x 2 = 12,288 B a token; conv 3 x (24 x 32 + 2 x 64) =
     * 2,688 values = 5,376 B, SSM 24 x 32 x 64 = 49,152 values = 98,304 B;
     * 24 x 103,680 = 2,488,320 B a user. */
    struct model_spec m = nemotron_9b_v2();
    m.layers = 24;
    m.plain_layers = 0;
    m.state_layers = 24;
    m.state_parallel = true;
    m.attention_heads = 8;
    m.kv_heads = 2;
    m.head_dim = 64;
    m.state_heads = 24;
    m.state_head_dim = 32;
    m.state_groups = 1;
    m.state_size = 64;
    struct diag d = {0};
    assert_true(spec_model_validate(&m, &d));
    assert_int_equal(spec_kv_layers(&m), 24);
    struct kv_cost c = cost_of(m, 1);
    assert_int_equal(c.bytes_per_token, 12288);
    assert_int_equal(c.state_bytes, 2488320);
}

static void the_prefix_shares_kv_but_never_state(void **state)
{
    (void)state;
    /* a user: its own tokens' KV plus a whole state; the prefix: KV only.
     * TP 4, 32,768 tokens, 8,192 of them a shared prefix: (32,768 - 8,192)
     * x 12 layers x 1,024 B + 9,879,552 = 301,989,888 + 9,879,552
     * = 311,869,440 B; the prefix 8,192 x 12,288 = 100,663,296 B */
    struct scenario s = with(ENGINE_GENERIC, qwen3_next(), 4);
    s.prefix_tokens = 8192;
    struct plan_result r = run(&s);
    assert_int_equal(r.user_bytes_per_gpu, 311869440ull);
    assert_int_equal(r.prefix_bytes_per_gpu, 100663296ull);
    assert_int_equal(r.state_bytes_per_user_per_gpu, 9879552);
}

static uint64_t users_at(struct scenario s, uint64_t context)
{
    s.context_tokens = context;
    return run(&s).max_users;
}

static void users_against_context_flatten(void **state)
{
    (void)state;
    /* users = floor(pool / (context x KV per token + state)). With a fixed
     * 20 GiB pool (the headroom rule on a 64 GiB GPU holding no weights
     * would differ; --vram and weights set it): Qwen3-Next at TP 4 keeps
     * 12,288 B a token and 9,879,552 B of state, so at 1k tokens the state
     * is 9,879,552 / (1,024 x 12,288 + 9,879,552) = 44% of a user, at 128k
     * 0.6%: halving the context from 2k to 1k gains far less than 2x
     * users, from 128k to 64k almost 2x. */
    struct scenario s = with(ENGINE_GENERIC, qwen3_next(), 4);
    s.model.max_context_tokens = 262144;
    s.has_vram = true;
    s.vram_bytes = 64ull << 30;
    uint64_t u1 = users_at(s, 1024), u2 = users_at(s, 2048);
    uint64_t u64k = users_at(s, 65536), u128k = users_at(s, 131072);
    struct plan_result r = run(&s);
    uint64_t pool = r.kv_pool_bytes_per_gpu;
    assert_int_equal(u1, pool / (1024ull * 12288 + 9879552));
    assert_int_equal(u2, pool / (2048ull * 12288 + 9879552));
    /* (2,048 x 12,288 + 9,879,552) / (1,024 x 12,288 + 9,879,552) = 35,045,376 /
     * 22,462,464 = 1.56 times the users at half the context, not 2 */
    assert_true((double)u1 / (double)u2 < 1.6);
    assert_true((double)u1 / (double)u2 > 1.5);
    assert_true((double)u64k / (double)u128k > 1.95);
}

static void vllm_enlarges_the_block_to_hold_a_state_page(void **state)
{
    (void)state;
    /* vllm/model_executor/models/config.py
     * (HybridAttentionMambaModelConfig.verify_and_update_config): attention
     * block = 16 x ceil(state page / (16 x one token's attention page)) =
     * 16 x ceil(274,432 / 16,384) = 16 x 17 = 272 tokens.
     * vllm/v1/core/kv_cache_utils.py (_get_kv_cache_groups_uniform_page_size):
     * 12 attention and 36 state layers group by 12 (36 is not under 1.5 x
     * 12): 1 full group, 3 state groups; a block is 272 x 1,024 B x 12 =
     * 3,342,336 B; 10 GiB / 3,342,336 = 3,212 blocks. A user at 32,768:
     * ceil(32,768 / 272) = 121 blocks + 3 state blocks (MambaManager: one a
     * group) = 124; 3,212 / 124 = 25 users. */
    struct scenario s = with(ENGINE_VLLM, qwen3_next(), 4);
    s.engine.kv_memory_bytes = 10ull << 30;
    on_80gb(&s);
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.unit_tokens, 272);
    assert_int_equal(r.engine.unit_bytes, 3342336);
    assert_int_equal(r.engine.units, 3212);
    assert_int_equal(r.users_per_replica, 25);
    /* the users' state: 25 users x 3 state blocks x 3,342,336 B */
    assert_int_equal(r.state_used_bytes_per_gpu, 25ull * 3 * 3342336);
    /* a block size given above the one vLLM needs is kept */
    s.block_tokens = 512;
    assert_int_equal(run(&s).engine.unit_tokens, 512);
}

static void vllm_v0_keeps_the_states_outside_the_blocks(void **state)
{
    (void)state;
    /* V0: each hybrid model's forward builds a MambaCacheManager
     * (vllm/model_executor/models/mamba_cache.py) on the profiling run, of
     * max_num_seqs states padded to a CUDA-graph batch (multiples of 8):
     * 50 -> 56. Nemotron Nano: 56 x 72,769,536 = 4,075,094,016 B out of a
     * 10 GiB pool leaves 6,662,324,224 B = 25,414 blocks of 16 x 16,384 B;
     * 8,192 tokens are 512 blocks: 49 users, under the cap of 50. */
    struct scenario s = with(ENGINE_VLLM, nemotron_9b_v2(), 1);
    s.engine.rule = RULE_VLLM_V0;
    s.engine.kv_memory_bytes = 10ull << 30;
    on_80gb(&s);
    s.engine.max_num_seqs = 50;
    s.context_tokens = 8192;
    struct plan_result r = run(&s);
    assert_int_equal(r.state_slots_per_replica, 56);
    assert_int_equal(r.engine.units, 25414);
    assert_int_equal(r.users_per_replica, 49);
    /* the pool is allocated whole; the users' states are 49 x 72,769,536 =
     * 3,565,707,264 B, the 7 idle slots' 509,386,752 B spare */
    assert_int_equal(r.state_pool_bytes_per_gpu, 4075094016ull);
    assert_int_equal(r.state_used_bytes_per_gpu, 3565707264ull);
}

static void sglang_splits_a_state_pool_by_the_mamba_ratio(void **state)
{
    (void)state;
    /* python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py
     * (handle_max_mamba_cache): state memory = pool x 0.9 / 1.9
     * (mamba_full_memory_ratio 0.9); python/sglang/srt/configs/mamba_utils.py
     * (mamba2_state_dtype): conv bf16, SSM fp32. A state: 36 x (12,288 +
     * 131,072 x 4) = 19,316,736 B. 10 GiB x 0.9 / 1.9 = 5,086,145,482 B /
     * 19,316,736 = 263 slots; KV pool 10,737,418,240 - 263 x 19,316,736 =
     * 5,657,116,672 B = 460,377 tokens of 12,288 B. init_memory caps
     * max_running_requests at 263 // 3 = 87; 460,377 / 32,768 = 14 users. */
    struct scenario s = with(ENGINE_SGLANG, qwen3_next(), 4);
    s.engine.kv_memory_bytes = 10ull << 30;
    on_80gb(&s);
    struct plan_result r = run(&s);
    assert_int_equal(r.cost.state_bytes, 19316736);
    assert_int_equal(r.state_slots_per_replica, 263);
    assert_int_equal(r.engine.units, 460377);
    assert_int_equal(r.engine.scheduler_cap, 87);
    assert_int_equal(r.users_per_replica, 14);
    /* at 1,024 tokens the state slots bind: 87 requests, not 449 */
    s.context_tokens = 1024;
    r = run(&s);
    assert_int_equal(r.users_per_replica, 87);
}

static void vllm_keeps_a_state_block_per_speculative_token(void **state)
{
    (void)state;
    /* vllm/model_executor/layers/mamba/abstract.py (MambaBase.get_kv_cache_spec):
     * num_speculative_blocks = num_speculative_tokens; v1/kv_cache_interface.py
     * (MambaSpec.max_memory_usage_bytes, mode "none"): 1 + that many pages a
     * sequence, which MambaManager allocates. Qwen3-Next with its MTP layer
     * and 2 speculative tokens at TP 4: the MTP layer's KV is one attention
     * layer's (1,024 B a token), so 13 full-attention layers and 36 state
     * layers group by 13: 1 full group, ceil(36 / 13) = 3 state groups. The
     * conv state keeps conv_kernel - 1 + num_spec rows
     * (model_executor/layers/mamba/mamba_utils.py,
     * MambaStateShapeCalculator.gated_delta_net_state_shape, num_spec; main at
     * 002db495): (3 + 2) x 2,048 x 2 B + 262,144 B = 282,624 B a layer, so
     * the block is 16 x ceil(282,624 / 16,384) = 288 tokens (272 without the
     * speculative rows); a block 288 x 1,024 B x 13 = 3,833,856 B;
     * 10 GiB / 3,833,856 = 2,800 blocks. A user: ceil((32,768 + 2) / 288) =
     * 114 blocks + 3 groups x (1 + 2) = 123; 2,800 / 123 = 22 users. */
    struct scenario s = with(ENGINE_VLLM, qwen3_next(), 4);
    s.model.nextn_layers = 1;
    s.model.mtp_params = 1650471424;
    s.spec_method = SPEC_MTP;
    s.spec_tokens = 2;
    s.engine.kv_memory_bytes = 10ull << 30;
    on_80gb(&s);
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.unit_tokens, 288);
    assert_int_equal(r.engine.unit_bytes, 3833856);
    assert_int_equal(r.engine.units, 2800);
    assert_int_equal(r.users_per_replica, 22);
    assert_int_equal(r.state_used_bytes_per_gpu, 22ull * 3 * 3 * 3833856);
    const struct explain_row *row = explain_find(&rows, "state_spec");
    assert_non_null(row);
    assert_true(row->result.value == 282624);
    /* config/cache.py (mamba_cache_mode): prefix caching keeps more states */
    assert_false(r.warnings & WARN_STATE_PREFIX);
    s.prefix_tokens = 2048;
    assert_true(run(&s).warnings & WARN_STATE_PREFIX);
}

static void sglang_caps_a_larger_max_running_requests(void **state)
{
    (void)state;
    /* model_runner_kv_cache_mixin.py (init_memory): max_running_requests =
     * min(given, max_mamba_cache_size // 3). Nemotron Nano on SGLang: a state
     * 27 x (36,864 x 2 + 1,310,720 x 4) = 143,548,416 B; 10 GiB x 0.9 / 1.9 =
     * 5,086,145,482 B: 35 slots, 35 // 3 = 11 requests, not the 300 given.
     * KV pool 10,737,418,240 - 35 x 143,548,416 = 5,713,223,680 B = 348,707
     * tokens: 42 users of 8,192, capped at 11. The bar: 11 users' states
     * (1,579,032,576 B) are the users' state, the 24 idle slots
     * (3,445,161,984 B) spare. */
    struct scenario s = with(ENGINE_SGLANG, nemotron_9b_v2(), 1);
    s.engine.kv_memory_bytes = 10ull << 30;
    on_80gb(&s);
    s.engine.max_num_seqs = 300;
    s.context_tokens = 8192;
    struct plan_result r = run(&s);
    assert_int_equal(r.state_slots_per_replica, 35);
    assert_int_equal(r.engine.scheduler_cap, 11);
    assert_int_equal(r.users_per_replica, 11);
    assert_true(r.warnings & WARN_STATE_CAP);
    assert_int_equal(r.state_pool_bytes_per_gpu, 5024194560ull);
    assert_int_equal(r.state_used_bytes_per_gpu, 1579032576ull);
    uint64_t seg[SEG_COUNT];
    plan_segments(&r, seg);
    assert_int_equal(seg[SEG_STATE], 1579032576ull);
    assert_true(seg[SEG_SPARE] >= 3445161984ull);
    /* a value under the slots' cap is kept, silently */
    s.engine.max_num_seqs = 5;
    r = run(&s);
    assert_int_equal(r.users_per_replica, 5);
    assert_false(r.warnings & WARN_STATE_CAP);
}

static void sglang_sets_aside_the_draft_tokens_states(void **state)
{
    (void)state;
    /* model_runner_kv_cache_mixin.py (handle_max_mamba_cache, sglang at
     * 001ccef0): with speculative decoding, a state x max_running_requests
     * (48 unless given: server_args.py) x speculative_num_draft_tokens (2 + 1)
     * first: 19,316,736 x 48 x 3 = 2,781,609,984 B. A draft turns the radix
     * cache off (server_args.py _handle_mamba_radix_cache, no_buffer), so
     * max_mamba_cache_size is max_running_requests: 48 slots, not the ratio's
     * (10,737,418,240 - 2,781,609,984) x 0.9 / 1.9 / 19,316,736 = 195. */
    struct scenario s = with(ENGINE_SGLANG, qwen3_next(), 4);
    s.model.nextn_layers = 1;
    s.model.mtp_params = 1650471424;
    s.spec_method = SPEC_MTP;
    s.spec_tokens = 2;
    s.engine.kv_memory_bytes = 10ull << 30;
    on_80gb(&s);
    struct plan_result r = run(&s);
    assert_int_equal(r.state_spec_bytes_per_gpu, 2781609984ull);
    assert_int_equal(r.state_slots_per_replica, 48);
    assert_int_equal(r.state_pool_bytes_per_gpu, 48ull * 19316736 + 2781609984ull);
    /* a given max_running_requests is the pool's size and, ratio 1, the cap */
    s.engine.max_num_seqs = 20;
    r = run(&s);
    assert_int_equal(r.state_slots_per_replica, 20);
    assert_int_equal(r.engine.scheduler_cap, 20);
}

static void llamacpp_keeps_one_f32_cell_a_slot(void **state)
{
    (void)state;
    /* src/llama-hparams.cpp (n_embd_r, n_embd_s), src/llama-model.cpp
     * (create_memory: recurrent cells max(1, n_seq_max), F32). Nemotron
     * Nano, -np 2 of 8,192: conv 36,864 x 4 = 147,456 B, SSM 1,310,720 x 4
     * = 5,242,880 B; a slot 27 x 5,390,336 = 145,539,072 B. KV: 4 layers x
     * 16,384 cells x (2,048 + 2,048) B = 268,435,456 B; the cache
     * 268,435,456 + 2 x 145,539,072 = 559,513,600 B. */
    struct scenario s = with(ENGINE_LLAMACPP, nemotron_9b_v2(), 1);
    s.context_tokens = 8192;
    s.engine.parallel = 2;
    struct plan_result r = run(&s);
    assert_int_equal(r.cost.state_bytes, 145539072ull);
    assert_int_equal(r.engine.kv_cache_bytes, 559513600ull);
    assert_int_equal(r.state_used_bytes_per_gpu, 2ull * 145539072);
}

static void trtllm_counts_the_state_in_blocks_and_warns(void **state)
{
    (void)state;
    /* tensorrt_llm/_torch/pyexecutor/mamba_cache_manager.py keeps the states
     * in a pool of their own, whose sizing was not traced: a user's state
     * counts as ceil(9,879,552 / (32 x 12,288)) = ceil(25.13) = 26 blocks. */
    struct scenario s = with(ENGINE_TRTLLM, qwen3_next(), 4);
    struct plan_result r = run(&s);
    assert_true(r.warnings & WARN_STATE_GENERIC);
    assert_int_equal(r.state_bytes_per_user_per_gpu, 26ull * 32 * 12288);
}

static void decode_reads_the_state_once_a_step(void **state)
{
    (void)state;
    /* a decoding user reads its attention KV and its whole state each step:
     * at the average length, 32,768 x 12,288 + 9,879,552 = 402,653,184 +
     * 9,879,552 = 412,532,736 B */
    struct scenario s = with(ENGINE_GENERIC, qwen3_next(), 4);
    struct plan_result r = run(&s);
    assert_int_equal(r.user_bytes_avg_per_gpu, 412532736ull);
}

static void impossible_state_layers_name_the_field(void **state)
{
    (void)state;
    struct model_spec m = nemotron_9b_v2();
    struct diag d = {0};
    m.plain_layers = 29; /* 27 + 29 = 56: no attention layer left */
    assert_false(spec_model_validate(&m, &d));
    assert_non_null(strstr(d.message, "state.layers"));
    m = nemotron_9b_v2();
    m.state_conv_kernel = 1;
    struct diag d2 = {0};
    assert_false(spec_model_validate(&m, &d2));
    d = d2;
    assert_non_null(strstr(d.message, "state.conv_kernel"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_gated_deltanet_layer),
        cmocka_unit_test(one_mamba2_layer),
        cmocka_unit_test(one_mamba1_layer),
        cmocka_unit_test(side_by_side_layers_keep_both),
        cmocka_unit_test(the_prefix_shares_kv_but_never_state),
        cmocka_unit_test(users_against_context_flatten),
        cmocka_unit_test(vllm_enlarges_the_block_to_hold_a_state_page),
        cmocka_unit_test(vllm_v0_keeps_the_states_outside_the_blocks),
        cmocka_unit_test(sglang_splits_a_state_pool_by_the_mamba_ratio),
        cmocka_unit_test(vllm_keeps_a_state_block_per_speculative_token),
        cmocka_unit_test(sglang_caps_a_larger_max_running_requests),
        cmocka_unit_test(sglang_sets_aside_the_draft_tokens_states),
        cmocka_unit_test(llamacpp_keeps_one_f32_cell_a_slot),
        cmocka_unit_test(trtllm_counts_the_state_in_blocks_and_warns),
        cmocka_unit_test(decode_reads_the_state_once_a_step),
        cmocka_unit_test(impossible_state_layers_name_the_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
