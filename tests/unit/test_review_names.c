/* Names (a session's labels) that look alike are one name (text_same_name),
 * invisible ones are refused (text_check_name), and the words of a built
 * command line are found again whole (shell_word_end, shell_raw). Every
 * string is spelled in bytes, so what each holds can be read here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/shell.h"
#include "core/text.h"

#define NBSP "\xC2\xA0"         /* U+00A0 */
#define IDEO_SPACE "\xE3\x80\x80" /* U+3000 */
#define EN_QUAD "\xE2\x80\x80"   /* U+2000 */
#define ZWSP "\xE2\x80\x8B"      /* U+200B */
#define SHY "\xC2\xAD"           /* U+00AD */
#define ACUTE "\xCC\x81"         /* U+0301, combining */
#define FW_F "\xEF\xBD\x86"      /* U+FF46, full-width f */
#define FW_P "\xEF\xBD\x90"      /* U+FF50 */
#define FW_8 "\xEF\xBC\x98"      /* U+FF18 */
#define FW_B_CAPITAL "\xEF\xBC\xA2" /* U+FF22 */

static void unicode_spaces_are_trimmed_like_ascii_ones(void **state)
{
    (void)state;
    size_t n;
    const char *t = text_trim(NBSP " fp8" IDEO_SPACE EN_QUAD, &n);
    assert_int_equal(n, 3); /* "fp8" */
    assert_memory_equal(t, "fp8", 3);
    t = text_trim(NBSP IDEO_SPACE, &n);
    assert_int_equal(n, 0);
    t = text_trim("a" NBSP "b", &n); /* a space inside stays */
    assert_int_equal(n, 1 + 2 + 1);
    text_trim("\xFF ", &n); /* a stray byte is no space: kept */
    assert_int_equal(n, 1);
}

static void names_that_look_alike_are_one(void **state)
{
    (void)state;
    assert_true(text_same_name("fp8", "fp8" NBSP));
    assert_true(text_same_name("fp8", IDEO_SPACE "FP8"));
    assert_true(text_same_name("fp8", FW_F FW_P FW_8));
    assert_true(text_same_name("b", FW_B_CAPITAL));
    assert_true(text_same_name("fp8 x", "fp8" NBSP "x")); /* every space the same */
    assert_false(text_same_name("fp8", "fp8 x"));
    assert_false(text_same_name("fp8", "fp"));
    assert_false(text_same_name("fp\xC3\xA9", "fpe")); /* é is not e */
    assert_false(text_same_name("\xC3\xA9", "\xC3\x89")); /* only ASCII folds case */
}

static void invisible_characters_and_a_leading_mark_are_refused(void **state)
{
    (void)state;
    unsigned cp = 0;
    assert_int_equal(text_check_name("fp8" ZWSP, 24, &cp), TEXT_INVISIBLE);
    assert_int_equal(cp, 0x200B);
    assert_int_equal(text_check_name(SHY, 24, &cp), TEXT_INVISIBLE);
    assert_int_equal(cp, 0xAD);
    assert_int_equal(text_check_name(ACUTE "x", 24, &cp), TEXT_MARK_FIRST);
    assert_int_equal(cp, 0x301);
    assert_int_equal(text_check_name(NBSP ACUTE "x", 24, &cp), TEXT_MARK_FIRST);
    assert_int_equal(text_check_name("e" ACUTE, 24, &cp), TEXT_OK); /* a mark on a letter */
    assert_int_equal(text_check_name("\x1b", 24, &cp), TEXT_UNSAFE);
    assert_int_equal(text_check_name("abcdefghijklmnopqrstuvwxy", 24, &cp), TEXT_TOO_LONG);
    char why[96];
    text_fault_describe(TEXT_INVISIBLE, 0x200B, 24, why, sizeof why);
    assert_string_equal(why, "contains an invisible character (U+200B)");
    text_fault_describe(TEXT_MARK_FIRST, 0x301, 24, why, sizeof why);
    assert_string_equal(why, "starts with a combining mark (U+0301)");
}

/* The words of "kvplan plan --load 'a b.json' --gpu x": a quoted word with
 * a space is one word, and copied with shell_raw it is written as it was. */
static void the_words_of_a_built_line_are_found_whole(void **state)
{
    (void)state;
    char built[128], copy[128];
    struct shell_line l;
    shell_line_init(&l, built, sizeof built);
    shell_words(&l, "kvplan plan --load");
    shell_word(&l, "a b'c.json");
    shell_words(&l, "--gpu x");
    assert_true(shell_line_done(&l, NULL));
    assert_string_equal(built, "kvplan plan --load 'a b'\\''c.json' --gpu x");
    const char *w = built;
    int words = 0;
    shell_line_init(&l, copy, sizeof copy);
    while (*w) {
        const char *e = shell_word_end(w);
        if (words == 3)
            assert_int_equal(e - w, (long)strlen("'a b'\\''c.json'"));
        shell_raw(&l, w, (size_t)(e - w));
        words++;
        w = *e ? e + 1 : e;
    }
    assert_int_equal(words, 6);
    assert_true(shell_line_done(&l, NULL));
    assert_string_equal(copy, built);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unicode_spaces_are_trimmed_like_ascii_ones),
        cmocka_unit_test(names_that_look_alike_are_one),
        cmocka_unit_test(invisible_characters_and_a_leading_mark_are_refused),
        cmocka_unit_test(the_words_of_a_built_line_are_found_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
