/* solve_slo: the fewest GPUs, and their replicas x TP, whose simulated run
 * of a stream of requests keeps --goodput's objectives for a share of them
 * (core/slo_search.h): parse and check, search, print as text or JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options_table.h"
#include "cli/simulate.h"
#include "core/loadrun.h"
#include "cli/solve_disagg.h"
#include "cli/solve_slo.h"
#include "io/snapshot.h"
#include "core/engine_desc.h"
#include "core/speed_ttft.h"
#include "core/slo_search.h"
#include "core/units.h"
#include "core/version.h"

/* The search's bounds unless --max-gpus and --max-plans say more, and the
 * share of requests that must keep the objectives unless --goodput-target
 * does. */
enum { SLO_DEFAULT_MAX_GPUS = 64, SLO_DEFAULT_MAX_RUNS = 200 };
#define SLO_DEFAULT_TARGET 0.95

/* The options that ask the question (and only it takes). */
static const enum option_id slo_options[] = {
    OPT_REQUEST_RATE, OPT_GOODPUT,      OPT_GOODPUT_TARGET,     OPT_NUM_PROMPTS,
    OPT_BURSTINESS,   OPT_RANDOM_INPUT_LEN, OPT_RANDOM_OUTPUT_LEN, OPT_RANDOM_RANGE_RATIO,
    OPT_SEED,         OPT_MAX_CONCURRENCY,    OPT_DATASET,
    OPT_DISAGGREGATED, OPT_NO_DISAGGREGATED, OPT_PREFILL_GPU, OPT_DECODE_GPU, OPT_KV_LINK,
    OPT_KV_TRANSFER_BANDWIDTH, OPT_KV_TRANSFER_LATENCY};

bool solve_slo_asked(const struct options *o)
{
    for (size_t i = 0; i < sizeof slo_options / sizeof slo_options[0]; i++)
        if (o->given[slo_options[i]])
            return true;
    return false;
}

/* The first of the question's options given, to name in a message. */
static const char *first_given(const struct options *o)
{
    for (size_t i = 0; i < sizeof slo_options / sizeof slo_options[0]; i++)
        if (o->given[slo_options[i]])
            return OPTION_FLAG(slo_options[i]);
    return OPTION_FLAG(OPT_REQUEST_RATE);
}

/* What the options say together. */
static bool slo_checks(const struct options *o, struct diag *d)
{
    const bool *g = o->given;
    const char *rate = OPTION_FLAG(OPT_REQUEST_RATE);
    /* the other question's options beside this one's, named as given */
    const char *asked = first_given(o);
    if (g[OPT_USERS])
        return diag_fail(d, "solve: %s and %s ask two questions: give one of them",
                         OPTION_FLAG(OPT_USERS), asked);
    if (g[OPT_MAX_CONTEXT] || g[OPT_UTILIZATION])
        return diag_fail(d, "solve: %s asks another question than %s: give one of them",
                         OPTION_FLAG(g[OPT_MAX_CONTEXT] ? OPT_MAX_CONTEXT : OPT_UTILIZATION),
                         asked);
    if (!simulate_plan_workload_refused(o, d) || !simulate_profile_lengths(o, "solve", d))
        return false;
    if (!g[OPT_REQUEST_RATE])
        return diag_fail(d, "solve %s: needs %s R, the requests a second to serve",
                         first_given(o), rate);
    if (isinf(o->request_rate))
        return diag_fail(d, "solve %s inf: the stream needs a finite rate (requests a second)",
                         rate);
    if (!g[OPT_GOODPUT])
        return diag_fail(d, "solve %s: needs %s KEY:MS, the objectives a request must keep "
                         "(ttft:MS tpot:MS e2el:MS)", rate, OPTION_FLAG(OPT_GOODPUT));
    static const enum option_id layout[] = {OPT_GPUS, OPT_TP, OPT_PP};
    for (size_t i = 0; i < sizeof layout / sizeof layout[0]; i++)
        if (g[layout[i]])
            return diag_fail(d, "solve %s: with %s solve chooses the layout (replicas x TP): "
                             "drop %s, or bound it with %s", OPTION_FLAG(layout[i]), rate,
                             OPTION_FLAG(layout[i]), OPTION_FLAG(OPT_MAX_GPUS));
    if (g[OPT_MAX_PP] && o->max_pp > 1)
        return diag_fail(d, "solve %s %u: with %s the layouts are replicas x TP (the simulation "
                         "does not model pipeline stages)", OPTION_FLAG(OPT_MAX_PP), o->max_pp,
                         rate);
    if (o->solve_gpu_count > 1)
        return diag_fail(d, "solve %s: one GPU type with %s (%d given)",
                         OPTION_FLAG(OPT_SOLVE_GPU), rate, o->solve_gpu_count);
    return true;
}

