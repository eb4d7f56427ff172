/* curve: users against context, 1k to 1M tokens in equal steps of log2,
 * everything else as in the scenario (plan_compute at each context); and
 * the chart's axes, both logarithmic, so that the planner and the SVG
 * export place the same points and label the same ticks. */
#ifndef KVPLAN_CORE_CURVE_H
#define KVPLAN_CORE_CURVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"

enum {
    CHART_POINTS = 61,
    CURVE_X_TICKS = 6,    /* 1k 4k 16k 64k 256k 1M: every two octaves */
    CURVE_Y_TICKS_MAX = 21 /* 1, 10, ... 10^20 */
};

struct users_curve {
    uint64_t context_tokens[CHART_POINTS];
    uint64_t users[CHART_POINTS];
    uint64_t users_slo[CHART_POINTS]; /* those that keep the service level */
    bool slo;                         /* a service level is set */
    uint64_t max_users;
};

/* The curve of scenario s (a context no longer than its shared prefix is no
 * scenario: 0 users there). */
void curve_compute(const struct scenario *s, struct users_curve *c);

/* Decades the users axis spans, from one user to its top: the peak's (at
 * least one decade, 1 to 10). Its ticks are the powers of ten within. */
double curve_span(uint64_t peak);
int curve_y_ticks(double span); /* 10^0 .. 10^(ticks - 1) */

/* Height of a count on the users axis, 0 (one user) .. 1 (its top);
 * -1 for none (nothing to draw). */
double curve_y(uint64_t users, double span);

/* Place of a context on the context axis, 0 (1k) .. 1 (1M); -1 outside it. */
double curve_x(uint64_t context_tokens);

/* The context at place fx (0 .. 1, clamped) of that axis: curve_x's inverse. */
uint64_t curve_context(double fx);

/* The label of the users tick 10^d ("1", "10", "100", "1,000", "10,000",
 * "100,000", then "1M", "10M", ...) and
 * of the context tick t ("1k" .. "1M"). */
void curve_y_label(int d, char *buf, size_t size);
const char *curve_x_label(int t);

#endif
