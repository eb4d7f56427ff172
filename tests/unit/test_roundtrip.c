/* Sessions through the real exporter and back through the real loader:
 * every export loads back as the session exported (labels, notes, every
 * scenario and its plan), or the exporter refused it and wrote nothing;
 * never "exported" then "does not load". Sessions are generated from the
 * catalogue with labels and notes that are plain, multibyte, at their
 * limits, near duplicates, or hold what no stored text may (controls,
 * separators, bidirectional controls, bytes that are not UTF-8). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <curses.h>

#include "catalog_fixture.h"

#include "app/planner.h"
#include "app/prompts.h"
#include "core/text.h"
#include "io/fileio.h"
#include "io/snapshot.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t pick(uint64_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng % n;
}

/* The first SAFE are text any field may hold; the rest no field may. */
static const char *const pieces[] = {
    "a", "B", "z", "7", " ", "-", "\"", "\\", "|", "\xc3\xa9", "\xc3\x89", "\xe2\x82\xac",
    "\xf0\x9f\x98\x80",
    "\x1b", "\x01", "\t", "\x7f", "\xc2\x9b", "\xc2\x85", "\xe2\x80\xa8", "\xe2\x80\xa9",
    "\xe2\x80\xae", "\xe2\x81\xa6", "\xe2\x80\x8e", "\xd8\x9c", "\xff", "\xc3", "\xed\xa0\x80",
    "\xc0\xaf"};
enum { SAFE = 13, PIECES = sizeof pieces / sizeof pieces[0] };

/* Text of about `want` bytes (at most size - 1); a hostile piece now and
 * then when `hostile`. Returns whether it holds only safe pieces. */
static bool random_text(char *out, size_t size, size_t want, bool hostile)
{
    size_t n = 0;
    bool safe = true;
    out[0] = '\0';
    while (n < want) {
        size_t i = hostile && pick(6) == 0 ? SAFE + pick(PIECES - SAFE) : pick(SAFE);
        size_t len = strlen(pieces[i]);
        if (n + len >= size)
            break;
        memcpy(out + n, pieces[i], len + 1);
        n += len;
        safe = safe && i < SAFE;
    }
    return safe;
}

/* A length near the field's limit half the time. */
static size_t random_length(size_t limit)
{
    return pick(2) ? limit - 2 + pick(4) : 1 + pick(limit);
}

/* A scenario from the catalogue with a few knobs turned; false when the
 * core refuses it (it could not be planned, so never exported). */
static bool random_scenario(struct scenario *s, struct plan_result *r, struct explain *x)
{
    static const uint64_t contexts[] = {1024, 4096, 8192, 32768, 131072};
    static const uint32_t gpus[] = {1, 2, 4, 8};
    static const enum dtype kv[] = {DTYPE_AUTO, DTYPE_FP8, DTYPE_BF16, DTYPE_INT8};
    /* one pick after the other, the model's first (as gcc evaluated the
     * call's arguments): their order is the compiler's, and clang's drew other
     * scenarios than gcc's, fewer of them exportable */
    const struct model_spec *m = &cat.models[pick(cat.model_count)].spec;
    scenario_default(s, &cat.gpus[pick(cat.gpu_count)].spec, m);
    s->context_tokens = contexts[pick(5)];
    s->gpus = gpus[pick(4)];
    s->kv_dtype = kv[pick(4)];
    s->engine.kind = (enum engine_kind)pick(ENGINE_COUNT);
    s->prefix_tokens = pick(3) == 0 ? pick(s->context_tokens) : 0;
    s->headroom_percent = pick(3) == 0 ? (double)pick(50) + 0.25 : s->headroom_percent;
    s->units = pick(2) ? UNITS_GB : UNITS_GIB;
    if (pick(4) == 0) {
        s->has_price = true;
        s->price_usd_per_hour = (double)pick(10000) / 100.0;
    }
    if (pick(4) == 0) {
        s->concurrency = 1 + pick(64);
        s->min_tokens_per_s = pick(2) ? 0.0 : 10.5;
    }
    /* the machine's own memory basis: hostile bytes, or the same made text */
    char raw[SPEC_TEXT_MAX];
    switch (pick(3)) {
    case 0:
        random_text(s->gpu.memory_basis, sizeof s->gpu.memory_basis,
                    random_length(sizeof s->gpu.memory_basis - 1), true);
        break;
    case 1:
        random_text(raw, sizeof raw, 90 + pick(40), true);
        text_sanitize(raw, s->gpu.memory_basis, sizeof s->gpu.memory_basis);
        break;
    default:
        break;
    }
    struct diag d = {0};
    return plan_compute(s, x, NULL, r, &d);
}

