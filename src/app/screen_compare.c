/* The compare screen: the reference scenario against the current one, row
 * by row, each with its change. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "app/screens.h"
#include "app/view.h"
#include "app/view_parts.h"
#include "io/report.h"

struct side {
    const struct scenario *s;
    const struct plan_result *r;
};

/* A row: label, baseline, now and the change, which every row has:
 * "=" when equal, +x% for numbers, "old -> new" for words. */
/* A cell too narrow for its text ends in a mark: "auto 10" must never pass
 * for "auto 1024". */
static void compare_cell(int y, int x, int w, enum role role, const char *text)
{
    char cut[160];
    widget_text(y, x, w, role, widget_fit(text, w, cut, sizeof cut));
}

static void compare_row(int y, int x, int w, const char *label, const char *before,
                        const char *now, bool number, double b, double n)
{
    if (y < 3)
        return; /* scrolled above the header */
    char change[96];
    bool differ = number ? b != n : strcmp(before, now) != 0;
    if (!differ)
        snprintf(change, sizeof change, "=");
    else if (!number)
        snprintf(change, sizeof change, "%s -> %s", before, now);
    else if (b == 0)
        snprintf(change, sizeof change, "new");
    else
        snprintf(change, sizeof change, "%+.1f%%", 100.0 * (n - b) / b);
    int cw = (w - 22) / 3;
    const char *mark = differ ? (roles_utf8() ? "\u25b6" : ">") : " ";
    widget_text(y, x, 1, ROLE_WARN, mark);
    widget_text(y, x + 2, 20, differ ? ROLE_TITLE : ROLE_TEXT, label);
    compare_cell(y, x + 22, cw - 1, differ ? ROLE_DIM : ROLE_TEXT, before);
    compare_cell(y, x + 22 + cw, cw - 1, differ ? ROLE_TITLE : ROLE_TEXT, now);
    compare_cell(y, x + 22 + 2 * cw, cw, differ ? ROLE_WARN : ROLE_DIM, change);
}

/* Where the next row goes, and how many found no room. */
struct cursor {
    int y, x, w, last, cut;
};

static void put_row(struct cursor *c, const char *label, const char *a, const char *b,
                    bool number, double va, double vb)
{
    if (c->y < c->last)
        compare_row(c->y++, c->x, c->w, label, a, b, number, va, vb);
    else
        c->cut++;
}

/* The title that fits whole, the box and the heading row; returns the row under it. */
static int compare_frame(const struct planner *p, struct rect box)
{
    int w = box.w;
    char title[128];
    /* the longest title that fits whole (view_box cuts the last with a mark) */
    static const char *const hints[] = {" (c or Esc returns, Up/Down scroll)",
                                        " (Esc returns, Up/Down)", " (Esc returns)", ""};
    for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++) {
        snprintf(title, sizeof title, " Compare: %s%s against %s%s ", p->slots[p->reference].label,
                 i < 2 ? " (reference)" : "", p->slots[p->current].label, hints[i]);
        if ((int)strlen(title) <= w - 4)
            break;
    }
    view_box(box.y, box.x, box.h, w, title);
    int x = 3, y = 2, cw = (w - 4 - 22) / 3;
    widget_text(y, x + 22, cw, ROLE_TITLE, p->slots[p->reference].label);
    widget_text(y, x + 22 + cw, cw, ROLE_TITLE, p->slots[p->current].label);
    widget_text(y, x + 22 + 2 * cw, cw, ROLE_TITLE, "CHANGE");
    return y + 1;
}

#define ROW_WORDS(label, ...)                                                                      \
    do {                                                                                           \
        for (int i = 0; i < 2; i++)                                                                \
            snprintf(a[i], sizeof a[i], __VA_ARGS__);                                              \
        put_row(c, label, a[0], a[1], false, 0, 0);                                                \
    } while (0)

