/* view_parts: the pieces the planner's screens share (internal to app/):
 * rows, boxes, the key bar, the memory bar, explain rows, the title. */
#ifndef KVPLAN_APP_VIEW_PARTS_H
#define KVPLAN_APP_VIEW_PARTS_H

#include "app/layout.h"
#include "app/planner.h"
#include "tui/roles.h"
#include "tui/widgets.h"

enum { LABEL_W = LAYOUT_LABEL_W, VALUE_W = LAYOUT_VALUE_W, EXPLAIN_LABEL_W = 19 };

void view_fill_row(int y, int x, int w, enum role role);
void view_box(int y, int x, int h, int w, const char *title);
void view_keybar(struct rect r);
/* One key of a key bar from column x: its name, then what it does; returns
 * where the next one goes, or -1 (nothing drawn) when it would pass end. */
int view_key_item(int y, int x, int end, const char *name, const char *what);
void view_title(const struct planner *p, struct rect r);

/* The memory bar's title in w columns, one wording at every size: "Memory
 * of each GPU: 79.22 GiB CUDA, 4 GPUs alike" and, when llama.cpp placed
 * layers in host memory, "; host 21.97 GiB of 64.00 GiB" (view_host.c);
 * what does not fit left out from the end, an ellipsis in its place. */
void view_memory_title(const struct plan_result *r, const struct scenario *s, int w, char *title,
                       size_t size);

/* The host's row under the GPU's legend, when llama.cpp placed the model:
 * a bar of host memory (the weights there, the cache there, of the host's
 * RAM when known) and its figures. */
void view_host_row(const struct plan_result *r, enum unit_system units, int y, int x, int w);

/* "-ngl 42 of 81, -np 1 slot, no paging" when llama.cpp keeps layers in host
 * memory, else false. */
bool view_host_summary(const struct plan_result *r, char *line, size_t size);

/* The memory of one GPU as bar segments; true when the weights overflow it. */
bool view_bar_segments(const struct planner *p, struct bar_segment bs[SEG_COUNT]);
extern const enum role view_segment_roles[SEG_COUNT];

/* An explain row: label, then the formula wrapped to the pane, then
 * "= value scope"; at most max_rows rows (one row: the formula shortened,
 * never the value). Returns the rows used. */
int view_explain_row(const struct explain_row *row, int y, int x, int w, int max_rows,
                     enum role role);

/* The items of the explain pane in the order it shows them (indexes into
 * p->explain.rows, and VIEW_EXPLAIN_LAUNCH for the engine's launch line
 * after the first): the count the big number shows, then how it was
 * reached, then the speed; returns how many (at most EXPLAIN_ROWS_MAX + 1). */
enum { VIEW_EXPLAIN_LAUNCH = -1 };
int view_explain_items(const struct planner *p, int *items);

/* The explain pane in r: its title with the rows shown of how many, and
 * from p->pane.scroll the rows that fit (p->pane.items, in the order
 * view_settle_explain_pane put them for the frame). */
void view_draw_explain_pane(const struct planner *p, struct rect r);

/* The role of the big count: bad when it does not fit, a warning at 0. */
enum role view_users_role(const struct plan_result *r);

/* "A 29 -> 3 users (-90%)": the reference's count against this one's */
void view_baseline_text(const struct planner *p, char *buf, size_t size);

/* The scenarios' tabs from (x, y) within w columns; returns the width drawn,
 * or with hit_x, the tab under that column (-1 none) without drawing. */
int view_tabs(const struct planner *p, int y, int x, int w, int *hit_x);

/* The width the title keeps for the tabs and "? help" at its right. */
int view_title_tail(const struct planner *p, int w);

/* The cols x rows screen is below min_cols x min_rows: says so, in what
 * fits, and nothing else. */
void view_draw_too_small(int cols, int rows, int min_cols, int min_rows);

/* Screens drawn instead of the main one, or behind a prompt: the
 * presentation (false when the screen is too small for it: it says so)
 * and the versus view. */
bool view_draw_presentation(const struct planner *p);
void view_draw_versus(const struct planner *p, int cols, int rows);

/* The main screen's summary pane: the count and the figures behind it. */
void view_draw_summary(const struct planner *p, const struct planner_layout *l);

/* ---- speed and cost (view_speed.c) ---- */

/* The columns a UTF-8 text takes (every glyph kvplan draws is one column),
 * and the separator between figures on one line (" . " without UTF-8: " | "). */
int view_cols(const char *text);
const char *view_sep(void);

/* A service level is set (--min-tok-s or --max-ttft); the count a screen
 * leads with (the users who keep it then, else all that fit) and its role. */
bool view_has_target(const struct scenario *s);
uint64_t view_headline_users(const struct scenario *s, const struct plan_result *r);
enum role view_headline_role(const struct scenario *s, const struct plan_result *r);

/* The speed and cost of a plan as the explain rows write them: "24.8 tok/s"
 * per user and "965.8 tok/s" in all, "3.34 s" to the first token, "$0.8277"
 * a user-hour ("n/a" when unknown) and a million output tokens; known false when nothing decodes, why
 * then saying why in a few words. */
