/* calibrate: reads an engine's startup log, checks it against the model and saves a calibration. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/calibrate.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/options_table.h"
#include "core/engine_desc.h"
#include "core/plan.h"
#include "core/shell.h"
#include "core/text.h"
#include "core/units.h"
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

/* What calibrate works with: the log, and the figures it comes to. */
struct calib {
    struct options *o; /* the model the log names is set in it */
    const char *path;
    char shown[1024]; /* the log's name as printed: no controls in it */
    struct engine_log log;
    uint32_t tp;         /* --tp, else the log's */
    double implied, tol; /* KV bytes per token the log implies, and their rounding */
    bool has_implied;
    bool implied_from_tokens; /* its KV memory over its "GPU KV cache size" */
    uint64_t non_kv, total; /* per GPU, for --save */
    struct gpu_spec gpu;    /* --gpu's, saved with the calibration when given */
    bool gpu_given;
    struct scenario s;      /* the log's scenario on the model and GPU (the use: line) */
    char model_id[SPEC_ID_MAX]; /* the preset the log names, without --model */
    enum dtype weight;          /* the weights its GGUF file name gives; AUTO: none */
};

/* A figure of the log as a whole number within [min, max], else an error
 * naming the log's line (issue 9: tensor_parallel_size=4294967297 became 1,
 * 2.5 became 2, and max_model_len=1e26 was blamed on a --context never given).
 * Every conversion of a logged double to an integer goes through here. */
