/* spec: what a GPU and a model are, as far as capacity planning cares.
 *
 * Plain data, filled by io/ from presets or snapshots and never modified by
 * core. Strings are fixed-size so specs copy by value. */
#ifndef KVPLAN_CORE_SPEC_H
#define KVPLAN_CORE_SPEC_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "dtype.h"

/* A Hugging Face id: a name of up to 96 characters, after an owner of as many
 * and a '/' (spec_hf_id_valid). */
enum { SPEC_ID_MAX = 64, SPEC_NAME_MAX = 96, SPEC_TEXT_MAX = 512, SPEC_HF_ID_MAX = 96 + 1 + 96 + 1,
       SPEC_SERVED_MAX = 4 };

/* The most repeating layers whose exact bytes a preset keeps (import-gguf;
 * the catalogue's deepest model has 126), and the most different sizes
 * among them (a quantization mix gives a few: Q4_K_M's blocks with and
 * without Q6_K tensors, dense and MoE blocks). */
enum { SPEC_LAYER_BYTES_MAX = 128, SPEC_LAYER_SIZES_MAX = 8 };

enum attention_kind {
    ATTENTION_MHA = 0, /* every query head has its own K/V head */
    ATTENTION_GQA,     /* query heads share K/V heads in groups */
    ATTENTION_MQA,     /* one K/V head for all query heads */
    ATTENTION_MLA      /* one compressed latent per layer (DeepSeek) */
};

struct gpu_spec {
    char id[SPEC_ID_MAX];
    char name[SPEC_NAME_MAX];
    char vendor[SPEC_ID_MAX];
    /* The GPU family the speed model's measured spread is kept by
     * (core/speedband.h): its architecture, "Hopper", "CDNA 3"; "" = none. */
    char family[SPEC_ID_MAX];
    char memory_label[SPEC_ID_MAX]; /* as marketed: "80 GB" */
    char memory_basis[SPEC_NAME_MAX]; /* where memory_bytes comes from */
    char source[SPEC_TEXT_MAX];
    uint64_t memory_bytes;          /* total the driver reports, per GPU */
    uint64_t bandwidth_bytes_per_s; /* memory bandwidth, per GPU; 0 = unknown */
    bool fp8;                       /* native FP8 support */
    double price_usd_per_hour;      /* per GPU; < 0 = unknown */
    uint64_t cuda_visible_bytes;    /* what cudaMemGetInfo reports as total; 0 = unknown */
    char price_date[SPEC_ID_MAX];
    /* Dense peak compute per GPU, by precision; 0 = unknown or unsupported. */
    double tflops_bf16, tflops_fp8, tops_int8, tflops_fp4;
    /* Apple silicon, which has no published peak: the FP16 matrix throughput
     * llama.cpp reaches in prefill (pp512), derived from measurements or
     * scaled from a measured chip by GPU cores (tools/fit_apple.py).
     * Used in full (no MFU below it) when tflops_bf16 is 0; 0 = none. */
    double tflops_measured;
    char tflops_measured_basis[SPEC_TEXT_MAX];
    /* Apple silicon under llama.cpp: the fixed time each layer adds to a step
     * (its Metal kernels' dispatch), fitted with achievable_mbu on llama-bench
     * tg128 (tools/fit_apple.py); 0 = none. */
    double layer_overhead_s;
    char layer_overhead_basis[SPEC_NAME_MAX * 2];
    uint64_t link_bytes_per_s;      /* GPU-to-GPU bandwidth in a node, each way; 0 = unknown */
    /* Fraction of bandwidth serving engines reach in decode on this family,
     * measured (doc/SPEED-VALIDATION.md); 0 = use the global default. */
    double achievable_mbu;
    char achievable_mbu_basis[SPEC_NAME_MAX * 2];
    /* Fraction of dense_bf16_tflops llama.cpp's prefill (llama-bench pp512,
     * F16 weights) reaches on this GPU, fitted on its measurements
     * (tools/fit_mfu.py, doc/SPEED-VALIDATION.md); llama.cpp only, the
     * serving engines keep SPEED_DEFAULT_MFU. 0 = none. */
    double achievable_mfu;
    char achievable_mfu_basis[SPEC_NAME_MAX * 2];
    /* The GPU's link to host memory, one direction, theoretical peak (PCIe
     * generation x lanes, or NVLink-C2C on Grace parts); 0 = unknown. What a
     * user's cache parked in host memory crosses to come back. */
    uint64_t host_link_bytes_per_s;
    char host_link_basis[SPEC_NAME_MAX * 2]; /* "PCIe Gen5 x16: 64 GB/s each way" */
    /* Apple silicon: the memory the GPU shares with the CPU; memory_bytes is
     * then the part Metal lets the GPU use by default (spec_metal_working_set).
     * 0 = the GPU's memory is its own. */
    uint64_t unified_bytes;
    /* GPUs one NVLink domain joins, where it spans more than a node (GB200
     * NVL72: 72): tensor and expert parallel within it run at link_bytes_per_s.
     * 0 = a node of SPEC_GPUS_PER_NODE. */
    uint32_t nvlink_domain_gpus;
    /* GPUs one host holds, where not SPEC_GPUS_PER_NODE: a GB200 or GB300
     * NVL72 compute tray has 4 (its launch lines a node a tray). 0 = 8. */
    uint32_t gpus_per_node;
    /* Streaming multiprocessors (AMD: compute units), as
     * torch.cuda.get_device_properties().multi_processor_count reports them
     * and vLLM's num_compute_units returns them (vLLM's Triton top-k/top-p
     * buffer has a row per SM, policy_vllm_profile.c); 0 = unknown. */
    uint32_t sm_count;
    char sm_count_basis[SPEC_NAME_MAX * 2]; /* where sm_count comes from */
};

