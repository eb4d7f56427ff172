#include "solve.h"

#include <string.h>

#include "engine_desc.h"
#include "speed.h"

/* An engine of fixed slots that serves one request at a time unless told
 * (Ollama's OLLAMA_NUM_PARALLEL 1: a slots knob with a default of its own)
 * serves `need` users with that many slots: the answer sets them. */
static void slots_for(struct scenario *s, uint64_t need)
{
    const struct engine_desc *e = engine_desc(s->engine.kind);
    const struct engine_knob *k = engine_knob_role(e, KNOB_SEQS);
    const struct engine_option *o =
        e->fixed_slots && k && k->def > 0 ? engine_option_at(k->offset) : NULL;
    if (o && !engine_option_given(&s->engine, o))
        engine_option_set(&s->engine, o, (double)(need < k->max ? need : (uint64_t)k->max));
}

/* llama.cpp's fit search sizes its split for the slots given (--parallel
 * N), else for one (core/policy_llamacpp.c llamacpp_budget): a plan that
 * falls short of `need` users, with a searched split or with none (the
 * model whole on the GPUs for one slot, which for N slots the search would
 * split: a MoE model's experts to host memory), is planned again with the
 * slots each replica must hold, as `plan --parallel N` sizes it, and s
 * keeps them when that serves; a split given (-ngl, --n-cpu-moe) is kept.
 * Returns false when s does not plan. */
static bool plan_sized(struct scenario *s, uint64_t need, struct plan_result *r)
{
    struct diag ignore = {0};
    if (!plan_compute(s, PLAN_NUMBERS, NULL, r, &ignore))
        return false;
    const struct engine_desc *e = engine_desc(s->engine.kind);
    const struct engine_knob *k = engine_knob_role(e, KNOB_SEQS);
    const struct offload_split *o = &r->engine.offload;
    if (r->speed.users_at_service_level >= need || !e->offloads || k == NULL ||
        s->engine.parallel || s->offload.ngl_given || s->offload.n_cpu_moe_given ||
        (o->active && !o->searched))
        return true;
    uint64_t reps = r->replicas ? r->replicas : 1, np = (need + reps - 1) / reps;
    if (np > k->max)
        return true;
    struct scenario t = *s;
    t.engine.parallel = (uint32_t)np;
    struct plan_result q;
    if (plan_compute(&t, PLAN_NUMBERS, NULL, &q, &ignore) &&
        q.speed.users_at_service_level >= need) {
        *s = t;
        *r = q;
    }
    return true;
}

uint64_t solve_users_of(const struct scenario *base, uint64_t need)
{
    struct scenario s = *base;
    struct plan_result r;
    return plan_sized(&s, need, &r) ? r.speed.users_at_service_level : 0;
}

uint64_t solve_users(const struct scenario *s)
{
    /* the users that fit, or with a service level, those that keep it */
    struct plan_result r;
    struct diag d = {0};
    return plan_compute(s, PLAN_NUMBERS, NULL, &r, &d) ? r.speed.users_at_service_level : 0;
}

bool solve_unchecked(const struct scenario *base, enum solve_unsolved *why)
{
    if (base->min_tokens_per_s <= 0 && base->max_ttft_seconds <= 0)
        return false;
    if (base->gpu.bandwidth_bytes_per_s == 0) {
        *why = UNSOLVED_NO_BANDWIDTH;
        return true;
    }
    if (base->max_ttft_seconds <= 0)
        return false;
    struct scenario s = *base;
    s.gpus = 1;
    s.tp = 1;
    s.pp = 0;
    struct plan_result one;
    struct diag ignore = {0};
    if (plan_compute(&s, PLAN_NUMBERS, NULL, &one, &ignore) && one.speed.peak_flops <= 0) {
        *why = UNSOLVED_NO_COMPUTE;
        return true;
    }
    return false;
}

