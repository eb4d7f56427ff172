/* sweep: one scenario with up to three inputs varied, as a table, CSV, Markdown or JSON. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/options_table.h"
#include "cli/simulate.h"
#include "cli/sweep.h"
#include "cli/sweep_axis.h"
#include "core/engine_desc.h"
#include "core/plan.h"
#include "core/version.h"
#include "io/jsonout.h"
#include "io/markdown.h"
#include "io/outbuf.h"
#include "io/report.h"


/* The rows a sweep may plan unless --max-rows says more: about half a
 * second of work and a table nobody reads to the end; every GPU count to
 * 65,536 of every GPU and model is some 145 million. */
enum { SWEEP_MAX_ROWS = 100000 };
/* A simulated row is a run of its own (milliseconds): a thousand, a few
 * seconds at most. */
enum { SWEEP_SIM_MAX_ROWS = 1000 };

/* Prints one row of the JSON array (freed here), indented as an element,
 * after a comma unless it is the first; false on out of memory. */
bool sweep_print_json_row(struct outbuf *ob, cJSON *item, size_t index)
{
    char *text = item ? cJSON_Print(item) : NULL;
    cJSON_Delete(item);
    if (text == NULL)
        return false;
    outbuf_str(ob, index ? ",\n\t" : "\n\t");
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
        outbuf_mem(ob, p, n);
        if (nl)
            outbuf_mem(ob, "\t", 1);
        p += n;
    }
    free(text);
    return true;
}

/* The columns; users_at_service_level only when a target is given. */
int sweep_row_cells(const struct scenario *s, const struct plan_result *r, const char *value,
                     struct cell c[CELLS_MAX])
{
    const struct speed_result *sp = &r->speed;
    bool target = s->min_tokens_per_s > 0 || s->max_ttft_seconds > 0;
    int n = 0;
#define CELL(nm, k, ...) (c[n] = (struct cell){.name = nm, .kind = k, __VA_ARGS__}, n++)
    CELL("value", CELL_STR, .str = value);
    CELL("gpu", CELL_STR, .str = s->gpu.id);
    CELL("model", CELL_STR, .str = s->model.id);
    CELL("gpus", CELL_UINT, .uint = s->gpus);
    CELL("context_tokens", CELL_UINT, .uint = s->context_tokens);
    CELL("kv_dtype", CELL_STR, .str = dtype_info(r->kv_dtype)->name);
    CELL("fits", CELL_BOOL, .present = r->fits);
    CELL("max_users", CELL_UINT, .uint = r->max_users);
    CELL("max_users_paged", CELL_UINT, .uint = r->max_users_paged);
    CELL("kv_bytes_per_token_per_gpu", CELL_UINT, .uint = r->cost.bytes_per_token);
    CELL("user_bytes_per_gpu", CELL_UINT, .uint = r->user_bytes_per_gpu);
    CELL("kv_pool_bytes", CELL_UINT, .uint = r->kv_pool_bytes);
    CELL("kv_tokens", CELL_UINT, .uint = r->kv_tokens);
    CELL("concurrency", CELL_UINT, .uint = sp->concurrency);
    /* false: more users decoding at once than memory holds (--concurrency) */
    CELL("concurrency_fits", CELL_BOOL,
         .present = !(r->warnings & WARN_CONCURRENCY_BEYOND_FIT) && r->fits);
    /* no speed and no first token for a row where no user fits */
    bool some = r->max_users > 0;
    CELL("tokens_per_s_per_user", CELL_NUM, .num = sp->tokens_per_s_per_user,
         .present = some && sp->step_seconds > 0);
    /* none served at a service level no count keeps (plan's JSON: null) */
    CELL("tokens_per_s_total", CELL_NUM, .num = sp->tokens_per_s_total,
         .present = some && sp->step_seconds > 0 && !sp->level_missed);
    CELL("ttft_seconds", CELL_NUM, .num = sp->ttft_seconds,
         .present = some && sp->ttft_seconds > 0);
    if (target)
        CELL("users_at_service_level", CELL_UINT, .uint = sp->users_at_service_level);
    /* the engine's release, as plan's JSON names it (null: the generic rule), last:
     * the columns before keep their places */
    static char title[64]; /* one engine a sweep: the same text every row */
    const char *release = engine_release(s->engine.kind, s->engine.rule);
    CELL("engine_version", CELL_STR, .str = release[0] ? release : NULL);
    engine_version_title(s->engine.kind, s->engine.rule, title, sizeof title);
    CELL("engine_title", CELL_STR, .str = release[0] ? title : NULL);
#undef CELL
    return n;
}

