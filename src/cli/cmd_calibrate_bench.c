/* calibrate on a benchmark: its TPOT (or ITL) and TTFT against kvplan's
 * step for the scenario given as for plan, the MBU, MFU and step overhead
 * that make them meet (core/speedfit.h), and a calibration for
 * plan --calibration. */
#include "cli/calibrate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli/commands.h"
#include "cli/options_table.h"
#include "core/dtype.h"
#include "core/engine_desc.h"
#include "core/shell.h"
#include "core/text.h"
#include "io/calibration.h"

/* What calibrating on a benchmark works with. */
struct bench_calib {
    const struct options *o;
    const struct bench_set *set;
    const struct bench_log *b; /* every file's figures: set->all */
    const char *shown;         /* the one file's name, or "calibrate" for several */
    struct scenario s;
    unsigned fixed;                 /* SPEED_CAL_ bits held as given */
    struct fit_point pts[FIT_POINTS_MAX];
    const char *labels[FIT_POINTS_MAX];
    struct fit_result fit;
    char from[3][320];
    bool gpu_assumed; /* no --gpu, and the file names no catalogue GPU */
    char model_matched[160]; /* the model preset the file names, "" when none (or --model) */
    struct bench_model model; /* how it was matched */
    char gpu_matched[64]; /* the preset of the GPU the file names, "" when none */
    char release[24];     /* the release whose rule the fit runs ("b5721"); "" none */
};

/* What the file says it ran, where no option says otherwise: llama-bench
 * runs llama.cpp at the precision its model_type ends with ("llama 8B
 * Q4_0"); a serving benchmark's backend names its engine ("vllm"). */
static void bench_ran(const struct bench_log *b, struct options *with)
{
    bool llama = b->format == BENCH_LLAMA_MD || b->format == BENCH_LLAMA_JSON;
    struct diag ignore = {0};
    const char *engine = llama ? "llama.cpp" : b->backend;
    if (!with->given[OPT_ENGINE] && !with->load_path && engine[0] &&
        engine_parse(engine, &with->engine, &with->engine_rule, &ignore))
        with->given[OPT_ENGINE] = true;
    const char *last = strrchr(b->model, ' ');
    char word[32];
    snprintf(word, sizeof word, "%s", last ? last + 1 : "");
    for (char *c = word; *c; c++)
        *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
    if (llama && !with->given[OPT_WEIGHT_DTYPE] && !with->load_path && word[0] &&
        dtype_parse(word, &with->weight_dtype))
        with->given[OPT_WEIGHT_DTYPE] = true;
}

/* The rule of the release the benchmark ran (--engine-version, or the
 * version its file states: llama-bench's build_number b5721 is llama.cpp's
 * mla-kv rule, kvplan list engines), where --engine names none: the fit is
 * of that release's step, and a plan under another is warned. */
static void bench_release(struct bench_calib *k, struct options *with)
{
    const char *v = k->o->engine_version ? k->o->engine_version : k->b->engine_version;
    char word[24];
    snprintf(word, sizeof word, "%.*s", (int)strcspn(v, " "), v);
    enum engine_rule rule;
    struct diag ignore = {0};
    if (k->o->given[OPT_ENGINE] || !word[0] ||
        !engine_release_rule(engine_desc(with->engine), word, &rule, NULL, 0, &ignore))
        return;
    with->engine_rule = rule;
    with->given[OPT_ENGINE] = true;
    snprintf(with->engine_release_asked, sizeof with->engine_release_asked, "%s", word);
    snprintf(k->release, sizeof k->release, "%s", word);
}

/* The scenario as plan builds it; with no --gpu, the catalogue GPU the
 * benchmark names (llama-bench's gpu_info), when one is named so, else the
 * default, said to be assumed. */
