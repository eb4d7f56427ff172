#include "speed.h"
#include "engine_desc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kvcost.h"
#include "offload_fit.h"
#include "speed_inputs.h"
#include "speed_ttft.h"
#include "speedfamily.h"
#include "steptime.h"
#include "units.h"


double speed_expert_share(const struct model_spec *m, uint64_t n)
{
    return step_expert_share(m->experts, m->experts_per_token, (double)n);
}

/* The layers one GPU runs a step: a stage's, or its share of llama.cpp's
 * split; and of those, the fine-grained MoE layers. */
static uint32_t step_layers(const struct inputs *in)
{
    return (uint32_t)(in->layers + 0.5);
}

/* The fine-grained MoE layers a GPU runs: its layers' share of the model's
 * MoE layers (DeepSeek-V3: 58 of 61, its first 3 dense) */
static uint32_t step_moe_layers(const struct inputs *in, const struct model_spec *m)
{
    if (m->experts <= SPEED_MOE_FINE_EXPERTS || m->layers == 0)
        return 0;
    double moe = (double)spec_moe_layers_in(m, 0, m->layers);
    return (uint32_t)(step_layers(in) * moe / m->layers + 0.5);
}

/* A layer split's GPUs take a step in turn, each reading its own layers:
 * together every layer once, so a GPU's part of the step is the average
 * GPU's, not the fullest's that sizes the memory (core/placement.h). */
static double turn_share(const struct speed_basis *r)
{
    const struct placement *l = r->layout;
    if (!l->layers_all || l->layers_fullest == 0 || r->budget->engine.offload.active)
        return 1.0;
    return (double)l->layers_all / ((double)l->layers_fullest * l->tp);
}

/* One GPU's share of the replica as the step function sees it, for a decode
 * batch (gathered under DP attention) or for one prompt's prefill. */
struct step_model step_model_of(const struct inputs *in, const struct scenario *s,
                                       const struct speed_basis *r, bool decode)
{
    const struct model_spec *md = &s->model;
    struct step_model m = {0};
    m.expert_bytes = in->experts / in->expert_div;
    m.dense_bytes = (double)(speed_gpu_weights(r) - r->spec->weights_bytes_per_gpu) - m.expert_bytes;
    m.experts = md->experts;
    m.experts_per_token = md->experts_per_token;
    m.layers = step_layers(in);
    m.moe_layers = step_moe_layers(in, md);
    m.flops_per_token = 2.0 * (in->active - in->active_routed) / in->shards;
    m.expert_flops_per_token = 2.0 * in->active_routed / in->expert_div;
    /* the KV a GPU holds of a token: the plan's per-user figure at the
     * average context (which knows a stage's or llama.cpp's share of the
     * layers) over the per-token cost of every layer */
    struct token_split avg = kvcost_split(r->cost, r->layout->avg_context_tokens, s->prefix_tokens);
    double all = (double)kvcost_bytes(r->cost, avg.user_global, avg.user_windowed);
    double turn = turn_share(r);
    double held = ((double)r->budget->user_bytes_avg_per_gpu -
                   (double)r->budget->state_bytes_per_user_per_gpu) * turn;
    if (held < 0)
        held = 0;
    double share = all > 0 ? held / all : 1.0;
    m.kv_bytes_global = (double)r->cost->bytes_per_token_global * share;
    m.kv_bytes_windowed = (double)(r->cost->bytes_per_token - r->cost->bytes_per_token_global) * share;
    m.window = in->window;
    m.kv_read_share = in->read_share;
    m.shared_tokens = s->prefix_tokens;
    m.shared_bytes = decode ? (double)r->budget->prefix_bytes_per_gpu : 0;
    m.state_bytes = (double)r->budget->state_bytes_per_user_per_gpu * turn;
    double split = in->ranks > 1 ? 1.0 : (double)in->tp; /* DP attention: a rank's users whole */
    double per = decode ? in->per_ctx_token : in->per_ctx_prefill;
    m.attn_decode_global = m.attn_prefill_global = per * in->global / split;
    m.attn_decode_windowed = m.attn_prefill_windowed = per * in->windowed / split;
    m.index_flops = in->index_flops * in->layers;
    m.attn_topk = in->topk;
    m.hidden = in->hidden;
    m.token_scale = decode && in->ranks > 1 ? (double)in->ranks : 1;
    m.tp = in->tp;
    m.allreduces = (double)m.layers * in->allreduces_per_layer;
    speed_a2a_model(in, decode, &m);
    m.stages = in->pp;
    m.stage_send_bytes = in->stage_send;
    /* llama.cpp's CPU layers and --no-kv-offload: their part of the cache
     * and state is read in host memory (offload_step adds the weights) */
    const struct offload_split *o = &r->budget->engine.offload;
    if (o->active) {
        double host = 1.0 - offload_kv_gpu_share(o);
        m.host_kv_global = (double)r->cost->bytes_per_token_global * host;
        m.host_kv_windowed = (double)(r->cost->bytes_per_token - r->cost->bytes_per_token_global) * host;
        m.host_state_bytes = (double)r->cost->state_bytes * host;
    }
    return m;
}

