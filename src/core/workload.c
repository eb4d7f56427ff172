#include "workload.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

/* The streams: the lengths' and the arrival gaps' (any two odd constants). */
enum { STREAM_LENGTHS = 1, STREAM_GAPS = 2 };

struct workload_bounds workload_bounds(const struct workload_params *p)
{
    /* RandomDataset.get_sampling_params: floor for the low end, ceil for the
     * high, in the floating point Python computes them in */
    double r = p->range_ratio;
    struct workload_bounds b;
    b.in_lo = (uint64_t)floor((double)p->input_len * (1.0 - r));
    b.in_hi = (uint64_t)ceil((double)p->input_len * (1.0 + r));
    b.out_lo = (uint64_t)floor((double)p->output_len * (1.0 - r));
    b.out_hi = (uint64_t)ceil((double)p->output_len * (1.0 + r));
    if (b.out_lo < 1)
        b.out_lo = 1;
    if (b.out_hi < 1)
        b.out_hi = 1;
    return b;
}

struct workload_rng workload_rng_seed(uint64_t seed, uint64_t stream)
{
    struct workload_rng g = {seed ^ (stream * 0xD1B54A32D192ED03ull)};
    workload_next(&g); /* one step away from the raw seed */
    return g;
}

uint64_t workload_next(struct workload_rng *g)
{
    uint64_t z = (g->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double workload_uniform(struct workload_rng *g)
{
    return ((double)(workload_next(g) >> 11) + 0.5) * 0x1.0p-53;
}

uint64_t workload_between(struct workload_rng *g, uint64_t lo, uint64_t hi)
{
    uint64_t span = hi - lo + 1; /* 0: the whole 64-bit range */
    if (span == 0)
        return workload_next(g);
    uint64_t limit = UINT64_MAX - UINT64_MAX % span; /* the largest multiple of span */
    uint64_t x;
    do
        x = workload_next(g);
    while (x >= limit);
    return lo + x % span;
}

/* A standard normal deviate: Marsaglia's polar method (one of the pair). */
static double normal(struct workload_rng *g)
{
    double u, v, s;
    do {
        u = 2.0 * workload_uniform(g) - 1.0;
        v = 2.0 * workload_uniform(g) - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    return u * sqrt(-2.0 * log(s) / s);
}

double workload_gamma(struct workload_rng *g, double shape)
{
    if (shape < 1.0) {
        double u = workload_uniform(g);
        return workload_gamma(g, shape + 1.0) * pow(u, 1.0 / shape);
    }
    double d = shape - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x, v;
        do {
            x = normal(g);
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        double u = workload_uniform(g);
        if (u < 1.0 - 0.0331 * x * x * x * x)
            return d * v;
        if (log(u) < 0.5 * x * x + d * (1.0 - v + log(v)))
            return d * v;
    }
}

/* get_request: the cumulative gaps, rescaled so the last lands at N / R. */
static void arrivals(const struct workload_params *p, struct workload_request *out)
{
    size_t n = (size_t)p->num_prompts;
    if (isinf(p->request_rate)) {
        for (size_t i = 0; i < n; i++)
            out[i].arrival = 0;
        return;
    }
    struct workload_rng g = workload_rng_seed(p->seed, STREAM_GAPS);
    double theta = 1.0 / (p->request_rate * p->burstiness), sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += isinf(p->burstiness) ? 1.0 / p->request_rate
                                    : workload_gamma(&g, p->burstiness) * theta;
        out[i].arrival = sum;
    }
    if (sum > 0) {
        double scale = ((double)n / p->request_rate) / sum;
        for (size_t i = 0; i < n; i++)
            out[i].arrival *= scale;
    }
}

/* Whether the profile's request i is within p's bounds. */
static bool profile_fits(const struct workload_params *p, size_t i)
{
    uint64_t in = p->prefix_len + p->profile->input[i];
    return (p->most_prompt == 0 || in <= p->most_prompt) &&
           (p->most_total == 0 || in + p->profile->output[i] <= p->most_total);
}

struct workload_fit workload_profile_fit(const struct workload_params *p)
{
    struct workload_fit f = {0};
    double in = 0, out = 0;
    for (size_t i = 0; p->profile && i < p->profile->n; i++) {
        if (!profile_fits(p, i))
            continue;
        uint64_t a = p->profile->input[i], all = a + p->profile->output[i];
        f.count++;
        in += (double)a;
        out += (double)p->profile->output[i];
        f.longest_input = a > f.longest_input ? a : f.longest_input;
        f.longest_request = all > f.longest_request ? all : f.longest_request;
    }
    if (f.count) {
        f.mean_input = in / (double)f.count;
        f.mean_output = out / (double)f.count;
    }
    return f;
}

void workload_generate(const struct workload_params *p, struct workload_request *out)
{
    struct workload_bounds b = workload_bounds(p);
    struct workload_rng g = workload_rng_seed(p->seed, STREAM_LENGTHS);
    size_t n = (size_t)p->num_prompts;
    if (p->profile) { /* one of the profile's requests that fit, uniformly */
        size_t m = 0, *fit = malloc(p->profile->n * sizeof *fit);
        for (size_t i = 0; fit && i < p->profile->n; i++)
            if (profile_fits(p, i))
                fit[m++] = i;
        for (size_t i = 0; i < n; i++) {
            size_t k;
            if (fit) /* the i-th of those that fit */
                k = fit[workload_between(&g, 0, m - 1)];
            else /* no memory for the list: drawn until one fits */
                do
                    k = (size_t)workload_between(&g, 0, p->profile->n - 1);
                while (!profile_fits(p, k));
            out[i].prompt = p->prefix_len + p->profile->input[k];
            out[i].output = p->profile->output[k];
        }
        free(fit);
        arrivals(p, out);
        return;
    }
    /* as vLLM draws them: every input length, then every output length */
    for (size_t i = 0; i < n; i++)
        out[i].prompt = p->prefix_len + workload_between(&g, b.in_lo, b.in_hi);
    for (size_t i = 0; i < n; i++)
        out[i].output = workload_between(&g, b.out_lo, b.out_hi);
    arrivals(p, out);
}