int sweep_cost_cells(double usd_per_hour, double output_cost, double input_cost, struct cell *c,
                     int n)
{
    c[n++] = (struct cell){.name = "price_usd_per_hour", .kind = CELL_NUM, .num = usd_per_hour,
                           .present = usd_per_hour >= 0};
    c[n++] = (struct cell){.name = "cost_per_million_output_tokens", .kind = CELL_NUM,
                           .num = output_cost, .present = output_cost >= 0};
    c[n++] = (struct cell){.name = "cost_per_million_input_tokens", .kind = CELL_NUM,
                           .num = input_cost, .present = input_cost >= 0};
    return n;
}

/* A plan row's columns: the plan's, then its costs at its own throughput
 * (none where no user fits), then, after the columns of before so that they
 * keep their places, the cost per user-hour and each speed figure's band,
 * named as plan's JSON names them (null where plan's is). */
static int plan_row_cells(const struct scenario *s, const struct plan_result *r, const char *value,
                          struct cell c[CELLS_MAX])
{
    bool some = r->max_users > 0;
    int n = sweep_cost_cells(r->price_usd_per_hour, some ? r->cost_per_million_output_tokens : -1,
                             some ? r->cost_per_million_input_tokens : -1, c,
                             sweep_row_cells(s, r, value, c));
    const struct speed_bands *b = &r->bands;
    bool dec = some && b->tokens_per_s_per_user_low > 0, ttft = some && b->ttft_seconds_low > 0;
#define NUM(nm, v, p) (c[n] = (struct cell){.name = nm, .kind = CELL_NUM, .num = v, .present = p}, n++)
    NUM("cost_per_user_hour", r->cost_per_user_hour, some && r->cost_per_user_hour >= 0);
    NUM("tokens_per_s_per_user_low", b->tokens_per_s_per_user_low, dec);
    NUM("tokens_per_s_per_user_high", b->tokens_per_s_per_user_high, dec);
    NUM("ttft_seconds_low", b->ttft_seconds_low, ttft);
    NUM("ttft_seconds_high", b->ttft_seconds_high, ttft);
#undef NUM
    return n;
}

/* The longest text of a cell: a row's value escaped for Markdown. */
enum { CELL_TEXT_MAX = MD_TEXT_SIZE(SWEEP_VALUE_MAX) - 1 };

static char *put_text(char *p, const char *text, size_t max)
{
    size_t n = strnlen(text, max);
    memcpy(p, text, n);
    return p + n;
}

/* n bytes of a literal */
#define PUT_LITERAL(p, s) (memcpy((p), (s), sizeof(s) - 1), (p) + sizeof(s) - 1)

/* A CSV or Markdown row, written straight into ob's buffer (n at most
 * CELLS_MAX). */
void sweep_print_cells(struct outbuf *ob, const struct cell *c, int n, enum sweep_format format)
{
    bool md = format == SWEEP_MARKDOWN;
    char *p = outbuf_room(ob, (size_t)n * (CELL_TEXT_MAX + 3) + 4);
    if (md)
        p = PUT_LITERAL(p, "| ");
    for (int i = 0; i < n; i++) {
        switch (c[i].kind) {
        case CELL_STR:
            if (c[i].str == NULL) { /* none: empty in CSV, as a missing figure */
                if (md)
                    p = PUT_LITERAL(p, "n/a");
            } else if (md) {
                char text[CELL_TEXT_MAX + 1]; /* an id or a value from the command line */
                p = put_text(p, md_text(c[i].str, text, sizeof text), CELL_TEXT_MAX);
            } else {
                p = put_text(p, c[i].str, CELL_TEXT_MAX);
            }
            break;
        case CELL_UINT:
            if (!c[i].none)
                p = outbuf_put_uint(p, c[i].uint);
            break;
        case CELL_BOOL:
            p = c[i].present ? PUT_LITERAL(p, "true") : PUT_LITERAL(p, "false");
            break;
        case CELL_NUM:
            if (c[i].present)
                p = outbuf_put_g6(p, c[i].num);
            else if (md)
                p = PUT_LITERAL(p, "n/a");
            break;
        }
        if (md)
            p = PUT_LITERAL(p, " | ");
        else
            *p++ = ',';
    }
    if (n > 0) /* the last cell's separator becomes the row's end */
        p -= md ? 3 : 1;
    p = md ? PUT_LITERAL(p, " |\n") : PUT_LITERAL(p, "\n");
    outbuf_commit(ob, p);
}

