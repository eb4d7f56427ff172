/* scenario: the knobs of one capacity question (GPU, model, parallel layout,
 * context, precisions, the serving profile and its flags), their defaults,
 * and their validation.
 *
 * Validation reports which field is wrong; the caller says how its users
 * name fields (the command line says "--context", the planner "Context"). */
#ifndef KVPLAN_CORE_SCENARIO_H
#define KVPLAN_CORE_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "dtype.h"
#include "engine.h"
#include "offload.h"
#include "spec.h"
#include "units.h"

enum { GPUS_MAX = 65536, BLOCK_TOKENS_MAX = 1 << 20, DEFAULT_BLOCK_TOKENS = 16 };

/* Speculative decoding: what proposes the tokens the model verifies. */
enum spec_method {
    SPEC_NONE = 0,
    SPEC_DRAFT, /* a separate, smaller draft model */
    SPEC_MTP    /* the model's own multi-token-prediction layers (DeepSeek-V3 nextn) */
};
enum { SPEC_TOKENS_MAX = 64 };


/* The knobs. Zero / DTYPE_AUTO / false mean "the default" as documented. */
struct scenario {
    struct gpu_spec gpu;       /* full spec, so a snapshot is self-contained */
    struct model_spec model;
    uint32_t gpus;             /* all GPUs = tp x replicas; >= 1 */
    uint32_t tp;               /* tensor parallel per replica; 0 = all GPUs (one replica) */
    enum dtype weight_dtype;   /* AUTO = as released (model.weights_bytes if set) */
    enum dtype kv_dtype;       /* AUTO = the model's 16/32-bit compute precision */
    uint32_t kv_heads;         /* 0 = the model's */
    uint64_t context_tokens;   /* per user, worst case */
    uint64_t prefix_tokens;    /* shared by every user, stored once */
    uint64_t avg_context_tokens; /* tokens actually in use; 0 = context */
    uint64_t block_tokens;     /* paged allocation block; 0 = 16, which stands for the
                                * engine's own (scenario_block_refusal) unless given */
    bool block_given;          /* --block-size given, 16 too (scenario_block_given) */
    double headroom_percent;   /* generic rule: of total memory kept free, [0, 100) */
    bool has_vram;             /* memory per GPU overridden */
    uint64_t vram_bytes;
    bool has_weights;          /* weights (whole model) overridden */
    uint64_t weights_bytes;
    bool has_price;            /* price per GPU-hour overridden */
    double price_usd_per_hour;
    bool full_attention;       /* treat windowed layers as global */
    enum unit_system units;    /* display only */
    struct engine_flags engine; /* the profile (generic or an engine) and its flags */
    /* The service level (issue 12): 0 means "the default" for each. */
    uint64_t concurrency;      /* users decoding at once, all replicas; 0 = as many as fit */
    uint64_t prompt_tokens;    /* the prompt whose time to first token is reported; 0 = context */
    uint64_t output_tokens;    /* tokens a request generates (--output-len): the decode is then a
                                * closed loop's (core/speed.h); 0 = the step alone */
    double min_tokens_per_s;   /* per user; 0 = no speed target */
    double max_ttft_seconds;   /* 0 = no time-to-first-token target */
    double mbu, mfu;           /* achievable fractions of bandwidth and compute; 0 = defaults */
    /* Layouts past one node (appended: older snapshots leave them zero). */
    uint32_t pp;               /* pipeline stages per replica; 0 = 1. gpus = tp x pp x replicas */
    bool dp_attention;         /* SGLang --enable-dp-attention: each TP rank holds its own
                                * requests with the whole KV (MLA latents not replicated) */
    bool expert_parallel;      /* vLLM --enable-expert-parallel: routed experts spread over
                                * every GPU of the data-parallel group (TP x replicas) */
    /* Speculative decoding (appended: older snapshots leave it off). */
    enum spec_method spec_method; /* none, a draft model, or the model's MTP layers */
    struct model_spec draft;   /* SPEC_DRAFT: the draft model, from the catalogue */
    uint32_t spec_tokens;      /* speculative tokens per step; 0 = the default (spec_default_tokens) */
    /* A second tier: KV cache in host memory (doc/MODEL.md, "Host memory
     * tier"). 0 = none. Per GPU, as each rank of an engine keeps its own
     * host pool (SGLang --hicache-size; vLLM's --kv-offloading-size is this
     * times TP x PP). */
    uint64_t host_kv_bytes;
    bool has_prefix_hit_rate;  /* the share of returning users found in host memory, given */
    double prefix_hit_rate;    /* 0 to 1 */
    /* LoRA adapter slots held on every GPU (vLLM --max-loras, SGLang
     * --max-loras-per-batch); 0 = no LoRA. */
    uint32_t max_loras;
    uint32_t max_lora_rank;    /* 0 = 16, vLLM's default */
    uint32_t lora_targets;     /* bits of enum lora_module; 0 = the engine's default */
    /* Images in every request: their tokens add to each user's context. */
    uint32_t images;           /* per request; 0 = none (1 when image_tokens is given) */
    uint32_t image_tokens;     /* per image; 0 = the model's image_tokens_per_image */
    /* The speed model's fixed cost of each step (scheduler, sampling, graph
     * launch), seconds, given (--step-overhead) or calibrated; without it the
     * engine's fitted figure (appended: older snapshots leave it off). */
    bool has_step_overhead;
    double step_overhead_s;
    /* A speed calibration in use (kvplan calibrate on a benchmark): what it
     * measured, in words ("" = none), and which of mbu, mfu and the step
     * overhead are its figures (SPEED_CAL_ bits: an option given on top of
     * the calibration clears its bit). */
    char speed_basis[SPEC_NAME_MAX * 2];
    unsigned speed_calibrated;
    /* llama.cpp's layers, experts and cache in host memory, and the host
     * (appended: older snapshots leave them off) */
    struct offload_opts offload;
    /* Unified memory (Apple silicon): the GPU's wired limit in MiB as `sudo
     * sysctl iogpu.wired_limit_mb=N` sets it; 0 = macOS's default. */
    uint32_t wired_limit_mb;
    /* What a calibration measured elsewhere (another GPU, model or engine) and
     * what of it was applied: one sentence for the plan's warnings; "" none. */
    char calibration_note[480];
    /* A context past the model's longest planned anyway, as an engine that
     * refuses one starts with its environment variable set (vLLM's
     * VLLM_ALLOW_LONG_MAX_MODEL_LEN=1, SGLang's
     * SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1: core/engine_desc.h
     * long_context); appended, older snapshots leave it off. */
    bool allow_long_context;
    /* A speed calibration's own band (appended; a calibration file of an
     * older kvplan has none: points 0), [0] the decode step, [1] the first
     * token: the smallest and largest (measured - predicted) / predicted of
     * the fitted points' times, over how many points; stated: too few points
     * to tell a spread (no more than the values fitted on them), the band
     * CALIBRATION_BAND_STATED either side. */
    struct calibration_band {
        double residual_min, residual_max;
        uint32_t points;
        bool stated;
    } calibration_band[2];
    /* Where a calibration applied to the scenario was measured (appended;
     * not in snapshots: present false): the plan's warning and the speed
     * band's fallback are worked out from it on every plan, so that they
     * follow the scenario as it changes (core/calibration_origin.h). */
    struct calibration_origin {
        bool present, memory, speed;
        bool gpu_assumed;              /* calibrate assumed the GPU */
        bool weight_known;             /* the file states the weights' precision */
        char gpu_id[SPEC_ID_MAX], gpu_name[SPEC_NAME_MAX]; /* "" when it does not say */
        char model[SPEC_ID_MAX];
        char version[32];              /* the engine's release it ran ("0.10.1", "b5721"); "" none */
        enum engine_kind engine;
        enum engine_rule rule;
        enum dtype weight;             /* its weights' precision (AUTO: as released) */
        uint32_t tp;                   /* its tensor parallel; 0 = not stated */
        /* a logged KV cache size applied as the pool (engine.kv_memory_bytes):
         * the log's own (kv_logged, at its fractions; 0 = none), the one the
         * plan's options moved it to (kv_applied), so that a change of the
         * memory fraction or weights moves it again as the CLI does */
        uint64_t kv_logged, kv_applied;
        double utilization, mem_fraction; /* the fractions its log ran at; 0 = not logged */
        uint64_t gpu_total, non_kv;    /* the total and non-KV memory it set; 0 = none */
        /* the file (as given to --calibration), and the log it was made from
         * with that log's engine ("vLLM V1"); "" when not stated */
        char file[256], log[160], log_engine[32];
        /* the speed fit's points, [0] decode, [1] first token: the users a
         * server held (lowest, highest) and the prompts (input tokens) they
         * were measured at; 0 = no points in the file. A plan outside them
         * takes the public cases' band (core/plan.c calibration_shape). */
        struct calibration_shape {
            uint64_t users_min, users_max, prompt_min, prompt_max;
        } fit_shape[2];
        bool shape_elsewhere; /* set on a copy to look the public band up */
    } calibration_from;
};

