/* calibrate: reads an engine's startup log, checks it against the model and saves a calibration. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "core/engine_desc.h"
#include "core/plan.h"
#include "core/shell.h"
#include "core/text.h"
#include "core/version.h"
#include "io/calibration.h"
#include "io/fileio.h"


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

/* A figure of the log as a whole number within [min, max], else an error
 * naming the log's line (issue 9: tensor_parallel_size=4294967297 became 1,
 * 2.5 became 2, and max_model_len=1e26 was blamed on a --context never given).
 * Every conversion of a logged double to an integer goes through here. */
static bool log_whole(const char *path, const struct engine_log *log, enum log_field f,
                      uint64_t min, uint64_t max, uint64_t *out, struct diag *d)
{
    double v = log->f[f].value;
    if (!(v >= (double)min && v <= (double)max) || v != floor(v))
        return diag_fail(d, "%s:%d: %s %.15g is not a whole number from %llu to %llu", path,
                         log->f[f].line, enginelog_field_name(f), v, (unsigned long long)min,
                         (unsigned long long)max);
    *out = (uint64_t)v;
    return true;
}

/* Bytes per GPU worked out from the log's figures: at most 16 TiB, and never
 * below zero (a KV cache larger than the budget it came from printed
 * "17179869181.00 GiB" and saved a wrapped non_kv_bytes). */
static bool log_bytes(const char *path, int line, const char *what, double v, uint64_t *out,
                      struct diag *d)
{
    if (!(v >= 0 && v <= (double)((uint64_t)1 << 44)))
        return diag_fail(d, "%s:%d: %s comes to %.2f GiB, outside 0 to 16 TiB: the log's "
                            "figures do not fit together",
                         path, line, what, v / 1073741824.0);
    *out = (uint64_t)llround(v);
    return true;
}

/* "(use: kvplan plan --model ID --calibration FILE)": the command that
 * plans with the saved file, each word quoted for the shell (core/shell.h),
 * whole, and printable. */
