/* benchlog: the printed benchmark formats (the summaries of vllm bench serve
 * and sglang.bench_serving, llama-bench's Markdown table, genai-perf's CSV)
 * and the points every format gives; benchlog_json.c reads the JSON ones. */
#include "benchlog_parts.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const tools[BENCH_FORMAT_COUNT] = {
    "unknown", "vllm bench serve", "vllm bench serve", "sglang.bench_serving",
    "sglang.bench_serving", "llama-bench", "llama-bench", "genai-perf", "genai-perf"};
static const char *const outputs[BENCH_FORMAT_COUNT] = {
    "", "printed summary", "--save-result JSON", "printed summary", "JSONL", "Markdown table",
    "-o json", "CSV export", "JSON export"};

const char *bench_tool_name(enum bench_format f)
{
    return f >= 0 && f < BENCH_FORMAT_COUNT ? tools[f] : "?";
}

const char *bench_output_name(enum bench_format f)
{
    return f >= 0 && f < BENCH_FORMAT_COUNT ? outputs[f] : "?";
}

void bench_run_init(struct bench_run *r)
{
    double *all[] = {&r->ttft_ms, &r->tpot_ms, &r->itl_ms, &r->max_concurrency,
                     &r->mean_concurrency, &r->completed, &r->input_tokens, &r->output_tokens,
                     &r->mean_input, &r->mean_output, &r->request_rate, &r->e2el_ms};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        *all[i] = -1;
    r->line_ttft = r->line_tpot = r->line_conc = 1;
    r->tpot_name = r->ttft_name = NULL;
}

static bool add_point(struct bench_log *b, const struct fit_point *p, const char *figure, int line,
                      int estimated)
{
    if (b->npoints >= FIT_POINTS_MAX)
        return false;
    struct bench_point *q = &b->points[b->npoints++];
    q->fit = *p;
    snprintf(q->figure, sizeof q->figure, "%s", figure);
    q->line = line;
    q->concurrency_estimated = estimated != 0;
    q->littles_law = estimated == 1;
    return true;
}

/* The run's concurrency: the benchmark's limit, else the option's, else the
 * mean in flight (Little's law: requests a second x seconds a request), else
 * 1. *estimated: 0 given, 1 by Little's law, 2 assumed. */
static double run_concurrency(const struct bench_run *r, double out, uint64_t given,
                              int *estimated)
{
    *estimated = 0;
    if (r->max_concurrency >= 1)
        return r->max_concurrency;
    if (given)
        return (double)given;
    *estimated = 1;
    if (r->mean_concurrency > 0)
        return r->mean_concurrency;
    double e2el = r->e2el_ms > 0 ? r->e2el_ms
                  : r->ttft_ms > 0 && r->tpot_ms > 0 ? r->ttft_ms + r->tpot_ms * (out > 1 ? out - 1 : 0)
                                                     : -1;
    if (r->request_rate > 0 && e2el > 0)
        return r->request_rate * e2el / 1000.0;
    *estimated = 2;
    return 1;
}

