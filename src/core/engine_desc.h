/* engine_desc: one descriptor per serving profile, the generic headroom rule
 * included. Everything that differs between the profiles is a field of it:
 * names and version pins, the cache types and vendors, the knobs, the layout
 * traits, the words the views use, and the functions of its rule (budget and
 * allocation, launch line, log lines). Each row is defined in its own policy
 * file (policy_vllm.c defines engine_vllm) and listed once in engine.c; code
 * elsewhere asks the descriptor a question ("does this engine split
 * layers?"), never "is this llama.cpp?". doc/ARCHITECTURE.md adds an engine. */
#ifndef KVPLAN_CORE_ENGINE_DESC_H
#define KVPLAN_CORE_ENGINE_DESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "budget.h"
#include "kvcost.h"
#include "placement.h"
#include "scenario.h"
#include "shell.h"

/* How one of kvplan's engine options holds its value. */
enum engine_option_type {
    EOPT_FRACTION, /* double, 0 to 1 */
    EOPT_COUNT,    /* uint32_t */
    EOPT_TOKENS,   /* uint64_t */
    EOPT_BYTES,    /* uint64_t, a size */
    EOPT_DTYPE     /* enum dtype, DTYPE_AUTO = not given */
};

/* One of kvplan's engine options: a field of struct engine_flags, as the
 * command line spells it. Zero means "not given" (the engine's default). */
struct engine_option {
    const char *flag;          /* kvplan's spelling: "--max-num-seqs" */
    size_t offset;             /* of the field in struct engine_flags */
    enum engine_option_type type;
    enum scenario_field field; /* what validation names; SF_COUNT: none */
    bool refused;              /* an engine without the knob refuses it (else ignores it) */
    const char *refusal;       /* a knob several engines share: what the others are told;
                                * NULL: "is <its engine's> option (--engine NAME)" */
};

/* The planner rows an engine knob can take (app/controls.h CTRL_FRACTION, CTRL_SEQS). */
enum knob_role { KNOB_OTHER = 0, KNOB_FRACTION, KNOB_SEQS };

/* One knob of an engine: one of kvplan's engine options, as that engine
 * names and bounds it. */
struct engine_knob {
    size_t offset;            /* the option's (struct engine_option) */
    enum knob_role role;
    const char *label;        /* the planner's word: "Max running" */
    const char *engine_flag;  /* the engine's own spelling: "--max-running-requests" */
    double min, max;          /* the values it takes (given: at least 1 for counts) */
    double def;               /* the default; 0: the rule computes one */
    const char *max_name;     /* the bound's name upstream: "LLAMA_MAX_SEQ" */
    const char *counts;       /* what the engine counts in its row instead of a shared
                               * option ("slots"): names this knob when given that one */
    const char *help;         /* one line: what it sets */
};

enum { ENGINE_SPELLINGS_MAX = 4 };

/* NAME@VERSION: the engine's arithmetic at an older version. */
struct engine_version {
    enum engine_rule rule;      /* RULE_CURRENT: the latest, under another name */
    const char *label;          /* "vllm@0": listed, and shown for the rule */
    const char *spellings[ENGINE_SPELLINGS_MAX]; /* the VERSIONs taken, case-insensitive:
                                 * "0", "v0"; a former label's too ("0.15") */
    const char *changed;        /* what the pin changes */
    const char *release;        /* the release for a reader: "0.15", "1.x" */
    const char *from;           /* the first release it holds for ("0.14", "b5124"); a release
                                 * maps to the row with the newest `from` not after it.
                                 * NULL: named only (no release maps to it) */
    const char *newest;         /* the first row: the newest release known ("0.20.1", "1":
                                 * every 1.x); a newer one maps to this rule with a note */
    const char *older;          /* the oldest row: why releases before `from` are refused */
};


/* A context past the model's longest (max_context_tokens, the engine's
 * derived maximum): an engine that refuses to start with one, unless an
 * environment variable lets it (--allow-long-context sets it). */
struct engine_long_context {
    const char *env;    /* "VLLM_ALLOW_LONG_MAX_MODEL_LEN", set to 1; NULL: the plan warns */
    const char *option; /* the engine's own option: "--max-model-len" */
    const char *where;  /* the check: "vllm/config/model.py, _get_and_verify_max_len" */
};

/* A 16-bit cache other than the model's own (what the engine's auto gives):
 * the value of the engine's --kv-cache-dtype for it; where it has none, the
 * model itself runs in that type (--dtype float16 or bfloat16, the same 2
 * bytes a weight), and auto caches in it. fp32 has no cache type in vLLM or
 * SGLang (refused: engine_desc cache_dtypes). */
