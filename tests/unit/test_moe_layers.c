/* Which layers hold the experts (core/spec.h's MoE pattern), worked by hand,
 * and the two places it counts:
 *  - llama.cpp's --n-cpu-moe N (common/arg.cpp: the tensors
 *    blk.i.ffn_(up|down|gate)_exps of layers i < N in the CPU buffer type):
 *    a dense layer below N has no experts to keep back;
 *  - vLLM's non-KV memory: every MoE layer's router gate whole in bf16 on
 *    every GPU (models/deepseek_v2.py DeepseekV2MoE, GateLinear: a
 *    ReplicatedLinear in the model's dtype, no quantization), and MLA's
 *    dequantized W_UV and W_UK_T (layers/attention/mla_attention.py,
 *    MLAAttention.process_weights_after_loading) beside an FP8 kv_b_proj. */
#include "catalog_fixture.h"

#include "core/plan.h"

static struct plan_result r;
static struct explain rows;

static bool run(const struct scenario *s)
{
    struct diag d = {0};
    return plan_compute(s, &rows, NULL, &r, &d);
}

/* DeepSeek-V3 on `gpus` GPUs under an engine, at `context` tokens */
static struct scenario v3(const char *gpu, enum engine_kind kind, uint32_t gpus,
                          uint64_t context)
{
    struct scenario s = base(gpu, "deepseek-v3");
    s.engine.kind = kind;
    s.gpus = gpus;
    s.context_tokens = context;
    return s;
}

static long double row_value(const char *key)
{
    const struct explain_row *row = explain_find(&rows, key);
    assert_non_null(row);
    return row->result.value;
}

/* DeepSeek-V3: first_k_dense_replace 3 of 61 layers; Jamba 1.5 Mini:
 * expert_layer_period 2, offset 1 (16 of 32); Llama 4 Maverick:
 * interleave_moe_layer_step 2 (the odd layers, 24 of 48); Mixtral: all. */
static void catalogue_patterns(void **state)
{
    (void)state;
    struct scenario s = base("h100-sxm", "deepseek-v3");
    assert_int_equal(s.model.moe_first_dense, 3);
    assert_false(spec_moe_layer(&s.model, 2));
    assert_true(spec_moe_layer(&s.model, 3));
    assert_int_equal(spec_moe_layers_in(&s.model, 0, 61), 58);
    assert_int_equal(spec_moe_layers_in(&s.model, 0, 10), 7);
    s = base("h100-sxm", "jamba-1.5-mini");
    assert_false(spec_moe_layer(&s.model, 0));
    assert_true(spec_moe_layer(&s.model, 1));
    assert_int_equal(spec_moe_layers_in(&s.model, 0, 32), 16);
    s = base("h100-sxm", "llama-4-maverick");
    assert_int_equal(spec_moe_layers_in(&s.model, 0, 48), 24);
    assert_true(spec_moe_layer(&s.model, 47));
    s = base("h100-sxm", "mixtral-8x7b");
    assert_int_equal(spec_moe_layers_in(&s.model, 0, 32), 32);
    s = base("h100-sxm", "llama-3.1-8b"); /* dense: none */
    assert_int_equal(spec_moe_layers_in(&s.model, 0, 32), 0);
}

static void bad_patterns(void **state)
{
    (void)state;
    struct scenario s = base("h100-sxm", "jamba-1.5-mini");
    struct diag d = {0};
    s.model.moe_offset = 2; /* not below the period 2 */
    assert_false(spec_model_validate(&s.model, &d));
    assert_non_null(strstr(d.message, "moe.layer_offset"));
    s = base("h100-sxm", "deepseek-v3");
    s.model.moe_first_dense = 61; /* no layer left with experts */
    d = (struct diag){0};
    assert_false(spec_model_validate(&s.model, &d));
    assert_non_null(strstr(d.message, "moe.first_dense"));
}

/* DeepSeek-V3 in llama.cpp, every layer on the GPUs, --n-cpu-moe 10: of
 * layers 0..9 only 3..9 hold experts, 7 of the 58 MoE layers. The experts:
 * 653,908,770,816 params at 1 B (fp8) = 653,908,770,816 B, a MoE layer's
 * 653,908,770,816 / 58 = 11,274,289,152 B; in host memory 7 of them,
 * 78,920,024,064 B (before: 10 x expert_bytes / 61, three layers too many). */
static void offload_deepseek_dense_first(void **state)
{
    (void)state;
    struct scenario s = v3("h100-sxm", ENGINE_LLAMACPP, 8, 8192);
    s.offload.n_cpu_moe_given = true;
    s.offload.n_cpu_moe = 10;
    run(&s);
    const struct offload_split *o = &r.engine.offload;
    assert_true(o->active);
    assert_int_equal(o->layer_expert_bytes, 11274289152ull);
    assert_int_equal(o->moe_host_layers, 7);
    assert_int_equal(o->moe_gpu_layers, 51);
    assert_int_equal(o->host_expert_bytes, 7ull * 11274289152ull);
    s.offload.n_cpu_moe = 3; /* only the dense layers: no experts to keep back */
    run(&s);
    assert_int_equal(r.engine.offload.moe_host_layers, 0);
    assert_int_equal(r.engine.offload.host_expert_bytes, 0);
}

