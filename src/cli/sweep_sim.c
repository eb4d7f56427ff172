/* sweep_sim: a sweep whose rows are also simulated (core/sim.h), as
 * `kvplan simulate` runs one: each row's plan, then its stream of requests
 * served step by step, the run's figures beside the plan's. The rows are run
 * first (each once), the frontier of output tokens a second per GPU against
 * tokens a second per user found over them all, then the rows printed
 * (planned again: a plan costs microseconds, a run milliseconds). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options_table.h"
#include "cli/simulate.h"
#include "core/loadrun.h"
#include "cli/sweep.h"
#include "core/units.h"

/* The plan's cells and the run's. */
enum { SIM_CELLS_MAX = CELLS_MAX + 23 };

/* A row's run, kept for the printing pass. */
struct sim_row {
    bool ran;                /* planned, checked and run (out.status says how it ended) */
    bool frontier;           /* on the Pareto frontier */
    double per_gpu, per_user; /* output tok/s per GPU; 1 / mean TPOT */
    struct sim_result out;
};

bool sweep_sim_asked(const struct options *o)
{
    static const enum option_id workload[] = {
        OPT_REQUEST_RATE, OPT_GOODPUT,           OPT_NUM_PROMPTS,        OPT_BURSTINESS,
        OPT_SEED,         OPT_RANDOM_INPUT_LEN,  OPT_RANDOM_OUTPUT_LEN,  OPT_RANDOM_RANGE_RATIO,
        OPT_MAX_CONCURRENCY, OPT_DATASET};
    for (size_t i = 0; i < sizeof workload / sizeof workload[0]; i++)
        if (o->given[workload[i]])
            return true;
    for (int i = 0; i < o->vary_count; i++)
        if (strncmp(o->varies[i], "request-rate=", 13) == 0 ||
            strncmp(o->varies[i], "max-concurrency=", 16) == 0)
            return true;
    return false;
}

bool sweep_sim_setup(const struct options *o, struct sweep *w, struct diag *d)
{
    w->sim = sweep_sim_asked(o);
    w->pareto_only = o->given[OPT_PARETO];
    if (w->pareto_only && !w->sim)
        return diag_fail(d, "%s: the frontier is of simulated rows: give %s R, or vary "
                         "request-rate=... or max-concurrency=...", OPTION_FLAG(OPT_PARETO),
                         OPTION_FLAG(OPT_REQUEST_RATE));
    if (!w->sim)
        return true;
    /* an axis of the rate or the cap, and the same option fixed: one would be dropped */
    for (int i = 0; i < o->vary_count; i++) {
        bool rate = strncmp(o->varies[i], "request-rate=", 13) == 0;
        bool cap = strncmp(o->varies[i], "max-concurrency=", 16) == 0;
        if ((rate && o->given[OPT_REQUEST_RATE]) || (cap && o->given[OPT_MAX_CONCURRENCY]))
            return diag_fail(d, "%s: --vary %s gives its values: drop %s", OPTION_FLAG(
                                 rate ? OPT_REQUEST_RATE : OPT_MAX_CONCURRENCY), o->varies[i],
                             OPTION_FLAG(rate ? OPT_REQUEST_RATE : OPT_MAX_CONCURRENCY));
    }
    if (!simulate_plan_workload_refused(o, d) || !simulate_profile_lengths(o, "sweep", d))
        return false;
    w->w = simulate_workload(o, &w->base);
    w->max_concurrency = o->given[OPT_MAX_CONCURRENCY] ? o->max_concurrency : 0;
    for (int i = 0; i < 3; i++)
        w->slo[i] = o->goodput_set[i] ? o->goodput_ms[i] / 1000.0 : -1;
    return true;
}

/* The row's workload and client cap: the axes' values where they vary
 * them, else the sweep's; the prefix the row's scenario keeps. */
static void row_workload(const struct sweep *w, const struct row_cursor *at,
                         struct workload_params *p, struct sim_config *c)
{
    *p = w->w;
    p->prefix_len = at->s.prefix_tokens;
    c->max_concurrency = w->max_concurrency;
    for (int i = 0; i < w->nvary; i++) {
        const struct axis *ax = &w->axes[i];
        if (ax->kind == AXIS_REQUEST_RATE)
            p->request_rate = ax->rates[at->set[i]];
        else if (ax->kind == AXIS_MAX_CONCURRENCY)
            c->max_concurrency = (uint64_t)ax->rates[at->set[i]];
    }
    c->slo_ttft = w->slo[0];
    c->slo_tpot = w->slo[1];
    c->slo_e2el = w->slo[2];
}

