/* The command the planner copies (`y`) must rebuild the scenario on screen:
 * report_command_line, parsed back by the CLI's own option parser, gives the
 * same scenario and the same answer, for every knob a scenario has. */
#include "catalog_fixture.h"

#include "cli/options.h"
#include "io/report.h"

/* Runs the command line through options_parse + options_scenario. */
static void parse_back(const char *line, struct scenario *out)
{
    static char copy[2048];
    snprintf(copy, sizeof copy, "%s", line);
    char *argv[128];
    int argc = 0;
    for (char *t = strtok(copy, " "); t && argc < 127; t = strtok(NULL, " "))
        argv[argc++] = t;
    argv[argc] = NULL;
    /* "kvplan plan ..." -> argv[0] = "plan" as the subcommand sees it */
    assert_string_equal(argv[0], "kvplan");
    assert_string_equal(argv[1], "plan");
    struct options o;
    bool help = false;
    struct diag d = {0};
    if (!options_parse(argc - 1, argv + 1, &o, &help, &d))
        fail_msg("%s: %s", line, d.message);
    if (!options_scenario(&o, &cat, out, &d))
        fail_msg("%s: %s", line, d.message);
}

static void same(const struct scenario *a, const char *line)
{
    struct scenario b;
    parse_back(line, &b);
    assert_string_equal(a->gpu.id, b.gpu.id);
    assert_string_equal(a->model.id, b.model.id);
    assert_int_equal(a->gpus, b.gpus);
    assert_int_equal(a->tp, b.tp);
    assert_int_equal(scenario_pp(a), scenario_pp(&b));
    assert_int_equal(a->context_tokens, b.context_tokens);
    assert_int_equal(a->kv_dtype, b.kv_dtype);
    assert_int_equal(a->weight_dtype, b.weight_dtype);
    assert_int_equal(a->kv_heads, b.kv_heads);
    assert_int_equal(a->prefix_tokens, b.prefix_tokens);
    assert_int_equal(a->avg_context_tokens, b.avg_context_tokens);
    assert_int_equal(a->block_tokens, b.block_tokens);
    assert_true(a->headroom_percent == b.headroom_percent);
    assert_int_equal(a->full_attention, b.full_attention);
    assert_int_equal(a->units, b.units);
    assert_int_equal(a->has_vram, b.has_vram);
    assert_int_equal(a->vram_bytes, b.vram_bytes);
    assert_int_equal(a->has_weights, b.has_weights);
    assert_int_equal(a->weights_bytes, b.weights_bytes);
    assert_int_equal(a->has_price, b.has_price);
    assert_true(a->price_usd_per_hour == b.price_usd_per_hour);
    assert_int_equal(a->dp_attention, b.dp_attention);
    assert_int_equal(a->expert_parallel, b.expert_parallel);
    assert_int_equal(a->allow_long_context, b.allow_long_context);
    assert_int_equal(a->max_loras, b.max_loras);
    assert_int_equal(a->max_lora_rank, b.max_lora_rank);
    assert_int_equal(a->lora_targets, b.lora_targets);
    assert_int_equal(a->images, b.images);
    assert_int_equal(a->image_tokens, b.image_tokens);
    assert_int_equal(a->concurrency, b.concurrency);
    assert_int_equal(a->prompt_tokens, b.prompt_tokens);
    assert_true(a->min_tokens_per_s == b.min_tokens_per_s);
    assert_true(a->max_ttft_seconds == b.max_ttft_seconds);
    assert_true(a->mbu == b.mbu);
    assert_true(a->mfu == b.mfu);
    assert_int_equal(a->host_kv_bytes, b.host_kv_bytes);
    assert_int_equal(a->has_prefix_hit_rate, b.has_prefix_hit_rate);
    assert_true(a->prefix_hit_rate == b.prefix_hit_rate);
    assert_memory_equal(&a->engine, &b.engine, sizeof a->engine);
    assert_int_equal(a->spec_method, b.spec_method);
    assert_string_equal(a->draft.id, b.draft.id);
    assert_int_equal(a->spec_tokens, b.spec_tokens);

    /* and so the same answer */
    static struct plan_result ra, rb;
    struct diag d = {0};
    assert_true(plan_compute(a, PLAN_NUMBERS, NULL, &ra, &d));
    assert_true(plan_compute(&b, PLAN_NUMBERS, NULL, &rb, &d));
    assert_int_equal(ra.max_users, rb.max_users);
    assert_int_equal(ra.speed.users_at_service_level, rb.speed.users_at_service_level);
    assert_true(ra.speed.step_seconds == rb.speed.step_seconds);
    assert_int_equal(ra.host.users, rb.host.users);
    assert_true(ra.host.restore_seconds == rb.host.restore_seconds);
}

static void check(const struct scenario *s)
{
    char line[2048];
    report_command_line(s, line, sizeof line);
    same(s, line);
}

static void the_defaults_round_trip(void **state)
{
    (void)state;
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    check(&s);
}

static void the_service_level_is_part_of_the_command(void **state)
{
    (void)state;
    struct scenario s = base("h100-sxm", "llama-3.1-70b");
    s.gpus = 8;
    s.tp = 4;
    s.kv_dtype = DTYPE_FP8;
    s.weight_dtype = DTYPE_FP8;
    s.concurrency = 24;
    s.prompt_tokens = 4096;
    s.min_tokens_per_s = 30;
    s.max_ttft_seconds = 2;
    s.mbu = 0.6;
    s.mfu = 0.45;
    char line[2048];
    report_command_line(&s, line, sizeof line);
    assert_non_null(strstr(line, " --min-tok-s 30"));
    assert_non_null(strstr(line, " --max-ttft 2"));
    assert_non_null(strstr(line, " --prompt 4k"));
    same(&s, line);
}

