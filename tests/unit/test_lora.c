/* LoRA adapter slots (core/lora.h): the memory vLLM and SGLang hold for
 * --max-loras slots at --max-lora-rank, worked by hand.
 *
 * vLLM: vllm/lora/layers/base_linear.py BaseLinearLayerWithLoRA.create_lora_weights and
 * column_parallel_linear.py MergedColumnParallelLinearWithLoRA.create_lora_weights:
 * lora_a_stacked (max_loras, 1, max_lora_rank, input_size), lora_b_stacked
 * (max_loras, 1, output_size per partition, max_lora_rank), in lora_dtype; a
 * row-parallel layer's input_size is its partition. The buffers are made by
 * v1/worker/lora_model_runner_mixin.py load_lora_model while the model loads.
 * SGLang: python/sglang/srt/lora/mem_pool.py LoRAMemoryPool.get_lora_A_shape /
 * get_lora_B_shape: (max_loras_per_batch, rank, in / tp for o and down) and
 * (max_loras_per_batch, out / tp for q, k, v, gate, up, rank). */
#include "engine_fixture.h"

static void llama_3_1_8b_rank_16_all_projections(void **state)
{
    (void)state;
    /* Llama 3.1 8B: hidden 4,096, 32 heads x 128 = 4,096, 8 KV heads x 128
     * = 1,024, MLP 14,336, 32 layers, bf16 (2 B). Per layer, in + out:
     *   q 4,096 + 4,096 = 8,192     k 4,096 + 1,024 = 5,120
     *   v 4,096 + 1,024 = 5,120     o 4,096 + 4,096 = 8,192
     *   gate 4,096 + 14,336 = 18,432, up 18,432, down 14,336 + 4,096 = 18,432
     *   sum = 8,192 x 2 + 5,120 x 2 + 18,432 x 3 = 26,624 + 55,296 = 81,920
     * per slot = 32 layers x 16 rank x 2 B x 81,920 = 1,024 x 81,920
     *          = 83,886,080 B (80 MiB); 4 slots = 335,544,320 B (320 MiB). */
    struct scenario s = on(ENGINE_VLLM, "h100", 81559);
    s.max_loras = 4;
    struct plan_result r = run(&s);
    assert_int_equal(r.lora.features_sum, 81920);
    assert_int_equal(r.lora.slot_bytes, 83886080ull);
    assert_int_equal(r.lora.bytes, 335544320ull);
    assert_int_equal(r.lora.rank, 16); /* vLLM's default max_lora_rank */
    uint64_t seg[SEG_COUNT];
    plan_segments(&r, seg);
    assert_int_equal(seg[SEG_LORA], 335544320ull);
    /* the rows say the same: per slot, slots, and the pool pays for them */
    const struct explain_row *slot = explain_find(&rows, "lora_slot");
    const struct explain_row *all = explain_find(&rows, "lora");
    assert_non_null(slot);
    assert_non_null(all);
    assert_true(explain_eval(slot) == 83886080.0L);
    assert_true(explain_eval(all) == 335544320.0L);
    assert_non_null(strstr(r.engine.launch, "--enable-lora --max-loras 4 --max-lora-rank 16"));
    /* the KV pool is smaller by exactly the slots */
    struct scenario none = s;
    none.max_loras = 0;
    struct plan_result r0 = run(&none);
    assert_int_equal(r0.kv_pool_bytes_per_gpu - r.kv_pool_bytes_per_gpu, 335544320ull);
    assert_int_equal(r0.lora.bytes, 0);
    assert_null(explain_find(&rows, "lora"));
}

