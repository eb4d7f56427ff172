/* The layouts a GPU count gets (core/scenario.h scenario_tp, the largest TP
 * the heads split over) and llama.cpp's split by layer, sized by its fullest
 * GPU (core/placement.h placement_fullest_layers, placement_share). */
#include "engine_fixture.h"

#include "core/placement.h"

/* llama.cpp's llama_model::load_tensors (src/llama-model.cpp), split mode
 * layer, -ngl 999: n_layer + 1 slots (the output layer the last), slot il on
 * the device upper_bound(splits, float(il) / act) finds, splits the running
 * shares of the devices' free memory (alike here); the most repeating
 * layers any device gets. Restated with llama.cpp's own float arithmetic. */
static uint32_t llamacpp_fullest(uint32_t layers, uint32_t gpus)
{
    float splits[64];
    uint32_t count[64] = {0}, most = 0;
    float sum = 0;
    for (uint32_t d = 0; d < gpus; d++)
        splits[d] = sum += 1.0f;
    for (uint32_t d = 0; d < gpus; d++)
        splits[d] /= sum;
    int act = (int)layers + 1;
    for (uint32_t il = 0; il < layers; il++) {
        uint32_t d = 0;
        while (d < gpus && !(splits[d] > (float)il / act))
            d++;
        count[d < gpus ? d : gpus - 1]++;
    }
    for (uint32_t d = 0; d < gpus; d++)
        most = count[d] > most ? count[d] : most;
    return most;
}

static void the_fullest_gpu_holds_llamacpps_whole_layers(void **state)
{
    (void)state;
    static const uint32_t layers[] = {1, 2, 26, 32, 40, 61, 80, 126};
    for (size_t i = 0; i < sizeof layers / sizeof layers[0]; i++)
        for (uint32_t g = 1; g <= 64; g++)
            assert_int_equal(placement_fullest_layers(layers[i], g),
                             llamacpp_fullest(layers[i], g));
    assert_int_equal(placement_fullest_layers(80, 12), 7); /* not 80 / 12 = 6.67 */
}

static void a_layer_split_plans_its_fullest_gpu(void **state)
{
    (void)state;
    struct scenario s = base(ENGINE_LLAMACPP);
    s.gpus = 2; /* Llama 3 8B's 32 layers: 17 on the first GPU, 15 and the output on the other */
    struct plan_result r = run(&s);
    assert_int_equal(r.layers_fullest, 17);
    assert_int_equal(r.layers_all, 32);
    uint64_t w = r.weights_bytes;
    assert_int_equal(r.weights_bytes_per_gpu, (w * 17 + 31) / 32);
    /* the cache: 4,096 B a cell a layer, every cell of its 17 layers */
    assert_int_equal(r.engine.kv_cache_bytes, 17ull * 4096 * r.engine.units);
}

static void a_gpu_count_defaults_to_a_split_of_the_heads(void **state)
{
    (void)state;
    struct scenario s = base(ENGINE_VLLM); /* Llama 3 8B: 32 heads, 8 KV heads */
    /* {GPUs, TP, PP}: the layout that serves the most (scenario_layout.c):
     * on these A100s 3 GPUs TP 1 x PP 3 (86 users; 3 x TP 1 hold 57), 6
     * TP 2 x PP 3 (179; 3 x TP 2 hold 153), 12 two of those (358; 3 x TP
     * 4 hold 354), past a node replicas of TP 8 */
    static const uint32_t want[][3] = {{1, 1, 1},  {2, 2, 1},  {3, 1, 3},  {4, 4, 1},
                                       {6, 2, 3},  {8, 8, 1},  {12, 2, 3}, {16, 8, 1},
                                       {24, 8, 1}, {32, 8, 1}, {40, 8, 1}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        s.gpus = want[i][0];
        assert_int_equal(scenario_tp(&s), want[i][1]);
        assert_int_equal(scenario_pp(&s), want[i][2]);
        assert_int_equal(scenario_replicas(&s), want[i][0] / want[i][1] / want[i][2]);
        assert_true(scenario_tp_even(&s, scenario_tp(&s)));
    }
    s.gpus = 12;
    s.tp = 12; /* as asked: kept; vLLM refuses it (ModelConfig.verify_with_parallel_config) */
    assert_int_equal(scenario_tp(&s), 12);
    enum scenario_field field = SF_COUNT;
    struct diag d = {0};
    assert_false(scenario_validate(&s, NULL, &field, &d));
    assert_int_equal(field, SF_TP);
    s.engine.kind = ENGINE_GENERIC; /* the generic rule plans it and warns */
    assert_true(run(&s).warnings & WARN_HEADS_UNEVEN_SPLIT);
    s.engine.kind = ENGINE_VLLM;
    s.tp = 0;
    assert_false(run(&s).warnings & WARN_HEADS_UNEVEN_SPLIT);
    /* tensor parallel stays within a node (8 GPUs) or an NVLink domain: 16
     * GPUs are 2 x TP 8, not one group across two nodes */
    s.gpus = 16;
    assert_false(run(&s).warnings & WARN_TP_ACROSS_NODES);
    s.gpu.nvlink_domain_gpus = 72; /* a GB200 NVL72 rack: one domain */
    /* TP 16 is a layout there (the first of scenario_layouts); the default
     * takes the one that serves the most: TP 16 copies the 8 KV heads */
    struct scenario_layout all[SCENARIO_LAYOUTS_MAX];
    assert_true(scenario_layouts(&s, 16, 72, all, SCENARIO_LAYOUTS_MAX) > 1);
    assert_int_equal(all[0].tp, 16);
    assert_int_equal(all[0].pp, 1);
    s.gpu.nvlink_domain_gpus = 0;
    /* an engine that splits layers takes any count whole */
    s = base(ENGINE_LLAMACPP);
    s.gpus = 12;
    assert_int_equal(scenario_tp(&s), 12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_fullest_gpu_holds_llamacpps_whole_layers),
        cmocka_unit_test(a_layer_split_plans_its_fullest_gpu),
        cmocka_unit_test(a_gpu_count_defaults_to_a_split_of_the_heads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