static bool simulates(const struct engine_desc *e)
{
    return e->simulated != NULL;
}

/* The base scenario, planned at one GPU to refuse what is not simulated. */
static bool slo_base(struct options *o, struct scenario *base, struct diag *d)
{
    struct catalog cat;
    simulate_default_engine(o);
    if (!options_load(o, &cat, base, d))
        return false;
    catalog_free(&cat);
    const struct engine_desc *v1 = engine_find(simulates);
    if (!o->given[OPT_ENGINE] && !engine_desc(base->engine.kind)->server && v1) {
        base->engine.kind = v1->kind; /* a snapshot's generic rule: vLLM V1, as simulate does */
        base->engine.rule = RULE_CURRENT;
    }
    base->gpus = 1;
    base->tp = 1;
    base->pp = 0;
    static struct plan_result r; /* large */
    if (!plan_compute(base, PLAN_NUMBERS, NULL, &r, d) || !load_check_plan(base, &r, d))
        return false;
    /* vLLM's own startup check (load_check_config's): engines without a
     * token budget per step (llama.cpp's slots) have none to hold */
    if (engine_desc(base->engine.kind)->sched.seqs_within_batch &&
        r.budget.engine.max_num_batched_tokens < r.budget.engine.max_num_seqs)
        return diag_fail(d, "--max-num-batched-tokens %llu is below --max-num-seqs %llu: vLLM "
                         "refuses to start so (give --max-num-seqs %llu or fewer)",
                         (unsigned long long)r.budget.engine.max_num_batched_tokens,
                         (unsigned long long)r.budget.engine.max_num_seqs,
                         (unsigned long long)r.budget.engine.max_num_batched_tokens);
    return true;
}

/* The requests fit the context and hold a token each. */
static bool slo_workload_fits(struct workload_params *w, const struct scenario *s,
                              struct diag *d)
{
    if (w->profile) { /* the profile's requests that fit the context */
        char n[32];
        w->most_total = s->context_tokens;
        struct workload_fit f;
        if (workload_profile_fit(w).count == 0)
            return diag_fail(d, "%s %s: none of its %s requests fits the context (%s %llu)",
                             OPTION_FLAG(OPT_DATASET), w->profile->name,
                             units_format_int(w->profile->n, n, sizeof n),
                             OPTION_FLAG(OPT_CONTEXT), (unsigned long long)s->context_tokens);
        simulate_profile_fit(w, &f, s->context_tokens);
        return true;
    }
    struct workload_bounds b = workload_bounds(w);
    uint64_t longest = w->prefix_len + b.in_hi + b.out_hi;
    if (w->prefix_len + b.in_lo < 1)
        return diag_fail(d, "%s %llu: with %s %g the shortest prompt has no token",
                         OPTION_FLAG(OPT_RANDOM_INPUT_LEN), (unsigned long long)w->input_len,
                         OPTION_FLAG(OPT_RANDOM_RANGE_RATIO), w->range_ratio);
    if (longest > s->context_tokens)
        return diag_fail(d, "%s %llu and %s %llu: a request of up to %llu tokens is longer "
                         "than the context (%s %llu)", OPTION_FLAG(OPT_RANDOM_INPUT_LEN),
                         (unsigned long long)w->input_len, OPTION_FLAG(OPT_RANDOM_OUTPUT_LEN),
                         (unsigned long long)w->output_len, (unsigned long long)longest,
                         OPTION_FLAG(OPT_CONTEXT), (unsigned long long)s->context_tokens);
    return true;
}

/* A search made ready and run: its question, requests, layouts, answer. */
struct slo_job {
    struct scenario base;
    struct workload_params w;
    struct slo_search q;
    struct slo_answer a;
    uint64_t asked_prompts; /* --num-prompts, before the stream was lengthened */
    bool json;
    struct solve_disagg dis; /* the xPyD splits beside the layouts */
};

