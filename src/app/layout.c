#include "layout.h"

#include <string.h>

struct planner_layout layout_compute(int cols, int rows, int n_controls)
{
    struct planner_layout l;
    memset(&l, 0, sizeof l);
    bool roomy = rows >= 30;
    int top = roomy ? 3 : 2;
    int explain_h = rows >= 44 ? 11 : rows >= 36 ? 9 : roomy ? 7 : 5;
    /* the controls come first: the explain pane gives up rows for them, down
     * to its title and three rows; past that the controls scroll */
    int room = rows - 2 - top - (roomy ? 1 : 0) - n_controls;
    if (explain_h > room)
        explain_h = room > LAYOUT_EXPLAIN_MIN ? room : LAYOUT_EXPLAIN_MIN;
    if (cols < LAYOUT_MIN_COLS || rows < LAYOUT_MIN_ROWS) {
        l.too_small = true;
        return l;
    }
    l.title = (struct rect){0, 0, cols, 1};
    l.info = (struct rect){1, 1, cols - 2, 1};
    l.keybar = (struct rect){0, rows - 1, cols, 1};
    l.status = (struct rect){1, rows - 2, cols - 2, 1};
    /* two rows a control when a tall explain pane can spare the one or two
     * rows that takes */
    int short_by = 2 * n_controls - (rows - 2 - explain_h - (roomy ? 1 : 0) - top);
    if (short_by > 0 && short_by <= 2 && explain_h - short_by >= 9)
        explain_h -= short_by;
    l.explain = (struct rect){1, rows - 2 - explain_h, cols - 2, explain_h};

    int bottom = l.explain.y - (roomy ? 1 : 0); /* exclusive */
    int body_h = bottom - top;
    int left_w = cols >= 120 ? 62 : cols * 11 / 20;
    l.control_pitch = body_h >= 2 * n_controls ? 2 : 1;
    l.control_rows = l.control_pitch == 2 ? n_controls : body_h;
    l.controls = (struct rect){1, top, left_w - 2, body_h};
    l.track_x = l.controls.x + LAYOUT_LABEL_W + 1;
    l.track_w = l.controls.w - LAYOUT_LABEL_W - LAYOUT_VALUE_W - 2;

    int rx = left_w + 1, rw = cols - rx - 1;
    l.big_digits = body_h >= 14;
    int summary_h = l.big_digits ? (body_h >= 24 ? 9 : 7) : 3;
    l.summary = (struct rect){rx, top, rw, summary_h};
    int bar_y = top + summary_h + (body_h - summary_h >= 9 ? 1 : 0);
    int bar_h = 7;
    if (bar_y + bar_h > bottom)
        bar_h = bottom - bar_y;
    l.bar = (struct rect){rx, bar_y, rw, bar_h};
    int chart_y = bar_y + bar_h + 1;
    if (bottom - chart_y >= 6)
        l.chart = (struct rect){rx, chart_y, rw, bottom - chart_y};
    else if (chart_y - 1 < bottom) /* no room: one row of it below the bar */
        l.chart = (struct rect){rx, chart_y - 1, rw, 1};
    return l;
}

void layout_take_status(struct planner_layout *l, int rows)
{
    if (l->too_small || rows >= 30 || l->status.h == 0)
        return;
    l->explain.h += l->status.h;
    l->status.h = 0;
}

/* one row of context beside the focus when the list shows three rows or more */
static int control_context(int shown)
{
    return shown >= 3 ? 1 : 0;
}

int layout_control_top(int n, int shown, int focus, int top, bool context)
{
    if (shown <= 0 || n <= shown)
        return 0;
    int ctx = context ? control_context(shown) : 0;
    if (top > focus - ctx)
        top = focus - ctx;
    if (top < focus + ctx - shown + 1)
        top = focus + ctx - shown + 1;
    if (top > n - shown)
        top = n - shown;
    return top < 0 ? 0 : top;
}

int layout_control_focus(int n, int shown, int top, int focus)
{
    if (shown <= 0 || n <= shown)
        return focus;
    int ctx = control_context(shown);
    int lo = top > 0 ? top + ctx : 0;
    int hi = top + shown < n ? top + shown - 1 - ctx : n - 1;
    return focus < lo ? lo : focus > hi ? hi : focus;
}

int layout_scroll_max(int total, int shown)
{
    return shown > 0 && total > shown ? total - shown : 0;
}

int layout_scroll_clamp(int top, int total, int shown)
{
    int max = layout_scroll_max(total, shown);
    return top < 0 ? 0 : top > max ? max : top;
}

struct layout_thumb layout_scroll_thumb(int h, int total, int shown, int top)
{
    int max = layout_scroll_max(total, shown);
    if (h <= 0 || max == 0)
        return (struct layout_thumb){0, h > 0 ? h : 0};
    /* its length the share shown, rounded; its travel the bar's rest */
    int len = (int)(((long long)h * shown + total / 2) / total);
    len = len < 1 ? 1 : len > h - 1 ? (h > 1 ? h - 1 : 1) : len;
    top = layout_scroll_clamp(top, total, shown);
    int y = (int)(((long long)(h - len) * top + max / 2) / max);
    /* a list scrolled at all never shows its thumb at an end it has left */
    if (top > 0 && y == 0 && h - len > 0)
        y = 1;
    if (top < max && y == h - len && y > 0)
        y--;
    return (struct layout_thumb){y, len};
}

int layout_scroll_at(int h, int total, int shown, int y)
{
    int max = layout_scroll_max(total, shown);
    if (h <= 1 || max == 0)
        return 0;
    y = y < 0 ? 0 : y > h - 1 ? h - 1 : y;
    return (int)(((long long)y * max + (h - 1) / 2) / (h - 1));
}

