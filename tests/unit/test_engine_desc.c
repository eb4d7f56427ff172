/* The engine descriptors (core/engine_desc.h): every row is whole, its
 * words and lists read as the messages print them, and the plan computes
 * an engine's per-token cost once, the descriptor's way. */
#include "engine_fixture.h"

#include "core/engine_desc.h"
#include "core/kvcost.h"

static void every_row_is_its_kind_and_has_a_rule(void **state)
{
    (void)state;
    for (int k = 0; k < ENGINE_COUNT; k++) {
        const struct engine_desc *d = engine_desc((enum engine_kind)k);
        assert_int_equal(d->kind, k);
        assert_non_null(d->name);
        assert_non_null(d->title);
        assert_non_null(d->budget);
        assert_non_null(d->runtime_words);
        assert_non_null(d->reserved_words);
        assert_non_null(d->lora_flag);
        assert_true(d->host.note || d->host.words);
        /* an engine writes its launch line and log; the headroom rule has neither */
        assert_true(d->server == (d->launch != NULL));
        assert_true(d->server == (d->log != NULL));
        assert_true(d->spec_tokens >= 1);
    }
    /* out of range: the generic rule's row, never a stray pointer */
    assert_int_equal(engine_desc((enum engine_kind)ENGINE_COUNT)->kind, ENGINE_GENERIC);
    assert_int_equal(engine_desc((enum engine_kind)-1)->kind, ENGINE_GENERIC);
}

static void every_knob_is_an_option_and_a_row_has_one_knob(void **state)
{
    (void)state;
    for (int k = 0; k < ENGINE_COUNT; k++) {
        const struct engine_desc *d = engine_desc((enum engine_kind)k);
        int fraction = 0, seqs = 0;
        for (int i = 0; i < ENGINE_KNOBS_MAX && d->knobs[i].label; i++) {
            const struct engine_knob *knob = &d->knobs[i];
            const struct engine_option *o = engine_option_at(knob->offset);
            if (o == NULL)
                fail_msg("%s: knob %s is none of kvplan's engine options", d->name, knob->label);
            assert_ptr_equal(engine_knob(d, knob->offset), knob);
            fraction += knob->role == KNOB_FRACTION;
            seqs += knob->role == KNOB_SEQS;
            if (knob->role == KNOB_FRACTION)
                assert_int_equal(o->type, EOPT_FRACTION);
        }
        assert_true(fraction <= 1 && seqs <= 1);
    }
}

/* The messages list an engine's cache types in its own order. */
static void cache_types_read_as_the_list(void **state)
{
    (void)state;
    char buf[96];
    /* no float32 in vLLM's CacheDType (vllm/config/cache.py) nor in SGLang's
     * --kv-cache-dtype choices (srt/server_args.py) */
    engine_cache_types(ENGINE_VLLM, buf, sizeof buf);
    assert_string_equal(buf, "auto, fp16, bf16 or fp8");
    engine_cache_types(ENGINE_SGLANG, buf, sizeof buf);
    assert_string_equal(buf, "auto, fp16, bf16 or fp8");
    engine_cache_types(ENGINE_LLAMACPP, buf, sizeof buf);
    assert_string_equal(buf, "auto, fp16, bf16, fp32, q8_0 or q4_0");
    engine_cache_types(ENGINE_TRTLLM, buf, sizeof buf);
    assert_string_equal(buf, "auto, fp16, bf16, fp32, fp8 or int8");
    engine_cache_types(ENGINE_GENERIC, buf, sizeof buf);
    assert_string_equal(buf, "any");
    /* every type listed is supported, and no other */
    for (int k = 0; k < ENGINE_COUNT; k++)
        for (int t = DTYPE_FP32; t < DTYPE_COUNT; t++) {
            engine_cache_types((enum engine_kind)k, buf, sizeof buf);
            bool named = strstr(buf, dtype_info((enum dtype)t)->name) != NULL;
            assert_true(engine_supports((enum engine_kind)k, (enum dtype)t) ==
                        (named || strcmp(buf, "any") == 0));
        }
}

static void vendors_read_as_the_list(void **state)
{
    (void)state;
    char buf[64];
    engine_vendors_text(ENGINE_TRTLLM, buf, sizeof buf);
    assert_string_equal(buf, "NVIDIA");
    engine_vendors_text(ENGINE_SGLANG, buf, sizeof buf);
    assert_string_equal(buf, "NVIDIA and AMD");
    engine_vendors_text(ENGINE_LLAMACPP, buf, sizeof buf);
    assert_string_equal(buf, "any");
    assert_true(engine_runs_on(ENGINE_VLLM, "AMD"));
    assert_false(engine_runs_on(ENGINE_TRTLLM, "amd"));
    assert_true(engine_runs_on(ENGINE_LLAMACPP, "Apple"));
}

