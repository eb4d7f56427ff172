/* scenario_layout: the layouts a scenario's engine runs on its GPUs
 * (scenario_layouts, the one generator the default, solve and `T` share) and
 * the one a scenario without --tp and --pp runs (scenario_tp, scenario_pp):
 * of those, the one that serves the most users, each planned. */
#include "scenario.h"

#include <string.h>

#include "engine_desc.h"
#include "plan.h"

/* Whether a replica of tp x pp GPUs wider than a node runs over its nodes
 * (nodes of spec_gpu_domain GPUs, as many as it needs): its TP groups within a
 * node (each node holds whole TP groups: node % tp), and where the engine
 * spreads a replica evenly over its nodes (refuses_uneven_nodes: vLLM,
 * SGLang), whole stages on each node, as many on each (pp % span). */
bool scenario_layout_spans(const struct scenario *s, uint32_t tp, uint32_t pp)
{
    uint32_t node = spec_gpu_domain(&s->gpu), per = tp * pp;
    if (pp <= 1 || per <= node)
        return true;
    uint32_t span = (per + node - 1) / node;
    if (engine_desc(s->engine.kind)->refuses_uneven_nodes)
        return pp % span == 0;
    return node % tp == 0;
}

bool scenario_layout_runs(const struct scenario *s, uint32_t tp, uint32_t pp)
{
    const struct engine_desc *e = engine_desc(s->engine.kind);
    uint32_t per_stage = pp ? s->gpus / pp : 0;
    if (tp == 0 || pp == 0 || s->gpus % pp != 0 || per_stage % tp != 0)
        return false;
    if (pp > 1 && (e->splits_layers || (s->model.layers && pp > s->model.layers)))
        return false;
    if (e->refuses_tp && tp != per_stage)
        return false; /* one server over all its GPUs */
    if (!s->dp_attention && !scenario_tp_even(s, tp))
        return false; /* vLLM, SGLang refuse it; the others split unevenly (a warning) */
    return scenario_layout_spans(s, tp, pp);
}

/* Whether TP k times as wide in place of k of the stages runs: tensor
 * parallel within a node rather than stages, as vLLM's parallelism guide
 * (docs/serving/parallelism_scaling.md) deploys a replica (TP within a
 * node, PP between nodes); TP 1 x PP 8 on one node serves about as many as
 * TP 8 (vLLM's profile peak is per stage) at half the speed or less. */
bool scenario_tp_copies_latent(const struct scenario *s)
{
    uint32_t kv = s->kv_heads ? s->kv_heads : s->model.kv_heads;
    return s->model.attention == ATTENTION_MLA || kv <= 1;
}

static bool tp_instead(const struct scenario *s, uint32_t tp, uint32_t pp, uint32_t widest)
{
    uint32_t node = spec_gpu_domain(&s->gpu);
    uint32_t kv = s->kv_heads ? s->kv_heads : s->model.kv_heads;
    /* one latent (MLA) or one KV head is on every rank at any TP, as engines
     * deploy it (DP attention is the remedy); never where the wider TP copies
     * some of several KV heads its stages would not (Qwen3 235B's 4 over TP
     * 8): that holds fewer users, not as many */
    bool mla = scenario_tp_copies_latent(s);
    for (uint32_t k = 2; k <= pp && tp * k <= widest && tp * k <= node && (mla || tp * k <= kv);
         k++)
        if (pp % k == 0 && scenario_layout_runs(s, tp * k, pp / k))
            return true;
    return false;
}

/* Every layout that runs, each TP a stage's GPUs allow; with `tp_first`,
 * none that a wider TP runs in place of (tp_instead). */
static size_t layouts(const struct scenario *s, uint32_t max_pp, uint32_t widest, bool tp_first,
                      struct scenario_layout *out, size_t max)
{
    size_t n = 0;
    for (uint32_t pp = 1; pp <= s->gpus && pp <= max_pp && n < max; pp++) {
        if (s->gpus % pp != 0)
            continue;
        uint32_t per_stage = s->gpus / pp;
        for (uint32_t tp = per_stage < widest ? per_stage : widest; tp >= 1 && n < max; tp--)
            if (scenario_layout_runs(s, tp, pp) && !(tp_first && tp_instead(s, tp, pp, widest)))
                out[n++] = (struct scenario_layout){.tp = tp, .pp = pp};
    }
    return n;
}

size_t scenario_layouts(const struct scenario *s, uint32_t max_pp, uint32_t widest,
                        struct scenario_layout *out, size_t max)
{
    return layouts(s, max_pp, widest, true, out, max);
}

size_t scenario_layouts_all(const struct scenario *s, uint32_t max_pp, uint32_t widest,
                            struct scenario_layout *out, size_t max)
{
    return layouts(s, max_pp, widest, false, out, max);
}

/* A layout as the default plans it: the users it serves at the service
 * level, whether its weights fit, its stages and its speed per user. */
struct rank {
    uint64_t users;
    bool fits;
    uint32_t pp;
    double speed;
};

