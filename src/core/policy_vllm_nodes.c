/* policy_vllm_nodes: vLLM's commands over several nodes (core/launch.h),
 * the flags its docs give for each layout; policy_vllm.c picks the layout. */
#include "policy.h"
#include "shell.h"

#include <stdio.h>
#include <string.h>

#include "speed.h"

/* A replica wider than a node, as vLLM's multi-node guide runs it with its
 * multiprocessing executor (its parallel config's nnodes, node_rank and
 * master_addr): each replica a server of its own over its nodes, the head
 * node's with the API server and the others --headless; no data parallel
 * between them. */
int policy_vllm_nodes_per_replica(const struct placement *l, uint32_t per, int k,
                                  struct shell_line *out)
{
    uint32_t span = (per + placement_node_gpus(l) - 1) / placement_node_gpus(l);
    if (out == NULL)
        return (int)(span * l->replicas);
    uint32_t replica = (uint32_t)k / span, rank = (uint32_t)k % span;
    shell_option(out, "--nnodes", "%u", span);
    shell_option(out, "--node-rank", "%u", rank);
    shell_word(out, "--master-addr");
    policy_head_address(out, "HEAD_IP", replica, l->replicas, 0);
    if (rank > 0)
        shell_word(out, "--headless");
    policy_replica_node_comment(out, replica, l->replicas, rank, span, per);
    return (int)(span * l->replicas);
}

/* The replicas over nodes, whole replicas to a node, as vLLM's data-parallel
 * deployment guide gives it (internal load balancing): one deployment, its
 * API server on node 0, the other nodes --headless, each with its ranks. */
int policy_vllm_replicas_over_nodes(const struct placement *l, uint32_t per, int k,
                                    struct shell_line *out)
{
    uint32_t local = placement_node_gpus(l) / per;
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
    policy_head_address(out, "HEAD_IP", 0, 1, 0);
    shell_option(out, "--data-parallel-rpc-port", "%u", 13345);
    shell_comment(out, "  # node %d of %u; HEAD_IP: node 0's address", k, nodes);
    return (int)nodes;
}
