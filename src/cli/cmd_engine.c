/* calibrate, solve and sweep: the questions people ask after the first plan. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "core/capacity.h"
#include "core/version.h"
#include "io/calibration.h"
#include "io/fileio.h"
#include "io/jsonout.h"

/* ---- calibrate ----------------------------------------------------------- */

/* The fields a log of each engine should have for a full calibration. */
static const enum log_field expected_v1[] = {LF_WEIGHTS, LF_KV_MEMORY, LF_KV_TOKENS,
                                             LF_MAX_CONCURRENCY, LF_CONTEXT};
static const enum log_field expected_v0[] = {LF_TOTAL_GPU_MEMORY, LF_UTILIZATION, LF_WEIGHTS,
                                             LF_NON_TORCH, LF_ACTIVATION, LF_KV_MEMORY,
                                             LF_GPU_BLOCKS, LF_MAX_CONCURRENCY};
static const enum log_field expected_sglang[] = {LF_KV_TOKENS, LF_K_SIZE, LF_V_SIZE, LF_CONTEXT};
static const enum log_field expected_llamacpp[] = {LF_KV_MEMORY, LF_K_SIZE, LF_V_SIZE, LF_CELLS};
static const enum log_field expected_tgi[] = {LF_KV_TOKENS};

static const enum log_field *expected_fields(enum log_engine e, int *n)
{
    switch (e) {
    case LOG_VLLM_V1:
        *n = (int)(sizeof expected_v1 / sizeof expected_v1[0]);
        return expected_v1;
    case LOG_VLLM_V0:
        *n = (int)(sizeof expected_v0 / sizeof expected_v0[0]);
        return expected_v0;
    case LOG_SGLANG:
        *n = (int)(sizeof expected_sglang / sizeof expected_sglang[0]);
        return expected_sglang;
    case LOG_LLAMACPP:
    case LOG_OLLAMA:
        *n = (int)(sizeof expected_llamacpp / sizeof expected_llamacpp[0]);
        return expected_llamacpp;
    case LOG_TGI:
        *n = 1;
        return expected_tgi;
    default:
        *n = 0;
        return NULL;
    }
}

static bool is_size(enum log_field f)
{
    return f == LF_TOTAL_GPU_MEMORY || f == LF_WEIGHTS || f == LF_NON_TORCH ||
           f == LF_ACTIVATION || f == LF_KV_MEMORY || f == LF_K_SIZE || f == LF_V_SIZE ||
           f == LF_KV_NEEDED;
}

/* The KV bytes per token (per GPU, all layers) the log implies, and the
 * uncertainty from the rounding of the printed figure. */
static bool implied_per_token(const struct engine_log *log, double *bytes, double *tolerance)
{
    const struct log_figure *f = log->f;
    double kv = 0, tokens = 0, step = 0.005 * 1073741824.0; /* printed with 2 decimals in GiB */
    if ((log->engine == LOG_LLAMACPP || log->engine == LOG_OLLAMA) && f[LF_CELLS].found) {
        kv = f[LF_KV_MEMORY].found ? f[LF_KV_MEMORY].value
                                   : f[LF_K_SIZE].value + f[LF_V_SIZE].value;
        tokens = f[LF_CELLS].value;
        step = 0.005 * 1048576.0; /* MiB with 2 decimals */
    } else if (f[LF_KV_NEEDED].found && f[LF_CONTEXT].found) {
        kv = f[LF_KV_NEEDED].value; /* one max-length request */
        tokens = f[LF_CONTEXT].value;
    } else if (f[LF_KV_MEMORY].found && f[LF_KV_TOKENS].found) {
        kv = f[LF_KV_MEMORY].value;
        tokens = f[LF_KV_TOKENS].value;
        if (log->engine == LOG_SGLANG)
            step *= 2; /* K and V each rounded */
        else /* vLLM leaves up to one block of each layer unallocated */
            step += 16.0 * kv / tokens;
    }
    if (kv <= 0 || tokens <= 0)
        return false;
    *bytes = kv / tokens;
    *tolerance = step / tokens;
    return true;
}

