/* policy_sglang_nodes: SGLang's commands over several nodes (core/launch.h),
 * from its own multi-node flags (python/sglang/srt/server_args.py):
 * --nnodes (the number of nodes), --node-rank (this node's), --dist-init-addr
 * (node 0's host:port, where the ranks meet) and --dp-size (alias --dp, the
 * data-parallel replicas). SGLang's launch (engine.py, _calculate_rank_ranges)
 * spreads one TP x PP group over the nodes given, so a replica wider than a
 * node is a server of its own over its nodes; replicas within a node are a
 * server a node, each with its node's --dp-size, behind a router. */
#include "policy.h"
#include "shell.h"

#include <stdio.h>
#include <string.h>

#include "speed.h"

enum { SGLANG_DIST_PORT = 20000 }; /* the port of SGLang's multi-node examples */

/* Replica k / span of a replica wider than a node: --nnodes, --node-rank and
 * node 0's address; DP attention keeps its --dp (the ranks of one replica). */
static int per_replica(const struct placement *l, const char *launch, uint32_t per, int k,
                       struct shell_line *out)
{
    uint32_t span = (per + placement_node_gpus(l) - 1) / placement_node_gpus(l);
    if (out == NULL)
        return (int)(span * l->replicas);
    uint32_t replica = (uint32_t)k / span, rank = (uint32_t)k % span;
    policy_server_args(out, launch, l->dp_attention ? NULL : "--dp");
    shell_option(out, "--nnodes", "%u", span);
    shell_option(out, "--node-rank", "%u", rank);
    shell_word(out, "--dist-init-addr");
    policy_head_address(out, "HEAD_IP", replica, l->replicas, SGLANG_DIST_PORT);
    policy_replica_node_comment(out, replica, l->replicas, rank, span, per);
    return (int)(span * l->replicas);
}

/* Node k of whole replicas to a node: a server of its own with the node's
 * replicas as its --dp-size. */
static int per_node(const struct placement *l, const char *launch, uint32_t per, int k,
                    struct shell_line *out)
{
    uint32_t local = placement_node_gpus(l) / per;
    uint32_t nodes = (l->replicas + local - 1) / local;
    if (out == NULL)
        return (int)nodes;
    uint32_t here = l->replicas - (uint32_t)k * local < local ? l->replicas - (uint32_t)k * local
                                                               : local;
    policy_server_args(out, launch, "--dp");
    if (here > 1)
        shell_option(out, "--dp-size", "%u", here);
    shell_comment(out, "  # node %d of %u: a server of its own (%u behind a router, "
                  "sglang_router)", k, nodes, nodes);
    return (int)nodes;
}

int policy_sglang_servers(const struct placement *l, const char *launch, int k,
                          struct shell_line *out)
{
    uint32_t per = l->tp * (l->pp ? l->pp : 1);
    if ((uint64_t)per * l->replicas <= placement_node_gpus(l))
        return 1;
    return per > placement_node_gpus(l) ? per_replica(l, launch, per, k, out)
                                     : per_node(l, launch, per, k, out);
}