uint64_t speed_gpu_weights(const struct speed_basis *r)
{
    const struct offload_split *o = &r->budget->engine.offload;
    const struct placement *l = r->layout;
    if (!o->active && l->layers_all) /* a layer split: a GPU of the turn, on average */
        return kv_sat_add(kv_ceil_div(l->weights_bytes, l->tp), r->spec->weights_bytes_per_gpu);
    return o->active ? o->gpu_weights_bytes : l->weights_bytes_per_gpu;
}

static struct step_machine machine_of(const struct inputs *in)
{
    struct step_machine hw = {0};
    hw.bytes_per_s = in->bw;
    hw.flops_per_s = in->peak;
    hw.attn_flops_per_s = in->attn_peak;
    hw.mbu = in->mbu;
    hw.mfu = in->mfu;
    hw.moe_mbu = in->moe_mbu;
    hw.attn_mbu = in->attn_mbu;
    hw.link_bytes_per_s = in->link_used;
    hw.link_latency_s = in->latency;
    hw.a2a_bytes_per_s = in->a2a_link;
    hw.a2a_latency_s = in->a2a_latency;
    hw.stage_bytes_per_s = in->pp > 1 ? in->stage_link : 0;
    hw.stage_latency_s = in->stage_latency;
    hw.step_overhead_s = in->step_overhead;
    hw.moe_layer_overhead_s = in->moe_layer_overhead;
    hw.layer_overhead_s = in->layer_overhead;
    return hw;
}

void speed_step_inputs(const struct scenario *s, const struct speed_basis *r,
                       struct step_model *m, struct step_machine *hw)
{
    struct inputs in = speed_inputs_of(s, r);
    struct step_model prefill = step_model_of(&in, s, r, false);
    *m = step_model_of(&in, s, r, true);
    m->attn_prefill_global = prefill.attn_prefill_global;
    m->attn_prefill_windowed = prefill.attn_prefill_windowed;
    *hw = machine_of(&in);
    offload_step(&r->budget->engine.offload, m, hw);
}

/* The context a decoding user holds: the average in use, or under
 * --output-len a closed loop's mean over its decode, the prompt and half
 * the output (at most the context). */
static uint64_t decode_context(const struct scenario *s, const struct speed_basis *r)
{
    if (s->output_tokens == 0)
        return r->layout->avg_context_tokens;
    uint64_t p = s->prompt_tokens ? s->prompt_tokens : s->context_tokens;
    uint64_t c = p + s->output_tokens / 2;
    return c < s->context_tokens ? c : s->context_tokens;
}

/* The decode step of a replica's n users, each at the average context: a
 * user's token passes every stage, one batch in flight a stage. */
static double decode_step(const struct inputs *in, const struct scenario *s,
                          const struct speed_basis *r, uint64_t n, struct step_time *st)
{
    struct step_model m = step_model_of(in, s, r, true);
    struct step_machine hw = machine_of(in);
    offload_step(&r->budget->engine.offload, &m, &hw);
    struct step_seq one = {.context = decode_context(s, r), .tokens = 1};
    /* the batch is n copies of one user: a single sequence, scaled */
    uint64_t batch = batch_users(in, n), g = users_per_gpu(in, batch);
    m.token_scale = (double)batch; /* gathered for the GEMMs under DP attention */
    m.kv_bytes_global *= (double)g;
    m.kv_bytes_windowed *= (double)g;
    m.state_bytes *= (double)g;
    m.attn_decode_global *= (double)g;
    m.attn_decode_windowed *= (double)g;
    m.index_flops *= (double)g;
    m.host_kv_global *= (double)g;
    m.host_kv_windowed *= (double)g;
    m.host_state_bytes *= (double)g;
    return step_time(&m, &hw, &one, 1, st);
}