/* The band a calibration states when its fit has too few points to show one. */
#define CALIBRATION_BAND_STATED 0.10
/* The narrowest band a calibration's figure has, either side: its residuals
 * are the fitted points' own (doc/MODEL.md). */
#define CALIBRATION_BAND_FLOOR 0.10

enum { SPEED_CAL_MBU = 1u, SPEED_CAL_MFU = 2u, SPEED_CAL_OVERHEAD = 4u, SPEED_CAL_ALL = 7u };
/* The longest step overhead a scenario takes, seconds. */
#define STEP_OVERHEAD_MAX_S 1.0

/* The fields validation can name. */
enum scenario_field {
    SF_GPU,
    SF_MODEL,
    SF_GPUS,
    SF_TP,
    SF_ENGINE,
    SF_CONTEXT,
    SF_PREFIX,
    SF_AVG,
    SF_BLOCK,
    SF_HEADROOM,
    SF_KV_HEADS,
    SF_KV_DTYPE,
    SF_WEIGHT_DTYPE,
    SF_VRAM,
    SF_WEIGHTS,
    SF_PRICE,
    SF_GPU_MEMORY_UTILIZATION,
    SF_MEM_FRACTION_STATIC,
    SF_FREE_GPU_MEMORY_FRACTION,
    SF_PARALLEL,
    SF_MAX_NUM_SEQS,
    SF_MAX_NUM_BATCHED_TOKENS,
    SF_LOGGED, /* what a log said: total, non-KV and KV memory */
    SF_CONCURRENCY,
    SF_PROMPT,
    SF_OUTPUT,
    SF_MIN_TOK_S,
    SF_MAX_TTFT,
    SF_MBU,
    SF_MFU,
    SF_PP,
    SF_DP_ATTENTION,
    SF_EXPERT_PARALLEL,
    SF_SPEC_METHOD,
    SF_DRAFT_MODEL,
    SF_SPEC_TOKENS,
    SF_HOST_KV,
    SF_PREFIX_HIT_RATE,
    SF_MAX_LORAS,
    SF_MAX_LORA_RANK,
    SF_LORA_TARGETS,
    SF_IMAGES,
    SF_IMAGE_TOKENS,
    SF_STEP_OVERHEAD,
    SF_N_GPU_LAYERS, /* llama.cpp's placement: -ngl, --n-cpu-moe, --no-kv-offload */
    SF_N_CPU_MOE,
    SF_NO_KV_OFFLOAD,
    SF_HOST_MEMORY,
    SF_HOST_BANDWIDTH,
    SF_WIRED_LIMIT,
    SF_UBATCH,
    SF_ALLOW_LONG_CONTEXT,
    SF_COUNT
};