cJSON *sweep_json_cells(const struct cell *c, int n)
{
    struct jsonout jo = jsonout_begin();
    for (int i = 0; i < n; i++) {
        switch (c[i].kind) {
        case CELL_STR:
            if (c[i].str)
                jsonout_string(&jo, c[i].name, c[i].str);
            else
                jsonout_null(&jo, c[i].name);
            break;
        case CELL_UINT:
            if (c[i].none)
                jsonout_null(&jo, c[i].name);
            else
                jsonout_uint(&jo, c[i].name, c[i].uint);
            break;
        case CELL_BOOL:
            jsonout_bool(&jo, c[i].name, c[i].present);
            break;
        case CELL_NUM:
            jsonout_double_or_null(&jo, c[i].name, c[i].num, c[i].present);
            break;
        }
    }
    return jsonout_end(&jo);
}


/* The axes of --vary, each once. */
static bool sweep_axes(const struct options *o, struct sweep *w, struct diag *d)
{
    w->nvary = o->vary_count;
    for (int i = 0; i < w->nvary; i++) {
        if (!sweep_axis_parse(o->varies[i], &w->cat, &w->axes[i], d))
            return false;
        for (int j = 0; j < i; j++)
            if (w->axes[j].kind == w->axes[i].kind)
                return diag_fail(d, "%s: '%s' and '%s' vary the same axis: give each axis once",
                                 OPTION_FLAG(OPT_VARY), o->varies[j], o->varies[i]);
        w->models = w->models || w->axes[i].kind == AXIS_MODEL;
        w->each_gpu = w->each_gpu || w->axes[i].kind == AXIS_GPU;
    }
    return true;
}

/* The catalogue, the axes and the base scenario; the caller frees w->cat. */
static bool sweep_setup(const struct options *o, struct sweep *w, struct diag *d)
{
    catalog_init(&w->cat);
    w->format = o->sweep_format;
    if (!options_load_catalog(o, &w->cat, d) || !sweep_axes(o, w, d))
        return false;
    if (!options_scenario(o, &w->cat, &w->base, d)) {
        /* options some models lack (MTP, images): the base is the first model
         * they fit, and the rows of the others say why they are left out */
        bool found = false;
        for (size_t i = 0; w->models && !o->model_id && !found && i < w->cat.model_count; i++) {
            struct options om = *o;
            struct diag ignore = {0};
            om.model_id = w->cat.models[i].spec.id;
            found = options_scenario(&om, &w->cat, &w->base, &ignore);
        }
        if (!found)
            return false;
    }
    for (int i = 0; i < w->nvary; i++)
        if (w->axes[i].kind == AXIS_KV_DTYPE)
            sweep_axis_kv(&w->axes[i], w->base.engine.kind);
    w->target = w->base.min_tokens_per_s > 0 || w->base.max_ttft_seconds > 0;
    if (!sweep_sim_setup(o, w, d))
        return false;
    uint64_t max_rows = o->given[OPT_MAX_ROWS] ? o->max_rows
                        : w->sim                ? SWEEP_SIM_MAX_ROWS
                                                : SWEEP_MAX_ROWS;
    if (!sweep_rows_allowed(w->axes, w->nvary, max_rows, d))
        return false;
    for (int i = 0; i < w->nvary; i++)
        if (!sweep_axis_tables(&w->axes[i]))
            return diag_fail(d, "out of memory");
    return true;
}