double speed_step_seconds(const struct scenario *s, const struct speed_basis *r, uint64_t n)
{
    struct inputs in = speed_inputs_of(s, r);
    return decode_step(&in, s, r, n, NULL);
}

double speed_decode_parts(const struct scenario *s, const struct speed_basis *r, uint64_t n,
                          struct step_time *st)
{
    struct inputs in = speed_inputs_of(s, r);
    return decode_step(&in, s, r, n, st);
}

const char *plan_binding_name(enum binding_limit b)
{
    switch (b) {
    case BIND_DECODE:
        return "decode";
    case BIND_PREFILL:
        return "prefill";
    case BIND_SCHEDULER:
        return "scheduler";
    default:
        return "memory";
    }
}

/* The prefill of p tokens alone on a replica, one step: the prompt passes
 * the stages in turn; its compute and its weights read overlap. */
static double prefill(const struct inputs *in, const struct scenario *s,
                      const struct speed_basis *r, double p, struct step_time *st)
{
    struct step_model m = step_model_of(in, s, r, false);
    struct step_machine hw = machine_of(in);
    offload_step(&r->budget->engine.offload, &m, &hw);
    struct step_seq q = {.context = 0, .tokens = (uint64_t)p};
    if (in->peak <= 0) { /* no compute figure: no time to give */
        *st = (struct step_time){0};
        return 0;
    }
    return step_time(&m, &hw, &q, 1, st);
}

double speed_prefill_parts(const struct scenario *s, const struct speed_basis *r, uint64_t tokens,
                           struct step_time *st)
{
    struct inputs in = speed_inputs_of(s, r);
    return prefill(&in, s, r, (double)tokens, st);
}

/* The prompt tokens a step takes, decodes included: the plan's token budget
 * (vLLM's max_num_batched_tokens, SGLang's chunked_prefill_size, TensorRT-LLM's
 * max_num_tokens), else the engine's own step; 0: none known (one prompt a
 * step at most, whole). */
static uint64_t step_budget(const struct scenario *s, const struct speed_basis *r)
{
    uint64_t b = r->budget->engine.max_num_batched_tokens;
    return b ? b : engine_desc(s->engine.kind)->sched.batch;
}

struct speed_prompt speed_prompt_seconds(const struct scenario *s, const struct speed_basis *r,
                                         uint64_t n)
{
    struct speed_prompt out = {0};
    struct step_model m;
    struct step_machine hw;
    speed_step_inputs(s, r, &m, &hw);
    if (hw.flops_per_s <= 0)
        return out; /* no compute figure: no prefill time to give */
    struct inputs in = speed_inputs_of(s, r);
    const struct engine_desc *e = engine_desc(s->engine.kind);
    uint64_t users = users_per_gpu(&in, batch_users(&in, n));
    uint64_t p = s->prompt_tokens ? s->prompt_tokens : s->context_tokens;
    /* a shared prefix is cached: the prompt computes the rest, its last
     * token at least */
    uint64_t from = s->prefix_tokens < p ? s->prefix_tokens : p - 1, left = p - from;
    bool alone = e->sched.kind == SIM_SCHED_SGLANG; /* prefill batches run alone */
    uint64_t budget = step_budget(s, r);
    /* the step's room for prompt tokens: its budget less its decodes (vLLM
     * schedules the running requests first; more of them than the budget: a
     * budget's worth); a prompt whole where the engine does not chunk */
    uint64_t room = budget == 0 ? left : alone || budget <= users ? budget : budget - users;
    out.room = room;
    uint64_t chunk = e->sched.whole_prompts || room >= left ? left : room;
    struct step_seq user = {.context = decode_context(s, r), .tokens = 1}, q;
    double base = alone ? 0 : step_time_alike(&m, &hw, &user, users, NULL, 0, NULL), most = 0;
    uint64_t steps = (left + chunk - 1) / chunk;
    /* past SPEED_PROMPT_STEPS steps, each group of alike steps is timed at
     * its middle one: the steps differ only in the context they attend to */
    uint64_t group = steps > SPEED_PROMPT_STEPS ? (steps + SPEED_PROMPT_STEPS - 1) / SPEED_PROMPT_STEPS : 1;
    for (uint64_t i = 0; i < steps; i += group) {
        uint64_t k = steps - i < group ? steps - i : group, mid = i + k / 2;
        uint64_t take = mid == steps - 1 ? left - mid * chunk : chunk;
        q = (struct step_seq){.context = from + mid * chunk, .tokens = take};
        double t = alone ? step_time(&m, &hw, &q, 1, NULL)
                         : step_time_alike(&m, &hw, &user, users, &q, 1, NULL) - base;
        out.prompt_s += t * (double)k;
        most = t > most ? t : most;
    }
    /* a full step: as many whole prompts as its room holds (one at least),
     * or one of a longer prompt's chunks */
    double whole = chunk == left ? (double)(room / left > 1 ? room / left : 1) : 0;
    out.full_s = whole > 0 ? whole * out.prompt_s : most;
    return out;
}