static bool bench_scenario(struct bench_calib *k, struct diag *d)
{
    const struct options *o = k->o;
    struct catalog cat;
    catalog_init(&cat);
    static struct options with;
    with = *o;
    bool ok = options_load_catalog(o, &cat, d);
    bool named = ok && o->model_id == NULL && o->load_path == NULL &&
                 calibrate_model_match(&cat, k->b, &k->model);
    if (named) {
        snprintf(k->model_matched, sizeof k->model_matched, "%s", k->model.id);
        with.model_id = k->model_matched;
        if (k->model.weight != DTYPE_AUTO && !o->given[OPT_WEIGHT_DTYPE]) {
            with.weight_dtype = k->model.weight; /* "-Q4_0.gguf" */
            with.given[OPT_WEIGHT_DTYPE] = true;
        }
    }
    if (ok && with.model_id == NULL && o->load_path == NULL) {
        char why[900], shown[1800];
        calibrate_model_unmatched(k->b, &k->model, why, sizeof why);
        text_escape(why, shown, sizeof shown); /* a file's words: no controls */
        catalog_free(&cat);
        return diag_fail(d, "calibrate: %s: %s: give %s ID (the model it ran), or %s", k->shown,
                         shown, OPTION_FLAG(OPT_MODEL), OPTION_FLAG(OPT_LOAD));
    }
    for (size_t i = 0; ok && !o->gpu_id && !o->load_path && k->b->gpu[0] && i < cat.gpu_count;
         i++)
        if (strcasecmp(cat.gpus[i].spec.name, k->b->gpu) == 0) {
            with.gpu_id = cat.gpus[i].spec.id;
            snprintf(k->gpu_matched, sizeof k->gpu_matched, "%s", with.gpu_id);
        }
    bench_ran(k->b, &with);
    bench_release(k, &with);
    ok = ok && options_scenario(&with, &cat, &k->s, d);
    catalog_free(&cat);
    k->gpu_assumed = ok && !with.gpu_id && !o->load_path;
    return ok;
}

/* A file's name without its folders, for the rows that name it. */
static const char *base_name(const char *shown)
{
    const char *slash = strrchr(shown, '/');
    return slash ? slash + 1 : shown;
}

/* Each file's header: its tool and output, its runs and figures, what it
 * says of its run. */
static void print_file(const char *shown, const struct bench_log *b)
{
    printf("%s: %s, %s: %d run%s, %d figure%s\n", shown, bench_tool_name(b->format),
           bench_output_name(b->format), b->runs, b->runs == 1 ? "" : "s", b->npoints,
           b->npoints == 1 ? "" : "s");
    char said[512] = "";
    const char *parts[][2] = {{"model", b->model},        {"GPU", b->gpu},
                              {"engine", b->engine_version}, {"date", b->date},
                              {"backend", b->backend}};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (parts[i][1][0] && strlen(said) + strlen(parts[i][1]) + 16 < sizeof said)
            snprintf(said + strlen(said), sizeof said - strlen(said), "%s%s %s",
                     said[0] ? ", " : "", parts[i][0], parts[i][1]);
    if (said[0]) {
        char shown_said[sizeof said];
        text_escape(said, shown_said, sizeof shown_said);
        printf("  it says: %s\n", shown_said);
    }
}

static void print_points(const struct bench_calib *k)
{
    const struct bench_set *set = k->set;
    const struct bench_log *b = k->b;
    for (int f = 0; f < set->n; f++)
        print_file(set->shown[f], &set->logs[f]);
    printf("\nMeasured, and kvplan's step for it at full bandwidth and compute (MBU = MFU = 1, "
           "no overhead)\n");
    for (int i = 0; i < b->npoints; i++) {
        const struct bench_point *q = &b->points[i];
        const struct fit_point *p = &k->pts[i];
        char depth[48] = "", where[1100];
        if (p->depth)
            snprintf(depth, sizeof depth, ", after %llu tokens", (unsigned long long)p->depth);
        if (set->n == 1) /* one file: its line; several: the file and its line */
            snprintf(where, sizeof where, "line %-4d", q->line);
        else
            snprintf(where, sizeof where, "%s:%d", base_name(set->shown[set->file_of[i]]),
                     q->line);
        printf("  %s %-30s %9.3f ms  %s %llu user%s%s, %llu in / %llu out%s\n", where,
               q->figure, p->measured_s * 1e3, p->kind == FIT_DECODE ? "decode," : "first token,",
               (unsigned long long)p->concurrency, p->concurrency == 1 ? "" : "s",
               q->littles_law              ? " (estimated by Little's law)"
               : q->concurrency_estimated ? " (estimated)"
                                          : "",
               (unsigned long long)p->input_tokens, (unsigned long long)p->output_tokens, depth);
        printf("            memory %.3f ms, compute %.3f ms, all-reduce + MoE %.3f ms, %g "
               "stage%s\n",
               p->memory_s * 1e3, p->compute_s * 1e3, p->fixed_s * 1e3, p->stages,
               p->stages == 1 ? "" : "s");
    }
}