static struct snapshot_session ss, back;
static struct plan_result results[SNAPSHOT_SESSION_MAX], again[SNAPSHOT_SESSION_MAX];
static struct explain rows[SNAPSHOT_SESSION_MAX], again_rows[SNAPSHOT_SESSION_MAX];
static const struct explain *explains[SNAPSHOT_SESSION_MAX] = {
    &rows[0], &rows[1], &rows[2], &rows[3], &rows[4], &rows[5]};

/* A session of 1 to 6 scenarios; true when all its text is text a session
 * holds (safe pieces, labels not empty and none the same as another). */
static bool random_session(void)
{
    memset(&ss, 0, sizeof ss);
    ss.count = pick(4) == 0 ? 1 + (int)pick(SNAPSHOT_SESSION_MAX) : 1 + (int)pick(2);
    ss.current = (int)pick((uint64_t)ss.count);
    ss.reference = (int)pick((uint64_t)ss.count + 1) - 1;
    bool clean = true;
    bool hostile = pick(3) == 0;
    for (int i = 0; i < ss.count; i++) {
        struct snapshot_entry *e = &ss.entry[i];
        while (!random_scenario(&e->scenario, &results[i], &rows[i]))
            ;
        clean = clean && text_check(e->scenario.gpu.memory_basis, SPEC_NAME_MAX - 1, &(unsigned){0})
                             == TEXT_OK;
        clean = random_text(e->label, sizeof e->label, random_length(SNAPSHOT_LABEL_BYTES),
                            hostile) && clean;
        if (i > 0 && pick(4) == 0) { /* a near duplicate: another case, a space, é for É */
            char before[SNAPSHOT_LABEL_MAX];
            memcpy(before, ss.entry[i - 1].label, sizeof before);
            snprintf(e->label, sizeof e->label, "%s%s", before, pick(2) ? " " : "\xc3\xa9");
            char *c = e->label;
            if (pick(2) && ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')))
                *c = (char)(*c ^ 0x20);
        }
        if (pick(2))
            clean = random_text(e->note, sizeof e->note, random_length(SNAPSHOT_NOTE_BYTES),
                                hostile) && clean;
        size_t n;
        text_trim(e->label, &n);
        clean = clean && n > 0 && text_check(e->label, SNAPSHOT_LABEL_BYTES, &(unsigned){0}) ==
                                      TEXT_OK;
        for (int j = 0; j < i; j++)
            clean = clean && !snapshot_label_same(ss.entry[j].label, e->label);
    }
    return clean;
}

/* What was exported is what loads: the same text when written again. */
static void assert_loads_back(const char *text)
{
    struct diag d = {0};
    if (!snapshot_parse_session("rt.json", text, strlen(text), &back, &d))
        fail_msg("exported, then refused on load: %s", d.message);
    bool plain = ss.count == 1 && ss.entry[0].note[0] == '\0';
    assert_int_equal(back.count, ss.count);
    assert_int_equal(back.current, plain ? 0 : ss.current);
    assert_int_equal(back.reference, plain ? -1 : ss.reference);
    const struct plan_result *r[SNAPSHOT_SESSION_MAX];
    const struct explain *x[SNAPSHOT_SESSION_MAX];
    for (int i = 0; i < back.count; i++) {
        /* a single scenario without a note is the plain snapshot: named by its file */
        assert_string_equal(back.entry[i].label, plain ? "rt" : ss.entry[i].label);
        assert_string_equal(back.entry[i].note, ss.entry[i].note);
        assert_true(plan_compute(&back.entry[i].scenario, &again_rows[i], NULL, &again[i], &d));
        r[i] = &again[i];
        x[i] = &again_rows[i];
    }
    char *twice = snapshot_session_to_json(&back, r, x, "roundtrip");
    assert_non_null(twice);
    assert_string_equal(twice, text);
    free(twice);
}

static void every_export_loads_back_as_it_was_or_is_refused(void **state)
{
    (void)state;
    int exported = 0, refused = 0;
    for (int k = 0; k < 1000; k++) {
        bool clean = random_session();
        const struct plan_result *r[SNAPSHOT_SESSION_MAX];
        for (int i = 0; i < ss.count; i++)
            r[i] = &results[i];
        struct diag d = {0};
        char *text = snapshot_session_export_text("rt.json", &ss, r, explains, "roundtrip", &d);
        if (text == NULL) {
            /* text a session may hold is never refused */
            if (clean)
                fail_msg("session %d refused: %s", k, d.message);
            assert_non_null(strstr(d.message, "rt.json: not written: "));
            refused++;
            continue;
        }
        assert_loads_back(text);
        free(text);
        exported++;
    }
    /* the generator reaches both sides (which side a session falls on is its
     * text's draw alone; the catalogue's size moves the draws: 290 exported
     * of 1,000 with 73 models) */
    assert_true(exported > 250);
    assert_true(refused > 100);
}

/* A refused export writes nothing: the file there keeps its bytes. */
static void a_refused_export_keeps_the_file_and_an_accepted_one_loads(void **state)
{
    (void)state;
    char dir[] = "/tmp/kvplan-rt.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/s.json", dir);
    struct diag d = {0};
    assert_true(fileio_write_atomic(path, "old\n", 4, &d));
    memset(&ss, 0, sizeof ss);
    ss.count = 2;
    ss.reference = -1;
    for (int i = 0; i < 2; i++) {
        while (!random_scenario(&ss.entry[i].scenario, &results[i], &rows[i]))
            ;
        /* the draw may give the machine's memory basis hostile bytes of its
         * own: clean here, so the only bytes refused are those set below */
        snprintf(ss.entry[i].scenario.gpu.memory_basis, SPEC_NAME_MAX, "ok");
    }
    const struct plan_result *r[2] = {&results[0], &results[1]};
    snprintf(ss.entry[0].label, sizeof ss.entry[0].label, "fp8");
    snprintf(ss.entry[1].label, sizeof ss.entry[1].label, " FP8 ");
    assert_false(snapshot_export_session(path, &ss, r, explains, "roundtrip", &d));
    assert_non_null(strstr(d.message, "scenario 2: label: ' FP8 ' already names scenario 1"));
    size_t len = 0;
    char *kept = fileio_read(path, &len, &d);
    assert_non_null(kept);
    assert_string_equal(kept, "old\n");
    free(kept);
    /* a control character in a spec string is caught by reading it back */
    snprintf(ss.entry[1].label, sizeof ss.entry[1].label, "bf16");
    snprintf(ss.entry[1].scenario.gpu.memory_basis, SPEC_NAME_MAX, "a\x1b[2Jb");
    diag_clear(&d);
    assert_false(snapshot_export_session(path, &ss, r, explains, "roundtrip", &d));
    assert_non_null(strstr(d.message, "would not load back"));
    assert_non_null(strstr(d.message, "memory_basis: contains a control character (U+001B)"));
    snprintf(ss.entry[1].scenario.gpu.memory_basis, SPEC_NAME_MAX, "ok");
    diag_clear(&d);
    assert_true(snapshot_export_session(path, &ss, r, explains, "roundtrip", &d));
    assert_true(snapshot_load_session(path, &back, &d));
    assert_string_equal(back.entry[1].label, "bf16");
    unlink(path);
    rmdir(dir);
}

