/* solve: the GPUs, context or memory fraction that serve a number of users. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/options_table.h"
#include "cli/simulate.h"
#include "cli/solve_mac.h"
#include "cli/solve_slo.h"
#include "core/engine_desc.h"
#include "core/solve.h"
#include "core/speed.h"
#include "core/text.h"
#include "core/version.h"
#include "core/offload_fit.h"
#include "io/calibration.h"
#include "io/jsonout.h"
#include "io/offload_json.h"
#include "io/snapshot.h"


/* The layouts one solve may plan unless --max-plans says more: a few seconds
 * of work; --max-gpus 4096 --max-pp 64 over every GPU type is 2.1M. */
enum { SOLVE_MAX_PLANS = 1000000 };

struct solve_row {
    const struct gpu_spec *gpu;
    struct solve_split split;
    /* a million output and input tokens at the layout's own throughput, the
     * users it serves decoding at once (< 0 unknown or not solved) */
    double cost_output, cost_input;
    /* the layout's plan, as kvplan plan gives it for that layout: the speed
     * per user and its band, the first token and its band, a user-hour
     * (each <= 0, or < 0 for the cost, unknown) */
    double tok_s, tok_s_low, tok_s_high, ttft, ttft_low, ttft_high, cost_user_hour;
};

/* The costs and speeds of a solved row: its layout planned, the plan's. */
static void row_costs(const struct scenario *s, struct solve_row *row)
{
    const struct solve_split *sp = &row->split;
    row->cost_output = row->cost_input = row->cost_user_hour = -1;
    row->tok_s = row->tok_s_low = row->tok_s_high = 0;
    row->ttft = row->ttft_low = row->ttft_high = 0;
    if (!sp->solved)
        return;
    struct scenario x = *s;
    x.gpus = sp->gpus;
    x.tp = sp->tp;
    x.pp = sp->pp > 1 ? sp->pp : 0;
    if (sp->parallel) /* the slots the fit search was sized for */
        x.engine.parallel = sp->parallel;
    static struct plan_result r;
    struct diag d = {0};
    if (!plan_compute(&x, PLAN_NUMBERS, NULL, &r, &d))
        return;
    options_calibration_row_warning(&x); /* a calibration from another GPU, said */
    row->cost_output = r.cost_per_million_output_tokens;
    row->cost_input = r.cost_per_million_input_tokens;
    row->cost_user_hour = r.max_users > 0 ? r.cost_per_user_hour : -1;
    /* none where no user decodes, as plan's JSON (snapshot_result.c) */
    if (r.max_users > 0 && r.speed.step_seconds > 0) {
        row->tok_s = r.speed.tokens_per_s_per_user;
        row->tok_s_low = r.bands.tokens_per_s_per_user_low;
        row->tok_s_high = r.bands.tokens_per_s_per_user_high;
    }
    if (r.max_users > 0 && r.speed.ttft_seconds > 0) {
        row->ttft = r.speed.ttft_seconds;
        row->ttft_low = r.bands.ttft_seconds_low;
        row->ttft_high = r.bands.ttft_seconds_high;
    }
}

/* The rows of the GPU types compared, and the types left out. */
struct solve_table {
    struct solve_row *rows;
    int count, skipped;
};

static int by_cost(const void *a, const void *b)
{
    const struct solve_split *x = &((const struct solve_row *)a)->split;
    const struct solve_split *y = &((const struct solve_row *)b)->split;
    if (x->solved != y->solved)
        return x->solved ? -1 : 1;
    if ((x->cost_per_hour < 0) != (y->cost_per_hour < 0))
        return x->cost_per_hour < 0 ? 1 : -1;
    if (x->cost_per_hour != y->cost_per_hour)
        return x->cost_per_hour < y->cost_per_hour ? -1 : 1;
    return x->gpus < y->gpus ? -1 : x->gpus > y->gpus;
}

/* --format json: the fields of doc/FORMATS.md, "Solve (kvplan solve --format json)". */
static struct jsonout json_head(const char *mode, uint64_t need, const struct scenario *s)
{
    struct jsonout o = jsonout_begin();
    jsonout_string(&o, "format", "kvplan-solve");
    jsonout_uint(&o, "format_version", 1);
    jsonout_string(&o, "generator", KVPLAN_GENERATOR);
    jsonout_string(&o, "mode", mode);
    jsonout_uint(&o, "users", need);
    jsonout_string(&o, "model", s->model.id);
    jsonout_string(&o, "engine", engine_label(s->engine.kind, s->engine.rule));
    snapshot_engine_json(&o, s->engine.kind, s->engine.rule);
    jsonout_uint(&o, "context_tokens", s->context_tokens);
    return o;
}

