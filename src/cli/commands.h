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

#endif
