/* simulate: a stream of requests served by the plan's deployment, step by
 * step (core/sim.h), reported as vllm bench serve reports a run: parse,
 * check, simulate, print (simulate_print.c). */
#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/options_table.h"
#include "cli/simulate.h"
#include "core/engine_desc.h"
#include "core/loadrun.h"
#include "io/fileio.h"
#include "core/optname.h"
#include "core/units.h"
#include "io/trace.h"

static bool simulates(const struct engine_desc *e)
{
    return e->simulated != NULL;
}

/* Words after the options: further --goodput pairs (vLLM takes them after
 * one --goodput), nothing else. */
bool simulate_goodput_words(int argc, char **argv, struct options *o, struct diag *d)
{
    const struct option_row *row = &options_table[OPT_GOODPUT];
    for (int i = optind; i < argc; i++) {
        if (!o->given[OPT_GOODPUT])
            return diag_fail(d, "'%s': unexpected argument (see --help)", argv[i]);
        if (!opt_goodput(row, argv[i], o, d))
            return false;
    }
    return true;
}

/* Without --engine (and no snapshot to take it from), vLLM V1: the engine
 * options given then read as its own. */
void simulate_default_engine(struct options *o)
{
    const struct engine_desc *e = engine_find(simulates);
    if (o->given[OPT_ENGINE] || o->load_path || e == NULL)
        return;
    o->given[OPT_ENGINE] = true;
    o->engine = e->kind;
    o->engine_rule = RULE_CURRENT;
}

bool simulate_plan_workload_refused(const struct options *o, struct diag *d)
{
    static const struct {
        enum option_id plan, sim;
        const char *what;
    } instead[] = {
        {OPT_OUTPUT_LEN, OPT_RANDOM_OUTPUT_LEN, "the tokens each simulated request generates"},
        {OPT_PROMPT, OPT_RANDOM_INPUT_LEN, "the simulated requests' prompts"},
        {OPT_CONCURRENCY, OPT_MAX_CONCURRENCY, "the requests the client keeps in flight"},
    };
    for (size_t i = 0; i < sizeof instead / sizeof instead[0]; i++)
        if (o->given[instead[i].plan])
            return diag_fail(d, "%s: a plan's figure, not a simulated request's: %s are %s",
                             OPTION_FLAG(instead[i].plan), instead[i].what,
                             OPTION_FLAG(instead[i].sim));
    return true;
}

const struct workload_profile *simulate_profile(const struct options *o)
{
    const char *n = o->given[OPT_DATASET] ? o->dataset_path : NULL;
    if (n == NULL || strchr(n, '/') || strchr(n, '.'))
        return NULL;
    return trace_profile(n);
}

bool simulate_profile_lengths(const struct options *o, const char *command, struct diag *d)
{
    static const int lengths[] = {OPT_RANDOM_INPUT_LEN, OPT_RANDOM_OUTPUT_LEN,
                                  OPT_RANDOM_RANGE_RATIO};
    if (!o->given[OPT_DATASET])
        return true;
    const char *n = o->dataset_path;
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++)
        if (o->given[lengths[i]])
            return diag_fail(d, "%s: the %s %s gives each request's lengths",
                             OPTION_FLAG(lengths[i]), simulate_profile(o) ? "length profile"
                                                                          : "trace", n);
    if (simulate_profile(o))
        return true;
    if (n[0] != '\0' && access(n, F_OK) == 0) { /* a file: a trace */
        if (command)
            return diag_fail(d, "%s %s: a request trace runs on one deployment (kvplan "
                             "simulate); %s draws from a length profile (kvplan list datasets)",
                             OPTNAME_DATASET, n, command);
        return true;
    }
    char names[256] = "";
    for (size_t i = 0; trace_profile_at(i); i++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                 trace_profile_at(i)->name);
    return diag_fail(d, "%s '%s': no such file, nor a length profile (%s; kvplan list datasets)",
                     OPTNAME_DATASET, n, names);
}

