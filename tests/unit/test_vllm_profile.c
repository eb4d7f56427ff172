/* vLLM V1's profiling run, worked by hand against two logs of gpt-oss-120b on
 * one H100 (src/core/policy_vllm_profile.c). determine_available_memory
 * (vllm/v1/worker/gpu_worker.py, 0.10 to 0.15) takes total x utilization
 * less the weights, torch's peak increase during profile_run and the
 * non-torch increase. profile_run (v1/worker/gpu_model_runner.py) runs the
 * batched tokens forward, then _dummy_sampler_run on the last token of each
 * of min(max_num_seqs, tokens) requests with top-p 0.9 and top-k vocab - 1;
 * the sampler (v1/sample/sampler.py) holds the bf16 logits and an fp32 copy
 * while apply_top_k_top_p (v1/sample/ops/topk_topp_sampler.py) sorts the
 * copy with torch.sort. PyTorch's sort (aten/src/ATen/native/cuda/
 * SortStable.cu, do_launch_stable_sort_kernel) returns fp32 values and int64
 * indices and, for 128 rows or more, sorts int64 reverse indices through
 * cub's DeviceSegmentedRadixSort::SortPairs (segmented_sort_pairs), whose
 * temporary storage holds a third keys and a third values buffer. That is
 * the rule of the releases before 0.18 (vllm@0.13 for 0.8 to 0.13, vllm@0.17
 * for 0.14 to 0.17); from 0.18 apply_top_k_top_p hands 8 rows or more to
 * apply_top_k_top_p_triton (v1/sample/ops/topk_topp_triton.py, vllm PR
 * #33538), which masks in place. */
#include "catalog_fixture.h"

#include "core/engine.h"
#include "core/plan.h"
#include "core/policy.h"
#include "io/preset.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

static struct plan_result r;
static struct explain rows;

static bool run(const struct scenario *s)
{
    struct diag d = {0};
    return plan_compute(s, &rows, NULL, &r, &d);
}

/* gpt-oss-120b on one H100 under the rule --engine vllm@RELEASE resolves to */
static struct scenario oss_at(const char *engine, double utilization, uint64_t context,
                              uint64_t batched)
{
    struct scenario s = base("h100-sxm", "gpt-oss-120b");
    struct diag d = {0};
    assert_true(engine_parse(engine, &s.engine.kind, &s.engine.rule, &d));
    assert_int_equal(s.engine.kind, ENGINE_VLLM);
    s.engine.gpu_memory_utilization = utilization;
    s.context_tokens = context;
    s.engine.max_num_batched_tokens = batched;
    return s;
}

/* the release both logs ran (vllm#23278: 0.10.1; vllm#27508: 0.11) */
static struct scenario oss(double utilization, uint64_t context, uint64_t batched)
{
    return oss_at("vllm@0.10.1", utilization, context, batched);
}

/* Defaults (vllm#23278, vLLM 0.10.1 on an H100 80 GB): 1,024 sequences,
 * 8,192 batched tokens, 0.90. The sampler: 1,024 x 201,088 = 205,914,112
 * entries; the sort 4 + 8 + 8 + 4 + 8 = 32 B an entry = 6,589,251,584 B, with
 * the two logits 6 B: 38 B = 7,824,736,256 B (7.29 GiB), above the forward's
 * 8,192 x 56,320 B. Budget round(85,061,827,297 x 0.9) = 76,555,644,567 B,
 * less 70,753,643,136 B of padded weights, the sampler and 0.25 GiB runtime:
 * -2,291,170,281 B, short by 2.13 GiB; vLLM logged "Available KV cache
 * memory: -2.14 GiB" and did not start. Before the sort was counted (14 B an
 * entry, 2.68 GiB) kvplan said 4 users fit with 2.47 GiB of cache. */
static void gpt_oss_120b_at_the_defaults_does_not_start(void **state)
{
    (void)state;
    struct scenario s = oss(0.0, 8192, 0);
    run(&s);
    assert_int_equal(r.engine.max_num_seqs, 1024);
    assert_int_equal(r.engine.max_num_batched_tokens, 8192);
    const struct explain_row *sort = explain_find(&rows, "sampler_sort");
    assert_non_null(sort);
    assert_true(sort->result.value == 1024.0L * 201088 * 32);
    assert_non_null(strstr(sort->formula, "reverse indices"));
    assert_int_equal(r.engine.activation_bytes, 7824736256ull);
    assert_int_equal(r.engine.budget_bytes, 76555644567ull);
    assert_int_equal(r.weights_bytes_per_gpu, 70753643136ull);
    assert_int_equal(r.kv_pool_bytes_per_gpu, 0);
    assert_int_equal(r.shortfall_bytes_per_gpu, 2291170281ull);
    assert_int_equal(r.max_users, 0);
}