struct speed_loop speed_loop_of(double step_s, struct speed_prompt pr, double first_s, uint64_t n,
                                uint32_t ranks, uint64_t output)
{
    struct speed_loop l = {.step_s = step_s, .prompt_s = pr.prompt_s, .full_s = pr.full_s,
                           .room = pr.room};
    double gaps = output > 1 ? (double)(output - 1) : 1.0;
    l.prompts_max = n > 1 ? (double)(n - 1) / (ranks > 1 ? ranks : 1) : 0;
    /* one user's decode, D = gaps x TPOT, shares the steps with the prompts
     * the other users start meanwhile, D / (A + D) each, A the first token:
     * D = X + Y D / (A + D), X = gaps x step, Y = prompts_max x prompt */
    double x = gaps * step_s, y = l.prompts_max * pr.prompt_s, a = first_s > 0 ? first_s : 0;
    if (y <= 0) { /* alone, or no prompt time to share: the step */
        l.tpot_s = step_s;
        return l;
    }
    double b = a - x - y, d = a > 0 ? (-b + sqrt(b * b + 4.0 * x * a)) / 2.0 : x + y;
    l.tpot_s = d / gaps;
    /* no step takes more prompts than its budget: past it the prompts fill
     * every step and the rest wait, which the first token holds (the loop
     * does not queue) */
    if (pr.full_s > 0 && l.tpot_s > step_s + pr.full_s) {
        l.tpot_s = step_s + pr.full_s;
        l.saturated = true;
    }
    l.prompts = (l.tpot_s - step_s) * gaps / pr.prompt_s;
    if (l.saturated) {
        /* the replica (a DP rank) serves full_s / prompt_s prompts a gap: its
         * users' cycle is theirs over that rate, L = users x gaps x TPOT /
         * prompts; what of it is no decode, L - D, is the first token, the
         * wait past A the queue */
        double users = (double)n / (ranks > 1 ? ranks : 1);
        double first = users * gaps * l.tpot_s / l.prompts - gaps * l.tpot_s;
        l.queue_s = first > a ? first - a : 0;
    }
    return l;
}

bool speed_loop_calibrated(const struct scenario *s)
{
    /* the decode fit's points (calibrate_band.c: index 0) at several users with
     * prompts: a serving benchmark's TPOT, the others' prompts in it */
    const struct calibration_shape *d = &s->calibration_from.fit_shape[0];
    return (s->speed_calibrated & (SPEED_CAL_MBU | SPEED_CAL_OVERHEAD)) && d->users_max > 1 &&
           d->prompt_max > 1;
}

/* One user's time per output token at n users a replica: the step, and
 * under --output-len the closed loop's share of the others' prompts (none
 * where a calibration's step was fitted on a serving benchmark's TPOT,
 * which holds them) */