/* How the command line names each field ("--context", ...). */
extern const char *const scenario_option_names[SF_COUNT];

/* The scenario under another engine (and version): the knobs and layouts
 * that belong to one engine go with it (its memory fraction and limits to
 * their defaults, DP attention, expert parallel, pipeline stages where the
 * new engine has none). */
void scenario_set_engine(struct scenario *s, enum engine_kind kind, enum engine_rule rule);

/* A scenario with every default filled in for the given GPU and model. */
void scenario_default(struct scenario *s, const struct gpu_spec *gpu,
                      const struct model_spec *model);

/* Checks the knobs against each other and the model. On failure d reads
 * "NAME: what is wrong", NAME and any other field it mentions taken from
 * `names` (scenario_option_names when NULL), and *field (if not NULL) says
 * which field it is. */
bool scenario_validate(const struct scenario *s, const char *const names[SF_COUNT],
                       enum scenario_field *field, struct diag *d);

/* --block-size under the scenario's engine and rule (core/engine_desc.h
 * refuses_block, block_override), for a block given: one that is not
 * DEFAULT_BLOCK_TOKENS, which stands for the engine's own default (and is
 * what a snapshot writes when none was given). _refusal: why the engine does
 * not start with it, into buf, or NULL; _override: the block the engine
 * plans in its place, why in *why, or 0 (none given, or the one given). */
