#include "svg.h"

#include <stdlib.h>
#include <string.h>

#include "core/engine_desc.h"
#include "io/fileio.h"

enum {
    SVG_W = 880,
    MARGIN = 20,
    BAR_H = 28,
    LEGEND_ROW = 18,
    CHART_X = 90,  /* the plot's left edge: room for the users ticks */
    CHART_W = 760,
    CHART_H = 260,
    SEG_MIN_W = 4 /* a segment's least width */
};

/* Each segment's key (data-segment), fill and pattern of lines over it:
 * every pattern different, so that each segment is told apart in greyscale;
 * the weights alone solid. */
static const struct {
    const char *key, *fill, *lines; /* lines: a path in a 8 x 8 tile, or NULL */
} seg_style[SEG_COUNT] = {
    [SEG_WEIGHTS] = {"weights", "#1f4e79", NULL},
    [SEG_RUNTIME] = {"runtime", "#f4b183", "M0,8 L8,0"},
    [SEG_DRAFT] = {"draft", "#b4a7d6", "M0,8 L8,0 M0,0 L8,8"},
    [SEG_STATE] = {"state", "#a9d18e", "M2,2 h1 M6,6 h1"},
    [SEG_LORA] = {"lora", "#ffd966", "M2,0 V8 M6,0 V8"},
    [SEG_ENCODER] = {"encoder", "#9dc3e6", "M0,2 H8 M0,6 H8"},
    [SEG_PREFIX] = {"prefix", "#548235", "M4,0 V8"},
    [SEG_USERS] = {"users", "#4472c4", "M0,4 H8"},
    [SEG_SPARE] = {"spare", "#d9d9d9", "M1,1 h1 M5,5 h1 M1,5 h1 M5,1 h1"},
    [SEG_RESERVED] = {"reserved", "#ffffff", "M0,0 L8,8"}};

/* Each scenario's line: its colour, dashes and mark. */
static const char *const series_colour[SVG_SCENARIOS_MAX] = {"#1f4e79", "#c55a11", "#548235",
                                                            "#7030a0"};
static const char *const series_dash[SVG_SCENARIOS_MAX] = {"none", "8 4", "2 3", "10 3 2 3"};

/* text escaped for XML */
static void put_text(FILE *out, const char *t)
{
    for (; *t; t++)
        switch (*t) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        case '\'':
            fputs("&apos;", out);
            break;
        default:
            fputc(*t, out);
        }
}

static void text_at(FILE *out, double x, double y, const char *attrs, const char *t)
{
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\"%s%s>", x, y, attrs[0] ? " " : "", attrs);
    put_text(out, t);
    fputs("</text>\n", out);
}

static void defs(FILE *out)
{
    fputs("<defs>\n", out);
    for (int i = 0; i < SEG_COUNT; i++) {
        fprintf(out,
                "<pattern id=\"fill-%s\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\">"
                "<rect width=\"8\" height=\"8\" fill=\"%s\"/>",
                seg_style[i].key, seg_style[i].fill);
        if (seg_style[i].lines)
            fprintf(out, "<path d=\"%s\" stroke=\"#000000\" stroke-width=\"1\"/>",
                    seg_style[i].lines);
        fputs("</pattern>\n", out);
    }
    fputs("</defs>\n", out);
}

/* The segments one scenario's legend lists: those that hold bytes, and the
 * weights and the users' KV always. */
static int listed(const uint64_t *seg, int *shown)
{
    int n = 0;
    for (int i = 0; i < SEG_COUNT; i++)
        if (seg[i] != 0 || i == SEG_WEIGHTS || i == SEG_USERS)
            shown[n++] = i;
    return n;
}

/* Each segment's width in a bar bw wide, to scale, except that one that
 * holds anything is at least SEG_MIN_W wide (taken from the widest), so
 * that a draft or a prefix of a few hundred MiB beside tens of GiB shows. */