/* The CSV or Markdown header (the columns of a row of the base scenario),
 * or the table's title and column heads. */
void sweep_print_names(const struct cell *c, int ncols, enum sweep_format format)
{
    bool csv = format == SWEEP_CSV;
    if (!csv)
        fputs("|", stdout);
    for (int i = 0; i < ncols; i++)
        printf(csv ? "%s%s" : " %s |%s", c[i].name, csv ? (i + 1 < ncols ? "," : "\n") : "");
    if (!csv) {
        printf("\n");
        for (int i = 0; i < ncols; i++)
            printf("|---");
        printf("|\n");
    }
}

static void print_head(const struct sweep *w)
{
    const struct scenario *base = &w->base;
    if (w->format == SWEEP_CSV || w->format == SWEEP_MARKDOWN) {
        const struct plan_result r0 = {0}; /* zero: only the names are read */
        struct cell c[CELLS_MAX];
        sweep_print_names(c, plan_row_cells(base, &r0, "", c), w->format);
        return;
    }
    if (w->format != SWEEP_TABLE)
        return;
    /* the table reads as a person would: the varied value, the layout, sizes
     * with units, per GPU where they are per GPU (CSV and JSON keep bytes) */
    /* llama.cpp splits layers, never heads: a token's KV is the whole model's
     * (r->cost.bytes_per_token at TP 1), spread over the GPUs by layer */
    char engine[64];
    printf("%s on %s, %s; %s\n", w->models ? "each model" : base->model.name,
           w->each_gpu ? "each GPU" : base->gpu.name, /* names for people, as plan's title */
           engine_version_title(base->engine.kind, base->engine.rule, engine, sizeof engine),
           engine_desc(base->engine.kind)->splits_layers
               ? "KV/TOKEN is for all GPUs (llama.cpp splits layers across them); KV/USER "
                 "and POOL are per GPU"
               : "KV/TOKEN, KV/USER and POOL are per GPU");
    printf("%-24s %9s %8s %6s %9s %9s %12s %11s %11s %13s %11s %11s %9s %9s %9s %9s %13s %15s",
           "VALUE", "GPUS", "CONTEXT", "KV", "USERS", "PAGED", "KV/TOKEN", "KV/USER", "POOL",
           "TOKENS", "TOK/S/USER", "TOK/S TOTAL", "TTFT", "$/1M OUT", "$/1M IN", "$/USER-H",
           "TOK/S BAND", "TTFT BAND");
    printf(w->target ? " %9s\n" : "\n", "AT LEVEL");
}

/* One row of the table, with units; true when it decodes more users at once
 * than fit (its speeds are starred). */
/* What a table row marks, for the notes under the table. */
enum { ROW_OVER = 1u, ROW_UNEVEN = 2u };

