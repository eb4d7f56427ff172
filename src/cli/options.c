/* options: getopt_long over the rows of the option table a command takes. */
#include "cli/options.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/options_table.h"

/* getopt_long's value of a row: past every char a short option can be */
enum { OPT_VAL = 256 };

/* A command's getopt_long tables: the long options and "h", "o:" ... */
struct getopt_set {
    struct option longopts[OPT_COUNT + 1];
    char shorts[2 * OPT_COUNT + 2];
};

static void getopt_set_build(enum cli_command cmd, struct getopt_set *g)
{
    int n = 0;
    size_t k = 0;
    g->shorts[k++] = ':'; /* a missing value is ':', told apart from an unknown option */
    for (int i = 0; i < OPT_COUNT; i++) {
        const struct option_row *r = &options_table[i];
        if (!options_row_takes((enum option_id)i, cmd))
            continue;
        g->longopts[n++] = (struct option){r->flag + 2, r->parse ? required_argument : no_argument,
                                           NULL, OPT_VAL + i};
        if (r->short_name) {
            g->shorts[k++] = r->short_name;
            if (r->parse)
                g->shorts[k++] = ':';
        }
    }
    g->longopts[n] = (struct option){0, 0, 0, 0};
    g->shorts[k] = '\0';
}

static int short_row(enum cli_command cmd, int c)
{
    for (int i = 0; i < OPT_COUNT; i++)
        if (options_table[i].short_name == c && options_row_takes((enum option_id)i, cmd))
            return i;
    return -1;
}

bool options_parse_count(const char *opt, const char *arg, uint64_t min, uint64_t max,
                         uint64_t *out, struct diag *d)
{
    struct diag inner = {0};
    if (!units_parse_count(arg, min, max, out, &inner))
        return diag_fail(d, "%s: %s", opt, inner.message);
    return true;
}

/* Every "--name" of argv is exactly one of the command's options (getopt_long
 * would take "--for" for "--format"); false with d naming the first that is
 * not, and its nearest, as "cmd: '--for' is not an option ...". */
static bool exact_names(const char *cmd, const struct option *longopts, int argc, char **argv,
                        struct diag *d)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0)
            break;
        if (strncmp(a, "--", 2) != 0)
            continue;
        const char *eq = strchr(a, '=');
        size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        const struct option *hit = NULL, *near = NULL;
        int nears = 0;
        for (const struct option *p = longopts; p->name; p++) {
            if (strlen(p->name) == len && strncmp(p->name, a + 2, len) == 0)
                hit = p;
            else if (strncmp(p->name, a + 2, len) == 0)
                near = p, nears++;
        }
        int shown = (int)(len + 2 < 60 ? len + 2 : 60);
        if (hit == NULL && nears >= 1)
            return diag_fail(d,
                             "%s: '%.*s' is not an option (options are not abbreviated: "
                             "--%s%s?)",
                             cmd, shown, a, near->name, nears > 1 ? " or another" : "");
        if (hit == NULL)
            return diag_fail(d, "%s: '%.*s' is not an option", cmd, shown, a);
        if (hit->has_arg == required_argument && eq == NULL)
            i++; /* its value */
    }
    return true;
}

/* The message for what getopt_long refused: a missing value (':'), a value
 * given to a flag, or an unknown option, named as argv has it. */
static bool refused(enum cli_command cmd, int c, char **argv, struct diag *d)
{
    const char *word = argv[optind - 1];
    if (c == ':')
        return diag_fail(d, "%s: needs a value", word);
    if (optopt >= OPT_VAL && optopt < OPT_VAL + OPT_COUNT && strchr(word, '='))
        return diag_fail(d, "%s: takes no value", options_table[optopt - OPT_VAL].flag);
    size_t len = strcspn(word, "=");
    for (int id = 0; id < OPT_COUNT; id++) { /* another command's option: say whose */
        if (strlen(options_table[id].flag) != len || strncmp(options_table[id].flag, word, len))
            continue;
        char whose[160] = "";
        int many = 0;
        for (int k = 0, n = 0; k < CMD_COUNT; k++)
            if ((options_table[id].commands & CMD_BIT(k)) && cli_commands[k].name &&
                n < (int)sizeof whose) {
                n += snprintf(whose + n, sizeof whose - (size_t)n, "%s%s", n ? ", " : "",
                              cli_commands[k].name);
                many++;
            }
        if (whose[0])
            return diag_fail(d, "%.*s: not an option of %s (%s take%s it)", (int)len, word,
                             cli_commands[cmd].name ? cli_commands[cmd].name : "the planner",
                             whose, many > 1 ? "" : "s");
    }
    return diag_fail(d, "%s: unknown option (see --help)", word);
}

/* What the options say together, checked once all are read. */
static bool options_check(enum cli_command cmd, const struct options *o, struct diag *d)
{
    if (cmd != CMD_PLANNER && cmd != CMD_PLAN)
        return true;
    /* these only shape a dump: alone they would be ignored without a word */
    const char *dump_only = o->given[OPT_SIZE]         ? options_table[OPT_SIZE].flag
                            : o->given[OPT_KEYS]       ? options_table[OPT_KEYS].flag
                            : o->given[OPT_DUMP_ATTRS] ? options_table[OPT_DUMP_ATTRS].flag
                                                       : NULL;
    if (dump_only && !o->dump_path)
        return diag_fail(d, "%s: only with %s FILE (it shapes the dumped screen)", dump_only,
                         options_table[OPT_DUMP].flag);
    return true;
}

bool options_parse_command(enum cli_command cmd, int argc, char **argv, struct options *o,
                           bool *help, struct diag *d)
{
    struct getopt_set g;
    memset(o, 0, sizeof *o);
    *help = false;
    getopt_set_build(cmd, &g);
    options_offload_spellings(argc, argv);
    if (cli_commands[cmd].exact && !exact_names(cli_commands[cmd].name, g.longopts, argc, argv, d))
        return false;
    optind = 0; /* a full reset of getopt's state */
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, g.shorts, g.longopts, NULL)) != -1) {
        int id = c >= OPT_VAL ? c - OPT_VAL : c == ':' || c == '?' ? -1 : short_row(cmd, c);
        if (id < 0)
            return refused(cmd, c, argv, d);
        const struct option_row *r = &options_table[id];
        if (r->parse && !r->parse(r, optarg, o, d))
            return false;
        o->given[id] = true;
    }
    *help = o->given[OPT_HELP];
    if (optind < argc && !cli_commands[cmd].takes_words)
        return diag_fail(d, "'%s': unexpected argument (see --help)", argv[optind]);
    return options_check(cmd, o, d);
}

bool options_parse(int argc, char **argv, struct options *o, bool *help, struct diag *d)
{
    return options_parse_command(CMD_PLAN, argc, argv, o, help, d);
}