/* vllm#27508 (vLLM 0.11, --gpu-memory-utilization 0.95
 * --max-num-batched-tokens 1024, 131,072 tokens): the sampler still has
 * min(1,024, 1,024) = 1,024 rows, 7,824,736,256 B. round(85,061,827,297 x
 * 0.95) = 80,808,735,932 B - 70,753,643,136 - 7,824,736,256 - 268,435,456 =
 * 1,961,921,084 B (1.83 GiB); vLLM logged 1.71 GiB (kvplan said 6.43 GiB
 * before), under the 4.54 GiB one request of 131,072 tokens needs. */
static void gpt_oss_120b_at_095_logs_under_two_gib(void **state)
{
    (void)state;
    struct scenario s = oss(0.95, 131072, 1024);
    run(&s);
    assert_int_equal(r.engine.activation_bytes, 7824736256ull);
    assert_int_equal(r.engine.budget_bytes, 80808735932ull);
    assert_int_equal(r.kv_pool_bytes_per_gpu, 1961921084ull);
    assert_int_equal(r.max_users, 0);
}

/* Fewer rows take other paths of the sort. 2 to 127 rows:
 * segmented_sort_pairs_by_full_sort, values 4 + indices 8 + two arrays of
 * int2 pairs 8 + 8 + the sorted keys it allocates 4 + cub's spare keys 4 and
 * int2 values 8 = 44 B; --max-num-seqs 64: 64 x 201,088 x (6 + 44) =
 * 643,481,600 B, above the forward's 8,192 x 56,320 = 461,373,440 B. One row:
 * segmented_sort_large_segments, 4 + 8 + cub's 4 + 8 = 24 B; 201,088 x 30 B is
 * under the forward, which is then the peak and no sort row is shown. */
static void fewer_rows_sort_another_way(void **state)
{
    (void)state;
    struct scenario s = oss(0.0, 8192, 0);
    s.engine.max_num_seqs = 64;
    run(&s);
    const struct explain_row *sort = explain_find(&rows, "sampler_sort");
    assert_non_null(sort);
    assert_true(sort->result.value == 64.0L * 201088 * 44);
    assert_int_equal(r.engine.activation_bytes, 643481600ull);
    s.engine.max_num_seqs = 1;
    run(&s);
    assert_null(explain_find(&rows, "sampler_sort"));
    assert_int_equal(r.engine.activation_bytes, 461373440ull);
    assert_int_equal(vllm_sort_bytes_per_entry(1), 24);
    assert_int_equal(vllm_sort_bytes_per_entry(127), 44);
    assert_int_equal(vllm_sort_bytes_per_entry(128), 32);
}

/* V0's sampler is counted as before, 30 B an entry and no sort row. V0
 * never served gpt-oss (refused: policy_vllm_refuse.c), so Llama 3.1 8B at
 * 2,048 tokens, whose forward (2,048 x 139,264 B = 272 MiB) is below the
 * sampler: 256 sequences (V0's default) x 128,256 x 30 = 985,006,080 B. */
static void v0_keeps_its_sampler(void **state)
{
    (void)state;
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    s.engine.kind = ENGINE_VLLM;
    s.engine.rule = RULE_VLLM_V0;
    s.context_tokens = 2048;
    s.engine.max_num_batched_tokens = 2048;
    run(&s);
    assert_null(explain_find(&rows, "sampler_sort"));
    assert_int_equal(r.engine.activation_bytes, 256ull * 128256 * 30);
}

/* 0.14 to 0.17 still sort (rule vllm@0.17): the same 7,824,736,256 B as
 * 0.10.1. From 0.18 (the current rule) the Triton kernel masks the fp32
 * logits in place: 1,024 x 201,088 x (2 + 4 B logits, 4 B softmax, 4 B
 * exponential noise) = 2,882,797,568 B, and its cached fp32 buffer of
 * [programs, vocab] (apply_top_k_top_p_triton, _TRITON_BUFFER_CACHE):
 * programs min(132 SMs, 1,024 rows) = 132, 132 x 201,088 x 4 =
 * 106,174,464 B (101.26 MiB; "~80MiB" in vllm PR #33538). 2,988,972,032 B
 * in all, no sort row. The budget then leaves 76,555,644,567 -
 * 70,753,643,136 - 2,988,972,032 - 268,435,456 = 2,544,593,943 B
 * (2.37 GiB) where 0.10.1 was short by 2.13 GiB. */