enum { VIEW_SPEED_ITEMS = 6 };
struct view_speed {
    bool known;
    bool alone;    /* a target no count keeps: the speed is one user's alone, no throughput */
    bool loop;     /* --output-len: the speed is the closed loop's TPOT (core/speed.h) */
    const char *why;
    char per_user[32], total[32], ttft[32], cost[32];
    char cost_mtok[32]; /* a million output tokens; "" when unknown */
    char cost_mtok_in[32]; /* a million prompt tokens at the prefill rate; "" when unknown */
    /* the measured spread of the speed per user and of the first token,
     * "-15%/+20%" or "\u00b118%" ("" without a band: the defaults) */
    char per_user_band[24], ttft_band[24];
    /* the same as the ratios' range, "x0.55-6.3": a narrow screen's form */
    char per_user_compact[24], ttft_compact[24];
    /* the bands tighter, the percent sign once: "-2/+264%" */
    char per_user_tight[24], ttft_tight[24];
    /* the first token to three digits ("239 ms"), for its compact band */
    char ttft_short[24];
    /* narrow forms: the speed a whole number ("27 tok/s"), the throughput
     * one ("1,490 tok/s") and in thousands from 10,000 ("94.6k tok/s") */
    char per_user_whole[32], total_whole[32], total_k[32];
    /* a band that fits beside its figure in no form goes on a line of its
     * own under it (the versus cards, which have the rows), else the
     * figure goes without it (the main screen's column beside the count);
     * the versus cards, too, never one phrase a line where they join */
    bool bands_under;
};
void view_speed_of(const struct plan_result *r, enum unit_system u, struct view_speed *v);

/* Its figures as short phrases, most wanted first: "24.8 tok/s each",
 * "965.8 tok/s in all", "first token 3.34 s", "$0.8277/user-h",
 * "$0.2878/M output" and "$0.0312/M input" (a million output tokens, and
 * prompt tokens at the prefill rate; "" when unknown). */
void view_speed_items(const struct view_speed *v, char items[VIEW_SPEED_ITEMS][48]);

/* Those phrases as lines of at most w columns (a phrase wider than w alone
 * on its line), or why there is no speed; returns the lines. Within `rows`
 * lines: one a line when they fit, else the speeds, the first token and the
 * costs a line each when those fit, else as many a line as fit whole (so
 * too with rows 0), the input price left out first when they do not fit. */
enum { VIEW_SPEED_LINE = 160 };
/* a figure whose band does not fit beside it takes two lines, the band
 * under it (the speed and the first token): two lines more at most */
enum { VIEW_SPEED_LINES = VIEW_SPEED_ITEMS + 2 };
int view_speed_lines(const struct view_speed *v, int w, int rows,
                     char lines[VIEW_SPEED_LINES][VIEW_SPEED_LINE]);

/* The first of those lines: as many phrases as fit whole in w columns (or
 * why there is no speed); returns buf. */
const char *view_speed_line(const struct view_speed *v, int w, char *buf, size_t size);

/* What limits the users, in a word or two: "memory", "max-num-seqs" (the
 * engine's cap), "decode" or "first token" (the service level's target),
 * "no fit". */
void view_limit_words(const struct scenario *s, const struct plan_result *r, char *buf,
                      size_t size);

/* The service level in words: "at 50 tok/s", "with a first token in 2 s",
 * "at 50 tok/s, first token in 2 s" ("" without one); and what limits the
 * users at it: "decode binds", "first token over 2 s". */
void view_target_words(const struct scenario *s, char *buf, size_t size);
void view_binding_words(const struct scenario *s, const struct plan_result *r, char *buf,
                        size_t size);

/* Whether the memory legend lists segment i (of plan_segments' sizes): each
 * that holds bytes, and the weights and the users' KV always. */
bool view_legend_shown(const uint64_t seg[SEG_COUNT], int i);

/* The legend of every segment it lists, flowing along the rows of at in the
 * first form that fits (the names and sizes whole, then shortened, then
 * closer together); returns the rows it takes. */
int view_legend_flow(const struct planner *p, struct rect at);

/* Users against context: the curve, its axis and the current point (and
 * the speed limit's series when a target is set). */
void view_draw_chart(const struct planner *p, struct rect r);

/* The context under (x, y) in the main screen's chart, as drawn in the last
 * frame: 1k at the plot's first column .. 1M at its last; 0 outside it
 * (with drag, any row, and the nearest end past the plot's sides). */
uint64_t view_chart_context_at(const struct planner *p, int x, int y, bool drag);

/* The chart's frame in r for curves up to peak users: the users ticks (1,
 * 10, 100 ... and the peak at the top) labelled at the left of an axis rule,
 * the context ticks on r's last row; returns the rectangle left for the
 * curves, and the users axis's span (curve_span). */
struct rect view_chart_axes(struct rect r, uint64_t peak, double *span);

/* A curve's counts as heights on that users axis (-1 where none fit). */
void view_chart_heights(const uint64_t *users, double span, double out[CHART_POINTS]);

/* A curve's heights y cut at the model's longest context max: -1 (nothing
 * drawn) at every context past it. */
void view_chart_within(const struct users_curve *c, uint64_t max, double y[CHART_POINTS]);

/* The model's longest context as a dotted rule down the plot, named at its
 * top ("max 128k"); none when the axis ends first. */
void view_chart_max_context(struct rect plot, uint64_t max_context);

/* The plot past that rule named "not available" (or "n/a") on its middle
 * row, where the curve does not go: in colour and in monochrome alike. */
void view_chart_beyond(struct rect plot, uint64_t max_context);

/* The chart in one row of r: the users at the context ticks and at the
 * current context (marked), as many as fit, and the rows the chart needs. */
void view_chart_line(const struct planner *p, struct rect r);

/* Where a context is against the axis: 0 on it, -1 short of its start,
 * 1 past its end. */
int view_chart_off_scale(uint64_t ctx);

/* The count at the current context as glyph on its curve (a cross at the
 * foot when none fit); off the axis, an arrow at its end pointing past it.
 * Returns its column. */
int view_chart_mark(struct rect plot, uint64_t ctx, uint64_t users, double span,
                    const char *glyph, enum role role);

#endif