static void bar_widths(const uint64_t *seg, double whole, double bw, double *width)
{
    int big = 0;
    double owed = 0;
    for (int i = 0; i < SEG_COUNT; i++) {
        width[i] = whole > 0 ? bw * (double)seg[i] / whole : 0;
        big = width[i] > width[big] ? i : big;
    }
    for (int i = 0; i < SEG_COUNT; i++)
        if (seg[i] > 0 && width[i] < SEG_MIN_W && i != big) {
            owed += SEG_MIN_W - width[i];
            width[i] = SEG_MIN_W;
        }
    width[big] = width[big] > owed + SEG_MIN_W ? width[big] - owed : width[big];
}

/* The parts pass the GPU's memory: a rule where the memory ends, the bar
 * past it drawn over in red, and by how much at the title's end. */
static void over_capacity(FILE *out, const struct svg_item *v, double at, double y, double over)
{
    char size[32], t[64];
    fprintf(out,
            "<rect class=\"over-capacity\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
            "fill=\"#c00000\" fill-opacity=\"0.35\"/>\n"
            "<path class=\"capacity\" d=\"M%.2f,%.1f v%d\" stroke=\"#c00000\" "
            "stroke-width=\"3\"/>\n",
            at, y, SVG_W - MARGIN - at, BAR_H, at, y - 4, BAR_H + 8);
    units_format_bytes((uint64_t)over, v->s->units, size, sizeof size);
    snprintf(t, sizeof t, "over capacity by %s", size);
    text_at(out, SVG_W - MARGIN, y - 8,
            "class=\"over-capacity-label\" text-anchor=\"end\" fill=\"#c00000\" "
            "font-weight=\"bold\"",
            t);
}

