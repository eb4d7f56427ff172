#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "io/report.h"
#include "core/version.h"
#include "app/app.h"
#include "io/snapshot.h"

int cli_fail(const char *message)
{
    fprintf(stderr, "kvplan: %s\n", message);
    return 2;
}

int cli_option_error(int c, char **argv)
{
    struct diag d = {0};
    if (c == ':')
        diag_fail(&d, "%s: needs a value", argv[optind - 1]);
    else
        diag_fail(&d, "%s: unknown option (see --help)", argv[optind - 1]);
    return cli_fail(d.message);
}

char **cli_rest_args(int argc, char **argv)
{
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (rest != NULL)
        rest[0] = argv[0];
    return rest;
}

int cmd_plan(int argc, char **argv)
{
    struct options o;
    struct diag d = {0};
    bool help = false;
    if (!options_parse(argc, argv, &o, &help, &d))
        return cli_fail(d.message);
    if (help) {
        printf("Usage: kvplan plan [options]\n\n"
               "How many concurrent users fit, and why, for one GPU setup and model.\n\n%s",
               options_help());
        return 0;
    }
    struct catalog cat;
    struct scenario s;
    struct plan_result r;
    struct explain x; /* the rows every format prints, written with the plan */
    x.deferred = false;
    int status = 0;
    if (!options_load(&o, &cat, &s, &d))
        return cli_fail(d.message);
    catalog_free(&cat);
    if (!plan_compute(&s, &x, NULL, &r, &d))
        return cli_fail(d.message);
    if (o.export_path && !snapshot_export(o.export_path, &s, &r, &x, KVPLAN_GENERATOR, &d)) {
        diag_prefix(&d, "--export");
        return cli_fail(d.message);
    }
    /* `--export -` puts the snapshot on standard output: it is the output, one document */
    bool exported_to_stdout = o.export_path && strcmp(o.export_path, "-") == 0;
    switch (exported_to_stdout ? (enum output_format)-1 : o.format) {
    case FORMAT_JSON: {
        char *text = snapshot_to_json(&s, &r, &x, KVPLAN_GENERATOR);
        if (text == NULL)
            return cli_fail("cannot build the JSON snapshot (out of memory)");
        fputs(text, stdout);
        free(text);
        break;
    }
    case FORMAT_MARKDOWN:
        report_markdown(stdout, &s, &r, &x);
        break;
    case FORMAT_TEXT:
        report_text(stdout, &s, &r, &x);
        break;
    }
    /* with a service level, the gate counts the users who keep it */
    bool slo = s.min_tokens_per_s > 0 || s.max_ttft_seconds > 0;
    uint64_t have = slo ? r.speed.users_at_service_level : r.max_users;
    if (o.has_require_users && have < o.require_users) {
        if (slo && r.speed.level_unknown)
            fprintf(stderr, "kvplan: --require-users: the service level cannot be checked "
                    "(no %s figure for %s), so no user is counted as keeping it\n",
                    r.speed.known ? "compute" : "bandwidth", s.gpu.id);
        else if (slo)
            fprintf(stderr, "kvplan: --require-users: %llu user%s keep%s the service level "
                    "(%llu fit), %llu required\n", (unsigned long long)have,
                    have == 1 ? "" : "s", have == 1 ? "s" : "", (unsigned long long)r.max_users,
                    (unsigned long long)o.require_users);
        else
            fprintf(stderr, "kvplan: --require-users: %llu user%s fit%s, %llu required\n",
                    (unsigned long long)have, have == 1 ? "" : "s", have == 1 ? "s" : "",
                    (unsigned long long)o.require_users);
        status = 1;
    }
    if (fflush(stdout) != 0)
        return cli_fail("cannot write to standard output");
    return status;
}

int cmd_planner(int argc, char **argv)
{
    struct options o;
    struct diag d = {0};
    bool help = false;
    if (!options_parse(argc, argv, &o, &help, &d))
        return cli_fail(d.message);
    if (o.export_path) /* the planner exports with e; --export is plan's */
        return cli_fail("--export: writes the snapshot of `kvplan plan`; in the planner, e exports "
                        "the session");
    struct catalog cat;
    struct scenario s;
    if (!options_load(&o, &cat, &s, &d))
        return cli_fail(d.message);
    char err[512] = "";
    int status;
    /* a session file opens every scenario; the options change the current one */
    static struct snapshot_session ss;
    const struct snapshot_session *session = NULL;
    if (o.load_path && !o.scenario_label) {
        /* a session that does not read whole is refused, never opened in part */
        if (!snapshot_load_session(o.load_path, &ss, &d)) {
            diag_prefix(&d, "--load");
            catalog_free(&cat);
            return cli_fail(d.message);
        }
        if (ss.count > 1) {
            ss.entry[ss.current].scenario = s;
            session = &ss;
        }
    }
    diag_clear(&d);
    struct app_input in = {&cat, &s, session, o.load_path, o.scenario_label, o.preset_dirs,
                           o.preset_dir_count};
    if (o.dump_path) {
        status = app_dump(&in, o.dump_path, o.dump_cols ? o.dump_cols : 80,
                          o.dump_rows ? o.dump_rows : 24, o.keys, o.mono, o.ascii, o.dump_attrs, err,
                          sizeof err);
    } else {
        status = app_run(&in, o.mono, o.ascii, err, sizeof err);
        if (status == 3) {
            /* No usable terminal: say so, and print the same plan as text. */
            fprintf(stderr, "kvplan: %s; printing the plan instead of opening the planner\n",
                    err);
            struct plan_result r;
            struct explain x;
            x.deferred = false;
            status = plan_compute(&s, &x, NULL, &r, &d) ? (report_text(stdout, &s, &r, &x), 0)
                                                        : cli_fail(d.message);
            err[0] = '\0';
        }
    }
    catalog_free(&cat);
    if (err[0])
        return cli_fail(err);
    return status;
}