struct engine_cache_flags {
    const char *fp16, *bf16; /* "float16", "bfloat16"; NULL: --dtype instead */
    const char *accepts;     /* its choices, for a refusal: "auto, bfloat16, fp8, ..." */
    const char *where;       /* "vllm/config/cache.py, CacheDType (read at c1d86421)" */
};

/* The host memory tier (--host-kv) as the engine keeps it (core/hosttier.h). */
struct engine_host {
    bool none;               /* no second tier at all */
    bool beyond_device;      /* it refuses a host pool no larger than the device pool */
    const char *pool_term;   /* the pool in the users row; NULL: "host pool (--host-kv)" */
    uint64_t (*pool_bytes)(const struct scenario *s); /* as it sizes it; NULL: --host-kv */
    void (*note)(const struct scenario *s, const struct placement *l, char *note,
                 size_t size); /* how it sizes the pool, in a sentence with the plan's
                                * figures; NULL: words */
    const char *words;       /* ... or a sentence without figures */
};

/* The scheduler `kvplan simulate` runs an engine's replicas with, and how it
 * spreads requests over several (core/sim.h). The first of each is vLLM's. */
enum sim_scheduler {
    SIM_SCHED_VLLM = 0, /* V1's Scheduler.schedule(): token budget, preempt the newest */
    SIM_SCHED_SGLANG,   /* prefill batches first, new_token_ratio's reserve, retraction */
    SIM_SCHED_SLOTS,    /* llama.cpp's server: --parallel slots, n_batch, n_ubatch */
    SIM_SCHED_TRTLLM,   /* TensorRT-LLM's capacity and micro-batch schedulers */
    SIM_SCHED_COUNT
};
enum sim_router {
    SIM_ROUTE_DPLB = 0,        /* vLLM's DP load balancer: least 4 x waiting + running */
    SIM_ROUTE_ROUND_ROBIN,
    SIM_ROUTE_LEAST_OUTSTANDING,
    SIM_ROUTE_PREFIX_AWARE,    /* SGLang's router, cache-aware */
    SIM_ROUTE_COUNT
};

/* The scheduler's traits (struct engine_desc's sched). */
struct engine_sched {
    enum sim_scheduler kind;
    enum sim_router router;    /* several replicas without --router */
    uint64_t batch;            /* tokens a step takes when the plan has no figure (n_batch) */
    uint64_t ubatch;           /* a step runs in passes of this many tokens; 0: one pass */
    bool whole_prompts;        /* no chunked prefill: a prompt runs in one step, and one
                                * longer than a step's tokens is refused */
    bool seqs_within_batch;    /* refuses to start with fewer batched tokens than sequences */
    /* simulate's words: the scheduler, and its limits as the engine spells them */
    const char *title;         /* "vLLM V1" */
    bool capacity;             /* ... then its capacity scheduler's policy */
    bool recv_interval;        /* polls for requests every --scheduler-recv-interval steps */
    const char *seqs_name, *tokens_name, *ubatch_name; /* "max-num-seqs", ... */
};

enum { ENGINE_DTYPES_MAX = 10, ENGINE_VENDORS_MAX = 3, ENGINE_ALIASES_MAX = 4,
       ENGINE_VERSIONS_MAX = 5, ENGINE_KNOBS_MAX = 4 };

struct engine_desc {
    enum engine_kind kind;
    const char *name;            /* "llama.cpp": --engine, snapshots, messages */
    const char *title;           /* in prose: "vLLM", "the generic rule" */
    const char *title_a;         /* with its article: "a vLLM", "an SGLang" */
    const char *aliases[ENGINE_ALIASES_MAX];        /* other names --engine takes */
    struct engine_version versions[ENGINE_VERSIONS_MAX]; /* newest first: RULE_CURRENT */
    bool server;                 /* a serving engine: its own budget, launch line and log;
                                  * false for the generic headroom rule */