/* Which figures a fitted value comes from: "mean_tpot_ms at 1, 8 and 32
 * users, where memory binds" (first tokens that waited among others left out). */
static void figures_of(const struct bench_calib *k, bool compute, char *buf, size_t size)
{
    int n = 0, total = 0;
    uint64_t last = 0;
    const char *figure = NULL;
    for (int i = 0; i < k->b->npoints; i++)
        total += k->pts[i].compute_binds == compute && !(compute && k->pts[i].waited);
    buf[0] = '\0';
    for (int i = 0; i < k->b->npoints; i++) {
        const struct fit_point *p = &k->pts[i];
        size_t at = strlen(buf);
        if (p->compute_binds != compute || (compute && p->waited) || at + 64 >= size)
            continue;
        bool same = figure && strcmp(figure, k->b->points[i].figure) == 0;
        figure = k->b->points[i].figure;
        snprintf(buf + at, size - at, "%s%s%s%llu", n == 0 ? "" : n + 1 == total ? " and " : ", ",
                 same ? "" : figure, same ? "" : " at ", (unsigned long long)p->concurrency);
        last = p->concurrency;
        n++;
    }
    size_t at = strlen(buf);
    snprintf(buf + at, size - at, " user%s, where %s binds", last == 1 ? "" : "s",
             compute ? "compute" : "memory");
}

/* A fraction's source: held as given, fitted on figures, or not fitted. */
static void fraction_source(char *out, size_t size, bool held, enum option_id opt, bool fitted,
                            bool clamped, const char *figures, const char *none)
{
    if (held)
        snprintf(out, size, "held as given (%s)", OPTION_FLAG(opt));
    else if (fitted)
        snprintf(out, size, "from %s%s", figures,
                 clamped ? " (the fit passed the range 0.01 to 1: clamped)" : "");
    else
        snprintf(out, size, "not fitted: %s", none);
}

/* What each fitted value comes from, in words (saved with it). */
static void sources(struct bench_calib *k)
{
    const struct fit_result *f = &k->fit;
    char mem[160], comp[160];
    figures_of(k, false, mem, sizeof mem);
    figures_of(k, true, comp, sizeof comp);
    fraction_source(k->from[0], sizeof k->from[0], k->fixed & SPEED_CAL_MBU, OPT_MBU,
                    f->mbu_fitted, f->mbu_clamped, mem,
                    "no figure where memory binds; kvplan's starting value");
    uint64_t queued = 0; /* the fewest in flight among the first tokens left out */
    for (int i = 0; i < k->b->npoints; i++)
        if (k->pts[i].waited && (queued == 0 || k->pts[i].concurrency < queued))
            queued = k->pts[i].concurrency;
    char none[240];
    if (queued)
        snprintf(none, sizeof none, "the first token was measured with %llu requests in flight, "
                 "queued behind their steps (a run at --max-concurrency 1 measures the prefill "
                 "alone); kvplan's default stays", (unsigned long long)queued);
    else
        snprintf(none, sizeof none, "no figure where compute binds (a longer prompt's TTFT tells "
                 "it); kvplan's default stays");
    fraction_source(k->from[1], sizeof k->from[1], k->fixed & SPEED_CAL_MFU, OPT_MFU,
                    f->mfu_fitted, f->mfu_clamped, comp, none);
    if (k->fixed & SPEED_CAL_OVERHEAD)
        snprintf(k->from[2], sizeof k->from[2], "held as given (%s)",
                 OPTION_FLAG(OPT_STEP_OVERHEAD));
    else if (f->overhead_fitted)
        snprintf(k->from[2], sizeof k->from[2], "from %s (%s)", mem,
                 k->fixed & SPEED_CAL_MBU ? "what they leave at the MBU held"
                                          : "the line through them: its time at no memory");
    else
        snprintf(k->from[2], sizeof k->from[2], "kept%s: %s", f->overhead_refused
                 ? " (the line through the figures gave an overhead below 0 or past 1 s)" : "",
                 "one concurrency cannot part it from MBU; the engine's fitted figure");
}