/* The answer about one GPU (--max-context, --utilization): the head, the
 * GPU, its count, whether solved. */
static struct jsonout json_one(const char *mode, uint64_t need, const struct scenario *s,
                               bool solved)
{
    struct jsonout o = json_head(mode, need, s);
    jsonout_string(&o, "gpu", s->gpu.id);
    jsonout_uint(&o, "gpus", s->gpus);
    jsonout_bool(&o, "solved", solved);
    return o;
}

int solve_json_print(struct jsonout *o, int status)
{
    cJSON *doc = jsonout_end(o);
    char *text = doc ? cJSON_Print(doc) : NULL;
    cJSON_Delete(doc);
    if (text == NULL)
        return cli_fail("cannot build the JSON answer (out of memory)");
    puts(text);
    free(text);
    return status;
}

static cJSON *json_row(const struct solve_row *row, bool engine_context)
{
    const struct solve_split *sp = &row->split;
    struct jsonout o = jsonout_begin();
    jsonout_string(&o, "gpu", row->gpu->id);
    jsonout_bool(&o, "solved", sp->solved);
    if (sp->solved) {
        jsonout_uint(&o, "gpus", sp->gpus);
        jsonout_uint(&o, "tp", sp->tp);
        jsonout_uint(&o, "pp", sp->pp ? sp->pp : 1);
        jsonout_uint(&o, "replicas", sp->gpus / (sp->tp * (sp->pp ? sp->pp : 1)));
        jsonout_uint(&o, "users", sp->users);
        if (sp->parallel) /* llama.cpp's -np the fit search was sized for */
            jsonout_uint(&o, "parallel", sp->parallel);
        if (engine_context) /* the engine's own, on these GPUs */
            jsonout_uint(&o, "context_tokens", sp->context_tokens);
        jsonout_double_or_null(&o, "usd_per_hour", sp->cost_per_hour, sp->cost_per_hour >= 0);
        jsonout_null(&o, "why");
        jsonout_double_or_null(&o, "cost_per_million_output_tokens", row->cost_output,
                               row->cost_output >= 0);
        jsonout_double_or_null(&o, "cost_per_million_input_tokens", row->cost_input,
                               row->cost_input >= 0);
        /* the layout's plan, named as plan's JSON names them */
        jsonout_double_or_null(&o, "cost_per_user_hour", row->cost_user_hour,
                               row->cost_user_hour >= 0);
        jsonout_double_or_null(&o, "tokens_per_s_per_user", row->tok_s, row->tok_s > 0);
        jsonout_double_or_null(&o, "tokens_per_s_per_user_low", row->tok_s_low,
                               row->tok_s_low > 0);
        jsonout_double_or_null(&o, "tokens_per_s_per_user_high", row->tok_s_high,
                               row->tok_s_low > 0);
        jsonout_double_or_null(&o, "ttft_seconds", row->ttft, row->ttft > 0);
        jsonout_double_or_null(&o, "ttft_seconds_low", row->ttft_low, row->ttft_low > 0);
        jsonout_double_or_null(&o, "ttft_seconds_high", row->ttft_high, row->ttft_low > 0);
    } else {
        jsonout_string(&o, "why", sp->why == UNSOLVED_NO_COMPUTE     ? "no compute figure"
                                  : sp->why == UNSOLVED_NO_BANDWIDTH ? "no bandwidth figure"
                                                                     : "needs more GPUs");
    }
    return jsonout_end(&o);
}

/* What solve was asked: the users, the search's bounds, the answer's format. */
struct solve_job {
    uint64_t need;
    uint32_t max_gpus, max_pp;
    uint64_t max_plans;
    bool json;
    bool markdown;           /* the GPU table in Markdown */
    uint32_t wired_limit_mb; /* comparing GPU types: --wired-limit-mb, for those of unified memory */
    bool engine_context;     /* no --context: the engine picks one by the GPUs (Ollama) */
};

static const char *plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