/* What each side runs: GPU, layout, model, engine, KV cache, weights, headroom. */
static void setup_rows(const struct side sd[2], struct cursor *c)
{
    char a[2][96];
    /* the names, as the title gives them; the ids where a name does not fit its cell */
    int cell = (c->w - 22) / 3 - 1;
    bool ids = false;
    for (int i = 0; i < 2; i++) {
        snprintf(a[i], sizeof a[i], "%u x %s", sd[i].s->gpus, sd[i].s->gpu.name);
        ids = ids || view_cols(a[i]) > cell;
    }
    ROW_WORDS("GPU", "%u x %s", sd[i].s->gpus, ids ? sd[i].s->gpu.id : sd[i].s->gpu.name);
    char group[2][64];
    for (int i = 0; i < 2; i++)
        plan_layout_title(sd[i].r, group[i], sizeof group[i]);
    ROW_WORDS("Layout", "%s%s", group[i], sd[i].r->dp_attention ? ", DP attn" : "");
    ids = false;
    for (int i = 0; i < 2; i++)
        ids = ids || view_cols(sd[i].s->model.name) > cell;
    ROW_WORDS("Model", "%s", ids ? sd[i].s->model.id : sd[i].s->model.name);
    char engine[2][64];
    for (int i = 0; i < 2; i++)
        engine_version_title(sd[i].r->profile, sd[i].r->rule, engine[i], sizeof engine[i]);
    ROW_WORDS("Engine", "%s", engine[i]);
    ROW_WORDS("KV cache", "%s", dtype_info(sd[i].r->kv_dtype)->name);
    ROW_WORDS("Weights", "%s", plan_weights_label(sd[i].r));
    ROW_WORDS("Headroom", "%g%%", sd[i].s->headroom_percent);
}

#undef ROW_WORDS

/* Speculative decoding, the host tier, LoRA slots and images, when either
 * side has them: each side's control value, "-" where the control has no row. */
static void extra_rows(const struct side sd[2], struct cursor *c)
{
    char a[2][96];
    bool spec = sd[0].s->spec_method != SPEC_NONE || sd[1].s->spec_method != SPEC_NONE;
    bool host = sd[0].s->host_kv_bytes || sd[1].s->host_kv_bytes ||
                sd[0].s->has_prefix_hit_rate || sd[1].s->has_prefix_hit_rate;
    bool lora = sd[0].s->max_loras || sd[1].s->max_loras;
    bool images = scenario_images(sd[0].s) || scenario_images(sd[1].s);
    static const enum control extra[] = {CTRL_DRAFT,    CTRL_SPEC_TOKENS, CTRL_HOST_KV,
                                         CTRL_HIT_RATE, CTRL_LORA,        CTRL_IMAGES};
    for (size_t k = 0; k < sizeof extra / sizeof extra[0]; k++) {
        if (!(k < 2 ? spec : k < 4 ? host : k == 4 ? lora : images))
            continue;
        for (int i = 0; i < 2; i++) {
            if (control_visible(extra[k], sd[i].s))
                control_format(extra[k], sd[i].s, sd[i].r, a[i], sizeof a[i]);
            else
                snprintf(a[i], sizeof a[i], "-");
        }
        put_row(c, control_label(extra[k], sd[1].s), a[0], a[1], false, 0, 0);
    }
}

/* The engines' own knobs, in their words; "-" where a side has none. */
static void knob_rows(const struct side sd[2], struct cursor *c)
{
    if (!engine_desc(sd[0].r->profile)->server && !engine_desc(sd[1].r->profile)->server)
        return;
    char a[2][96];
    for (int knob = CTRL_FRACTION; knob <= CTRL_SEQS; knob++) {
        for (int i = 0; i < 2; i++) {
            if (control_visible((enum control)knob, sd[i].s)) {
                char v[64];
                control_format((enum control)knob, sd[i].s, sd[i].r, v, sizeof v);
                snprintf(a[i], sizeof a[i], "%s", v);
            } else {
                snprintf(a[i], sizeof a[i], "-");
            }
        }
        /* the engine's own word for the knob when both sides share it */
        const char *l0 = control_label((enum control)knob, sd[0].s);
        const char *l1 = control_label((enum control)knob, sd[1].s);
        const char *label = strcmp(l0, l1) == 0 && control_visible((enum control)knob, sd[0].s)
                                ? l0
                            : knob == CTRL_FRACTION ? "Memory fraction"
                                                    : "Concurrency cap";
        put_row(c, label, a[0], a[1], false, 0, 0);
    }
}

/* One row of counts, sizes or tokens of both sides (kind 0 count, 1 bytes, 2 tokens). */
struct number_row {
    const char *label;
    int kind;
    uint64_t v[2];
};

static void put_numbers(const struct side sd[2], enum unit_system u, struct cursor *c,
                        const struct number_row *rows, size_t n)
{
    char a[2][96];
    for (size_t k = 0; k < n; k++) {
        for (int i = 0; i < 2; i++) {
            if (rows[k].kind == 1)
                units_format_bytes(rows[k].v[i], u, a[i], sizeof a[i]);
            else
                units_format_int(rows[k].v[i], a[i], sizeof a[i]);
            if (strcmp(rows[k].label, "KV heads") == 0 && sd[i].r->cost.mla)
                snprintf(a[i], sizeof a[i], "MLA latent"); /* MLA caches one latent, no KV heads */
        }
        put_row(c, rows[k].label, a[0], a[1], true, (double)rows[k].v[0], (double)rows[k].v[1]);
    }
}