/* GPUs one node holds (DGX/HGX H100, H200, B200; MI300X platforms). */
#define SPEC_GPUS_PER_NODE 8

/* The GPUs of g's host (gpus_per_node, else SPEC_GPUS_PER_NODE). */
uint32_t spec_gpu_node(const struct gpu_spec *g);

/* The first release of an engine that serves a model (a preset's
 * served_from, {"vllm": "0.11.0", "llama.cpp": "b6500"}: an engine's name and
 * its release or build; "" ends the list) and where those are read
 * (served_from_source): an older release asked for (--engine vllm@0.10) is
 * refused by name (scenario_validate). */
struct model_served {
    char engine[SPEC_SERVED_MAX][12];
    char first[SPEC_SERVED_MAX][16];
    char source[SPEC_TEXT_MAX];
};

struct model_spec {
    char id[SPEC_ID_MAX];
    char name[SPEC_NAME_MAX];
    char hf_id[SPEC_HF_ID_MAX]; /* "" or a valid Hugging Face id (spec_hf_id_valid) */
    char source[SPEC_TEXT_MAX];
    enum attention_kind attention;
    uint32_t layers;
    uint32_t hidden_size;
    uint32_t attention_heads;
    uint32_t kv_heads;
    uint32_t head_dim; /* explicit when the config gives it; ignored for MLA */
    /* MLA only: the latent cached per layer is kv_lora_rank + qk_rope_head_dim. */
    uint32_t kv_lora_rank;
    uint32_t qk_rope_head_dim;
    uint32_t qk_nope_head_dim; /* MLA: per-head K/V sizes when expanded (pre-MLA engines) */
    uint32_t v_head_dim;
    uint32_t q_lora_rank;      /* MLA: the queries' low-rank width; 0 = projected directly */
    /* Sliding window: `windowed_layers` of the layers hold at most
     * `window_tokens` tokens; 0 windowed layers = full attention everywhere. */
    uint32_t windowed_layers;
    uint64_t window_tokens;
    char window_pattern[SPEC_ID_MAX]; /* "5 local : 1 global"; "chunked" in it: chunked local
                                       * attention (Llama 4), not a sliding window */
    /* Gemma 4: the global (full-attention) layers, those past windowed_layers,
     * keep global_kv_heads heads of global_head_dim each (0: the windowed
     * layers' kv_heads and head_dim); with global_k_eq_v their keys are their
     * values (no v_proj), one row a head for both. */
    uint32_t global_kv_heads, global_head_dim;
    bool global_k_eq_v;
    /* DeepSeek V4's compressed attention (config compress_ratios): every layer
     * keeps its last window_tokens tokens (sliding_window, windowed_layers =
     * num_layers) as rows of head_dim values, one row a token for the key and
     * the value, the last qk_rope_head_dim of them positional; csa_layers also
     * keep one compressed row per csa_ratio tokens, each with a lightning
     * indexer key of csa_index_dim values (csa_index_heads query heads pick
     * csa_index_topk rows), and hca_layers one compressed row per hca_ratio
     * tokens. The compressor holds the tokens not yet compressed (kvcost.h).
     * No csa and hca layers: none. */
    uint32_t csa_layers, hca_layers, csa_ratio, hca_ratio;
    uint32_t csa_index_dim, csa_index_heads;
    uint64_t csa_index_topk;
    uint64_t params;        /* total parameter count */
    uint64_t active_params; /* per token, for MoE; 0 = dense (same as params) */
    enum dtype weight_dtype; /* as released */
    /* Bytes of the released checkpoint when it is not params x dtype
     * (MXFP4 experts, FP8 block-scaled weights); 0 = params x dtype. */
    uint64_t weights_bytes;
    uint64_t max_context_tokens;
    uint32_t vocab_size;        /* 0 = unknown; sizes logits in engine estimates */
    uint32_t intermediate_size; /* 0 = unknown */
    /* Mixture of experts: routed experts per MoE layer, how many a token
     * uses, and the parameters they hold in all (0 = dense). */
    uint32_t experts, experts_per_token;
    uint64_t expert_params;
    /* Which layers hold the experts, the others a dense MLP: layer i (from 0)
     * when i >= moe_first_dense and i % moe_period == moe_offset (period 0 or
     * 1: every layer past the dense ones). DeepSeek's first_k_dense_replace
     * and moe_layer_freq, Jamba's expert_layer_period and _offset, Llama 4's
     * interleave_moe_layer_step and Qwen's decoder_sparse_step (period N,
     * offset N - 1). */
    uint32_t moe_first_dense, moe_period, moe_offset;
    /* DeepSeek sparse attention (V3.2), MLA only: a lightning indexer keeps one
     * key of index_head_dim values per token per layer beside the latent, and
     * attention reads the index_topk tokens it picks (0 = dense attention). */
    uint32_t index_head_dim, index_n_heads;
    uint64_t index_topk;
    /* Multi-token prediction (DeepSeek-V3 num_nextn_predict_layers): MTP
     * layers shipped beside the model, and their parameters (one decoder
     * layer each with its MoE, plus eh_proj and norms; the embedding and
     * head are shared with the model); 0 = none. */
    uint32_t nextn_layers;
    uint64_t mtp_params;
    /* State-space and linear-attention layers (Mamba, Mamba-2, gated
     * DeltaNet): `state_layers` of the layers keep a fixed state per
     * sequence and no KV; `plain_layers` keep neither (Nemotron-H's MLP
     * blocks); the rest are attention layers and keep KV. One state layer
     * holds a convolution state of (state_conv_kernel - 1) x (state_heads x
     * state_head_dim + 2 x state_groups x state_size) values and a recurrent
     * state of state_heads x state_head_dim x state_size values:
     *   Mamba-2: heads, head_dim, n_groups, d_state;
     *   gated DeltaNet: value heads, value head dim, key heads, key head dim;
     *   Mamba-1: intermediate channels, 1, 0, d_state. */
    uint32_t state_layers, plain_layers;
    uint32_t state_conv_kernel, state_heads, state_head_dim, state_groups, state_size;
    enum dtype state_dtype;          /* the recurrent state as the config asks; AUTO = the model's */
    char state_kind[SPEC_ID_MAX / 4]; /* "mamba2", "gated-deltanet", "mamba" */
    bool state_parallel; /* Falcon-H1: the state layers are also attention layers (side by side) */
    /* Vision models: the tokens one image takes in the prompt when the config
     * fixes it (Gemma 3's mm_tokens_per_image); 0 = none or it varies. */
    uint32_t image_tokens_per_image;
    /* Two MLP matrices (up, then down: Falcon dense_h_to_4h/dense_4h_to_h, OPT
     * fc1/fc2, MPT up_proj/down_proj) rather than gate, up and down; preset
     * "mlp": "ungated". Only LoRA reads it (the parameter count comes from
     * params.c's families). */
    bool mlp_ungated;
    /* From a GGUF file (import-gguf): its base name, for launch lines ("" =
     * none: the launch names <id>.gguf), and its tensors' exact bytes for
     * llama.cpp's placement: the token embedding, the output layer with the
     * other tensors outside the blocks (the embedding's copy when the output
     * is tied to it), and each block blk.i's, of those its routed experts.
     * layer_bytes_count 0 (or not `layers`) = unknown: even shares. */
    char gguf_file[SPEC_NAME_MAX];
    /* The Ollama library's name of the model ("llama3.1:8b": its default tag
     * is Q4_K_M), for Ollama's launch line; "" = none in the library. */
    char ollama_tag[SPEC_NAME_MAX];
    /* The first releases that serve the model (struct model_served), kept
     * once for the process: a spec is copied by value at every step of the
     * planner, and a scenario holds two; NULL none. */
    const struct model_served *served;
    uint32_t layer_bytes_count;
    uint64_t embed_bytes, output_bytes;
    /* each block's size as an index into the sizes (spec_layer_bytes): the
     * spec stays small enough to copy by value */
    uint8_t layer_size[SPEC_LAYER_BYTES_MAX];
    uint8_t layer_sizes;
    uint64_t size_bytes[SPEC_LAYER_SIZES_MAX], size_expert_bytes[SPEC_LAYER_SIZES_MAX];
};

