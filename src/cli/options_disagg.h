/* options_disagg: simulate's and solve's options of a disaggregated
 * deployment (core/sim_disagg.h): its two pools (GPU, count, TP each) and
 * the link between them. Their ids go into enum option_id and their rows
 * into the option table by the two macros below, so that the shared table
 * takes one line each; the names are those serving engineers use
 * (doc/MODEL.md says whose). */
#ifndef KVPLAN_CLI_OPTIONS_DISAGG_H
#define KVPLAN_CLI_OPTIONS_DISAGG_H

#include <stdbool.h>
#include <stdint.h>

#include "core/plan.h"
#include "core/sim_disagg.h"
#include "io/catalog.h"

struct option_row;
struct options;

/* In enum option_id, before OPT_HELP. */
#define OPT_DISAGG_IDS                                                                        \
    OPT_DISAGGREGATED, OPT_NO_DISAGGREGATED, OPT_PREFILL_GPU, OPT_PREFILL_GPUS,               \
        OPT_PREFILL_TP, OPT_DECODE_GPU, OPT_DECODE_GPUS, OPT_DECODE_TP, OPT_KV_LINK,          \
        OPT_KV_TRANSFER_BANDWIDTH, OPT_KV_TRANSFER_LATENCY,

/* The most GPUs in a pool, and the largest TP. */
enum { DISAGG_MAX_GPUS = 4096, DISAGG_MAX_TP = 64 };

struct disagg_options {
    const char *prefill_gpu, *decode_gpu; /* preset ids; NULL: the scenario's GPU */
    uint32_t prefill_gpus, prefill_tp, decode_gpus, decode_tp;
    enum sim_link link;
    double bandwidth_gbs; /* GB/s (10^9 bytes), one GPU's link, each way */
    double latency_ms;
};

/* --kv-link: nvlink, ib or roce. */
bool opt_kv_link(const struct option_row *row, const char *arg, struct options *o,
                 struct diag *d);

/* The rows, in the option table (options_table.c's macros). */
#define DISAGG_OPTION_ROWS                                                                    \
    [OPT_DISAGGREGATED] = {OPTNAME_DISAGGREGATED, .commands = SIMULATE | CMD_BIT(CMD_SOLVE),  \
                           .section = "Disaggregated prefill and decode (doc/MODEL.md):\n",   \
                           .help = "simulate: prefill and decode on separate pools, the KV\n" \
                                   "moved between them, beside the aggregated deployment\n"  \
                                   "of the same GPUs; solve: the answer an xPyD split"},     \
    [OPT_NO_DISAGGREGATED] = {OPTNAME_NO_DISAGGREGATED, .commands = CMD_BIT(CMD_SOLVE),       \
                              .help = "solve: aggregated layouts only (no xPyD splits)"},     \
    [OPT_PREFILL_GPU] = {OPTNAME_PREFILL_GPU, .commands = SIMULATE | CMD_BIT(CMD_SOLVE),      \
                         .parse = opt_string, .offset = AT(disagg.prefill_gpu),               \
                         .metavar = "ID", .complete = COMPLETE_GPU,                           \
                         .help = "the prefill pool's GPU (default --gpu's)"},                 \
    [OPT_PREFILL_GPUS] = {OPTNAME_PREFILL_GPUS, .commands = SIMULATE, .parse = opt_count32,   \
                          .min = 1, .max = DISAGG_MAX_GPUS, .offset = AT(disagg.prefill_gpus), \
                          .metavar = "N",                                                     \
                          .help = "GPUs of the prefill pool (default its TP: one instance)"}, \
    [OPT_PREFILL_TP] = {OPTNAME_PREFILL_TP, .commands = SIMULATE, .parse = opt_count32,       \
                        .min = 1, .max = DISAGG_MAX_TP, .offset = AT(disagg.prefill_tp),      \
                        .metavar = "N", .help = "a prefill instance's TP (default --tp, or 1)"}, \
    [OPT_DECODE_GPU] = {OPTNAME_DECODE_GPU, .commands = SIMULATE | CMD_BIT(CMD_SOLVE),        \
                        .parse = opt_string, .offset = AT(disagg.decode_gpu), .metavar = "ID", \
                        .complete = COMPLETE_GPU,                                             \
                        .help = "the decode pool's GPU (default --gpu's)"},                   \
    [OPT_DECODE_GPUS] = {OPTNAME_DECODE_GPUS, .commands = SIMULATE, .parse = opt_count32,     \
                         .min = 1, .max = DISAGG_MAX_GPUS, .offset = AT(disagg.decode_gpus),  \
                         .metavar = "N",                                                      \
                         .help = "GPUs of the decode pool (default its TP: one instance)"},   \
    [OPT_DECODE_TP] = {OPTNAME_DECODE_TP, .commands = SIMULATE, .parse = opt_count32,         \
                       .min = 1, .max = DISAGG_MAX_TP, .offset = AT(disagg.decode_tp),        \
                       .metavar = "N", .help = "a decode instance's TP (default --tp, or 1)"},  \
    [OPT_KV_LINK] = {OPTNAME_KV_LINK, .commands = SIMULATE | CMD_BIT(CMD_SOLVE),              \
                     .parse = opt_kv_link, .metavar = "L", .complete = COMPLETE_WORDS,        \
                     .words = "nvlink ib roce",                                               \
                     .help = "the KV's link: nvlink (the GPUs' interconnect, one NVLink\n"    \
                             "domain), ib (InfiniBand, default) or roce (400 Gb/s a GPU)"},  \
    [OPT_KV_TRANSFER_BANDWIDTH] = {OPTNAME_KV_TRANSFER_BANDWIDTH,                             \
                                   .commands = SIMULATE | CMD_BIT(CMD_SOLVE),                 \
                                   .parse = opt_rate, .offset = AT(disagg.bandwidth_gbs),     \
                                   .metavar = "GB/s",                                         \
                                   .help = "one GPU's link, each way, instead of --kv-link's\n" \
                                           "(inf: the KV arrives at once)"},                  \
    [OPT_KV_TRANSFER_LATENCY] = {OPTNAME_KV_TRANSFER_LATENCY,                                 \
                                 .commands = SIMULATE | CMD_BIT(CMD_SOLVE),                   \
                                 .parse = opt_number, .lo = 0, .hi = 1e6,                     \
                                 .offset = AT(disagg.latency_ms), .metavar = "MS",            \
                                 .help = "milliseconds before a transfer's first byte,\n"     \
                                         "instead of --kv-link's"},

/* The prefill and decode pools' scenarios from base (the options' own) and
 * the options: each its GPU from the catalogue, its count and TP; and the
 * link's rate (bytes a second) and latency (seconds). False with d naming
 * the option. */
struct disagg_pools {
    struct scenario prefill, decode;
    enum sim_link link;
    double bytes_per_s, latency;
};
bool disagg_pools_of_options(const struct options *o, const struct catalog *cat,
                             const struct scenario *base, struct disagg_pools *out,
                             struct diag *d);

#endif
