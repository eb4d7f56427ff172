/* The option table (cli/options_table.c): one spelling for each option,
 * the same as core's messages and the copied command line use; rows well
 * formed for getopt_long, --help and the completion scripts; every parser's
 * message naming the option it parses. */
#include "catalog_fixture.h"

#include "cli/options.h"
#include "cli/options_table.h"
#include "io/report.h"

/* Each field the scenario's messages name (core/optname.h) is set by a row
 * of that spelling; other rows setting it are the engines' other names
 * (--max-running-requests, SGLang's --max-num-seqs). */
static void every_scenario_field_is_set_by_the_option_it_is_named_after(void **state)
{
    (void)state;
    for (int f = 0; f < SF_COUNT; f++) {
        const char *name = scenario_option_names[f];
        bool found = false;
        for (int i = 0; i < OPT_COUNT && !found; i++) {
            const struct option_row *r = &options_table[i];
            if (r->field == f + 1) /* "--gpu-total, --non-kv and --kv-memory": any of them */
                found = f == SF_LOGGED ? strstr(name, r->flag) != NULL : strcmp(name, r->flag) == 0;
        }
        if (!found)
            fail_msg("%s: no row of the option table of that name sets it", name);
    }
}

static void no_command_takes_two_rows_of_one_name(void **state)
{
    (void)state;
    for (int c = 0; c < CMD_COUNT; c++)
        for (int i = 0; i < OPT_COUNT; i++)
            for (int j = i + 1; j < OPT_COUNT; j++) {
                const struct option_row *a = &options_table[i], *b = &options_table[j];
                if (!options_row_takes(i, c) || !options_row_takes(j, c))
                    continue;
                if (strcmp(a->flag, b->flag) == 0 ||
                    (a->short_name && a->short_name == b->short_name))
                    fail_msg("%s and %s of one command", a->flag, b->flag);
            }
}

static void every_row_is_whole(void **state)
{
    (void)state;
    for (int i = 0; i < OPT_COUNT; i++) {
        const struct option_row *r = &options_table[i];
        assert_non_null(r->flag);
        assert_memory_equal(r->flag, "--", 2);
        assert_true(r->commands != 0);
        assert_non_null(r->help); /* described, for --help or a completion menu */
        /* a value is shown as its metavar; a flag has none */
        assert_int_equal(r->parse != NULL, r->metavar != NULL);
        if (r->complete == COMPLETE_WORDS)
            assert_non_null(r->words);
        /* a row that shares a help line follows one, taken by the same commands */
        if (r->help[0] == '\0') {
            assert_true(i > 0);
            assert_int_equal(options_table[i - 1].commands, r->commands);
            assert_false(r->unlisted || r->section);
        }
    }
}

/* the rows whose values are names or words checked later, when they are used */
static bool takes_any_word(const struct option_row *r)
{
    return r->parse == opt_string || r->parse == opt_nonempty || r->parse == opt_presets ||
           r->parse == opt_vary || r->parse == opt_solve_gpu || r->parse == opt_draft_model;
}

static void every_bad_value_is_refused_naming_its_option(void **state)
{
    (void)state;
    for (int c = 0; c < CMD_COUNT; c++)
        for (int i = 0; i < OPT_COUNT; i++) {
            const struct option_row *r = &options_table[i];
            if (!options_row_takes(i, c) || r->parse == NULL || takes_any_word(r))
                continue;
            char arg[64];
            snprintf(arg, sizeof arg, "%s=@bad", r->flag);
            char *argv[] = {"kvplan", arg, NULL};
            struct options o;
            struct diag d = {0};
            bool help;
            assert_false(options_parse_command(c, 2, argv, &o, &help, &d));
            char want[64];
            snprintf(want, sizeof want, "%s: ", r->flag);
            if (strncmp(d.message, want, strlen(want)) != 0)
                fail_msg("%s: the message does not name it: %s", r->flag, d.message);
        }
}

/* The copied line `kvplan plan ...` is parsed by plan: every option in it
 * is one of plan's rows (test_command.c checks the values round-trip). */
static void the_copied_command_line_names_options_of_plan(void **state)
{
    (void)state;
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    s.gpus = 2, s.tp = 2, s.prefix_tokens = 1000, s.avg_context_tokens = 4000;
    s.full_attention = true, s.units = UNITS_GB, s.has_vram = true, s.vram_bytes = 1ull << 36;
    s.engine.kind = ENGINE_VLLM, s.engine.gpu_memory_utilization = 0.8;
    s.engine.max_num_seqs = 8, s.expert_parallel = true, s.spec_method = SPEC_MTP;
    s.host_kv_bytes = 1ull << 36, s.has_prefix_hit_rate = true, s.prefix_hit_rate = 0.5;
    s.max_loras = 2, s.images = 1, s.concurrency = 4, s.min_tokens_per_s = 10;
    char line[2048];
    report_command_line(&s, line, sizeof line);
    int named = 0;
    for (char *w = strtok(line, " "); w; w = strtok(NULL, " ")) {
        if (strncmp(w, "--", 2) != 0)
            continue;
        bool found = false;
        for (int i = 0; i < OPT_COUNT && !found; i++)
            found = options_row_takes(i, CMD_PLAN) && strcmp(options_table[i].flag, w) == 0;
        if (!found)
            fail_msg("the copied line has %s, which plan does not take", w);
        named++;
    }
    assert_true(named >= 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_scenario_field_is_set_by_the_option_it_is_named_after),
        cmocka_unit_test(no_command_takes_two_rows_of_one_name),
        cmocka_unit_test(every_row_is_whole),
        cmocka_unit_test(every_bad_value_is_refused_naming_its_option),
        cmocka_unit_test(the_copied_command_line_names_options_of_plan),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