bool bench_add_run(const char *path, const struct bench_run *r, uint64_t concurrency,
                   struct bench_log *b, struct diag *d)
{
    double in = r->mean_input, out = r->mean_output;
    if (in < 0 && r->completed > 0 && r->input_tokens >= 0)
        in = r->input_tokens / r->completed;
    if (out < 0 && r->completed > 0 && r->output_tokens >= 0)
        out = r->output_tokens / r->completed;
    if (r->completed == 0)
        return diag_fail(d, "%s:%d: a run of no completed request: nothing was measured", path,
                         r->line_ttft);
    if (!(in >= 1) || !(out >= 1) || in > 1e8 || out > 1e8)
        return diag_fail(d, "%s:%d: the run gives no input and output lengths (total input and "
                            "generated tokens over the requests)", path, r->line_ttft);
    double values[] = {r->ttft_ms, r->tpot_ms, r->itl_ms};
    for (int i = 0; i < 3; i++)
        if (!isfinite(values[i]) || values[i] > 1e8)
            return diag_fail(d, "%s:%d: %g ms is not a time a benchmark measures", path,
                             r->line_tpot, values[i]);
    int estimated;
    double c = run_concurrency(r, out, concurrency, &estimated);
    if (!(c >= 1 && c <= 1e8))
        return diag_fail(d, "%s:%d: a concurrency of %g: not 1 to 100,000,000", path,
                         r->line_conc, c);
    struct fit_point p = {.concurrency = (uint64_t)llround(c),
                          .input_tokens = (uint64_t)llround(in),
                          .output_tokens = (uint64_t)llround(out)};
    /* TPOT: a request's decode over its tokens; ITL when only that is given */
    double step = r->tpot_ms > 0 ? r->tpot_ms : r->itl_ms;
    if (step > 0 && out > 1) {
        p.kind = FIT_DECODE;
        p.measured_s = step / 1000.0;
        add_point(b, &p, r->tpot_ms > 0 ? r->tpot_name : "Mean ITL (ms)", r->line_tpot, estimated);
    }
    if (r->ttft_ms > 0) {
        p.kind = FIT_PREFILL;
        p.measured_s = r->ttft_ms / 1000.0;
        add_point(b, &p, r->ttft_name ? r->ttft_name : "Mean TTFT (ms)", r->line_ttft, estimated);
    }
    b->runs++;
    return true;
}

bool bench_add_llama(const char *path, int line, double n_prompt, double n_gen, double depth,
                     double ts, struct bench_log *b, struct diag *d)
{
    if (!(ts > 0 && isfinite(ts)))
        return diag_fail(d, "%s:%d: avg_ts (the t/s column) is not a positive speed", path, line);
    const char *bad = !(n_prompt >= 0 && n_prompt <= 1e8) ? "n_prompt"
                      : !(n_gen >= 0 && n_gen <= 1e8)     ? "n_gen"
                      : !(depth >= 0 && depth <= 1e8)     ? "n_depth"
                                                          : NULL;
    if (bad)
        return diag_fail(d, "%s:%d: %s is not a count of 0 to 100,000,000 tokens", path, line, bad);
    if ((n_prompt > 0) == (n_gen > 0))
        return true; /* pp+tg rows mix both: not one step kind */
    char figure[48], at[24] = "";
    if (depth > 0)
        snprintf(at, sizeof at, " @ d%.0f", depth);
    struct fit_point p = {.concurrency = 1, .depth = (uint64_t)depth};
    if (n_prompt > 0) {
        p.kind = FIT_PREFILL;
        p.input_tokens = (uint64_t)n_prompt;
        p.measured_s = n_prompt / ts; /* the prompt in one go */
        snprintf(figure, sizeof figure, "pp%.0f%s t/s", n_prompt, at);
    } else {
        p.kind = FIT_DECODE;
        p.input_tokens = 1;
        p.output_tokens = (uint64_t)n_gen;
        p.measured_s = 1.0 / ts; /* one token a step, batch 1 */
        snprintf(figure, sizeof figure, "tg%.0f%s t/s", n_gen, at);
    }
    b->runs++;
    add_point(b, &p, figure, line, false);
    return true;
}

/* The number after "key" (and its colon, spaces) in line: -1 when none. */
static double value_after(const char *line, const char *key)
{
    const char *p = strstr(line, key);
    if (p == NULL)
        return -1;
    p += strlen(key);
    while (*p == ' ' || *p == '\t' || *p == ':')
        p++;
    char *end;
    double v = strtod(p, &end);
    return end == p || !isfinite(v) ? -1 : v;
}

/* The summary's figures a run takes as they are (summary_line), and those
 * it reads apart: the request concurrency (which may say "not set"), the
 * first token and the time per output token. */
static const struct {
    const char *key;
    size_t at;
} summary_keys[] = {
    {"Successful requests:", offsetof(struct bench_run, completed)},
    {"Total input tokens:", offsetof(struct bench_run, input_tokens)},
    {"Total generated tokens:", offsetof(struct bench_run, output_tokens)},
    {"Request throughput (req/s):", offsetof(struct bench_run, request_rate)},
    {"Mean E2EL (ms):", offsetof(struct bench_run, e2el_ms)},
    {"Mean E2E Latency (ms):", offsetof(struct bench_run, e2el_ms)},
    {"Concurrency:", offsetof(struct bench_run, mean_concurrency)},
    {"Mean ITL (ms):", offsetof(struct bench_run, itl_ms)},
};
static const char *const summary_apart[] = {"Mean TTFT (ms):", "Mean TPOT (ms):",
                                            "Maximum request concurrency:",
                                            "Max request concurrency:"};