static struct rank rank_of(const struct scenario *s, struct scenario_layout l)
{
    struct scenario c = *s;
    c.tp = l.tp;
    c.pp = l.pp > 1 ? l.pp : 0;
    struct plan_result r;
    struct diag d = {0};
    if (!plan_compute(&c, PLAN_NUMBERS, NULL, &r, &d))
        return (struct rank){.pp = l.pp};
    return (struct rank){.users = r.speed.users_at_service_level, .fits = r.fits, .pp = l.pp,
                         .speed = r.decode_tokens_per_s_per_user};
}

/* The most users; then weights that fit; then fewer stages (less to cross
 * per token, the layout vLLM's guide reaches for first); then the faster per
 * user; then the order of scenario_layouts (wider TP). */
static bool ranks_above(struct rank a, struct rank b)
{
    if (a.users != b.users)
        return a.users > b.users;
    if (a.fits != b.fits)
        return a.fits;
    if (a.pp != b.pp)
        return a.pp < b.pp;
    return a.speed > b.speed;
}

/* The layouts planned lately, by the whole scenario: scenario_tp and
 * scenario_pp are asked many times of one plan. */
enum { REMEMBERED = 8 };
static struct remembered {
    bool used;
    struct scenario s;
    struct scenario_layout l;
    uint32_t runs; /* the layouts compared */
} remembered[REMEMBERED];
static unsigned next_slot;

static struct scenario_layout best_layout(const struct scenario *s, uint32_t *runs)
{
    for (int i = 0; i < REMEMBERED; i++)
        if (remembered[i].used && memcmp(&remembered[i].s, s, sizeof *s) == 0) {
            *runs = remembered[i].runs;
            return remembered[i].l;
        }
    *runs = 0;
    struct scenario_layout all[SCENARIO_LAYOUTS_MAX], best = {.tp = 1, .pp = 1};
    uint32_t most = s->model.layers ? s->model.layers : s->gpus;
    /* TP before stages in a node; where that serves no one, the stages it
     * stood in for too (70B on 2 H100s under vLLM: TP 2 holds none, TP 1 x
     * PP 2 two, its profile peak a stage's) */
    for (int pass = 0; pass < 2; pass++) {
        size_t n = layouts(s, most, spec_gpu_domain(&s->gpu), pass == 0, all,
                           SCENARIO_LAYOUTS_MAX);
        if (n == 0)
            continue;
        *runs = (uint32_t)n;
        struct rank top = rank_of(s, all[0]);
        best = all[0];
        for (size_t i = 1; i < n; i++) {
            struct rank r = rank_of(s, all[i]);
            if (ranks_above(r, top)) {
                top = r;
                best = all[i];
            }
        }
        if (top.users > 0)
            break;
    }
    struct remembered *m = &remembered[next_slot++ % REMEMBERED];
    m->used = true;
    memcpy(&m->s, s, sizeof *s);
    m->l = best;
    m->runs = *runs;
    return best;
}

/* The largest TP of all GPUs the heads split over, for an engine that
 * splits layers (any) or a layout given in part. */
static uint32_t stage_tp(const struct scenario *s, uint32_t all)
{
    uint32_t widest = all;
    if (!engine_desc(s->engine.kind)->splits_layers && widest > spec_gpu_domain(&s->gpu))
        widest = spec_gpu_domain(&s->gpu);
    for (uint32_t t = widest; t > 1; t--)
        if (all % t == 0 && scenario_tp_even(s, t))
            return t;
    return all ? 1 : 0;
}

static enum layout_basis default_layout(const struct scenario *s, uint32_t *tp, uint32_t *pp,
                                        uint32_t *runs)
{
    *pp = s->pp ? s->pp : 1;
    *tp = s->tp ? s->tp : stage_tp(s, s->gpus / *pp);
    *runs = 1;
    if (s->tp || s->pp)
        return LAYOUT_GIVEN;
    if (s->dp_attention || engine_desc(s->engine.kind)->splits_layers || s->gpus <= 1)
        return LAYOUT_ONLY;
    struct scenario_layout l = best_layout(s, runs);
    *tp = l.tp;
    *pp = l.pp;
    return *runs > 1 ? LAYOUT_MOST_USERS : LAYOUT_ONLY;
}

enum layout_basis scenario_layout_basis(const struct scenario *s, uint32_t *runs)
{
    uint32_t tp, pp;
    return default_layout(s, &tp, &pp, runs);
}

const char *layout_basis_name(enum layout_basis b)
{
    return b == LAYOUT_GIVEN ? "given" : b == LAYOUT_MOST_USERS ? "most_users" : "only";
}

void scenario_pin_layout(struct scenario *s)
{
    uint32_t tp, pp, runs;
    default_layout(s, &tp, &pp, &runs);
    s->tp = tp;
    s->pp = pp > 1 ? pp : s->pp;
}

bool scenario_pp_written(const struct scenario *s)
{
    if (s->pp != 1)
        return s->pp > 1;
    struct scenario d = *s;
    d.pp = 0;
    return scenario_pp(&d) > 1;
}

uint32_t scenario_tp(const struct scenario *s)
{
    uint32_t tp, pp, runs;
    default_layout(s, &tp, &pp, &runs);
    return tp;
}

uint32_t scenario_pp(const struct scenario *s)
{
    uint32_t tp, pp, runs;
    default_layout(s, &tp, &pp, &runs);
    return pp;
}
