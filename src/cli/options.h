/* options: every command's options, parsed with getopt_long from the one
 * option table (options_table.h) into plain values, then, for the commands
 * that plan, applied to a scenario built from the catalogue or a snapshot. */
#ifndef KVPLAN_CLI_OPTIONS_H
#define KVPLAN_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/engine_desc.h"
#include "core/plan.h"
#include "core/sim.h"
#include "io/catalog.h"
#include "cli/options_disagg.h"

/* The commands, each a bit in an option's row of the table. */
enum cli_command {
    CMD_PLANNER, /* kvplan [options] */
    CMD_PLAN,
    CMD_LIST,
    CMD_SHOW,
    CMD_CALIBRATE,
    CMD_SOLVE,
    CMD_SWEEP,
    CMD_IMPORT_HF,
    CMD_IMPORT_GGUF,
    CMD_COMPLETION,
    CMD_SIMULATE,
    CMD_COUNT
};
#define CMD_BIT(c) (1u << (c))

/* Every row of the option table, in the order --help lists them. Options of
 * one spelling that mean different things to different commands (--format,
 * solve's repeatable --gpu) are rows of their own. */
enum option_id {
    OPT_GPU,
    OPT_GPUS,
    OPT_MODEL,
    OPT_CONTEXT,
    OPT_KV_DTYPE,
    OPT_WEIGHT_DTYPE,
    OPT_KV_HEADS,
    OPT_PREFIX,
    OPT_HEADROOM,
    OPT_AVG,
    OPT_BLOCK,
    OPT_VRAM,
    OPT_WIRED_LIMIT,
    OPT_WEIGHTS,
    OPT_PRICE,
    OPT_CONCURRENCY,
    OPT_PROMPT,
    OPT_OUTPUT_LEN,
    OPT_MIN_TOK_S,
    OPT_MAX_TTFT,
    OPT_MBU,
    OPT_MFU,
    OPT_STEP_OVERHEAD,
    OPT_HOST_KV,
    OPT_HIT_RATE,
    OPT_FULL_ATTENTION,
    OPT_UNITS,
    OPT_PRESETS,
    OPT_LOAD,
    OPT_SCENARIO,
    OPT_EXPORT,
    OPT_EXPORT_SVG,
    OPT_REQUIRE_USERS,
    OPT_FORMAT,
    OPT_DRAFT_MODEL,
    OPT_SPEC_METHOD,
    OPT_SPEC_TOKENS,
    OPT_ENGINE,
    OPT_TP,
    OPT_PP,
    OPT_DP_ATTENTION,
    OPT_EXPERT_PARALLEL,
    OPT_ALLOW_LONG_CONTEXT,
    OPT_MAX_LORAS,
    OPT_MAX_LORAS_PER_BATCH,
    OPT_MAX_LORA_RANK,
    OPT_LORA_TARGETS,
    OPT_IMAGES,
    OPT_IMAGE_TOKENS,
    OPT_UTIL,
    OPT_MAX_SEQS,
    OPT_MAX_BATCHED,
    OPT_MEM_FRACTION,
    OPT_CHUNKED,
    OPT_MAX_RUNNING,
    OPT_PARALLEL,
    OPT_FIT_TARGET,
    OPT_KV_DTYPE_V,
    OPT_N_GPU_LAYERS,
    OPT_N_CPU_MOE,
    OPT_NO_KV_OFFLOAD,
    OPT_UBATCH,
    OPT_HOST_MEMORY,
    OPT_HOST_BANDWIDTH,
    OPT_CPU,
    OPT_FREE_FRACTION,
    OPT_GPU_TOTAL,
    OPT_NON_KV,
    OPT_KV_MEMORY,
    OPT_CALIBRATION,
    OPT_DUMP,
    OPT_SIZE,
    OPT_KEYS,
    OPT_MONO,
    OPT_ASCII,
    OPT_DUMP_ATTRS,
    OPT_VERSION,
    OPT_USERS,
    OPT_MAX_CONTEXT,
    OPT_UTILIZATION,
    OPT_SOLVE_GPU,
    OPT_MAX_GPUS,
    OPT_MAX_PP,
    OPT_MAX_PLANS,
    OPT_SOLVE_FORMAT,
    OPT_VARY,
    OPT_SWEEP_FORMAT,
    OPT_MAX_ROWS,
    OPT_LOG_GPU,
    OPT_SAVE,
    OPT_ENGINE_VERSION,
    OPT_ID,
    OPT_NAME,
    OPT_OUTPUT,
    OPT_HF_ID,
    OPT_CATALOG_FORMAT,
    OPT_NUM_PROMPTS,
    OPT_REQUEST_RATE,
    OPT_BURSTINESS,
    OPT_RANDOM_INPUT_LEN,
    OPT_RANDOM_OUTPUT_LEN,
    OPT_RANDOM_RANGE_RATIO,
    OPT_SEED,
    OPT_MAX_CONCURRENCY,
    OPT_GOODPUT,
    OPT_ROUTER,
    OPT_CAPACITY_POLICY,
    OPT_SCHEDULER_RECV_INTERVAL,
    OPT_MAX_PREFILL_TOKENS,
    OPT_WARM_PROMPTS,
    OPT_GOODPUT_TARGET,
    OPT_PARETO,
    OPT_COMPARE,
    OPT_DATASET,
    OPT_SIM_FORMAT,
    OPT_DISAGG_IDS /* options_disagg.h */
    OPT_HELP,
    OPT_COUNT
};