    /* What it runs on and caches in; an empty list means anything. */
    enum dtype cache_dtypes[ENGINE_DTYPES_MAX];  /* listed in this order in messages */
    enum dtype cache_default;    /* the cache under --kv-dtype auto; AUTO: the model's */
    /* a model's cache under auto where a release makes it its own (vLLM 0.11 to
     * 0.13: DeepSeek-V3.2's fp8_ds_mla); AUTO: none. May be NULL. */
    enum dtype (*auto_cache)(const struct scenario *s);
    const struct engine_cache_flags *(*cache_flags)(enum engine_rule rule); /* a 16-bit
                                  * cache not the model's, by rule; NULL: any taken, no flag */
    bool v_dtype;                /* V has a type of its own (-ctv), from cache_dtypes too */
    enum dtype weight_dtypes[ENGINE_DTYPES_MAX]; /* the weights it loads */
    const char *vendors[ENGINE_VENDORS_MAX];     /* "NVIDIA": a GPU vendor's name begins so */

    struct engine_knob knobs[ENGINE_KNOBS_MAX];

    /* Layout. */
    bool splits_layers;          /* a replica's GPUs hold whole layers in turn, never split
                                  * heads: attention TP 1, no --pp, a token's KV counted for
                                  * all GPUs together, one step crosses them in turn */
    bool fixed_slots;            /* each sequence holds its whole context up front (no paging) */
    bool uses_preset_mfu;        /* its compute takes the GPU preset's achievable_mfu,
                                  * fitted on this engine's measured prefill (llama.cpp) */
    bool offloads;               /* keeps layers, experts or its cache in host memory as told
                                  * (-ngl, --n-cpu-moe, --no-kv-offload: core/offload.h) */
    bool (*ngl_last_n)(enum engine_rule rule); /* -ngl N the last N layers, the output
                                  * layer only at n_layer + 1 (llama.cpp before PR #18148);
                                  * NULL or false: the output layer first, then the last N - 1 */
    const char *refuses_tp;      /* why --tp (TP or replicas) is refused; NULL: taken */
    const char *refuses_draft;   /* why a --draft-model is refused; NULL: taken */
    const char *refuses_offload; /* why --n-cpu-moe, --no-kv-offload are refused; NULL: taken */
    const char *refuses_v_dtype; /* why --kv-dtype-v is refused; NULL: taken or ignored */
    const char *refuses_uneven_nodes; /* where it spreads a replica wider than a node evenly
                                  * over its nodes (scenario_layout_runs); NULL: MPI's hosts
                                  * take uneven nodes */
    const char *refuses_uneven_tp; /* where it refuses a TP that splits the heads unevenly
                                  * (scenario_tp_even); NULL: the plan warns */
    const char *refuses_uneven_tp_mla; /* ... where an MLA model's query heads are split, when
                                  * another file than that; NULL: the same */
    bool kv_heads_rounded_up;    /* ... the query heads only: each rank takes ceil(KV heads /
                                  * TP) KV heads (as kvcost counts them), the plan warns */
    const char *(*refuses_model)(const struct scenario *s, enum scenario_field *at);
                                 /* why the model is refused at the scenario's rule; NULL
                                  * (or it gives NULL): taken; *at the option at fault
                                  * (SF_ENGINE unless it says another) */
    /* --block-size as the engine's own option (vLLM's --block-size, SGLang's
     * --page-size, TensorRT-LLM's tokens_per_block) takes it, given (not
     * DEFAULT_BLOCK_TOKENS, which stands for the engine's own default): NULL
     * when the engine starts with s->block_tokens at the scenario's rule
     * (block_override: or with another it puts in its place), else why not,
     * into buf ("refused at startup: its attention kernels take a multiple
     * of 16 (where)"), naming what it takes. NULL: any block (the generic
     * rule). */
    const char *(*refuses_block)(const struct scenario *s, char *buf, size_t size);
    /* ... the block it plans instead of the one given, *why saying which of
     * its backends puts it there; 0: the one given. NULL: never. */
    uint64_t (*block_override)(const struct scenario *s, const char **why);
    uint64_t (*default_context)(const struct scenario *s); /* the context when none is given,
                                  * the engine's own default; NULL: kvplan's */
    struct engine_long_context long_context; /* refuses a context past the model's */
    bool dp_attention;           /* takes --enable-dp-attention */
    bool (*experts_over_dp)(enum engine_rule rule); /* routed experts split over the whole
                                  * DP group, and --enable-expert-parallel taken */
    const char *experts_owner;   /* then, who has the option: "vLLM's V1 engine" */
    bool experts_over_tp;        /* takes --enable-expert-parallel as whole routed experts
                                  * over each replica's TP ranks (SGLang's --ep-size): the
                                  * same bytes a GPU, the experts a multiple of TP */
    /* Its MoE kernel's padding of the routed experts as loaded: the
     * intermediate size over all `split` ranks one expert's intermediate is
     * divided among, and the hidden size, each padded per rank; false: none
     * (NULL: never). */
    bool (*expert_padding)(const struct scenario *s, uint32_t split, uint32_t *inter,
                           uint32_t *hidden);
    bool (*windows_full)(const struct scenario *s); /* windowed layers sized for the whole
                                  * context (NULL: never) */
    enum dtype state_conv, state_ssm; /* the state's precisions; AUTO: vLLM's "auto" */
    bool global_dims;            /* kvplan has its rule for global layers of their own KV
                                  * heads and head_dim (Gemma 4); else they are refused */
    bool (*compressed)(enum engine_rule rule); /* kvplan has its rule for DeepSeek V4's
                                  * compressed attention at that version (core/kvcost.h);
                                  * NULL or false: it is refused */
    const char *compressed_from; /* ... and the first release that serves it ("0.20.1"):
                                  * an older one asked for is refused by name; NULL: any */
    bool state_per_user;         /* its state pool is not modelled: each user's state is
                                  * counted in its KV blocks (WARN_STATE_GENERIC) */

