/* __complete: what a completion script asks kvplan while a word is
 * completed (the catalogue's ids, with any --presets on the line) and the
 * option table as the tests read it. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options_table.h"
#include "core/engine.h"

static bool takes(int id, int cmd)
{
    return options_row_takes((enum option_id)id, (enum cli_command)cmd);
}

/* The engines --engine takes, each with the rules it has ("vllm@0"). */
static void print_engines(void)
{
    for (int k = 0; k < ENGINE_COUNT; k++)
        for (int r = RULE_CURRENT; r <= RULE_TRTLLM_ENGINE; r++) {
            const char *label = engine_label((enum engine_kind)k, (enum engine_rule)r);
            if (r == RULE_CURRENT || strcmp(label, engine_name((enum engine_kind)k)) != 0)
                puts(label);
        }
}

/* Every precision, or those a cache may take: the ones the default
 * scenario accepts as its --kv-dtype. */
static void print_dtypes(bool cache)
{
    static const struct gpu_spec gpu;
    static const struct model_spec model;
    for (int t = 0; t < DTYPE_COUNT; t++) {
        struct scenario s;
        scenario_default(&s, &gpu, &model);
        s.kv_dtype = (enum dtype)t;
        enum scenario_field field = SF_COUNT;
        struct diag d = {0};
        if (!cache || scenario_validate(&s, NULL, &field, &d) || field != SF_KV_DTYPE)
            puts(dtype_info((enum dtype)t)->name);
    }
}

/* `__complete ids KIND [--presets DIR]...`: a catalogue that does not load
 * (a directory still being typed) leaves the built-in one. */
static int complete_ids(int argc, char **argv)
{
    struct options o;
    struct diag d = {0};
    bool help;
    if (!options_parse_command(CMD_LIST, argc, argv, &o, &help, &d) || optind + 1 != argc)
        return 2;
    const char *kind = argv[optind];
    if (strcmp(kind, "engine") == 0) {
        print_engines();
        return 0;
    }
    if (strcmp(kind, "dtype") == 0 || strcmp(kind, "kv-dtype") == 0) {
        print_dtypes(strcmp(kind, "kv-dtype") == 0);
        return 0;
    }
    struct catalog c;
    catalog_init(&c);
    if (!options_load_catalog(&o, &c, &d)) {
        catalog_free(&c);
        catalog_init(&c);
        o.preset_dir_count = 0;
        diag_clear(&d);
        options_load_catalog(&o, &c, &d);
    }
    bool gpus = strcmp(kind, "gpu") == 0;
    size_t n = gpus ? c.gpu_count : strcmp(kind, "model") == 0 ? c.model_count : 0;
    for (size_t i = 0; i < n; i++)
        puts(gpus ? c.gpus[i].spec.id : c.models[i].spec.id);
    catalog_free(&c);
    return n ? 0 : 2;
}

int cmd_complete(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "ids") == 0)
        return complete_ids(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "commands") == 0) {
        for (int c = 1; c < CMD_COUNT; c++)
            puts(cli_commands[c].name);
        return 0;
    }
    if (argc != 3 || strcmp(argv[1], "options") != 0)
        return cli_fail("__complete: ids KIND, commands or options COMMAND");
    enum cli_command cmd =
        strcmp(argv[2], "planner") == 0 ? CMD_PLANNER : cli_command_find(argv[2]);
    if (cmd == CMD_COUNT)
        return cli_fail("__complete options: not a command");
    for (int i = 0; i < OPT_COUNT; i++) {
        const struct option_row *r = &options_table[i];
        if (takes(i, cmd))
            printf("%s\t%s\t%c\n", r->flag, r->parse ? r->metavar : "-",
                   r->short_name ? r->short_name : '-');
    }
    return 0;
}