static void print_use(const char *model, const char *save)
{
    char none[1];
    char *line = NULL, *shown = NULL;
    for (size_t size = sizeof none, need = 0;; size = need + 1) {
        struct shell_line l;
        shell_line_init(&l, line ? line : none, size);
        shell_words(&l, "kvplan plan --model");
        shell_word(&l, model);
        shell_word(&l, "--calibration");
        shell_word(&l, save);
        if (shell_line_done(&l, &need) || line || (line = malloc(need + 1)) == NULL)
            break;
    }
    size_t en = line ? text_escape(line, NULL, 0) : 0;
    if (line && (shown = malloc(en + 1)) != NULL)
        text_escape(line, shown, en + 1);
    printf("(use: %s)\n", shown ? shown : "kvplan plan --calibration FILE");
    free(shown);
    free(line);
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
            uint64_t n;
            if (!options_parse_count("--tp", optarg, 1, GPUS_MAX, &n, &d))
                return cli_fail(d.message);
            tp = (uint32_t)n;
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
                   "without the log. --save (with --model) writes a calibration for\n"
                   "plan --calibration.\n");
            return 0;
        default:
            return cli_option_error(c, argv);
        }
    }
    if (optind + 1 != argc)
        return cli_fail("calibrate: give one log file (see --help)");
    if (save && model_id == NULL) /* a calibration applies to the model the log is of */
        return cli_fail("calibrate: --save needs --model ID (the model the log is of): a "
                        "calibration holds for that model only");
    const char *path = argv[optind];
    char shown[1024], shown_save[1024]; /* file names as printed: no controls in them */
    text_escape(path, shown, sizeof shown);
    text_escape(save ? save : "", shown_save, sizeof shown_save);
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
                shown, log.lines, found ? "; figures found anyway are listed below" : "");
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
        fprintf(stderr, "kvplan: %s: lines from several engines (", shown);
        for (int e = LOG_VLLM_V0; e <= LOG_TGI; e++)
            if (log.seen & (1u << e))
                fprintf(stderr, "%s%s", --families ? "" : "", enginelog_engine_name(e)),
                    fprintf(stderr, families ? ", " : "");
        fprintf(stderr, "): paste one engine's startup log so its figures are not mixed\n");
        return 2;
    }
    printf("%s: %s log, %d lines\n\nFound\n", shown, enginelog_engine_name(log.engine), log.lines);
    for (int f = 0; f < LF_COUNT; f++) {
        if (!log.f[f].found)
            continue;
        char v[48];
        if (enginelog_field_is_bytes((enum log_field)f))
            snprintf(v, sizeof v, "%.2f GiB", log.f[f].value / 1073741824.0);
        else if (log.f[f].value == floor(log.f[f].value) && log.f[f].value >= 0 &&
                 log.f[f].value < 1e15)
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
        scenario_default(&s, &g->spec, &m->spec);
        s.engine.kind = enginelog_profile(&log, &s.engine.rule);
        uint64_t n = 0;
        bool ok = true;
        if (tp == 0 && log.f[LF_TP].found && (ok = log_whole(path, &log, LF_TP, 1, GPUS_MAX, &n, &d)))
            tp = (uint32_t)n;
        s.gpus = tp ? tp : 1;
        if (ok && log.f[LF_CONTEXT].found &&
            (ok = log_whole(path, &log, LF_CONTEXT, 1, TOKENS_MAX, &n, &d)))
            s.context_tokens = n;
        if (ok && log.f[LF_SEQS].found && (ok = log_whole(path, &log, LF_SEQS, 1, 65536, &n, &d)))
            s.engine.parallel = (uint32_t)n;
        if (ok && log.f[LF_UTILIZATION].found) {
            double u = log.f[LF_UTILIZATION].value;
            if (!(u > 0 && u <= 1))
                ok = diag_fail(&d, "%s:%d: gpu_memory_utilization %g is not a fraction from 0 to 1",
                               path, log.f[LF_UTILIZATION].line, u);
            s.engine.gpu_memory_utilization = u;
        }
        if (ok && log.f[LF_TOTAL_GPU_MEMORY].found)
            ok = log_bytes(path, log.f[LF_TOTAL_GPU_MEMORY].line, "CUDA-visible GPU memory",
                           log.f[LF_TOTAL_GPU_MEMORY].value, &total, &d);
        if (!ok) {
            catalog_free(&cat);
            return cli_fail(d.message);
        }
        if (kvd != DTYPE_AUTO)
            s.kv_dtype = kvd;
        else if (log.k_type[0] && !dtype_parse(log.k_type, &s.kv_dtype))
            s.kv_dtype = DTYPE_AUTO;
        if (log.v_type[0] && log.k_type[0] && strcmp(log.v_type, log.k_type) != 0)
            dtype_parse(log.v_type, &s.engine.v_dtype);
        if (log.f[LF_TOTAL_GPU_MEMORY].found && gpu_id == NULL)
            s.engine.gpu_total_bytes = total;
        struct plan_result r;
        struct explain x; /* the log lines and launch command come with the rows */
        x.deferred = false;
        if (!plan_compute(&s, &x, NULL, &r, &d)) {
            catalog_free(&cat);
            return cli_fail(d.message);
        }
        /* llama.cpp logs its whole cache (all GPUs of a layer split); the others one GPU's */
        uint64_t model_bytes = engine_desc(s.engine.kind)->splits_layers ? r.engine.unit_bytes
                                                                         : r.cost.bytes_per_token;
        printf("\n%s (%s cache%s): %llu B per token per GPU\n", m->spec.name,
               dtype_info(r.kv_dtype)->name, tp > 1 ? ", tensor parallel" : "",
               (unsigned long long)model_bytes);
        if (has_implied && r.cost.windowed_layers == 0) {
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
            ok = log_bytes(path,
                           log.f[LF_NON_TORCH].found ? log.f[LF_NON_TORCH].line
                                                     : log.f[LF_ACTIVATION].line,
                           "weights + non-torch memory + activation peak",
                           log.f[LF_WEIGHTS].value + log.f[LF_NON_TORCH].value +
                               log.f[LF_ACTIVATION].value,
                           &non_kv, &d);
        } else if (log.f[LF_TOTAL_GPU_MEMORY].found && log.f[LF_UTILIZATION].found &&
                   log.f[LF_KV_MEMORY].found) {
            ok = log_bytes(path, log.f[LF_KV_MEMORY].line,
                           "the budget (CUDA-visible memory x gpu_memory_utilization) minus "
                           "the KV cache memory",
                           log.f[LF_TOTAL_GPU_MEMORY].value * log.f[LF_UTILIZATION].value -
                               log.f[LF_KV_MEMORY].value,
                           &non_kv, &d);
        }
        if (!ok) {
            catalog_free(&cat);
            return cli_fail(d.message);
        }
        if (non_kv) {
            printf("\nOutside weights and KV: %.2f GiB per GPU (weights %.2f GiB", non_kv / 1073741824.0,
                   log.f[LF_WEIGHTS].value / 1073741824.0);
            printf("); kvplan estimated %.2f GiB\n", r.engine.non_kv_bytes / 1073741824.0);
        }
        printf("\nkvplan without the log (%s, %s):\n", engine_label(s.engine.kind, s.engine.rule),
               g->spec.id);
        for (int i = 0; i < r.engine.log_lines; i++)
            printf("  %s\n", r.engine.log[i]);
        if (log.f[LF_KV_TOKENS].found && r.kv_tokens_per_replica) {
            double err = 100.0 * ((double)r.kv_tokens_per_replica - log.f[LF_KV_TOKENS].value) /
                         log.f[LF_KV_TOKENS].value;
            printf("  KV tokens: predicted %llu, logged %.0f (%+.1f%%)\n",
                   (unsigned long long)r.kv_tokens_per_replica, log.f[LF_KV_TOKENS].value, err);
        }
    } else {
        printf("\n(--model ID compares the implied bytes per token with the model's and shows "
               "kvplan's prediction)\n");
    }
    catalog_free(&cat);
    if (save) {
        if (!calibration_save(save, &log, path, model_id, non_kv, total, &d))
            return cli_fail(d.message);
        printf("\nsaved %s ", shown_save);
        print_use(model_id, save);
    }
    return status;
}

