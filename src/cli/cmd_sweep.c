/* sweep: one scenario with up to three inputs varied, as a table, CSV, Markdown or JSON. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/options_table.h"
#include "core/engine_desc.h"
#include "core/plan.h"
#include "core/version.h"
#include "io/jsonout.h"
#include "io/markdown.h"
#include "io/report.h"


/* The rows a sweep may plan unless --max-rows says more: about half a
 * second of work and a table nobody reads to the end; every GPU count to
 * 65,536 of every GPU and model is some 145 million. */
enum { SWEEP_MAX_ROWS = 100000 };

enum sweep_axis { AXIS_CONTEXT, AXIS_GPUS, AXIS_KV_DTYPE, AXIS_GPU, AXIS_MODEL, AXIS_CONCURRENCY };

struct axis {
    enum sweep_axis kind;
    uint64_t lo, hi;
    uint32_t points; /* context: log-spaced points (0 = powers of two) */
    size_t count;    /* values along the axis */
    enum dtype kv[DTYPE_COUNT]; /* kv-dtype: the cache types of the sweep's engine */
};

/* The kv-dtype axis: the cache types the engine has (the K-quant mixes are
 * weight formats, never caches); set once the scenario's engine is known. */
static void kv_axis(struct axis *ax, enum engine_kind engine)
{
    ax->count = 0;
    for (int t = DTYPE_AUTO + 1; t < DTYPE_COUNT; t++)
        if (engine_supports(engine, (enum dtype)t) && t != DTYPE_Q6_K && t != DTYPE_Q5_K_M &&
            t != DTYPE_Q4_K_M)
            ax->kv[ax->count++] = (enum dtype)t;
}

static bool parse_axis(const char *vary, const struct catalog *cat, struct axis *ax,
                       struct diag *d)
{
    const char *vary_flag = OPTION_FLAG(OPT_VARY);
    char name[32], range[64] = "";
    memset(ax, 0, sizeof *ax);
    if (sscanf(vary, "%31[^=]=%63s", name, range) < 1)
        return diag_fail(d, "%s: expected AXIS=RANGE, such as context=1k..1M", vary_flag);
    if (strcmp(name, "context") == 0)
        ax->kind = AXIS_CONTEXT;
    else if (strcmp(name, "gpus") == 0)
        ax->kind = AXIS_GPUS;
    else if (strcmp(name, "kv-dtype") == 0)
        ax->kind = AXIS_KV_DTYPE;
    else if (strcmp(name, "gpu") == 0)
        ax->kind = AXIS_GPU;
    else if (strcmp(name, "model") == 0)
        ax->kind = AXIS_MODEL;
    else if (strcmp(name, "concurrency") == 0)
        ax->kind = AXIS_CONCURRENCY;
    else
        return diag_fail(d, "%s: '%s' is not context, gpus, concurrency, kv-dtype, gpu or model",
                         vary_flag, name);
    if (ax->kind == AXIS_CONTEXT || ax->kind == AXIS_GPUS || ax->kind == AXIS_CONCURRENCY) {
        char a[32], b[32], pts[16] = "";
        if (sscanf(range, "%31[^.]..%31[^:]:%15s", a, b, pts) < 2)
            return diag_fail(d, "%s: '%s' needs a range FROM..TO (context may add :POINTS)",
                             vary_flag, vary);
        struct diag in = {0};
        bool counted = ax->kind != AXIS_CONTEXT; /* GPUs or users: their own words for 0 */
        if (!units_parse_tokens(a, counted, &ax->lo, &in) ||
            !units_parse_tokens(b, counted, &ax->hi, &in) || ax->lo > ax->hi)
            return diag_fail(d, "%s: '%s': %s", vary_flag, vary,
                             in.failed ? in.message : "FROM is above TO");
        if (counted && ax->lo == 0)
            return diag_fail(d, "%s: '%s': the %s must be at least 1", vary_flag, vary,
                             ax->kind == AXIS_GPUS ? "GPU count" : "number of users");
        if (ax->kind == AXIS_GPUS && ax->hi > GPUS_MAX)
            return diag_fail(d, "%s: at most %d GPUs", vary_flag, GPUS_MAX);
        if (pts[0]) {
            uint64_t p;
            if (ax->kind != AXIS_CONTEXT || !units_parse_count(pts, 2, 100000, &p, &in))
                return diag_fail(d,
                                 "%s: '%s': POINTS is a whole number from 2 to 100000 "
                                 "(context only)",
                                 vary_flag, vary);
            ax->points = (uint32_t)p;
            ax->count = ax->points;
        } else if (ax->kind == AXIS_CONTEXT || ax->kind == AXIS_CONCURRENCY) {
            /* powers of two from FROM: 1, 2, 4 ... users, or 1k, 2k ... tokens */
            for (uint64_t v = ax->lo; v <= ax->hi && v > 0; v *= 2)
                ax->count++;
        } else {
            ax->count = ax->hi - ax->lo + 1;
        }
    } else {
        if (strcmp(range, "all") != 0 && range[0] != '\0')
            return diag_fail(d, "%s: '%s': only 'all' is supported for %s", vary_flag, vary, name);
        ax->count = ax->kind == AXIS_GPU     ? cat->gpu_count
                    : ax->kind == AXIS_MODEL ? cat->model_count
                                             : (size_t)(DTYPE_COUNT - 1);
    }
    return true;
}