static void every_knob_round_trips(void **state)
{
    (void)state;
    struct scenario s = base("a100-80gb", "gemma-3-27b");
    s.gpus = 2;
    s.context_tokens = 10000; /* not a multiple of 1k */
    s.kv_heads = 8;
    s.prefix_tokens = 1500;
    s.avg_context_tokens = 3000;
    s.block_tokens = 32;
    s.headroom_percent = 12.5;
    s.full_attention = true;
    s.units = UNITS_GB;
    s.has_vram = true;
    s.vram_bytes = 70000000000ull;
    s.has_weights = true;
    s.weights_bytes = 50000000000ull;
    s.has_price = true;
    s.price_usd_per_hour = 1.75;
    check(&s);
}

static void the_host_tier_round_trips(void **state)
{
    (void)state;
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    s.context_tokens = 32768;
    s.host_kv_bytes = 256ull << 30;
    s.has_prefix_hit_rate = true;
    s.prefix_hit_rate = 0.85;
    char line[2048];
    report_command_line(&s, line, sizeof line);
    assert_non_null(strstr(line, " --host-kv 256GiB"));
    assert_non_null(strstr(line, " --prefix-hit-rate 0.85"));
    same(&s, line);
    /* a hit rate of 0 is given, not absent */
    s.prefix_hit_rate = 0;
    check(&s);
    s.engine.kind = ENGINE_SGLANG;
    s.gpus = 2;
    s.tp = 2;
    s.has_prefix_hit_rate = false;
    check(&s);
}

static void engine_flags_round_trip(void **state)
{
    (void)state;
    struct scenario s = base("h200", "deepseek-v3");
    s.gpus = 16;
    s.tp = 8;
    s.engine.kind = ENGINE_SGLANG;
    s.engine.mem_fraction_static = 0.85;
    s.engine.max_num_seqs = 64;
    s.engine.chunked_prefill_size = 4096;
    s.dp_attention = true;
    check(&s);

    s = base("h100-sxm", "mixtral-8x7b");
    s.gpus = 8;
    s.tp = 2;
    s.pp = 2;
    s.engine.kind = ENGINE_VLLM;
    s.engine.gpu_memory_utilization = 0.92;
    s.engine.max_num_batched_tokens = 16384;
    s.expert_parallel = true;
    check(&s);

    /* a context past Falcon 7B's 2,048 that vLLM starts with only under
     * VLLM_ALLOW_LONG_MAX_MODEL_LEN=1: the copy keeps --allow-long-context */
    s = base("h100-sxm", "falcon-7b");
    s.engine.kind = ENGINE_VLLM;
    s.context_tokens = 16384;
    s.allow_long_context = true;
    check(&s);

    s = base("rtx-4090", "llama-3.1-8b");
    s.engine.kind = ENGINE_LLAMACPP;
    s.engine.parallel = 4;
    s.engine.fit_target_bytes = 2ull << 30;
    s.kv_dtype = DTYPE_Q8_0;
    s.engine.v_dtype = DTYPE_Q4_0;
    check(&s);

    s = base("h100-sxm", "llama-3.1-8b");
    s.engine.kind = ENGINE_TRTLLM;
    s.engine.free_gpu_memory_fraction = 0.8;
    s.engine.gpu_total_bytes = 85000000000ull;
    s.engine.non_kv_bytes = 20000000000ull;
    s.engine.kv_memory_bytes = 50000000000ull;
    check(&s);
}

/* --draft-model, --speculative-method mtp and --num-speculative-tokens */
static void speculative_decoding_round_trips(void **state)
{
    (void)state;
    struct scenario s = base("h100-sxm", "llama-3.1-70b");
    s.gpus = 4;
    s.spec_method = SPEC_DRAFT;
    s.draft = catalog_find_model(&cat, "llama-3.2-1b")->spec;
    check(&s); /* the default token count */
    s.spec_tokens = 5;
    s.engine.kind = ENGINE_VLLM;
    check(&s);
    s.engine.kind = ENGINE_LLAMACPP;
    s.gpus = 1;
    s.model = catalog_find_model(&cat, "llama-3.1-8b")->spec;
    check(&s);

    s = base("h200", "deepseek-v3");
    s.gpus = 8;
    s.engine.kind = ENGINE_SGLANG;
    s.spec_method = SPEC_MTP;
    check(&s);
    s.spec_tokens = 3;
    check(&s);
}

static void lora_slots_round_trip(void **state)
{
    (void)state;
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    s.engine.kind = ENGINE_VLLM;
    s.max_loras = 4;
    check(&s);
    s.max_lora_rank = 64;
    s.lora_targets = LORA_ATTENTION | (1u << LORA_DOWN);
    check(&s);
    s.engine.kind = ENGINE_SGLANG;
    s.gpus = 2;
    s.tp = 2;
    check(&s);
}

static void images_round_trip(void **state)
{
    (void)state;
    struct scenario s = base("h100-sxm", "gemma-3-27b");
    s.engine.kind = ENGINE_VLLM;
    s.images = 3;
    check(&s);
    s.image_tokens = 300;
    s.prompt_tokens = 4096;
    s.avg_context_tokens = 4096;
    check(&s);
    s = base("h100-sxm", "llama-3.1-8b");
    s.image_tokens = 576; /* one image a request */
    check(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(speculative_decoding_round_trips),
        cmocka_unit_test(the_defaults_round_trip),
        cmocka_unit_test(the_service_level_is_part_of_the_command),
        cmocka_unit_test(every_knob_round_trips),
        cmocka_unit_test(engine_flags_round_trip),
        cmocka_unit_test(the_host_tier_round_trips),
        cmocka_unit_test(lora_slots_round_trip),
        cmocka_unit_test(images_round_trip),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