/* The search on j->w's stream, its requests generated for it. */
static bool slo_search_stream(struct slo_job *j, struct diag *d)
{
    struct workload_request *reqs = malloc((size_t)j->w.num_prompts * sizeof *reqs);
    if (reqs == NULL)
        return diag_fail(d, "out of memory for %llu requests",
                         (unsigned long long)j->w.num_prompts);
    workload_generate(&j->w, reqs);
    j->q.reqs = reqs;
    j->q.nreqs = (size_t)j->w.num_prompts;
    j->a = slo_search_run(&j->q);
    free(reqs);
    j->q.reqs = NULL;
    return true;
}

/* Searches, then again on a longer stream while the answer's run was too
 * short to reach steady state (slo_steady_prompts); a few rounds at most. */
static bool slo_run(const struct options *o, struct slo_job *j, struct diag *d)
{
    j->w = simulate_workload(o, &j->base);
    if (!slo_workload_fits(&j->w, &j->base, d))
        return false;
    uint64_t runs = o->given[OPT_MAX_PLANS] ? o->max_plans : SLO_DEFAULT_MAX_RUNS;
    uint64_t most = (uint64_t)SLO_MAX_TP * SIM_MAX_REPLICAS; /* more layouts there are not */
    j->asked_prompts = j->w.num_prompts;
    j->q = (struct slo_search){
        .base = &j->base,
        .max_concurrency = o->given[OPT_MAX_CONCURRENCY] ? o->max_concurrency : 0,
        .slo_ttft = o->goodput_set[0] ? o->goodput_ms[0] / 1000.0 : -1,
        .slo_tpot = o->goodput_set[1] ? o->goodput_ms[1] / 1000.0 : -1,
        .slo_e2el = o->goodput_set[2] ? o->goodput_ms[2] / 1000.0 : -1,
        .target = o->given[OPT_GOODPUT_TARGET] ? o->goodput_target : SLO_DEFAULT_TARGET,
        .max_gpus = o->given[OPT_MAX_GPUS] ? o->max_gpus : SLO_DEFAULT_MAX_GPUS,
        .max_runs = (uint32_t)(runs < most ? runs : most),
    };
    j->q.tried = calloc(j->q.max_runs, sizeof *j->q.tried);
    if (j->q.tried == NULL)
        return diag_fail(d, "out of memory for %u layouts", j->q.max_runs);
    for (int round = 0; round < 3; round++) {
        if (!slo_search_stream(j, d))
            return false;
        uint64_t need = slo_steady_prompts(&j->q, &j->a, j->w.request_rate);
        if (need <= j->w.num_prompts || round == 2)
            break;
        need += need / 4; /* a margin: the next answer's latency may be longer */
        j->w.num_prompts = need < SIM_MAX_REQUESTS ? need : SIM_MAX_REQUESTS;
    }
    return true;
}

/* The objectives as "ttft 1000 ms, tpot 50 ms". */
static const char *objectives(const struct slo_search *q, char *buf, size_t size)
{
    static const char *const names[3] = {"ttft", "tpot", "e2el"};
    const double v[3] = {q->slo_ttft, q->slo_tpot, q->slo_e2el};
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < 3; i++)
        if (v[i] >= 0 && n < size)
            n += (size_t)snprintf(buf + n, size - n, "%s%s %g ms", n ? ", " : "", names[i],
                                  v[i] * 1e3);
    return buf;
}

/* Whether a layout's latencies are figures (it ran, and settled). */
static bool settled(const struct slo_layout *l)
{
    return l->verdict == SLO_MEETS || l->verdict == SLO_MISSES;
}

static void print_head(const struct slo_job *j)
{
    const struct workload_params *w = &j->w;
    char n[32], in[32], out[32], ctx[32], obj[128], engine[64], of[64] = "";
    if (w->profile) /* "of azure-conv-2023's requests, means 1,155 + 211 tokens" */
        snprintf(of, sizeof of, "%s's requests, means ", w->profile->name);
    printf("%g req/s (%s) of %s%s + %s tokens, %s requests (seed %llu), %s on %s (%s), "
           "context %s:\n",
           w->request_rate,
           w->burstiness == 1.0 ? "Poisson" : isinf(w->burstiness) ? "evenly spaced" : "gamma", of,
           units_format_int(w->input_len, in, sizeof in),
           units_format_int(w->output_len, out, sizeof out),
           units_format_int(w->num_prompts, n, sizeof n), (unsigned long long)w->seed,
           j->base.model.name, j->base.gpu.name,
           engine_version_title(j->base.engine.kind, j->base.engine.rule, engine, sizeof engine),
           units_format_tokens_short(j->base.context_tokens, ctx, sizeof ctx));
    printf("%g%% of requests within %s; up to %u GPUs\n\n", j->q.target * 100,
           objectives(&j->q, obj, sizeof obj), j->q.max_gpus);
}