/* Keys typed into the planner's label and note prompts, hostile bytes and
 * Backspaces among them: whatever the prompt keeps, the session exports and
 * loads back with it. */
static void what_the_prompts_keep_always_exports(void **state)
{
    (void)state;
    static struct planner p;
    struct scenario s;
    struct plan_result r;
    while (!random_scenario(&s, &r, &rows[0]))
        ;
    snprintf(s.gpu.memory_basis, sizeof s.gpu.memory_basis, "test");
    planner_init(&p, &cat, &s);
    for (int k = 0; k < 120; k++) {
        if (k % 20 == 19)
            planner_duplicate(&p);
        bool note = pick(2);
        prompt_open(&p, note ? PROMPT_NOTE : PROMPT_LABEL,
                    note ? p.slots[p.current].note : p.slots[p.current].label);
        char typed[400];
        random_text(typed, sizeof typed, note ? 100 + pick(100) : pick(40), true);
        for (const char *c = typed; *c; c++)
            prompt_type(&p, pick(8) == 0 ? KEY_BACKSPACE : (unsigned char)*c);
        prompt_finish(&p);
        p.error[0] = '\0';
        const struct plan_result *rs[PLANNER_SLOTS];
        const struct explain *xs[PLANNER_SLOTS];
        planner_session(&p, &ss, rs);
        planner_explains(&p, xs, rows);
        struct diag d = {0};
        char *text = snapshot_session_export_text("rt.json", &ss, rs, xs, "roundtrip", &d);
        if (text == NULL)
            fail_msg("the planner kept text it cannot export: %s", d.message);
        free(text);
    }
}

/* A new scenario's name is one no other scenario has, as the loader
 * compares names: after "a " and "B", not "A". */