/* A GPU whose figures cannot check the target: no context or fraction serves. */
static int print_unchecked(const struct solve_job *job, const struct scenario *s, bool max_context,
                           enum solve_unsolved why)
{
    bool compute = why == UNSOLVED_NO_COMPUTE;
    if (job->json) {
        struct jsonout jo =
            json_one(max_context ? "max_context" : "utilization", job->need, s, false);
        jsonout_string(&jo, "why", compute ? "no compute figure" : "no bandwidth figure");
        return solve_json_print(&jo, 1);
    }
    const char *pl = plural(job->need);
    printf("%s has no %s figure: the %s target cannot be checked, so no %s serves %llu user%s\n",
           s->gpu.name, compute ? "compute" : "bandwidth", compute ? "--max-ttft" : "speed",
           max_context ? "context" : "--gpu-memory-utilization", (unsigned long long)job->need, pl);
    return 1;
}

/* The answer's llama.cpp split (its GPU layers, experts and cache in host
 * memory, each device's bytes) and its launch line, at the context found. */
static void answer_json(struct jsonout *jo, const struct plan_result *r)
{
    const struct offload_split *o = &r->engine.offload;
    if (o->placed)
        jsonout_object(jo, "offload", offload_split_json(o));
    else
        jsonout_null(jo, "offload");
    if (r->engine.launch[0])
        jsonout_string(jo, "launch", r->engine.launch);
    else
        jsonout_null(jo, "launch");
}

static void answer_text(const struct scenario *s, const struct plan_result *r)
{
    const struct offload_split *o = &r->engine.offload;
    char a[32], b[32], c[32], d[32], line[256];
    if (o->placed && o->active) {
        offload_sentence(o, line, sizeof line);
        printf("  split: %s\n", line);
        printf("  per GPU %s weights + %s KV; host memory %s weights + %s KV\n",
               units_format_bytes(o->gpu_weights_bytes, s->units, a, sizeof a),
               units_format_bytes(o->gpu_kv_bytes, s->units, b, sizeof b),
               units_format_bytes(o->host_weights_bytes, s->units, c, sizeof c),
               units_format_bytes(o->host_kv_bytes, s->units, d, sizeof d));
    }
    if (r->engine.launch[0])
        printf("  launch: %s\n", r->engine.launch);
}

static int print_max_context(const struct solve_job *job, const struct scenario *base)
{
    uint64_t best = solve_max_context(base, job->need);
    bool capped = solve_context_capped(base, job->need, best);
    struct scenario s;
    struct plan_result r;
    static struct explain x; /* the launch line comes with the rows */
    x.deferred = false;
    bool planned = best > 0 && solve_plan_at(base, job->need, best, &x, &s, &r);
    if (job->json) {
        struct jsonout jo = json_one("max_context", job->need, base, best > 0);
        jsonout_uint(&jo, "max_context_tokens", best);
        jsonout_uint(&jo, "model_max_context_tokens", base->model.max_context_tokens);
        jsonout_bool(&jo, "capped_at_model_max", capped);
        if (planned)
            answer_json(&jo, &r);
        return solve_json_print(&jo, best > 0 ? 0 : 1);
    }
    const char *pl = plural(job->need);
    if (best == 0) {
        printf("no context serves %llu user%s on %u x %s\n", (unsigned long long)job->need, pl,
               base->gpus, base->gpu.name);
        return 1;
    }
    char t[48], engine[64];
    printf("longest context serving %llu user%s on %u x %s (%s): %s tokens\n",
           (unsigned long long)job->need, pl, base->gpus, base->gpu.name,
           engine_version_title(base->engine.kind, base->engine.rule, engine, sizeof engine),
           units_format_tokens(best, t, sizeof t));
    if (capped)
        printf("  (the model's longest context, max_context_tokens: more would fit, past what it "
               "was trained for)\n");
    if (planned)
        answer_text(&s, &r);
    struct scenario at = *base;
    at.context_tokens = best;
    at.avg_context_tokens = base->avg_context_tokens < best ? base->avg_context_tokens : 0;
    at.output_tokens = scenario_output_within(base, best);
    solve_mac_note(&at);
    return 0;
}

