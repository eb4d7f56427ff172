/* options_help: a command's --help, its option list made from the table:
 * "  --name METAVAR" then the description at the command's column (or two
 * spaces further when the name is longer), continuation lines under it. */
#include "cli/options_table.h"

#include <string.h>

/* Whether cmd's --help lists row r: plan and the planner list every option
 * they take; the other commands only their own, not plan's. */
static bool listed(const struct option_row *r, enum cli_command cmd)
{
    if (!(r->commands & CMD_BIT(cmd)) || r->help == NULL || r->unlisted)
        return false;
    return cmd == CMD_PLAN || cmd == CMD_PLANNER || !(r->commands & CMD_BIT(CMD_PLAN));
}

static size_t left_column(const struct option_row *r, char *buf, size_t at, size_t size)
{
    int n = snprintf(buf + at, size - at, "%s%s%s%s", at ? ", " : "", r->flag,
                     r->metavar ? " " : "", r->metavar ? r->metavar : "");
    return n < 0 ? at : at + (size_t)n < size ? at + (size_t)n : size - 1;
}

static void print_entry(FILE *out, int width, const char *left, const char *desc)
{
    int n = (int)strlen(left);
    fprintf(out, "  %s%*s", left, n < width ? width - n : 2, "");
    for (const char *p = desc; *p; p++) {
        fputc(*p, out);
        if (*p == '\n')
            fprintf(out, "%*s", width + 2, "");
    }
    fputc('\n', out);
}

/* kvplan --help: a line for each command */
static void print_overview(FILE *out)
{
    for (int c = 0; c < CMD_COUNT; c++)
        fprintf(out, "%s%-21s  %s\n", c ? "       kvplan " : "Usage: kvplan ",
                cli_commands[c].synopsis, cli_commands[c].about);
    fprintf(out, "       kvplan %s\n\n", OPTION_FLAG(OPT_VERSION));
}

void options_print_help(enum cli_command cmd, FILE *out)
{
    const struct cli_command_info *ci = &cli_commands[cmd];
    if (cmd == CMD_PLANNER)
        print_overview(out);
    fputs(ci->head, out);
    for (int i = 0; i < OPT_COUNT; i++) {
        const struct option_row *r = &options_table[i];
        if (!listed(r, cmd) || r->help[0] == '\0')
            continue;
        /* the rows after it with an empty help share its line */
        char left[256];
        size_t at = left_column(r, left, 0, sizeof left);
        for (int j = i + 1;
             j < OPT_COUNT && listed(&options_table[j], cmd) && options_table[j].help[0] == '\0';
             j++)
            at = left_column(&options_table[j], left, at, sizeof left);
        if (r->section)
            fputs(r->section, out);
        print_entry(out, ci->help_width, left, r->help);
    }
    if (ci->tail)
        fputs(ci->tail, out);
}