static void print_answer(const struct slo_job *j)
{
    const struct slo_layout *b = &j->q.tried[j->a.best];
    const struct sim_result *r = &b->out;
    char good[32], all[32], tok[32];
    if (engine_desc(j->base.engine.kind)->splits_layers) /* llama.cpp: whole layers a GPU */
        printf("GPUs        %u: %u server%s, %s layers split over %u GPU%s\n", b->gpus,
               b->replicas, b->replicas == 1 ? "" : "s", b->replicas == 1 ? "its" : "each one's",
               b->tp, b->tp == 1 ? "" : "s");
    else
        printf("GPUs        %u: %u replica%s of TP %u\n", b->gpus, b->replicas,
               b->replicas == 1 ? "" : "s", b->tp);
    printf("Goodput     %.1f%% of requests (%s of %s), %.2f req/s\n", b->share * 100,
           units_format_int(r->good, good, sizeof good),
           units_format_int(j->q.nreqs, all, sizeof all), r->request_goodput);
    printf("p95         TTFT %.1f ms, TPOT %.1f ms\n", r->ttft.p95 * 1e3, r->tpot.p95 * 1e3);
    printf("Throughput  %.2f req/s, %s output tok/s (%s)\n", b->request_throughput,
           units_format_int((uint64_t)llround(b->output_throughput), tok, sizeof tok),
           b->offered ? "the rate offered: it keeps up" : "the run's, to its last token");
    if (b->usd_per_million_output >= 0 && b->usd_per_million_input >= 0)
        printf("Cost        $%.2f an hour, $%.3f a million output tokens, $%.4f a million "
               "input\n", b->usd_per_hour, b->usd_per_million_output, b->usd_per_million_input);
    else if (b->usd_per_million_output >= 0)
        printf("Cost        $%.2f an hour, $%.3f a million output tokens\n", b->usd_per_hour,
               b->usd_per_million_output);
    else
        printf("Cost        unknown (no price for %s)\n", j->base.gpu.id);
    printf("\n");
}

void solve_slo_cells(const struct slo_layout *l, struct slo_cells *c)
{
    strcpy(c->share, "-");
    strcpy(c->ttft, "-");
    strcpy(c->tpot, "-");
    strcpy(c->tok, "-");
    strcpy(c->cost, "-");
    if (l->verdict != SLO_MEMORY && l->verdict != SLO_RUN_FAILED) {
        if (l->verdict != SLO_OVER_CAPACITY) /* a share of a run that never settles */
            snprintf(c->share, sizeof c->share, "%.1f%%", l->share * 100);
        snprintf(c->tok, sizeof c->tok, "%.0f", l->output_throughput);
    }
    if (settled(l)) {
        snprintf(c->ttft, sizeof c->ttft, "%.1f ms", l->out.ttft.p95 * 1e3);
        snprintf(c->tpot, sizeof c->tpot, "%.1f ms", l->out.tpot.p95 * 1e3);
    }
    if (l->usd_per_million_output >= 0 && l->verdict != SLO_MEMORY)
        snprintf(c->cost, sizeof c->cost, "%.3f", l->usd_per_million_output);
}

/* The layouts run, by GPU count and TP; the answer starred. */
static void print_tried(const struct slo_job *j)
{
    size_t n = j->a.ntried;
    printf("Layouts simulated (%zu):\n", n);
    printf("  %5s %4s %5s %8s %10s %10s %10s %9s  %s\n", "GPUS", "TP", "REPL", "GOODPUT",
           "P95 TTFT", "P95 TPOT", "OUT TOK/S", "$/M OUT", "VERDICT");
    for (uint32_t g = 1; g <= j->q.max_gpus; g++)
        for (uint32_t tp = 1; tp <= SLO_MAX_TP && tp <= g; tp++)
        for (size_t i = 0; i < n; i++) {
            const struct slo_layout *l = &j->q.tried[i];
            if (l->gpus != g || l->tp != tp)
                continue;
            struct slo_cells c;
            solve_slo_cells(l, &c);
            bool best = j->a.solved && i == j->a.best;
            printf("%c %5u %4u %5u %8s %10s %10s %10s %9s  %s\n", best ? '*' : ' ', l->gpus,
                   l->tp, l->replicas, c.share, c.ttft, c.tpot, c.tok, c.cost,
                   slo_verdict_name(l->verdict));
        }
}