/* Refuses, before any row is planned, a sweep of more than max rows (the
 * product of the axes, saturating). */
static bool rows_allowed(const struct axis *axes, int n, uint64_t max, struct diag *d)
{
    uint64_t rows = 1;
    for (int i = 0; i < n; i++)
        rows = axes[i].count && rows > UINT64_MAX / axes[i].count ? UINT64_MAX
                                                                  : rows * axes[i].count;
    if (rows <= max)
        return true;
    char shown[32], cap[32];
    units_format_int(rows, shown, sizeof shown);
    units_format_int(max, cap, sizeof cap);
    return diag_fail(d, "sweep: %s rows, over the cap of %s; vary fewer values, or allow them "
                        "with --max-rows %llu",
                     shown, cap, (unsigned long long)rows);
}

/* Sets axis value i in s; writes its label. */
static void apply_axis(const struct axis *ax, size_t i, const struct catalog *cat,
                       struct scenario *s, char *label, size_t size)
{
    switch (ax->kind) {
    case AXIS_CONTEXT: {
        uint64_t v;
        if (ax->points)
            v = (uint64_t)llround(exp(log((double)ax->lo) +
                                      (log((double)ax->hi) - log((double)ax->lo)) * (double)i /
                                          (double)(ax->points - 1)));
        else
            v = ax->lo << i;
        s->context_tokens = v;
        if (s->prefix_tokens >= v)
            s->prefix_tokens = 0;
        if (s->avg_context_tokens >= v)
            s->avg_context_tokens = 0;
        units_format_tokens_arg(v, label, size); /* also a CSV field: no grouping comma */
        break;
    }
    case AXIS_CONCURRENCY:
        s->concurrency = ax->lo << i;
        snprintf(label, size, "%llu user%s", (unsigned long long)s->concurrency,
                 s->concurrency == 1 ? "" : "s");
        break;
    case AXIS_GPUS:
        s->gpus = (uint32_t)(ax->lo + i); /* --tp stays: counts it does not divide are refused */
        snprintf(label, size, "%u", s->gpus);
        break;
    case AXIS_GPU:
        s->gpu = cat->gpus[i].spec;
        snprintf(label, size, "%s", s->gpu.id);
        break;
    case AXIS_MODEL:
        s->model = cat->models[i].spec;
        s->kv_heads = 0;
        snprintf(label, size, "%s", s->model.id);
        break;
    case AXIS_KV_DTYPE:
        s->kv_dtype = ax->kv[i];
        snprintf(label, size, "%s", dtype_info(s->kv_dtype)->name);
        break;
    }
}