/* One scenario's bar and its legend from y; returns the y after them. */
static double bar(FILE *out, const struct svg_item *v, double y)
{
    const struct plan_result *r = v->r;
    uint64_t seg[SEG_COUNT];
    plan_segments(r, seg);
    char total[32], head[512];
    units_format_bytes(r->memory_bytes_per_gpu, v->s->units, total, sizeof total);
    snprintf(head, sizeof head, "%s%sMemory of each GPU: %s (%u x %s)", v->label,
             v->label[0] ? ": " : "", total, v->s->gpus, v->s->gpu.name);
    text_at(out, MARGIN, y + 14, "class=\"bar-title\" font-weight=\"bold\"", head);
    y += 22;
    double sum = 0;
    for (int i = 0; i < SEG_COUNT; i++)
        sum += (double)seg[i];
    double whole = sum > (double)r->memory_bytes_per_gpu ? sum : (double)r->memory_bytes_per_gpu;
    double x = MARGIN, bw = SVG_W - 2 * MARGIN;
    int shown[SEG_COUNT], n = listed(seg, shown);
    fprintf(out, "<g class=\"bar\" data-scenario=\"");
    put_text(out, v->label);
    fprintf(out, "\" data-memory-bytes=\"%llu\">\n", (unsigned long long)r->memory_bytes_per_gpu);
    double width[SEG_COUNT];
    bar_widths(seg, whole, bw, width);
    for (int k = 0; k < n; k++) {
        int i = shown[k];
        double w = width[i];
        fprintf(out,
                "<rect class=\"segment\" data-segment=\"%s\" data-bytes=\"%llu\" x=\"%.2f\" "
                "y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"url(#fill-%s)\" "
                "stroke=\"#000000\" stroke-width=\"0.5\"/>\n",
                seg_style[i].key, (unsigned long long)seg[i], x, y, w, BAR_H, seg_style[i].key);
        x += w;
    }
    if (sum > (double)r->memory_bytes_per_gpu)
        over_capacity(out, v, MARGIN + bw * (double)r->memory_bytes_per_gpu / whole, y,
                      sum - (double)r->memory_bytes_per_gpu);
    y += BAR_H + 8;
    for (int k = 0; k < n; k++) {
        int i = shown[k];
        double lx = MARGIN + (k % 2) * (bw / 2), ly = y + (k / 2) * LEGEND_ROW;
        char size[32], line[160];
        units_format_bytes(seg[i], v->s->units, size, sizeof size);
        double of = (double)r->memory_bytes_per_gpu; /* as the text report: of the memory */
        snprintf(line, sizeof line, "%s  %s  (%.1f %%)", plan_segment_name(r, (enum segment)i),
                 size, of > 0 ? 100.0 * (double)seg[i] / of : 0.0);
        fprintf(out,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"url(#fill-%s)\" "
                "stroke=\"#000000\" stroke-width=\"0.5\"/>\n",
                lx, ly, seg_style[i].key);
        char attrs[96];
        snprintf(attrs, sizeof attrs, "class=\"legend\" data-segment=\"%s\"", seg_style[i].key);
        text_at(out, lx + 18, ly + 11, attrs, line);
    }
    fputs("</g>\n", out);
    return y + ((n + 1) / 2) * LEGEND_ROW + 12;
}

static double plot_x(double fx)
{
    return CHART_X + fx * CHART_W;
}

static double plot_y(double top, double fy)
{
    return top + CHART_H - fy * CHART_H;
}

/* The axes, their ticks labelled, and their titles, for curves to peak. */
static void axes(FILE *out, double top, uint64_t peak, double span)
{
    fprintf(out,
            "<g class=\"axes\" stroke=\"#000000\" stroke-width=\"1\" fill=\"none\">"
            "<path d=\"M%d,%.1f V%.1f H%d\"/></g>\n",
            CHART_X, top, top + CHART_H, CHART_X + CHART_W);
    for (int t = 0; t < CURVE_X_TICKS; t++) {
        double x = plot_x((double)t / (CURVE_X_TICKS - 1));
        fprintf(out, "<path d=\"M%.1f,%.1f v5\" stroke=\"#000000\"/>\n", x, top + CHART_H);
        char attrs[64];
        snprintf(attrs, sizeof attrs, "class=\"x-tick\" text-anchor=\"middle\"");
        text_at(out, x, top + CHART_H + 18, attrs, curve_x_label(t));
    }
    int ticks = curve_y_ticks(span);
    double last = -1;
    for (int d = 0; d < ticks; d++) {
        uint64_t users = 1;
        for (int k = 0; k < d; k++)
            users *= 10;
        double y = plot_y(top, curve_y(users, span));
        char label[32], attrs[96];
        curve_y_label(d, label, sizeof label);
        fprintf(out,
                "<path d=\"M%d,%.1f H%d\" stroke=\"#bbbbbb\" stroke-dasharray=\"3 3\"/>"
                "<path d=\"M%d,%.1f h-5\" stroke=\"#000000\"/>\n",
                CHART_X, y, CHART_X + CHART_W, CHART_X, y);
        snprintf(attrs, sizeof attrs, "class=\"y-tick\" data-users=\"%llu\" text-anchor=\"end\"",
                 (unsigned long long)users);
        text_at(out, CHART_X - 8, y + 4, attrs, label);
        last = y;
    }
    double py = plot_y(top, 1);
    if (peak > 1 && last - py >= 14) { /* the peak at the top, clear of the last decade */
        char label[32], attrs[96];
        units_format_int(peak, label, sizeof label);
        fprintf(out, "<path d=\"M%d,%.1f h-5\" stroke=\"#000000\"/>\n", CHART_X, py);
        snprintf(attrs, sizeof attrs, "class=\"y-tick\" data-users=\"%llu\" text-anchor=\"end\"",
                 (unsigned long long)peak);
        text_at(out, CHART_X - 8, py + 4, attrs, label);
    }
    text_at(out, CHART_X + CHART_W / 2.0, top + CHART_H + 38,
            "text-anchor=\"middle\" class=\"axis-title\"",
            "context tokens per user (log scale)");
    fprintf(out,
            "<text class=\"axis-title\" text-anchor=\"middle\" "
            "transform=\"translate(%d,%.1f) rotate(-90)\">users (log scale)</text>\n",
            MARGIN + 2, top + CHART_H / 2.0);
}

/* A scenario's mark k at (x, y). */
static void mark(FILE *out, int k, double x, double y, const char *colour, const char *attrs)
{
    switch (k % SVG_SCENARIOS_MAX) {
    case 0:
        fprintf(out, "<circle %s cx=\"%.1f\" cy=\"%.1f\" r=\"5\"", attrs, x, y);
        break;
    case 1:
        fprintf(out, "<rect %s x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\"", attrs, x - 5,
                y - 5);
        break;
    case 2:
        fprintf(out, "<path %s d=\"M%.1f,%.1f l6,10 h-12 z\"", attrs, x, y - 6);
        break;
    default:
        fprintf(out, "<path %s d=\"M%.1f,%.1f l6,6 l-6,6 l-6,-6 z\"", attrs, x, y - 6);
        break;
    }
    fprintf(out, " fill=\"%s\" stroke=\"#000000\" stroke-width=\"1\"/>\n", colour);
}

/* Where the chart's plot is: its top edge, the decades its users axis
 * spans, and the curve whose contexts a series' points are at. */
struct plot_frame {
    double top, span;
    const struct users_curve *c;
};

/* The points i0 .. i1 (inclusive) of a series that fit, as polylines (a gap
 * where none does); attrs for each. */
static void polylines(FILE *out, const uint64_t *users, struct plot_frame f, int i0, int i1,
                      const char *attrs)
{
    for (int i = i0; i <= i1;) {
        if (users[i] == 0) {
            i++;
            continue;
        }
        fprintf(out, "<polyline%s%s points=\"", attrs[0] ? " " : "", attrs);
        for (bool first = true; i <= i1 && users[i] > 0; i++, first = false)
            fprintf(out, "%s%.1f,%.1f", first ? "" : " ", plot_x(curve_x(f.c->context_tokens[i])),
                    plot_y(f.top, curve_y(users[i], f.span)));
        fputs("\"/>\n", out);
    }
}

/* One series: its runs of points that fit, past the model's longest
 * context faint (what the plan says there, no context the model takes). */
static void series(FILE *out, const struct svg_item *it, const uint64_t *users,
                   struct plot_frame f, int k, const char *what)
{
    const struct users_curve *c = it->c;
    f.c = c;
    fprintf(out, "<g class=\"series\" data-scenario=\"");
    put_text(out, it->label);
    fprintf(out, "\" data-series=\"%s\" data-points=\"", what);
    for (int i = 0; i < CHART_POINTS; i++)
        fprintf(out, "%s%llu:%llu", i ? " " : "", (unsigned long long)c->context_tokens[i],
                (unsigned long long)users[i]);
    fprintf(out, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\" stroke-dasharray=\"%s\">\n",
            series_colour[k], series_dash[k]);
    int last = -1; /* the last point within the model's longest context */
    while (last + 1 < CHART_POINTS && c->context_tokens[last + 1] <= it->s->model.max_context_tokens)
        last++;
    polylines(out, users, f, 0, last, "");
    if (last + 1 < CHART_POINTS)
        polylines(out, users, f, last < 0 ? 0 : last, CHART_POINTS - 1,
                  "class=\"beyond-max\" stroke-opacity=\"0.3\"");
    fputs("</g>\n", out);
}

/* The model's longest context as a rule down the plot, named at its top;
 * one for each longest context the scenarios have, none past the axis. */
static void max_contexts(FILE *out, const struct svg_item *v, int n, double top)
{
    for (int k = 0; k < n; k++) {
        uint64_t m = v[k].s->model.max_context_tokens;
        bool seen = false;
        for (int j = 0; j < k; j++)
            seen = seen || v[j].s->model.max_context_tokens == m;
        double fx = curve_x(m);
        if (seen || fx < 0 || fx >= 1)
            continue;
        char name[48], t[32], attrs[96];
        snprintf(name, sizeof name, "max %s", units_format_tokens_short(m, t, sizeof t));
        fprintf(out,
                "<path class=\"max-context\" data-context=\"%llu\" d=\"M%.1f,%.1f V%.1f\" "
                "stroke=\"#7f7f7f\" stroke-width=\"1.5\" stroke-dasharray=\"6 3\"/>\n",
                (unsigned long long)m, plot_x(fx), top, top + CHART_H);
        snprintf(attrs, sizeof attrs, "class=\"max-context-label\" fill=\"#595959\"%s",
                 fx > 0.85 ? " text-anchor=\"end\"" : "");
        text_at(out, plot_x(fx) + (fx > 0.85 ? -4 : 4), top + 12 + 14 * k, attrs, name);
    }
}

/* The chart of every scenario's curve from y, with its legend; returns the
 * y after it. */
static double chart(FILE *out, const struct svg_item *v, int n, double y)
{
    uint64_t peak = 0;
    for (int k = 0; k < n; k++)
        peak = v[k].c->max_users > peak ? v[k].c->max_users : peak;
    double span = curve_span(peak);
    char title[160], top_users[32];
    units_format_int(peak, top_users, sizeof top_users);
    if (peak > 0)
        snprintf(title, sizeof title,
                 "Users against context tokens (both axes log scale), peak %s", top_users);
    else
        snprintf(title, sizeof title,
                 "Users against context tokens (both axes log scale): no user fits at any "
                 "context");
    text_at(out, MARGIN, y + 14, "class=\"chart-title\" font-weight=\"bold\"", title);
    double top = y + 30;
    axes(out, top, peak, span);
    /* one scenario with a service level: what keeps it beside what fits */
    bool slo = n == 1 && v[0].c->slo;
    max_contexts(out, v, n, top);
    struct plot_frame f = {top, span, NULL};
    for (int k = 0; k < n; k++)
        series(out, &v[k], v[k].c->users, f, k, "fit");
    if (slo)
        series(out, &v[0], v[0].c->users_slo, f, 1, "keep");
    double ly = top + CHART_H + 60;
    for (int k = 0; k < n + (slo ? 1 : 0); k++) {
        const struct svg_item *it = &v[k < n ? k : 0];
        uint64_t users = k < n ? it->r->max_users : it->r->speed.users_at_service_level;
        double fx = curve_x(it->s->context_tokens);
        char attrs[160], ctx[32], u[32], line[256];
        snprintf(attrs, sizeof attrs, "class=\"marker\" data-context=\"%llu\" data-users=\"%llu\"",
                 (unsigned long long)it->s->context_tokens, (unsigned long long)users);
        if (fx >= 0) /* hollow at the foot when none fit */
            mark(out, k, plot_x(fx), plot_y(top, users ? curve_y(users, span) : 0),
                 users ? series_colour[k] : "#ffffff", attrs);
        double lx = MARGIN + (k % 2) * (SVG_W - 2 * MARGIN) / 2.0, row = ly + (k / 2) * 20;
        fprintf(out,
                "<path d=\"M%.1f,%.1f h36\" stroke=\"%s\" stroke-width=\"2.5\" "
                "stroke-dasharray=\"%s\"/>\n",
                lx, row, series_colour[k], series_dash[k]);
        mark(out, k, lx + 18, row, series_colour[k], "class=\"legend-mark\"");
        units_format_tokens_short(it->s->context_tokens, ctx, sizeof ctx);
        units_format_int(users, u, sizeof u);
        snprintf(line, sizeof line, "%s%s%s: %s %s at %s", it->label, it->label[0] ? ", " : "",
                 k < n ? "fit in memory" : "keep the service level", u,
                 users == 1 ? "user" : "users", ctx);
        text_at(out, lx + 44, row + 4, "class=\"series-legend\"", line);
    }
    return ly + ((n + (slo ? 1 : 0) + 1) / 2) * 20 + 10;
}

/* The picture's title: the plan's model, GPUs, layout, engine and context,
 * as the text report's; or the scenarios compared. */
static void svg_title(const struct svg_item *v, int n, char *buf, size_t size)
{
    char ctx[32], split[72], engine[64];
    const struct scenario *s = v[0].s;
    units_format_tokens_short(s->context_tokens, ctx, sizeof ctx);
    const struct engine_desc *e = engine_desc(v[0].r->profile);
    engine_version_title(v[0].r->profile, v[0].r->rule, engine, sizeof engine);
    plan_layout_suffix(v[0].r, split, sizeof split);
    if (n == 1)
        snprintf(buf, size, "%s on %u x %s%s%s%s at %s tokens", s->model.name, s->gpus,
                 s->gpu.name, split, e->server ? ", " : "", e->server ? engine : "", ctx);
    else
        snprintf(buf, size, "%d scenarios against %s", n, v[0].label);
}

enum {
    TITLE_CHARS = 70, /* what a line of the 18 px bold title holds in the width, at most */
    TITLE_LINE = 22   /* the second line below the first */
};

/* Where the title breaks into its second line: at the last space within
 * TITLE_CHARS outside brackets (else any space within, else the first),
 * or 0 when it fits one line. */
static size_t title_break(const char *t)
{
    size_t len = strlen(t), bare = 0, any = 0;
    if (len <= TITLE_CHARS)
        return 0;
    int depth = 0;
    for (size_t i = 1; i < len; i++) {
        depth += t[i] == '(' ? 1 : t[i] == ')' ? -1 : 0;
        if (t[i] == ' ' && (i <= TITLE_CHARS || any == 0))
            any = i;
        if (t[i] == ' ' && depth == 0 && i <= TITLE_CHARS)
            bare = i;
    }
    return bare ? bare : any;
}

/* The title from its baseline y: one line, or two broken at a space, the
 * font made smaller when a line would still pass the width. Returns the
 * lines drawn. */
static int title(FILE *out, const char *t, double y)
{
    size_t at = title_break(t);
    if (at == 0) {
        text_at(out, MARGIN, y, "class=\"title\" font-size=\"18\" font-weight=\"bold\"", t);
        return 1;
    }
    char first[512];
    snprintf(first, sizeof first, "%.*s", (int)at, t);
    size_t longest = at > strlen(t + at + 1) ? at : strlen(t + at + 1);
    double size = longest > TITLE_CHARS ? 18.0 * TITLE_CHARS / (double)longest : 18.0;
    fprintf(out, "<text class=\"title\" font-size=\"%.1f\" font-weight=\"bold\">", size);
    fprintf(out, "<tspan x=\"%d\" y=\"%.1f\">", MARGIN, y);
    put_text(out, first);
    fprintf(out, "</tspan><tspan x=\"%d\" y=\"%.1f\">", MARGIN, y + TITLE_LINE);
    put_text(out, t + at + 1);
    fputs("</tspan></text>\n", out);
    return 2;
}

void svg_write(FILE *out, const struct svg_item *v, int n)
{
    n = n < 1 ? 1 : n > SVG_SCENARIOS_MAX ? SVG_SCENARIOS_MAX : n;
    /* the height: each bar's rows and the chart's */
    double h = 50;
    for (int k = 0; k < n; k++) {
        uint64_t seg[SEG_COUNT];
        int shown[SEG_COUNT];
        plan_segments(v[k].r, seg);
        h += 22 + BAR_H + 8 + ((listed(seg, shown) + 1) / 2) * LEGEND_ROW + 12;
    }
    h += 30 + CHART_H + 60 + ((n + 2) / 2) * 20 + 10;
    char head[512];
    svg_title(v, n, head, sizeof head);
    int lines = title_break(head) ? 2 : 1;
    h += (lines - 1) * TITLE_LINE;
    fprintf(out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
            "viewBox=\"0 0 %d %.0f\" font-family=\"DejaVu Sans, Arial, sans-serif\" "
            "font-size=\"13\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
            SVG_W, h, SVG_W, h);
    defs(out);
    double y = 44 + (title(out, head, 28) - 1) * TITLE_LINE;
    for (int k = 0; k < n; k++)
        y = bar(out, &v[k], y);
    chart(out, v, n, y);
    fputs("</svg>\n", out);
}

bool svg_export(const char *path, const struct svg_item *v, int n, struct diag *d)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return diag_fail(d, "%s: out of memory", path);
    svg_write(f, v, n);
    bool ok = fclose(f) == 0 && fileio_write_atomic(path, text, len, d);
    if (!ok && !d->message[0])
        diag_fail(d, "%s: out of memory", path);
    free(text);
    return ok;
}