static int print_utilization(const struct solve_job *job, const struct scenario *s)
{
    if (!engine_knob(engine_desc(s->engine.kind), offsetof(struct engine_flags, gpu_memory_utilization)))
        return cli_fail("solve --utilization: needs --engine vllm");
    double found = solve_min_utilization(s, job->need);
    if (job->json) {
        struct jsonout jo = json_one("utilization", job->need, s, found > 0);
        jsonout_double_or_null(&jo, "gpu_memory_utilization", found, found > 0);
        return solve_json_print(&jo, found > 0 ? 0 : 1);
    }
    const char *pl = plural(job->need);
    unsigned long long ctx = s->context_tokens;
    if (found == 0) {
        printf("no --gpu-memory-utilization serves %llu user%s at %llu tokens\n",
               (unsigned long long)job->need, pl, ctx);
        return 1;
    }
    printf("smallest --gpu-memory-utilization serving %llu user%s at %llu tokens: %.2f\n",
           (unsigned long long)job->need, pl, ctx, found);
    return 0;
}

/* The fewest GPUs of each type (the --gpu ones, else every type the engine
 * runs on) that serve the users; false when the search is over budget or a
 * GPU is unknown. */
static bool solve_rows(const struct solve_job *job, const struct options *o,
                       const struct catalog *cat, const struct scenario *base,
                       struct solve_table *t, struct diag *d)
{
    size_t count = o->solve_gpu_count ? (size_t)o->solve_gpu_count : cat->gpu_count;
    uint64_t plans_left = job->max_plans;
    t->count = t->skipped = 0;
    size_t unified = 0;
    for (size_t i = 0; i < count; i++) {
        const char *id = o->solve_gpu_count ? o->solve_gpus[i] : NULL;
        const struct catalog_gpu *g = id ? catalog_find_gpu(cat, id) : &cat->gpus[i];
        if (g == NULL) {
            char near[256];
            catalog_suggest(cat, PRESET_GPU, id, near, sizeof near);
            return diag_fail(d, "%s: unknown GPU '%s' (closest: %s)", OPTION_FLAG(OPT_SOLVE_GPU),
                             id, near);
        }
        if (!id && !engine_runs_on(base->engine.kind, g->spec.vendor)) {
            t->skipped++; /* the engine's profile does not model this vendor's parts */
            continue;
        }
        struct scenario s = *base;
        s.gpu = g->spec;
        s.pp = 0; /* solve picks the stages */
        calibration_follow(cat, base, &s); /* a logged cache measured on another GPU */
        /* Apple silicon's cap: refused past a Mac named (core/spec.h
         * spec_wired_limit_max); a smaller Mac of the catalogue keeps macOS's */
        uint64_t most = spec_wired_limit_max(g->spec.unified_bytes);
        if (job->wired_limit_mb && g->spec.unified_bytes && id &&
            (uint64_t)job->wired_limit_mb * MIB > most)
            return diag_fail(d, "%s: %u MiB leaves macOS too little of the %llu MiB %s has: at "
                             "most %llu MiB (80%% of it, or all but 5 GiB)",
                             OPTION_FLAG(OPT_WIRED_LIMIT), job->wired_limit_mb,
                             (unsigned long long)(g->spec.unified_bytes / MIB), g->spec.id,
                             (unsigned long long)(most / MIB));
        if (job->wired_limit_mb && g->spec.unified_bytes &&
            (uint64_t)job->wired_limit_mb * MIB <= most) {
            s.wired_limit_mb = job->wired_limit_mb;
            unified++;
        }
        struct solve_row *row = &t->rows[t->count];
        row->gpu = &g->spec;
        row->split = solve_gpus(&s, job->need, job->max_gpus,
                                job->max_pp > base->pp ? job->max_pp : base->pp, &plans_left,
                                job->engine_context);
        if (row->split.why == UNSOLVED_OVER_BUDGET)
            return diag_fail(d,
                             "solve: more than %llu layouts to plan (up to %u GPUs%s of each "
                             "type) before %llu users are served; lower --max-gpus or "
                             "--max-pp, name GPU types with --gpu, or allow more with "
                             "--max-plans N",
                             (unsigned long long)job->max_plans, job->max_gpus,
                             job->max_pp > 1 ? " in pipeline stages" : "",
                             (unsigned long long)job->need);
        row_costs(&s, row);
        t->count++;
    }
    if (job->wired_limit_mb && o->solve_gpu_count && unified == 0)
        return diag_fail(d, "%s: none of the GPUs compared has unified memory: the wired limit "
                         "is macOS's, on Apple silicon", OPTION_FLAG(OPT_WIRED_LIMIT));
    qsort(t->rows, (size_t)t->count, sizeof t->rows[0], by_cost);
    return true;
}