enum { SUMMARY_KEYS = sizeof summary_keys / sizeof summary_keys[0],
       SUMMARY_APART = sizeof summary_apart / sizeof summary_apart[0] };

/* A summary line of a figure kvplan reads whose value is no figure: "Mean
 * TPOT (ms): abc", a negative time or count (a concurrency may say "not
 * set" or "inf"); its key into *key. */
static bool bad_figure(const char *line, const char **key)
{
    for (size_t i = 0; i < SUMMARY_KEYS + SUMMARY_APART; i++) {
        const char *k = i < SUMMARY_KEYS ? summary_keys[i].key : summary_apart[i - SUMMARY_KEYS];
        size_t kl = strlen(k);
        if (strncmp(line, k, kl) != 0)
            continue;
        const char *p = line + kl;
        p += strspn(p, " \t");
        if (strstr(k, "request concurrency") &&
            (strncasecmp(p, "not set", 7) == 0 || strncasecmp(p, "inf", 3) == 0 ||
             strncasecmp(p, "none", 4) == 0))
            return false;
        char *end;
        double v = strtod(p, &end);
        end += strspn(end, " \t");
        *key = k;
        return end == p || *end != '\0' || !isfinite(v) || v < 0;
    }
    return false;
}

/* A line of a vLLM or SGLang summary into the run. */
static void summary_line(const char *line, int n, struct bench_run *r)
{
    for (size_t i = 0; i < SUMMARY_KEYS; i++)
        if (strncmp(line, summary_keys[i].key, strlen(summary_keys[i].key)) == 0)
            *(double *)((char *)r + summary_keys[i].at) = value_after(line, summary_keys[i].key);
    if (strncmp(line, "Maximum request concurrency:", 28) == 0 ||
        strncmp(line, "Max request concurrency:", 24) == 0) {
        r->max_concurrency = value_after(line, "concurrency:"); /* "not set" reads -1 */
        r->line_conc = n;
    }
    if (strncmp(line, "Mean TTFT (ms):", 15) == 0) {
        r->ttft_ms = value_after(line, "(ms):");
        r->line_ttft = n;
        r->ttft_name = "Mean TTFT (ms)";
    }
    if (strncmp(line, "Mean TPOT (ms):", 15) == 0) {
        r->tpot_ms = value_after(line, "(ms):");
        r->line_tpot = n;
        r->tpot_name = "Mean TPOT (ms)";
    }
    if (r->itl_ms > 0 && r->tpot_ms < 0 && strncmp(line, "Mean ITL (ms):", 14) == 0)
        r->line_tpot = n;
}

/* The next line of text from *at, NULs and CRs as spaces, at most size - 1. */
static bool next_line(const char *text, size_t len, size_t *at, char *line, size_t size)
{
    if (*at >= len)
        return false;
    size_t k = 0;
    while (*at < len && text[*at] != '\n') {
        char c = text[(*at)++];
        if (k + 1 < size)
            line[k++] = c == '\0' || c == '\r' ? ' ' : c;
    }
    (*at)++;
    while (k > 0 && line[k - 1] == ' ')
        k--;
    line[k] = '\0';
    return true;
}

/* An argument an argument dump names: "Namespace(..., model='meta-llama/X',
 * backend='vllm', ...)" (vllm bench serve's and sglang.bench_serving's args,
 * printed by their main), the first one only, into out when it is empty. key
 * is "model='". */
static void namespace_arg(const char *s, const char *key, char *out, size_t size)
{
    const char *m = strstr(s, "Namespace(");
    size_t kl = strlen(key);
    if (m == NULL || out[0])
        return;
    for (m = strstr(m, key); m; m = strstr(m + 1, key))
        if (m[-1] == '(' || m[-1] == ' ') {
            const char *end = strchr(m + kl, '\'');
            if (end && end - (m + kl) < (ptrdiff_t)size)
                snprintf(out, size, "%.*s", (int)(end - (m + kl)), m + kl);
            return;
        }
}

