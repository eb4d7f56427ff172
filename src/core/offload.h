/* offload: llama.cpp's placement of a model between the GPUs and host
 * memory, as its options ask it (-ngl, --n-cpu-moe, --no-kv-offload), the
 * host's memory and its bandwidth, and the split a plan chose (held in the
 * engine's detail, core/engine_detail.h). The arithmetic that fills a split
 * is in core/offload_fit.h; the CPU memory presets are here.
 *
 * Upstream (ggml-org/llama.cpp): src/llama-model.cpp load_tensors (i_gpu_start
 * = max(n_layer - n_gpu_layers, 0), act_gpu_layers = min(n_gpu_layers,
 * n_layer + 1): the last layers go to the GPUs, the output layer counts as
 * layer n_layer and is offloaded only when -ngl passes n_layer; the input
 * layer, the token embedding, always stays in host memory), common/arg.cpp
 * (--n-cpu-moe N: blk.i.ffn_(up|down|gate)_exps of layers i < N kept in the
 * CPU buffer type), src/llama-kv-cache.cpp (a layer's cache lives on its
 * layer's device when offload_kqv, in the CPU buffer type with
 * --no-kv-offload). */
#ifndef KVPLAN_CORE_OFFLOAD_H
#define KVPLAN_CORE_OFFLOAD_H

#include <stdbool.h>
#include <stdint.h>

/* -ngl as llama.cpp spells "all layers" (999 or "all") */
enum { OFFLOAD_NGL_ALL = 999 };

/* llama.cpp's micro-batch, n_ubatch (-ub, --ubatch-size; common/common.h
 * common_params: 512), and its n_batch (-b: 2048), which caps it
 * (src/llama-context.cpp: n_ubatch = min(n_batch, n_ubatch)) */
enum { OFFLOAD_UBATCH = 512, OFFLOAD_NBATCH = 2048 };

/* What the scenario asks; zero means llama.cpp's defaults (every layer that
 * fits on the GPUs, no experts kept back, the cache beside its layers). */
struct offload_opts {
    bool ngl_given;            /* --n-gpu-layers given: no search over the layers */
    uint32_t ngl;              /* as given; 999 = all */
    bool n_cpu_moe_given;      /* --n-cpu-moe given: no search over the experts */
    uint32_t n_cpu_moe;        /* the first N layers' experts in host memory */
    bool no_kv_offload;        /* --no-kv-offload: the whole cache in host memory */
    uint64_t host_memory_bytes; /* the host's RAM; 0 = unknown (not checked) */
    bool host_memory_read;     /* read from this machine (not kept in a snapshot) */
    double host_bytes_per_s;   /* host memory bandwidth; 0 = the default preset's */
    char cpu[32];              /* the --cpu preset in use; "" = none given */
    uint32_t ubatch;           /* --ubatch (-ub): n_ubatch; 0 = OFFLOAD_UBATCH */
};

/* A preset of host memory: its 64-bit channels of DDR (or of Apple's LPDDR) at a data rate. */
struct cpu_preset {
    const char *id;            /* "ddr5-4800-2ch" */
    const char *name;          /* "DDR5-4800, dual channel (desktop)" */
    uint32_t channels;         /* 64-bit channels */
    uint32_t mt_per_s;         /* transfers a second, millions */
    const char *source;
};

/* The presets, and the one used when neither --cpu nor --host-bandwidth is
 * given. A preset's bandwidth is channels x 8 bytes x transfers a second. */
const struct cpu_preset *offload_cpu_presets(int *count);
const struct cpu_preset *offload_cpu_find(const char *id);
const struct cpu_preset *offload_cpu_default(void);
double offload_cpu_bandwidth(const struct cpu_preset *p);

/* The share of the host's peak bandwidth a CPU decode step reaches: a
 * round figure, checked (not fitted) against the public measurements of
 * tests/data/offload-bench.json (three within 20%). */
#define OFFLOAD_HOST_MBU 0.6

/* The GPU's host link when its preset gives none (host_link_bytes_per_s):
 * PCIe Gen4 x16, 32 GB/s each way, theoretical (PCI-SIG's 16 GT/s a lane
 * x 16 lanes), as the consumer and workstation cards of 2020 on have it or
 * better. A prefill's op offload copies the host layers over it. */
#define OFFLOAD_LINK_DEFAULT 32e9

/* The split a plan chose; all zero when llama.cpp did not place the model
 * (placed false: another engine, or a logged non-KV figure). Placed with
 * every layer on the GPUs, only the token embedding is in host memory
 * (active false). Weights and KV: per GPU on the GPU side, the whole
 * replica's on the host side. */
