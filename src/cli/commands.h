/* commands: the subcommands of kvplan. Each returns the process exit status:
 * 0 success, 1 a --require-users gate not met, 2 bad usage or input. */
#ifndef KVPLAN_CLI_COMMANDS_H
#define KVPLAN_CLI_COMMANDS_H

#include "cli/options.h"

int cmd_plan(int argc, char **argv);
int cmd_planner(int argc, char **argv); /* the interactive planner */
int cmd_list(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_solve(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_import_hf(int argc, char **argv);
int cmd_import_gguf(int argc, char **argv);

/* Writes an imported model's preset to output (NULL: standard output) once
 * it loads back as the same preset; path names the source in messages.
 * Returns the exit status. */
struct model_spec;
int import_write_preset(const char *path, const struct model_spec *m, const char *output);
int cmd_completion(int argc, char **argv);

/* `kvplan __complete ids gpu|model|engine|dtype|kv-dtype [--presets DIR]...`:
 * the words a completion script offers, one a line; `__complete commands`
 * and `__complete options COMMAND` (planner for kvplan's own): the commands,
 * and a command's options as "--name<TAB>METAVAR<TAB>short letter" ("-" for
 * none), for the scripts' tests. Not listed in --help: the scripts' helper. */
int cmd_complete(int argc, char **argv);

/* Prints "kvplan: message" to stderr and returns 2. */
int cli_fail(const char *message);

/* A price's digits as the planner and plan print it, without the dollar
 * sign ("0.0188" for 0.01875: a decimal tie up; more decimals below a
 * tenth of a cent); "n/a" below 0. Returns a pointer into buf. */
const char *cli_usd_digits(double v, char buf[32]);

/* Parses cmd's options into o (options_parse_command): CLI_PARSED to go
 * on; else the exit status, the message or the --help printed. */
enum { CLI_PARSED = -1 };
int cli_parse(enum cli_command cmd, int argc, char **argv, struct options *o);

#endif
