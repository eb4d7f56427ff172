/* solve: the GPUs, context or memory fraction that serve a number of users. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "core/capacity.h"
#include "core/version.h"


struct solve_row {
    const struct gpu_spec *gpu;
    bool solved;
    uint32_t gpus, tp;
    uint64_t users;
    double cost;
};

static int by_cost(const void *a, const void *b)
{
    const struct solve_row *x = a, *y = b;
    if (x->solved != y->solved)
        return x->solved ? -1 : 1;
    if ((x->cost < 0) != (y->cost < 0))
        return x->cost < 0 ? 1 : -1;
    if (x->cost != y->cost)
        return x->cost < y->cost ? -1 : 1;
    return x->gpus < y->gpus ? -1 : x->gpus > y->gpus;
}

static uint64_t users_of(const struct scenario *s, bool *ok)
{
    struct plan_result r;
    struct diag d = {0};
    *ok = capacity_compute_numbers(s, &r, &d);
    if (!*ok)
        return 0;
    return s->engine.kind == ENGINE_GENERIC ? r.max_users : r.engine.users;
}

int cmd_solve(int argc, char **argv)
{
    /* solve's own flags come first; the rest are scenario options */
    uint64_t need = 0;
    bool max_context = false, utilization = false;
    uint32_t max_gpus = 256;
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
        } else if (strcmp(argv[i], "--gpu") == 0 && i + 1 < argc && !max_context &&
                   !utilization && ngpu < 64) {
            gpu_list[ngpu++] = argv[++i];
        } else {
            rest[nrest++] = argv[i];
        }
    }
    rest[nrest] = NULL;
    struct options o;
    bool help = false;
    bool ok = options_parse(nrest, rest, &o, &help, &d);
    free(rest);
    if (!ok)
        return cli_fail(d.message);
    if (help) {
        printf("Usage: kvplan solve --users N --context L --model M [--gpu ID ...] [--engine E]\n"
               "       kvplan solve --users N --max-context --gpu ID --gpus G [...]\n"
               "       kvplan solve --users N --utilization --engine vllm --gpu ID [...]\n\n"
               "The smallest GPU count and tensor-parallel x replica split of each GPU type\n"
               "that serves N users, sorted by cost; or the longest context, or the smallest\n"
               "--gpu-memory-utilization, that still serves N users.\n");
        return 0;
    }
    if (need == 0)
        return cli_fail("solve: --users N is required");
    struct catalog cat;
    struct scenario base;
    if (!options_load(&o, &cat, &base, &d))
        return cli_fail(d.message);
    int status = 0;
    if (max_context || utilization) {
        struct scenario s = base;
        if (max_context) {
            /* users fall as context grows: binary search the last context that serves N */
            uint64_t lo = s.prefix_tokens + 1, hi = TOKENS_MAX, best = 0;
            while (lo <= hi) {
                uint64_t mid = lo + (hi - lo) / 2;
                s.context_tokens = mid;
                if (s.avg_context_tokens >= mid)
                    s.avg_context_tokens = 0;
                bool good;
                uint64_t u = users_of(&s, &good);
                if (good && u >= need) {
                    best = mid;
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            if (best == 0) {
                printf("no context serves %llu users on %u x %s\n", (unsigned long long)need,
                       s.gpus, s.gpu.name);
                status = 1;
            } else {
                char t[48];
                printf("longest context serving %llu users on %u x %s (%s): %s tokens\n",
                       (unsigned long long)need, s.gpus, s.gpu.name,
                       engine_label(s.engine.kind, s.engine.rule),
                       units_format_tokens(best, t, sizeof t));
            }
        } else {
            if (s.engine.kind != ENGINE_VLLM) {
                catalog_free(&cat);
                return cli_fail("solve --utilization: needs --engine vllm");
            }
            double found = 0;
            for (int pct = 1; pct <= 100 && found == 0; pct++) {
                s.engine.gpu_memory_utilization = pct / 100.0;
                bool good;
                if (users_of(&s, &good) >= need && good)
                    found = pct / 100.0;
            }
            if (found == 0) {
                printf("no --gpu-memory-utilization serves %llu users at %llu tokens\n",
                       (unsigned long long)need, (unsigned long long)s.context_tokens);
                status = 1;
            } else {
                printf("smallest --gpu-memory-utilization serving %llu users at %llu tokens: "
                       "%.2f\n",
                       (unsigned long long)need, (unsigned long long)s.context_tokens, found);
            }
        }
        catalog_free(&cat);
        return status;
    }
    struct solve_row rows[256];
    int nrows = 0;
    size_t count = ngpu ? (size_t)ngpu : cat.gpu_count;
    for (size_t i = 0; i < count && nrows < 256; i++) {
        const struct catalog_gpu *g = ngpu ? catalog_find_gpu(&cat, gpu_list[i]) : &cat.gpus[i];
        if (g == NULL) {
            char near[256];
            catalog_suggest(&cat, PRESET_GPU, gpu_list[i], near, sizeof near);
            diag_fail(&d, "--gpu: unknown GPU '%s' (closest: %s)", gpu_list[i], near);
            catalog_free(&cat);
            return cli_fail(d.message);
        }
        struct scenario s = base;
        s.gpu = g->spec;
        bool solved = false;
        for (uint32_t n = 1; n <= max_gpus && !solved; n++) {
            /* the largest tensor-parallel size first: fewer weight copies */
            for (uint32_t tp = n; tp >= 1 && !solved; tp--) {
                if (n % tp != 0 || tp > 64)
                    continue;
                s.gpus = n;
                s.tp = tp;
                struct plan_result r;
                struct diag ignore = {0};
                if (!capacity_compute_numbers(&s, &r, &ignore))
                    continue;
                if (r.warnings & WARN_HEADS_UNEVEN_SPLIT)
                    continue; /* engines refuse a split the heads cannot take */
                uint64_t u = s.engine.kind == ENGINE_GENERIC ? r.max_users : r.engine.users;
                if (u >= need) {
                    rows[nrows].gpu = &g->spec;
                    rows[nrows].solved = true;
                    rows[nrows].gpus = n;
                    rows[nrows].tp = tp;
                    rows[nrows].users = u;
                    rows[nrows].cost = g->spec.price_usd_per_hour >= 0
                                           ? g->spec.price_usd_per_hour * n
                                           : -1;
                    nrows++;
                    solved = true;
                }
            }
        }
        if (!solved) {
            rows[nrows].gpu = &g->spec;
            rows[nrows].solved = false;
            rows[nrows].cost = -1;
            nrows++;
        }
    }
    qsort(rows, (size_t)nrows, sizeof rows[0], by_cost);
    char ctx[32];
    printf("%llu users at %s tokens of %s (%s), up to %u GPUs:\n\n", (unsigned long long)need,
           units_format_tokens_short(base.context_tokens, ctx, sizeof ctx), base.model.name,
           engine_label(base.engine.kind, base.engine.rule), max_gpus);
    printf("%-16s %5s %12s %8s %10s\n", "GPU", "GPUS", "TP x REPL", "USERS", "$/HOUR");
    int solved = 0;
    for (int i = 0; i < nrows; i++) {
        if (!rows[i].solved) {
            printf("%-16s %5s %12s %8s %10s\n", rows[i].gpu->id, "-", "-", "-",
                   "(needs more GPUs)");
            continue;
        }
        solved++;
        char split[32], cost[32] = "-";
        snprintf(split, sizeof split, "%u x %u", rows[i].tp, rows[i].gpus / rows[i].tp);
        if (rows[i].cost >= 0)
            snprintf(cost, sizeof cost, "%.2f", rows[i].cost);
        printf("%-16s %5u %12s %8llu %10s\n", rows[i].gpu->id, rows[i].gpus, split,
               (unsigned long long)rows[i].users, cost);
    }
    if (solved == 0) {
        printf("(no GPU type serves it within %u GPUs; raise --max-gpus)\n", max_gpus);
        status = 1;
    }
    catalog_free(&cat);
    return status;
}