static void print_fit(const struct bench_calib *k)
{
    const struct fit_result *f = &k->fit;
    /* the release it ran, named; none stated: said, with the rule assumed */
    char ran[160];
    const char *v = k->o->engine_version ? k->o->engine_version : k->b->engine_version;
    if (k->release[0])
        snprintf(ran, sizeof ran, "%s %s", engine_desc(k->s.engine.kind)->title, k->release);
    else if (v[0])
        snprintf(ran, sizeof ran, "%s %.40s", engine_desc(k->s.engine.kind)->title, v);
    else
    {
        char rule[64];
        snprintf(ran, sizeof ran, "%s, version unknown (planned by kvplan's %s rule)",
                 engine_desc(k->s.engine.kind)->title,
                 engine_version_title(k->s.engine.kind, k->s.engine.rule, rule, sizeof rule));
    }
    printf("\nFitted for %s, %s, %s\n", k->s.gpu.name, k->s.model.name, ran);
    printf("  %-14s %.3f (was %.3f): %s\n", "MBU", f->mbu, f->mbu0, k->from[0]);
    printf("  %-14s %.3f (was %.3f): %s\n", "MFU", f->mfu, f->mfu0, k->from[1]);
    printf("  %-14s %.3f ms (was %.3f ms): %s\n", "Step overhead", f->overhead_s * 1e3,
           f->overhead0_s * 1e3, k->from[2]);
    printf("\nkvplan against the benchmark, before and after\n");
    for (int i = 0; i < k->b->npoints; i++) {
        const struct fit_point *p = &k->pts[i];
        printf("  %-30s at %5llu  measured %9.3f ms  before %9.3f ms (%+6.1f%%)  after %9.3f ms "
               "(%+6.1f%%)  %s\n",
               k->labels[i], (unsigned long long)p->concurrency, p->measured_s * 1e3,
               p->before_s * 1e3, 100 * (p->before_s - p->measured_s) / p->measured_s,
               p->predicted_s * 1e3, 100 * (p->predicted_s - p->measured_s) / p->measured_s,
               p->waited ? "waited; not fitted" : p->compute_binds ? "compute binds" : "memory binds");
    }
    printf("  residual (rms, the figures fitted): %.1f%% before, %.1f%% after\n", 100 * f->rms0, 100 * f->rms);
    if (k->release[0])
        printf("  %s %s runs kvplan's rule %s (kvplan list engines)\n",
               engine_desc(k->s.engine.kind)->title, k->release,
               engine_label(k->s.engine.kind, k->s.engine.rule));
    struct calibration_band bands[2];
    calibrate_fit_bands(&k->fit, k->fixed, k->pts, k->b->npoints, bands);
    calibrate_print_bands(bands);
}

/* A fitted fraction outside what serving engines reach (decode reads at
 * 30% to 95% of the peak bandwidth, prefill at 15% to 90% of the peak
 * compute: the public cases of doc/SPEED-FIT.md): a fit that absorbed a
 * wrong scenario rather than measured the engine. Said on standard error. */
