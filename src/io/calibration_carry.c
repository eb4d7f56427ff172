/* calibration_carry: what of a memory calibration carries to the plan's
 * scenario once the options on top of it are applied (io/calibration.h):
 * another memory fraction or weight precision moves the logged cache by what
 * the engine's budget moves; another GPU or tensor-parallel split keeps only
 * the log's difference from kvplan's rule at its own; another engine none of
 * its budget; and the checks of a llama.cpp log's bytes a cell and of a log's
 * own CUDA total. */
#include "calibration.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/engine_desc.h"
#include "core/kvcost.h"
#include "core/policy.h"
#include "io/catalog.h"

/* The pool kvplan's rule gives s, less any shortfall. */
static bool rule_pool(const struct scenario *s, double *pool, struct diag *d)
{
    static struct scenario at;
    static struct plan_result r;
    at = *s;
    at.engine.kv_memory_bytes = 0;
    if (!plan_compute(&at, PLAN_NUMBERS, NULL, &r, d))
        return false;
    *pool = (double)r.kv_pool_bytes_per_gpu - (double)r.shortfall_bytes_per_gpu;
    return true;
}

/* Another GPU: its absolute bytes do not transfer. A logged total is that
 * GPU's (the non-KV memory, which does not depend on the GPU's size, stays);
 * a logged cache size keeps only how far it is from kvplan's rule there. */
static bool other_gpu(const struct calibration_source *c, const struct gpu_spec *measured,
                      bool same_gpu, struct scenario *s, char *note, size_t size, struct diag *d)
{
    struct engine_flags *f = &s->engine;
    if (!same_gpu && f->gpu_total_bytes && f->gpu_total_bytes == c->gpu_total_bytes) {
        f->gpu_total_bytes = 0;
        snprintf(note, size, "only its non-KV memory (%.2f GiB) is applied, with this GPU's "
                 "own total", (double)f->non_kv_bytes / 1073741824.0);
        return true;
    }
    if (!c->kv_memory_bytes || f->kv_memory_bytes != c->kv_memory_bytes)
        return true; /* no logged cache size, or --kv-memory given on top of it */
    double p0 = 0, p1 = 0;
    struct scenario there = *s;
    if (measured) {
        there.gpu = *measured;
        there.engine.gpu_memory_utilization = c->utilization;
        there.engine.mem_fraction_static = c->mem_fraction;
        there.engine.free_gpu_memory_fraction = 0;
        if (c->tp) { /* the log's own split: its pool is of that layout's weights */
            there.tp = c->tp;
            there.gpus = c->tp;
            there.pp = 0;
        }
    }
    if (measured && (!rule_pool(&there, &p0, d) || !rule_pool(s, &p1, d)))
        return false;
    double kv = (double)c->kv_memory_bytes - p0 + p1;
    if (measured == NULL || kv < 1) {
        f->kv_memory_bytes = 0;
        snprintf(note, size, "its KV cache of %.2f GiB is not applied (%s): planned from %s's "
                 "own rule", (double)c->kv_memory_bytes / 1073741824.0,
                 measured ? "what it differs by from kvplan's rule there leaves no pool here"
                          : "that GPU is not in the catalogue",
                 engine_desc(s->engine.kind)->title);
        return true;
    }
    f->kv_memory_bytes = (uint64_t)kv;
    snprintf(note, size, "only its difference from kvplan's rule there (%+.2f GiB, the non-KV "
             "memory the log implies) is applied: KV cache %.2f GiB here",
             ((double)c->kv_memory_bytes - p0) / 1073741824.0, kv / 1073741824.0);
    return true;
}

bool calibration_other_layout(const struct calibration_source *c, const struct scenario *s)
{
    bool gpu = c->gpu_id[0] && strcasecmp(c->gpu_id, s->gpu.id) != 0;
    /* the log's tensor parallel, when stated, against the plan's (or, with the
     * layout searched, the GPUs it has) */
    bool tp = c->tp && (s->tp ? s->tp : s->gpus) != c->tp;
    return c->memory && (gpu || tp);
}

/* Another engine: its budget is not this one's. The log's cache size and
 * its memory outside the cache are its own rule's (not applied: the plan is
 * this engine's rule); the GPU's total it saw is the GPU's, kept on the same
 * GPU. */