/* What each side plans for: the context, its heads, prefix and use, the service level. */
static void input_rows(const struct side sd[2], enum unit_system u, struct cursor *c)
{
    const struct number_row rows[] = {
        {"Context (tokens)", 2, {sd[0].s->context_tokens, sd[1].s->context_tokens}},
        {"KV heads", 0, {sd[0].r->cost.kv_heads, sd[1].r->cost.kv_heads}},
        {"Shared prefix", 2, {sd[0].s->prefix_tokens, sd[1].s->prefix_tokens}},
        {"In use (tokens)", 2, {sd[0].r->avg_context_tokens, sd[1].r->avg_context_tokens}},
    };
    put_numbers(sd, u, c, rows, sizeof rows / sizeof rows[0]);
    char a[2][96];
    for (int i = 0; i < 2; i++)
        report_speed_target(sd[i].s, a[i], sizeof a[i]);
    put_row(c, "Service level", a[0], a[1], false, 0, 0);
}

/* A cost of both sides: of a million output tokens (kind 0), a million
 * input tokens (1) or a user-hour (2); "n/a" where unknown. */
static void cost_row(const struct side sd[2], struct cursor *c, const char *label, int kind)
{
    char a[2][96];
    double v[2];
    for (int i = 0; i < 2; i++) {
        const struct plan_result *r = sd[i].r;
        v[i] = kind == 0 ? r->cost_per_million_output_tokens
               : kind == 1 ? r->cost_per_million_input_tokens
                           : r->cost_per_user_hour;
        explain_format(v[i], XU_USD, sd[i].s->units, a[i], sizeof a[i]); /* n/a below 0 */
    }
    put_row(c, label, a[0], a[1], v[0] >= 0 && v[1] >= 0, v[0], v[1]);
}

/* The answers: the users, those at the service level, their speed, the
 * first token and the costs. */
static void answer_rows(const struct side sd[2], struct cursor *c)
{
    char a[2][96];
    double v[2];
    for (int i = 0; i < 2; i++)
        units_format_int(sd[i].r->max_users, a[i], sizeof a[i]);
    put_row(c, "Users", a[0], a[1], true, (double)sd[0].r->max_users, (double)sd[1].r->max_users);
    for (int i = 0; i < 2; i++) /* what limits them: memory, an engine's cap, a target */
        view_limit_words(sd[i].s, sd[i].r, a[i], sizeof a[i]);
    put_row(c, "Limited by", a[0], a[1], false, 0, 0);
    if (view_has_target(sd[0].s) || view_has_target(sd[1].s)) {
        for (int i = 0; i < 2; i++)
            units_format_int(sd[i].r->speed.users_at_service_level, a[i], sizeof a[i]);
        put_row(c, "At service level", a[0], a[1], true,
                (double)sd[0].r->speed.users_at_service_level,
                (double)sd[1].r->speed.users_at_service_level);
    }
    struct view_speed vs[2];
    for (int i = 0; i < 2; i++)
        view_speed_of(sd[i].r, sd[i].s->units, &vs[i]);
    bool known = vs[0].known && vs[1].known;
#define SPEED_ROW(label, field, value)                                                             \
    do {                                                                                           \
        for (int i = 0; i < 2; i++) {                                                              \
            v[i] = (value);                                                                        \
            snprintf(a[i], sizeof a[i], "%s", vs[i].known ? vs[i].field : "n/a");                  \
        }                                                                                          \
        put_row(c, label, a[0], a[1], known && v[0] > 0 && v[1] > 0, v[0], v[1]);                  \
    } while (0)
    /* a target no count keeps: one user's speed alone, not set against the other's */
    for (int i = 0; i < 2; i++) {
        v[i] = vs[i].alone ? 0 : sd[i].r->speed.tokens_per_s_per_user;
        snprintf(a[i], sizeof a[i], "%s%s", vs[i].known && vs[i].alone ? "alone " : "",
                 vs[i].known ? vs[i].per_user : "n/a");
    }
    put_row(c, "Speed per user", a[0], a[1], known && v[0] > 0 && v[1] > 0, v[0], v[1]);
    /* no count keeping the target serves no throughput (view_speed_of: n/a) */
    SPEED_ROW("Throughput", total,
              sd[i].r->speed.level_missed ? 0 : sd[i].r->speed.tokens_per_s_total);
    SPEED_ROW("First token", ttft, sd[i].r->speed.ttft_seconds);
#undef SPEED_ROW
    /* each figure's measured spread (the explain rows say over which cases) */
    if (known) {
        for (int i = 0; i < 2; i++)
            snprintf(a[i], sizeof a[i], "%s", vs[i].per_user_band[0] ? vs[i].per_user_band : "none");
        put_row(c, "Speed spread", a[0], a[1], false, 0, 0);
        for (int i = 0; i < 2; i++)
            snprintf(a[i], sizeof a[i], "%s", vs[i].ttft_band[0] ? vs[i].ttft_band : "none");
        put_row(c, "TTFT spread", a[0], a[1], false, 0, 0);
    }
    cost_row(sd, c, "Cost per user-hour", 2);
    /* a million output tokens at the throughput, input tokens at the prefill rate */
    cost_row(sd, c, "Cost per M output", 0);
    cost_row(sd, c, "Cost per M input", 1);
}

