/* solve_layout: what would it take, the changes of what runs on the GPUs
 * rather than of the GPUs or the load: cheaper weights, another engine,
 * another split of the same GPUs. Each is planned by plan_compute, as the
 * other changes are (solve_users). */
#include "solve.h"

#include "engine_desc.h"

/* bits a value, in 32nds: comparable across every precision */
static uint32_t width(enum dtype d)
{
    const struct dtype_info *i = dtype_info(d);
    return i->bytes_num * 32 / i->bytes_den;
}

/* GGUF's own types: offered to an engine that names them among the weights
 * it loads, never to one that loads any checkpoint (vLLM's empty list). */
static bool gguf(enum dtype d)
{
    return d == DTYPE_Q8_0 || d == DTYPE_Q6_K || d == DTYPE_Q5_K_M || d == DTYPE_Q4_K_M ||
           d == DTYPE_Q4_0;
}

static bool offered(enum engine_kind k, enum dtype d)
{
    return engine_desc(k)->weight_dtypes[0] == DTYPE_AUTO ? !gguf(d) : engine_loads(k, d);
}

/* The widest precision narrower than the weights' now that serves need. */
static void weights(const struct scenario *base, uint64_t need, struct solve_change *out, int *n)
{
    static const enum dtype cheaper[] = {DTYPE_Q8_0,   DTYPE_FP8,    DTYPE_INT8,
                                         DTYPE_Q6_K,   DTYPE_Q5_K_M, DTYPE_Q4_K_M,
                                         DTYPE_Q4_0,   DTYPE_FP4,    DTYPE_INT4};
    struct plan_result r;
    struct diag d = {0};
    if (!plan_compute(base, PLAN_NUMBERS, NULL, &r, &d))
        return;
    struct scenario s = *base;
    for (size_t i = 0; i < sizeof cheaper / sizeof cheaper[0]; i++) {
        if (width(cheaper[i]) >= width(r.weight_dtype) || !offered(base->engine.kind, cheaper[i]))
            continue;
        s.weight_dtype = cheaper[i];
        if (solve_keep(out, n, CHANGE_WEIGHT_DTYPE, &s, need))
            return;
    }
}

/* Another server engine at its latest for a server engine, the one that
 * serves the most; a cache type it has no kernel for goes back to its
 * default. */
static void engines(const struct scenario *base, uint64_t need, struct solve_change *out, int *n)
{
    struct scenario best;
    uint64_t most = 0;
    if (!engine_desc(base->engine.kind)->server)
        return; /* the headroom rule is no server to trade for another */
    for (int k = 0; k < ENGINE_COUNT; k++) {
        enum engine_kind kind = (enum engine_kind)k;
        if (kind == base->engine.kind || !engine_desc(kind)->server)
            continue;
        struct scenario s = *base;
        scenario_set_engine(&s, kind, RULE_CURRENT);
        if (s.kv_dtype != DTYPE_AUTO && !engine_supports(kind, s.kv_dtype))
            s.kv_dtype = DTYPE_AUTO;
        if (s.engine.v_dtype != DTYPE_AUTO && !engine_desc(kind)->v_dtype)
            s.engine.v_dtype = DTYPE_AUTO;
        uint64_t u = solve_users(&s);
        if (u >= need && u > most) {
            most = u;
            best = s;
        }
    }
    if (most > 0)
        solve_keep(out, n, CHANGE_ENGINE, &best, need);
}

/* The same GPUs and stages split into other tensor-parallel groups (more
 * or fewer replicas), the split that serves the most; one the heads cannot
 * take is skipped, as engines refuse it, and so is a TP group wider than a
 * node where the engine splits heads (its all-reduces over the network). */
static void splits(const struct scenario *base, uint64_t need, struct solve_change *out, int *n)
{
    uint32_t pp = scenario_pp(base), per_stage = base->gpus / pp;
    uint32_t widest = engine_desc(base->engine.kind)->splits_layers
                          ? per_stage
                          : spec_gpu_domain(&base->gpu);
    struct scenario s = *base, best;
    uint64_t most = 0;
    for (uint32_t tp = 1; tp <= per_stage; tp++) {
        if (per_stage % tp != 0 || tp == scenario_tp(base) || tp > widest)
            continue;
        s.tp = tp == per_stage ? 0 : tp;
        struct plan_result r;
        struct diag d = {0};
        if (!plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d) || (r.warnings & WARN_HEADS_UNEVEN_SPLIT))
            continue;
        uint64_t u = r.speed.users_at_service_level;
        if (u >= need && u > most) {
            most = u;
            best = s;
        }
    }
    if (most > 0)
        solve_keep(out, n, CHANGE_SPLIT, &best, need);
}

int solve_layout_changes(const struct scenario *base, uint64_t need, struct solve_change *out,
                         int n)
{
    weights(base, need, out, &n);
    engines(base, need, out, &n);
    splits(base, need, out, &n);
    return n;
}