static double user_step(const struct inputs *in, const struct scenario *s,
                        const struct speed_basis *r, const struct speed_result *sp, uint64_t n,
                        struct step_time *st, struct speed_loop *loop)
{
    double step = decode_step(in, s, r, n, st);
    if (s->output_tokens == 0 || step <= 0)
        return step;
    struct speed_prompt none = {0};
    struct speed_loop l =
        speed_loop_of(step, speed_loop_calibrated(s) ? none : speed_prompt_seconds(s, r, n),
                      sp->ttft_prefill_seconds + sp->ttft_request_seconds, n, in->ranks,
                      s->output_tokens);
    if (loop)
        *loop = l;
    return l.tpot_s;
}

/* n users per replica keep --min-tok-s each and --max-ttft: the first
 * token's wait for the others' step in progress grows with them */
static bool keeps_level(const struct inputs *in, const struct scenario *s,
                        const struct speed_basis *r, const struct speed_result *sp, uint64_t n)
{
    struct step_time st;
    struct speed_loop l = {0}; /* a saturated loop's first token queues too */
    double tpot = user_step(in, s, r, sp, n, &st, &l), step = st.total_s;
    if (s->min_tokens_per_s > 0 && 1.0 / tpot < s->min_tokens_per_s)
        return false;
    if (s->max_ttft_seconds <= 0)
        return true;
    struct ttft_terms t =
        speed_ttft_terms(sp->ttft_prefill_seconds, sp->ttft_request_seconds, step, n);
    return t.total_s + l.queue_s <= s->max_ttft_seconds;
}

/* Whether --max-ttft, not --min-tok-s, holds the count at `best`: one
 * more user would keep the speed but not the first token */
static bool ttft_binds(const struct inputs *in, const struct scenario *s,
                       const struct speed_basis *r, const struct speed_result *sp, uint64_t best)
{
    if (s->max_ttft_seconds <= 0)
        return false;
    return s->min_tokens_per_s <= 0 ||
           1.0 / user_step(in, s, r, sp, best + 1, NULL, NULL) >= s->min_tokens_per_s;
}

/* The most users per replica that keep --min-tok-s each (all that fit
 * without it): a binary search over the step time. */
