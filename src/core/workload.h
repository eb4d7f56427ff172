/* workload: the requests of a serving benchmark, made as `vllm bench serve`
 * makes them with its random dataset (vLLM vllm/benchmarks/serve.py
 * get_request; vllm/benchmarks/datasets/random.py RandomDataset, read at
 * commits 009e6d4a and 237145ea of vllm-project/vllm):
 *
 *  - lengths: each request's input drawn as a whole number uniformly from
 *    [floor(L x (1 - r)), ceil(L x (1 + r))] for --random-input-len L and
 *    --random-range-ratio r in [0, 1), its output likewise from
 *    --random-output-len (at least 1); a shared prefix of P tokens goes
 *    before every input (vLLM's --random-prefix-len; kvplan's --prefix).
 *    vLLM first takes the tokenizer's special tokens off L; kvplan has no
 *    tokenizer and counts none;
 *  - arrivals: the gaps between requests drawn from a gamma distribution of
 *    shape B (--burstiness; 1 is a Poisson process) and scale 1 / (R x B)
 *    for --request-rate R, added up from the first request's own gap, then
 *    scaled so that the last arrives at N / R exactly (vLLM rescales them
 *    "to close the gap" of 1-2% a sum of random gaps leaves); R infinite
 *    sends every request at 0, B infinite spaces them 1 / R apart.
 *
 * The numbers come from kvplan's own generator, not numpy's: SplitMix64
 * (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
 * OOPSLA 2014), one stream for the lengths and one for the gaps, each
 * seeded from --seed, so that a rate or burstiness changes the arrivals and
 * never the lengths, and the same seed gives the same requests byte for
 * byte. Whole numbers in a range by rejection (no modulo bias), uniform
 * doubles from the top 53 bits, normal deviates by Marsaglia's polar
 * method, gamma deviates by Marsaglia and Tsang's method ("A simple method
 * for generating gamma variables", ACM TOMS 26(3), 2000), with
 * Gamma(B) = Gamma(B + 1) x U^(1/B) below shape 1. */
#ifndef KVPLAN_CORE_WORKLOAD_H
#define KVPLAN_CORE_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

/* vLLM's defaults (vllm/benchmarks/datasets/arg_utils.py, serve.py). */
#define WORKLOAD_DEFAULT_PROMPTS 1000
#define WORKLOAD_DEFAULT_INPUT_LEN 1024
#define WORKLOAD_DEFAULT_OUTPUT_LEN 128

/* A length profile: a published trace's requests, input and output lengths
 * in tokens (presets/datasets/, compiled in), which `--dataset NAME` draws
 * requests from in place of the random dataset's ranges. */
struct workload_profile {
    const char *name;     /* "azure-conv-2023" */
    const char *title;    /* "Azure LLM inference trace 2023, conversation" */
    const char *kind;     /* "chat" */
    const char *source, *license;
    size_t n;
    const uint32_t *input, *output;
    double duration;      /* seconds from the trace's first request to its last */
};

struct workload_params {
    uint64_t num_prompts;    /* requests, at least 1 */
    double request_rate;     /* requests a second, > 0; INFINITY: all at once */
    double burstiness;       /* the gamma's shape, > 0; INFINITY: evenly spaced */
    uint64_t input_len, output_len; /* the lengths' centres, at least 1 */
    double range_ratio;      /* [0, 1) */
    uint64_t prefix_len;     /* tokens every prompt starts with */
    uint64_t seed;
    /* a profile's requests in place of the ranges: each drawn uniformly,
     * with replacement, from those whose prefix and prompt are at most
     * most_prompt tokens and whose prefix, prompt and output at most
     * most_total (0: no bound) */
    const struct workload_profile *profile;
    uint64_t most_prompt, most_total;
};

/* What of p's profile its bounds leave: the requests, their mean input and
 * output (before the prefix) and the longest input. */
struct workload_fit {
    size_t count;
    double mean_input, mean_output;
    uint64_t longest_input, longest_request; /* prefix not counted */
};
struct workload_fit workload_profile_fit(const struct workload_params *p);

/* One request: when it arrives (seconds from the start), its prompt (the
 * prefix included) and the tokens it generates. */
struct workload_request {
    double arrival;
    uint64_t prompt;
    uint64_t output;
};

/* The ranges the lengths are drawn from: [in_lo, in_hi] before the prefix,
 * [out_lo, out_hi]. */
struct workload_bounds {
    uint64_t in_lo, in_hi, out_lo, out_hi;
};
struct workload_bounds workload_bounds(const struct workload_params *p);

/* A generator: SplitMix64. */
struct workload_rng {
    uint64_t state;
};
struct workload_rng workload_rng_seed(uint64_t seed, uint64_t stream);
uint64_t workload_next(struct workload_rng *g);
double workload_uniform(struct workload_rng *g);              /* (0, 1) */
uint64_t workload_between(struct workload_rng *g, uint64_t lo, uint64_t hi); /* [lo, hi] */
double workload_gamma(struct workload_rng *g, double shape);  /* scale 1 */

/* The p->num_prompts requests into out (in arrival order); a profile's
 * lengths need workload_profile_fit(p).count > 0. */
void workload_generate(const struct workload_params *p, struct workload_request *out);

#endif
