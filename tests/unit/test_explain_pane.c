/* The planner's explain pane, its full-screen view and the speed summary,
 * in-process: every explain row is reachable, [ and ] scroll the pane
 * between its ends, x opens every row and the speed beside the count is
 * the plan's own (the figures its explain rows end with). */
#include <curses.h>

#include "app/planner.h"
#include "app/view.h"
#include "app/view_parts.h"
#include "catalog_fixture.h"

/* 12 H100s as three replicas of TP 4 under vLLM, Llama 3.1 70B at 32k: the
 * scenario whose speed rows came last, below what any screen showed. */
static struct planner *start(double min_tok_s)
{
    static struct planner p;
    struct scenario s = base("h100-sxm", "llama-3.1-70b");
    s.context_tokens = 32768;
    s.gpus = 12;
    s.tp = 4;
    s.engine.kind = ENGINE_VLLM; /* tests may name an engine */
    s.min_tokens_per_s = min_tok_s;
    planner_init(&p, &cat, &s);
    return &p;
}

static const char *key_of(const struct planner *p, int item)
{
    return item == VIEW_EXPLAIN_LAUNCH ? "(launch)" : p->explain.rows[item].key;
}

static void every_explain_row_is_in_the_pane_once_the_answer_first(void **state)
{
    (void)state;
    struct planner *p = start(0);
    int items[EXPLAIN_ROWS_MAX + 1], n = view_explain_items(p, items);
    assert_string_equal(key_of(p, items[0]), "users");
    assert_int_equal(items[1], VIEW_EXPLAIN_LAUNCH); /* an engine's launch line follows it */
    /* every row but the paged ones (no --avg-context: they repeat the others) and
     * the service level's (none set) is there exactly once */
    int want = 0;
    for (int i = 0; i < p->explain.count; i++) {
        const char *k = p->explain.rows[i].key;
        bool shown = strstr(k, "paged") == NULL && strcmp(k, "users_slo") != 0;
        int seen = 0;
        for (int j = 0; j < n; j++)
            seen += items[j] == i;
        assert_int_equal(seen, shown ? 1 : 0);
        want += shown;
    }
    assert_int_equal(n, want + 1);
    /* the speed rows are there: what no screen showed */
    bool decode = false, ttft = false, cost = false;
    for (int j = 0; j < n; j++) {
        decode = decode || strcmp(key_of(p, items[j]), "decode") == 0;
        ttft = ttft || strcmp(key_of(p, items[j]), "ttft") == 0;
        cost = cost || strcmp(key_of(p, items[j]), "cost") == 0;
    }
    assert_true(decode && ttft && cost);
}

static void with_a_service_level_its_users_lead_the_pane_and_the_count(void **state)
{
    (void)state;
    struct planner *p = start(30);
    int items[EXPLAIN_ROWS_MAX + 1];
    view_explain_items(p, items);
    assert_string_equal(key_of(p, items[0]), "users_slo");
    assert_string_equal(key_of(p, items[2]), "users"); /* after the launch line */
    const struct plan_result *r = planner_result(p);
    assert_true(r->speed.users_at_service_level < r->max_users);
    assert_int_equal(view_headline_users(planner_scenario(p), r), r->speed.users_at_service_level);
    /* without one, the count is every user that fits */
    p = start(0);
    assert_int_equal(view_headline_users(planner_scenario(p), planner_result(p)),
                     planner_result(p)->max_users);
}

static void brackets_scroll_the_pane_one_row_between_its_ends(void **state)
{
    (void)state;
    struct planner *p = start(0);
    view_settle(p, 80, 24);
    int items[EXPLAIN_ROWS_MAX + 1], n = view_explain_items(p, items);
    int lines = p->frame.main.explain.h - 1;
    /* the pane's rows less those it shows at once is the last first row */
    assert_int_equal(p->pane.page, lines);
    assert_int_equal(p->pane.max, n - lines);
    assert_true(p->pane.max > 0);
    planner_key(p, '[');
    view_settle(p, 80, 24);
    assert_int_equal(p->pane.scroll, 0); /* already at the top */
    planner_key(p, ']');
    planner_key(p, ']');
    view_settle(p, 80, 24);
    assert_int_equal(p->pane.scroll, 2);
    for (int i = 0; i < n + 5; i++)
        planner_key(p, ']');
    view_settle(p, 80, 24);
    assert_int_equal(p->pane.scroll, p->pane.max);
    planner_key(p, '[');
    assert_int_equal(p->pane.scroll, p->pane.max - 1);
    /* a taller screen shows more rows, and the scroll is kept within them */
    view_settle(p, 160, 48);
    assert_true(p->pane.page > lines);
    assert_true(p->pane.scroll <= p->pane.max);
    assert_int_equal(p->mode, MODE_MAIN); /* the keys only scrolled */
}