static bool other_engine(const struct calibration_source *c, struct scenario *s, char *note,
                         size_t size)
{
    struct engine_flags *f = &s->engine;
    bool kv = c->kv_memory_bytes && f->kv_memory_bytes == c->kv_memory_bytes;
    bool non = c->non_kv_bytes && f->non_kv_bytes == c->non_kv_bytes;
    bool gpu = c->gpu_id[0] && strcasecmp(c->gpu_id, s->gpu.id) != 0;
    bool total = gpu && c->gpu_total_bytes && f->gpu_total_bytes == c->gpu_total_bytes;
    if (kv)
        f->kv_memory_bytes = 0;
    if (non)
        f->non_kv_bytes = 0;
    if (total)
        f->gpu_total_bytes = 0;
    if (kv || non)
        snprintf(note, size, "its %s%s%s, %s's budget, %s not applied: planned from %s's own "
                 "rule%s", kv ? "KV cache" : "", kv && non ? " and " : "",
                 non ? "memory outside the cache" : "", engine_desc(c->engine)->title,
                 kv && non ? "are" : "is", engine_desc(s->engine.kind)->title,
                 c->gpu_total_bytes && !gpu && f->gpu_total_bytes ? ", with the GPU's logged total"
                                                                  : "");
    return true;
}

bool calibration_fraction_on_top(const struct calibration_source *c,
                                 const struct gpu_spec *measured, struct scenario *s, char *note,
                                 size_t size, struct diag *d)
{
    note[0] = '\0';
    struct engine_flags *f = &s->engine;
    if (c->memory && c->engine != s->engine.kind)
        return other_engine(c, s, note, size);
    if (calibration_other_layout(c, s)) {
        bool same = !(c->gpu_id[0] && strcasecmp(c->gpu_id, s->gpu.id) != 0);
        return other_gpu(c, same ? &s->gpu : measured, same, s, note, size, d);
    }
    if (!c->kv_memory_bytes || f->kv_memory_bytes != c->kv_memory_bytes)
        return true; /* no logged cache size, or --kv-memory given on top of it */
    /* a fraction not given here is the log's: the plan runs as the log's
     * server ran (its launch line says so), nothing moves */
    if (f->gpu_memory_utilization == 0 && c->utilization > 0)
        f->gpu_memory_utilization = c->utilization;
    if (f->mem_fraction_static == 0 && c->mem_fraction > 0)
        f->mem_fraction_static = c->mem_fraction;
    /* the fractions the log ran at (0: the engine's default) */
    struct engine_flags at = *f;
    at.gpu_memory_utilization = c->utilization;
    at.mem_fraction_static = c->mem_fraction;
    at.free_gpu_memory_fraction = 0;
    /* the weights' precision it ran at: another given here moves the cache
     * by what the weights free or take (the engine's budget holds both) */
    bool weights = c->weight_known && s->weight_dtype != c->weight;
    if (!weights && at.gpu_memory_utilization == f->gpu_memory_utilization &&
        at.mem_fraction_static == f->mem_fraction_static &&
        at.free_gpu_memory_fraction == f->free_gpu_memory_fraction)
        return true;
    static struct scenario base;
    base = *s;
    base.engine = at;
    if (weights)
        base.weight_dtype = c->weight;
    double p0, p1;
    if (!rule_pool(&base, &p0, d) || !rule_pool(s, &p1, d))
        return false;
    double kv = (double)c->kv_memory_bytes + p1 - p0;
    f->kv_memory_bytes = kv >= 1 ? (uint64_t)kv : 1; /* none left: nothing fits */
    snprintf(note, size, "the calibration's KV cache of %.2f GiB (at the log's %s) becomes %.2f "
             "GiB at the %s given, moved by %+.2f GiB as %s's budget moves",
             (double)c->kv_memory_bytes / 1073741824.0,
             weights ? "weights' precision and memory fraction" : "memory fraction",
             (double)f->kv_memory_bytes / 1073741824.0, weights ? "precision and fraction" : "fraction",
             (p1 - p0) / 1073741824.0, engine_desc(s->engine.kind)->title);
    return true;
}