static uint64_t users_keeping_speed(const struct inputs *in, const struct scenario *s,
                                    const struct speed_basis *r, const struct speed_result *sp)
{
    uint64_t fit = r->budget->users_per_replica, best = fit;
    if ((s->min_tokens_per_s > 0 || s->max_ttft_seconds > 0) && fit > 0) {
        uint64_t lo = 1, hi = fit;
        best = 0;
        while (lo <= hi) {
            uint64_t mid = lo + (hi - lo) / 2;
            if (keeps_level(in, s, r, sp, mid)) {
                best = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
    }
    return best;
}

/* the first token of one prompt, alone on the replica */
static void speed_first_token(const struct inputs *in, const struct scenario *s,
                              const struct speed_basis *r, struct speed_result *sp,
                              struct step_time *f)
{
    double p = (double)(s->prompt_tokens ? s->prompt_tokens : s->context_tokens);
    sp->prompt_tokens = (uint64_t)p;
    if (engine_desc(s->engine.kind)->sched.whole_prompts) {
        sp->prompt_step_tokens = step_budget(s, r);
        sp->prompt_never_runs = sp->prompt_step_tokens && sp->prompt_tokens > sp->prompt_step_tokens;
    }
    double ttft = sp->known ? prefill(in, s, r, p, f) : 0;
    sp->prefill_flops_per_gpu = f->flops;
    if (in->peak > 0 && ttft > 0) {
        sp->prefill_tokens_per_s = p / ttft;
        /* a calibration's MFU is fitted on the benchmark's first token as
         * measured at one request in flight: its per-request time is in it */
        bool fitted = (s->speed_calibrated & SPEED_CAL_MFU) != 0;
        speed_ttft_fill(sp, ttft, fitted ? 0 : speed_request_overhead_s(s), 0, 1);
    }
}

/* one decode step of n users per replica: its time, its parts and the rate */
static void speed_fill_decode(const struct inputs *in, const struct scenario *s,
                              const struct speed_basis *r, struct speed_result *sp, uint64_t n,
                              uint64_t total, struct step_time *st)
{
    struct speed_loop loop = {0};
    double tpot = user_step(in, s, r, sp, n, st, &loop);
    sp->output_tokens = s->output_tokens;
    sp->decode_context_tokens = decode_context(s, r);
    sp->loop = loop;
    sp->tpot_seconds = tpot;
    sp->step_bytes_per_gpu = (uint64_t)st->bytes;
    sp->step_flops_per_gpu = st->flops;
    sp->memory_seconds = st->memory_s;
    sp->compute_seconds = st->compute_s;
    sp->comm_seconds = st->comm_s;
    sp->a2a_seconds = st->a2a_s;
    sp->a2a_bytes_per_gpu = st->a2a_bytes;
    sp->moe_seconds = st->moe_s;
    sp->send_seconds = st->send_s;
    sp->overhead_seconds = st->overhead_s;
    sp->step_layers = step_layers(in);
    sp->step_moe_layers = step_moe_layers(in, &s->model);
    sp->stages = in->pp;
    sp->step_seconds = st->total_s;
    sp->tokens_per_s_per_user = tpot > 0 ? 1.0 / tpot : 0;
    sp->tokens_per_s_total = (double)total * sp->tokens_per_s_per_user;
}

/* the "At service level" row: the count and which limit binds, in words */
static void speed_level_row(const struct scenario *s, const struct speed_result *sp,
                            bool ttft_unknown, bool ttft_fails, struct explain *x)
{
    struct explain_row *row = explain_row_begin(x, "users_slo", "At service level", "all replicas");
    char note[200], a[32];
    units_format_int(sp->users_at_service_level, a, sizeof a);
    if (s->min_tokens_per_s <= 0 && s->max_ttft_seconds <= 0)
        snprintf(note, sizeof note, "no target given (--min-tok-s, --max-ttft): every user that fits");
    else if (ttft_unknown)
        snprintf(note, sizeof note, "no compute figure for this GPU: the %g s first-token target "
                 "cannot be checked", s->max_ttft_seconds);
    else if (ttft_fails)
        snprintf(note, sizeof note, "the first token takes longer than %g s", s->max_ttft_seconds);
    else if (sp->level_missed)
        snprintf(note, sizeof note, "no number of users keeps %g tok/s each, not even one alone: "
                 "%s binds", s->min_tokens_per_s, plan_binding_name(sp->binding));
    else if (s->min_tokens_per_s > 0 && s->max_ttft_seconds > 0)
        snprintf(note, sizeof note, "the most users that keep %g tok/s each, first token "
                 "within %g s amid their decodes (the queue under a request rate: kvplan "
                 "simulate): %s binds", s->min_tokens_per_s, s->max_ttft_seconds,
                 plan_binding_name(sp->binding));
    else if (s->min_tokens_per_s > 0)
        snprintf(note, sizeof note, "the most users that keep %g tok/s each: %s binds",
                 s->min_tokens_per_s, plan_binding_name(sp->binding));
    else
        snprintf(note, sizeof note, "no speed target; first token within %g s amid the others' "
                 "decodes (the queue under a request rate: kvplan simulate): the most users that "
                 "keep it (%s binds)",
                 s->max_ttft_seconds, plan_binding_name(sp->binding));
    explain_row_end(x, row, XU_COUNT, (long double)sp->users_at_service_level, note);
}

void speed_compute(const struct scenario *s, const struct speed_basis *r, struct speed_result *out,
                   struct explain *x)
{
    struct speed_result *sp = out;
    memset(sp, 0, sizeof *sp);
    struct inputs in = speed_inputs_of(s, r);
    sp->compute_dtype = speed_compute_dtype(s, r, &sp->peak_flops);
    sp->mbu = in.mbu;
    sp->mfu = in.mfu;
    sp->domain_gpus = in.domain;
    sp->known = in.bw > 0;
    uint64_t reps = r->layout->replicas ? r->layout->replicas : 1;
    bool target = s->min_tokens_per_s > 0 || s->max_ttft_seconds > 0;

    struct step_time f = {0};
    speed_first_token(&in, s, r, sp, &f);
    /* the users at the service level, before the speed: with a target and
     * no --concurrency, the speed, throughput and cost shown are theirs.
     * No compute figure: the first token's time is unknown, so a target on
     * it cannot be met as far as kvplan can tell. */
    uint64_t best = sp->known ? users_keeping_speed(&in, s, r, sp) : 0;
    bool ttft_unknown = s->max_ttft_seconds > 0 && in.peak <= 0;
    bool ttft_fails = ttft_unknown ||
                      (s->max_ttft_seconds > 0 && sp->ttft_seconds > s->max_ttft_seconds);
    if (ttft_fails)
        best = 0;
    /* a target that no count keeps: the speed shown is one user's alone,
     * missing it, never that of every user that fits */
    uint64_t all = r->totals->max_users;
    bool checked = target && sp->known && !ttft_unknown;
    sp->level_target = target;
    sp->target_tokens_per_s = s->min_tokens_per_s;
    sp->target_ttft_seconds = s->max_ttft_seconds;
    sp->level_missed = checked && all > 0 && best == 0;
    uint64_t total = s->concurrency      ? s->concurrency
                     : !checked          ? all
                     : sp->level_missed  ? 1
                                         : best * reps;
    sp->concurrency = total;
    sp->concurrency_per_replica = (total + reps - 1) / reps;
    uint64_t n = sp->concurrency_per_replica;
    sp->binding = BIND_MEMORY;
    /* without a target every user that fits counts; with one and no speed figure, none */
    sp->users_at_service_level = target && !sp->known ? 0 : r->totals->max_users;
    sp->level_unknown = target && !sp->known;
    if (!sp->known || n == 0) {
        if (n == 0) { /* no user decodes: no prompt is served either */
            sp->ttft_seconds = 0;
            sp->prefill_tokens_per_s = 0;
        }
        struct explain_row *row = explain_row_begin(x, "decode", "Speed per user", "");
        explain_row_end(x, row, XU_TOK_PER_S, 0,
                        !sp->known ? "no bandwidth figure for this GPU" : "no user fits");
        return;
    }
    struct step_time st;
    speed_fill_decode(&in, s, r, sp, n, total, &st);
    /* a calibrated first token was measured alone (kvplan calibrate fits MFU
     * only where one request was in flight): it holds the request's time but
     * not the wait for the others' step, added as for any */
    speed_ttft_fill(sp, sp->ttft_prefill_seconds, sp->ttft_request_seconds, st.total_s, n);
    /* a saturated closed loop: the prompts that find every step full wait */
    sp->ttft_queue_seconds = sp->ttft_seconds > 0 ? sp->loop.queue_s : 0;
    sp->ttft_seconds += sp->ttft_queue_seconds;
    speed_rows(&in, s, r, x, sp, &st);

    speed_prefill_row(&in, s, x, "ttft", "First token", sp->prompt_tokens, &f, sp);

    uint64_t fit = r->budget->users_per_replica;
    sp->level_unknown = ttft_unknown;
    sp->users_at_service_level = best * reps;
    /* a forced count slower than the target: the speed shown misses it */
    sp->level_forced_missed = s->concurrency && checked && !sp->level_missed &&
                              s->min_tokens_per_s > 0 &&
                              sp->tokens_per_s_per_user < s->min_tokens_per_s;
    if (ttft_fails)
        sp->binding = BIND_PREFILL;
    else if (best < fit)
        sp->binding = ttft_binds(&in, s, r, sp, best) ? BIND_PREFILL : BIND_DECODE;
    else if (r->budget->users_fit_per_replica > r->budget->users_per_replica)
        sp->binding = BIND_SCHEDULER;
    if (x != NULL) /* without an explanation the row's note is all that is left */
        speed_level_row(s, sp, ttft_unknown, ttft_fails, x);
}

double speed_recompute_seconds(const struct scenario *s, const struct speed_basis *r,
                               uint64_t tokens, struct explain *x, const char *key,
                               const char *label)
{
    struct inputs in = speed_inputs_of(s, r);
    struct step_time f;
    double seconds = prefill(&in, s, r, (double)tokens, &f);
    speed_prefill_row(&in, s, x, key, label, tokens, &f, NULL);
    return seconds;
}
