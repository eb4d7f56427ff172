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

static const enum dtype kv_cheaper[] = {DTYPE_FP8, DTYPE_INT8, DTYPE_Q8_0, DTYPE_Q4_0,
                                        DTYPE_INT4};
static const enum dtype w_cheaper[] = {DTYPE_Q8_0, DTYPE_FP8,    DTYPE_INT8,
                                       DTYPE_Q6_K, DTYPE_Q5_K_M, DTYPE_Q4_K_M,
                                       DTYPE_Q4_0, DTYPE_FP4,    DTYPE_INT4};

/* The widest precision narrower than the weights' now that serves need. */
static void weights(const struct scenario *base, uint64_t need, struct solve_change *out, int *n)
{
    struct plan_result r;
    struct diag d = {0};
    if (!plan_compute(base, PLAN_NUMBERS, NULL, &r, &d))
        return;
    struct scenario s = *base;
    for (size_t i = 0; i < sizeof w_cheaper / sizeof w_cheaper[0]; i++) {
        if (width(w_cheaper[i]) >= width(r.weight_dtype) ||
            !offered(base->engine.kind, w_cheaper[i]))
            continue;
        s.weight_dtype = w_cheaper[i];
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

void solve_set_layout(struct scenario *s, uint32_t tp, uint32_t pp)
{
    s->tp = 0;
    s->pp = 0;
    if (scenario_tp(s) == tp && scenario_pp(s) == pp)
        return;
    s->tp = tp;
    s->pp = pp > 1 ? pp : 0;
}

bool solve_poor_stages(const struct scenario *s, uint32_t tp, uint32_t pp)
{
    uint32_t node = spec_gpu_domain(&s->gpu);
    return pp > 1 && ((uint64_t)tp * pp <= node || tp < node);
}

/* One split of the same GPUs: the users it serves at the service level, 0
 * when it plans to nothing or the heads cannot take it (engines refuse it). */
static uint64_t split_users(const struct scenario *s)
{
    struct plan_result r;
    struct diag d = {0};
    if (!plan_compute(s, PLAN_NUMBERS, NULL, &r, &d) || (r.warnings & WARN_HEADS_UNEVEN_SPLIT))
        return 0;
    return r.speed.users_at_service_level;
}

/* The same GPUs split otherwise, TP x PP x replicas, the split that serves
 * the most, of the layouts that run (scenario_layouts, the default's own:
 * TP within a node or NVLink domain where the engine splits heads); a split
 * of poor stages (solve_poor_stages) ranks below every other that serves
 * need. An engine that splits layers, or runs one server, has no stages to
 * choose. */
static void splits(const struct scenario *base, uint64_t need, struct solve_change *out, int *n)
{
    const struct engine_desc *e = engine_desc(base->engine.kind);
    bool flat = e->splits_layers || e->refuses_tp != NULL;
    uint32_t widest = e->splits_layers ? base->gpus : spec_gpu_domain(&base->gpu);
    uint32_t tp0 = scenario_tp(base), pp0 = scenario_pp(base);
    uint32_t stages = flat ? 1 : base->model.layers ? base->model.layers : base->gpus;
    struct scenario_layout all[SCENARIO_LAYOUTS_MAX];
    /* the stages the default leaves to TP too where TP copies what they
     * would not: MLA's latent, or a single KV head, on every TP rank */
    size_t count = scenario_tp_copies_latent(base) ? scenario_layouts_all(base, stages, widest, all, SCENARIO_LAYOUTS_MAX)
                          : scenario_layouts(base, stages, widest, all, SCENARIO_LAYOUTS_MAX);
    struct scenario s = *base, best;
    uint64_t most = 0;
    bool best_poor = true;
    for (size_t i = 0; i < count; i++) {
        uint32_t tp = all[i].tp, pp = all[i].pp;
        bool poor = solve_poor_stages(base, tp, pp);
        if ((tp == tp0 && pp == pp0) || (flat && pp != pp0) || (poor && !best_poor))
            continue;
        solve_set_layout(&s, tp, pp);
        uint64_t u = split_users(&s);
        if (u >= need && (u > most || (best_poor && !poor))) {
            most = u;
            best = s;
            best_poor = poor;
        }
    }
    if (most > 0)
        solve_keep(out, n, CHANGE_SPLIT, &best, need);
}

bool solve_good_count(const struct scenario *base, uint64_t need, uint32_t from, int step,
                      struct scenario *found)
{
    struct scenario s = *base;
    s.tp = 0;
    s.pp = 0;
    for (int64_t g = from; g >= 1 && g <= 256; g += step) {
        s.gpus = (uint32_t)g;
        if (solve_poor_stages(&s, scenario_tp(&s), scenario_pp(&s)))
            continue;
        if (split_users(&s) >= need) {
            *found = s;
            return true;
        }
    }
    return false;
}

/* The nearest count on one side (-1 below, +1 above) as CHANGE_NEAR_GPUS. */
static void near_count(const struct scenario *base, uint64_t need, int side,
                       struct solve_change *out, int *n)
{
    struct scenario s;
    if (base->gpus + side >= 1 && solve_good_count(base, need, base->gpus + side, side, &s))
        solve_keep(out, n, CHANGE_NEAR_GPUS, &s, need);
}

int solve_near_gpus(const struct scenario *base, uint64_t need, struct solve_change *out, int n)
{
    const struct engine_desc *e = engine_desc(base->engine.kind);
    if (e->splits_layers || e->refuses_tp || base->tp || base->pp || base->dp_attention)
        return n;
    if (!solve_poor_stages(base, scenario_tp(base), scenario_pp(base)) && split_users(base) > 0)
        return n;
    /* the side a change of the GPUs is on has its nearest count already */
    uint32_t taken = 0;
    for (int i = 0; i < n; i++)
        if (out[i].kind == CHANGE_GPUS)
            taken = out[i].scenario.gpus;
    if (taken == 0 || taken > base->gpus)
        near_count(base, need, -1, out, &n);
    if (taken == 0 || taken < base->gpus)
        near_count(base, need, +1, out, &n);
    return n;
}

/* Keeps s at out[*n] as the closest of its kind: what it serves, short of
 * the target. */
static void keep_short(struct solve_change *out, int *n, enum solve_change_kind kind,
                       const struct scenario *s, uint64_t users)
{
    if (*n >= SOLVE_CHANGES_MAX)
        return;
    out[*n] = (struct solve_change){.kind = kind, .scenario = *s, .users = users};
    (*n)++;
}

/* Of the scenarios base with one field set to each of values[0..count)
 * (set), the one that serves the most, above floor. */
static void most_of(const struct scenario *base, void (*set)(struct scenario *, int), int count,
                    uint64_t floor, enum solve_change_kind kind, struct solve_change *out, int *n)
{
    struct scenario s, best;
    uint64_t most = floor;
    for (int i = 0; i < count; i++) {
        s = *base;
        set(&s, i);
        uint64_t u = s.gpus ? solve_users(&s) : 0;
        if (u > most) {
            most = u;
            best = s;
        }
    }
    if (most > floor)
        keep_short(out, n, kind, &best, most);
}

/* each setter leaves s->gpus 0 where the value is not one to offer */
static void set_kv(struct scenario *s, int i)
{
    if (!engine_supports(s->engine.kind, kv_cheaper[i]))
        s->gpus = 0;
    s->kv_dtype = kv_cheaper[i];
}

static void set_weights(struct scenario *s, int i)
{
    if (!offered(s->engine.kind, w_cheaper[i]))
        s->gpus = 0;
    s->weight_dtype = w_cheaper[i];
}

static void set_engine(struct scenario *s, int i)
{
    enum engine_kind kind = (enum engine_kind)i;
    if (kind == s->engine.kind || !engine_desc(kind)->server ||
        !engine_desc(s->engine.kind)->server) {
        s->gpus = 0;
        return;
    }
    scenario_set_engine(s, kind, RULE_CURRENT);
    if (s->kv_dtype != DTYPE_AUTO && !engine_supports(kind, s->kv_dtype))
        s->kv_dtype = DTYPE_AUTO;
    if (s->engine.v_dtype != DTYPE_AUTO && !engine_desc(kind)->v_dtype)
        s->engine.v_dtype = DTYPE_AUTO;
}

int solve_closest_changes(const struct scenario *base, struct solve_change *out, int n)
{
    uint64_t now = solve_users(base);
    int before = n;
    most_of(base, set_kv, (int)(sizeof kv_cheaper / sizeof kv_cheaper[0]), now, CHANGE_KV_DTYPE,
            out, &n);
    most_of(base, set_weights, (int)(sizeof w_cheaper / sizeof w_cheaper[0]), now,
            CHANGE_WEIGHT_DTYPE, out, &n);
    most_of(base, set_engine, ENGINE_COUNT, now, CHANGE_ENGINE, out, &n);
    /* the split: the most of splits() with no target but more than now */
    struct solve_change split[1];
    int k = 0;
    splits(base, now + 1, split, &k);
    if (k == 1)
        keep_short(out, &n, CHANGE_SPLIT, &split[0].scenario, split[0].users);
    (void)before;
    return n;
}

int solve_layout_changes(const struct scenario *base, uint64_t need, struct solve_change *out,
                         int n)
{
    weights(base, need, out, &n);
    engines(base, need, out, &n);
    splits(base, need, out, &n);
    return solve_near_gpus(base, need, out, n);
}
