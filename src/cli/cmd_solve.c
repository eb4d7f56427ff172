/* solve: the GPUs, context or memory fraction that serve a number of users. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "core/engine_desc.h"
#include "core/solve.h"
#include "core/speed.h"
#include "core/text.h"
#include "core/version.h"
#include "io/jsonout.h"


/* The layouts one solve may plan unless --max-plans says more: a few seconds
 * of work; --max-gpus 4096 --max-pp 64 over every GPU type is 2.1M. */
enum { SOLVE_MAX_PLANS = 1000000 };

struct solve_row {
    const struct gpu_spec *gpu;
    struct solve_split split;
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
    jsonout_uint(&o, "context_tokens", s->context_tokens);
    return o;
}

static int json_print(struct jsonout *o, int status)
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

static cJSON *json_row(const struct solve_row *row)
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
        jsonout_double_or_null(&o, "usd_per_hour", sp->cost_per_hour, sp->cost_per_hour >= 0);
        jsonout_null(&o, "why");
    } else {
        jsonout_string(&o, "why", sp->why == UNSOLVED_NO_COMPUTE     ? "no compute figure"
                                  : sp->why == UNSOLVED_NO_BANDWIDTH ? "no bandwidth figure"
                                                                     : "needs more GPUs");
    }
    return jsonout_end(&o);
}