    /* Speculative decoding and LoRA. */
    bool mtp;                    /* drafts with the model's MTP layers */
    uint32_t spec_tokens;        /* speculative tokens when none are given */
    bool spec_lookahead;         /* a user's cache holds its speculative tokens too */
    const char *lookahead_source; /* where, upstream: "vLLM num_lookahead_tokens" */
    const char *lora_none;       /* why it keeps no adapter slots; NULL: it keeps them */
    bool lora_in_weights;        /* ... its adapters are files loaded whole, as weights */
    bool packs_lora;             /* q, k, v and gate, up adapted as one packed projection */
    const char *lora_flag;       /* "--max-loras-per-batch" */
    const char *lora_where;      /* where the slots sit, for the LoRA row; NULL: beside the
                                  * weights */

    /* Speed: each step's own overhead (scheduler, sampling, graph launch),
     * seconds; fitted by tools/fit_speed.py (doc/SPEED-FIT.md). */
    double step_overhead_s;
    /* `kvplan simulate`: each request's time outside the GPU steps, seconds,
     * added to its TTFT and end-to-end latency as the client measures them
     * (the HTTP server, tokenization, the hand-off to the scheduler process
     * and the first token's way back through the detokenizer); fitted by
     * tools/fit_ttft.py on the serving benchmarks it names, for each GPU
     * vendor (the preset's: [0] NVIDIA and the rest, [1] AMD, whose ROCm
     * builds measured a far larger gap) and model kind ([1] DeepSeek-class,
     * MLA over fine-grained experts, the only MoE the benchmarks measured;
     * [0] every other model, dense or a coarser MoE); 0: none of its
     * own, every engine's then (core/speed_ttft.h speed_request_overhead_s).
     * An engine with none at all (llama.cpp's bench, the generic rule) adds
     * no such term. */
    double request_overhead_s[2][2];
    /* The GPU family (the preset's `family`) on which this engine's decode of
     * several sequences at once was measured far slower than the bandwidth
     * model gives (doc/SPEED-VALIDATION.md): the plan warns there; NULL none. */
    const char *batched_decode_unvalidated_family;
    /* `kvplan simulate` models its scheduler at this rule (core/sim.h);
     * NULL: not simulated */
    bool (*simulated)(enum engine_rule rule);
    struct engine_sched sched;   /* ... with this scheduler */

    /* Words the views use. */
    const char *runtime_words;   /* SEG_RUNTIME: "activations+rt", "compute buffers" */
    const char *reserved_words;  /* SEG_RESERVED: "headroom", "outside budget", "kept free" */
    const char *server_command;  /* one server process: "llama-server" */
    /* Weights planned in a precision the checkpoint is not in: the option
     * that quantizes a 16-bit checkpoint to fp8 as it loads ("--quantization";
     * NULL: none), and the launch remark's end saying what to serve instead. */
    const char *quant_online;
    const char *quant_serve;

    struct engine_host host;

    /* The rule. cell_cost (NULL: kvcost's heads split over the attention TP)
     * stores a layer's KV the engine's way once kvcost_compute has run;
     * own_cost_rows: the budget writes the per-token rows itself. budget
     * writes c->b from the earlier stages in c (core/budget.h); launch and
     * log (NULL for the generic rule) then write c->b->engine's launch line,
     * log lines and note, when explaining. */
    void (*cell_cost)(const struct scenario *s, struct kv_cost *k);
    bool own_cost_rows;
    void (*budget)(const struct policy_ctx *c);
    void (*launch)(const struct policy_ctx *c);
    void (*log)(const struct policy_ctx *c);
    /* A plan over several nodes or servers (core/launch.h): the count of
     * commands to run one by one, each its own line; with out, command k
     * (from 0) built from the launch line. 0 or 1: the launch line alone. */
    int (*servers)(const struct placement *l, const char *launch, int k, struct shell_line *out);
};

