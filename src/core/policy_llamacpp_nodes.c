/* policy_llamacpp_nodes: llama.cpp's commands over several servers or nodes
 * (core/launch.h). A replica within a node is a llama-server of its own on
 * its GPUs and port (llama-server's --port, 8080 by default). A replica
 * wider than a node splits its layers over the other nodes' GPUs through
 * llama.cpp's RPC backend (tools/rpc/README.md): each other node runs
 * rpc-server (-H, -p; it exposes every GPU it sees), and node 0's
 * llama-server names them in --rpc host:port,... and splits the layers over
 * its own GPUs and theirs, in proportion to their free memory. */
#include "policy.h"
#include "shell.h"

#include <stdio.h>
#include <string.h>

#include "speed.h"

enum { RPC_PORT = 50052 }; /* rpc-server's default port */

/* Node `rank` of replica `replica`'s span: rpc-server on its GPUs, or on
 * node 0 llama-server with --rpc naming the others. */
static void rpc_node(const struct placement *l, const char *launch, uint32_t replica,
                     uint32_t rank, struct shell_line *out)
{
    uint32_t node = placement_node_gpus(l), span = (l->tp + node - 1) / node;
    uint32_t here = l->tp - rank * node < node ? l->tp - rank * node : node;
    policy_devices(out, 0, here);
    if (rank > 0) {
        shell_words(out, "rpc-server -H 0.0.0.0");
        shell_option(out, "-p", "%u", RPC_PORT);
        if (l->replicas > 1)
            shell_comment(out, "  # replica %u, node %u of %u: its GPUs to node 0's llama-server "
                          "(RPC)", replica + 1, rank, span);
        else
            shell_comment(out, "  # node %u of %u: its GPUs to node 0's llama-server (RPC)", rank,
                          span);
        return;
    }
    policy_server_args(out, launch, NULL);
    shell_word(out, "--rpc");
    char name[32], list[512] = "";
    size_t len = 0;
    for (uint32_t r = 1; r < span && len < sizeof list; r++) {
        struct shell_line one;
        char ref[64];
        shell_line_init(&one, ref, sizeof ref);
        snprintf(name, sizeof name, "NODE%u_IP", r);
        policy_head_address(&one, name, replica, l->replicas, RPC_PORT);
        shell_line_done(&one, NULL);
        len += (size_t)snprintf(list + len, sizeof list - len, r > 1 ? ",%s" : "%s", ref);
    }
    shell_raw(out, list, strlen(list));
    if (l->replicas > 1)
        shell_comment(out, "  # replica %u, node 0 of %u: the server, its layers on the nodes' "
                      "GPUs over RPC (NODEn_IP_%u: its node n's address)", replica + 1, span,
                      replica + 1);
    else
        shell_comment(out, "  # node 0 of %u: the server, its layers on the nodes' GPUs over RPC "
                      "(NODEn_IP: node n's address)", span);
}

int policy_llamacpp_servers(const struct placement *l, const char *launch, int k,
                            struct shell_line *out)
{
    uint32_t per = l->tp ? l->tp : 1, node = placement_node_gpus(l);
    if (per <= node)
        return policy_servers_by_replica(l, launch, k, out, 8080);
    uint32_t span = (per + node - 1) / node;
    if (out)
        rpc_node(l, launch, (uint32_t)k / span, (uint32_t)k % span, out);
    return (int)(span * l->replicas);
}