/* The row's plan and run config; false with d saying why it is not run. */
static bool row_config(const struct sweep *w, const struct row_cursor *at, struct plan_result *r,
                       struct sim_config *c, struct workload_params *p, struct diag *d)
{
    struct scenario s = at->s;
    load_without_stages(&s); /* a row of 3 GPUs: 3 x TP 1, not PP 3 */
    if (!plan_compute(&s, PLAN_NUMBERS, NULL, r, d) || !simulate_config(&s, r, c, d))
        return false;
    row_workload(w, at, p, c);
    return load_check_workload(p, c, d);
}

/* The frontier: a row is on it when no other has as many output tokens a
 * second per GPU and as many a second per user, and more of one. Rows that
 * did not settle (over capacity, or stopped) are on none. */
struct point {
    size_t i;
    double g, u;
};

static int by_gpu_then_user(const void *a, const void *b)
{
    const struct point *x = a, *y = b;
    if (x->g != y->g)
        return x->g > y->g ? -1 : 1;
    return x->u > y->u ? -1 : x->u < y->u;
}

static bool mark_frontier(struct sim_row *rows, size_t n)
{
    struct point *pts = malloc((n ? n : 1) * sizeof *pts);
    if (pts == NULL)
        return false;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (rows[i].ran && rows[i].out.status == SIM_OK && !rows[i].out.over_capacity &&
            rows[i].per_user > 0)
            pts[m++] = (struct point){i, rows[i].per_gpu, rows[i].per_user};
    qsort(pts, m, sizeof *pts, by_gpu_then_user);
    double best = -1, last_g = -1, last_u = -1;
    for (size_t k = 0; k < m; k++) {
        bool same = pts[k].g == last_g && pts[k].u == last_u; /* a point already on it */
        if (pts[k].u > best || same) {
            rows[pts[k].i].frontier = true;
            best = pts[k].u > best ? pts[k].u : best;
            last_g = pts[k].g;
            last_u = pts[k].u;
        }
    }
    free(pts);
    return true;
}

/* Every row run into rows[] (count of them); false on out of memory. */
static bool run_rows(const struct sweep *w, struct sim_row *rows, size_t count)
{
    struct row_cursor at;
    sweep_cursor_start(w, &at);
    struct workload_request *q = NULL;
    size_t room = 0;
    static struct plan_result r;
    bool more = count > 0;
    /* a profile: the row that left the most of it out, said once */
    size_t fewest = SIZE_MAX;
    struct workload_params worst = {0};
    uint64_t worst_context = 0;
    for (size_t k = 0; more; k++) {
        more = sweep_next_row(w, &at);
        struct sim_config c;
        struct workload_params p;
        struct diag ignore = {0};
        if (!row_config(w, &at, &r, &c, &p, &ignore))
            continue;
        size_t fit = p.profile ? workload_profile_fit(&p).count : SIZE_MAX;
        if (fit < fewest) {
            fewest = fit;
            worst = p;
            worst_context = c.max_model_len;
        }
        if (p.num_prompts > room) {
            free(q);
            room = (size_t)p.num_prompts;
            q = malloc(room * sizeof *q);
            if (q == NULL)
                return false;
        }
        workload_generate(&p, q);
        if (sim_run(&c, q, (size_t)p.num_prompts, &rows[k].out) == SIM_NO_MEMORY) {
            free(q);
            return false;
        }
        rows[k].ran = true;
        rows[k].per_gpu = rows[k].out.output_throughput / (at.s.gpus ? at.s.gpus : 1);
        rows[k].per_user = rows[k].out.tpot.mean > 0 ? 1 / rows[k].out.tpot.mean : 0;
    }
    free(q);
    if (worst.profile)
        simulate_profile_left_out(worst.profile, fewest, worst.most_total, worst_context,
                                  worst.most_prompt > 0, "in the row that leaves most out, ");
    return mark_frontier(rows, count);
}

/* The run's cells after the plan's (n of them), then its costs at its own
 * throughput; returns the count. */