void calibration_follow(const struct catalog *cat, const struct scenario *before,
                        struct scenario *s)
{
    struct calibration_origin *o = &s->calibration_from;
    if (!o->present || !o->memory)
        return;
    /* the cache and total are still the calibration's (not --kv-memory's,
     * or a snapshot's, or changed in this step): moved again from the log's */
    bool kv = o->kv_logged && before->engine.kv_memory_bytes == before->calibration_from.kv_applied &&
              s->engine.kv_memory_bytes == before->engine.kv_memory_bytes;
    bool total = o->gpu_total &&
                 (before->engine.gpu_total_bytes == o->gpu_total ||
                  before->engine.gpu_total_bytes == 0) && /* dropped on another GPU */
                 s->engine.gpu_total_bytes == before->engine.gpu_total_bytes;
    if (!kv && !total)
        return;
    struct calibration_source c;
    calibration_source_of(o, &c);
    if (!kv)
        c.kv_memory_bytes = 0;
    if (!total)
        c.gpu_total_bytes = 0;
    const struct catalog_gpu *g = o->gpu_id[0] ? catalog_find_gpu(cat, o->gpu_id) : NULL;
    static struct scenario at;
    at = *s;
    if (kv)
        at.engine.kv_memory_bytes = o->kv_logged;
    if (total)
        at.engine.gpu_total_bytes = o->gpu_total;
    char note[512];
    struct diag d = {0};
    if (!calibration_fraction_on_top(&c, g ? &g->spec : NULL, &at, note, sizeof note, &d))
        return; /* no plan to move it by: as it was */
    *s = at;
    if (kv)
        s->calibration_from.kv_applied = s->engine.kv_memory_bytes;
}

bool calibration_slots_check(const struct calibration_source *c, const struct scenario *s,
                             char *note, size_t size, struct diag *d)
{
    note[0] = '\0';
    if (!c->memory || !engine_desc(c->engine)->fixed_slots || !c->kv_memory_bytes ||
        !c->log_cells || s->engine.kv_memory_bytes || s->engine.non_kv_bytes)
        return true; /* nothing logged of the cache's size, or --kv-memory given */
    /* kvplan's cache of the log's own -c, -np and cache types (the plan's
     * where the file names none) */
    static struct scenario at;
    static struct plan_result r;
    at = *s;
    if (c->cache_k != DTYPE_AUTO) {
        at.kv_dtype = c->cache_k;
        at.engine.v_dtype = c->cache_v != DTYPE_AUTO && c->cache_v != c->cache_k ? c->cache_v
                                                                                  : DTYPE_AUTO;
    }
    uint32_t np = c->parallel ? c->parallel : 1;
    at.engine.parallel = np;
    at.context_tokens = c->log_cells / np;
    at.avg_context_tokens = 0;
    at.prefix_tokens = 0;
    struct diag quiet = {0};
    if (at.context_tokens == 0 || !plan_compute(&at, PLAN_NUMBERS, NULL, &r, &quiet))
        return true; /* no plan of the log's layout to set it against */
    (void)d;
    double rule = (double)r.engine.unit_bytes * (double)r.engine.units;
    double logged = (double)c->kv_memory_bytes;
    /* the log prints MiB with two decimals: a difference within 0.5% is its rounding */
    if (rule > 0 && fabs(logged - rule) <= 0.005 * rule)
        return true;
    char kt[16];
    enum dtype tk = at.kv_dtype != DTYPE_AUTO ? at.kv_dtype : engine_desc(c->engine)->cache_default;
    if (tk == DTYPE_AUTO)
        tk = DTYPE_FP16;
    enum dtype tv = at.engine.v_dtype != DTYPE_AUTO ? at.engine.v_dtype : tk;
    snprintf(kt, sizeof kt, "%s", dtype_info(tk)->name);
    snprintf(note, size, "the log's KV cache of %.2f GiB for %llu cells (%.0f B a cell) is not "
             "what %s's rule gives for them at %s cache types (K %s, V %s): %.2f GiB "
             "(%.0f B a cell); the plan sizes its cache by the rule from its own --context and "
             "--parallel (check the model and --kv-dtype)",
             logged / 1073741824.0, (unsigned long long)c->log_cells,
             logged / (double)c->log_cells, engine_desc(c->engine)->title,
             c->cache_k != DTYPE_AUTO ? "the log's" : "the plan's", kt,
             dtype_info(tv)->name, rule / 1073741824.0,
             r.engine.units ? rule / (double)r.engine.units : 0.0);
    return true;
}

bool calibration_total_check(uint64_t logged, const struct scenario *s, char *note, size_t size)
{
    note[0] = '\0';
    if (logged == 0)
        return true;
    static struct scenario preset;
    preset = *s;
    preset.engine.gpu_total_bytes = 0;
    uint64_t own = policy_cuda_total(&preset);
    /* a driver's or a MIG slice's few percent aside, the log ran on another card */
    if (own == 0 || fabs((double)logged - (double)own) <= 0.03 * (double)own)
        return true;
    snprintf(note, size, "the log's own CUDA-visible GPU memory is %.2f GiB, the %s preset's "
             "(%s) %.2f GiB: the log was not run on that GPU (give calibrate --gpu the log's "
             "GPU, or plan on it)",
             (double)logged / 1073741824.0, s->gpu.name, s->gpu.id, (double)own / 1073741824.0);
    return false;
}