/* The engine's version, where a line states it: "vLLM API server version
 * 0.8.5" (vllm/entrypoints/openai/api_server.py, run_server), "vllm version
 * 0.10.1", "sglang version: 0.4.6" as users paste them; the first one only,
 * a version that starts with a digit (never guessed). */
static void version_line(const char *s, struct bench_log *b)
{
    const char *v = strstr(s, "version");
    if (b->engine_version[0] || v == NULL)
        return;
    bool engine = false;
    for (const char *p = s; p < v && !engine; p++)
        engine = strncasecmp(p, "vllm", 4) == 0 || strncasecmp(p, "sglang", 6) == 0;
    v += 7;
    v += strspn(v, " :=");
    if (v[0] == 'v' && isdigit((unsigned char)v[1]))
        v++;
    size_t n = strcspn(v, " ,)'\"");
    if (engine && isdigit((unsigned char)v[0]) && n < sizeof b->engine_version)
        snprintf(b->engine_version, sizeof b->engine_version, "%.*s", (int)n, v);
}

/* vLLM's and SGLang's printed summaries: each "Serving Benchmark Result" a run. */
static bool parse_summary(const char *path, const char *text, size_t len, uint64_t concurrency,
                          struct bench_log *b, struct diag *d)
{
    char line[1024];
    size_t at = 0;
    int n = 0;
    bool open = false;
    struct bench_run r, before; /* before: what is printed ahead of the next block */
    bench_run_init(&before);
    while (next_line(text, len, &at, line, sizeof line)) {
        n++;
        const char *s = line;
        while (*s == ' ')
            s++;
        const char *key;
        if (bad_figure(s, &key))
            return diag_fail(d, "%s:%d: %.*s '%s' is not a figure (a number, 0 or more)", path, n,
                             (int)strlen(key) - 1, key, s + strlen(key) + strspn(s + strlen(key), " \t"));
        namespace_arg(s, "model='", b->model, sizeof b->model);
        namespace_arg(s, "backend='", b->backend, sizeof b->backend);
        version_line(s, b);
        if (strstr(s, "Serving Benchmark Result")) {
            if (open && !bench_add_run(path, &r, concurrency, b, d))
                return false;
            bench_run_init(&r);
            r.line_ttft = r.line_tpot = r.line_conc = n;
            if (before.max_concurrency >= 1) {
                r.max_concurrency = before.max_concurrency; /* the block's own field wins */
                r.line_conc = before.line_conc;
            }
            bench_run_init(&before);
            open = true;
        } else if (open && s[0] == '=' && strspn(s, "=") == strlen(s)) {
            if (!bench_add_run(path, &r, concurrency, b, d)) /* the block's closing rule */
                return false;
            open = false;
        } else if (!open || (r.ttft_ms >= 0 && strncmp(s, "Maximum request concurrency:", 28) == 0)) {
            summary_line(s, n, &before); /* the next run's pre-run lines */
        } else {
            summary_line(s, n, &r);
            if (strncmp(s, "Backend:", 8) == 0)
                sscanf(s + 8, " %31s", b->backend);
            if (strncmp(s, "Accept length:", 14) == 0 || strncmp(s, "Acceptance rate", 15) == 0)
                b->speculative = true;
        }
    }
    return !open || bench_add_run(path, &r, concurrency, b, d);
}

/* The cells of a Markdown table row, trimmed, into cells (at most max). */
static int md_cells(char *row, char *cells[], int max)
{
    int n = 0;
    char *p = strchr(row, '|');
    while (p && n < max) {
        char *q = strchr(p + 1, '|');
        if (q == NULL)
            break;
        *q = '\0';
        char *c = p + 1;
        while (*c == ' ')
            c++;
        for (char *e = c + strlen(c); e > c && e[-1] == ' ';)
            *--e = '\0';
        cells[n++] = c;
        p = q;
    }
    return n;
}

/* llama-bench's params cell, "8.03 B" or "494.03 M" (markdown_printer's
 * human-readable count); 0 when it is none. */
