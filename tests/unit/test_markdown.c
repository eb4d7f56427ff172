/* Text from input written into Markdown: escaped so it reads as itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "io/markdown.h"

static void expect_text(const char *in, const char *want)
{
    char out[MD_TEXT_SIZE(128)];
    assert_string_equal(md_text(in, out, sizeof out), want);
}

static void expect_code(const char *in, const char *want)
{
    char out[MD_CODE_SIZE(128)];
    assert_string_equal(md_code(in, out, sizeof out), want);
}

static void ordinary_names_are_left_as_they_are(void **state)
{
    (void)state;
    expect_text("Llama 3.1 8B", "Llama 3.1 8B");
    expect_text("NVIDIA H100 SXM5 80GB", "NVIDIA H100 SXM5 80GB");
    expect_text("2 (K,V) x 8 KV heads x 128 head_dim, 8.72 ms; $2.69/h, 28-58%",
                "2 (K,V) x 8 KV heads x 128 head_dim, 8.72 ms; $2.69/h, 28-58%");
    expect_text("fp8 at 128k", "fp8 at 128k");
    expect_text("Ünïcode ✓", "Ünïcode ✓");
}

static void html_is_written_as_entities(void **state)
{
    (void)state;
    expect_text("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;");
    expect_text("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;");
    expect_text("a & b &amp;", "a &amp; b &amp;amp;");
}

static void markup_characters_get_a_backslash(void **state)
{
    (void)state;
    expect_text("a|b", "a\\|b");
    expect_text("[x](javascript:alert(1))", "\\[x\\](javascript:alert(1))");
    expect_text("![i](x)", "\\!\\[i\\](x)");
    expect_text("`code` *em* ~~s~~ C# \\", "\\`code\\` \\*em\\* \\~\\~s\\~\\~ C\\# \\\\");
    /* '_' only where it could open or close emphasis: not inside a word */
    expect_text("_em_ a_b (_c) d_", "\\_em\\_ a_b (\\_c) d\\_");
}

static void nothing_starts_a_block_or_a_row(void **state)
{
    (void)state;
    expect_text("- x", "\\- x");
    expect_text("---", "\\---");
    expect_text("+ x", "\\+ x");
    expect_text("12. x", "12\\. x");
    expect_text("3) x", "3\\) x");
    expect_text("1.5 GiB", "1.5 GiB");
    expect_text("    code", "&#32;&#32;&#32;&#32;code");
    expect_text("# h", "\\# h");
    expect_text("a\nb\r\tc", "a b  c");
    expect_text("a\n| b | c |", "a \\| b \\| c \\|");
}

static void text_is_cut_at_a_whole_escape(void **state)
{
    (void)state;
    char out[8];
    assert_string_equal(md_text("<<<", out, 6), "&lt;");
    assert_string_equal(md_text("a|", out, 3), "a");
    assert_string_equal(md_text("\xc3\xa9\xc3\xa9", out, 4), "\xc3\xa9");
    assert_string_equal(md_text("x", out, 1), "");
}

static void code_spans_are_fenced_past_any_backticks(void **state)
{
    (void)state;
    expect_code("vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192",
                "`vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192`");
    expect_code("a`b", "``a`b``");
    expect_code("a``b`c", "```a``b`c```");
    expect_code("`a", "`` `a ``");
    expect_code("a`", "`` a` ``");
    expect_code(" a ", "`  a  `"); /* CommonMark strips one space each side */
    expect_code(" a", "` a`");
    expect_code("a\nb", "`a b`");
    expect_code("", "");
}

static void a_cut_code_span_keeps_its_fences(void **state)
{
    (void)state;
    char out[16];
    assert_string_equal(md_code("abcdef", out, 6), "`a`");
    assert_string_equal(md_code("ab`cdef", out, 11), "``ab`c``");
    assert_string_equal(md_code("ab", out, 5), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ordinary_names_are_left_as_they_are),
        cmocka_unit_test(html_is_written_as_entities),
        cmocka_unit_test(markup_characters_get_a_backslash),
        cmocka_unit_test(nothing_starts_a_block_or_a_row),
        cmocka_unit_test(text_is_cut_at_a_whole_escape),
        cmocka_unit_test(code_spans_are_fenced_past_any_backticks),
        cmocka_unit_test(a_cut_code_span_keeps_its_fences),
    };
    return cmocka_run_group_tests_name("markdown", tests, NULL, NULL);
}