static void warn_implausible(const struct bench_calib *k)
{
    const struct fit_result *f = &k->fit;
    struct {
        const char *name;
        double v, lo, hi;
        bool fitted;
    } w[2] = {{"MBU", f->mbu, FIT_MBU_PLAUSIBLE_LOW, FIT_MBU_PLAUSIBLE_HIGH,
               f->mbu_fitted && !(k->fixed & SPEED_CAL_MBU)},
              {"MFU", f->mfu, FIT_MFU_PLAUSIBLE_LOW, FIT_MFU_PLAUSIBLE_HIGH,
               f->mfu_fitted && !(k->fixed & SPEED_CAL_MFU)}};
    for (int i = 0; i < 2; i++)
        if (w[i].fitted && (w[i].v < w[i].lo || w[i].v > w[i].hi))
            fprintf(stderr, "kvplan: warning: the fitted %s %.3f is outside %.2f to %.2f, what "
                    "engines reach: the scenario is likely not the one the benchmark ran (%s%s, "
                    "%s weights, TP %u: the GPU, the layout or the weight precision), or the "
                    "figures are not the engine's step (%s)\n", w[i].name, w[i].v, w[i].lo,
                    w[i].hi, k->s.gpu.name, k->gpu_assumed ? ", assumed" : "", dtype_info(k->s.weight_dtype == DTYPE_AUTO
                    ? k->s.model.weight_dtype : k->s.weight_dtype)->name,
                    (unsigned)scenario_tp(&k->s),
                    w[i].v < w[i].lo ? "it ran slower than the scenario allows: a smaller GPU, "
                                       "fewer GPUs or heavier weights than given"
                                     : "it ran faster than the scenario allows: a larger GPU, "
                                       "more GPUs or lighter weights than given");
}

static void print_notes(const struct bench_calib *k)
{
    const struct bench_log *b = k->b;
    bool estimated = false;
    for (int i = 0; i < b->npoints; i++)
        estimated |= b->points[i].concurrency_estimated;
    if (estimated)
        printf("\nnote: the benchmark gives no concurrency limit: the users decoding at once are "
               "estimated (requests a second x seconds a request, queued ones too); run it with "
               "--max-concurrency N, or give %s N\n", OPTION_FLAG(OPT_CONCURRENCY));
    if (k->gpu_assumed) {
        char said[sizeof b->gpu + 64];
        text_escape(b->gpu[0] ? b->gpu : "none", said, sizeof said);
        /* a warning, not a note: every fitted fraction is of this GPU's peaks */
        fprintf(stderr, "kvplan: warning: the GPU is assumed: %s (the file names %s%s%s): the "
                "MBU and MFU fitted are fractions of its peaks; give %s ID for the one it ran "
                "on\n", k->s.gpu.name, b->gpu[0] ? "" : "no GPU", b->gpu[0] ? said : "",
                b->gpu[0] ? ", which matches no GPU preset" : "", OPTION_FLAG(OPT_GPU));
    }
    if (k->gpu_matched[0]) {
        char said[sizeof b->gpu + 64];
        text_escape(b->gpu, said, sizeof said);
        printf("\nnote: the GPU is the one the file names, %s: preset %s\n", said, k->gpu_matched);
    }
    if (k->model_matched[0]) {
        char said[sizeof k->model.said * 4];
        text_escape(k->model.said, said, sizeof said);
        printf("\nnote: the model is the one the file names, %s: preset %s, matched by %s%s%s%s%s%s"
               "\n", said, k->model_matched, k->model.how,
               strchr(k->model.candidates, ',') ? " (" : "",
               strchr(k->model.candidates, ',') ? k->model.candidates : "",
               strchr(k->model.candidates, ',') ? "; give --model to record another)" : "",
               k->model.weight != DTYPE_AUTO ? "; weights " : "",
               k->model.weight != DTYPE_AUTO ? dtype_info(k->model.weight)->name : "");
    }
    if (b->speculative)
        printf("\nnote: the benchmark reports speculative decoding; kvplan times the model's own "
               "step, so MBU absorbs the accepted tokens\n");
}

/* The plan whose TPOT is the "after" of the decode figure at the most users:
 * its reply's average context (input + depth + output / 2) as --avg-context,
 * for at --context alone plan has every user at the full context. */