static void tensor_parallel_splits_b_of_column_and_a_of_row_layers(void **state)
{
    (void)state;
    /* TP 2, rank 64, attention only (q,k,v,o), SGLang:
     *   q: A 64 x 4,096 whole, B 4,096 / 2 = 2,048 x 64 -> 4,096 + 2,048 = 6,144
     *   k, v: 4,096 + 8 / 2 heads x 128 = 4,096 + 512 = 4,608 each
     *   o: A 4,096 / 2 = 2,048 x 64, B 4,096 x 64 -> 2,048 + 4,096 = 6,144
     *   sum = 6,144 x 2 + 4,608 x 2 = 21,504
     * per slot = 32 x 64 x 2 B x 21,504 = 88,080,384 B; 8 slots = 704,643,072 B */
    struct scenario s = on(ENGINE_SGLANG, "h100", 81559);
    s.gpus = 2;
    s.max_loras = 8;
    s.max_lora_rank = 64;
    s.lora_targets = LORA_ATTENTION;
    struct plan_result r = run(&s);
    assert_int_equal(r.lora.features[LORA_Q], 6144);
    assert_int_equal(r.lora.features[LORA_K], 4608);
    assert_int_equal(r.lora.features[LORA_O], 6144);
    assert_int_equal(r.lora.features_sum, 21504);
    assert_int_equal(r.lora.slot_bytes, 88080384ull);
    assert_int_equal(r.lora.bytes, 704643072ull);
    assert_non_null(strstr(r.engine.launch, "--max-loras-per-batch 8 --max-lora-rank 64 "
                                            "--lora-target-modules q_proj k_proj v_proj o_proj"));
    /* KV heads replicated past TP 8: each of 16 GPUs keeps one 128-wide head
     * (SGLang mem_pool.py _column_parallel_lora_b_per_rank_dim) */
    s.gpus = 16;
    r = run(&s);
    assert_int_equal(r.lora.features[LORA_K], 4096 + 128);
}

static void the_generic_rule_takes_the_slots_before_the_pool(void **state)
{
    (void)state;
    /* H100 80 GB by its driver total, 81,559 MiB; 10% headroom; weights
     * 16,060,522,496 B; 1 slot at rank 8 on q_proj and v_proj:
     * (8,192 + 5,120) x 32 x 8 x 2 = 6,815,744 B, taken from the pool. */
    struct scenario s = on(ENGINE_GENERIC, "h100", 81559);
    s.max_loras = 1;
    s.max_lora_rank = 8;
    s.lora_targets = (1u << LORA_Q) | (1u << LORA_V);
    struct plan_result r = run(&s);
    assert_int_equal(r.lora.bytes, 6815744ull);
    struct scenario none = s;
    none.max_loras = 0;
    struct plan_result r0 = run(&none);
    assert_int_equal(r0.kv_pool_bytes_per_gpu - r.kv_pool_bytes_per_gpu, 6815744ull);
    uint64_t seg[SEG_COUNT], sum = 0;
    plan_segments(&r, seg);
    for (int i = 0; i < SEG_COUNT; i++)
        sum += seg[i];
    assert_int_equal(sum, r.memory_bytes_per_gpu);
}

static void where_slots_are_not_modelled_the_option_is_refused(void **state)
{
    (void)state;
    struct diag d = {0};
    enum scenario_field f;
    /* llama.cpp (common/common.cpp common_init_from_params) loads each
     * --lora file as given: no slots */
    struct scenario s = on(ENGINE_LLAMACPP, "h100", 81559);
    s.max_loras = 2;
    assert_false(scenario_validate(&s, NULL, &f, &d));
    assert_int_equal(f, SF_MAX_LORAS);
    assert_non_null(strstr(d.message, "--max-loras: llama.cpp keeps no adapter slots"));
    s.engine.kind = ENGINE_TRTLLM;
    assert_false(scenario_validate(&s, NULL, &f, &d));
    assert_int_equal(f, SF_MAX_LORAS);
    /* MoE: attention by default; experts refused */
    s = on(ENGINE_VLLM, "h100", 81559);
    s.model.experts = 8;
    s.model.experts_per_token = 2;
    s.model.expert_params = 1000000;
    s.max_loras = 1;
    assert_true(scenario_validate(&s, NULL, &f, &d));
    assert_int_equal(lora_targets(&s), LORA_ATTENTION);
    s.lora_targets = LORA_ALL;
    assert_false(scenario_validate(&s, NULL, &f, &d));
    assert_int_equal(f, SF_LORA_TARGETS);
    s.lora_targets = 0;
    s.model.attention = ATTENTION_MLA;
    assert_false(scenario_validate(&s, NULL, &f, &d));
    assert_int_equal(f, SF_MAX_LORAS);
    s.model.attention = ATTENTION_GQA;
    s.max_loras = LORA_SLOTS_MAX + 1;
    assert_false(scenario_validate(&s, NULL, &f, &d));
}

