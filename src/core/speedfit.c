#include "speedfit.h"
#include "engine_desc.h"

#include <math.h>
#include <string.h>

#include "speed.h"
#include "speed_ttft.h"

/* A fraction's range: what --mbu and --mfu take. */
#define FIT_FRACTION_MIN 0.01

void speedfit_scenario(const struct scenario *base, const struct fit_point *p, struct scenario *s)
{
    *s = *base;
    uint64_t in = p->input_tokens ? p->input_tokens : 1;
    uint64_t ctx = p->depth + in + p->output_tokens;
    s->context_tokens = ctx;
    s->avg_context_tokens = p->kind == FIT_DECODE ? p->depth + in + p->output_tokens / 2 : ctx;
    if (s->avg_context_tokens < 1)
        s->avg_context_tokens = 1;
    s->prompt_tokens = in;
    if (s->prefix_tokens > in)
        s->prefix_tokens = 0; /* a benchmark's prompts share no longer prefix than they are */
    s->concurrency = p->concurrency ? p->concurrency : 1;
    s->min_tokens_per_s = 0;
    s->max_ttft_seconds = 0;
    s->mbu = 1;
    s->mfu = 1;
    s->has_step_overhead = true;
    s->step_overhead_s = 0;
    s->speed_calibrated = 0;
    s->speed_basis[0] = '\0';
}

/* The others' decode step a first token among them waits half of, at full
 * bandwidth and compute: each at its reply's average context, as a decode
 * figure's (plan --avg-context). */
static bool wait_parts(const struct scenario *base, struct fit_point *p, int i, struct diag *d)
{
    static struct scenario s;
    static struct plan_result r;
    struct fit_point as_decode = *p;
    as_decode.kind = FIT_DECODE;
    speedfit_scenario(base, &as_decode, &s);
    struct diag local = {0};
    if (!plan_compute(&s, PLAN_NUMBERS, NULL, &r, &local))
        return diag_fail(d, "point %d: %s", i + 1, local.message);
    struct step_time w;
    struct speed_basis basis = plan_speed_basis(&r);
    double step = speed_decode_parts(&s, &basis, r.speed.concurrency_per_replica, &w);
    if (step > 0 && w.stage_s > 0) {
        p->wait_memory_s = w.memory_s;
        p->wait_compute_s = w.compute_s;
        p->wait_fixed_s = w.moe_s + w.comm_s;
        p->wait_stages = (step - w.overhead_s - w.host_s) / w.stage_s;
    }
    return true;
}

/* The step of one point at full bandwidth and compute, no overhead. */
static bool point_parts(const struct scenario *base, struct fit_point *p, int i, struct diag *d)
{
    static struct scenario s;
    static struct plan_result r;
    speedfit_scenario(base, p, &s);
    struct diag local = {0};
    if (!plan_compute(&s, PLAN_NUMBERS, NULL, &r, &local))
        return diag_fail(d, "point %d: %s", i + 1, local.message);
    if (!r.speed.known)
        return diag_fail(d, "%s has no bandwidth figure: no step time to fit", s.gpu.name);
    struct step_time st;
    struct speed_basis basis = plan_speed_basis(&r);
    double total = p->kind == FIT_DECODE
                       ? speed_decode_parts(&s, &basis, r.speed.concurrency_per_replica, &st)
                       : speed_prefill_parts(&s, &basis, s.prompt_tokens, &st);
    if (total <= 0 || st.stage_s <= 0)
        return diag_fail(d, "point %d: %s has no %s figure: kvplan has no step to compare", i + 1,
                         s.gpu.name, p->kind == FIT_DECODE ? "bandwidth" : "compute");
    p->memory_s = st.memory_s;
    p->compute_s = st.compute_s;
    p->fixed_s = st.moe_s + st.comm_s;
    p->stages = (total - st.overhead_s - st.host_s) / st.stage_s; /* the host's once a step */
    p->host_s = st.host_s;
    p->request_s = 0;
    p->wait_memory_s = p->wait_compute_s = p->wait_fixed_s = p->wait_stages = 0;
    if (p->kind == FIT_PREFILL) {
        /* plan's first-token terms (core/speed_ttft.c): the request's own time */
        p->request_s = speed_request_overhead_s(&s);
        if (p->concurrency > 1)
            return wait_parts(base, p, i, d);
    }
    return true;
}