/* Block i's exact bytes and, of those, its routed experts' (0 when the
 * model keeps none: layer_bytes_count 0). */
uint64_t spec_layer_bytes(const struct model_spec *m, uint32_t i);
uint64_t spec_layer_expert_bytes(const struct model_spec *m, uint32_t i);
/* Sets block i's bytes (i < SPEC_LAYER_BYTES_MAX); false when the blocks
 * would have more than SPEC_LAYER_SIZES_MAX different sizes. */
bool spec_set_layer_bytes(struct model_spec *m, uint32_t i, uint64_t bytes, uint64_t experts);

/* Layers that keep KV: all but the state and plain layers (all but the
 * plain ones when state and attention sit side by side). */
uint32_t spec_kv_layers(const struct model_spec *m);

/* Whether layer i holds routed experts (false for a dense model), and how
 * many of the layers [from, to) do. */
bool spec_moe_layer(const struct model_spec *m, uint32_t i);
uint32_t spec_moe_layers_in(const struct model_spec *m, uint32_t from, uint32_t to);

/* "MHA", "GQA", "MQA" or "MLA". */
const char *spec_attention_name(enum attention_kind kind);
/* The attention as it runs with `kv_heads` KV heads (0 = the model's own):
 * MQA at one, MHA at as many as the attention heads, GQA between; MLA stays MLA. */