static void x_opens_every_row_full_screen_and_goes_back(void **state)
{
    (void)state;
    struct planner *p = start(0);
    view_settle(p, 100, 30);
    planner_key(p, 'x');
    assert_int_equal(p->mode, MODE_EXPLAIN);
    view_settle(p, 100, 30);
    /* two lines a row at least, more than 28 rows fit: it scrolls */
    assert_int_equal(p->xview.page, 28);
    assert_true(p->xview.max > 2 * p->explain.count - 28);
    planner_key(p, KEY_END);
    assert_int_equal(p->xview.scroll, p->xview.max);
    planner_key(p, KEY_NPAGE);
    assert_int_equal(p->xview.scroll, p->xview.max); /* never past the end */
    planner_key(p, KEY_HOME);
    assert_int_equal(p->xview.scroll, 0);
    planner_key(p, KEY_NPAGE);
    assert_int_equal(p->xview.scroll, 27); /* a page less the line that stays */
    planner_key(p, KEY_UP);
    assert_int_equal(p->xview.scroll, 26);
    planner_key(p, 'x');
    assert_int_equal(p->mode, MODE_MAIN);
    /* from the presentation it goes back there */
    planner_key(p, 'p');
    planner_key(p, 'x');
    assert_int_equal(p->mode, MODE_EXPLAIN);
    planner_key(p, 27);
    assert_int_equal(p->mode, MODE_PRESENT);
}

/* The row's value as the pane writes it. */
static void row_value(const struct planner *p, const char *key, char *buf, size_t size)
{
    const struct explain_row *row = explain_find(&p->explain, key);
    assert_non_null(row);
    char formula[EXPLAIN_TEXT_MAX];
    explain_row_strings(row, formula, sizeof formula, buf, size);
}

static void the_speed_beside_the_count_is_what_its_explain_rows_give(void **state)
{
    (void)state;
    for (int target = 0; target < 2; target++) {
        struct planner *p = start(target ? 30 : 0);
        struct view_speed v;
        view_speed_of(planner_result(p), planner_scenario(p)->units, &v);
        assert_true(v.known);
        char want[EXPLAIN_VALUE_MAX];
        row_value(p, "decode", want, sizeof want);
        assert_string_equal(v.per_user, want);
        row_value(p, "speed_total", want, sizeof want);
        assert_string_equal(v.total, want);
        row_value(p, "ttft", want, sizeof want);
        assert_string_equal(v.ttft, want);
        row_value(p, "cost", want, sizeof want);
        assert_string_equal(v.cost, want);
        row_value(p, "cost_output", want, sizeof want); /* a million output tokens */
        assert_string_equal(v.cost_mtok, want);
        /* with 30 tok/s asked for, those kept are at least that fast */
        if (target)
            assert_true(planner_result(p)->speed.tokens_per_s_per_user >= 30);
    }
}

static void the_speed_line_keeps_whole_figures_within_its_width(void **state)
{
    (void)state;
    struct planner *p = start(0);
    struct view_speed v;
    view_speed_of(planner_result(p), planner_scenario(p)->units, &v);
    char items[VIEW_SPEED_ITEMS][48], line[256];
    view_speed_items(&v, items);
    for (int w = 0; w <= 120; w++) {
        view_speed_line(&v, w, line, sizeof line);
        assert_true(view_cols(line) <= w);
        /* a figure is there whole or not at all, the first ones first */
        bool gone = false;
        for (int i = 0; i < VIEW_SPEED_ITEMS; i++) {
            if (!items[i][0])
                continue;
            bool in = strstr(line, items[i]) != NULL;
            assert_false(in && gone);
            gone = gone || !in;
        }
    }
    view_speed_line(&v, 160, line, sizeof line);
    assert_non_null(strstr(line, "tok/s each"));
    assert_non_null(strstr(line, "tok/s in all"));
    assert_non_null(strstr(line, "first token"));
    assert_non_null(strstr(line, "/user-h"));
    assert_non_null(strstr(line, "/M output"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_explain_row_is_in_the_pane_once_the_answer_first),
        cmocka_unit_test(with_a_service_level_its_users_lead_the_pane_and_the_count),
        cmocka_unit_test(brackets_scroll_the_pane_one_row_between_its_ends),
        cmocka_unit_test(x_opens_every_row_full_screen_and_goes_back),
        cmocka_unit_test(the_speed_beside_the_count_is_what_its_explain_rows_give),
        cmocka_unit_test(the_speed_line_keeps_whole_figures_within_its_width),
    };
    return cmocka_run_group_tests_name("explain_pane", tests, setup, teardown);
}