static double param_count(const char *cell)
{
    char *end;
    double v = strtod(cell, &end);
    while (*end == ' ')
        end++;
    double unit = *end == 'B' ? 1e9 : *end == 'M' ? 1e6 : *end == 'K' ? 1e3 : *end == 'T' ? 1e12
                  : *end == '\0' ? 1 : 0;
    return end == cell || !isfinite(v) || v <= 0 ? 0 : v * unit;
}

/* llama-bench's Markdown table: the "test" and "t/s" columns of each row. */
static bool parse_llama_md(const char *path, const char *text, size_t len, struct bench_log *b,
                           struct diag *d)
{
    char line[2048], *cells[64];
    size_t at = 0;
    int n = 0, test = -1, ts = -1, model = -1, params = -1;
    while (next_line(text, len, &at, line, sizeof line)) {
        n++;
        if (strncmp(line, "build:", 6) == 0)
            snprintf(b->engine_version, sizeof b->engine_version, "%s", line + 7);
        /* ggml's backend prints "  Device 0: NVIDIA GeForce RTX 4090, compute capability
         * 8.9, VMM: yes" ahead of the table: the GPU it ran on */
        const char *dev = line + strspn(line, " ");
        if (strncmp(dev, "Device 0: ", 10) == 0 && !b->gpu[0])
            snprintf(b->gpu, sizeof b->gpu, "%.*s", (int)strcspn(dev + 10, ","), dev + 10);
        if (line[0] != '|')
            continue;
        int k = md_cells(line, cells, 64);
        if (test < 0) {
            for (int i = 0; i < k; i++) {
                test = strcmp(cells[i], "test") == 0 ? i : test;
                ts = strcmp(cells[i], "t/s") == 0 ? i : ts;
                model = strcmp(cells[i], "model") == 0 ? i : model;
                params = strcmp(cells[i], "params") == 0 ? i : params;
            }
            continue;
        }
        if (test >= k || ts >= k || ts < 0 || strncmp(cells[test], "---", 3) == 0 ||
            cells[test][0] == '-')
            continue;
        double pp = 0, tg = 0, depth = 0;
        const char *t = cells[test];
        if (strncmp(t, "pp", 2) == 0)
            pp = strtod(t + 2, NULL);
        else if (strncmp(t, "tg", 2) == 0)
            tg = strtod(t + 2, NULL);
        if (strstr(t, "+tg"))
            tg = strtod(strstr(t, "+tg") + 3, NULL);
        if (strstr(t, "@ d"))
            depth = strtod(strstr(t, "@ d") + 3, NULL);
        if (model >= 0 && model < k && !b->model[0])
            snprintf(b->model, sizeof b->model, "%s", cells[model]);
        if (params >= 0 && params < k && b->params <= 0) /* "8.03 B", "494.03 M" */
            b->params = param_count(cells[params]);
        if (!bench_add_llama(path, n, pp, tg, depth, strtod(cells[ts], NULL), b, d))
            return false;
    }
    return true;
}

/* A CSV number as genai-perf writes it: "1,234.56" quoted. */
static double csv_number(const char *cell)
{
    char digits[64];
    size_t k = 0;
    for (const char *p = cell; *p && *p != ',' && k + 1 < sizeof digits; p++) {
        if (*p == '"') {
            for (p++; *p && *p != '"' && k + 1 < sizeof digits; p++)
                if (*p != ',')
                    digits[k++] = *p;
            break;
        }
        digits[k++] = *p;
    }
    digits[k] = '\0';
    char *end;
    double v = strtod(digits, &end);
    return end == digits ? -1 : v;
}