static bool any_verdict(const struct slo_job *j, enum slo_verdict v)
{
    for (size_t i = 0; i < j->a.ntried; i++)
        if (j->q.tried[i].verdict == v)
            return true;
    return false;
}

/* How many requests every verdict ran, when the stream was lengthened. */
static void print_lengthened(const struct slo_job *j)
{
    char n[32], asked[32];
    if (j->w.num_prompts == j->asked_prompts)
        return;
    printf("(every layout ran %s requests, not %s: the stream is sent for at least %d x the "
           "answer's mean E2EL, so that each verdict is the steady state's)\n",
           units_format_int(j->w.num_prompts, n, sizeof n),
           units_format_int(j->asked_prompts, asked, sizeof asked), SLO_STEADY_LATENCIES);
}

static int print_text(const struct slo_job *j)
{
    char won[256];
    print_head(j);
    /* the answer first when an xPyD split beat the aggregated layouts */
    if (solve_disagg_won(&j->dis, &j->q, &j->a, won, sizeof won))
        printf("Answer      %s (Disaggregated layouts, below)%s\n", won,
               j->a.solved ? "; the aggregated layouts' best:" : "");
    if (j->a.solved)
        print_answer(j);
    print_tried(j);
    printf("(meets: goodput at least the target; SLO: below it; over capacity: the queue grows "
           "through the run; memory: no KV pool for the longest request%s)\n",
           any_verdict(j, SLO_RUN_FAILED) ? "; run: past the simulator's caps on steps or time"
                                          : "");
    if (any_verdict(j, SLO_CLIENT))
        printf("(client: %s %llu let the client send fewer requests a second than %g, so the "
               "run does not stand for the rate: raise or drop %s)\n",
               OPTION_FLAG(OPT_MAX_CONCURRENCY), (unsigned long long)j->q.max_concurrency,
               j->w.request_rate, OPTION_FLAG(OPT_MAX_CONCURRENCY));
    printf("(OUT TOK/S and $/M OUT: at the rate offered where the layout keeps up, meets or "
           "SLO; the run's own, to its last token, where not)\n");
    print_lengthened(j);
    if (j->a.out_of_runs) {
        printf("(stopped after %u simulations before the search ended: allow more with "
               "--max-plans N, or lower --max-gpus)\n", j->q.max_runs);
        return 1;
    }
    if (!j->a.solved) {
        /* a first token never comes sooner than the engine's time outside its steps */
        double floor_ms = speed_request_overhead_s(&j->base) * 1e3;
        if (j->q.slo_ttft >= 0 && j->q.slo_ttft * 1e3 <= floor_ms)
            printf("(no layout can keep ttft %g ms: every first token takes %s's %.1f ms outside "
                   "the GPU's steps, HTTP to detokenizing, on top; more GPUs do not shorten it)\n",
                   j->q.slo_ttft * 1e3, engine_desc(j->base.engine.kind)->title, floor_ms);
        else
            printf("(no layout of up to %u GPU%s keeps it%s)\n", j->q.max_gpus,
                   j->q.max_gpus == 1 ? "" : "s",
                   any_verdict(j, SLO_CLIENT) ? "" : "; raise --max-gpus");
        return 1;
    }
    return 0;
}

void solve_slo_layout_json(struct jsonout *jo, const struct slo_layout *l)
{
    bool ran = l->verdict != SLO_MEMORY && l->verdict != SLO_RUN_FAILED, fig = settled(l);
    jsonout_uint(jo, "gpus", l->gpus);
    jsonout_uint(jo, "tp", l->tp);
    jsonout_uint(jo, "pp", 1);
    jsonout_uint(jo, "replicas", l->replicas);
    jsonout_double_or_null(jo, "goodput_share", l->share,
                           ran && l->verdict != SLO_OVER_CAPACITY);
    jsonout_double_or_null(jo, "p95_ttft_ms", l->out.ttft.p95 * 1e3, fig);
    jsonout_double_or_null(jo, "p95_tpot_ms", l->out.tpot.p95 * 1e3, fig);
    jsonout_double_or_null(jo, "request_throughput", l->request_throughput, ran);
    jsonout_double_or_null(jo, "output_throughput", l->output_throughput, ran);
    jsonout_string(jo, "throughput_basis", !ran ? "none" : l->offered ? "offered" : "run");
    jsonout_double_or_null(jo, "run_request_throughput", l->out.request_throughput, ran);
    jsonout_double_or_null(jo, "run_output_throughput", l->out.output_throughput, ran);
    jsonout_double_or_null(jo, "usd_per_hour", l->usd_per_hour, l->usd_per_hour >= 0);
    /* the names plan, sweep and simulate give the same costs */
    jsonout_double_or_null(jo, "cost_per_million_output_tokens", l->usd_per_million_output,
                           ran && l->usd_per_million_output >= 0);
    jsonout_double_or_null(jo, "cost_per_million_input_tokens", l->usd_per_million_input,
                           ran && l->usd_per_million_input >= 0);
}