void simulate_profile_left_out(const struct workload_profile *p, size_t fitting, uint64_t most,
                               uint64_t context, bool prompts, const char *where)
{
    size_t out = p->n - fitting;
    if (out == 0)
        return;
    char a[32], b[32], m[32];
    units_format_int(out, a, sizeof a);
    units_format_int(p->n, b, sizeof b);
    units_format_int(most, m, sizeof m);
    /* a note, a warning when most of the profile is gone */
    fprintf(stderr, "kvplan: %s: %s: %s%s of its %s requests %s left out: longer than %s %s "
                    "tokens%s (a server refuses them)\n", 2 * out > p->n ? "warning" : "note",
            p->name, where ? where : "", a, b, out == 1 ? "is" : "are",
            most < context ? "the KV pool's" : "the context's", m,
            prompts ? ", or prompts longer than a step's tokens" : "");
}

void simulate_profile_fit(struct workload_params *w, struct workload_fit *fit, uint64_t context)
{
    *fit = workload_profile_fit(w);
    w->input_len = (uint64_t)llround(fit->mean_input);
    w->output_len = (uint64_t)llround(fit->mean_output);
    w->range_ratio = 0;
    simulate_profile_left_out(w->profile, fit->count, w->most_total, context,
                              w->most_prompt > 0, NULL);
}

/* The workload from the options, vLLM's defaults where none is given. */
struct workload_params simulate_workload(const struct options *o, const struct scenario *s)
{
    const bool *g = o->given;
    return (struct workload_params){
        .num_prompts = g[OPT_NUM_PROMPTS] ? o->num_prompts : WORKLOAD_DEFAULT_PROMPTS,
        .request_rate = g[OPT_REQUEST_RATE] ? o->request_rate : INFINITY,
        .burstiness = g[OPT_BURSTINESS] ? o->burstiness : 1.0,
        .input_len = g[OPT_RANDOM_INPUT_LEN] ? o->input_len : WORKLOAD_DEFAULT_INPUT_LEN,
        .output_len = g[OPT_RANDOM_OUTPUT_LEN] ? o->output_len : WORKLOAD_DEFAULT_OUTPUT_LEN,
        .range_ratio = o->range_ratio,
        .prefix_len = s->prefix_tokens,
        .seed = o->seed,
        .profile = simulate_profile(o)};
}

/* --compare: what the measured run's file says of its workload, where no
 * option says otherwise; the names taken into sr->from_file. */
static bool workload_from_file(const struct options *o, struct simulate_run *sr, struct diag *d)
{
    const struct bench_result *b = &sr->bench;
    const bool *g = o->given;
    struct workload_params *w = &sr->w;
    bool lengths = !g[OPT_DATASET]; /* a profile's or a trace's lengths are theirs */
    sr->nfrom = 0;
#define TAKE(opt, ok, name, set)                                                              \
    do {                                                                                      \
        if (!g[opt] && (ok)) {                                                                \
            set;                                                                              \
            sr->from_file[sr->nfrom++] = name;                                                \
        }                                                                                     \
    } while (0)
    TAKE(OPT_NUM_PROMPTS, b->num_prompts >= 1, "num_prompts",
         w->num_prompts = (uint64_t)b->num_prompts);
    TAKE(OPT_REQUEST_RATE, b->request_rate > 0, "request_rate", w->request_rate = b->request_rate);
    TAKE(OPT_BURSTINESS, b->burstiness > 0, "burstiness", w->burstiness = b->burstiness);
    TAKE(OPT_MAX_CONCURRENCY, b->max_concurrency >= 0, "max_concurrency",
         sr->c.max_concurrency = (uint64_t)b->max_concurrency);
    TAKE(OPT_RANDOM_INPUT_LEN, lengths && b->input_len >= 1, "input_len",
         w->input_len = (uint64_t)b->input_len);
    TAKE(OPT_RANDOM_OUTPUT_LEN, lengths && b->output_len >= 1, "output_len",
         w->output_len = (uint64_t)b->output_len);
    TAKE(OPT_RANDOM_RANGE_RATIO, lengths && b->range_ratio >= 0, "range_ratio",
         w->range_ratio = b->range_ratio);
#undef TAKE
    if (w->num_prompts > SIM_MAX_REQUESTS)
        return diag_fail(d, "%s: num_prompts %llu: simulate takes at most %d (give %s)",
                         sr->compare_path, (unsigned long long)w->num_prompts, SIM_MAX_REQUESTS,
                         OPTION_FLAG(OPT_NUM_PROMPTS));
    return true;
}