int cmd_calibrate(int argc, char **argv)
{
    static const struct option longopts[] = {{"model", required_argument, 0, 'm'},
                                             {"gpu", required_argument, 0, 'g'},
                                             {"tp", required_argument, 0, 't'},
                                             {"kv-dtype", required_argument, 0, 'k'},
                                             {"save", required_argument, 0, 's'},
                                             {"presets", required_argument, 0, 'p'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    const char *model_id = NULL, *gpu_id = NULL, *save = NULL, *dirs[16];
    int ndirs = 0;
    uint32_t tp = 0;
    enum dtype kvd = DTYPE_AUTO;
    struct diag d = {0};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'm':
            model_id = optarg;
            break;
        case 'g':
            gpu_id = optarg;
            break;
        case 't': {
            double x;
            if (!units_parse_number(optarg, 1, 65536, &x, &d) || x != floor(x))
                return cli_fail("--tp: expected a whole number of GPUs");
            tp = (uint32_t)x;
            break;
        }
        case 'k':
            if (!dtype_parse(optarg, &kvd)) {
                diag_fail(&d, "--kv-dtype: unknown precision '%s'", optarg);
                return cli_fail(d.message);
            }
            break;
        case 's':
            save = optarg;
            break;
        case 'p':
            if (ndirs < 16)
                dirs[ndirs++] = optarg;
            break;
        case 'h':
            printf("Usage: kvplan calibrate LOGFILE [--model ID] [--gpu ID] [--tp N] "
                   "[--kv-dtype D] [--save FILE]\n\n"
                   "Reads a startup log of vLLM (V0, V1), SGLang, llama.cpp, Ollama or TGI and\n"
                   "reports every figure it prints, the KV bytes per token it implies against\n"
                   "the model's, the memory outside weights and KV, and what kvplan predicts\n"
                   "without the log. --save writes a calibration for plan --calibration.\n");
            return 0;
        default:
            return cli_option_error(c, argv);
        }
    }
    if (optind + 1 != argc)
        return cli_fail("calibrate: give one log file (see --help)");
    const char *path = argv[optind];
    size_t len = 0;
    char *text = fileio_read(path, &len, &d);
    if (text == NULL)
        return cli_fail(d.message);
    struct engine_log log;
    enginelog_parse(text, len, &log);
    free(text);
    int found = 0;
    for (int f = 0; f < LF_COUNT; f++)
        found += log.f[f].found;
    if (log.engine == LOG_UNKNOWN) {
        fprintf(stderr,
                "kvplan: %s: no engine recognised in %d lines (looked for vLLM, SGLang, "
                "llama.cpp, Ollama and TGI startup lines)%s\n",
                path, log.lines, found ? "; figures found anyway are listed below" : "");
        for (int f = 0; f < LF_COUNT; f++)
            if (log.f[f].found)
                fprintf(stderr, "  line %d: %s = %g\n", log.f[f].line, enginelog_field_name(f),
                        log.f[f].value);
        return 2;
    }
    int families = 0;
    for (unsigned bits = log.seen; bits; bits &= bits - 1)
        families++;
    if (families > 1) {
        fprintf(stderr, "kvplan: %s: lines from several engines (", path);
        for (int e = LOG_VLLM_V0; e <= LOG_TGI; e++)
            if (log.seen & (1u << e))
                fprintf(stderr, "%s%s", --families ? "" : "", enginelog_engine_name(e)),
                    fprintf(stderr, families ? ", " : "");
        fprintf(stderr, "): paste one engine's startup log so its figures are not mixed\n");
        return 2;
    }
    printf("%s: %s log, %d lines\n\nFound\n", path, enginelog_engine_name(log.engine), log.lines);
    for (int f = 0; f < LF_COUNT; f++) {
        if (!log.f[f].found)
            continue;
        char v[48];
        if (is_size((enum log_field)f))
            snprintf(v, sizeof v, "%.2f GiB", log.f[f].value / 1073741824.0);
        else if (log.f[f].value == floor(log.f[f].value) && log.f[f].value < 1e15)
            units_format_int((uint64_t)log.f[f].value, v, sizeof v);
        else
            snprintf(v, sizeof v, "%g", log.f[f].value);
        printf("  %-38s %16s   (line %d)\n", enginelog_field_name(f), v, log.f[f].line);
    }
    if (log.k_type[0]) {
        char kv[40];
        snprintf(kv, sizeof kv, "%s / %s", log.k_type, log.v_type[0] ? log.v_type : log.k_type);
        printf("  %-38s %16s\n", "cache types K / V", kv);
    }
    int n_expected;
    const enum log_field *expected = expected_fields(log.engine, &n_expected);
    int missing = 0;
    for (int i = 0; i < n_expected; i++)
        if (!log.f[expected[i]].found)
            printf("%s%s", missing++ ? ", " : "\nNot in this log (truncated or trimmed?):\n  ",
                   enginelog_field_name(expected[i]));
    if (missing)
        printf("\n");

    double implied = 0, tol = 0;
    bool has_implied = implied_per_token(&log, &implied, &tol);
    if (has_implied)
        printf("\nKV bytes per token the log implies: %.0f B (+/- %.0f from the printed rounding)\n",
               implied, tol);

    /* The model's own figure, and kvplan's prediction without the log. */
    struct catalog cat;
    catalog_init(&cat);
    int status = 0;
    uint64_t non_kv = 0, total = 0;
    if (model_id) {
        if (!catalog_load_all(&cat, dirs, (size_t)ndirs, &d)) {
            catalog_free(&cat);
            return cli_fail(d.message);
        }
        const struct catalog_model *m = catalog_find_model(&cat, model_id);
        const struct catalog_gpu *g = catalog_find_gpu(&cat, gpu_id ? gpu_id : "h100-sxm");
        if (m == NULL || g == NULL) {
            char near[256];
            catalog_suggest(&cat, m ? PRESET_GPU : PRESET_MODEL, m ? gpu_id : model_id, near,
                            sizeof near);
            diag_fail(&d, "calibrate: unknown %s '%s' (closest: %s)", m ? "GPU" : "model",
                      m ? gpu_id : model_id, near);
            catalog_free(&cat);
            return cli_fail(d.message);
        }
        struct scenario s;
        capacity_scenario_default(&s, &g->spec, &m->spec);
        s.engine.kind = enginelog_profile(&log, &s.engine.rule);
        if (tp == 0 && log.f[LF_TP].found)
            tp = (uint32_t)log.f[LF_TP].value;
        s.gpus = tp ? tp : 1;
        if (log.f[LF_CONTEXT].found)
            s.context_tokens = (uint64_t)log.f[LF_CONTEXT].value;
        if (log.f[LF_SEQS].found)
            s.engine.parallel = (uint32_t)log.f[LF_SEQS].value;
        if (log.f[LF_UTILIZATION].found)
            s.engine.gpu_memory_utilization = log.f[LF_UTILIZATION].value;
        if (kvd != DTYPE_AUTO)
            s.kv_dtype = kvd;
        else if (log.k_type[0] && !dtype_parse(log.k_type, &s.kv_dtype))
            s.kv_dtype = DTYPE_AUTO;
        if (log.v_type[0] && log.k_type[0] && strcmp(log.v_type, log.k_type) != 0)
            dtype_parse(log.v_type, &s.engine.v_dtype);
        if (log.f[LF_TOTAL_GPU_MEMORY].found && gpu_id == NULL)
            s.engine.gpu_total_bytes = (uint64_t)log.f[LF_TOTAL_GPU_MEMORY].value;
        struct plan_result r;
        if (!capacity_compute(&s, &r, &d)) {
            catalog_free(&cat);
            return cli_fail(d.message);
        }
        /* llama.cpp logs its whole cache (all GPUs of a layer split); the others one GPU's */
        uint64_t model_bytes = s.engine.kind == ENGINE_LLAMACPP ? r.engine.unit_bytes
                                                                : r.kv_bytes_per_token_per_gpu;
        printf("\n%s (%s cache%s): %llu B per token per GPU\n", m->spec.name,
               dtype_info(r.kv_dtype)->name, tp > 1 ? ", tensor parallel" : "",
               (unsigned long long)model_bytes);
        if (has_implied && r.windowed_layers == 0) {
            double diff = implied - (double)model_bytes;
            bool match = fabs(diff) <= tol + 1;
            printf("  %s: the log implies %.0f B (%+.2f%%)\n",
                   match ? "matches" : "MISMATCH", implied, 100.0 * diff / (double)model_bytes);
            if (!match)
                printf("  check the model, --tp and the cache precision; an engine that ignores\n"
                       "  GQA, MLA or windows stores more than the architecture needs\n");
        } else if (has_implied) {
            printf("  sliding-window layers: the log mixes full and windowed layers "
                   "(%.0f B averaged)\n",
                   implied);
        }
        /* Memory outside weights and KV, per GPU. */
        if (log.f[LF_NON_TORCH].found || log.f[LF_ACTIVATION].found) {
            non_kv = (uint64_t)(log.f[LF_WEIGHTS].value + log.f[LF_NON_TORCH].value +
                                log.f[LF_ACTIVATION].value);
        } else if (log.f[LF_TOTAL_GPU_MEMORY].found && log.f[LF_UTILIZATION].found &&
                   log.f[LF_KV_MEMORY].found) {
            non_kv = (uint64_t)(log.f[LF_TOTAL_GPU_MEMORY].value * log.f[LF_UTILIZATION].value -
                                log.f[LF_KV_MEMORY].value);
        }
        if (log.f[LF_TOTAL_GPU_MEMORY].found)
            total = (uint64_t)log.f[LF_TOTAL_GPU_MEMORY].value;
        if (non_kv) {
            printf("\nOutside weights and KV: %.2f GiB per GPU (weights %.2f GiB", non_kv / 1073741824.0,
                   log.f[LF_WEIGHTS].value / 1073741824.0);
            printf("); kvplan estimated %.2f GiB\n", r.engine.non_kv_bytes / 1073741824.0);
        }
        printf("\nkvplan without the log (%s, %s):\n", engine_label(s.engine.kind, s.engine.rule),
               g->spec.id);
        for (int i = 0; i < r.engine.log_lines; i++)
            printf("  %s\n", r.engine.log[i]);
        if (log.f[LF_KV_TOKENS].found && r.engine.kv_tokens) {
            double err = 100.0 * ((double)r.engine.kv_tokens - log.f[LF_KV_TOKENS].value) /
                         log.f[LF_KV_TOKENS].value;
            printf("  KV tokens: predicted %llu, logged %.0f (%+.1f%%)\n",
                   (unsigned long long)r.engine.kv_tokens, log.f[LF_KV_TOKENS].value, err);
        }
    } else {
        printf("\n(--model ID compares the implied bytes per token with the model's and shows "
               "kvplan's prediction)\n");
    }
    catalog_free(&cat);
    if (save) {
        if (!calibration_save(save, &log, path, model_id, non_kv, total, &d))
            return cli_fail(d.message);
        printf("\nsaved %s (use: kvplan plan --calibration %s)\n", save, save);
    }
    return status;
}