/* Prints one row of the JSON array (freed here), indented as an element,
 * after a comma unless it is the first; false on out of memory. */
static bool print_json_row(cJSON *item, size_t index)
{
    char *text = item ? cJSON_Print(item) : NULL;
    cJSON_Delete(item);
    if (text == NULL)
        return false;
    fputs(index ? ",\n\t" : "\n\t", stdout);
    for (const char *p = text; *p; p++) {
        putchar(*p);
        if (*p == '\n')
            putchar('\t');
    }
    free(text);
    return true;
}

/* One row's columns, the same in every format: CSV and Markdown print
 * them as text, JSON with their types, the table with units. */
enum cell_kind { CELL_STR, CELL_UINT, CELL_BOOL, CELL_NUM };
struct cell {
    const char *name;
    enum cell_kind kind;
    const char *str;
    uint64_t uint;
    double num;
    bool present; /* CELL_NUM: false = no figure (null, empty) */
};
enum { CELLS_MAX = 20, SWEEP_VALUE_MAX = 128 }; /* a row's value: "fp8/32k/4" */

/* The columns; users_at_service_level only when a target is given. */
static int row_cells(const struct scenario *s, const struct plan_result *r, const char *value,
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
    CELL("tokens_per_s_per_user", CELL_NUM, .num = sp->tokens_per_s_per_user,
         .present = sp->step_seconds > 0);
    CELL("tokens_per_s_total", CELL_NUM, .num = sp->tokens_per_s_total,
         .present = sp->step_seconds > 0);
    CELL("ttft_seconds", CELL_NUM, .num = sp->ttft_seconds, .present = sp->ttft_seconds > 0);
    if (target)
        CELL("users_at_service_level", CELL_UINT, .uint = sp->users_at_service_level);
#undef CELL
    return n;
}

static void print_cells(const struct cell *c, int n, enum sweep_format format)
{
    const char *sep = format == SWEEP_CSV ? "," : " | ";
    if (format == SWEEP_MARKDOWN)
        fputs("| ", stdout);
    for (int i = 0; i < n; i++) {
        if (i)
            fputs(sep, stdout);
        switch (c[i].kind) {
        case CELL_STR: {
            char md[MD_TEXT_SIZE(SWEEP_VALUE_MAX)]; /* an id or a value from the command line */
            fputs(format == SWEEP_MARKDOWN ? md_text(c[i].str, md, sizeof md) : c[i].str, stdout);
            break;
        }
        case CELL_UINT:
            printf("%llu", (unsigned long long)c[i].uint);
            break;
        case CELL_BOOL:
            fputs(c[i].present ? "true" : "false", stdout);
            break;
        case CELL_NUM:
            if (c[i].present)
                printf("%.6g", c[i].num);
            else if (format == SWEEP_MARKDOWN)
                fputs("n/a", stdout);
            break;
        }
    }
    fputs(format == SWEEP_MARKDOWN ? " |\n" : "\n", stdout);
}