struct solve_split solve_gpus(const struct scenario *base, uint64_t need, uint32_t max_gpus,
                              uint32_t max_pp, uint64_t *plans_left, bool engine_context)
{
    struct solve_split out = {.cost_per_hour = -1.0, .why = UNSOLVED_NEEDS_MORE};
    uint64_t (*context_of)(const struct scenario *) =
        engine_context ? engine_desc(base->engine.kind)->default_context : NULL;
    struct scenario s = *base;
    slots_for(&s, need);
    /* an engine of one server over all its GPUs (no TP) has no split to choose */
    bool one_server = engine_desc(base->engine.kind)->refuses_tp != NULL;
    /* a target the GPU's figures cannot check is never met: say so at once */
    if (solve_unchecked(base, &out.why))
        return out;
    /* engines put pipeline stages between nodes, not tensor parallel */
    uint32_t domain = spec_gpu_domain(&base->gpu);
    uint32_t tp_max = max_pp > 1 && base->tp <= domain ? domain : domain > 64 ? domain : 64;
    struct scenario_layout all[SCENARIO_LAYOUTS_MAX];
    for (uint32_t n = 1; n <= max_gpus; n++) {
        s.gpus = n;
        /* the layouts that run (scenario_layouts, the default's own), fewest
         * stages first, widest TP first within them */
        size_t count = scenario_layouts(&s, max_pp ? max_pp : 1, tp_max, all, SCENARIO_LAYOUTS_MAX);
        for (size_t i = 0; i < count; i++) {
            uint32_t tp = all[i].tp, pp = all[i].pp;
            if (plans_left && (*plans_left)-- == 0) {
                *plans_left = 0;
                out.why = UNSOLVED_OVER_BUDGET;
                return out;
            }
            s.tp = one_server ? 0 : tp;
            s.pp = pp > 1 ? pp : 0;
            if (context_of) /* Ollama's num_ctx: by the memory of all n GPUs */
                s.context_tokens = context_of(&s);
            struct plan_result r;
            struct scenario t = s; /* the slots the fit search is sized for, its own */
            if (!plan_sized(&t, need, &r))
                continue;
            if (r.speed.users_at_service_level >= need) {
                out.solved = true;
                out.parallel = t.engine.parallel != s.engine.parallel ? t.engine.parallel : 0;
                out.gpus = n;
                out.tp = tp;
                out.pp = pp;
                out.users = r.speed.users_at_service_level;
                out.cost_per_hour = r.price_usd_per_hour;
                out.context_tokens = s.context_tokens;
                return out;
            }
        }
        s.tp = 0;
        s.pp = 0;
    }
    return out;
}

