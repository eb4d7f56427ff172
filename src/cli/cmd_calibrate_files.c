/* calibrate on several benchmark outputs as one: a sweep's runs (vllm bench
 * serve --save-result at each --max-concurrency) give the fit the points one
 * run cannot, several concurrencies parting MBU from the step overhead. Each
 * file is read and checked on its own, its errors naming it. */
#include "cli/calibrate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "core/text.h"
#include "io/fileio.h"

/* "a, b" with name added unless already in list. */
static void add_name(char *list, size_t size, const char *name)
{
    size_t at = strlen(list), n = strlen(name);
    for (const char *p = strstr(list, name); p; p = strstr(p + 1, name))
        if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ','))
            return;
    snprintf(list + at, size - at, "%s%s", at ? ", " : "", name);
}

/* False with d when the file says another `what` than a file before it. */
static bool same_fact(const struct bench_set *set, int k, const char *what, const char *mine,
                      const char *(*of)(const struct bench_log *), struct diag *d)
{
    for (int i = 0; i < k && mine[0]; i++) {
        const char *theirs = of(&set->logs[i]);
        if (theirs[0] && strcmp(theirs, mine) != 0) {
            char a[256], b[256];
            text_escape(mine, a, sizeof a);
            text_escape(theirs, b, sizeof b);
            return diag_fail(d, "%s: %s %s, but %s says %s: calibrate on the runs of one %s at "
                             "a time", set->shown[k], what, a, set->shown[i], b, what);
        }
    }
    return true;
}

static const char *model_of(const struct bench_log *b) { return b->model; }
static const char *gpu_of(const struct bench_log *b) { return b->gpu; }
static const char *backend_of(const struct bench_log *b) { return b->backend; }

bool calibrate_set_add(struct bench_set *set, const char *path, const char *shown,
                       struct diag *d)
{
    int k = set->n;
    const struct bench_log *b = &set->logs[k];
    if (b->format == BENCH_UNKNOWN)
        return diag_fail(d, "%s: not a benchmark's output (vllm bench serve, "
                         "sglang.bench_serving, llama-bench or genai-perf): of several files "
                         "each must be one; a startup log is calibrated alone", shown);
    if (b->npoints == 0)
        return diag_fail(d, "%s: %s output with no TPOT, ITL or TTFT figure: nothing to fit",
                         shown, bench_tool_name(b->format));
    snprintf(set->shown[k], sizeof set->shown[k], "%s", shown);
    if (!same_fact(set, k, "model", b->model, model_of, d) ||
        !same_fact(set, k, "GPU", b->gpu, gpu_of, d) ||
        !same_fact(set, k, "backend", b->backend, backend_of, d))
        return false;
    struct bench_log *all = &set->all;
    if (all->npoints + b->npoints > FIT_POINTS_MAX)
        return diag_fail(d, "%s: more than %d figures in all the files: calibrate on fewer",
                         shown, FIT_POINTS_MAX);
    if (k == 0) {
        *all = *b;
        all->npoints = 0;
        all->runs = 0;
    }
    /* the first file's facts, or the first file that has each */
    struct { char *to; const char *from; size_t size; } facts[] = {
        {all->model, b->model, sizeof all->model},
        {all->gpu, b->gpu, sizeof all->gpu},
        {all->engine_version, b->engine_version, sizeof all->engine_version},
        {all->date, b->date, sizeof all->date},
        {all->backend, b->backend, sizeof all->backend},
        {all->model_file, b->model_file, sizeof all->model_file}};
    if (all->params <= 0)
        all->params = b->params;
    for (size_t i = 0; i < sizeof facts / sizeof facts[0]; i++)
        if (!facts[i].to[0])
            snprintf(facts[i].to, facts[i].size, "%s", facts[i].from);
    for (int i = 0; i < b->npoints; i++) {
        set->file_of[all->npoints] = k;
        all->points[all->npoints++] = b->points[i];
    }
    all->runs += b->runs;
    all->speculative = all->speculative || b->speculative;
    add_name(set->tools, sizeof set->tools, bench_tool_name(b->format));
    add_name(set->outputs, sizeof set->outputs, bench_output_name(b->format));
    set->path[k] = path;
    set->n = k + 1;
    return true;
}

int calibrate_files(const struct options *o, int n, char **paths)
{
    static struct bench_set set;
    memset(&set, 0, sizeof set);
    struct diag d = {0};
    if (n > BENCH_FILES_MAX) {
        diag_fail(&d, "calibrate: %d files; at most %d benchmark outputs at once", n,
                  BENCH_FILES_MAX);
        return cli_fail(d.message);
    }
    for (int i = 0; i < n; i++) {
        char shown[sizeof set.shown[0]];
        text_escape(paths[i], shown, sizeof shown);
        size_t len = 0;
        char *text = fileio_read(paths[i], &len, &d);
        if (text == NULL)
            return cli_fail(d.message);
        bool ok = bench_parse(shown, text, len, o->concurrency, &set.logs[i], &d);
        free(text);
        if (!ok || !calibrate_set_add(&set, paths[i], shown, &d))
            return cli_fail(d.message);
    }
    return calibrate_bench(o, &set);
}