/* The descriptor of kind k (the generic rule's for a kind out of range). */
const struct engine_desc *engine_desc(enum engine_kind k);

/* kvplan's engine options, in the order a command line gives them. */
const struct engine_option *engine_options(size_t *count);

/* The option at offset in struct engine_flags, or NULL. */
const struct engine_option *engine_option_at(size_t offset);

/* The option validation names field, or NULL. */
const struct engine_option *engine_option_of(enum scenario_field field);

/* Whether the option holds a value (not zero, not DTYPE_AUTO); the value as
 * a double, and exactly as an integer (a fraction's is 0). */
bool engine_option_given(const struct engine_flags *f, const struct engine_option *o);
double engine_option_value(const struct engine_flags *f, const struct engine_option *o);
uint64_t engine_option_uint(const struct engine_flags *f, const struct engine_option *o);

/* Sets the option to v (rounded for counts and sizes). */
void engine_option_set(struct engine_flags *f, const struct engine_option *o, double v);

/* The engine's knob of that option, or of that planner role; NULL when it has none. */
const struct engine_knob *engine_knob(const struct engine_desc *d, size_t offset);
const struct engine_knob *engine_knob_role(const struct engine_desc *d, enum knob_role role);

/* The first engine with a knob of that option, and that knob (the bounds of
 * an option engines share), or NULL. */
const struct engine_desc *engine_owner(size_t offset);
const struct engine_knob *engine_knob_any(size_t offset);

/* The most an option takes: its engine's knob's bound (0 without a knob). */
uint64_t engine_option_max(size_t offset);

/* What validation tells an engine given an option it has no knob for:
 * "is a vLLM option (--engine vllm)". */
void engine_refusal(const struct engine_desc *d, const struct engine_option *o, char *buf,
                    size_t size);

/* The serving engines with trait `has`, joined for a sentence: their names or
 * their titles, ", " between them and `last` before the last; the generic
 * rule last when `generic` and it has the trait. */
struct engine_list {
    bool titles;
    const char *last;
    bool generic;
};
void engine_list(bool (*has)(const struct engine_desc *), struct engine_list how, char *buf,
                 size_t size);

/* True at every rule: an engine simulated whatever its version. */
bool engine_any_rule(enum engine_rule rule);
/* Whether e at rule takes --enable-expert-parallel: experts over the DP group
 * (experts_over_dp) or over the TP ranks (experts_over_tp). */
bool engine_expert_parallel(const struct engine_desc *e, enum engine_rule rule);

/* The first engine with trait `has`, or NULL. */
const struct engine_desc *engine_find(bool (*has)(const struct engine_desc *));

/* The knobs given in chosen that to's engine has too (within its bounds),
 * set in to; the others cleared in to. Returns the knob (as chosen's engine
 * labels it) of the first left out, or NULL when all were carried. */
const struct engine_knob *engine_knobs_carry(struct engine_flags *to,
                                             const struct engine_flags *chosen);

/* The vendors an engine runs on, for a sentence: "NVIDIA and AMD" ("any" for all). */
void engine_vendors_text(enum engine_kind k, char *buf, size_t size);

struct diag;
/* The rule of an engine's release ("0.20.1", "b6500"): false, with a
 * message in d, for a string that is no release or one older than the
 * oldest row; a release newer than the newest known leaves a note
 * (note may be NULL). */
bool engine_release_rule(const struct engine_desc *e, const char *release, enum engine_rule *rule,
                         char *note, size_t size, struct diag *d);

/* Whether a release ("0.20.0", "v0.19") comes before `first` ("0.20.1"); false
 * for one that does not parse (a rule's name). */
bool engine_release_before(const char *release, const char *first);
/* The release a rule's releases end before (the next rule's `from`: vllm@0.13
 * holds 0.8 up to 0.14); NULL for the newest rule or one without releases. */
const char *engine_rule_until(const struct engine_desc *e, enum engine_rule rule);

/* The releases row i of e holds for: "from 0.8, before 0.14", "from 0.14
 * (newest known 0.20.1)"; "" for a rule named only. */
void engine_release_range(const struct engine_desc *e, int i, char *buf, size_t size);

#endif