static int print_rows_json(const struct solve_job *job, const struct scenario *base,
                           const struct solve_table *t)
{
    const struct solve_row *rows = t->rows;
    int nrows = t->count;
    struct jsonout jo = json_head("gpus", job->need, base);
    jsonout_double_or_null(&jo, "min_tok_s", base->min_tokens_per_s, base->min_tokens_per_s > 0);
    jsonout_double_or_null(&jo, "max_ttft_s", base->max_ttft_seconds, base->max_ttft_seconds > 0);
    jsonout_uint(&jo, "max_gpus", job->max_gpus);
    jsonout_uint(&jo, "gpu_types_left_out", (uint64_t)t->skipped);
    cJSON *list = cJSON_CreateArray();
    bool any = false;
    for (int i = 0; i < nrows && list; i++) {
        any = any || rows[i].split.solved;
        cJSON *item = json_row(&rows[i], job->engine_context);
        if (item == NULL || !cJSON_AddItemToArray(list, item)) {
            cJSON_Delete(item);
            cJSON_Delete(list);
            list = NULL;
        }
    }
    jsonout_object(&jo, "rows", list);
    jsonout_bool(&jo, "solved", any);
    return solve_json_print(&jo, any ? 0 : 1);
}

/* The service level and the question, above the table. */
static void print_rows_head(const struct solve_job *job, const struct scenario *base)
{
    char ctx[64];
    const char *pl = plural(job->need);
    if (base->min_tokens_per_s > 0 && base->max_ttft_seconds > 0)
        printf("Each user keeping %g tok/s, the first token within %g s.\n", base->min_tokens_per_s,
               base->max_ttft_seconds);
    else if (base->min_tokens_per_s > 0)
        printf("Each user keeping %g tok/s (no first-token target).\n", base->min_tokens_per_s);
    else if (base->max_ttft_seconds > 0)
        printf("Each user's first token within %g s (no speed target).\n", base->max_ttft_seconds);
    char engine[64];
    if (job->engine_context) /* the context of each row is the engine's own there */
        snprintf(ctx, sizeof ctx, "%s's default context", engine_desc(base->engine.kind)->title);
    else
        units_format_tokens_short(base->context_tokens, ctx, sizeof ctx);
    printf("%llu user%s at %s%s of %s (%s), up to %u GPU%s:\n\n", (unsigned long long)job->need,
           pl, ctx, job->engine_context ? " (its num_ctx on each layout's GPUs; --context sets one)"
                                        : " tokens", base->model.name,
           engine_version_title(base->engine.kind, base->engine.rule, engine, sizeof engine),
           job->max_gpus, job->max_gpus == 1 ? "" : "s");
}

/* A solved row's figures as the table writes them: the prices as plan
 * prints them, the speeds and their bands in the sweep's forms. */
struct row_figures {
    char per_m[32], per_m_in[32], user_h[32], speed[32], band[48], ttft[32], tband[48];
};

static void row_figures(const struct solve_row *row, struct row_figures *f)
{
    char usd[32];
    snprintf(f->per_m, sizeof f->per_m, "-");
    snprintf(f->per_m_in, sizeof f->per_m_in, "-");
    snprintf(f->user_h, sizeof f->user_h, "-");
    snprintf(f->speed, sizeof f->speed, "n/a");
    snprintf(f->band, sizeof f->band, "n/a");
    snprintf(f->ttft, sizeof f->ttft, "n/a");
    snprintf(f->tband, sizeof f->tband, "n/a");
    if (row->cost_output >= 0)
        snprintf(f->per_m, sizeof f->per_m, "%s", cli_usd_digits(row->cost_output, usd));
    if (row->cost_input >= 0)
        snprintf(f->per_m_in, sizeof f->per_m_in, "%s", cli_usd_digits(row->cost_input, usd));
    if (row->cost_user_hour >= 0)
        snprintf(f->user_h, sizeof f->user_h, "%s", cli_usd_digits(row->cost_user_hour, usd));
    if (row->tok_s > 0)
        snprintf(f->speed, sizeof f->speed, "%.1f", row->tok_s);
    if (row->tok_s_low > 0)
        snprintf(f->band, sizeof f->band, "%.1f-%.1f", row->tok_s_low, row->tok_s_high);
    if (row->ttft > 0)
        snprintf(f->ttft, sizeof f->ttft, "%.3f s", row->ttft);
    if (row->ttft_low > 0)
        snprintf(f->tband, sizeof f->tband, "%.3f-%.3f s", row->ttft_low, row->ttft_high);
}