static unsigned print_table_row(const struct sweep *w, const struct scenario *s,
                                const struct plan_result *r, const char *value)
{
    char usd[32];
    char gpus[24], ctx[16], u[24], pg[24], tok[24], per[24], pool[24], held[24];
    /* "!": a TP that splits the heads unevenly (core scenario_heads_split) */
    const char *uneven = (r->warnings & WARN_HEADS_UNEVEN_SPLIT) ? "!" : "";
    if (r->pp > 1 && r->replicas > 1) /* "16=8pp2x2": TP, stages, replicas */
        snprintf(gpus, sizeof gpus, "%u=%upp%ux%u%s", s->gpus, r->tp, r->pp, r->replicas, uneven);
    else if (r->pp > 1) /* "12=2pp6" */
        snprintf(gpus, sizeof gpus, "%u=%upp%u%s", s->gpus, r->tp, r->pp, uneven);
    else if (r->replicas > 1)
        snprintf(gpus, sizeof gpus, "%u=%ux%u%s", s->gpus, r->tp, r->replicas, uneven);
    else
        snprintf(gpus, sizeof gpus, "%u%s", s->gpus, uneven);
    units_format_tokens_short(s->context_tokens, ctx, sizeof ctx);
    if (!r->fits)
        snprintf(u, sizeof u, "no fit");
    else
        units_format_int(r->max_users, u, sizeof u);
    units_format_int(r->max_users_paged, pg, sizeof pg);
    /* two decimals, as every size column: 30.38 KiB above 120.00 KiB, never 120 KiB */
    units_format_bytes(r->cost.bytes_per_token, s->units, tok, sizeof tok);
    units_format_bytes(r->user_bytes_per_gpu, s->units, per, sizeof per);
    units_format_bytes(r->kv_pool_bytes_per_gpu, s->units, pool, sizeof pool);
    units_format_int(r->kv_tokens, held, sizeof held);
    char speed[24] = "n/a", total[24] = "n/a", ttft[24] = "n/a", slo[24];
    bool over = (r->warnings & WARN_CONCURRENCY_BEYOND_FIT) != 0;
    if (r->max_users > 0 && r->speed.step_seconds > 0) { /* none where no user fits */
        snprintf(speed, sizeof speed, "%.1f%s", r->speed.tokens_per_s_per_user, over ? "*" : "");
        if (!r->speed.level_missed) { /* no count keeps the level: nobody's throughput */
            units_format_int((uint64_t)llround(r->speed.tokens_per_s_total), total,
                             sizeof total - 1);
            if (over)
                strcat(total, "*");
        }
    }
    if (r->max_users > 0 && r->speed.ttft_seconds > 0)
        snprintf(ttft, sizeof ttft, "%.3f s", r->speed.ttft_seconds);
    units_format_int(r->speed.users_at_service_level, slo, sizeof slo);
    char cost[24] = "n/a", cost_in[24] = "n/a", user_h[24] = "n/a", band[40] = "n/a",
         tband[40] = "n/a";
    /* the prices as the planner and plan print them, without the dollar sign */
    if (r->max_users > 0 && r->cost_per_million_output_tokens >= 0)
        snprintf(cost, sizeof cost, "%s%s", cli_usd_digits(r->cost_per_million_output_tokens, usd),
                 over ? "*" : "");
    if (r->max_users > 0 && r->cost_per_million_input_tokens >= 0)
        snprintf(cost_in, sizeof cost_in, "%s", cli_usd_digits(r->cost_per_million_input_tokens, usd));
    if (r->max_users > 0 && r->cost_per_user_hour >= 0)
        snprintf(user_h, sizeof user_h, "%s", cli_usd_digits(r->cost_per_user_hour, usd));
    /* the band of each: its low and high, in the figure's own form */
    if (r->max_users > 0 && r->bands.tokens_per_s_per_user_low > 0)
        snprintf(band, sizeof band, "%.1f-%.1f%s", r->bands.tokens_per_s_per_user_low,
                 r->bands.tokens_per_s_per_user_high, over ? "*" : "");
    if (r->max_users > 0 && r->bands.ttft_seconds_low > 0)
        snprintf(tband, sizeof tband, "%.3f-%.3f s", r->bands.ttft_seconds_low,
                 r->bands.ttft_seconds_high);
    printf("%-24.24s %9s %8s %6s %9s %9s %12s %11s %11s %13s %11s %11s %9s %9s %9s %9s %13s %15s",
           value, gpus, ctx, dtype_info(r->kv_dtype)->name, u, pg, tok, per, pool, held, speed,
           total, ttft, cost, cost_in, user_h, band, tband);
    printf(w->target ? " %9s\n" : "\n", slo);
    return (over ? ROW_OVER : 0) | (uneven[0] ? ROW_UNEVEN : 0);
}

/* s (at n) followed by text, cut as snprintf would cut it in size bytes;
 * returns the new length. */
static size_t append(char *s, size_t n, size_t size, const char *text, size_t len)
{
    size_t room = size - 1 - n;
    len = len < room ? len : room;
    memcpy(s + n, text, len);
    s[n + len] = '\0';
    return n + len;
}

void sweep_cursor_start(const struct sweep *w, struct row_cursor *at)
{
    at->s = w->base;
    for (int i = 0; i < OPTIONS_VARY_MAX; i++) {
        at->idx[i] = 0;
        at->set[i] = SIZE_MAX; /* none set yet */
    }
}