const char *scenario_block_refusal(const struct scenario *s, char *buf, size_t size);
/* A block given: --block-size (block_given), or any block but kvplan's
 * default 16, which otherwise stands for the engine's own. */
bool scenario_block_given(const struct scenario *s);
uint64_t scenario_block_override(const struct scenario *s, const char **why);

/* scenario_validate's checks in two parts: _context those the context, its
 * prefix and average take part in (their ranges, and the prompt, the image
 * tokens and llama.cpp's slots measured against the context), _fixed every
 * other. A scenario passes scenario_validate when it passes both; one that
 * passes _fixed fails scenario_validate as it fails _context, with the same
 * message and field. A sweep along the context checks the fixed part once. */
bool scenario_validate_fixed(const struct scenario *s, const char *const names[SF_COUNT],
                             enum scenario_field *field, struct diag *d);
bool scenario_validate_context(const struct scenario *s, const char *const names[SF_COUNT],
                               enum scenario_field *field, struct diag *d);

/* The cache precision: the model's when it is fp32/fp16/bf16, bf16 otherwise
 * (FP8 or 4-bit checkpoints compute in bf16). */
enum dtype scenario_kv_dtype(const struct scenario *s);

/* The weights of the whole model in bytes, and the precision they are in. */
uint64_t scenario_weights_bytes(const struct scenario *s, enum dtype *used);
/* Whether the weights are the model's own bytes (model.weights_bytes): no
 * --weight-dtype, or that of a GGUF preset's own file; no --weights. */
bool scenario_weights_as_file(const struct scenario *s);

/* Of those, the bytes in routed MoE experts (0 for a dense model): at the
 * precision used, or, for a checkpoint counted as released (MXFP4 experts),
 * what is left after the other parameters at the model's precision. */
uint64_t scenario_expert_bytes(const struct scenario *s);

/* Of the weights, the bytes of the attention projections (every layer) and of
 * the token embedding: what SGLang's DP attention keeps whole on every GPU
 * (models/deepseek_v2.py and llama4.py: the attention TP group is TP / DP =
 * 1, and VocabParallelEmbedding(enable_tp=not is_dp_attention_enabled())). */
uint64_t scenario_attention_bytes(const struct scenario *s);

/* Of the weights, the bytes every tensor-parallel rank holds whole: MLA's
 * down projections to the query and KV latents (q_a_proj, kv_a_proj_with_mqa
 * and their norms) and DeepSeek-V3.2's indexer, all ReplicatedLinear in vLLM
 * and SGLang (models/deepseek_v2.py); 0 for other models. */
uint64_t scenario_replicated_bytes(const struct scenario *s);

/* Tensor parallel size, pipeline stages and replicas (tp x pp x replicas = gpus);
 * without --tp and --pp, the layout of scenario_layouts that serves the most
 * users at the service level, each planned; ties go to weights that fit,
 * then fewer stages, then the faster per user, then the wider TP (an engine
 * that splits layers, or DP attention: one replica over all; with --pp
 * alone, the largest TP of a stage the heads split over). */