/* Why a row is not solved, in words. */
static const char *unsolved_words(const struct solve_split *sp)
{
    return sp->why == UNSOLVED_NO_COMPUTE
               ? "no compute figure: the --max-ttft target cannot be checked"
           : sp->why == UNSOLVED_NO_BANDWIDTH
               ? "no bandwidth figure: the speed targets cannot be checked"
               : "needs more GPUs";
}

/* One line per GPU type; returns how many are solved. */
static int print_rows_table(const struct solve_row *rows, int nrows, bool engine_context)
{
    bool any_pp = false;
    for (int i = 0; i < nrows; i++)
        any_pp = any_pp || rows[i].split.pp > 1;
    printf("%-16s %5s %12s %8s %10s %10s %10s %10s %10s %13s %9s %15s%s\n", "GPU", "GPUS",
           any_pp ? "TPxPPxREPL" : "TP x REPL", "USERS", "$/HOUR", "$/1M OUT", "$/1M IN", "$/USER-H",
           "TOK/S/USER", "TOK/S BAND", "TTFT", "TTFT BAND", engine_context ? "    CONTEXT" : "");
    int solved = 0;
    for (int i = 0; i < nrows; i++) {
        const struct solve_split *sp = &rows[i].split;
        if (!sp->solved) {
            printf("%-16s %5s %12s %8s (%s)\n", rows[i].gpu->id, "-", "-", "-",
                   unsolved_words(sp));
            continue;
        }
        solved++;
        char split[32], cost[32] = "-";
        if (any_pp)
            snprintf(split, sizeof split, "%ux%ux%u", sp->tp, sp->pp, sp->gpus / (sp->tp * sp->pp));
        else
            snprintf(split, sizeof split, "%u x %u", sp->tp, sp->gpus / sp->tp);
        if (sp->cost_per_hour >= 0)
            snprintf(cost, sizeof cost, "%.2f", sp->cost_per_hour);
        struct row_figures f;
        row_figures(&rows[i], &f);
        char ctx[32] = "";
        if (engine_context)
            snprintf(ctx, sizeof ctx, " %10llu", (unsigned long long)sp->context_tokens);
        printf("%-16s %5u %12s %8llu %10s %10s %10s %10s %10s %13s %9s %15s%s\n",
               rows[i].gpu->id, sp->gpus, split, (unsigned long long)sp->users, cost, f.per_m,
               f.per_m_in, f.user_h, f.speed, f.band, f.ttft, f.tband, ctx);
    }
    return solved;
}

static int print_rows_text(const struct solve_job *job, const struct scenario *base,
                           const struct solve_table *t)
{
    const struct solve_row *rows = t->rows;
    int nrows = t->count, skipped = t->skipped;
    print_rows_head(job, base);
    int solved = print_rows_table(rows, nrows, job->engine_context);
    for (int i = 0; i < nrows; i++) { /* a Mac's split, and the sysctl */
        if (!rows[i].split.solved || rows[i].split.gpus != 1 || !rows[i].gpu->unified_bytes)
            continue;
        struct scenario s = *base;
        s.gpu = *rows[i].gpu;
        if (rows[i].split.parallel)
            s.engine.parallel = rows[i].split.parallel;
        if (job->wired_limit_mb &&
            (uint64_t)job->wired_limit_mb * MIB <= spec_wired_limit_max(s.gpu.unified_bytes))
            s.wired_limit_mb = job->wired_limit_mb;
        solve_mac_note(&s);
    }
    uint32_t wide = 0, domain = SPEC_GPUS_PER_NODE; /* the widest tensor parallel past one node */
    for (int i = 0; i < nrows; i++)
        if (rows[i].split.solved && rows[i].split.tp > spec_gpu_domain(rows[i].gpu) &&
            rows[i].split.tp > wide) {
            wide = rows[i].split.tp;
            domain = spec_gpu_domain(rows[i].gpu);
        }
    if (wide && !engine_desc(base->engine.kind)->splits_layers) /* a layer split has no TP */
        printf("(TP %u spans nodes of %d GPUs: its all-reduces run over the network; --max-pp N "
               "lets solve put pipeline stages between nodes instead, as engines do)\n",
               wide, domain);
    printf("($/HOUR: each GPU type's price an hour, %s, times its GPUs; $/1M OUT: $/HOUR over "
           "the output tokens an hour of the USERS decoding at once; $/1M IN: $/HOUR over the "
           "prompt tokens an hour at the prefill rate; $/USER-H: $/HOUR over the "
           "USERS; TOK/S/USER, TTFT: each user's speed and first token at USERS decoding at "
           "once, as kvplan plan gives them for that layout, and their BANDs, the least and the "
           "most measured/predicted ratio of the public measurements)\n",
           base->has_price ? "--price" : "its preset's");
    if (skipped) {
        char vendors[64];
        engine_vendors_text(base->engine.kind, vendors, sizeof vendors);
        printf("(%d GPU types of other vendors left out: %s is modelled on %s)\n", skipped,
               engine_label(base->engine.kind, base->engine.rule), vendors);
    }
    if (solved > 0)
        return 0;
    printf("(no GPU type serves it within %u GPUs; raise --max-gpus)\n", job->max_gpus);
    return 1;
}

