/* options_table: the one table of kvplan's options and the one of its
 * commands. A row says how an option is spelled (core/optname.h), which
 * commands take it, how its value is parsed and bounded and where it is
 * stored, the scenario field it sets, its help and how a shell completes
 * it. getopt_long, every --help, the completion scripts and the names in
 * error messages are all made from these rows; tests check the man page
 * against them. */
#ifndef KVPLAN_CLI_OPTIONS_TABLE_H
#define KVPLAN_CLI_OPTIONS_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/options.h"

struct option_row;

/* Parses arg into o where the row says; false with d naming row->flag. */
typedef bool option_parser(const struct option_row *row, const char *arg, struct options *o,
                           struct diag *d);

/* What a shell offers for an option's value or a command's word. */
enum option_complete {
    COMPLETE_NONE,
    COMPLETE_FILE,
    COMPLETE_DIR,
    COMPLETE_GPU,   /* the catalogue's GPU ids */
    COMPLETE_MODEL, /* the catalogue's model ids */
    COMPLETE_ENGINE,
    COMPLETE_DTYPE,    /* every precision (weights) */
    COMPLETE_KV_DTYPE, /* the precisions a cache may take */
    COMPLETE_WORDS     /* the row's words */
};

struct option_row {
    const char *flag;     /* "--gpu", from core/optname.h */
    char short_name;      /* 'o' for -o, or 0 */
    unsigned commands;    /* CMD_BIT of each command that takes it */
    option_parser *parse; /* NULL: a flag without a value */
    size_t offset;        /* where parse stores the value in struct options */
    uint64_t min, max;    /* a count's or token count's bounds (max 0: none) */
    double lo, hi;        /* a number's bounds */
    int field;            /* the scenario field it sets plus 1; 0 for none */
    const char *metavar;  /* "ID" in "--gpu ID" */
    const char *help;     /* its description; "": listed on the line of the row
                           * before, and described by it */
    bool unlisted;        /* --help does not list it (its usage names it) */
    const char *section;  /* a heading --help prints before it */
    enum option_complete complete;
    const char *words; /* COMPLETE_WORDS: the values, separated by spaces */
};

extern const struct option_row options_table[OPT_COUNT];

/* How the command line spells option id, for messages ("--gpus"). */
#define OPTION_FLAG(id) (options_table[(id)].flag)

struct cli_command_info {
    const char *name; /* "plan"; NULL for the planner */
    int (*run)(int argc, char **argv);
    const char *synopsis; /* "plan [options]": its line of `kvplan --help` */
    const char *about;    /* what it does, on that line and in completions */
    const char *head;     /* --help before the option list */
    const char *tail;     /* --help after it */
    int help_width;       /* the column of the options' descriptions */
    bool exact;           /* options must be spelled out in full */
    bool takes_words;     /* words besides the options (list gpus, a log file) */
    const char *args[2];  /* completion of its first and second word: the words, or
                           * "@file", or "@ids" (the ids of the kind the first word names) */
};

extern const struct cli_command_info cli_commands[CMD_COUNT];

/* The command named `name`, or CMD_COUNT. */
enum cli_command cli_command_find(const char *name);

/* Whether row id is one of cmd's options. */
bool options_row_takes(enum option_id id, enum cli_command cmd);

/* Prints cmd's --help: its head, the option list (the rows of plan and the
 * planner for those two, else the rows of cmd's own), its tail. */
void options_print_help(enum cli_command cmd, FILE *out);

/* The parsers the table refers to (options_parsers.c, options_spec.c,
 * options_host.c, options_sim.c). */
option_parser opt_string, opt_nonempty, opt_count32, opt_engine_count32, opt_count64, opt_tokens, opt_number,
    opt_fraction, opt_size, opt_logged_size, opt_dtype, opt_units, opt_plan_format,
    opt_solve_format, opt_sweep_format, opt_catalog_format, opt_screen_size, opt_engine,
    opt_lora_targets, opt_presets, opt_vary, opt_solve_gpu, opt_host_kv, opt_hit_rate,
    opt_draft_model, opt_spec_method, opt_rate, opt_range_ratio, opt_goodput, opt_share,
    opt_sim_format, opt_router, opt_capacity_policy, opt_ngl, opt_n_cpu_moe, opt_ubatch, opt_host_memory,
    opt_host_bandwidth, opt_cpu;

#endif
