/* kvplan: capacity planner for serving large language models.
 * main dispatches to a subcommand; everything else lives below it. */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "core/diag.h"
#include "core/version.h"

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: kvplan [options]              open the planner\n"
            "       kvplan plan [options]         print the plan (text, json or markdown)\n"
            "       kvplan list gpus|models       the preset catalogue\n"
            "       kvplan show gpu|model ID      one preset as JSON\n"
            "       kvplan calibrate LOGFILE      read an engine's startup log\n"
            "       kvplan solve --users N ...    the GPUs, context or utilisation for N users\n"
            "       kvplan sweep --vary AXIS ...  a table over context, GPU count, dtype, GPU or model\n"
            "       kvplan import-hf config.json  a model preset from a Hugging Face config\n"
            "       kvplan --version\n\n"
            "How many concurrent users fit on a GPU, and why: the KV cache of every token\n"
            "of every open conversation, in every layer, against the memory left after the\n"
            "weights. `kvplan COMMAND --help` describes each command.\n\n%s",
            options_help());
}

int main(int argc, char **argv)
{
    /* LC_CTYPE only: strtod and printf keep the decimal point. */
    setlocale(LC_CTYPE, "");
    if (argc >= 2) {
        const char *cmd = argv[1];
        if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
            printf("kvplan %s\n", KVPLAN_VERSION);
            return 0;
        }
        if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(cmd, "plan") == 0)
            return cmd_plan(argc - 1, argv + 1);
        if (strcmp(cmd, "list") == 0)
            return cmd_list(argc - 1, argv + 1);
        if (strcmp(cmd, "show") == 0)
            return cmd_show(argc - 1, argv + 1);
        if (strcmp(cmd, "calibrate") == 0)
            return cmd_calibrate(argc - 1, argv + 1);
        if (strcmp(cmd, "solve") == 0)
            return cmd_solve(argc - 1, argv + 1);
        if (strcmp(cmd, "sweep") == 0)
            return cmd_sweep(argc - 1, argv + 1);
        if (strcmp(cmd, "import-hf") == 0)
            return cmd_import_hf(argc - 1, argv + 1);
        if (cmd[0] != '-') {
            struct diag d = {0}; /* the diag escapes what the word holds */
            diag_fail(&d, "'%s' is not a command (plan, list, show, calibrate, solve, sweep, "
                          "import-hf; see --help)", cmd);
            return cli_fail(d.message);
        }
    }
    return cmd_planner(argc, argv);
}