static void print_plan_at(const struct bench_calib *k)
{
    const struct fit_point *p = NULL;
    for (int i = 0; i < k->b->npoints; i++)
        if (k->pts[i].kind == FIT_DECODE && (!p || k->pts[i].concurrency >= p->concurrency))
            p = &k->pts[i];
    if (p == NULL)
        return;
    uint64_t in = p->input_tokens ? p->input_tokens : 1;
    char buf[1024];
    struct shell_line l;
    shell_line_init(&l, buf, sizeof buf);
    shell_words(&l, "kvplan plan --model");
    shell_word(&l, k->s.model.id);
    /* every option the fit's scenario was built with: the GPU (assumed too,
     * so the line is that GPU's whatever the default becomes), the engine and
     * the precisions the benchmark ran at, the layout */
    calibrate_plan_options(&l, &k->s, true);
    shell_option(&l, "--context", "%llu", (unsigned long long)(p->depth + in + p->output_tokens));
    shell_option(&l, "--prompt", "%llu", (unsigned long long)in);
    shell_option(&l, "--avg-context", "%llu",
                 (unsigned long long)(p->depth + in + p->output_tokens / 2));
    shell_option(&l, "--concurrency", "%llu", (unsigned long long)p->concurrency);
    shell_option(&l, "--calibration", "%s", k->o->save_path ? k->o->save_path : "FILE");
    size_t need = 0;
    if (!shell_line_done(&l, &need))
        return;
    char shown[2048];
    text_escape(buf, shown, sizeof shown);
    printf("\nnote: a decode figure is a step at its reply's average context; plan gives the "
           "\"after\" at %llu users as: %s\n", (unsigned long long)p->concurrency, shown);
}

/* The calibration's date: today (UTC), or SOURCE_DATE_EPOCH's for a build that
 * must not depend on the day. */
static void today(char *buf, size_t size)
{
    const char *epoch = getenv("SOURCE_DATE_EPOCH");
    time_t t = epoch && *epoch ? (time_t)strtoll(epoch, NULL, 10) : time(NULL);
    struct tm tm;
    if (gmtime_r(&t, &tm) == NULL || strftime(buf, size, "%Y-%m-%d", &tm) == 0)
        snprintf(buf, size, "unknown");
}

static bool bench_save(const struct bench_calib *k, struct diag *d)
{
    const struct options *o = k->o;
    char date[32];
    today(date, sizeof date);
    const char *version = o->engine_version ? o->engine_version
                          : k->b->engine_version[0] ? k->b->engine_version
                                                    : NULL;
    struct speed_calibration c = {
        .benchmark = k->set->tools, .output = k->set->outputs,
        .benchmark_path = k->set->path[0], .benchmark_paths = k->set->path,
        .benchmark_files = k->set->n, .model_id = k->s.model.id, .gpu = &k->s.gpu,
        .gpu_assumed = k->gpu_assumed,
        .engine = k->s.engine.kind, .rule = k->s.engine.rule, .engine_version = version,
        .date = date, .benchmark_date = k->b->date[0] ? k->b->date : NULL,
        .tp = scenario_tp(&k->s), .pp = scenario_pp(&k->s), .weight = k->s.weight_dtype,
        .fixed = k->fixed, .fit = &k->fit,
        .points = k->pts, .labels = k->labels, .npoints = k->b->npoints,
        .from = {k->from[0], k->from[1], k->from[2]}};
    calibrate_fit_bands(&k->fit, k->fixed, k->pts, k->b->npoints, c.bands);
    return calibration_save_speed(o->save_path, &c, d);
}

/* False with d when a figure is faster than the GPU's peak allows: a decode
 * step under its weights' reads at full bandwidth (the step of one user at a
 * one-token context), a prefill under its arithmetic at full compute. */
