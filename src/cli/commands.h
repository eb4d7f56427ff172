/* commands: the subcommands of kvplan. Each returns the process exit status:
 * 0 success, 1 a --require-users gate not met, 2 bad usage or input. */
#ifndef KVPLAN_CLI_COMMANDS_H
#define KVPLAN_CLI_COMMANDS_H

int cmd_plan(int argc, char **argv);
int cmd_planner(int argc, char **argv); /* the interactive planner */
int cmd_list(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_solve(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_import_hf(int argc, char **argv);

/* Prints "kvplan: message" to stderr and returns 2. */
int cli_fail(const char *message);

/* The message for getopt_long's ':' (missing value) or '?' (unknown option)
 * about argv[optind - 1], printed like cli_fail; returns 2. */
int cli_option_error(int c, char **argv);

/* Splits argv for commands with flags of their own: the rest (argv[0]
 * first) goes to options_parse. Returns a malloc'ed array (NULL-terminated). */
char **cli_rest_args(int argc, char **argv);

#endif