static int sim_cells(const struct sim_row *row, double rate, uint64_t cap,
                     const struct plan_result *r, struct cell *c, int n)
{
    const struct sim_result *o = &row->out;
    bool settled = o->status == SIM_OK && !o->over_capacity, good = o->goodput;
#define CELL(nm, k, ...) (c[n] = (struct cell){.name = nm, .kind = k, __VA_ARGS__}, n++)
#define MS(nm, v) CELL(nm, CELL_NUM, .num = (v) * 1e3, .present = settled)
    CELL("request_rate", CELL_NUM, .num = rate, .present = isfinite(rate));
    CELL("max_concurrency", CELL_UINT, .uint = cap, .none = cap == 0); /* as simulate's null */
    CELL("completed", CELL_UINT, .uint = o->completed);
    CELL("duration", CELL_NUM, .num = o->duration, .present = true);
    CELL("request_throughput", CELL_NUM, .num = o->request_throughput, .present = true);
    CELL("output_throughput", CELL_NUM, .num = o->output_throughput, .present = true);
    CELL("output_throughput_per_gpu", CELL_NUM, .num = row->per_gpu, .present = true);
    CELL("output_throughput_per_user", CELL_NUM, .num = row->per_user,
         .present = settled && row->per_user > 0);
    MS("median_ttft_ms", o->ttft.median);
    MS("p95_ttft_ms", o->ttft.p95);
    MS("median_tpot_ms", o->tpot.median);
    MS("p95_tpot_ms", o->tpot.p95);
    MS("median_itl_ms", o->itl.median);
    MS("p95_itl_ms", o->itl.p95);
    CELL("over_capacity", CELL_BOOL, .present = o->over_capacity);
    CELL("request_goodput", CELL_NUM, .num = o->request_goodput, .present = good);
    CELL("goodput_share", CELL_NUM,
         .num = o->completed ? (double)o->good / (double)o->completed : 0, .present = good);
    CELL("pareto", CELL_BOOL, .present = row->frontier);
#undef MS
#undef CELL
    return sweep_cost_cells(r->price_usd_per_hour, simulate_output_cost(r, o),
                            simulate_input_cost(r, o), c, n);
}

static void print_table_head(const struct sweep *w)
{
    const struct scenario *b = &w->base;
    char n[32], in[32], out[32], engine[64], lengths[128];
    if (w->w.profile) /* each row's context and pool leave its own of the profile */
        snprintf(lengths, sizeof lengths, "drawn from %s (%s)", w->w.profile->name,
                 w->w.profile->title);
    else
        snprintf(lengths, sizeof lengths, "of %s + %s tokens",
                 units_format_int(w->w.input_len, in, sizeof in),
                 units_format_int(w->w.output_len, out, sizeof out));
    printf("%s on %s, %s; each row simulated: %s requests %s, seed %llu%s\n",
           w->models ? "each model" : b->model.name, w->each_gpu ? "each GPU" : b->gpu.name,
           engine_version_title(b->engine.kind, b->engine.rule, engine, sizeof engine),
           units_format_int(w->w.num_prompts, n, sizeof n), lengths, (unsigned long long)w->w.seed,
           w->pareto_only ? "; the frontier's rows only" : "");
    printf("%-24s %9s %8s %10s %10s %10s %10s %10s %9s %9s %9s", "VALUE", "GPUS", "REQ/S",
           "OUT TOK/S", "TOK/S/GPU", "TOK/S/USER", "TTFT P50", "TTFT P95", "TPOT P50",
           "TPOT P95", "ITL P95");
    if (w->slo[0] >= 0 || w->slo[1] >= 0 || w->slo[2] >= 0)
        printf(" %8s", "GOODPUT");
    printf("  %s\n", "FRONTIER");
}

