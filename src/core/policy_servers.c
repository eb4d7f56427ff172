/* policy_servers: the pieces of the commands a launch line splits into over
 * several nodes or servers (core/launch.h), shared by the engines' rules. */
#include "policy.h"
#include "shell.h"

#include <stdio.h>
#include <string.h>

#include "speed.h"

void policy_server_args(struct shell_line *out, const char *launch, const char *drop)
{
    const char *p = launch;
    bool skip = false; /* the value of the option dropped */
    while (*p) {
        while (*p == ' ')
            p++;
        if (*p == '\0' || *p == '#') /* the remark: each command says its own */
            break;
        const char *end = shell_word_end(p);
        size_t n = (size_t)(end - p);
        if (skip)
            skip = false;
        else if (drop && n == strlen(drop) && strncmp(p, drop, n) == 0)
            skip = true;
        else
            shell_raw(out, p, n);
        p = end;
    }
}

void policy_devices(struct shell_line *out, uint32_t first, uint32_t count)
{
    char devices[96];
    size_t len = 0;
    for (uint32_t g = first; g < first + count && len < sizeof devices; g++)
        len += (size_t)snprintf(devices + len, sizeof devices - len, g > first ? ",%u" : "%u", g);
    shell_wordf(out, "CUDA_VISIBLE_DEVICES=%s", devices);
}

void policy_head_address(struct shell_line *out, const char *name, uint32_t replica,
                         uint32_t replicas, unsigned port)
{
    char ref[48];
    int n = replicas > 1 ? snprintf(ref, sizeof ref, "\"$%s_%u\"", name, replica + 1)
                         : snprintf(ref, sizeof ref, "\"$%s\"", name);
    if (port)
        snprintf(ref + n, sizeof ref - (size_t)n, ":%u", port);
    shell_raw(out, ref, strlen(ref));
}

void policy_replica_node_comment(struct shell_line *out, uint32_t replica, uint32_t replicas,
                                 uint32_t rank, uint32_t span, uint32_t per)
{
    /* the engines that take --nnodes spread the ranks evenly, per / span a
     * node, in order (vLLM's local_world_size; SGLang's pp_size // nnodes
     * stages a node) */
    uint32_t here = span ? per / span : per, first = rank * here;
    char gpus[64];
    snprintf(gpus, sizeof gpus, "%u GPU%s, ranks %u-%u", here, here == 1 ? "" : "s", first,
             first + here - 1);
    if (replicas > 1)
        shell_comment(out, "  # replica %u of %u (a server of its own), node %u of %u (%s); "
                      "HEAD_IP_%u: its node 0's address", replica + 1, replicas, rank, span, gpus,
                      replica + 1);
    else
        shell_comment(out, "  # node %u of %u (%s); HEAD_IP: node 0's address", rank, span, gpus);
}

int policy_servers_by_replica(const struct placement *l, const char *launch, int k,
                              struct shell_line *out, unsigned port0)
{
    uint32_t per = (l->tp ? l->tp : 1) * (l->pp ? l->pp : 1), node = placement_node_gpus(l);
    if (l->replicas <= 1 || per > node)
        return 1;
    if (out == NULL)
        return (int)l->replicas;
    uint32_t per_node = node / per, nodes = (l->replicas + per_node - 1) / per_node;
    uint32_t slot = (uint32_t)k % per_node;
    policy_devices(out, slot * per, per);
    policy_server_args(out, launch, NULL);
    shell_option(out, "--port", "%u", port0 + slot);
    if (nodes > 1)
        shell_comment(out, "  # server %d of %u, on node %u of %u", k + 1, l->replicas,
                      (uint32_t)k / per_node, nodes);
    else
        shell_comment(out, "  # server %d of %u", k + 1, l->replicas);
    return (int)l->replicas;
}
