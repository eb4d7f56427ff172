/* SGLang's router gates (core/policy_sglang_mem.c): python/sglang/srt/models/
 * deepseek_v2.py (commit 00114aef), MoEGate keeps the gate as a plain
 * nn.Parameter of n_routed_experts x hidden_size in the model's dtype, no
 * tensor-parallel split, so every rank holds each MoE layer's gate whole in
 * bf16; kvplan's weights count it split at the checkpoint's precision. */
#include "engine_fixture.h"

#include "core/explain.h"

static struct plan_result v3_on_h200(enum engine_kind kind, uint32_t tp)
{
    struct scenario s = base(kind);
    s.model = preset_model("deepseek-v3");
    s.gpu = preset_gpu("h200");
    s.gpus = tp;
    s.tp = tp;
    s.context_tokens = 32768;
    return run(&s);
}

static void deepseek_v3_gates_at_tp8(void **state)
{
    (void)state;
    /* 58 MoE layers x 7,168 x 256 x 2 B = 212,860,928 B whole; the weights
     * count them in FP8 over 8 GPUs, 58 x 7,168 x 256 / 8 = 13,303,808 B:
     * 199,557,120 B more on each GPU, out of the pool */
    struct plan_result r = v3_on_h200(ENGINE_SGLANG, 8);
    assert_int_equal(r.engine.held_extra_bytes, 199557120ull);
    const struct explain_row *gate = explain_find(&rows, "moe_gate");
    assert_non_null(gate);
    assert_true(gate->result.value == 199557120.0L);
    assert_non_null(explain_find(&rows, "weights_extra"));
}

static void same_gates_as_vllm(void **state)
{
    (void)state;
    /* both engines hold the same gates whole (vLLM also keeps MLA's
     * dequantized W_UV and W_UK_T, SGLang's rows have only the gates) */
    struct plan_result s = v3_on_h200(ENGINE_SGLANG, 8);
    (void)v3_on_h200(ENGINE_VLLM, 8);
    const struct explain_row *gate = explain_find(&rows, "moe_gate");
    assert_non_null(gate);
    assert_true(gate->result.value == (long double)s.engine.held_extra_bytes);
}

static void dense_model_holds_none(void **state)
{
    (void)state;
    struct scenario s = base(ENGINE_SGLANG);
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.held_extra_bytes, 0);
    assert_null(explain_find(&rows, "moe_gate"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(deepseek_v3_gates_at_tp8),
        cmocka_unit_test(same_gates_as_vllm),
        cmocka_unit_test(dense_model_holds_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
