/* policy_sglang: what SGLang's rule (policy_sglang.c) takes from
 * policy_sglang_reserve.c, the default mem-fraction-static of
 * server_args.py. */
#ifndef KVPLAN_CORE_POLICY_SGLANG_H
#define KVPLAN_CORE_POLICY_SGLANG_H

#include "policy.h"

/* The reserve and the fraction as explain rows (none without c->x). */
void sglang_fraction_rows(const struct policy_ctx *c, double total_mb, uint64_t chunked,
                          uint32_t graph_bs);

/* The default fraction: (driver total - reserve) / driver total, rounded to
 * 3 decimals as server_args.py rounds it. */
double sglang_default_fraction(const struct policy_ctx *c, double total_mb, uint64_t chunked,
                               uint32_t graph_bs);

#endif