/* The scenario of the combination at->idx in at->s, and its label in
 * at->value ("fp8/32k/4"): only the axes whose value changed since the last
 * row are set again (each sets fields of its own), and the label's head
 * (the parts before the last) is written again only when one of them did.
 * Moves to the next combination (the last axis fastest); false after the
 * last. */
bool sweep_next_row(const struct sweep *w, struct row_cursor *at)
{
    int last = w->nvary - 1;
    at->outer = at->set[0] == SIZE_MAX; /* the first row */
    for (int i = 0; i <= last; i++)
        if (at->set[i] != at->idx[i]) {
            at->part[i] = sweep_axis_apply(&w->axes[i], at->idx[i], &w->cat, &w->base, &at->s);
            at->set[i] = at->idx[i];
            at->outer = at->outer || i < last;
        }
    size_t size = sizeof at->value;
    if (at->outer) {
        size_t n = 0;
        for (int i = 0; i < last; i++) {
            n = append(at->value, n, size, at->part[i], strnlen(at->part[i], AXIS_LABEL_MAX - 1));
            n = append(at->value, n, size, "/", 1);
        }
        at->head = n;
    }
    append(at->value, at->head, size, at->part[last], strnlen(at->part[last], AXIS_LABEL_MAX - 1));
    for (int i = last; i >= 0; i--) {
        if (++at->idx[i] < w->axes[i].count)
            return true;
        at->idx[i] = 0;
    }
    return false;
}

/* After the rows: the table's notes, the end of the JSON array. */
static void sweep_end(const struct sweep *w, struct outbuf *ob, unsigned marks, size_t rows)
{
    if (w->format == SWEEP_TABLE && (marks & ROW_UNEVEN))
        printf("! %s\n", plan_warning_text(WARN_HEADS_UNEVEN_SPLIT));
    if (w->format == SWEEP_TABLE && (marks & ROW_OVER))
        printf("* more users decoding at once (--concurrency) than fit in memory (USERS): the "
               "speed is for a batch that cannot be held\n");
    if (w->format == SWEEP_TABLE) {
        char basis[128];
        price_basis_text(&w->base, 0, basis, sizeof basis);
        /* the users a user-hour is shared by, as the plan's (core/price.c
         * cost_basis_of): those decoding at once where a count is given */
        bool varied = false;
        for (int i = 0; i < w->nvary; i++)
            varied = varied || w->axes[i].kind == AXIS_CONCURRENCY;
        char users[96];
        if (varied)
            snprintf(users, sizeof users, "the row's users decoding at once (VALUE)");
        else if (w->base.concurrency > 0)
            snprintf(users, sizeof users, "the %llu users decoding at once (--concurrency)",
                     (unsigned long long)w->base.concurrency);
        else
            snprintf(users, sizeof users, "%s",
                     w->target ? "the users who keep the level (AT LEVEL)" : "the users (USERS)");
        printf("$/1M OUT: the GPUs' price an hour over the output tokens an hour at TOK/S TOTAL "
               "(%s%s); $/1M IN: that price over the prompt tokens an hour at every replica's "
               "prefill rate of one prompt alone; $/USER-H: that price over %s\n",
               w->each_gpu ? "each GPU type's own price; the first's " : "", basis, users);
        printf("TOK/S BAND, TTFT BAND: TOK/S/USER and TTFT times the least and the most "
               "measured/predicted ratio the public measurements showed (plan's explain says "
               "over which cases)\n");
    }
    if (w->format == SWEEP_TABLE && w->target) {
        char what[96];
        printf("AT LEVEL: the users that keep %s\n",
               report_speed_target(&w->base, what, sizeof what));
    }
    if (w->format == SWEEP_JSON)
        outbuf_str(ob, rows ? "\n]\n" : "]\n");
}

/* The plan of the row in at: along a context axis varied last, the fixed
 * stages once for each value of the other axes (core/plan.h plan_prepare),
 * then only those the context changes; otherwise the whole plan. */