/* ---- solve --------------------------------------------------------------- */

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
            double x;
            if (!units_parse_number(argv[++i], 1, 1e12, &x, &d) || x != floor(x)) {
                free(rest);
                return cli_fail("--users: expected a whole number of users");
            }
            need = (uint64_t)x;
        } else if (strcmp(argv[i], "--max-context") == 0 ||
                   strcmp(argv[i], "--utilization") == 0) {
            continue; /* read above */
        } else if (strcmp(argv[i], "--max-gpus") == 0 && i + 1 < argc) {
            double x;
            if (!units_parse_number(argv[++i], 1, 4096, &x, &d)) {
                free(rest);
                return cli_fail("--max-gpus: expected 1 to 4096");
            }
            max_gpus = (uint32_t)x;
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

/* ---- sweep --------------------------------------------------------------- */

enum sweep_axis { AXIS_CONTEXT, AXIS_GPUS, AXIS_KV_DTYPE, AXIS_GPU, AXIS_MODEL };

struct axis {
    enum sweep_axis kind;
    uint64_t lo, hi;
    uint32_t points; /* context: log-spaced points (0 = powers of two) */
    size_t count;    /* values along the axis */
};

static bool parse_axis(const char *vary, const struct catalog *cat, struct axis *ax,
                       struct diag *d)
{
    char name[32], range[64] = "";
    memset(ax, 0, sizeof *ax);
    if (sscanf(vary, "%31[^=]=%63s", name, range) < 1)
        return diag_fail(d, "--vary: expected AXIS=RANGE, such as context=1k..1M");
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
    else
        return diag_fail(d, "--vary: '%s' is not context, gpus, kv-dtype, gpu or model", name);
    if (ax->kind == AXIS_CONTEXT || ax->kind == AXIS_GPUS) {
        char a[32], b[32], pts[16] = "";
        if (sscanf(range, "%31[^.]..%31[^:]:%15s", a, b, pts) < 2)
            return diag_fail(d, "--vary: '%s' needs a range FROM..TO (context may add :POINTS)",
                             vary);
        struct diag in = {0};
        if (!units_parse_tokens(a, false, &ax->lo, &in) ||
            !units_parse_tokens(b, false, &ax->hi, &in) || ax->lo > ax->hi)
            return diag_fail(d, "--vary: '%s': %s", vary, in.failed ? in.message : "FROM is above TO");
        if (ax->kind == AXIS_GPUS && ax->hi > GPUS_MAX)
            return diag_fail(d, "--vary: at most %d GPUs", GPUS_MAX);
        if (pts[0]) {
            double p;
            if (ax->kind != AXIS_CONTEXT || !units_parse_number(pts, 2, 100000, &p, &in))
                return diag_fail(d, "--vary: '%s': POINTS is a whole number from 2 to 100000 "
                                    "(context only)", vary);
            ax->points = (uint32_t)p;
            ax->count = ax->points;
        } else if (ax->kind == AXIS_CONTEXT) {
            for (uint64_t v = ax->lo; v <= ax->hi && v > 0; v *= 2)
                ax->count++;
        } else {
            ax->count = ax->hi - ax->lo + 1;
        }
    } else {
        if (strcmp(range, "all") != 0 && range[0] != '\0')
            return diag_fail(d, "--vary: '%s': only 'all' is supported for %s", vary, name);
        ax->count = ax->kind == AXIS_GPU     ? cat->gpu_count
                    : ax->kind == AXIS_MODEL ? cat->model_count
                                             : (size_t)(DTYPE_COUNT - 1);
    }
    return true;
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
        units_format_tokens_short(v, label, size);
        break;
    }
    case AXIS_GPUS:
        s->gpus = (uint32_t)(ax->lo + i);
        s->tp = 0;
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
        s->kv_dtype = (enum dtype)(i + 1);
        snprintf(label, size, "%s", dtype_info(s->kv_dtype)->name);
        break;
    }
}

