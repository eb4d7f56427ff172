/* policy_vllm_nodes: vLLM's commands over several nodes (core/launch.h),
 * the flags its docs give for each layout; policy_vllm.c picks the layout. */
#include "policy.h"
#include "shell.h"

#include <stdio.h>
#include <string.h>

#include "speed.h"

/* The address every node's command names: the head node's (node 0's), set
 * in the shell before pasting ("HEAD_IP=10.0.0.1"); a replica of its own
 * has its own head. */
static void head_address(struct shell_line *out, uint32_t replica, uint32_t replicas)
{
    char ref[32];
    if (replicas > 1)
        snprintf(ref, sizeof ref, "\"$HEAD_IP_%u\"", replica + 1);
    else
        snprintf(ref, sizeof ref, "\"$HEAD_IP\"");
    shell_raw(out, ref, strlen(ref));
}

/* A replica wider than a node, as vLLM's multi-node guide runs it with its
 * multiprocessing executor (its parallel config's nnodes, node_rank and
 * master_addr): each replica a server of its own over its nodes, the head
 * node's with the API server and the others --headless; no data parallel
 * between them. */
int policy_vllm_nodes_per_replica(const struct placement *l, uint32_t per, int k,
                                  struct shell_line *out)
{
    uint32_t span = (per + SPEED_GPUS_PER_NODE - 1) / SPEED_GPUS_PER_NODE;
    if (out == NULL)
        return (int)(span * l->replicas);
    uint32_t replica = (uint32_t)k / span, rank = (uint32_t)k % span;
    shell_option(out, "--nnodes", "%u", span);
    shell_option(out, "--node-rank", "%u", rank);
    shell_word(out, "--master-addr");
    head_address(out, replica, l->replicas);
    if (rank > 0)
        shell_word(out, "--headless");
    if (l->replicas > 1)
        shell_comment(out, "  # replica %u of %u (a server of its own), node %u of %u; "
                      "HEAD_IP_%u: its node 0's address", replica + 1, l->replicas, rank, span,
                      replica + 1);
    else
        shell_comment(out, "  # node %u of %u; HEAD_IP: node 0's address", rank, span);
    return (int)(span * l->replicas);
}

/* The replicas over nodes, whole replicas to a node, as vLLM's data-parallel
 * deployment guide gives it (internal load balancing): one deployment, its
 * API server on node 0, the other nodes --headless, each with its ranks. */
int policy_vllm_replicas_over_nodes(const struct placement *l, uint32_t per, int k,
                                    struct shell_line *out)
{
    uint32_t local = SPEED_GPUS_PER_NODE / per;
    uint32_t nodes = (l->replicas + local - 1) / local;
    if (out == NULL)
        return (int)nodes;
    uint32_t start = (uint32_t)k * local;
    if (k > 0)
        shell_word(out, "--headless");
    shell_option(out, "--data-parallel-size-local", "%u",
                 l->replicas - start < local ? l->replicas - start : local);
    if (k > 0)
        shell_option(out, "--data-parallel-start-rank", "%u", start);
    shell_word(out, "--data-parallel-address");
    head_address(out, 0, 1);
    shell_option(out, "--data-parallel-rpc-port", "%u", 13345);
    shell_comment(out, "  # node %d of %u; HEAD_IP: node 0's address", k, nodes);
    return (int)nodes;
}