static void triton_releases_do_not_sort(void **state)
{
    (void)state;
    struct scenario s = oss_at("vllm@0.17.1", 0.0, 8192, 0);
    run(&s);
    assert_non_null(explain_find(&rows, "sampler_sort"));
    assert_int_equal(r.engine.activation_bytes, 7824736256ull);
    s = oss_at("vllm@0.18.0", 0.0, 8192, 0);
    run(&s);
    assert_null(explain_find(&rows, "sampler_sort"));
    const struct explain_row *tri = explain_find(&rows, "sampler_triton");
    assert_non_null(tri);
    assert_true(tri->result.value == 106174464.0L);
    assert_int_equal(r.engine.activation_bytes, 2988972032ull);
    assert_int_equal(r.kv_pool_bytes_per_gpu, 2544593943ull);
    assert_int_equal(r.shortfall_bytes_per_gpu, 0);
}

/* Under 8 rows even 0.18 sorts ("HAS_TRITON and logits.shape[0] >= 8" in
 * apply_top_k_top_p): --max-num-seqs 7 --max-num-batched-tokens 7, the
 * forward 7 x 56,320 B = 394,240 B, the sampler 7 x 201,088 x (6 + 44 B of
 * segmented_sort_pairs_by_full_sort) = 70,380,800 B, with a sort row. At 8
 * the Triton path with 8 programs: 8 x 201,088 x 14 + 8 x 201,088 x 4 =
 * 28,956,672 B. The buffer's rows: min(next power of 2 of min(132, rows),
 * 132). */
static void under_eight_rows_even_triton_sorts(void **state)
{
    (void)state;
    struct scenario s = oss_at("vllm", 0.0, 8192, 0);
    s.engine.max_num_seqs = 7;
    s.engine.max_num_batched_tokens = 7;
    run(&s);
    assert_non_null(explain_find(&rows, "sampler_sort"));
    assert_null(explain_find(&rows, "sampler_triton"));
    assert_int_equal(r.engine.activation_bytes, 70380800ull);
    s.engine.max_num_seqs = 8;
    s.engine.max_num_batched_tokens = 8;
    run(&s);
    assert_null(explain_find(&rows, "sampler_sort"));
    assert_int_equal(r.engine.activation_bytes, 28956672ull);
    assert_int_equal(vllm_triton_programs(8, 132), 8);
    assert_int_equal(vllm_triton_programs(100, 132), 128);
    assert_int_equal(vllm_triton_programs(131, 132), 132);
    assert_int_equal(vllm_triton_programs(1024, 132), 132);
}

/* The buffer's rows are the GPU's SMs, not H100's. apply_top_k_top_p_triton
 * (vllm/v1/sample/ops/topk_topp_triton.py, vLLM 0.18 and later, read at
 * main 08a57232): num_sm = num_compute_units(logits.device.index) (the
 * platform's torch multi_processor_count, compute units on ROCm),
 * NUM_PROGRAMS = min(num_sm, batch_size), the cached buffer
 * logits.new_empty((min(next_power_of_2(NUM_PROGRAMS), num_sm), vocab)) in
 * fp32. Qwen3-8B (vocabulary 151,936) at 1,024 rows, so every GPU's buffer
 * is its SMs x 151,936 x 4 B = SMs x 607,744 B. */
struct sm_case {
    const char *gpu;
    uint32_t sms;
    uint64_t bytes;
};

static const struct explain_row *triton_buffer(const char *gpu, uint32_t seqs)
{
    struct scenario s = base(gpu, "qwen3-8b");
    struct diag d = {0};
    assert_true(engine_parse("vllm", &s.engine.kind, &s.engine.rule, &d));
    s.engine.max_num_seqs = seqs;
    s.engine.max_num_batched_tokens = seqs;
    assert_int_equal(policy_vocab(&s.model), 151936);
    run(&s);
    const struct explain_row *row = explain_find(&rows, "sampler_triton");
    assert_non_null(row);
    return row;
}

static void the_buffer_has_a_row_per_sm_of_the_gpu(void **state)
{
    (void)state;
    static const struct sm_case cases[] = {
        {"h100-sxm", 132, 80222208ull}, {"a100-80gb", 108, 65636352ull},
        {"rtx-4090", 128, 77791232ull}, {"l40s", 142, 86299648ull},
        {"b200", 148, 89946112ull},     {"mi300x", 304, 184754176ull},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct explain_row *row = triton_buffer(cases[i].gpu, 1024);
        char sms[32];
        snprintf(sms, sizeof sms, "%u SMs (", (unsigned)cases[i].sms);
        assert_true(row->result.value == (long double)cases[i].bytes);
        assert_non_null(strstr(row->formula, sms));
        assert_int_equal(vllm_triton_programs(1024, cases[i].sms), cases[i].sms);
    }
    /* 256 rows on MI300X's 304 compute units: min(next power of 2 of 256,
     * 304) = 256 programs, 256 x 607,744 = 155,582,464 B */
    assert_true(triton_buffer("mi300x", 256)->result.value == 155582464.0L);
    assert_int_equal(vllm_triton_programs(200, 304), 256);
    assert_int_equal(vllm_triton_programs(257, 304), 304);
    assert_int_equal(vllm_triton_programs(100, 108), 108);
}