static void print_table_row(const struct sweep *w, const struct scenario *s,
                            const struct plan_result *r, const struct sim_row *row,
                            const char *value)
{
    const struct sim_result *o = &row->out;
    bool settled = o->status == SIM_OK && !o->over_capacity;
    char gpus[24], lat[5][24], user[24] = "-";
    snprintf(gpus, sizeof gpus, r->replicas > 1 ? "%u=%ux%u" : "%u", s->gpus, r->tp, r->replicas);
    const double v[5] = {o->ttft.median, o->ttft.p95, o->tpot.median, o->tpot.p95, o->itl.p95};
    for (int i = 0; i < 5; i++)
        snprintf(lat[i], sizeof lat[i], settled ? "%.1f ms" : "-", v[i] * 1e3);
    if (settled && row->per_user > 0)
        snprintf(user, sizeof user, "%.1f", row->per_user);
    printf("%-24.24s %9s %8.2f %10.0f %10.0f %10s %10s %10s %9s %9s %9s", value, gpus,
           o->request_throughput, o->output_throughput, row->per_gpu, user, lat[0], lat[1],
           lat[2], lat[3], lat[4]);
    if (w->slo[0] >= 0 || w->slo[1] >= 0 || w->slo[2] >= 0)
        printf(" %7.1f%%", o->completed ? 100.0 * (double)o->good / (double)o->completed : 0);
    printf("  %s%s\n", row->frontier ? "*" : "", o->over_capacity ? "over capacity" : "");
}

/* The CSV or Markdown header: the plan's columns and the run's. */
static void print_names(const struct sweep *w)
{
    static const struct plan_result r0; /* zero: only the names are read */
    struct cell c[SIM_CELLS_MAX];
    const struct sim_row row0 = {0};
    int n = sim_cells(&row0, 0, 0, &r0, c, sweep_row_cells(&w->base, &r0, "", c));
    sweep_print_names(c, n, w->format);
}

/* The rate and client cap a row ran with. */
static void row_rate(const struct sweep *w, const struct row_cursor *at, double *rate,
                     uint64_t *cap)
{
    struct workload_params p;
    struct sim_config c;
    row_workload(w, at, &p, &c);
    *rate = p.request_rate;
    *cap = c.max_concurrency;
}

/* One row in the sweep's format; false on out of memory. */
static bool print_row(const struct sweep *w, struct outbuf *ob, const struct row_cursor *at,
                      const struct sim_row *row, size_t *printed)
{
    static struct plan_result r;
    struct sim_config c;
    struct workload_params p;
    struct diag why = {0};
    if (!row_config(w, at, &r, &c, &p, &why) || simulate_run_failed(row->out.status, &why)) {
        if (w->format == SWEEP_TABLE && !w->pareto_only)
            printf("%-28s (%s)\n", at->value, why.message);
        return true;
    }
    if (w->pareto_only && !row->frontier)
        return true;
    if (w->format == SWEEP_TABLE) {
        print_table_row(w, &at->s, &r, row, at->value);
        return true;
    }
    struct cell cells[SIM_CELLS_MAX];
    double rate;
    uint64_t cap;
    row_rate(w, at, &rate, &cap);
    int n = sim_cells(row, rate, cap, &r, cells, sweep_row_cells(&at->s, &r, at->value, cells));
    if (w->format == SWEEP_JSON)
        return sweep_print_json_row(ob, sweep_json_cells(cells, n), (*printed)++);
    sweep_print_cells(ob, cells, n, w->format);
    return true;
}

int sweep_sim_print(const struct sweep *w, struct outbuf *ob)
{
    size_t count = 1;
    for (int i = 0; i < w->nvary; i++)
        count *= w->axes[i].count;
    struct sim_row *rows = calloc(count ? count : 1, sizeof *rows);
    if (rows == NULL || !run_rows(w, rows, count)) {
        free(rows);
        return cli_fail("out of memory for the simulated rows");
    }
    if (w->format == SWEEP_TABLE)
        print_table_head(w);
    else if (w->format != SWEEP_JSON)
        print_names(w);
    else
        outbuf_mem(ob, "[", 1);
    struct row_cursor at;
    sweep_cursor_start(w, &at);
    size_t printed = 0;
    bool more = count > 0;
    for (size_t k = 0; more; k++) {
        more = sweep_next_row(w, &at);
        if (!print_row(w, ob, &at, &rows[k], &printed)) {
            free(rows);
            return cli_fail("cannot build JSON (out of memory)");
        }
    }
    free(rows);
    if (w->format == SWEEP_JSON)
        outbuf_str(ob, printed ? "\n]\n" : "]\n");
    if (w->format == SWEEP_TABLE)
        printf("FRONTIER *: no other row has both more output tok/s per GPU and more tok/s per "
               "user (1 / mean TPOT)\n");
    return 0;
}