static bool log_whole(const struct calib *k, enum log_field f, uint64_t min, uint64_t max,
                      uint64_t *out, struct diag *d)
{
    const char *path = k->path;
    const struct engine_log *log = &k->log;
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

/* "(use: kvplan plan --model ID --gpu G ... --calibration FILE)": the
 * command that plans with the saved file, with every option the calibration
 * depends on (the GPU it was measured on, assumed too, the weight and cache
 * precisions, the layout), each word quoted for the shell (core/shell.h),
 * whole, and printable. */
void calibrate_plan_options(struct shell_line *l, const struct scenario *s, bool engine)
{
    shell_option(l, "--gpu", "%s", s->gpu.id);
    if (engine)
        shell_option(l, "--engine", "%s", engine_label(s->engine.kind, s->engine.rule));
    if (s->weight_dtype != DTYPE_AUTO)
        shell_option(l, "--weight-dtype", "%s", dtype_info(s->weight_dtype)->name);
    if (s->kv_dtype != DTYPE_AUTO)
        shell_option(l, "--kv-dtype", "%s", dtype_info(s->kv_dtype)->name);
    if (s->gpus > 1)
        shell_option(l, "--gpus", "%u", (unsigned)s->gpus);
    if (scenario_tp(s) > 1)
        shell_option(l, "--tp", "%u", (unsigned)scenario_tp(s));
    if (scenario_pp(s) > 1)
        shell_option(l, "--pp", "%u", (unsigned)scenario_pp(s));
}

void calibrate_print_use(const struct scenario *s, const char *save)
{
    char none[1];
    char *line = NULL, *shown = NULL;
    for (size_t size = sizeof none, need = 0;; size = need + 1) {
        struct shell_line l;
        shell_line_init(&l, line ? line : none, size);
        shell_words(&l, "kvplan plan --model");
        shell_word(&l, s->model.id);
        calibrate_plan_options(&l, s, false);
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

/* Reads and parses the log; 2, with the reason on standard error, for a log
 * of no engine or of several. */
static int calib_read(struct calib *k)
{
    struct diag d = {0};
    size_t len = 0;
    char *text = fileio_read(k->path, &len, &d);
    if (text == NULL)
        return cli_fail(d.message);
    struct engine_log *log = &k->log;
    enginelog_parse(text, len, log);
    free(text);
    int found = 0;
    for (int f = 0; f < LF_COUNT; f++)
        found += log->f[f].found;
    if (log->engine == LOG_UNKNOWN) {
        fprintf(stderr,
                "kvplan: %s: no engine recognised in %d lines (looked for vLLM, SGLang, "
                "llama.cpp, Ollama and TGI startup lines, and the outputs of vllm bench serve, "
                "sglang.bench_serving, llama-bench and genai-perf)%s\n",
                k->shown, log->lines, found ? "; figures found anyway are listed below" : "");
        for (int f = 0; f < LF_COUNT; f++)
            if (log->f[f].found)
                fprintf(stderr, "  line %d: %s = %g\n", log->f[f].line, enginelog_field_name(f),
                        log->f[f].value);
        return 2;
    }
    int families = 0;
    for (unsigned bits = log->seen; bits; bits &= bits - 1)
        families++;
    if (families > 1) {
        fprintf(stderr, "kvplan: %s: lines from several engines (", k->shown);
        for (int e = LOG_VLLM_V0; e <= LOG_TGI; e++)
            if (log->seen & (1u << e))
                fprintf(stderr, "%s%s", enginelog_engine_name(e), --families ? ", " : "");
        fprintf(stderr, "): paste one engine's startup log so its figures are not mixed\n");
        return 2;
    }
    return 0;
}

/* Every figure the log gives, what it lacks, the bytes per token it implies. */
static void calib_print_found(struct calib *k)
{
    const struct engine_log *log = &k->log;
    printf("%s: %s log, %d line%s\n\nFound\n", k->shown, enginelog_engine_name(log->engine),
           log->lines, log->lines == 1 ? "" : "s");
    for (int f = 0; f < LF_COUNT; f++) {
        if (!log->f[f].found)
            continue;
        char v[48];
        double x = log->f[f].value;
        if (enginelog_field_is_bytes((enum log_field)f))
            snprintf(v, sizeof v, "%.2f GiB", x / 1073741824.0);
        else if (x == floor(x) && x >= 0 && x < 1e15)
            units_format_int((uint64_t)x, v, sizeof v);
        else
            snprintf(v, sizeof v, "%g", x);
        printf("  %-38s %16s   (line %d)\n", enginelog_field_name(f), v, log->f[f].line);
    }
    if (log->k_type[0]) {
        char kv[40];
        snprintf(kv, sizeof kv, "%s / %s", log->k_type, log->v_type[0] ? log->v_type : log->k_type);
        printf("  %-38s %16s\n", "cache types K / V", kv);
    }
    int n_expected;
    const enum log_field *expected = expected_fields(log->engine, &n_expected);
    int missing = 0;
    for (int i = 0; i < n_expected; i++)
        if (!log->f[expected[i]].found)
            printf("%s%s", missing++ ? ", " : "\nNot in this log (truncated or trimmed?):\n  ",
                   enginelog_field_name(expected[i]));
    if (missing)
        printf("\n");
    k->has_implied = implied_per_token(log, &k->implied, &k->tol);
    k->implied_from_tokens = k->has_implied && !log->f[LF_KV_NEEDED].found &&
                             !log->f[LF_CELLS].found && log->f[LF_KV_TOKENS].found;
    if (k->has_implied)
        printf(
            "\nKV bytes per token the log implies: %.0f B (+/- %.0f from the printed rounding)\n",
            k->implied, k->tol);
}

/* The launch line's pipeline stages, data-parallel replicas (the KV of one
 * GPU is the same in each replica) and SGLang's mem_fraction_static. */
static bool calib_layout(const struct calib *k, struct scenario *s, struct diag *d)
{
    const struct engine_log *log = &k->log;
    uint64_t pp = 1, dp = 1;
    if (log->f[LF_PP].found && !log_whole(k, LF_PP, 1, GPUS_MAX, &pp, d))
        return false;
    if (log->f[LF_DP].found && !log_whole(k, LF_DP, 1, GPUS_MAX, &dp, d))
        return false;
    if ((uint64_t)s->gpus * pp * dp > GPUS_MAX)
        return diag_fail(d, "%s: tp %u x pp %llu x dp %llu passes %u GPUs", k->path, s->gpus,
                         (unsigned long long)pp, (unsigned long long)dp, (unsigned)GPUS_MAX);
    if (pp > 1 || dp > 1) {
        s->tp = s->gpus;
        s->pp = pp > 1 ? (uint32_t)pp : 0;
        s->gpus = (uint32_t)(s->gpus * pp * dp);
    }
    if (log->f[LF_MEM_FRACTION].found) {
        double u = log->f[LF_MEM_FRACTION].value;
        if (!(u > 0 && u < 1))
            return diag_fail(d, "%s:%d: mem_fraction_static %g is not a fraction from 0 to 1",
                             k->path, log->f[LF_MEM_FRACTION].line, u);
        s->engine.mem_fraction_static = u;
    }
    return true;
}

/* --engine ENGINE@RELEASE names the release of a log that states none (a
 * trimmed excerpt): the log's own engine only, and only where the log
 * states no release of its own. */
static bool release_given(const struct calib *k, struct scenario *s, struct diag *d)
{
    const struct options *o = k->o;
    if (!o->given[OPT_ENGINE])
        return true;
    const char *own = enginelog_engine_name(k->log.engine);
    if (o->engine != s->engine.kind)
        return diag_fail(d, "calibrate: --engine %s: %s is a %s log; --engine names the release of "
                            "a log that states none (--engine %s@RELEASE)",
                         engine_label(o->engine, o->engine_rule), k->shown, own,
                         engine_desc(s->engine.kind)->name);
    if (k->log.version[0]) {
        char shown[sizeof k->log.version];
        text_escape(k->log.version, shown, sizeof shown);
        return diag_fail(d, "calibrate: --engine: %s states its release (%s), whose rule it is "
                            "read with; --engine names the release of a log that states none",
                         k->shown, shown);
    }
    s->engine.rule = o->engine_rule;
    snprintf(s->engine.release_asked, sizeof s->engine.release_asked, "%s",
             o->engine_release_asked);
    return true;
}

/* The scenario the log describes, on the model and GPU given: its engine,
 * TP, context, slots, utilisation, memory and cache types. */
static bool calib_scenario(struct calib *k, const struct catalog_gpu *g,
                           const struct catalog_model *m, struct scenario *s, struct diag *d)
{
    const struct engine_log *log = &k->log;
    const char *path = k->path;
    scenario_default(s, &g->spec, &m->spec);
    s->engine.kind = enginelog_profile(log, &s->engine.rule);
    if (!release_given(k, s, d))
        return false;
    if (k->weight != DTYPE_AUTO)
        s->weight_dtype = k->weight;
    uint64_t n = 0;
    bool ok = true;
    if (k->tp == 0 && log->f[LF_TP].found && (ok = log_whole(k, LF_TP, 1, GPUS_MAX, &n, d)))
        k->tp = (uint32_t)n;
    s->gpus = k->tp ? k->tp : 1;
    ok = ok && calib_layout(k, s, d);
    if (ok && log->f[LF_CONTEXT].found && (ok = log_whole(k, LF_CONTEXT, 1, TOKENS_MAX, &n, d)))
        s->context_tokens = n;
    if (ok && log->f[LF_SEQS].found && (ok = log_whole(k, LF_SEQS, 1, 65536, &n, d)))
        s->engine.parallel = (uint32_t)n;
    if (ok && log->f[LF_UTILIZATION].found) {
        double u = log->f[LF_UTILIZATION].value;
        if (!(u > 0 && u <= 1))
            ok = diag_fail(d, "%s:%d: gpu_memory_utilization %g is not a fraction from 0 to 1",
                           path, log->f[LF_UTILIZATION].line, u);
        s->engine.gpu_memory_utilization = u;
    }
    /* --gpu-memory-utilization: the fraction a log that states none ran at */
    if (ok && k->o->given[OPT_UTIL]) {
        if (log->f[LF_UTILIZATION].found)
            ok = diag_fail(d, "calibrate: %s: %s states its own (%g, line %d)",
                           OPTION_FLAG(OPT_UTIL), k->shown, log->f[LF_UTILIZATION].value,
                           log->f[LF_UTILIZATION].line);
        else
            s->engine.gpu_memory_utilization = k->o->flags.gpu_memory_utilization;
    }
    if (ok && log->f[LF_TOTAL_GPU_MEMORY].found)
        ok = log_bytes(path, log->f[LF_TOTAL_GPU_MEMORY].line, "CUDA-visible GPU memory",
                       log->f[LF_TOTAL_GPU_MEMORY].value, &k->total, d);
    if (!ok)
        return false;
    if (k->o->given[OPT_KV_DTYPE] && k->o->kv_dtype != DTYPE_AUTO)
        s->kv_dtype = k->o->kv_dtype;
    else if (log->k_type[0] && !dtype_parse(log->k_type, &s->kv_dtype))
        s->kv_dtype = DTYPE_AUTO;
    if (log->v_type[0] && log->k_type[0] && strcmp(log->v_type, log->k_type) != 0)
        dtype_parse(log->v_type, &s->engine.v_dtype);
    if (log->f[LF_TOTAL_GPU_MEMORY].found && k->o->gpu_id == NULL)
        s->engine.gpu_total_bytes = k->total;
    return true;
}

/* The model's bytes per token against the log's. */
static void calib_print_match(const struct calib *k, const struct model_spec *m,
                              const struct scenario *s, const struct plan_result *r)
{
    /* llama.cpp logs its whole cache (all GPUs of a layer split); the others one GPU's */
    uint64_t model_bytes =
        engine_desc(s->engine.kind)->splits_layers ? r->engine.unit_bytes : r->cost.bytes_per_token;
    printf("\n%s (%s cache%s): %llu B per token per GPU\n", m->name, dtype_info(r->kv_dtype)->name,
           k->tp > 1 ? ", tensor parallel" : "", (unsigned long long)model_bytes);
    if (k->has_implied && r->cost.windowed_layers == 0) {
        double diff = k->implied - (double)model_bytes;
        bool match = fabs(diff) <= k->tol + 1;
        printf("  %s: the log implies %.0f B (%+.2f%%)\n", match ? "matches" : "MISMATCH",
               k->implied, 100.0 * diff / (double)model_bytes);
        if (!match)
            printf("  check the model, --tp and the cache precision; an engine that ignores\n"
                   "  GQA, MLA or windows stores more than the architecture needs\n");
    } else if (k->has_implied && r->engine.log_kv_tokens && k->implied_from_tokens) {
        /* vLLM's "GPU KV cache size" of a windowed model counts no token of
         * the pool: from 0.21 max_concurrency x max_model_len, up to 0.20
         * the blocks over the groups (policy_vllm_mem.c) */
        printf("  sliding-window layers: the log's %.0f B a token is its KV memory over its\n"
               "  \"GPU KV cache size\", which for windowed layers counts no token of the pool\n"
               "  (from 0.21 max concurrency x max model len, up to 0.20 the blocks over the\n"
               "  groups): not comparable with the model's; the KV tokens line below compares\n"
               "  the log's figure in its release's form\n",
               k->implied);
    } else if (k->has_implied) {
        printf("  sliding-window layers: the log mixes full and windowed layers "
               "(%.0f B averaged)\n",
               k->implied);
    }
}

/* Memory outside weights and KV, per GPU, from the log's figures. */
static bool calib_non_kv(struct calib *k, const struct plan_result *r, struct diag *d)
{
    const struct log_figure *f = k->log.f;
    bool ok = true;
    if (f[LF_NON_TORCH].found || f[LF_ACTIVATION].found)
        ok = log_bytes(
            k->path, f[LF_NON_TORCH].found ? f[LF_NON_TORCH].line : f[LF_ACTIVATION].line,
            "weights + non-torch memory + activation peak",
            f[LF_WEIGHTS].value + f[LF_NON_TORCH].value + f[LF_ACTIVATION].value, &k->non_kv, d);
    else if (f[LF_TOTAL_GPU_MEMORY].found && f[LF_UTILIZATION].found && f[LF_KV_MEMORY].found)
        ok = log_bytes(k->path, f[LF_KV_MEMORY].line,
                       "the budget (CUDA-visible memory x gpu_memory_utilization) minus "
                       "the KV cache memory",
                       f[LF_TOTAL_GPU_MEMORY].value * f[LF_UTILIZATION].value -
                           f[LF_KV_MEMORY].value,
                       &k->non_kv, d);
    if (ok && k->non_kv) {
        printf("\nOutside weights and KV: %.2f GiB per GPU (weights %.2f GiB",
               k->non_kv / 1073741824.0, f[LF_WEIGHTS].value / 1073741824.0);
        printf("); kvplan estimated %.2f GiB\n", r->engine.non_kv_bytes / 1073741824.0);
    }
    return ok;
}

/* The log's KV cache per GPU with the weights per GPU within the GPU's
 * memory: else the log ran on a larger GPU (or another layout) than the one
 * given or assumed, and a calibration of it would plan a pool no GPU here
 * holds (sglang-02.log's 106.62 GiB on an assumed H100). */
static bool calib_holds(const struct calib *k, const struct plan_result *r, struct diag *d)
{
    const struct log_figure *f = &k->log.f[LF_KV_MEMORY];
    double cap = (double)r->memory_bytes_per_gpu, w = (double)r->weights_bytes_per_gpu;
    /* weights past the GPU alone: the model or layout differs, said above */
    if (!f->found || cap == 0 || w > cap || f->value + w <= cap)
        return true;
    if (k->o->save_path == NULL) { /* a look at the log: said, not refused */
        fprintf(stderr, "kvplan: warning: %s:%d: the log's KV cache of %.2f GiB per GPU and the "
                "weights (%.2f GiB) pass the %s %s's %.2f GiB: the log ran on a larger GPU or "
                "another layout (%s ID, %s N)\n", k->path, f->line, f->value / 1073741824.0,
                w / 1073741824.0, k->gpu_given ? "given" : "assumed", k->gpu.name,
                cap / 1073741824.0, OPTION_FLAG(OPT_LOG_GPU), OPTION_FLAG(OPT_TP));
        return true;
    }
    return diag_fail(d, "%s:%d: the log's KV cache of %.2f GiB per GPU and the model's weights "
                        "(%.2f GiB per GPU at TP %u) pass the %s %s's %.2f GiB: the log ran on a "
                        "larger GPU or another layout; give %s ID (and %s N) for the one it "
                        "ran on",
                     k->path, f->line, f->value / 1073741824.0,
                     (double)r->weights_bytes_per_gpu / 1073741824.0, k->tp ? k->tp : 1,
                     k->gpu_given ? "given" : "assumed", k->gpu.name,
                     (double)r->memory_bytes_per_gpu / 1073741824.0, OPTION_FLAG(OPT_LOG_GPU),
                     OPTION_FLAG(OPT_TP));
}

/* The log against --model (and --gpu): bytes per token, memory outside the
 * KV cache, and what kvplan predicts without the log. */
static bool calib_compare(struct calib *k, const struct catalog *cat, struct diag *d)
{
    const char *model_id = k->o->model_id, *gpu_id = k->o->gpu_id;
    const struct catalog_model *m = catalog_find_model(cat, model_id);
    const struct catalog_gpu *g = catalog_find_gpu(cat, gpu_id ? gpu_id : DEFAULT_GPU_ID);
    if (m == NULL || g == NULL) {
        char near[256];
        catalog_suggest(cat, m ? PRESET_GPU : PRESET_MODEL, m ? gpu_id : model_id, near,
                        sizeof near);
        return diag_fail(d, "calibrate: unknown %s '%s' (closest: %s)", m ? "GPU" : "model",
                         m ? gpu_id : model_id, near);
    }
    k->gpu = g->spec;
    k->gpu_given = gpu_id != NULL;
    struct scenario s;
    struct plan_result r;
    struct explain x; /* the log lines and launch command come with the rows */
    x.deferred = false;
    if (!calib_scenario(k, g, m, &s, d) || !plan_compute(&s, &x, NULL, &r, d))
        return false;
    k->s = s;
    char other[512];
    if (!calibration_total_check(k->total, &s, other, sizeof other))
        fprintf(stderr, "kvplan: warning: %s:%d: %s\n", k->shown,
                k->log.f[LF_TOTAL_GPU_MEMORY].line, other);
    calib_print_match(k, &m->spec, &s, &r);
    if (!calib_non_kv(k, &r, d) || !calib_holds(k, &r, d))
        return false;
    printf("\nkvplan without the log (%s, %s):\n", engine_label(s.engine.kind, s.engine.rule),
           g->spec.id);
    if (!k->log.version[0] && !k->o->given[OPT_ENGINE] && engine_desc(s.engine.kind)->versions[1].label)
        printf("  (the log states no release: the newest rule; --engine %s@RELEASE plans the "
               "log's own)\n", engine_desc(s.engine.kind)->name);
    if ((k->log.engine == LOG_VLLM_V1 || k->log.engine == LOG_VLLM_V0) &&
        !k->log.f[LF_UTILIZATION].found && !k->o->given[OPT_UTIL])
        printf("  (the log states no gpu_memory_utilization: vLLM's default; "
               "--gpu-memory-utilization gives the log's)\n");
    for (int i = 0; i < r.engine.log_lines; i++)
        printf("  %s\n", r.engine.log[i]);
    if (r.engine.log_lines == 0) { /* the generic rule logs nothing: its figures */
        if (!r.fits)
            printf("  the weights do not fit at tensor parallel %u on %s (give --tp N, the "
                   "log's layout)\n", scenario_tp(&s), g->spec.id);
        else {
            char t[32];
            printf("  KV cache tokens: %s per replica (the generic rule logs no line)\n",
                   units_format_int(r.kv_tokens_per_replica, t, sizeof t));
        }
    }
    /* vLLM V1's figure is its "GPU KV cache size" line's, in the form of the
     * release's rule (blocks over groups up to 0.20, the concurrency's tokens
     * from 0.21.0): for a hybrid model not the pool's own count */
    uint64_t predicted = r.engine.log_kv_tokens ? r.engine.log_kv_tokens : r.kv_tokens_per_replica;
    if (k->log.f[LF_KV_TOKENS].found && predicted) {
        double logged = k->log.f[LF_KV_TOKENS].value;
        double err = 100.0 * ((double)predicted - logged) / logged;
        printf("  KV tokens: predicted %llu, logged %.0f (%+.1f%%)\n", (unsigned long long)predicted,
               logged, err);
    }
    /* the log's weights beside the model's: another model, precision or TP
     * than the plan's shows first here */
    if (k->log.f[LF_WEIGHTS].found && k->log.f[LF_WEIGHTS].value > 0 &&
        r.weights_bytes_per_gpu > 0) {
        char a[32], b[32];
        double logged = k->log.f[LF_WEIGHTS].value, pred = (double)r.weights_bytes_per_gpu;
        units_format_bytes(r.weights_bytes_per_gpu, UNITS_GIB, a, sizeof a);
        units_format_bytes((uint64_t)logged, UNITS_GIB, b, sizeof b);
        double err = 100.0 * (pred - logged) / logged;
        printf("  Weights: predicted %s, logged %s (%+.1f%%)\n", a, b, err);
        if (fabs(err) > 20)
            fprintf(stderr, "kvplan: warning: %s:%d: the log's weights (%s a GPU) are not %s's "
                            "(%s): a log of another model, weight precision or tensor-parallel "
                            "split?\n", k->shown, k->log.f[LF_WEIGHTS].line, b, s.model.id, a);
    }
    if (k->log.f[LF_KV_MEMORY].found && k->log.engine != LOG_LLAMACPP &&
        k->log.engine != LOG_OLLAMA) {
        char a[32], b[32];
        double logged = k->log.f[LF_KV_MEMORY].value, pool = (double)r.kv_pool_bytes_per_gpu;
        units_format_bytes(r.kv_pool_bytes_per_gpu, UNITS_GIB, a, sizeof a);
        units_format_bytes((uint64_t)(logged > 0 ? logged : 0), UNITS_GIB, b, sizeof b);
        if (logged > 0)
            printf("  KV memory: predicted %s, logged %s (%+.1f%%)\n", a, b,
                   100.0 * (pool - logged) / logged);
        else
            printf("  KV memory: predicted %s, logged %.2f GiB\n", a, logged / 1073741824.0);
    }
    return true;
}

/* Without --model, the model the log names (its launch line, vLLM's
 * model=, a GGUF file name); --save without either is refused, naming what
 * the log said. */
static bool calib_model(struct calib *k, const struct catalog *cat, struct diag *d)
{
    struct options *o = k->o;
    struct bench_model m;
    bool named = calibrate_log_model(cat, &k->log, &m);
    if (named && (o->model_id == NULL || strcasecmp(o->model_id, m.id) == 0))
        k->weight = m.weight; /* "-Q8_0.gguf": the weights the log's model is at */
    if (o->model_id && named && strcasecmp(o->model_id, m.id) != 0) {
        /* the comparison below is of another model's cache: said first */
        char said[sizeof m.said];
        text_escape(m.said, said, sizeof said);
        fprintf(stderr, "kvplan: warning: %s names the model %s ('%s', from %s), not %s: its "
                        "figures are compared with %s's\n",
                k->shown, m.id, said, m.how, o->model_id, o->model_id);
    }
    if (o->model_id)
        return true;
    if (named) {
        snprintf(k->model_id, sizeof k->model_id, "%s", m.id);
        o->model_id = k->model_id;
        char said[sizeof m.said];
        text_escape(m.said, said, sizeof said);
        printf("\nModel: preset %s, from %s ('%s'); %s ID for another\n", m.id, m.how, said,
               OPTION_FLAG(OPT_MODEL));
        return true;
    }
    if (o->save_path == NULL)
        return true;
    char said[400] = "names none";
    const char *name = k->log.model[0] ? k->log.model : k->log.model_file;
    if (name[0]) {
        char shown[sizeof k->log.model_file];
        text_escape(name, shown, sizeof shown);
        snprintf(said, sizeof said, "names '%s', which matches no model preset", shown);
    }
    return diag_fail(d, "calibrate: %s needs %s ID (the model the log is of): a calibration "
                        "holds for that model only, and %s %s",
                     OPTION_FLAG(OPT_SAVE), OPTION_FLAG(OPT_MODEL), k->shown, said);
}

/* The options a startup log's calibration reads; the others describe a
 * benchmark's scenario. */
static bool log_option(int id)
{
    return id == OPT_MODEL || id == OPT_LOG_GPU || id == OPT_TP || id == OPT_KV_DTYPE ||
           id == OPT_SAVE || id == OPT_PRESETS || id == OPT_HELP || id == OPT_ENGINE ||
           id == OPT_UTIL;
}

/* A benchmark's output is calibrated on (its status returned); a startup log
 * goes on (CLI_PARSED), refusing the options only a benchmark takes. */
static int calib_bench_or_log(struct calib *k)
{
    struct diag d = {0};
    size_t len = 0;
    char *text = fileio_read(k->path, &len, &d);
    if (text == NULL)
        return cli_fail(d.message);
    static struct bench_set set;
    memset(&set, 0, sizeof set);
    bool ok = bench_parse(k->shown, text, len, k->o->concurrency, &set.logs[0], &d);
    free(text);
    if (!ok)
        return cli_fail(d.message);
    if (set.logs[0].format != BENCH_UNKNOWN) {
        if (!calibrate_set_add(&set, k->path, k->shown, &d))
            return cli_fail(d.message);
        return calibrate_bench(k->o, &set);
    }
    for (int id = 0; id < OPT_COUNT; id++)
        if (k->o->given[id] && !log_option(id)) {
            diag_fail(&d, "calibrate: %s describes a benchmark's scenario; %s is read as a "
                          "startup log, which gives its own (see kvplan calibrate --help)",
                      OPTION_FLAG(id), k->shown);
            return cli_fail(d.message);
        }
    return CLI_PARSED;
}

int cmd_calibrate(int argc, char **argv)
{
    struct options o;
    struct diag d = {0};
    int parsed = cli_parse(CMD_CALIBRATE, argc, argv, &o);
    if (parsed != CLI_PARSED)
        return parsed;
    if (optind >= argc)
        return cli_fail("calibrate: give a log file, or one or more benchmark outputs (see "
                        "--help)");
    if (argc - optind > 1) /* several: benchmark outputs, fitted on as one */
        return calibrate_files(&o, argc - optind, argv + optind);
    struct calib k = {.o = &o, .path = argv[optind], .tp = o.tp, .weight = DTYPE_AUTO};
    text_escape(k.path, k.shown, sizeof k.shown);
    int status = calib_bench_or_log(&k); /* a benchmark names its model, or is told it */
    if (status != CLI_PARSED)
        return status;
    status = calib_read(&k);
    if (status)
        return status;
    calib_print_found(&k);
    struct catalog cat;
    catalog_init(&cat);
    bool ok = options_load_catalog(&o, &cat, &d) && calib_model(&k, &cat, &d) &&
              (o.model_id == NULL || calib_compare(&k, &cat, &d));
    catalog_free(&cat);
    if (!ok)
        return cli_fail(d.message);
    if (o.model_id == NULL)
        printf("\n(--model ID compares the implied bytes per token with the model's and shows "
               "kvplan's prediction)\n");
    if (o.save_path) {
        /* the GPU is recorded even when assumed: a plan on another warns by name */
        struct memory_calibration m = {&k.log, k.path,  o.model_id, &k.gpu, !k.gpu_given,
                                       k.non_kv, k.total, &k.s};
        if (!calibration_save(o.save_path, &m, &d))
            return cli_fail(d.message);
        if (!k.gpu_given)
            printf("\nnote: the log names no GPU: assumed %s (%s); pass %s ID to record another\n",
                   k.gpu.name, k.gpu.id, OPTION_FLAG(OPT_LOG_GPU));
        char shown_save[1024]; /* the file name as printed: no controls in it */
        text_escape(o.save_path, shown_save, sizeof shown_save);
        printf("\nsaved %s ", shown_save);
        calibrate_print_use(&k.s, o.save_path);
    }
    return 0;
}