/* What validation tells an engine given another engine's option. */
static void a_foreign_option_names_its_engine(void **state)
{
    (void)state;
    char buf[160];
    const struct engine_option *util =
        engine_option_at(offsetof(struct engine_flags, gpu_memory_utilization));
    const struct engine_option *seqs = engine_option_at(offsetof(struct engine_flags, max_num_seqs));
    engine_refusal(engine_desc(ENGINE_SGLANG), util, buf, sizeof buf);
    assert_string_equal(buf, "is a vLLM option (--engine vllm)");
    /* an engine that counts slots in that row names its own option */
    engine_refusal(engine_desc(ENGINE_LLAMACPP), seqs, buf, sizeof buf);
    assert_string_equal(buf, "llama.cpp counts slots: use --parallel");
    engine_refusal(engine_desc(ENGINE_GENERIC), seqs, buf, sizeof buf);
    assert_string_equal(buf, "is an engine's option (--engine vllm, sglang or trtllm)");
}

static bool keeps_slots(const struct engine_desc *d)
{
    return d->lora_none == NULL;
}

static void engines_are_listed_by_a_trait(void **state)
{
    (void)state;
    char buf[96];
    engine_list(keeps_slots, (struct engine_list){false, " or ", false}, buf, sizeof buf);
    assert_string_equal(buf, "vllm or sglang");
    engine_list(keeps_slots, (struct engine_list){true, " and ", true}, buf, sizeof buf);
    assert_string_equal(buf, "vLLM, SGLang and the generic rule");
}

/* An option's value goes in and out through its offset and type. */
static void options_read_and_write_their_field(void **state)
{
    (void)state;
    struct engine_flags f = {0};
    const struct engine_option *slots = engine_option_at(offsetof(struct engine_flags, parallel));
    const struct engine_option *frac =
        engine_option_at(offsetof(struct engine_flags, mem_fraction_static));
    assert_false(engine_option_given(&f, slots));
    engine_option_set(&f, slots, 12);
    engine_option_set(&f, frac, 0.75);
    assert_int_equal(f.parallel, 12);
    assert_true(f.mem_fraction_static == 0.75);
    assert_true(engine_option_given(&f, slots));
    assert_int_equal(engine_option_uint(&f, slots), 12);
    assert_true(engine_option_value(&f, frac) == 0.75);
    /* llama.cpp src/llama-cparams.h LLAMA_MAX_SEQ */
    assert_int_equal(engine_option_max(offsetof(struct engine_flags, parallel)), 256);
}

/* llama.cpp's cost is the descriptor's cell cost, computed once by the plan:
 * Llama 3 8B at f16, 8 KV heads x 128 dims x 2 B, K and V = 4,096 B a layer
 * and 32 x 4,096 = 131,072 B a token, all GPUs together (layers, not heads,
 * are split: two GPUs do not halve it, the fullest holds 17 of the 32); the
 * budget leaves it as it is. */
static void llamacpp_cost_is_computed_once_the_engines_way(void **state)
{
    (void)state;
    struct scenario s = base(ENGINE_LLAMACPP);
    s.gpus = 2;
    struct plan_result r = run(&s);
    assert_int_equal(r.cost.tp, 1);
    assert_int_equal(r.cost.bytes_per_layer, 4096);
    assert_int_equal(r.cost.bytes_per_token, 131072);
    /* per GPU, the fullest's: 17 of the 32 layers (33 slots with the output
     * layer, split by llama_model::load_tensors over two GPUs) */
    assert_int_equal(plan_kv_token_bytes_per_gpu(&r), 17 * 4096);

    /* kvcost at attention TP 1, then the cell cost: the plan's figures exactly */
    struct kv_cost k;
    assert_true(kvcost_compute(&s, 1, &k));
    engine_desc(ENGINE_LLAMACPP)->cell_cost(&s, &k);
    assert_int_equal(k.bytes_per_layer, r.cost.bytes_per_layer);
    assert_int_equal(k.bytes_per_token, r.cost.bytes_per_token);
    assert_int_equal(k.bytes_per_token_global, r.cost.bytes_per_token_global);

    /* q8_0 K and q4_0 V: 1,024 values x 34/32 B + 1,024 x 18/32 B = 1,088 + 576 */
    s.kv_dtype = DTYPE_Q8_0;
    s.engine.v_dtype = DTYPE_Q4_0;
    r = run(&s);
    assert_int_equal(r.cost.bytes_per_layer, 1088 + 576);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_row_is_its_kind_and_has_a_rule),
        cmocka_unit_test(every_knob_is_an_option_and_a_row_has_one_knob),
        cmocka_unit_test(cache_types_read_as_the_list),
        cmocka_unit_test(vendors_read_as_the_list),
        cmocka_unit_test(a_foreign_option_names_its_engine),
        cmocka_unit_test(engines_are_listed_by_a_trait),
        cmocka_unit_test(options_read_and_write_their_field),
        cmocka_unit_test(llamacpp_cost_is_computed_once_the_engines_way),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
