/* sweep: what kvplan sweep's files share: cmd_sweep.c (the plan's rows, the
 * cursor over the axes' combinations, the cells of a row in every format)
 * and sweep_sim.c (rows simulated as vllm bench serve would run them, and
 * their frontier). */
#ifndef KVPLAN_CLI_SWEEP_H
#define KVPLAN_CLI_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "cli/options.h"
#include "cli/sweep_axis.h"
#include "core/plan.h"
#include "core/workload.h"
#include "io/outbuf.h"

/* A sweep made ready: the base scenario, its axes, what the rows print as. */
struct sweep {
    struct catalog cat;
    struct scenario base;
    struct axis axes[OPTIONS_VARY_MAX];
    int nvary;
    enum sweep_format format;
    bool models, each_gpu, target;
    /* simulated rows (a workload option given, or a request-rate or
     * max-concurrency axis): the workload, the client's cap, the
     * objectives (seconds, < 0 none), whether only the frontier prints */
    bool sim, pareto_only;
    struct workload_params w;
    uint64_t max_concurrency;
    double slo[3];
};

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
    bool none;    /* CELL_UINT: no figure (null, empty): max_concurrency without a cap */
};
enum { CELLS_MAX = 30, SWEEP_VALUE_MAX = 128 }; /* a row's value: "fp8/32k/4"; with the costs */

/* The plan's columns of a row (at most CELLS_MAX); returns how many. */
int sweep_row_cells(const struct scenario *s, const struct plan_result *r, const char *value,
                    struct cell c[CELLS_MAX]);
/* After n cells: the GPUs' price an hour and a million output and input
 * tokens at the row's own throughput (< 0: null), the last columns of every
 * row, planned or simulated; returns the new count. */
int sweep_cost_cells(double usd_per_hour, double output_cost, double input_cost, struct cell *c,
                     int n);
/* A CSV or Markdown row of n cells into ob. */
void sweep_print_cells(struct outbuf *ob, const struct cell *c, int n, enum sweep_format format);
/* The CSV or Markdown header of those cells' names. */
void sweep_print_names(const struct cell *c, int ncols, enum sweep_format format);
cJSON *sweep_json_cells(const struct cell *c, int n);
/* One element of the JSON array (item freed here); false on out of memory. */
bool sweep_print_json_row(struct outbuf *ob, cJSON *item, size_t index);

/* Where the rows are: the next combination, and the scenario of the last
 * one with each axis's value and label as last set, and its label. */
struct row_cursor {
    size_t idx[OPTIONS_VARY_MAX], set[OPTIONS_VARY_MAX];
    const char *part[OPTIONS_VARY_MAX];
    bool outer;  /* the first row, or an axis before the last set again for it */
    size_t head; /* the label's length before the last axis's part */
    char value[SWEEP_VALUE_MAX];
    struct scenario s;
};
void sweep_cursor_start(const struct sweep *w, struct row_cursor *at);
/* The next combination's scenario and label into at; false after the last. */
bool sweep_next_row(const struct sweep *w, struct row_cursor *at);

/* sweep_sim.c: whether the options ask for simulated rows (a workload
 * option, or a request-rate or max-concurrency axis); */
bool sweep_sim_asked(const struct options *o);
/* their workload and objectives into w (after the base scenario). */
bool sweep_sim_setup(const struct options *o, struct sweep *w, struct diag *d);
/* Every row planned and simulated, in the sweep's format; the exit status. */
int sweep_sim_print(const struct sweep *w, struct outbuf *ob);

#endif
