/* speedfit: kvplan's step time against a benchmark's, and the achievable
 * bandwidth (MBU), compute (MFU) and per-step overhead that make them meet.
 *
 * Each figure a benchmark measured is one step kvplan computes (core/speed.h):
 * a decode step (TPOT, or ITL) of `concurrency` users, each at the average
 * context over its reply (input + depth + output / 2), or the prefill of an
 * input-token prompt alone (TTFT, llama-bench's ppN). With its memory time M
 * and compute time C at full bandwidth and compute (kvplan's
 * step_memory_seconds and step_compute_seconds at MBU = MFU = 1), the fixed
 * X of a stage (all-reduces, MoE kernels), its stages S and the host's layers
 * H (llama.cpp's, read on the CPU once a step, not fitted), a step takes
 *
 *     S x (max(M / MBU, C / MFU) + X) + H + overhead
 *
 * A figure fits the fraction of what binds its step: those where memory
 * binds fit MBU (1/MBU by least squares over S x M), and with two or more of
 * them whose memory differs by a tenth or more, the overhead too (a line
 * through (S x M, T - S x X)); those where compute binds fit MFU the same way,
 * the first tokens only where one request was in flight (among more, a
 * prompt queues behind the others' steps). A first token is compared as
 * plan prints it: prefill + the engine's per-request time (before; a
 * measured one holds it) + half the others' decode step (when in flight).
 * Which binds depends on the fractions: three passes settle it. A fraction or
 * the overhead held fixed (given) is not fitted. */
#ifndef KVPLAN_CORE_SPEEDFIT_H
#define KVPLAN_CORE_SPEEDFIT_H

#include <stdbool.h>
#include <stdint.h>

#include "plan.h"

enum fit_kind { FIT_DECODE, FIT_PREFILL };

enum { FIT_POINTS_MAX = 64 };

struct fit_point {
    enum fit_kind kind;
    double measured_s;    /* seconds per output token, or to the first token */
    uint64_t concurrency; /* users decoding at once, all replicas (1 for a prefill alone) */
    uint64_t input_tokens, output_tokens, depth; /* depth: context before the prompt */
    /* filled by speedfit_run: the step at MBU = MFU = 1 and no overhead */
    double memory_s, compute_s, fixed_s;
    double stages;
    double host_s;        /* llama.cpp's host layers, once a step, at the host's own rate */
    /* a first token's terms beside its prefill, as plan adds them
     * (core/speed_ttft.h): the engine's time per request (kvplan's default,
     * in "before" only: a measured TTFT holds it, so the fitted MFU absorbs
     * it) and half the decode step of the others in flight (never fitted:
     * its step at full rates below, like the point's own) */
    double request_s;
    double wait_memory_s, wait_compute_s, wait_fixed_s, wait_stages;
    double predicted_s;   /* with the fitted figures */
    double before_s;      /* with the figures the fit started from (kvplan's own) */
    bool compute_binds;   /* with the fitted figures */
    bool waited;          /* a first token measured with other requests in flight
                           * (concurrency > 1): queued behind their steps, so it
                           * does not fit MFU */
};

/* The fractions of peak serving engines reach (calibrate warns outside). */
#define FIT_MBU_PLAUSIBLE_LOW 0.30
#define FIT_MBU_PLAUSIBLE_HIGH 0.95
#define FIT_MFU_PLAUSIBLE_LOW 0.15
#define FIT_MFU_PLAUSIBLE_HIGH 0.90

struct fit_result {
    double mbu, mfu, overhead_s;
    double mbu0, mfu0, overhead0_s; /* where the fit started */
    bool mbu_fitted, mfu_fitted, overhead_fitted;
    bool mbu_clamped, mfu_clamped; /* the fit passed 1 (or fell below 0.01) */
    bool overhead_refused;         /* the line's overhead came out below 0 or past 1 s: kept */
    int memory_points, compute_points; /* the points each fraction was fitted on */
    double rms, rms0;              /* relative residual, after and before, over the points
                                    * that did not wait */
};

/* Fits over the n points (at most FIT_POINTS_MAX) on the scenario base (GPU,
 * model, engine, layout): its own MBU, MFU and step overhead when set, else
 * kvplan's defaults, are where the fit starts; `fixed` (SPEED_CAL_ bits)
 * holds those figures as they are. Fails, with d, when the GPU has no
 * bandwidth figure or a point's step cannot be planned. */
bool speedfit_run(const struct scenario *base, unsigned fixed, struct fit_point *p, int n,
                  struct fit_result *out, struct diag *d);

/* The scenario of point p on base: its context, prompt and concurrency. */
void speedfit_scenario(const struct scenario *base, const struct fit_point *p, struct scenario *s);

#endif