/* The GPU table in Markdown: the question, a row per GPU type as the text's
 * (cheapest first), and what the columns are. */
static int print_rows_markdown(const struct solve_job *job, const struct scenario *base,
                               const struct solve_table *t)
{
    print_rows_head(job, base);
    printf("| GPU | GPUs | TP x PP x replicas | Users | $/hour | $/1M output | $/1M input | "
           "$/user-hour | tok/s per user | tok/s band | TTFT | TTFT band |%s\n|---|---|---|---|"
           "---|---|---|---|---|---|---|---|%s\n", job->engine_context ? " Context |" : "",
           job->engine_context ? "---|" : "");
    int solved = 0;
    for (int i = 0; i < t->count; i++) {
        const struct solve_row *row = &t->rows[i];
        const struct solve_split *sp = &row->split;
        if (!sp->solved) {
            printf("| %s | - | - | - | %s | | | | | | | |%s\n", row->gpu->id, unsolved_words(sp),
                   job->engine_context ? " |" : "");
            continue;
        }
        solved++;
        struct row_figures f;
        row_figures(row, &f);
        char cost[32] = "-", ctx[32] = "";
        uint32_t pp = sp->pp ? sp->pp : 1;
        if (sp->cost_per_hour >= 0)
            snprintf(cost, sizeof cost, "%.2f", sp->cost_per_hour);
        if (job->engine_context)
            snprintf(ctx, sizeof ctx, " %llu |", (unsigned long long)sp->context_tokens);
        printf("| %s | %u | %u x %u x %u | %llu | %s | %s | %s | %s | %s | %s | %s | %s |%s\n",
               row->gpu->id, sp->gpus, sp->tp, pp, sp->gpus / (sp->tp * pp),
               (unsigned long long)sp->users, cost, f.per_m, f.per_m_in, f.user_h, f.speed,
               f.band, f.ttft, f.tband, ctx);
    }
    printf("\n$/hour: each GPU type's price an hour (%s) times its GPUs; $/1M output: $/hour "
           "over the output tokens an hour of the users decoding at once; $/1M input: $/hour "
           "over the prompt tokens an hour at the prefill rate; $/user-hour: $/hour "
           "over the users; tok/s per user and TTFT: as kvplan plan gives them for that layout, "
           "with their bands (the least and the most measured/predicted ratio of the public "
           "measurements).\n", base->has_price ? "--price" : "its preset's");
    if (solved > 0)
        return 0;
    printf("\nNo GPU type serves it within %u GPUs; raise --max-gpus.\n", job->max_gpus);
    return 1;
}

/* The GPU types compared, cheapest first. */
static int solve_compare(const struct solve_job *job, const struct options *o,
                         const struct catalog *cat, const struct scenario *base)
{
    size_t count = o->solve_gpu_count ? (size_t)o->solve_gpu_count : cat->gpu_count;
    struct solve_table t = {.rows = calloc(count ? count : 1, sizeof *t.rows)};
    if (t.rows == NULL)
        return cli_fail("out of memory");
    int status;
    struct diag d = {0};
    bool rows = solve_rows(job, o, cat, base, &t, &d);
    options_calibration_rows_done();
    if (!rows)
        status = cli_fail(d.message);
    else if (job->json)
        status = print_rows_json(job, base, &t);
    else if (job->markdown)
        status = print_rows_markdown(job, base, &t);
    else
        status = print_rows_text(job, base, &t);
    free(t.rows);
    return status;
}