enum output_format { FORMAT_TEXT, FORMAT_JSON, FORMAT_MARKDOWN };
enum sweep_format { SWEEP_TABLE, SWEEP_CSV, SWEEP_MARKDOWN, SWEEP_JSON };

enum { OPTIONS_PRESET_DIRS_MAX = 16, OPTIONS_SOLVE_GPUS_MAX = 64, OPTIONS_VARY_MAX = 3 };

struct options {
    bool given[OPT_COUNT]; /* each option on the command line; a flag is only this */
    const char *gpu_id;    /* NULL = default or the snapshot's */
    const char *model_id;
    const char *load_path;
    const char *scenario_label; /* --scenario: one scenario of a --load session */
    const char *export_path;
    const char *export_svg_path; /* --export-svg: the plan's picture */
    const char *calibration_path;
    const char *preset_dirs[OPTIONS_PRESET_DIRS_MAX];
    int preset_dir_count;
    enum output_format format;
    uint64_t require_users;
    /* Each knob is applied only when given, so --load plus one option changes one thing. */
    uint32_t gpus, kv_heads, tp, pp;
    uint64_t context, prefix, avg, block;
    double headroom;
    enum dtype kv_dtype, weight_dtype;
    enum unit_system units;
    enum engine_kind engine;
    enum engine_rule engine_rule;
    char engine_release_asked[24]; /* "0.11" of --engine vllm@0.11; "" for a rule's name */
    struct engine_flags flags; /* only the fields given are non-zero */
    uint64_t concurrency, prompt, output_tokens; /* output_tokens: --output-len */
    double min_tok_s, max_ttft, mbu, mfu;
    double step_overhead; /* seconds; given[OPT_STEP_OVERHEAD] says whether given (0 counts) */
    uint64_t vram, weights;
    uint32_t wired_limit_mb;
    double price;
    const char *draft_model_id; /* speculative decoding (options_spec.c); "none" turns it off */
    enum spec_method spec_method;
    uint32_t spec_tokens;
    uint64_t host_kv; /* the host memory tier (options_host.c) */
    struct offload_opts offload; /* llama.cpp's layers in host memory (options_offload.c) */
    double hit_rate;
    uint32_t max_loras, max_lora_rank, lora_targets;
    uint32_t images, image_tokens;
    const char *dump_path; /* planner: render to a file instead of the terminal */
    const char *keys;      /* planner dump: keys to feed first */
    int dump_cols, dump_rows;
    /* solve */
    uint64_t users, max_plans;
    uint32_t max_gpus, max_pp;
    const char *solve_gpus[OPTIONS_SOLVE_GPUS_MAX]; /* each --gpu, in order */
    int solve_gpu_count;
    /* sweep */
    const char *varies[OPTIONS_VARY_MAX];
    int vary_count;
    enum sweep_format sweep_format;
    uint64_t max_rows;
    /* simulate (options_sim.c): vllm bench serve's workload */
    uint64_t num_prompts, input_len, output_len, seed, max_concurrency;
    double request_rate, burstiness, range_ratio;
    double goodput_ms[3]; /* ttft, tpot, e2el */
    bool goodput_set[3];
    enum sim_router router; /* given: OPT_ROUTER */
    enum sim_capacity capacity; /* given: OPT_CAPACITY_POLICY */
    uint32_t recv_interval; /* given: OPT_SCHEDULER_RECV_INTERVAL */
    uint32_t max_prefill_tokens; /* given: OPT_MAX_PREFILL_TOKENS */
    uint64_t warm_prompts; /* given: OPT_WARM_PROMPTS */
    double goodput_target; /* solve: the share of requests that must keep them */
    const char *compare_path; /* a benchmark's result to set beside the run */
    const char *dataset_path; /* simulate --dataset: a request trace (io/trace.h) */
    struct disagg_options disagg; /* --disaggregated's pools and link */
    /* calibrate, import-hf, list and show */
    const char *save_path, *hf_id, *hf_name, *output_path;
    const char *hf_repo; /* import-hf --hf-id: the Hugging Face id of the launch lines */
    const char *engine_version; /* calibrate: the engine's version the benchmark ran */
    bool json;
};