struct offload_split {
    bool placed;               /* the figures below are filled */
    bool active;               /* layers, experts or the cache in host memory too */
    bool searched;             /* -ngl or --n-cpu-moe chosen by the fit search */
    bool found;                /* the search found a split that fits */
    uint32_t n_layer;          /* repeating layers (the output layer is layer n_layer) */
    uint32_t ngl;              /* -ngl in effect, at most n_layer + 1 */
    uint32_t gpu_layers;       /* repeating layers on the GPUs */
    bool output_on_gpu;
    bool output_first;         /* -ngl counts the output layer first (llama.cpp from PR #18148) */
    uint32_t n_cpu_moe;        /* --n-cpu-moe in effect (0: none) */
    uint32_t moe_host_layers;  /* GPU layers whose experts --n-cpu-moe keeps in host memory */
    uint32_t moe_gpu_layers;   /* GPU layers whose experts stay on the GPUs */
    bool moe_layers_dense;     /* some layers dense (core/spec.h's MoE pattern) */
    bool kv_on_host;           /* --no-kv-offload */
    bool exact;                /* the figures from the GGUF's bytes by block (core/spec.h) */
    uint64_t gpu_layers_bytes; /* exact: the GPU layers' tensors, --n-cpu-moe's experts out */
    uint64_t embed_bytes;      /* the token embedding (always in host memory) */
    uint64_t output_bytes;     /* the output layer (a copy when tied to the embedding) */
    uint64_t layer_bytes;      /* one repeating layer, its experts included */
    uint64_t layer_expert_bytes; /* one MoE layer's routed experts */
    uint64_t layer_rest_bytes;   /* one layer outside the experts (its average) */
    uint64_t gpu_weights_bytes;  /* per GPU, the draft's included */
    uint64_t gpu_expert_bytes;   /* of those, routed experts */
    uint64_t host_weights_bytes;
    uint64_t host_expert_bytes;  /* of host_weights, routed experts */
    uint64_t gpu_kv_bytes;       /* per GPU */
    uint64_t host_kv_bytes;
    uint64_t host_kv_user_avg_bytes; /* one user's cache there at the average length */
    uint64_t host_bytes;         /* weights + KV in host memory, one server's */
    /* The host is one a node: its servers (replicas, SPEC_GPUS_PER_NODE GPUs a
     * node) share its memory, each server's host bytes counted (a server
     * holds its own under --no-mmap or repacked CPU weights; mmap may share
     * one file's pages, so for the weights the sum is an upper bound), and
     * its bandwidth, split evenly among the servers decoding at once: every
     * one of them in the plan's steady state, fewer only when --concurrency
     * is less. A prefill's copies go over each GPU's own link. */
    uint32_t node_servers;       /* servers on one node (at least 1) */
    uint32_t host_readers;       /* of those, reading host memory at once (at least 1) */
    uint64_t node_host_bytes;    /* host_bytes x node_servers */
    uint64_t host_memory_bytes;  /* the node's, when host_memory_known */
    /* a size to check against: given, read, or on unified memory computed
     * (where 0 B is what is left, not unknown) */
    bool host_memory_known;
    bool host_fits;              /* node_host_bytes within host_memory (or it is unknown) */
    double host_bytes_per_s;     /* the host memory's peak bandwidth, the node's */
    double link_bytes_per_s;     /* GPU to host, for prefill's weight copies; 0 = none */
    bool link_assumed;           /* OFFLOAD_LINK_DEFAULT: the GPU preset gives no host link */
    bool unified;                /* Apple silicon: the CPU reads the GPU's own memory */
    /* Unified memory: the RAM less macOS's reserve (os_reserve_bytes), which
     * the GPU's part (gpu_part_bytes) and host_bytes share; host_memory_bytes
     * is what the GPU's part of this split leaves of it. 0 elsewhere. */
    uint64_t unified_pool_bytes;
    uint64_t os_reserve_bytes;
    uint64_t gpu_buffers_bytes;  /* per GPU: the compute buffers beside weights and cache */
    uint32_t tp;                 /* GPUs the GPU side spans (the cache's part over them) */
    uint64_t gpu_lack_bytes;     /* a split tried: what its weights and cache lack per GPU */
    uint32_t ubatch;             /* n_ubatch: a prefill's copies go once per this many tokens */
};

/* The share of the cache of a replica that lives on its GPUs: 0 with
 * --no-kv-offload, else the share of the layers there. */
double offload_kv_gpu_share(const struct offload_split *o);

/* The share of the host's peak bandwidth the CPU layers reach: OFFLOAD_HOST_MBU,
 * but on unified memory at most the GPU's own mbu (assumed: the CPU cores
 * of an M-series chip reach less of the shared bus than its GPU). */
double offload_host_mbu(const struct offload_split *o, double gpu_mbu);

#endif