/* --dataset: the trace's requests (the first --num-prompts of them), each
 * checked against the context and the pool by its line; the workload's
 * lengths become the trace's means (its own words), its arrivals the
 * trace's unless --request-rate re-times them as vllm bench serve does a
 * dataset's. */
bool simulate_dataset(const struct options *o, struct simulate_run *sr, struct diag *d)
{
    static const int lengths[] = {OPT_RANDOM_INPUT_LEN, OPT_RANDOM_OUTPUT_LEN,
                                  OPT_RANDOM_RANGE_RATIO};
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++)
        if (o->given[lengths[i]])
            return diag_fail(d, "%s: the trace %s gives each request's lengths",
                             OPTION_FLAG(lengths[i]), o->dataset_path);
    size_t len;
    char *text = fileio_read(o->dataset_path, &len, d);
    if (text == NULL) { /* the option named before the file's own words */
        diag_prefix(d, "%s", OPTNAME_DATASET);
        return false;
    }
    struct trace *t = &sr->trace;
    bool ok = trace_read(o->dataset_path, text, len, SIM_MAX_REQUESTS, t, d);
    free(text);
    if (!ok)
        return false;
    sr->dataset_path = o->dataset_path;
    struct workload_params *w = &sr->w;
    if (o->given[OPT_NUM_PROMPTS] && o->num_prompts > t->n)
        return diag_fail(d, "%s %llu: the trace %s holds %zu requests", OPTION_FLAG(OPT_NUM_PROMPTS),
                         (unsigned long long)o->num_prompts, o->dataset_path, t->n);
    w->num_prompts = o->given[OPT_NUM_PROMPTS] ? o->num_prompts : t->n;
    sr->trace_arrivals = t->timed && !o->given[OPT_REQUEST_RATE];
    /* its own arrivals: the rate the reports give is their mean */
    double last = t->req[w->num_prompts - 1].arrival;
    if (sr->trace_arrivals)
        w->request_rate = last > 0 ? (double)w->num_prompts / last : INFINITY;
    uint64_t in = 0, out = 0, longest = 1, widest = 0;
    for (size_t i = 0; i < w->num_prompts; i++) {
        uint64_t all = w->prefix_len + t->req[i].prompt + t->req[i].output;
        widest = all > widest ? all : widest;
    }
    for (size_t i = 0; i < w->num_prompts; i++) {
        const struct workload_request *q = &t->req[i];
        uint64_t all = w->prefix_len + q->prompt + q->output;
        if (all > sr->c.max_model_len)
            return diag_fail(d, "%s:%u: input_len %llu + output_len %llu%s is longer than the "
                             "context (%s %llu; the trace's longest request takes %s %llu)",
                             o->dataset_path, t->line[i], (unsigned long long)q->prompt,
                             (unsigned long long)q->output,
                             w->prefix_len ? " after the prefix" : "", OPTNAME_CONTEXT,
                             (unsigned long long)sr->c.max_model_len, OPTNAME_CONTEXT,
                             (unsigned long long)widest);
        uint64_t need = sim_request_blocks(&sr->c, all - 1) + sim_prefix_blocks(&sr->c);
        if (need > sr->c.blocks)
            return diag_fail(d, "%s:%u: a request of %llu tokens needs %llu KV blocks; the pool "
                             "holds %llu", o->dataset_path, t->line[i], (unsigned long long)all,
                             (unsigned long long)need, (unsigned long long)sr->c.blocks);
        in += q->prompt;
        out += q->output;
        longest = q->prompt > longest ? q->prompt : longest;
    }
    /* the engine's checks of the longest prompt (a whole-prompt scheduler's
     * token budget), then the means the reports show */
    struct workload_params check = *w;
    check.input_len = longest;
    check.output_len = 1;
    check.range_ratio = 0;
    if (!load_check_workload(&check, &sr->c, d)) {
        diag_prefix(d, "%s: its longest prompt, %llu tokens", o->dataset_path,
                    (unsigned long long)longest);
        return false;
    }
    if (t->with_prefix_id)
        fprintf(stderr, "kvplan: warning: %s: %zu requests name a prefix_id: the simulator shares "
                        "one prefix among every request (--prefix), not theirs\n",
                o->dataset_path, t->with_prefix_id);
    w->input_len = (in + w->num_prompts / 2) / w->num_prompts;
    w->output_len = (out + w->num_prompts / 2) / w->num_prompts;
    w->range_ratio = 0;
    return true;
}