struct explain_view_layout layout_explain_view(int cols, int rows)
{
    struct explain_view_layout v;
    memset(&v, 0, sizeof v);
    if (cols < LAYOUT_EXPLAIN_VIEW_MIN_COLS || rows < LAYOUT_EXPLAIN_VIEW_MIN_ROWS) {
        v.too_small = true;
        return v;
    }
    v.title = (struct rect){0, 0, cols, 1};
    v.body = (struct rect){1, 1, cols - 3, rows - 2};
    v.scrollbar = (struct rect){cols - 1, 1, 1, rows - 2};
    v.keybar = (struct rect){0, rows - 1, cols, 1};
    return v;
}

struct presentation_layout layout_presentation(int cols, int rows)
{
    struct presentation_layout p;
    memset(&p, 0, sizeof p);
    if (cols < LAYOUT_PRESENT_MIN_COLS || rows < LAYOUT_PRESENT_MIN_ROWS) {
        p.too_small = true;
        return p;
    }
    p.title = (struct rect){0, 0, cols, 1};
    /* a shared screen has no key bar; the digits grow with the terminal */
    p.keybar = (struct rect){0, rows, cols, 0};
    p.scale = rows >= 52 && cols >= 160 ? 4 : rows >= 40 && cols >= 120 ? 3
              : rows >= 26 && cols >= 80 ? 2 : 1;
    int number_h = 5 * p.scale;
    int free_rows = rows - 1 - number_h - 8; /* caption, speed x2, bar x2, slider, explain, gaps */
    int speed_h = free_rows >= 0 ? 2 : 1;    /* the costs' line goes first when rows are short */
    free_rows += 2 - speed_h;
    int gap = free_rows >= 6 ? 2 : free_rows >= 3 ? 1 : 0;
    int y = 1 + gap;
    p.number = (struct rect){2, y, cols - 4, number_h};
    y += number_h + 1;
    p.caption = (struct rect){2, y, cols - 4, 1};
    p.speed = (struct rect){2, y + 1, cols - 4, speed_h}; /* the speeds, then the costs */
    y += 1 + speed_h + gap;
    p.bar = (struct rect){1, y, cols - 2, 2};
    y += 2 + gap;
    p.slider = (struct rect){2, y, cols - 4, 1};
    p.track = (struct rect){p.slider.x + LAYOUT_LABEL_W + 1, y,
                            p.slider.w - LAYOUT_LABEL_W - LAYOUT_VALUE_W - 2, 1};
    y += 1 + (gap ? 1 : 0);
    if (y < rows)
        p.explain = (struct rect){2, y, cols - 4, rows - y};
    return p;
}

bool layout_rect_inside(struct rect r, int cols, int rows)
{
    if (r.w == 0 || r.h == 0)
        return true;
    return r.x >= 0 && r.y >= 0 && r.w > 0 && r.h > 0 && r.x + r.w <= cols && r.y + r.h <= rows;
}

bool layout_rects_overlap(struct rect a, struct rect b)
{
    if (a.w <= 0 || a.h <= 0 || b.w <= 0 || b.h <= 0)
        return false;
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

struct rect layout_box(int cols, int rows, int want_w, int want_h, int margin)
{
    int w = cols - 2 * margin < want_w ? cols - 2 * margin : want_w;
    int h = want_h < rows ? want_h : rows;
    return (struct rect){(cols - w) / 2, (rows - h) / 2, w, h};
}

struct rect layout_picker(int cols, int rows)
{
    if (cols < LAYOUT_PICKER_MIN_COLS || rows < LAYOUT_PICKER_MIN_ROWS)
        return (struct rect){0, 0, 0, 0};
    return (struct rect){1, 1, cols - 2, rows - 2};
}

int layout_picker_rows(struct rect box)
{
    return box.h > 3 ? box.h - 3 : 0;
}

int layout_picker_top(struct rect box, int sel)
{
    int rows = layout_picker_rows(box);
    return sel >= rows ? sel - rows + 1 : 0;
}

int layout_picker_row_at(struct rect box, int x, int y)
{
    int i = y - (box.y + 2);
    if (x < box.x + 1 || x >= box.x + box.w - 1 || i < 0 || i >= layout_picker_rows(box))
        return -1;
    return i;
}

struct rect layout_warnings(int cols, int rows, int lines)
{
    return layout_box(cols, rows, cols, lines + 4, 2);
}

struct rect layout_copied(int cols, int rows, int height)
{
    return layout_box(cols, rows, cols, height, 2);
}

struct rect layout_options(int cols, int rows, int options)
{
    return layout_box(cols, rows, 100, options + 5, 2);
}

struct rect layout_help(int cols, int rows, int want_w, int key_rows, int tails)
{
    return layout_box(cols, rows, want_w, key_rows + tails + 3, 1);
}

struct rect layout_compare(int cols, int rows)
{
    if (cols < LAYOUT_COMPARE_MIN_COLS || rows < LAYOUT_COMPARE_MIN_ROWS)
        return (struct rect){0, 0, 0, 0};
    return (struct rect){1, 0, cols - 2, rows - 2};
}

struct rect layout_prompt(int cols, int rows)
{
    return (struct rect){0, rows - 1, cols, 1};
}

bool layout_versus_fits(int cols, int rows)
{
    return cols >= LAYOUT_VERSUS_MIN_COLS && rows >= LAYOUT_VERSUS_MIN_ROWS;
}