/* The options, the question and its bounds; CLI_PARSED to go on, else the
 * exit status. */
static int solve_parse(int argc, char **argv, struct options *o, struct solve_job *job)
{
    struct diag d = {0};
    int parsed = cli_parse(CMD_SOLVE, argc, argv, o);
    if (parsed != CLI_PARSED)
        return parsed;
    if (o->format == FORMAT_MARKDOWN &&
        (solve_slo_asked(o) || o->given[OPT_MAX_CONTEXT] || o->given[OPT_UTILIZATION])) {
        diag_fail(&d, "%s markdown: only the GPU table of solve %s N is Markdown; %s, %s and "
                  "%s write text or json", OPTION_FLAG(OPT_FORMAT), OPTION_FLAG(OPT_USERS),
                  OPTION_FLAG(OPT_MAX_CONTEXT), OPTION_FLAG(OPT_UTILIZATION),
                  OPTION_FLAG(OPT_REQUEST_RATE));
        return cli_fail(d.message);
    }
    if (solve_slo_asked(o))
        return solve_slo(argc, argv, o);
    if (!simulate_goodput_words(argc, argv, o, &d))
        return cli_fail(d.message);
    if (!o->given[OPT_USERS]) {
        diag_fail(&d, "solve: %s N is required", OPTION_FLAG(OPT_USERS));
        return cli_fail(d.message);
    }
    bool one = o->given[OPT_MAX_CONTEXT] || o->given[OPT_UTILIZATION];
    /* With --max-context or --utilization, --gpu is the scenario's one GPU
     * (the last given); otherwise each --gpu adds a type to compare. */
    if (!one && o->solve_gpu_count > OPTIONS_SOLVE_GPUS_MAX) {
        diag_fail(&d, "%s: at most %d GPU types to compare", OPTION_FLAG(OPT_SOLVE_GPU),
                  OPTIONS_SOLVE_GPUS_MAX);
        return cli_fail(d.message);
    }
    if (!one)
        o->gpu_id = NULL;
    *job = (struct solve_job){
        .need = o->users,
        .max_gpus = o->given[OPT_MAX_GPUS] ? o->max_gpus : 256,
        .max_pp = o->given[OPT_MAX_PP] ? o->max_pp : 1,
        .max_plans = o->given[OPT_MAX_PLANS] ? o->max_plans : SOLVE_MAX_PLANS,
        .json = o->format == FORMAT_JSON,
        .markdown = o->format == FORMAT_MARKDOWN,
    };
    if (!one && o->given[OPT_WIRED_LIMIT]) { /* each GPU type of unified memory takes it */
        job->wired_limit_mb = o->wired_limit_mb;
        o->given[OPT_WIRED_LIMIT] = false;
    }
    return CLI_PARSED;
}

int cmd_solve(int argc, char **argv)
{
    struct options o;
    struct solve_job job = {0};
    int status = solve_parse(argc, argv, &o, &job);
    if (status != CLI_PARSED)
        return status;
    if (o.given[OPT_MAX_CONTEXT] && o.given[OPT_UTILIZATION])
        return cli_fail("solve: --max-context and --utilization ask two questions: give one of them");
    struct catalog cat;
    struct scenario base;
    struct diag d = {0};
    if (!options_load(&o, &cat, &base, &d))
        return cli_fail(d.message);
    enum solve_unsolved why;
    bool max_context = o.given[OPT_MAX_CONTEXT];
    /* as options_apply gives such an engine its default context */
    job.engine_context = engine_desc(base.engine.kind)->default_context &&
                         !o.given[OPT_CONTEXT] && !o.load_path && !o.calibration_path;
    if ((max_context || o.given[OPT_UTILIZATION]) && solve_unchecked(&base, &why))
        status = print_unchecked(&job, &base, max_context, why);
    else if (max_context)
        status = print_max_context(&job, &base);
    else if (o.given[OPT_UTILIZATION])
        status = print_utilization(&job, &base);
    else
        status = solve_compare(&job, &o, &cat, &base);
    catalog_free(&cat);
    return status;
}
