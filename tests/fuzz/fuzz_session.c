/* libFuzzer target: sessions (a single snapshot reads as a session of one).
 * Whatever loads is planned and rendered in every form io/ and core/ give
 * (text, Markdown, the versus table, JSON, the command line, the headline,
 * the engine's launch and log lines, the warnings): no control byte (C0 but
 * the newline, and the tab in JSON; DEL; C1; the separators and bidi
 * controls of core/text.h) and no byte that is not UTF-8 reaches any of
 * them. Every export of it loads back and writes the same text again. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text.h"

#include "core/text.h"
#include "io/report.h"
#include "io/snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts on an unsafe character or a byte that is not UTF-8. */
static void assert_text(const char *text, size_t len, bool tabs)
{
    const unsigned char *p = (const unsigned char *)text, *end = p + len;
    while (p < end) {
        unsigned cp = 0;
        size_t n = text_utf8_decode(p, &cp);
        if (n == 0 || (text_unsafe_char(cp) && cp != '\n' && !(tabs && cp == '\t'))) {
            fprintf(stderr, "fuzz_session: byte 0x%02x at %zu of:\n%.*s\n", *p,
                    (size_t)(p - (const unsigned char *)text), (int)len, text);
            abort();
        }
        p += n;
    }
}

/* What a report writes, checked as text. */
static void check_report(void (*report)(FILE *, const struct scenario *,
                                        const struct plan_result *, const struct explain *),
                         const struct scenario *s, const struct plan_result *r,
                         const struct explain *x)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        return;
    report(f, s, r, x);
    fclose(f);
    assert_text(buf, len, false);
    free(buf);
}

static void check_versus(const struct snapshot_session *ss, const struct plan_result *const *r)
{
    int shown[4], n = 0;
    for (int i = 0; i < ss->count && n < 4; i++)
        shown[n++] = (ss->current + i) % ss->count;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        return;
    report_markdown_versus(f, ss, r, shown, n);
    fclose(f);
    assert_text(buf, len, false);
    free(buf);
}

/* The one-line forms: the command line, the headline, the launch and log
 * lines, the warnings. */
static void check_lines(const struct scenario *s, const struct plan_result *r)
{
    char line[4096];
    report_command_line(s, line, sizeof line);
    assert_text(line, strlen(line), false);
    report_headline(s, r, line, sizeof line);
    assert_text(line, strlen(line), false);
    report_speed_target(s, line, sizeof line);
    assert_text(line, strlen(line), false);
    assert_text(r->engine.launch, strlen(r->engine.launch), false);
    assert_text(r->engine.note, strlen(r->engine.note), false);
    for (int i = 0; i < r->engine.log_lines; i++)
        assert_text(r->engine.log[i], strlen(r->engine.log[i]), false);
    for (uint32_t bit = 1; bit != 0 && bit <= WARN_LAST; bit <<= 1)
        if (r->warnings & bit) {
            plan_warning_format(r, (enum plan_warning)bit, line, sizeof line);
            assert_text(line, strlen(line), false);
        }
}

/* The session exported (as the planner's e does) loads back, and writes
 * the same text again; so does each scenario as a plain snapshot. */
static void check_exports(const struct snapshot_session *ss, const struct plan_result *const *r,
                          const struct explain *const *x)
{
    struct diag d = {0};
    char *text = snapshot_session_export_text("again.json", ss, r, x, "fuzz", &d);
    if (text == NULL) {
        fprintf(stderr, "fuzz_session: a loaded session does not export: %s\n", d.message);
        abort();
    }
    assert_text(text, strlen(text), true);
    static struct snapshot_session back;
    if (!snapshot_parse_session("again.json", text, strlen(text), &back, &d))
        abort();
    char *twice = snapshot_session_to_json(&back, r, x, "fuzz");
    if (twice == NULL || strcmp(twice, text) != 0)
        abort(); /* the scenarios read back are the ones written: the same plans */
    free(twice);
    free(text);
    for (int i = 0; i < ss->count; i++) {
        char *one = snapshot_to_json(&ss->entry[i].scenario, r[i], x[i], "fuzz");
        struct scenario s;
        if (one && !snapshot_parse("one.json", one, strlen(one), &s, &d))
            abort();
        free(one);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (text == NULL)
        return 0;
    static struct snapshot_session ss;
    static struct plan_result results[SNAPSHOT_SESSION_MAX];
    static struct explain rows[SNAPSHOT_SESSION_MAX];
    const struct plan_result *r[SNAPSHOT_SESSION_MAX];
    const struct explain *x[SNAPSHOT_SESSION_MAX];
    struct diag d = {0};
    if (snapshot_parse_session("fuzz.json", text, size, &ss, &d)) {
        bool planned = true;
        for (int i = 0; i < ss.count && planned; i++) {
            struct diag d2 = {0};
            planned = plan_compute(&ss.entry[i].scenario, &rows[i], NULL, &results[i], &d2);
            r[i] = &results[i];
            x[i] = &rows[i];
        }
        for (int i = 0; i < ss.count && planned; i++) {
            assert_text(ss.entry[i].label, strlen(ss.entry[i].label), false);
            assert_text(ss.entry[i].note, strlen(ss.entry[i].note), false);
            check_report(report_text, &ss.entry[i].scenario, r[i], x[i]);
            check_report(report_markdown, &ss.entry[i].scenario, r[i], x[i]);
            check_lines(&ss.entry[i].scenario, r[i]);
        }
        if (planned) {
            check_versus(&ss, r);
            check_exports(&ss, r, x);
        }
    } else if (d.message[0] == '\0') {
        abort();
    }
    free(text);
    return 0;
}
