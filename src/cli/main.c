/* kvplan: capacity planner for serving large language models.
 * main dispatches to a subcommand; everything else lives below it. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options_table.h"
#include "core/diag.h"
#include "core/version.h"

int main(int argc, char **argv)
{
    if (argc >= 2) {
        const char *cmd = argv[1];
        if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
            printf("kvplan %s\n", KVPLAN_VERSION);
            return 0;
        }
        if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
            options_print_help(CMD_PLANNER, stdout);
            return 0;
        }
        if (strcmp(cmd, "__complete") == 0)
            return cmd_complete(argc - 1, argv + 1);
        enum cli_command c = cli_command_find(cmd);
        if (c != CMD_COUNT)
            return cli_commands[c].run(argc - 1, argv + 1);
        if (cmd[0] != '-') {
            char names[256] = "";
            size_t n = 0;
            for (int i = 0; i < CMD_COUNT && n < sizeof names; i++)
                if (cli_commands[i].name)
                    n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", n ? ", " : "",
                                          cli_commands[i].name);
            struct diag d = {0}; /* the diag escapes what the word holds */
            diag_fail(&d, "'%s' is not a command (%s; see --help)", cmd, names);
            return cli_fail(d.message);
        }
    }
    return cmd_planner(argc, argv);
}