#define DEFAULT_GPU_ID "h100-sxm"
#define DEFAULT_MODEL_ID "llama-3.1-8b"

/* Parses argv from optind on for the command cmd: the options of its rows
 * of the table, as --name value or --name=value (getopt_long state is
 * reset). Unknown options and bad values fill d naming the option and value.
 * `help` is set by -h. Commands without words of their own refuse a word
 * that is not an option; the others find theirs from optind on. */
bool options_parse_command(enum cli_command cmd, int argc, char **argv, struct options *o,
                           bool *help, struct diag *d);

/* options_parse_command for kvplan plan. */
bool options_parse(int argc, char **argv, struct options *o, bool *help, struct diag *d);

/* Loads the catalogue (embedded, user dir, --presets). */
bool options_load_catalog(const struct options *o, struct catalog *c, struct diag *d);

/* Builds the scenario: the snapshot or defaults, then every option given.
 * Unknown ids name the closest ones. */
bool options_scenario(const struct options *o, const struct catalog *c, struct scenario *s,
                      struct diag *d);

/* The prefix the last options_scenario was asked for when it held it to the
 * context less one token (the planner says so on its status line); 0: none held. */
uint64_t options_prefix_asked(void);

/* options_load_catalog then options_scenario, the catalogue freed again on
 * failure; the caller frees it (catalog_free) on success. */
bool options_load(const struct options *o, struct catalog *c, struct scenario *s, struct diag *d);

/* A whole count for option opt ("--gpus: '2.5' is not a whole number: a
 * count cannot be a fraction"); shared by every command's count options. */
bool options_parse_count(const char *opt, const char *arg, uint64_t min, uint64_t max,
                         uint64_t *out, struct diag *d);

/* The host memory tier and speculative decoding applied to s (the hit rate
 * needs a host tier; a draft comes from the catalogue, with a suggestion
 * when unknown). */
bool options_host_apply(const struct options *o, struct scenario *s, struct diag *d);

/* llama.cpp's placement options and the host's memory applied to s; the
 * host memory, when neither given nor loaded, is this machine's
 * (io/hostmem.h). Rewrites llama.cpp's single-dash spellings (-ngl,
 * -ncmoe, -nkvo) in argv to the long options, before getopt_long. */
bool options_offload_apply(const struct options *o, struct scenario *s, struct diag *d);
void options_offload_spellings(int argc, char **argv);
bool options_spec_apply(const struct options *o, const struct catalog *c, struct scenario *s,
                        struct diag *d);

/* After the options given on top of a calibration (options_calibration.c):
 * warns on standard error where the plan's GPU, model or engine is not the
 * calibration's, and moves a logged KV cache size to the memory fraction
 * given. */
struct calibration_source;
/* A row of solve or sweep planned on a scenario its calibration does not
 * match (another GPU, model, engine): the mismatch said on standard error,
 * once for each text (the rows of one GPU say one). */
void options_calibration_row_warning(const struct scenario *s);
/* After the rows: how many more GPUs than the few named took the calibration. */
void options_calibration_rows_done(void);
bool options_calibration_on_top(const struct options *o, const struct catalog *cat,
                                const struct calibration_source *c, struct scenario *s,
                                struct diag *d);

#endif