/* How the users came about: per replica, paged, the sizes, the tokens held,
 * and the host tier's. */
static void detail_rows(const struct side sd[2], enum unit_system u, struct cursor *c)
{
    const struct number_row rows[] = {
        {"Users per replica", 0, {sd[0].r->users_per_replica, sd[1].r->users_per_replica}},
        {"Users, paged", 0, {sd[0].r->max_users_paged, sd[1].r->max_users_paged}},
        {"KV/token per GPU", 1, {plan_kv_token_bytes_per_gpu(sd[0].r),
                                 plan_kv_token_bytes_per_gpu(sd[1].r)}},
        {"KV/user per GPU", 1, {sd[0].r->user_bytes_per_gpu, sd[1].r->user_bytes_per_gpu}},
        {"Weights per GPU", 1, {sd[0].r->weights_bytes_per_gpu, sd[1].r->weights_bytes_per_gpu}},
        {"KV pool per GPU", 1, {sd[0].r->kv_pool_bytes_per_gpu, sd[1].r->kv_pool_bytes_per_gpu}},
        {"Tokens held", 2, {sd[0].r->kv_tokens, sd[1].r->kv_tokens}},
    };
    put_numbers(sd, u, c, rows, sizeof rows / sizeof rows[0]);
    if (sd[0].r->host.present || sd[1].r->host.present) {
        /* the host memory tier, when either side has one */
        const struct number_row host = {
            "Parked in host", 0, {sd[0].r->host.beyond_gpu, sd[1].r->host.beyond_gpu}};
        put_numbers(sd, u, c, &host, 1);
    }
}

static void compare_box(const struct planner *p, struct rect box)
{
    struct cursor c = {compare_frame(p, box), 3, box.w - 4, box.h - 2, 0};
    c.y -= p->compare_scroll; /* Up/Down scroll when the rows outnumber the screen */
    struct side sd[2] = {{&p->slots[p->reference].scenario, &p->slots[p->reference].result},
                         {planner_scenario(p), planner_result(p)}};
    setup_rows(sd, &c);
    extra_rows(sd, &c);
    knob_rows(sd, &c);
    input_rows(sd, planner_scenario(p)->units, &c);
    answer_rows(sd, &c);
    detail_rows(sd, planner_scenario(p)->units, &c);
    if (c.cut > 0) {
        char more[64];
        snprintf(more, sizeof more, "(%d more rows: Down scrolls)", c.cut);
        widget_text(box.h - 2, c.x, c.w, ROLE_DIM, more);
    }
}

static void compare_draw(const struct planner *p, int cols, int rows)
{
    struct rect box = layout_compare(cols, rows);
    if (box.w == 0) { /* too small for it: the main screen, no box */
        view_draw_base(p);
        return;
    }
    compare_box(p, box);
    view_keybar(layout_prompt(cols, rows));
}

static int compare_key(struct planner *p, int key)
{
    if (key == 'q' || key == 'Q')
        return keys_quit(p);
    if (key == KEY_DOWN || key == 'j')
        p->compare_scroll++;
    else if ((key == KEY_UP || key == 'k') && p->compare_scroll > 0)
        p->compare_scroll--;
    else if (key == 'c' || key == 27 || key == '\n' || key == '\r' || key == KEY_ENTER)
        p->mode = p->base;
    return PLAN_REDRAW;
}

const struct screen screen_compare = {.draw = compare_draw, .key = compare_key};