static bool physically_possible(struct bench_calib *k, struct diag *d)
{
    static struct fit_point bare[FIT_POINTS_MAX];
    struct fit_result ignore;
    struct diag none = {0};
    int n = k->b->npoints;
    for (int i = 0; i < n; i++) {
        bare[i] = k->pts[i];
        bare[i].kind = FIT_DECODE;
        bare[i].concurrency = bare[i].input_tokens = 1;
        bare[i].output_tokens = 2;
        bare[i].depth = 0;
    }
    bool weights = speedfit_run(&k->s, k->fixed, bare, n, &ignore, &none);
    for (int i = 0; i < n; i++) {
        const struct fit_point *p = &k->pts[i];
        bool decode = p->kind == FIT_DECODE;
        double bound = decode ? (weights ? bare[i].memory_s : 0) : p->compute_s;
        if (p->measured_s < bound)
            return diag_fail(d, "%s:%d: %s %.3f ms is faster than %s allows: %.3f ms at 100%% of "
                             "its peak %s: the figure, or the scenario (GPU, weight precision, "
                             "tensor parallel), is wrong", k->set->shown[k->set->file_of[i]],
                             k->b->points[i].line,
                             k->b->points[i].figure, p->measured_s * 1e3, k->s.gpu.name,
                             bound * 1e3, decode ? "memory bandwidth (the weights)" : "compute");
    }
    return true;
}

/* The largest residual a saved fit may leave (rms, relative). */
#define FIT_SAVE_RMS_MAX 0.25

int calibrate_bench(const struct options *o, const struct bench_set *set)
{
    static struct bench_calib k;
    static char labels[FIT_POINTS_MAX][sizeof set->shown[0] + 64];
    memset(&k, 0, sizeof k);
    k.o = o;
    k.set = set;
    k.b = &set->all;
    k.shown = set->n == 1 ? set->shown[0] : "calibrate";
    const struct bench_log *b = k.b;
    struct diag d = {0};
    if (b->npoints == 0) {
        diag_fail(&d, "%s: %s output with no TPOT, ITL or TTFT figure: nothing to fit", k.shown,
                  bench_tool_name(b->format));
        return cli_fail(d.message);
    }
    if (!bench_scenario(&k, &d))
        return cli_fail(d.message);
    k.fixed = (o->mbu > 0 ? SPEED_CAL_MBU : 0) | (o->mfu > 0 ? SPEED_CAL_MFU : 0) |
              (o->given[OPT_STEP_OVERHEAD] ? SPEED_CAL_OVERHEAD : 0);
    for (int i = 0; i < b->npoints; i++) {
        k.pts[i] = b->points[i].fit;
        /* several files: each figure named with its file */
        if (set->n > 1)
            snprintf(labels[i], sizeof labels[i], "%s: %s",
                     base_name(set->shown[set->file_of[i]]), b->points[i].figure);
        k.labels[i] = set->n > 1 ? labels[i] : b->points[i].figure;
    }
    if (!speedfit_run(&k.s, k.fixed, k.pts, b->npoints, &k.fit, &d)) {
        diag_prefix(&d, "%s", k.shown);
        return cli_fail(d.message);
    }
    print_points(&k);
    sources(&k);
    print_fit(&k);
    warn_implausible(&k);
    print_notes(&k);
    print_plan_at(&k);
    if (o->save_path && (k.fit.mbu_clamped || k.fit.mfu_clamped || k.fit.rms > FIT_SAVE_RMS_MAX)) {
        diag_fail(&d, "%s: not saved: the fit %s%s%.1f%% residual after it (over %.0f%%): the "
                  "scenario is likely not the one the benchmark ran (its GPU, weight precision, "
                  "engine or tensor parallel): give them as options", k.shown,
                  k.fit.mbu_clamped || k.fit.mfu_clamped ? "clamps MBU or MFU at the range "
                                                           "0.01 to 1" : "",
                  k.fit.mbu_clamped || k.fit.mfu_clamped ? " and leaves a " : "leaves a ",
                  100 * k.fit.rms, 100 * FIT_SAVE_RMS_MAX);
        return cli_fail(d.message);
    }
    if (!physically_possible(&k, &d))
        return cli_fail(d.message);
    if (o->save_path) {
        if (!bench_save(&k, &d))
            return cli_fail(d.message);
        char shown_save[1024];
        text_escape(o->save_path, shown_save, sizeof shown_save);
        printf("\nsaved %s ", shown_save);
        calibrate_print_use(&k.s, o->save_path);
    }
    return 0;
}