static double step_of(double memory, double compute, double fixed, double stages, double mbu,
                      double mfu, double overhead)
{
    double m = memory / mbu, c = compute / mfu;
    return stages * ((m > c ? m : c) + fixed) + overhead;
}

/* Half the others' decode step, waited by a first token among them. */
static double wait_of(const struct fit_point *p, double mbu, double mfu, double overhead)
{
    if (p->wait_stages <= 0)
        return 0;
    return 0.5 * step_of(p->wait_memory_s, p->wait_compute_s, p->wait_fixed_s, p->wait_stages,
                         mbu, mfu, overhead);
}

/* The figure as plan gives it with these fractions: the step, and for a
 * first token the wait (the request's time is added to "before" only). */
static double predict(const struct fit_point *p, double mbu, double mfu, double overhead)
{
    return step_of(p->memory_s, p->compute_s, p->fixed_s, p->stages, mbu, mfu, overhead) +
           p->host_s + wait_of(p, mbu, mfu, overhead);
}

static bool binds_compute(const struct fit_point *p, double mbu, double mfu)
{
    return p->compute_s / mfu > p->memory_s / mbu;
}

/* 1/fraction by least squares through the origin: y = k x, y the time left
 * once the fixed parts and the overhead are taken off, x the stages' time at
 * full rate. 0 when no point takes part. */
static double slope(const struct fit_point *p, int n, bool compute, double mbu, double mfu,
                    double overhead, int *used)
{
    double xy = 0, xx = 0;
    *used = 0;
    for (int i = 0; i < n; i++) {
        if (binds_compute(&p[i], mbu, mfu) != compute || p[i].waited)
            continue;
        double x = p[i].stages * (compute ? p[i].compute_s : p[i].memory_s);
        double y = p[i].measured_s - p[i].stages * p[i].fixed_s - p[i].host_s - overhead -
                   wait_of(&p[i], mbu, mfu, overhead);
        xy += x * y;
        xx += x * x;
        (*used)++;
    }
    return xx > 0 ? xy / xx : 0;
}

/* The line y = k x + o through the memory-bound points, when there are two or
 * more whose memory differs by a tenth or more; false otherwise. */
static bool line(const struct fit_point *p, int n, double mbu, double mfu, double *k, double *o)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, lo = INFINITY, hi = 0;
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (binds_compute(&p[i], mbu, mfu) || p[i].waited)
            continue;
        double x = p[i].stages * p[i].memory_s,
               y = p[i].measured_s - p[i].stages * p[i].fixed_s - p[i].host_s;
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        m++;
    }
    double var = sxx - sx * sx / m;
    if (m < 2 || hi <= 0 || (hi - lo) / hi < 0.1 || var <= 0)
        return false;
    *k = (sxy - sx * sy / m) / var;
    *o = (sy - *k * sx) / m;
    return true;
}

/* A fraction from its 1/fraction slope, within 0.01 to 1. */
static double fraction(double k, double previous, bool *clamped)
{
    *clamped = false;
    if (!(k > 0))
        return previous;
    double f = 1.0 / k;
    if (f > 1 || f < FIT_FRACTION_MIN) {
        *clamped = true;
        f = f > 1 ? 1 : FIT_FRACTION_MIN;
    }
    return f;
}

/* One pass: MFU from the compute-bound points, then MBU (and the overhead)
 * from the memory-bound ones. */