/* A GPU without an SM count (a custom one) takes H100's 132 and says so:
 * 132 x 607,744 = 80,222,208 B. */
static void an_unknown_sm_count_assumes_h100(void **state)
{
    (void)state;
    struct scenario s = base("a100-80gb", "qwen3-8b");
    struct diag d = {0};
    assert_true(engine_parse("vllm", &s.engine.kind, &s.engine.rule, &d));
    s.engine.max_num_seqs = 1024;
    s.engine.max_num_batched_tokens = 1024;
    s.gpu.sm_count = 0;
    run(&s);
    const struct explain_row *row = explain_find(&rows, "sampler_triton");
    assert_non_null(row);
    assert_true(row->result.value == 80222208.0L);
    assert_non_null(strstr(row->formula, "SM count unknown: assumed 132 (H100)"));
    assert_int_equal(vllm_triton_sms(&s.gpu), 132);
}

/* A GPU preset's sm_count: read with its basis, written back, and a bad
 * value named with its file, line and field. */
#define GPU_HEAD                                                                       \
    "{\"format\": \"kvplan-gpu\", \"format_version\": 1,\n"                               \
    "\"id\": \"g\", \"name\": \"G\", \"source\": \"test\",\n"                                \
    "\"memory_bytes\": 1000000000,\n"

static bool parse_gpu(const char *fields, struct preset *p, struct diag *d)
{
    char text[512];
    snprintf(text, sizeof text, "%s%s}\n", GPU_HEAD, fields);
    return preset_parse("g.json", text, strlen(text), p, d);
}

static void an_sm_count_is_read_checked_and_written(void **state)
{
    (void)state;
    struct preset p;
    struct diag d = {0};
    assert_true(parse_gpu("\"sm_count\": 108, \"sm_count_basis\": \"whitepaper\"", &p, &d));
    assert_int_equal(p.gpu.sm_count, 108);
    assert_string_equal(p.gpu.sm_count_basis, "whitepaper");
    cJSON *j = preset_gpu_to_json(&p.gpu, true);
    char *count = cJSON_PrintUnformatted(cJSON_GetObjectItem(j, "sm_count"));
    assert_string_equal(count, "108");
    free(count);
    assert_string_equal(cJSON_GetObjectItem(j, "sm_count_basis")->valuestring, "whitepaper");
    cJSON_Delete(j);
    assert_true(parse_gpu("\"fp8\": true", &p, &d));
    assert_int_equal(p.gpu.sm_count, 0);
    j = preset_gpu_to_json(&p.gpu, true);
    assert_null(cJSON_GetObjectItem(j, "sm_count"));
    cJSON_Delete(j);
    static const struct {
        const char *fields, *message;
    } bad[] = {
        {"\"sm_count\": 0, \"sm_count_basis\": \"x\"", "g.json:4:1: sm_count: 0 is out of range"},
        {"\"sm_count\": \"many\", \"sm_count_basis\": \"x\"",
         "g.json:4:1: sm_count: expected a positive integer"},
        {"\"sm_count\": 108", "g.json:1:1: sm_count_basis: missing"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct diag e = {0};
        assert_false(parse_gpu(bad[i].fields, &p, &e));
        if (strstr(e.message, bad[i].message) == NULL)
            fail_msg("expected \"%s\" in \"%s\"", bad[i].message, e.message);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gpt_oss_120b_at_the_defaults_does_not_start),
        cmocka_unit_test(gpt_oss_120b_at_095_logs_under_two_gib),
        cmocka_unit_test(fewer_rows_sort_another_way),
        cmocka_unit_test(v0_keeps_its_sampler),
        cmocka_unit_test(triton_releases_do_not_sort),
        cmocka_unit_test(under_eight_rows_even_triton_sorts),
        cmocka_unit_test(the_buffer_has_a_row_per_sm_of_the_gpu),
        cmocka_unit_test(an_unknown_sm_count_assumes_h100),
        cmocka_unit_test(an_sm_count_is_read_checked_and_written),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