static void falcon_has_two_mlp_matrices(void **state)
{
    (void)state;
    /* Falcon 7B: hidden 4,544, 71 heads x 64 = 4,544, 1 KV head x 64, MLP 18,176
     * (dense_h_to_4h, dense_4h_to_h: no gate), 32 layers, bf16, rank 16. In + out:
     *   q 4,544 + 4,544 = 9,088   k, v 4,544 + 64 = 4,608 each   o 9,088
     *   up 4,544 + 18,176 = 22,720   down 22,720
     *   sum = 9,088 x 2 + 4,608 x 2 + 22,720 x 2 = 72,832
     * per slot = 32 x 16 x 2 B x 72,832 = 74,579,968 B (a gate would add 22,720
     * features: 97,845,248 B). */
    struct scenario s = on(ENGINE_VLLM, "h100", 81559);
    s.model.hidden_size = 4544;
    s.model.attention_heads = 71;
    s.model.kv_heads = 1;
    s.model.head_dim = 64;
    s.model.intermediate_size = 18176;
    s.model.mlp_ungated = true;
    s.max_loras = 2;
    struct plan_result r = run(&s);
    assert_int_equal(r.lora.targets, LORA_ALL & ~(1u << LORA_GATE));
    assert_int_equal(r.lora.features_sum, 72832);
    assert_int_equal(r.lora.slot_bytes, 74579968ull);
    s.model.mlp_ungated = false;
    r = run(&s);
    assert_int_equal(r.lora.slot_bytes, 97845248ull);
}

static void packed_projections_are_allocated_whole(void **state)
{
    (void)state;
    /* SGLang utils.py get_normalized_target_modules: q_proj -> qkv_proj, whose
     * buffers (mem_pool.py, get_stacked_multiply 3) hold q, k and v; vLLM
     * utils.py is_in_target_modules wraps the packed qkv_proj for any part, and
     * MergedQKVParallelLinearWithLoRA.create_lora_weights allocates every slice.
     * Llama 3.1 8B, rank 16, q_proj alone: (8,192 + 5,120 + 5,120) = 18,432
     * features; 32 x 16 x 2 B x 18,432 = 18,874,368 B a slot, not q's 8,388,608. */
    struct scenario s = on(ENGINE_SGLANG, "h100", 81559);
    s.max_loras = 1;
    s.lora_targets = 1u << LORA_Q;
    struct plan_result r = run(&s);
    assert_int_equal(r.lora.targets, (1u << LORA_Q) | (1u << LORA_K) | (1u << LORA_V));
    assert_int_equal(r.lora.slot_bytes, 18874368ull);
    s.engine.kind = ENGINE_VLLM;
    r = run(&s);
    assert_int_equal(r.lora.slot_bytes, 18874368ull);
    assert_non_null(strstr(r.engine.launch, "--lora-target-modules q_proj k_proj v_proj"));
    /* up_proj takes gate_up_proj: gate and up, 18,432 features each:
     * 32 x 16 x 2 B x 36,864 = 37,748,736 B */
    s.lora_targets = 1u << LORA_UP;
    r = run(&s);
    assert_int_equal(r.lora.targets, (1u << LORA_GATE) | (1u << LORA_UP));
    assert_int_equal(r.lora.slot_bytes, 37748736ull);
    /* the generic rule counts the modules as given: q alone, 32 x 16 x 2 x 8,192 */
    s.engine.kind = ENGINE_GENERIC;
    s.lora_targets = 1u << LORA_Q;
    r = run(&s);
    assert_int_equal(r.lora.slot_bytes, 8388608ull);
}

static void target_modules_parse_and_print(void **state)
{
    (void)state;
    uint32_t m = 0;
    struct diag d = {0};
    assert_true(lora_targets_parse("q_proj,V_PROJ", &m, &d));
    assert_int_equal(m, (1u << LORA_Q) | (1u << LORA_V));
    assert_true(lora_targets_parse("all", &m, &d));
    assert_int_equal(m, LORA_ALL);
    assert_true(lora_targets_parse("attention,down_proj", &m, &d));
    char buf[128];
    lora_targets_format(m, buf, sizeof buf);
    assert_string_equal(buf, "q_proj,k_proj,v_proj,o_proj,down_proj");
    assert_false(lora_targets_parse("q_proj,lm_head", &m, &d));
    assert_non_null(strstr(d.message, "'lm_head' is not a module"));
    assert_false(lora_targets_parse("q_proj,", &m, &d));
    assert_false(lora_targets_parse("", &m, &d));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(llama_3_1_8b_rank_16_all_projections),
        cmocka_unit_test(tensor_parallel_splits_b_of_column_and_a_of_row_layers),
        cmocka_unit_test(the_generic_rule_takes_the_slots_before_the_pool),
        cmocka_unit_test(where_slots_are_not_modelled_the_option_is_refused),
        cmocka_unit_test(target_modules_parse_and_print),
        cmocka_unit_test(falcon_has_two_mlp_matrices),
        cmocka_unit_test(packed_projections_are_allocated_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