/* genai-perf's CSV: the avg column of its request metrics. */
static bool parse_genai_csv(const char *path, const char *text, size_t len, uint64_t concurrency,
                            struct bench_log *b, struct diag *d)
{
    char line[1024];
    size_t at = 0;
    int n = 0;
    struct bench_run r;
    bench_run_init(&r);
    r.completed = 1; /* the means are given */
    while (next_line(text, len, &at, line, sizeof line)) {
        n++;
        const char *comma = strchr(line, ',');
        double v = comma ? csv_number(comma + 1) : -1;
        if (strncmp(line, "Time To First Token (ms),", 25) == 0) {
            r.ttft_ms = v;
            r.line_ttft = n;
            r.ttft_name = "Time To First Token (ms) avg";
        } else if (strncmp(line, "Inter Token Latency (ms),", 25) == 0) {
            r.tpot_ms = v; /* a request's (latency - TTFT) / (tokens - 1): TPOT */
            r.line_tpot = n;
            r.tpot_name = "Inter Token Latency (ms) avg";
        } else if (strncmp(line, "Request Latency (ms),", 21) == 0) {
            r.e2el_ms = v;
        } else if (strncmp(line, "Request Throughput (per sec),", 29) == 0) {
            r.request_rate = v;
        } else if (strncmp(line, "Concurrency,", 12) == 0) {
            r.max_concurrency = v;
            r.line_conc = n;
        } else if (strncmp(line, "Input Sequence Length", 21) == 0) {
            r.mean_input = v;
        } else if (strncmp(line, "Output Sequence Length", 22) == 0) {
            r.mean_output = v;
        }
    }
    return bench_add_run(path, &r, concurrency, b, d);
}

/* genai-perf names its artifact folder "...-concurrency8": the file's own
 * concurrency when the CSV gives none. */
static uint64_t path_concurrency(const char *path)
{
    const char *p = strstr(path, "concurrency");
    return p ? strtoull(p + 11, NULL, 10) : 0;
}

/* genai-perf's artifact folder, "{model, '/' as '_'}-{service kind}-
 * {endpoint}-concurrency{N}" (genai_perf/parser.py, _set_artifact_paths):
 * the name that holds the model, when the file is in such a folder. */
static void genai_folder(const char *path, struct bench_log *b)
{
    const char *end = strrchr(path, '/');
    if (end == NULL)
        return;
    const char *start = end;
    while (start > path && start[-1] != '/')
        start--;
    size_t n = (size_t)(end - start);
    char folder[sizeof b->model_file];
    if (n == 0 || n >= sizeof folder)
        return;
    snprintf(folder, sizeof folder, "%.*s", (int)n, start);
    if (strstr(folder, "-concurrency") || strstr(folder, "-request_rate"))
        snprintf(b->model_file, sizeof b->model_file, "%s", folder);
}

static enum bench_format detect_text(const char *text, size_t len)
{
    char head[8192];
    size_t n = len < sizeof head - 1 ? len : sizeof head - 1;
    for (size_t i = 0; i < n; i++)
        head[i] = text[i] ? text[i] : ' ';
    head[n] = '\0';
    const char *h = strncmp(head, "\xef\xbb\xbf", 3) == 0 ? head + 3 : head;
    if (strncmp(h, "Metric,avg", 10) == 0)
        return BENCH_GENAI_CSV;
    if (strstr(h, " test |") && strstr(h, " t/s |"))
        return BENCH_LLAMA_MD;
    if (strstr(h, "Serving Benchmark Result") || strstr(h, "Mean TTFT (ms):"))
        return strstr(h, "Backend:") || strstr(h, "Mean E2E Latency (ms):") ? BENCH_SGLANG_TEXT
                                                                             : BENCH_VLLM_TEXT;
    return BENCH_UNKNOWN;
}

bool bench_parse(const char *path, const char *text, size_t len, uint64_t concurrency,
                 struct bench_log *b, struct diag *d)
{
    memset(b, 0, sizeof *b);
    if (!bench_parse_json(path, text, len, concurrency, b, d))
        return false;
    if (b->format != BENCH_UNKNOWN)
        return true;
    b->format = detect_text(text, len);
    switch (b->format) {
    case BENCH_GENAI_CSV:
        genai_folder(path, b);
        return parse_genai_csv(path, text, len, concurrency ? concurrency : path_concurrency(path),
                               b, d);
    case BENCH_LLAMA_MD:
        return parse_llama_md(path, text, len, b, d);
    case BENCH_VLLM_TEXT:
    case BENCH_SGLANG_TEXT:
        return parse_summary(path, text, len, concurrency, b, d);
    default:
        return true;
    }
}
