/* policy_trtllm_nodes: TensorRT-LLM's commands over several nodes
 * (core/launch.h). trtllm-serve on one node starts its own MPI workers for
 * its TP x PP ranks; a replica wider than a node runs under MPI instead, one
 * process a GPU, each wrapped in trtllm-llmapi-launch, which starts the LLM
 * API's workers on the ranks MPI (or Slurm) gives it and the server on rank 0
 * (docs/source/commands/trtllm-serve/trtllm-serve.rst, "Multi-node Serving
 * with Slurm", and examples/llm-api/llm_mgmn_trtllm_serve.sh, 1.x: the MPI
 * processes as many as the model's world size, TP x PP). Replicas are servers
 * of their own, as trtllm-serve has no data parallel between them. */
#include "policy.h"
#include "shell.h"

#include <stdio.h>
#include <string.h>

#include "speed.h"

enum { TRTLLM_PORT = 8000 }; /* trtllm-serve's default --port */

/* A replica of `per` GPUs wider than a node: one mpirun from its first node,
 * its nodes' addresses "$NODE_i" with their GPUs in -H before the launch
 * line's -np (as many processes as GPUs, the ranks of TP x PP, each under
 * trtllm-llmapi-launch). */
static int per_replica(const struct placement *l, const char *launch, uint32_t per, int k,
                       struct shell_line *out)
{
    uint32_t node = placement_node_gpus(l), span = (per + node - 1) / node;
    if (out == NULL)
        return (int)l->replicas;
    uint32_t first = (uint32_t)k * span + 1;
    char hosts[256];
    size_t n = 0;
    for (uint32_t i = 0; i < span && n < sizeof hosts; i++) {
        uint32_t here = per - i * node < node ? per - i * node : node;
        n += (size_t)snprintf(hosts + n, sizeof hosts - n, "%s\"$NODE_%u\":%u", i ? "," : "",
                              first + i, here);
    }
    shell_word(out, "mpirun");
    shell_word(out, "-H");
    shell_raw(out, hosts, strlen(hosts) < sizeof hosts ? strlen(hosts) : sizeof hosts - 1);
    /* the launch line's own: "mpirun -np N trtllm-llmapi-launch trtllm-serve ..." */
    policy_server_args(out, strncmp(launch, "mpirun ", 7) == 0 ? launch + 7 : launch, NULL);
    if (l->replicas > 1)
        shell_comment(out, "  # replica %d of %u (a server of its own), run on NODE_%u; "
                      "NODE_%u..NODE_%u: its nodes' addresses (srun --mpi=pmix under Slurm)",
                      k + 1, l->replicas, first, first, first + span - 1);
    else
        shell_comment(out, "  # run on NODE_1; NODE_1..NODE_%u: the nodes' addresses "
                      "(srun --mpi=pmix under Slurm)", span);
    const char *options = strstr(launch, " --extra_llm_api_options:"); /* the remark's last */
    if (options)
        shell_comment(out, ";%s", options);
    return (int)l->replicas;
}

int policy_trtllm_servers(const struct placement *l, const char *launch, int k,
                          struct shell_line *out)
{
    uint32_t per = l->tp * (l->pp ? l->pp : 1);
    if (per == 0 || (uint64_t)per * l->replicas <= placement_node_gpus(l))
        return 1; /* one node: the launch line and its remark */
    /* replicas within a node over several: a server each on its node's GPUs
     * (CUDA_VISIBLE_DEVICES) and its own --port */
    return per > placement_node_gpus(l) ? per_replica(l, launch, per, k, out)
                                     : policy_servers_by_replica(l, launch, k, out, TRTLLM_PORT);
}