uint64_t solve_max_context(const struct scenario *base, uint64_t need)
{
    /* users fall as context grows: binary search the last context that serves need */
    struct scenario s = *base;
    slots_for(&s, need);
    uint64_t top = s.model.max_context_tokens, best = 0;
    uint64_t lo = s.prefix_tokens + 1, hi = top && top < TOKENS_MAX ? top : TOKENS_MAX;
    while (lo <= hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        s.context_tokens = mid;
        s.avg_context_tokens = base->avg_context_tokens < mid ? base->avg_context_tokens : 0;
        s.output_tokens = scenario_output_within(base, mid);
        if (solve_users_of(&s, need) >= need) {
            best = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return best;
}

bool solve_context_capped(const struct scenario *base, uint64_t need, uint64_t best)
{
    uint64_t top = base->model.max_context_tokens;
    if (best == 0 || best != top || top >= TOKENS_MAX)
        return false;
    struct scenario s = *base;
    slots_for(&s, need);
    s.context_tokens = top + 1;
    s.avg_context_tokens = base->avg_context_tokens <= top ? base->avg_context_tokens : 0;
    return solve_users_of(&s, need) >= need;
}

bool solve_plan_at(const struct scenario *base, uint64_t need, uint64_t context,
                   struct explain *x, struct scenario *s, struct plan_result *r)
{
    *s = *base;
    slots_for(s, need);
    s->context_tokens = context;
    s->avg_context_tokens = base->avg_context_tokens < context ? base->avg_context_tokens : 0;
    struct diag ignore = {0};
    struct plan_result sized;
    if (!plan_sized(s, need, &sized)) /* the slots the answer was sized for */
        return false;
    return plan_compute(s, x, NULL, r, &ignore);
}

double solve_min_utilization(const struct scenario *base, uint64_t need)
{
    struct scenario s = *base;
    for (int pct = 1; pct <= 100; pct++) {
        s.engine.gpu_memory_utilization = pct / 100.0;
        if (solve_users(&s) >= need)
            return pct / 100.0;
    }
    return 0;
}

bool solve_keep(struct solve_change *out, int *n, enum solve_change_kind kind,
                const struct scenario *s, uint64_t need)
{
    if (*n >= SOLVE_CHANGES_MAX)
        return false;
    uint64_t u = solve_users(s);
    if (u < need)
        return false;
    out[*n].kind = kind;
    out[*n].scenario = *s;
    out[*n].users = u;
    (*n)++;
    return true;
}

/* a shorter context */
enum { SOLVE_CONTEXT_LEAST = 1024 };

static void change_context(const struct scenario *base, uint64_t need, struct solve_change *out,
                           int *n)
{
    /* at the layout in use (the default's would change with the context),
     * and not below a context one serves: 1k, or the prompt */
    struct scenario s = *base;
    scenario_pin_layout(&s);
    uint64_t ctx = solve_max_context(&s, need);
    uint64_t least = base->prompt_tokens > SOLVE_CONTEXT_LEAST ? base->prompt_tokens
                                                               : SOLVE_CONTEXT_LEAST;
    if (ctx > base->prefix_tokens && ctx >= least && ctx < base->context_tokens) {
        s.context_tokens = ctx;
        if (s.avg_context_tokens >= ctx)
            s.avg_context_tokens = 0;
        solve_keep(out, n, CHANGE_CONTEXT, &s, need);
    }
}

/* a cheaper cache, widest first, that the profile can hold */
static void change_kv_dtype(const struct scenario *base, uint64_t need, struct solve_change *out,
                            int *n)
{
    static const enum dtype cheaper[] = {DTYPE_FP8, DTYPE_INT8, DTYPE_Q8_0, DTYPE_Q4_0, DTYPE_INT4};
    struct scenario s = *base;
    struct plan_result r;
    struct diag d = {0};
    if (plan_compute(base, PLAN_NUMBERS, NULL, &r, &d)) {
        uint32_t now = dtype_info(r.kv_dtype)->bytes_num * 32 / dtype_info(r.kv_dtype)->bytes_den;
        for (size_t i = 0; i < sizeof cheaper / sizeof cheaper[0]; i++) {
            const struct dtype_info *info = dtype_info(cheaper[i]);
            if (info->bytes_num * 32 / info->bytes_den >= now ||
                !engine_supports(base->engine.kind, cheaper[i]))
                continue;
            s.kv_dtype = cheaper[i];
            if (solve_keep(out, n, CHANGE_KV_DTYPE, &s, need))
                break;
        }
    }
}

/* more GPUs of the same type: past a node, pipeline stages between the
 * nodes and TP within one, as vLLM's distributed serving guide sets a
 * model too big for a node (TP 8 x PP 2 over two nodes of 8); an engine
 * that splits layers has no stages (its layer split spans the GPUs) */
static void change_gpus(const struct scenario *base, uint64_t need, struct solve_change *out,
                        int *n)
{
    struct scenario s = *base;
    uint32_t stages = engine_desc(base->engine.kind)->splits_layers
                          ? 1
                          : 256 / spec_gpu_domain(&base->gpu);
    struct solve_split split =
        solve_gpus(base, need, 256, base->pp > stages ? base->pp : stages, NULL, false);
    s.gpus = split.gpus;
    solve_set_layout(&s, split.tp, split.pp);
    if (split.solved && solve_poor_stages(base, split.tp, split.pp)) {
        /* stages within a node where tensor parallel would do (3 GPUs of TP 1
         * x PP 3 where 4 of TP 4 serve more): the fewest GPUs of a node that
         * serve need by TP alone rank first, else the fewest from there whose
         * default layout is no poor one (12 as 2 x TP 2 x PP 3: 16 as 2 x TP 8) */
        struct solve_split flat = solve_gpus(base, need, spec_gpu_domain(&base->gpu), 1, NULL, false);
        struct scenario good;
        if (flat.solved) {
            s.gpus = flat.gpus;
            solve_set_layout(&s, flat.tp, flat.pp);
        } else if (solve_good_count(base, need, split.gpus, 1, &good)) {
            s = good;
        }
    }
    if (split.solved && s.gpus != base->gpus)
        solve_keep(out, n, CHANGE_GPUS, &s, need);
}

/* a longer shared prefix: the shortest that serves need (users grow with it) */
static void change_prefix(const struct scenario *base, uint64_t need, struct solve_change *out,
                          int *n)
{
    struct scenario s = *base;
    uint64_t lo = base->prefix_tokens + 1, hi = base->context_tokens - 1, best = 0;
    if (base->avg_context_tokens == 0) {
        while (lo <= hi) {
            uint64_t mid = lo + (hi - lo) / 2;
            s.prefix_tokens = mid;
            if (solve_users(&s) >= need) {
                best = mid;
                hi = mid - 1;
            } else {
                lo = mid + 1;
            }
        }
    }
    if (best) {
        s.prefix_tokens = best;
        solve_keep(out, n, CHANGE_PREFIX, &s, need);
    }
}

/* another GPU type, as many as now: the cheapest that serves need */
static void change_gpu_type(const struct scenario *base, uint64_t need,
                            const struct gpu_spec *const *gpus, size_t ngpus,
                            struct solve_change *out, int *n)
{
    struct scenario s = *base;
    int found = -1;
    double cost = -1;
    uint64_t users = 0;
    for (size_t i = 0; i < ngpus; i++) {
        if (strcmp(gpus[i]->id, base->gpu.id) == 0)
            continue;
        s = *base;
        s.gpu = *gpus[i];
        s.has_vram = false;
        s.wired_limit_mb = 0;
        uint64_t u = solve_users(&s);
        double price = gpus[i]->price_usd_per_hour;
        if (u < need || price < 0)
            continue;
        if (found < 0 || price < cost || (price == cost && u > users)) {
            found = (int)i;
            cost = price;
            users = u;
        }
    }
    if (found >= 0) {
        s = *base;
        s.gpu = *gpus[found];
        s.has_vram = false;
        s.wired_limit_mb = 0;
        solve_keep(out, n, CHANGE_GPU_TYPE, &s, need);
    }
}

int solve_changes(const struct scenario *base, uint64_t need, const struct gpu_spec *const *gpus,
                  size_t ngpus, struct solve_change *out)
{
    int n = 0;
    if (need == 0)
        return 0;
    if (solve_users(base) >= need) /* served: only a better layout of about as many GPUs */
        return solve_near_gpus(base, need, out, 0);
    change_context(base, need, out, &n);
    change_kv_dtype(base, need, out, &n);
    change_gpus(base, need, out, &n);
    change_prefix(base, need, out, &n);
    change_gpu_type(base, need, gpus, ngpus, out, &n);
    n = solve_layout_changes(base, need, out, n);
    /* out of reach: the closest each layout and precision change gets */
    return n > 0 ? n : solve_closest_changes(base, out, 0);
}