int cmd_sweep(int argc, char **argv)
{
    const char *varies[3], *fmt = "table";
    int nvary = 0;
    char **rest = cli_rest_args(argc, argv);
    if (rest == NULL)
        return cli_fail("out of memory");
    int nrest = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--vary") == 0 && i + 1 < argc) {
            if (nvary == 3) {
                free(rest);
                return cli_fail("--vary: at most three axes");
            }
            varies[nvary++] = argv[++i];
        } else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc) {
            fmt = argv[++i];
        } else {
            rest[nrest++] = argv[i];
        }
    }
    rest[nrest] = NULL;
    struct options o;
    struct diag d = {0};
    bool help = false;
    bool ok = options_parse(nrest, rest, &o, &help, &d);
    free(rest);
    if (!ok)
        return cli_fail(d.message);
    if (help || nvary == 0) {
        fprintf(help ? stdout : stderr,
                "Usage: kvplan sweep --vary AXIS [--vary AXIS ...] [scenario options]\n"
                "                    [--format table|csv|markdown|json]\n"
                "  AXIS: context=1k..1M (powers of two) or context=1k..1M:64 (64 points on a\n"
                "        log scale), gpus=1..8, kv-dtype=all, gpu=all, model=all; up to three\n"
                "        axes, nested in the order given\n");
        return help ? 0 : 2;
    }
    int format = strcmp(fmt, "table") == 0 ? 0 : strcmp(fmt, "csv") == 0 ? 1
                 : strcmp(fmt, "markdown") == 0 ? 2 : strcmp(fmt, "json") == 0 ? 3 : -1;
    if (format < 0) {
        diag_fail(&d, "--format: '%s' is not table, csv, markdown or json", fmt);
        return cli_fail(d.message);
    }
    struct catalog cat;
    struct scenario base;
    if (!options_load(&o, &cat, &base, &d))
        return cli_fail(d.message);
    struct axis axes[3];
    for (int i = 0; i < nvary; i++)
        if (!parse_axis(varies[i], &cat, &axes[i], &d)) {
            catalog_free(&cat);
            return cli_fail(d.message);
        }
    static const char *cols[] = {"value", "gpu", "model", "gpus", "context_tokens", "kv_dtype",
                                 "fits", "max_users", "max_users_paged", "kv_bytes_per_token",
                                 "kv_bytes_per_user", "kv_pool_bytes", "engine_users"};
    int ncols = (int)(sizeof cols / sizeof cols[0]);
    if (format == 1)
        for (int i = 0; i < ncols; i++)
            printf("%s%s", cols[i], i + 1 < ncols ? "," : "\n");
    else if (format == 2) {
        for (int i = 0; i < ncols; i++)
            printf("| %s ", cols[i]);
        printf("|\n");
        for (int i = 0; i < ncols; i++)
            printf("|---");
        printf("|\n");
    } else if (format == 0)
        printf("%-28s %-16s %-18s %5s %10s %6s %5s %9s %9s %10s %14s %16s %9s\n", "VALUE", "GPU",
               "MODEL", "GPUS", "CONTEXT", "KV", "FITS", "USERS", "PAGED", "KV/TOKEN",
               "KV/USER", "POOL", "ENGINE");
    cJSON *arr = format == 3 ? cJSON_CreateArray() : NULL;
    size_t idx[3] = {0, 0, 0};
    bool done = false;
    for (int i = 0; i < nvary; i++)
        if (axes[i].count == 0)
            done = true;
    while (!done) {
        struct scenario s = base;
        char value[128] = "", part[64];
        for (int i = 0; i < nvary; i++) {
            apply_axis(&axes[i], idx[i], &cat, &s, part, sizeof part);
            size_t n = strlen(value);
            snprintf(value + n, sizeof value - n, "%s%s", i ? "/" : "", part);
        }
        /* the next combination: the last axis varies fastest */
        for (int i = nvary - 1; i >= 0; i--) {
            if (++idx[i] < axes[i].count)
                break;
            idx[i] = 0;
            if (i == 0)
                done = true;
        }
        struct plan_result r;
        struct diag in = {0};
        if (!capacity_compute_numbers(&s, &r, &in)) {
            if (format == 0)
                printf("%-28s (%s)\n", value, in.message);
            continue;
        }
        if (format == 3) {
            struct jsonout jo = jsonout_begin();
            jsonout_string(&jo, "value", value);
            jsonout_string(&jo, "gpu", s.gpu.id);
            jsonout_string(&jo, "model", s.model.id);
            jsonout_uint(&jo, "gpus", s.gpus);
            jsonout_uint(&jo, "context_tokens", s.context_tokens);
            jsonout_string(&jo, "kv_dtype", dtype_info(r.kv_dtype)->name);
            jsonout_bool(&jo, "fits", r.fits);
            jsonout_uint(&jo, "max_users", r.max_users);
            jsonout_uint(&jo, "max_users_paged", r.max_users_paged);
            jsonout_uint(&jo, "kv_bytes_per_token", r.kv_bytes_per_token);
            jsonout_uint(&jo, "kv_bytes_per_user", r.kv_bytes_per_user);
            jsonout_uint(&jo, "kv_pool_bytes", r.kv_pool_bytes);
            jsonout_uint(&jo, "engine_users", r.engine.users);
            cJSON *item = jsonout_end(&jo);
            if (arr && (item == NULL || !cJSON_AddItemToArray(arr, item))) {
                cJSON_Delete(item);
                cJSON_Delete(arr);
                arr = NULL;
            }
            continue;
        }
        if (format == 0) {
            printf("%-28s %-16s %-18s %5u %10llu %6s %5s %9llu %9llu %10llu %14llu %16llu %9llu\n",
                   value, s.gpu.id, s.model.id, s.gpus, (unsigned long long)s.context_tokens,
                   dtype_info(r.kv_dtype)->name, r.fits ? "yes" : "no",
                   (unsigned long long)r.max_users, (unsigned long long)r.max_users_paged,
                   (unsigned long long)r.kv_bytes_per_token, (unsigned long long)r.kv_bytes_per_user,
                   (unsigned long long)r.kv_pool_bytes, (unsigned long long)r.engine.users);
        } else {
            const char *sep = format == 1 ? "," : " | ";
            printf("%s%s%s%s%s%s", format == 2 ? "| " : "", value, sep, s.gpu.id, sep,
                   s.model.id);
            printf("%s%u%s%llu%s%s%s%s", sep, s.gpus, sep, (unsigned long long)s.context_tokens,
                   sep, dtype_info(r.kv_dtype)->name, sep, r.fits ? "true" : "false");
            printf("%s%llu%s%llu%s%llu%s%llu%s%llu%s%llu%s\n", sep,
                   (unsigned long long)r.max_users, sep, (unsigned long long)r.max_users_paged,
                   sep, (unsigned long long)r.kv_bytes_per_token, sep,
                   (unsigned long long)r.kv_bytes_per_user, sep,
                   (unsigned long long)r.kv_pool_bytes, sep, (unsigned long long)r.engine.users,
                   format == 2 ? " |" : "");
        }
    }
    int status = 0;
    if (format == 3) {
        char *text = arr ? cJSON_Print(arr) : NULL;
        cJSON_Delete(arr);
        if (text == NULL)
            status = cli_fail("cannot build JSON (out of memory)");
        else {
            puts(text);
            free(text);
        }
    }
    catalog_free(&cat);
    return status;
}