static cJSON *json_cells(const struct cell *c, int n)
{
    struct jsonout jo = jsonout_begin();
    for (int i = 0; i < n; i++) {
        switch (c[i].kind) {
        case CELL_STR:
            jsonout_string(&jo, c[i].name, c[i].str);
            break;
        case CELL_UINT:
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

/* A sweep made ready: the base scenario, its axes, what the rows print as. */
struct sweep {
    struct catalog cat;
    struct scenario base;
    struct axis axes[OPTIONS_VARY_MAX];
    int nvary;
    enum sweep_format format;
    bool models, each_gpu, target;
};

/* The axes of --vary, each once. */
static bool sweep_axes(const struct options *o, struct sweep *w, struct diag *d)
{
    w->nvary = o->vary_count;
    for (int i = 0; i < w->nvary; i++) {
        if (!parse_axis(o->varies[i], &w->cat, &w->axes[i], d))
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
            kv_axis(&w->axes[i], w->base.engine.kind);
    w->target = w->base.min_tokens_per_s > 0 || w->base.max_ttft_seconds > 0;
    uint64_t max_rows = o->given[OPT_MAX_ROWS] ? o->max_rows : SWEEP_MAX_ROWS;
    return rows_allowed(w->axes, w->nvary, max_rows, d);
}

/* The CSV or Markdown header (the columns of a row of the base scenario),
 * or the table's title and column heads. */
static void print_head(const struct sweep *w)
{
    const struct scenario *base = &w->base;
    if (w->format == SWEEP_CSV || w->format == SWEEP_MARKDOWN) {
        const struct plan_result r0 = {0}; /* zero: only the names are read */
        struct cell c[CELLS_MAX];
        bool csv = w->format == SWEEP_CSV;
        int ncols = row_cells(base, &r0, "", c);
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
        return;
    }
    if (w->format != SWEEP_TABLE)
        return;
    /* the table reads as a person would: the varied value, the layout, sizes
     * with units, per GPU where they are per GPU (CSV and JSON keep bytes) */
    /* llama.cpp splits layers, never heads: a token's KV is the whole model's
     * (r->cost.bytes_per_token at TP 1), spread over the GPUs by layer */
    printf("%s on %s, %s; %s\n", w->models ? "each model" : base->model.id,
           w->each_gpu ? "each GPU" : base->gpu.id,
           engine_label(base->engine.kind, base->engine.rule),
           engine_desc(base->engine.kind)->splits_layers
               ? "KV/TOKEN is for all GPUs (llama.cpp splits layers across them); KV/USER "
                 "and POOL are per GPU"
               : "KV/TOKEN, KV/USER and POOL are per GPU");
    printf("%-24s %9s %8s %6s %9s %9s %12s %11s %11s %13s %11s %11s %9s", "VALUE", "GPUS",
           "CONTEXT", "KV", "USERS", "PAGED", "KV/TOKEN", "KV/USER", "POOL", "TOKENS", "TOK/S/USER",
           "TOK/S TOTAL", "TTFT");
    printf(w->target ? " %9s\n" : "\n", "AT LEVEL");
}

/* One row of the table, with units; true when it decodes more users at once
 * than fit (its speeds are starred). */
static bool print_table_row(const struct sweep *w, const struct scenario *s,
                            const struct plan_result *r, const char *value)
{
    char gpus[24], ctx[16], u[24], pg[24], tok[24], per[24], pool[24], held[24];
    snprintf(gpus, sizeof gpus, r->replicas > 1 ? "%u=%ux%u" : "%u", s->gpus, r->tp, r->replicas);
    units_format_tokens_short(s->context_tokens, ctx, sizeof ctx);
    if (!r->fits)
        snprintf(u, sizeof u, "no fit");
    else
        units_format_int(r->max_users, u, sizeof u);
    units_format_int(r->max_users_paged, pg, sizeof pg);
    units_format_bytes_exact(r->cost.bytes_per_token, tok, sizeof tok);
    units_format_bytes(r->user_bytes_per_gpu, s->units, per, sizeof per);
    units_format_bytes(r->kv_pool_bytes_per_gpu, s->units, pool, sizeof pool);
    units_format_int(r->kv_tokens, held, sizeof held);
    char speed[24] = "n/a", total[24] = "n/a", ttft[24] = "n/a", slo[24];
    bool over = (r->warnings & WARN_CONCURRENCY_BEYOND_FIT) != 0;
    if (r->speed.step_seconds > 0) {
        snprintf(speed, sizeof speed, "%.1f%s", r->speed.tokens_per_s_per_user, over ? "*" : "");
        snprintf(total, sizeof total, "%.0f%s", r->speed.tokens_per_s_total, over ? "*" : "");
    }
    if (r->speed.ttft_seconds > 0)
        snprintf(ttft, sizeof ttft, "%.3f s", r->speed.ttft_seconds);
    units_format_int(r->speed.users_at_service_level, slo, sizeof slo);
    printf("%-24.24s %9s %8s %6s %9s %9s %12s %11s %11s %13s %11s %11s %9s", value, gpus, ctx,
           dtype_info(r->kv_dtype)->name, u, pg, tok, per, pool, held, speed, total, ttft);
    printf(w->target ? " %9s\n" : "\n", slo);
    return over;
}

/* The scenario of the combination idx, and its label ("fp8/32k/4"); moves
 * idx to the next combination (the last axis fastest), false after the last. */
static bool next_row(const struct sweep *w, size_t idx[], struct scenario *s, char *value,
                     size_t size)
{
    char part[64];
    *s = w->base;
    value[0] = '\0';
    for (int i = 0; i < w->nvary; i++) {
        apply_axis(&w->axes[i], idx[i], &w->cat, s, part, sizeof part);
        size_t n = strlen(value);
        snprintf(value + n, size - n, "%s%s", i ? "/" : "", part);
    }
    for (int i = w->nvary - 1; i >= 0; i--) {
        if (++idx[i] < w->axes[i].count)
            return true;
        idx[i] = 0;
    }
    return false;
}

/* Every row, in the sweep's format. JSON rows are printed as they are made,
 * never held (640k rows in one array took 1.2 GB); the output is still one
 * array. */
static int sweep_print(const struct sweep *w)
{
    bool beyond_fit = false, more = true;
    size_t rows_printed = 0, idx[OPTIONS_VARY_MAX] = {0};
    int status = 0;
    print_head(w);
    if (w->format == SWEEP_JSON)
        fputs("[", stdout);
    for (int i = 0; i < w->nvary; i++)
        if (w->axes[i].count == 0)
            more = false;
    while (more) {
        struct scenario s;
        char value[SWEEP_VALUE_MAX];
        more = next_row(w, idx, &s, value, sizeof value);
        struct plan_result r;
        struct diag in = {0};
        if (!plan_compute(&s, PLAN_NUMBERS, NULL, &r, &in)) {
            if (w->format == SWEEP_TABLE)
                printf("%-28s (%s)\n", value, in.message);
            continue;
        }
        struct cell c[CELLS_MAX];
        int ncells = row_cells(&s, &r, value, c);
        if (w->format == SWEEP_JSON && !print_json_row(json_cells(c, ncells), rows_printed++)) {
            status = cli_fail("cannot build JSON (out of memory)");
            break;
        }
        if (w->format == SWEEP_TABLE)
            beyond_fit = print_table_row(w, &s, &r, value) || beyond_fit;
        else if (w->format != SWEEP_JSON)
            print_cells(c, ncells, w->format);
    }
    if (w->format == SWEEP_TABLE && beyond_fit)
        printf("* more users decoding at once (--concurrency) than fit in memory (USERS): the "
               "speed is for a batch that cannot be held\n");
    if (w->format == SWEEP_TABLE && w->target) {
        char what[96];
        printf("AT LEVEL: the users that keep %s\n",
               report_speed_target(&w->base, what, sizeof what));
    }
    if (w->format == SWEEP_JSON && status == 0)
        fputs(rows_printed ? "\n]\n" : "]\n", stdout);
    return status;
}

int cmd_sweep(int argc, char **argv)
{
    struct options o;
    struct diag d = {0};
    int parsed = cli_parse(CMD_SWEEP, argc, argv, &o);
    if (parsed != CLI_PARSED)
        return parsed;
    if (o.vary_count == 0) {
        options_print_help(CMD_SWEEP, stderr);
        return 2;
    }
    struct sweep w = {0};
    bool ok = sweep_setup(&o, &w, &d);
    int status = ok ? sweep_print(&w) : cli_fail(d.message);
    catalog_free(&w.cat);
    if (status == 0 && fflush(stdout) != 0)
        status = cli_fail("cannot write to standard output");
    return status;
}