void simulate_trace_requests(const struct simulate_run *sr, struct workload_request *q)
{
    for (size_t i = 0; sr->dataset_path && i < sr->w.num_prompts; i++) {
        /* the trace's lengths; the generator's arrivals unless the trace's own */
        q[i].prompt = sr->w.prefix_len + sr->trace.req[i].prompt;
        q[i].output = sr->trace.req[i].output;
        if (sr->trace_arrivals)
            q[i].arrival = sr->trace.req[i].arrival;
    }
}

/* A model's name as runs spell it, to compare: the part after the last '/',
 * lower case, without an "-instruct" or "-it" ending and without '-', '_'
 * and '.' ("meta-llama/Llama-3.1-8B-Instruct" and "llama-3.1-8b": "llama318b"). */
static void model_key(const char *s, char *out, size_t size)
{
    const char *slash = strrchr(s, '/');
    s = slash ? slash + 1 : s;
    size_t n = 0;
    for (; *s && n + 1 < size; s++)
        if (*s != '-' && *s != '_' && *s != '.' && *s != ' ')
            out[n++] = (char)tolower((unsigned char)*s);
    out[n] = '\0';
    static const char *const tails[] = {"instruct", "chat", "it"};
    for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
        size_t t = strlen(tails[i]);
        if (n > t && strcmp(out + n - t, tails[i]) == 0) {
            out[n - t] = '\0';
            break;
        }
    }
}

/* The measured run served another model than the plan's: said, not refused
 * (a fine-tune or a quantized copy of the same shape compares as well). */
static void simulate_compare_model(const struct simulate_run *sr)
{
    const char *ran = sr->bench.model;
    if (ran[0] == '\0')
        return;
    char a[160], b[160], c[160];
    model_key(ran, a, sizeof a);
    model_key(sr->s.model.id, b, sizeof b);
    model_key(sr->s.model.hf_id, c, sizeof c);
    if (strcmp(a, b) != 0 && (c[0] == '\0' || strcmp(a, c) != 0))
        fprintf(stderr, "kvplan: warning: %s: the run served %s; the plan's model is %s (%s "
                        "to plan that one)\n", sr->compare_path, ran, sr->s.model.id,
                OPTION_FLAG(OPT_MODEL));
}

/* Reads --compare's file into sr->bench. */
static bool read_compare(const char *path, struct simulate_run *sr, struct diag *d)
{
    size_t len;
    char *text = fileio_read(path, &len, d);
    if (text == NULL)
        return false;
    bool ok = bench_result_read(path, text, len, &sr->bench, d);
    free(text);
    sr->compare_path = path;
    return ok;
}