uint32_t scenario_tp(const struct scenario *s);
uint32_t scenario_pp(const struct scenario *s);
/* Sets s->tp and s->pp to the layout it runs (a plan along one axis keeps
 * the layout of its base, as the planner's chart does). */
void scenario_pin_layout(struct scenario *s);
/* Why the scenario runs its layout: given (--tp or --pp), the only one (one
 * GPU, an engine that splits layers, DP attention) or the one serving the
 * most users of the *runs layouts that run, each planned. */
enum layout_basis { LAYOUT_GIVEN, LAYOUT_ONLY, LAYOUT_MOST_USERS };
enum layout_basis scenario_layout_basis(const struct scenario *s, uint32_t *runs);
/* "given", "only", "most_users" (JSON's layout_basis) */
const char *layout_basis_name(enum layout_basis b);

/* One layout of a replica: tp x pp GPUs (replicas: gpus / (tp x pp)). */
struct scenario_layout {
    uint32_t tp, pp;
};
enum { SCENARIO_LAYOUTS_MAX = 256 };
/* Whether s's engine runs s->gpus as replicas of tp x pp: whole replicas,
 * at most a stage a layer, one server over all for an engine that refuses
 * --tp, the heads split evenly (scenario_tp_even; any under DP attention),
 * and a replica wider than a node over whole nodes of TP groups; an
 * engine that spreads a replica evenly over its nodes (vLLM's ParallelConfig
 * asserts world_size % nnodes == 0; SGLang gives each node pp / nnodes
 * stages) with as many stages on each. */
bool scenario_layout_runs(const struct scenario *s, uint32_t tp, uint32_t pp);
/* Of those, the node rule alone: a replica of tp x pp within a node, or
 * over whole nodes of its TP groups (and as many stages on each where the
 * engine spreads it evenly). */
bool scenario_layout_spans(const struct scenario *s, uint32_t tp, uint32_t pp);
/* The layouts of s->gpus that run (scenario_layout_runs), up to max_pp
 * stages and TP up to widest: fewest stages first, widest TP first within
 * them, into out[0..max); returns the count. The one generator of the
 * default layout and solve_gpus: none with stages in a node that a wider
 * TP runs in place of without copying KV heads (vLLM's parallelism guide:
 * TP within a node, PP between nodes); the latent of MLA, one on every TP
 * rank, is deployed at TP as the engines' guides do. */
size_t scenario_layouts(const struct scenario *s, uint32_t max_pp, uint32_t widest,
                        struct scenario_layout *out, size_t max);
/* Whether every TP rank holds the whole cache of a layer: MLA's one latent,
 * or a single KV head (the default keeps TP there as engines deploy it). */
bool scenario_tp_copies_latent(const struct scenario *s);
/* Every layout that runs, those stages too: `T`'s other splits (DeepSeek-V3
 * on 8 H200s: TP 8 holds 88 users, TP 1 x PP 8 686, at a quarter the speed). */
size_t scenario_layouts_all(const struct scenario *s, uint32_t max_pp, uint32_t widest,
                            struct scenario_layout *out, size_t max);
/* Whether --pp (or a snapshot's pp) must be written for the layout to read
 * back: stages above 1, or one where the default would add stages. */
bool scenario_pp_written(const struct scenario *s);

/* The memory one GPU may use: --vram; on unified memory the wired limit
 * (--wired-limit-mb, at most the unified memory), else Metal's default
 * working set (the preset's memory_bytes); else the preset's. */
uint64_t scenario_gpu_memory(const struct scenario *s);
/* Where that figure comes from: "--vram", "--wired-limit-mb" or the preset's basis. */
const char *scenario_gpu_memory_basis(const struct scenario *s);
/* The host memory llama.cpp's CPU layers may use and the rate they read
 * it at. On unified memory (Apple silicon) the same RAM as the GPU's: the
 * RAM less macOS's reserve (scenario_os_reserve), which the GPU's part and
 * the CPU layers share (each split's own figure: core/offload_fit.h
 * offload_host_room), at the unified memory's bandwidth; else
 * --host-memory (0: unknown) and --cpu, --host-bandwidth or the default CPU
 * preset's. */