int cmd_solve(int argc, char **argv)
{
    /* solve's own flags come first; the rest are scenario options */
    uint64_t need = 0;
    bool max_context = false, utilization = false;
    uint32_t max_gpus = 256;
    uint32_t max_pp = 1;
    uint64_t max_plans = SOLVE_MAX_PLANS;
    const char *gpu_list[64];
    int ngpu = 0;
    char **rest = cli_rest_args(argc, argv);
    if (rest == NULL)
        return cli_fail("out of memory");
    int nrest = 1;
    struct diag d = {0};
    /* With --max-context or --utilization, --gpu is the scenario's one GPU, wherever
     * it stands on the line; otherwise each --gpu adds a type to compare. */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--max-context") == 0)
            max_context = true;
        else if (strcmp(argv[i], "--utilization") == 0)
            utilization = true;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--users") == 0 && i + 1 < argc) {
            if (!options_parse_count("--users", argv[++i], 1, 1000000000000ull, &need, &d)) {
                free(rest);
                return cli_fail(d.message);
            }
        } else if (strcmp(argv[i], "--max-context") == 0 ||
                   strcmp(argv[i], "--utilization") == 0) {
            continue; /* read above */
        } else if (strcmp(argv[i], "--max-gpus") == 0 && i + 1 < argc) {
            uint64_t n;
            if (!options_parse_count("--max-gpus", argv[++i], 1, 4096, &n, &d)) {
                free(rest);
                return cli_fail(d.message);
            }
            max_gpus = (uint32_t)n;
        } else if (strcmp(argv[i], "--max-pp") == 0 && i + 1 < argc) {
            uint64_t n;
            if (!options_parse_count("--max-pp", argv[++i], 1, 64, &n, &d)) {
                free(rest);
                return cli_fail(d.message);
            }
            max_pp = (uint32_t)n;
        } else if (strcmp(argv[i], "--max-plans") == 0 && i + 1 < argc) {
            if (!options_parse_count("--max-plans", argv[++i], 1, UINT64_MAX, &max_plans, &d)) {
                free(rest);
                return cli_fail(d.message);
            }
        } else if (strcmp(argv[i], "--gpu") == 0 && i + 1 < argc && !max_context &&
                   !utilization && ngpu < 64) {
            gpu_list[ngpu++] = argv[++i];
        } else {
            /* solve has no Markdown: name what it writes before the general parser
             * lists the formats of plan */
            const char *f = strcmp(argv[i], "--format") == 0 && i + 1 < argc ? argv[i + 1]
                            : strncmp(argv[i], "--format=", 9) == 0     ? argv[i] + 9
                                                                        : NULL;
            if (f && strcmp(f, "text") != 0 && strcmp(f, "json") != 0) {
                char shown[64];
                text_escape(f, shown, sizeof shown);
                diag_fail(&d, "--format: solve writes text or json, not %s", shown);
                free(rest);
                return cli_fail(d.message);
            }
            rest[nrest++] = argv[i];
        }
    }
    rest[nrest] = NULL;
    struct options o;
    bool help = false;
    bool ok = options_exact_names("solve", nrest, rest, &d) &&
              options_parse(nrest, rest, &o, &help, &d);
    free(rest);
    if (!ok)
        return cli_fail(d.message);
    if (help) {
        printf("Usage: kvplan solve --users N --context L --model M [--gpu ID ...] [--engine E]\n"
               "       kvplan solve --users N --max-context --gpu ID --gpus G [...]\n"
               "       kvplan solve --users N --utilization --engine vllm --gpu ID [...]\n\n"
               "The smallest GPU count and tensor-parallel x replica split of each GPU type\n"
               "that serves N users, sorted by cost; or the longest context, or the smallest\n"
               "--gpu-memory-utilization, that still serves N users.\n"
               "  --max-gpus N   GPUs to consider per type (default 256)\n"
               "  --max-pp N     also consider N pipeline stages or fewer (layouts past one\n"
               "                 node; the fewest stages that serve N users are chosen)\n"
               "  --max-plans N  layouts to try in all before giving up (default 1000000,\n"
               "                 a few seconds)\n"
               "  --format text|json  the answer as text (default) or JSON (doc/FORMATS.md)\n"
               "Options are spelled out in full: an abbreviation is refused.\n");
        return 0;
    }
    if (need == 0)
        return cli_fail("solve: --users N is required");
    if (o.format == FORMAT_MARKDOWN)
        return cli_fail("--format: solve writes text or json, not markdown");
    bool json = o.format == FORMAT_JSON;
    struct catalog cat;
    struct scenario base;
    if (!options_load(&o, &cat, &base, &d))
        return cli_fail(d.message);
    int status = 0;
    if (max_context || utilization) {
        struct scenario s = base;
        enum solve_unsolved why;
        if (solve_unchecked(&s, &why)) {
            bool compute = why == UNSOLVED_NO_COMPUTE;
            if (json) {
                struct jsonout jo = json_head(max_context ? "max_context" : "utilization", need, &s);
                jsonout_string(&jo, "gpu", s.gpu.id);
                jsonout_uint(&jo, "gpus", s.gpus);
                jsonout_bool(&jo, "solved", false);
                jsonout_string(&jo, "why", compute ? "no compute figure" : "no bandwidth figure");
                catalog_free(&cat);
                return json_print(&jo, 1);
            }
            printf("%s has no %s figure: the %s target cannot be checked, so no %s serves "
                   "%llu user%s\n", s.gpu.name, compute ? "compute" : "bandwidth",
                   compute ? "--max-ttft" : "speed",
                   max_context ? "context" : "--gpu-memory-utilization", (unsigned long long)need,
                   need == 1 ? "" : "s");
            catalog_free(&cat);
            return 1;
        }
        if (max_context) {
            uint64_t best = solve_max_context(&s, need);
            if (json) {
                struct jsonout jo = json_head("max_context", need, &s);
                jsonout_string(&jo, "gpu", s.gpu.id);
                jsonout_uint(&jo, "gpus", s.gpus);
                jsonout_bool(&jo, "solved", best > 0);
                jsonout_uint(&jo, "max_context_tokens", best);
                catalog_free(&cat);
                return json_print(&jo, best > 0 ? 0 : 1);
            }
            if (best == 0) {
                printf("no context serves %llu user%s on %u x %s\n", (unsigned long long)need,
                       need == 1 ? "" : "s", s.gpus, s.gpu.name);
                status = 1;
            } else {
                char t[48];
                printf("longest context serving %llu user%s on %u x %s (%s): %s tokens\n",
                       (unsigned long long)need, need == 1 ? "" : "s", s.gpus, s.gpu.name,
                       engine_label(s.engine.kind, s.engine.rule),
                       units_format_tokens(best, t, sizeof t));
            }
        } else {
            if (!engine_knob(engine_desc(s.engine.kind),
                             offsetof(struct engine_flags, gpu_memory_utilization))) {
                catalog_free(&cat);
                return cli_fail("solve --utilization: needs --engine vllm");
            }
            double found = solve_min_utilization(&s, need);
            if (json) {
                struct jsonout jo = json_head("utilization", need, &s);
                jsonout_string(&jo, "gpu", s.gpu.id);
                jsonout_uint(&jo, "gpus", s.gpus);
                jsonout_bool(&jo, "solved", found > 0);
                jsonout_double_or_null(&jo, "gpu_memory_utilization", found, found > 0);
                catalog_free(&cat);
                return json_print(&jo, found > 0 ? 0 : 1);
            }
            if (found == 0) {
                printf("no --gpu-memory-utilization serves %llu user%s at %llu tokens\n",
                       (unsigned long long)need, need == 1 ? "" : "s", (unsigned long long)s.context_tokens);
                status = 1;
            } else {
                printf("smallest --gpu-memory-utilization serving %llu user%s at %llu tokens: "
                       "%.2f\n",
                       (unsigned long long)need, need == 1 ? "" : "s", (unsigned long long)s.context_tokens, found);
            }
        }
        catalog_free(&cat);
        return status;
    }
    size_t count = ngpu ? (size_t)ngpu : cat.gpu_count;
    struct solve_row *rows = calloc(count ? count : 1, sizeof *rows);
    if (rows == NULL) {
        catalog_free(&cat);
        return cli_fail("out of memory");
    }
    int nrows = 0, skipped = 0;
    uint64_t plans_left = max_plans;
    for (size_t i = 0; i < count; i++) {
        const struct catalog_gpu *g = ngpu ? catalog_find_gpu(&cat, gpu_list[i]) : &cat.gpus[i];
        if (g == NULL) {
            char near[256];
            catalog_suggest(&cat, PRESET_GPU, gpu_list[i], near, sizeof near);
            diag_fail(&d, "--gpu: unknown GPU '%s' (closest: %s)", gpu_list[i], near);
            free(rows);
            catalog_free(&cat);
            return cli_fail(d.message);
        }
        if (!ngpu && !engine_runs_on(base.engine.kind, g->spec.vendor)) {
            skipped++; /* the engine's profile does not model this vendor's parts */
            continue;
        }
        struct scenario s = base;
        s.gpu = g->spec;
        rows[nrows].gpu = &g->spec;
        s.pp = 0; /* solve picks the stages */
        rows[nrows].split =
            solve_gpus(&s, need, max_gpus, max_pp > base.pp ? max_pp : base.pp, &plans_left);
        if (rows[nrows].split.why == UNSOLVED_OVER_BUDGET) {
            diag_fail(&d, "solve: more than %llu layouts to plan (up to %u GPUs%s of each type) "
                          "before %llu users are served; lower --max-gpus or --max-pp, name GPU "
                          "types with --gpu, or allow more with --max-plans N",
                      (unsigned long long)max_plans, max_gpus,
                      max_pp > 1 ? " in pipeline stages" : "", (unsigned long long)need);
            free(rows);
            catalog_free(&cat);
            return cli_fail(d.message);
        }
        nrows++;
    }
    qsort(rows, (size_t)nrows, sizeof rows[0], by_cost);
    if (json) {
        struct jsonout jo = json_head("gpus", need, &base);
        jsonout_double_or_null(&jo, "min_tok_s", base.min_tokens_per_s, base.min_tokens_per_s > 0);
        jsonout_double_or_null(&jo, "max_ttft_s", base.max_ttft_seconds, base.max_ttft_seconds > 0);
        jsonout_uint(&jo, "max_gpus", max_gpus);
        jsonout_uint(&jo, "gpu_types_left_out", (uint64_t)skipped);
        cJSON *list = cJSON_CreateArray();
        bool any = false;
        for (int i = 0; i < nrows && list; i++) {
            any = any || rows[i].split.solved;
            cJSON *item = json_row(&rows[i]);
            if (item == NULL || !cJSON_AddItemToArray(list, item)) {
                cJSON_Delete(item);
                cJSON_Delete(list);
                list = NULL;
            }
        }
        jsonout_object(&jo, "rows", list);
        jsonout_bool(&jo, "solved", any);
        free(rows);
        catalog_free(&cat);
        return json_print(&jo, any ? 0 : 1);
    }
    char ctx[32];
    if (base.min_tokens_per_s > 0 && base.max_ttft_seconds > 0)
        printf("Each user keeping %g tok/s, the first token within %g s.\n",
               base.min_tokens_per_s, base.max_ttft_seconds);
    else if (base.min_tokens_per_s > 0)
        printf("Each user keeping %g tok/s (no first-token target).\n", base.min_tokens_per_s);
    else if (base.max_ttft_seconds > 0)
        printf("Each user's first token within %g s (no speed target).\n",
               base.max_ttft_seconds);
    printf("%llu user%s at %s tokens of %s (%s), up to %u GPUs:\n\n", (unsigned long long)need,
           need == 1 ? "" : "s",
           units_format_tokens_short(base.context_tokens, ctx, sizeof ctx), base.model.name,
           engine_label(base.engine.kind, base.engine.rule), max_gpus);
    bool any_pp = false;
    for (int i = 0; i < nrows; i++)
        any_pp = any_pp || rows[i].split.pp > 1;
    printf("%-16s %5s %12s %8s %10s\n", "GPU", "GPUS", any_pp ? "TPxPPxREPL" : "TP x REPL", "USERS",
           "$/HOUR");
    int solved = 0;
    for (int i = 0; i < nrows; i++) {
        const struct solve_split *sp = &rows[i].split;
        if (!sp->solved) {
            const char *why = sp->why == UNSOLVED_NO_COMPUTE
                                  ? "(no compute figure: the --max-ttft target cannot be checked)"
                              : sp->why == UNSOLVED_NO_BANDWIDTH
                                  ? "(no bandwidth figure: the speed targets cannot be checked)"
                                  : "(needs more GPUs)";
            printf("%-16s %5s %12s %8s %s\n", rows[i].gpu->id, "-", "-", "-", why);
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
        printf("%-16s %5u %12s %8llu %10s\n", rows[i].gpu->id, sp->gpus, split,
               (unsigned long long)sp->users, cost);
    }
    uint32_t wide = 0; /* the widest tensor parallel past one node */
    for (int i = 0; i < nrows; i++)
        if (rows[i].split.solved && rows[i].split.tp > SPEED_GPUS_PER_NODE && rows[i].split.tp > wide)
            wide = rows[i].split.tp;
    if (wide)
        printf("(TP %u spans nodes of %d GPUs: its all-reduces run over the network; --max-pp N "
               "lets solve put pipeline stages between nodes instead, as engines do)\n",
               wide, SPEED_GPUS_PER_NODE);
    char vendors[64];
    engine_vendors_text(base.engine.kind, vendors, sizeof vendors);
    if (skipped)
        printf("(%d GPU types of other vendors left out: %s is modelled on %s)\n", skipped,
               engine_label(base.engine.kind, base.engine.rule), vendors);
    if (solved == 0) {
        printf("(no GPU type serves it within %u GPUs; raise --max-gpus)\n", max_gpus);
        status = 1;
    }
    free(rows);
    catalog_free(&cat);
    return status;
}

