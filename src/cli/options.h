/* options: the scenario options shared by `kvplan plan` and the planner
 * (`kvplan [options]`), parsed with getopt_long into plain values, then
 * applied to a scenario built from the catalogue or a snapshot. */
#ifndef KVPLAN_CLI_OPTIONS_H
#define KVPLAN_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/plan.h"
#include "io/catalog.h"

enum output_format { FORMAT_TEXT, FORMAT_JSON, FORMAT_MARKDOWN };

enum { OPTIONS_PRESET_DIRS_MAX = 16 };

struct options {
    const char *gpu_id;   /* NULL = default or the snapshot's */
    const char *model_id;
    const char *load_path;
    const char *scenario_label; /* --scenario: one scenario of a --load session */
    const char *export_path;
    const char *preset_dirs[OPTIONS_PRESET_DIRS_MAX];
    int preset_dir_count;
    enum output_format format;
    bool has_require_users;
    uint64_t require_users;
    /* Each knob is applied only when given, so --load plus one option changes one thing. */
    bool has_gpus, has_context, has_prefix, has_avg, has_block, has_headroom, has_kv_heads;
    bool has_kv_dtype, has_weight_dtype, has_units, full_attention;
    uint32_t gpus, kv_heads;
    uint64_t context, prefix, avg, block;
    double headroom;
    enum dtype kv_dtype, weight_dtype;
    enum unit_system units;
    const char *dump_path; /* planner: render to a file instead of the terminal */
    const char *keys;      /* planner dump: keys to feed first */
    int dump_cols, dump_rows;
    bool mono, ascii, dump_attrs;
    bool has_engine, has_tp, has_pp, dp_attention, expert_parallel;
    uint32_t pp;
    enum engine_kind engine;
    enum engine_rule engine_rule;
    uint32_t tp;
    struct engine_flags flags; /* only the fields given are non-zero */
    const char *calibration_path;
    bool has_vram, has_weights, has_price;
    uint64_t concurrency, prompt;   /* 0 = not given */
    double min_tok_s, max_ttft, mbu, mfu;
    uint64_t vram, weights;
    double price;
    /* speculative decoding (options_spec.c) */
    const char *draft_model_id; /* "none" turns it off */
    bool has_spec_method;
    enum spec_method spec_method;
    uint32_t spec_tokens;       /* 0 = not given */
    bool has_host_kv, has_hit_rate; /* the host memory tier (options_host.c) */
    uint64_t host_kv;
    double hit_rate;
    bool has_max_loras;
    uint32_t max_loras, max_lora_rank, lora_targets; /* 0 = not given */
    bool has_images;
    uint32_t images, image_tokens; /* image_tokens 0 = not given */
};

/* getopt_long values of the speculative-decoding options (options_spec.c). */
enum { OPT_SPEC_FIRST = 1000, OPT_DRAFT_MODEL = OPT_SPEC_FIRST, OPT_SPEC_TOKENS, OPT_SPEC_METHOD };

/* Parses one speculative-decoding option's value into o. */
bool options_spec_parse(int opt, const char *arg, struct options *o, struct diag *d);

/* Applies them to s: the draft from the catalogue (with a suggestion when
 * unknown), the method, the token count. */
bool options_spec_apply(const struct options *o, const struct catalog *c, struct scenario *s,
                        struct diag *d);

#define DEFAULT_GPU_ID "h100-sxm"
#define DEFAULT_MODEL_ID "llama-3.1-8b"

/* Parses argv from optind on (getopt_long state is reset). Unknown options
 * and bad values fill d naming the option and value. `help` is set by -h. */
bool options_parse(int argc, char **argv, struct options *o, bool *help, struct diag *d);

/* Every "--name" of argv is exactly one of the scenario options (getopt_long
 * would take "--for" for "--format"); false with d naming the first that is
 * not, and its nearest, as "cmd: '--for' is not an option ...". */
bool options_exact_names(const char *cmd, int argc, char **argv, struct diag *d);

/* Loads the catalogue (embedded, user dir, --presets). */
bool options_load_catalog(const struct options *o, struct catalog *c, struct diag *d);

/* Builds the scenario: the snapshot or defaults, then every option given.
 * Unknown ids name the closest ones. */
bool options_scenario(const struct options *o, const struct catalog *c, struct scenario *s,
                      struct diag *d);

/* options_load_catalog then options_scenario, the catalogue freed again on
 * failure; the caller frees it (catalog_free) on success. */
bool options_load(const struct options *o, struct catalog *c, struct scenario *s,
                  struct diag *d);

/* A whole count for option opt ("--gpus: '2.5' is not a whole number: a
 * count cannot be a fraction"); shared by every command's count options. */
bool options_parse_count(const char *opt, const char *arg, uint64_t min, uint64_t max,
                         uint64_t *out, struct diag *d);

/* --host-kv SIZE (host_kv true) or --prefix-hit-rate P into o; and the two
 * applied to s (the hit rate needs a host tier). */
bool options_host_arg(bool host_kv, const char *arg, struct options *o, struct diag *d);
bool options_host_apply(const struct options *o, struct scenario *s, struct diag *d);

/* The option help text (shared by `plan --help` and the planner's --help). */
const char *options_help(void);

#endif