static int print_json(const struct slo_job *j)
{
    const struct slo_search *q = &j->q;
    struct jsonout jo = jsonout_begin();
    jsonout_string(&jo, "format", "kvplan-solve");
    jsonout_uint(&jo, "format_version", 1);
    jsonout_string(&jo, "generator", KVPLAN_GENERATOR);
    jsonout_string(&jo, "mode", "slo");
    jsonout_string(&jo, "model", j->base.model.id);
    jsonout_string(&jo, "engine", engine_label(j->base.engine.kind, j->base.engine.rule));
    snapshot_engine_json(&jo, j->base.engine.kind, j->base.engine.rule);
    jsonout_uint(&jo, "context_tokens", j->base.context_tokens);
    jsonout_string(&jo, "gpu", j->base.gpu.id);
    jsonout_double(&jo, "request_rate", j->w.request_rate);
    jsonout_uint(&jo, "num_prompts", j->w.num_prompts);
    jsonout_uint(&jo, "num_prompts_asked", j->asked_prompts);
    if (j->w.profile) /* the length profile the requests were drawn from, and their means */
        jsonout_string(&jo, "dataset", j->w.profile->name);
    jsonout_uint(&jo, "random_input_len", j->w.input_len);
    jsonout_uint(&jo, "random_output_len", j->w.output_len);
    jsonout_double_or_null(&jo, "goodput_ttft_ms", q->slo_ttft * 1e3, q->slo_ttft >= 0);
    jsonout_double_or_null(&jo, "goodput_tpot_ms", q->slo_tpot * 1e3, q->slo_tpot >= 0);
    jsonout_double_or_null(&jo, "goodput_e2el_ms", q->slo_e2el * 1e3, q->slo_e2el >= 0);
    jsonout_double(&jo, "goodput_target", q->target);
    jsonout_uint(&jo, "max_gpus", q->max_gpus);
    jsonout_bool(&jo, "solved", j->a.solved);
    jsonout_bool(&jo, "out_of_runs", j->a.out_of_runs);
    if (j->a.solved)
        solve_slo_layout_json(&jo, &q->tried[j->a.best]);
    cJSON *list = cJSON_CreateArray();
    for (size_t i = 0; i < j->a.ntried && list; i++) {
        struct jsonout row = jsonout_begin();
        solve_slo_layout_json(&row, &q->tried[i]);
        jsonout_string(&row, "verdict", slo_verdict_name(q->tried[i].verdict));
        cJSON *item = jsonout_end(&row);
        if (item == NULL || !cJSON_AddItemToArray(list, item)) {
            cJSON_Delete(item);
            cJSON_Delete(list);
            list = NULL;
        }
    }
    jsonout_object(&jo, "candidates", list);
    int status = solve_disagg_json(&jo, &j->dis, q, &j->a, j->a.solved ? 0 : 1);
    return solve_json_print(&jo, status);
}

int solve_slo(int argc, char **argv, struct options *o)
{
    struct diag d = {0};
    if (!simulate_goodput_words(argc, argv, o, &d) || !slo_checks(o, &d))
        return cli_fail(d.message);
    static struct slo_job j; /* the base scenario is large */
    memset(&j, 0, sizeof j);
    j.json = o->format == FORMAT_JSON;
    if (!slo_base(o, &j.base, &d) || !solve_disagg_prepare(o, &j.base, &j.dis, &d) ||
        !slo_run(o, &j, &d) || !solve_disagg_search(&j.dis, &j.w, &j.q, &j.a, &d)) {
        free(j.q.tried);
        solve_disagg_free(&j.dis);
        return cli_fail(d.message);
    }
    int status = j.json ? print_json(&j)
                        : solve_disagg_text(&j.dis, &j.q, &j.a, print_text(&j));
    free(j.q.tried);
    solve_disagg_free(&j.dis);
    if (fflush(stdout) != 0)
        return cli_fail("cannot write to standard output");
    return status;
}