static const struct plan_result *plan_row(const struct sweep *w, const struct row_cursor *at,
                                          struct plan_base *base, struct plan_result *r,
                                          struct diag *d)
{
    const struct scenario *s = &at->s;
    options_calibration_row_warning(s); /* a calibration from another GPU, said */
    if (w->axes[w->nvary - 1].kind != AXIS_CONTEXT)
        return plan_compute(s, PLAN_NUMBERS, NULL, r, d) ? r : NULL;
    if (at->outer)
        plan_prepare(s, NULL, base);
    return plan_at_context(base, s->context_tokens, s->prefix_tokens, s->avg_context_tokens, d);
}

/* Every row, in the sweep's format. JSON rows are printed as they are made,
 * never held (640k rows in one array took 1.2 GB); the output is still one
 * array. CSV, Markdown and JSON rows go through ob; the table through
 * stdio. */
static int sweep_print(const struct sweep *w, struct outbuf *ob)
{
    unsigned marks = 0;
    bool more = true;
    size_t rows_printed = 0;
    struct row_cursor at;
    sweep_cursor_start(w, &at);
    print_head(w);
    if (w->format == SWEEP_JSON)
        outbuf_mem(ob, "[", 1);
    for (int i = 0; i < w->nvary; i++)
        if (w->axes[i].count == 0)
            more = false;
    size_t held = 0; /* rows whose context the prefix reached */
    struct diag in = {0}; /* cleared once used only: 513 bytes a row otherwise */
    static struct plan_base base; /* 20 KB */
    while (more) {
        more = sweep_next_row(w, &at);
        const char *value = at.value;
        const struct scenario *s = &at.s;
        held += s->prefix_tokens < w->base.prefix_tokens;
        struct plan_result own;
        const struct plan_result *r = plan_row(w, &at, &base, &own, &in);
        if (r == NULL && w->format == SWEEP_TABLE)
            printf("%-28s (%s)\n", value, in.message);
        if (in.failed)
            in = (struct diag){0};
        if (r == NULL)
            continue;
        struct cell c[CELLS_MAX];
        int ncells = plan_row_cells(s, r, value, c);
        if (w->format == SWEEP_JSON && !sweep_print_json_row(ob, sweep_json_cells(c, ncells), rows_printed++))
            return cli_fail("cannot build JSON (out of memory)");
        if (w->format == SWEEP_TABLE)
            marks |= print_table_row(w, s, r, value);
        else if (w->format != SWEEP_JSON)
            sweep_print_cells(ob, c, ncells, w->format);
    }
    sweep_end(w, ob, marks, rows_printed);
    if (held)
        fprintf(stderr,
                "kvplan: note: %s %llu tokens reaches the context on %zu row%s: held there to the "
                "context less the token each user keeps\n",
                OPTION_FLAG(OPT_PREFIX), (unsigned long long)w->base.prefix_tokens, held,
                held == 1 ? "" : "s");
    return 0;
}

int cmd_sweep(int argc, char **argv)
{
    struct options o;
    struct diag d = {0};
    int parsed = cli_parse(CMD_SWEEP, argc, argv, &o);
    if (parsed != CLI_PARSED)
        return parsed;
    if (!simulate_goodput_words(argc, argv, &o, &d))
        return cli_fail(d.message);
    if (sweep_sim_asked(&o))
        simulate_default_engine(&o);
    if (o.vary_count == 0) {
        options_print_help(CMD_SWEEP, stderr);
        return 2;
    }
    struct sweep w = {0};
    static struct outbuf ob;
    outbuf_init(&ob, stdout);
    bool ok = sweep_setup(&o, &w, &d);
    int status = !ok ? cli_fail(d.message) : w.sim ? sweep_sim_print(&w, &ob) : sweep_print(&w, &ob);
    bool written = outbuf_flush(&ob);
    options_calibration_rows_done();
    for (int i = 0; i < w.nvary; i++)
        sweep_axis_free(&w.axes[i]);
    catalog_free(&w.cat);
    if (status == 0 && (!written || fflush(stdout) != 0))
        status = cli_fail("cannot write to standard output");
    return status;
}