/* Jamba 1.5 Mini, --n-cpu-moe 4: layers 1 and 3 of 0..3 hold experts. */
static void offload_jamba_every_other(void **state)
{
    (void)state;
    struct scenario s = base("rtx-4090", "jamba-1.5-mini");
    s.engine.kind = ENGINE_LLAMACPP;
    s.weight_dtype = DTYPE_Q4_K_M;
    s.context_tokens = 8192;
    s.offload.n_cpu_moe_given = true;
    s.offload.n_cpu_moe = 4;
    run(&s);
    const struct offload_split *o = &r.engine.offload;
    assert_int_equal(o->moe_host_layers, 2);
    assert_int_equal(o->moe_gpu_layers, 14);
    /* all the experts less the 14 layers' kept (the division's remainder stays in host) */
    assert_int_equal(o->host_expert_bytes, r.expert_bytes - 14 * o->layer_expert_bytes);
    assert_true(o->host_expert_bytes - 2 * o->layer_expert_bytes < 16);
}

/* vLLM, DeepSeek-V3 in FP8 on H200s, one layer and the whole stage.
 * Gate, one MoE layer: 7,168 x 256 = 1,835,008 params, 3,670,016 B in bf16,
 * counted in the weights at 1 B / TP. TP 8: 58 x 3,670,016 = 212,860,928 B
 * whole, less 58 x 1,835,008 / 8 = 13,303,808 B counted: 199,557,120 B
 * (190.3 MiB). TP 1: 212,860,928 - 106,430,464 = 106,430,464 B.
 * MLA, one layer: heads x (128 + 128) x 512 x 2 B = 262,144 B a head; TP 8:
 * 16 heads, 4,194,304 B, x 61 = 255,852,544 B (244 MiB); TP 1: 128 heads,
 * 33,554,432 B, x 61 = 2,046,820,352 B. */
static void vllm_gate_and_mla_copies(void **state)
{
    (void)state;
    struct scenario s = v3("h200", ENGINE_VLLM, 8, 32768);
    s.tp = 8; /* given: by default 8 x TP 1 (MoE over DP) serve the most */
    assert_true(run(&s));
    assert_true(row_value("moe_gate") == 199557120.0L);
    assert_true(row_value("mla_copies") == 255852544.0L);
    assert_int_equal(r.engine.held_extra_bytes, 199557120ull + 255852544ull);
    uint64_t pool8 = r.kv_pool_bytes_per_gpu;
    /* outside KV: the weights, these, then the activation peak and runtime */
    assert_int_equal(r.engine.non_kv_bytes, r.weights_bytes_per_gpu + r.engine.held_extra_bytes +
                                                r.runtime_bytes_per_gpu);
    assert_int_equal(r.kv_pool_bytes_per_gpu, r.engine.budget_bytes - r.engine.non_kv_bytes);
    (void)pool8;
    s.gpus = 1;
    s.tp = 0;
    s.weight_dtype = DTYPE_FP8;
    run(&s); /* does not fit one GPU; the rows are there all the same */
    assert_true(row_value("moe_gate") == 106430464.0L);
    assert_true(row_value("mla_copies") == 2046820352.0L);
    /* in bf16 the gates are counted whole at TP 1, and W_UV and W_UK_T are views */
    s = base("l4", "deepseek-v2-lite");
    s.engine.kind = ENGINE_VLLM;
    s.context_tokens = 32768;
    assert_true(run(&s));
    assert_int_equal(r.engine.held_extra_bytes, 0);
    assert_null(explain_find(&rows, "mla_copies"));
}

/* A checkpoint counted as released keeps its gates and attention in bf16:
 * Kimi K2.6 (INT4 experts, the rest bf16) at TP 8 holds its 60 layers' gates
 * whole, 60 x 7,168 x 384 x 2 B = 330,301,440 B, less the eighth the weights
 * count, 41,287,680 B: 289,013,760 B; its kv_b_proj is bf16, so W_UV and
 * W_UK_T are views. gpt-oss-120b on one GPU: its bf16 router counted whole. */
static void vllm_released_checkpoints(void **state)
{
    (void)state;
    struct scenario s = base("h200", "kimi-k2.6");
    s.engine.kind = ENGINE_VLLM;
    s.gpus = 8;
    s.tp = 8; /* the worked gate is at TP 8 */
    s.context_tokens = 32768;
    run(&s);
    assert_true(row_value("moe_gate") == 289013760.0L);
    assert_null(explain_find(&rows, "mla_copies"));
    s = base("h100-sxm", "gpt-oss-120b");
    s.engine.kind = ENGINE_VLLM;
    s.context_tokens = 32768;
    assert_true(run(&s));
    assert_int_equal(r.engine.held_extra_bytes, 0);
}

/* Pipeline stages: the last stage of DeepSeek-V3 over 2 (31 layers, 30..60)
 * holds 31 MoE layers; TP 4: 31 x 3,670,016 = 113,770,496 B less 58 x
 * 1,835,008 / 8 = 13,303,808 B: 100,466,688 B. */
static void vllm_gate_last_stage(void **state)
{
    (void)state;
    struct scenario s = v3("h200", ENGINE_VLLM, 8, 32768);
    s.pp = 2;
    run(&s);
    assert_true(row_value("moe_gate") == 100466688.0L);
    /* MLA: 31 layers x 32 heads x 262,144 B */
    assert_true(row_value("mla_copies") == 31.0L * 32 * 262144);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(catalogue_patterns),
        cmocka_unit_test(bad_patterns),
        cmocka_unit_test(offload_deepseek_dense_first),
        cmocka_unit_test(offload_jamba_every_other),
        cmocka_unit_test(vllm_gate_and_mla_copies),
        cmocka_unit_test(vllm_gate_last_stage),
        cmocka_unit_test(vllm_released_checkpoints),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