enum attention_kind spec_attention_with(const struct model_spec *m, uint32_t kv_heads);

/* Parses "mha", "gqa", "mqa", "mla" (case-insensitive). */
bool spec_attention_parse(const char *text, enum attention_kind *out);

/* Checks a model's numbers are possible (layers > 0, kv_heads divides heads,
 * windowed layers <= layers, MLA ranks present...) and its hf_id is one. On failure, names the
 * field in d ("num_kv_heads: 7 does not divide num_attention_heads 32"). */
bool spec_model_validate(const struct model_spec *m, struct diag *d);

/* DeepSeek V4's compressed layers are possible (kvcost_compressed.c): one KV
 * head, windows in every layer, ratios above 1, the layers within num_layers.
 * Names the field in d. */
bool spec_compressed_validate(const struct model_spec *m, struct diag *d);

/* The global layers' own dimensions (Gemma 4) are possible: windowed layers
 * beside them, no MLA, KV heads that divide the attention heads; true when
 * there are none. Names the field in d. */
bool spec_global_validate(const struct model_spec *m, struct diag *d);

/* True for an id Hugging Face accepts (huggingface_hub validate_repo_id):
 * NAME or OWNER/NAME, each part 1 to 96 letters, digits, '-', '_' or '.',
 * starting and ending with a letter, digit or '_'; no "--" or "..", no
 * ".git" at the end. Such an id is one plain word for a shell. */
bool spec_hf_id_valid(const char *id);
#define SPEC_HF_ID_RULE "OWNER/NAME of letters, digits, '-', '_' and '.'"

/* Checks a GPU's numbers are possible (memory > 0). */
bool spec_gpu_validate(const struct gpu_spec *g, struct diag *d);

/* The GPUs whose all-reduces and all-to-alls stay on the GPUs' own links:
 * the NVLink domain, else a node. */
uint32_t spec_gpu_domain(const struct gpu_spec *g);

/* What Metal's recommendedMaxWorkingSetSize is by default on a Mac of
 * `unified` bytes (macOS 13 to 15): two thirds of it up to 32 GiB, three
 * quarters above, in whole 16 KiB pages, rounded up
 * (tests/data/metal-working-set.txt holds the readings). */
uint64_t spec_metal_working_set(uint64_t unified);

/* The most of `unified` bytes kvplan lets the wired limit take
 * (--wired-limit-mb): max(80% of it, all but 5 GiB), in whole MiB, as exo's
 * configure_mlx.sh sets iogpu.wired_limit_mb (exo-explore/exo at 191553a);
 * macOS accepts any number, but the rest is what macOS and the CPU keep. */
uint64_t spec_wired_limit_max(uint64_t unified);

/* The GPU's memory in its own API's words, as llama.cpp's logs name the
 * buffers: "Metal" on Apple silicon (ggml-metal logs "MTL0 model buffer
 * size", "Metal KV buffer size"), else "CUDA". */
const char *spec_gpu_api(const struct gpu_spec *g);

#endif