bool simulate_run_failed(enum sim_status st, struct diag *d)
{
    switch (st) {
    case SIM_OK:
        return false;
    case SIM_STEPS:
        diag_fail(d, "the run passes %d engine steps: give fewer %s", SIM_MAX_STEPS,
                  OPTION_FLAG(OPT_NUM_PROMPTS));
        break;
    case SIM_SECONDS:
        diag_fail(d, "the run passes %.0f days of simulated time: give fewer %s or a higher %s",
                  SIM_MAX_SECONDS / 86400, OPTION_FLAG(OPT_NUM_PROMPTS),
                  OPTION_FLAG(OPT_REQUEST_RATE));
        break;
    case SIM_NO_MEMORY:
        diag_fail(d, "out of memory for the simulation");
        break;
    case SIM_STUCK:
        diag_fail(d, "the engine never starts some of the requests: the pool cannot hold what "
                  "it reserves for one (give a shorter %s or %s, or more memory)",
                  OPTION_FLAG(OPT_RANDOM_INPUT_LEN), OPTION_FLAG(OPT_RANDOM_OUTPUT_LEN));
        break;
    case SIM_STALLED:
        diag_fail(d, "the step time is 0: nothing to simulate with");
        break;
    }
    return true;
}

bool simulate_config(const struct scenario *s, const struct plan_result *r, struct sim_config *c,
                     struct diag *d)
{
    if (!load_check_plan(s, r, d))
        return false;
    sim_config_of_plan(s, r, c);
    return load_check_config(r, c, d);
}

bool simulate_sched_options(const struct options *o, const struct scenario *s,
                            struct sim_config *c, struct diag *d)
{
    const struct engine_desc *e = engine_desc(s->engine.kind);
    if (o->given[OPT_ROUTER])
        c->router = o->router;
    if (o->given[OPT_CAPACITY_POLICY] && !e->sched.capacity)
        return diag_fail(d, "%s is TensorRT-LLM's capacity scheduler (--engine trtllm), not %s's",
                         OPTION_FLAG(OPT_CAPACITY_POLICY), e->title);
    if (o->given[OPT_CAPACITY_POLICY])
        c->capacity = o->capacity;
    if (o->given[OPT_SCHEDULER_RECV_INTERVAL] && !e->sched.recv_interval)
        return diag_fail(d, "%s is SGLang's scheduler's (--engine sglang), not %s's",
                         OPTION_FLAG(OPT_SCHEDULER_RECV_INTERVAL), e->title);
    if (o->given[OPT_SCHEDULER_RECV_INTERVAL])
        c->recv_interval = o->recv_interval;
    if (o->given[OPT_MAX_PREFILL_TOKENS] && !e->sched.recv_interval)
        return diag_fail(d, "%s is SGLang's scheduler's (--engine sglang), not %s's",
                         OPTION_FLAG(OPT_MAX_PREFILL_TOKENS), e->title);
    if (o->given[OPT_MAX_PREFILL_TOKENS])
        c->max_prefill_tokens = o->max_prefill_tokens;
    if (o->given[OPT_WARM_PROMPTS] && e->sched.kind != SIM_SCHED_VLLM)
        return diag_fail(d, "%s models vLLM V1's prefix cache (--engine vllm), not %s's",
                         OPTION_FLAG(OPT_WARM_PROMPTS), e->title);
    if (o->given[OPT_WARM_PROMPTS])
        c->warm_requests = o->warm_prompts;
    return true;
}