static void pass(struct fit_point *p, int n, unsigned fixed, struct fit_result *f)
{
    double k;
    if (!(fixed & SPEED_CAL_MFU)) {
        k = slope(p, n, true, f->mbu, f->mfu, f->overhead_s, &f->compute_points);
        if (f->compute_points) {
            f->mfu = fraction(k, f->mfu, &f->mfu_clamped);
            f->mfu_fitted = k > 0;
        }
    }
    double o;
    f->overhead_fitted = false;
    f->overhead_refused = false;
    bool both = !(fixed & SPEED_CAL_OVERHEAD) && !(fixed & SPEED_CAL_MBU) &&
                line(p, n, f->mbu, f->mfu, &k, &o);
    if (both && (o < 0 || o > STEP_OVERHEAD_MAX_S || !(k > 0))) {
        f->overhead_refused = true; /* noise or a bad layout: the overhead stays as it was */
        both = false;
    }
    if (both) {
        f->overhead_s = o;
        f->overhead_fitted = true;
        slope(p, n, false, f->mbu, f->mfu, o, &f->memory_points); /* the count */
        f->mbu = fraction(k, f->mbu, &f->mbu_clamped);
        f->mbu_fitted = true;
    } else if (!(fixed & SPEED_CAL_MBU)) {
        k = slope(p, n, false, f->mbu, f->mfu, f->overhead_s, &f->memory_points);
        if (f->memory_points) {
            f->mbu = fraction(k, f->mbu, &f->mbu_clamped);
            f->mbu_fitted = k > 0;
        }
    } else if (!(fixed & SPEED_CAL_OVERHEAD)) {
        /* MBU held: the overhead is what the memory-bound points leave, on average */
        double sum = 0;
        int m = 0;
        for (int i = 0; i < n; i++)
            if (!binds_compute(&p[i], f->mbu, f->mfu) && !p[i].waited) {
                sum += p[i].measured_s - predict(&p[i], f->mbu, f->mfu, 0);
                m++;
            }
        f->memory_points = m;
        if (m && sum / m >= 0 && sum / m <= STEP_OVERHEAD_MAX_S) {
            f->overhead_s = sum / m;
            f->overhead_fitted = true;
        }
    }
}

bool speedfit_run(const struct scenario *base, unsigned fixed, struct fit_point *p, int n,
                  struct fit_result *out, struct diag *d)
{
    memset(out, 0, sizeof *out);
    if (n <= 0 || n > FIT_POINTS_MAX)
        return diag_fail(d, "%d measured figures: between 1 and %d are taken", n, FIT_POINTS_MAX);
    for (int i = 0; i < n; i++)
        if (!(p[i].measured_s > 0 && isfinite(p[i].measured_s)))
            return diag_fail(d, "point %d: a time of %g s is not a measurement", i + 1,
                             p[i].measured_s);
    for (int i = 0; i < n; i++) {
        if (!point_parts(base, &p[i], i, d))
            return false;
        /* in one file or several: a first token among others queued */
        p[i].waited = p[i].kind == FIT_PREFILL && p[i].concurrency > 1;
    }
    out->mbu = base->mbu > 0                 ? base->mbu
               : base->gpu.achievable_mbu > 0 ? base->gpu.achievable_mbu
                                              : SPEED_DEFAULT_MBU;
    out->mfu = base->mfu > 0 ? base->mfu : speed_default_mfu(base);
    out->overhead_s = base->has_step_overhead ? base->step_overhead_s
                                              : engine_desc(base->engine.kind)->step_overhead_s;
    out->mbu0 = out->mbu;
    out->mfu0 = out->mfu;
    out->overhead0_s = out->overhead_s;
    for (int round = 0; round < 3; round++)
        pass(p, n, fixed, out);
    double sq = 0, sq0 = 0;
    int counted = 0;
    /* plan drops the request's time where the MFU came with the calibration */
    bool absorbed = out->mfu_fitted || (fixed & SPEED_CAL_MFU);
    for (int i = 0; i < n; i++) {
        p[i].predicted_s = predict(&p[i], out->mbu, out->mfu, out->overhead_s) +
                           (absorbed ? 0 : p[i].request_s);
        p[i].before_s = predict(&p[i], out->mbu0, out->mfu0, out->overhead0_s) + p[i].request_s;
        p[i].compute_binds = binds_compute(&p[i], out->mbu, out->mfu);
        double e = (p[i].predicted_s - p[i].measured_s) / p[i].measured_s;
        double e0 = (p[i].before_s - p[i].measured_s) / p[i].measured_s;
        if (p[i].waited)
            continue; /* not a step kvplan models */
        sq += e * e;
        sq0 += e0 * e0;
        counted++;
    }
    out->rms = counted ? sqrt(sq / counted) : 0;
    out->rms0 = counted ? sqrt(sq0 / counted) : 0;
    return true;
}