uint64_t scenario_host_memory(const struct scenario *s);
/* Unified memory: what macOS keeps for itself, min(20% of the RAM, 5 GiB),
 * the part exo's configure_mlx.sh leaves it when it raises
 * iogpu.wired_limit_mb (RAM - spec_wired_limit_max); 0 elsewhere. */
uint64_t scenario_os_reserve(const struct scenario *s);
/* llama.cpp's micro-batch: --ubatch, else OFFLOAD_UBATCH (512). */
uint32_t scenario_ubatch(const struct scenario *s);
double scenario_host_bandwidth(const struct scenario *s);
uint32_t scenario_replicas(const struct scenario *s);

/* Images per request (images, or 1 when only image_tokens is given), the
 * tokens of one (image_tokens, or the model's), and of all of them. */
uint32_t scenario_images(const struct scenario *s);
uint32_t scenario_tokens_per_image(const struct scenario *s);
uint64_t scenario_image_tokens(const struct scenario *s);

/* The model's compute precision: its own when fp32/fp16/bf16, bf16 for a
 * quantized checkpoint (LoRA buffers, encoder outputs). */
enum dtype scenario_compute_dtype(const struct scenario *s);

/* The tokens in use on average (avg_context_tokens, or the context). */
uint64_t scenario_avg_tokens(const struct scenario *s);

/* Whether tensor parallel tp splits the model's heads evenly: the query
 * heads, and the KV heads (or tp a multiple of them, each replicated); MLA
 * keeps one latent, only its query heads split. kv_heads: those in use. The
 * plan warns of an uneven split (WARN_HEADS_UNEVEN_SPLIT), the planner's
 * GPUs and TP steps skip one, the sweep marks its rows. */
bool scenario_heads_split(const struct model_spec *m, uint32_t kv_heads, bool mla, uint32_t tp);
/* The split of the heads in use (--kv-heads) at tp, as the scenario's engine
 * takes it: any, when the engine splits layers, never heads. */
bool scenario_tp_even(const struct scenario *s, uint32_t tp);

/* The cache the engine's auto gives (scenario_kv_dtype under --kv-dtype auto). */
enum dtype scenario_auto_cache(const struct scenario *s);

/* A --kv-dtype fp16 or bf16 that is not the model's own 16-bit type (what
 * the engine's auto caches in) under an engine that names its cache types
 * (engine_desc cache_flags): the option that gives it, --kv-cache-dtype
 * (*value "float16"), or --dtype where the release has no such cache type
 * (the model runs in it, and its cache with it); NULL when none is needed. */
const char *scenario_cache_flag(const struct scenario *s, const char **value);

/* The longest context the scenario's engine starts with: the model's
 * (max_context_tokens) under an engine that refuses a longer one
 * (engine_desc long_context) unless allow_long_context; 0: no bound of the
 * engine's (the plan warns past the model's). */
uint64_t scenario_context_ceiling(const struct scenario *s);

/* The one rule for a shared prefix that reaches the context (doc/MODEL.md,
 * section 4): it is held to the context less one token, the token each user
 * keeps of its own; a shorter prefix stays as asked. plan, sweep and the
 * planner apply it, and say so when it applies. */
uint64_t scenario_prefix_within(uint64_t prefix, uint64_t context);

/* --output-len at another context (the chart's, a sweep's, solve's search):
 * kept where the prompt and it fit, else 0, the step alone there. */
uint64_t scenario_output_within(const struct scenario *s, uint64_t context);

/* "none", "draft", "mtp"; and back (case-insensitive). */
const char *spec_method_name(enum spec_method m);
bool spec_method_parse(const char *text, enum spec_method *out);

/* The speculative tokens when none are given: the MTP layers (vLLM
 * config/speculative.py: num_speculative_tokens defaults to the draft
 * config's n_predict = num_nextn_predict_layers), else llama.cpp's
 * --draft-max default of 16 (common/common.h) for llama.cpp, else 1 (vLLM
 * and SGLang require the count for a draft model; kvplan's documented default). */
uint32_t spec_default_tokens(const struct scenario *s);

#endif