/* Plans, checks and simulates; the plan and the run into *sr. */
static bool simulate(const struct options *o, struct simulate_run *sr, struct diag *d)
{
    struct catalog cat;
    if (o->compare_path && !read_compare(o->compare_path, sr, d))
        return false;
    if (!options_load(o, &cat, &sr->s, d))
        return false;
    catalog_free(&cat);
    /* a snapshot planned with the generic rule runs on vLLM V1 too */
    const struct engine_desc *v1 = engine_find(simulates);
    if (!o->given[OPT_ENGINE] && !engine_desc(sr->s.engine.kind)->server && v1) {
        sr->s.engine.kind = v1->kind;
        sr->s.engine.rule = RULE_CURRENT;
    }
    sr->x.deferred = false;
    if (load_without_stages(&sr->s))
        fprintf(stderr, "kvplan: note: %s %u: simulate runs one pipeline stage (it does not model "
                        "stages): replicas of TP %u\n", OPTION_FLAG(OPT_GPUS), sr->s.gpus,
                scenario_tp(&sr->s));
    if (!plan_compute(&sr->s, &sr->x, NULL, &sr->r, d))
        return false;
    if (!simulate_config(&sr->s, &sr->r, &sr->c, d))
        return false;
    if (!simulate_sched_options(o, &sr->s, &sr->c, d))
        return false;
    sr->router_given = o->given[OPT_ROUTER];
    sr->c.max_concurrency = o->given[OPT_MAX_CONCURRENCY] ? o->max_concurrency : 0;
    double *slo[3] = {&sr->c.slo_ttft, &sr->c.slo_tpot, &sr->c.slo_e2el};
    for (int i = 0; i < 3; i++)
        *slo[i] = o->goodput_set[i] ? o->goodput_ms[i] / 1000.0 : -1;
    sr->w = simulate_workload(o, &sr->s);
    if (sr->compare_path && !workload_from_file(o, sr, d))
        return false;
    if (sr->compare_path)
        simulate_compare_model(sr);
    if (!simulate_profile_lengths(o, NULL, d))
        return false;
    if (o->dataset_path && !sr->w.profile) {
        if (!simulate_dataset(o, sr, d))
            return false;
    } else if (!load_check_workload(&sr->w, &sr->c, d)) {
        return false;
    } else if (sr->w.profile) {
        simulate_profile_fit(&sr->w, &sr->fit, sr->c.max_model_len);
    }
    /* vllm bench serve draws the gaps of --request-rate with it: a burst at
     * once, or a trace's own arrivals, has none to shape */
    if (o->given[OPT_BURSTINESS] && (isinf(sr->w.request_rate) || sr->trace_arrivals))
        return diag_fail(d, "%s: it shapes the gaps between requests at %s R; %s has none "
                         "(give %s)", OPTION_FLAG(OPT_BURSTINESS), OPTION_FLAG(OPT_REQUEST_RATE),
                         sr->trace_arrivals ? "the trace's own timing" : "a burst sent at once",
                         OPTION_FLAG(OPT_REQUEST_RATE));
    if (sr->c.warm_requests > sr->w.num_prompts)
        return diag_fail(d, "%s %llu: more than the %llu prompts sent (%s)",
                         OPTION_FLAG(OPT_WARM_PROMPTS), (unsigned long long)sr->c.warm_requests,
                         (unsigned long long)sr->w.num_prompts, OPTION_FLAG(OPT_NUM_PROMPTS));
    struct workload_request *q = malloc((size_t)sr->w.num_prompts * sizeof *q);
    if (q == NULL)
        return diag_fail(d, "out of memory for %llu requests",
                         (unsigned long long)sr->w.num_prompts);
    workload_generate(&sr->w, q);
    simulate_trace_requests(sr, q);
    enum sim_status st = sim_run(&sr->c, q, (size_t)sr->w.num_prompts, &sr->out);
    free(q);
    return !simulate_run_failed(st, d);
}

int cmd_simulate(int argc, char **argv)
{
    struct options o;
    struct diag d = {0};
    int parsed = cli_parse(CMD_SIMULATE, argc, argv, &o);
    if (parsed != CLI_PARSED)
        return parsed;
    if (!simulate_goodput_words(argc, argv, &o, &d) || !simulate_plan_workload_refused(&o, &d))
        return cli_fail(d.message);
    simulate_default_engine(&o);
    if (o.given[OPT_DISAGGREGATED] || disagg_given(&o) != OPT_COUNT) {
        if (!simulate_profile_lengths(&o, NULL, &d))
            return cli_fail(d.message);
        return simulate_disagg(&o);
    }
    static struct simulate_run sr; /* the plan's explain rows are large */
    memset(&sr, 0, sizeof sr);
    bool ran = simulate(&o, &sr, &d);
    trace_free(&sr.trace);
    if (!ran)
        return cli_fail(d.message);
    bool ok = o.format == FORMAT_JSON ? simulate_print_json(stdout, &sr)
                                      : simulate_print_text(stdout, &sr);
    if (!ok)
        return cli_fail("cannot build the JSON (out of memory)");
    if (fflush(stdout) != 0)
        return cli_fail("cannot write to standard output");
    return 0;
}