static void a_new_scenario_takes_a_name_no_other_has(void **state)
{
    (void)state;
    static struct planner p;
    memset(&ss, 0, sizeof ss);
    ss.count = 2;
    ss.reference = -1;
    /* scenarios whose text exports (a hostile memory basis is refused, as
     * every_export_loads_back_as_it_was_or_is_refused checks) */
    for (int i = 0; i < 2; i++)
        while (!random_scenario(&ss.entry[i].scenario, &results[i], &rows[i]) ||
               text_check(ss.entry[i].scenario.gpu.memory_basis, SPEC_NAME_MAX - 1,
                          &(unsigned){0}) != TEXT_OK)
            ;
    snprintf(ss.entry[0].label, sizeof ss.entry[0].label, "a ");
    snprintf(ss.entry[1].label, sizeof ss.entry[1].label, "B");
    planner_init_session(&p, &cat, &ss);
    assert_true(planner_duplicate(&p));
    assert_string_equal(p.slots[2].label, "C");
    const struct plan_result *rs[PLANNER_SLOTS];
    const struct explain *xs[PLANNER_SLOTS];
    planner_session(&p, &ss, rs);
    planner_explains(&p, xs, rows);
    struct diag d = {0};
    char *text = snapshot_session_export_text("rt.json", &ss, rs, xs, "roundtrip", &d);
    if (text == NULL)
        fail_msg("%s", d.message);
    free(text);
}

/* The line editor works in whole characters and stops at its limit. */
static void the_prompt_edits_whole_characters_up_to_its_limit(void **state)
{
    (void)state;
    char buf[32] = "A\xc3\xa9";
    assert_int_equal(prompt_text_key(buf, 8, KEY_BACKSPACE), TEXT_KEY_EDITED);
    assert_string_equal(buf, "A");
    /* é typed as its two bytes; at 8 bytes, a third byte of € (3) does not fit */
    const char typed[] = "\xc3\xa9\xe2\x82\xac";
    for (const char *c = typed; *c; c++)
        assert_int_equal(prompt_text_key(buf, 8, (unsigned char)*c), TEXT_KEY_EDITED);
    assert_string_equal(buf, "A\xc3\xa9\xe2\x82\xac");
    assert_int_equal(prompt_text_key(buf, 8, 0xe2), TEXT_KEY_FULL);
    assert_int_equal(prompt_text_key(buf, 8, 'x'), TEXT_KEY_EDITED);
    assert_int_equal(prompt_text_key(buf, 8, 'y'), TEXT_KEY_EDITED);
    assert_int_equal(prompt_text_key(buf, 8, 'z'), TEXT_KEY_FULL);
    assert_string_equal(buf, "A\xc3\xa9\xe2\x82\xacxy");
    /* U+2028 and C1 controls, typed as bytes, are dropped when they complete */
    char line[16] = "";
    const char sep[] = "\xe2\x80\xa8\xc2\x9b";
    for (const char *c = sep; *c; c++)
        prompt_text_key(line, 15, (unsigned char)*c);
    assert_string_equal(line, "");
    /* a byte that begins nothing is not text */
    assert_int_equal(prompt_text_key(line, 15, 0x80), TEXT_KEY_OTHER);
    assert_int_equal(prompt_text_key(line, 15, 0xff), TEXT_KEY_OTHER);
}

/* What a name from another program becomes: text any field takes. */
static void sanitized_text_always_passes_the_checks(void **state)
{
    (void)state;
    for (int k = 0; k < 5000; k++) {
        char raw[300], out[96];
        random_text(raw, sizeof raw, pick(200), true);
        size_t size = 1 + pick(sizeof out);
        text_sanitize(raw, out, size);
        assert_int_equal(text_check(out, size - 1, &(unsigned){0}), TEXT_OK);
    }
    char out[8];
    /* a multibyte character that does not fit is left out whole */
    assert_true(text_sanitize("abcde\xc3\xa9", out, 7));
    assert_string_equal(out, "abcde");
    assert_true(text_sanitize("a\x1b[1m\xff", out, sizeof out));
    assert_string_equal(out, "a[1m\xef\xbf\xbd");
    assert_false(text_sanitize("ok \xc3\xa9", out, sizeof out));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_export_loads_back_as_it_was_or_is_refused),
        cmocka_unit_test(a_refused_export_keeps_the_file_and_an_accepted_one_loads),
        cmocka_unit_test(what_the_prompts_keep_always_exports),
        cmocka_unit_test(a_new_scenario_takes_a_name_no_other_has),
        cmocka_unit_test(the_prompt_edits_whole_characters_up_to_its_limit),
        cmocka_unit_test(sanitized_text_always_passes_the_checks),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
