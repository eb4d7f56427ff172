/* launch: a plan's launch line as the commands one runs when it spans
 * several nodes or servers: one line a node for vLLM's data parallel over
 * nodes (the head node's API server, headless engines on the others) and
 * for a replica wider than a node (--nnodes, --node-rank); one line a
 * server where each replica is a server of its own (llama.cpp, vLLM V0),
 * with its GPUs and port. Each engine's rule is its descriptor's
 * `servers` (core/engine_desc.h); a node holds the GPU's host's GPUs (placement_node_gpus: 8, a GB200 or
 * GB300 NVL72 tray 4). */
#ifndef KVPLAN_CORE_LAUNCH_H
#define KVPLAN_CORE_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>

#include "plan.h"

enum { LAUNCH_SERVERS_SHOWN = 64 }; /* the commands written out; the rest are counted */

/* How many commands the plan's launch line splits into; 0 when the launch
 * line alone is what one runs (one node, one server, or no launch line). */
int launch_servers(const struct plan_result *r);

/* Command k (from 0) into buf, whole; false when k is out of range or the
 * command does not fit (buf is then ""). */
bool launch_server(const struct plan_result *r, int k, char *buf, size_t size);

#endif
