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

/* DeepSeek V4's compressed attention (policy_sglang_dsv4.c):
 * DSV4PoolConfigurator's full-token pool from `pool`, its rows, units_given
 * set; the max_running_requests it runs (256 unless given); its two log
 * lines. */
void sglang_dsv4_units(const struct policy_ctx *c, uint64_t pool, struct block_rule *b);
uint32_t sglang_dsv4_running(const struct scenario *s);
void sglang_dsv4_log(const struct policy_ctx *c);
const char *sglang_refuses_model(const struct scenario *s, enum scenario_field *at);
void sglang_dsv4_used(const struct policy_ctx *c); /* kv_used += the c128 state pool */
/* ... and its page, 256 whatever --page-size asks; *why says where. */
uint64_t sglang_dsv4_page(const char **why);

#endif
