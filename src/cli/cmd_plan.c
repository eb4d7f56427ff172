/* plan and the planner: one scenario, printed or opened. */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/options_table.h"
#include "core/version.h"
#include "io/report.h"
#include "io/snapshot.h"
#include "io/svg.h"

int cli_fail(const char *message)
{
    fprintf(stderr, "kvplan: %s\n", message);
    return 2;
}

const char *cli_usd_digits(double v, char buf[32])
{
    explain_format(v, XU_USD, UNITS_GIB, buf, 32);
    return buf[0] == '$' ? buf + 1 : buf;
}

int cli_parse(enum cli_command cmd, int argc, char **argv, struct options *o)
{
    struct diag d = {0};
    bool help = false;
    if (!options_parse_command(cmd, argc, argv, o, &help, &d))
        return cli_fail(d.message);
    if (help) {
        options_print_help(cmd, stdout);
        return 0;
    }
    return CLI_PARSED;
}

/* Whether an export path names standard output ("-" or /dev/stdout). */
static bool to_stdout(const char *path)
{
    return path && (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0);
}

/* The plan in the format asked for, or nothing when the snapshot or the
 * picture went to standard output (`--export -`, `--export-svg -`: it is
 * the output, one document). */
static int plan_print(const struct options *o, const struct scenario *s,
                      const struct plan_result *r, const struct explain *x)
{
    if (to_stdout(o->export_path) || to_stdout(o->export_svg_path))
        return 0;
    switch (o->format) {
    case FORMAT_JSON:
        if (!snapshot_write_json(stdout, s, r, x, KVPLAN_GENERATOR))
            return cli_fail("cannot build the JSON snapshot (out of memory)");
        break;
    case FORMAT_MARKDOWN:
        report_markdown(stdout, s, r, x);
        break;
    case FORMAT_TEXT:
        report_text(stdout, s, r, x);
        break;
    }
    return 0;
}

/* --require-users: 1, with the reason on standard error, when fewer users
 * fit than it asks (with a service level, fewer keep it). */
static int plan_gate(const struct options *o, const struct scenario *s, const struct plan_result *r)
{
    bool slo = s->min_tokens_per_s > 0 || s->max_ttft_seconds > 0;
    uint64_t have = slo ? r->speed.users_at_service_level : r->max_users;
    if (!o->given[OPT_REQUIRE_USERS] || have >= o->require_users)
        return 0;
    const char *flag = OPTION_FLAG(OPT_REQUIRE_USERS);
    unsigned long long need = o->require_users;
    if (slo && r->speed.level_unknown)
        fprintf(stderr,
                "kvplan: %s: the service level cannot be checked (no %s figure for %s), "
                "so no user is counted as keeping it\n",
                flag, r->speed.known ? "compute" : "bandwidth", s->gpu.id);
    else if (slo)
        fprintf(stderr,
                "kvplan: %s: %llu user%s keep%s the service level (%llu fit), %llu "
                "required\n",
                flag, (unsigned long long)have, have == 1 ? "" : "s", have == 1 ? "s" : "",
                (unsigned long long)r->max_users, need);
    else
        fprintf(stderr, "kvplan: %s: %llu user%s fit%s, %llu required\n", flag,
                (unsigned long long)have, have == 1 ? "" : "s", have == 1 ? "s" : "", need);
    return 1;
}

/* --export-svg: the plan's picture, its curve computed for it. */
static bool plan_export_svg(const char *path, const struct scenario *s,
                            const struct plan_result *r, struct diag *d)
{
    static struct users_curve c;
    curve_compute(s, &c);
    struct svg_item it = {"", s, r, &c};
    return svg_export(path, &it, 1, d);
}

int cmd_plan(int argc, char **argv)
{
    struct options o;
    struct diag d = {0};
    int parsed = cli_parse(CMD_PLAN, argc, argv, &o);
    if (parsed != CLI_PARSED)
        return parsed;
    if (to_stdout(o.export_path) && to_stdout(o.export_svg_path)) {
        diag_fail(&d, "%s and %s: both write to standard output; send one to a file",
                  OPTION_FLAG(OPT_EXPORT), OPTION_FLAG(OPT_EXPORT_SVG));
        return cli_fail(d.message);
    }
    struct catalog cat;
    struct scenario s;
    struct plan_result r;
    struct explain x; /* the rows every format prints, written with the plan */
    x.deferred = false;
    if (!options_load(&o, &cat, &s, &d))
        return cli_fail(d.message);
    catalog_free(&cat);
    if (!plan_compute(&s, &x, NULL, &r, &d))
        return cli_fail(d.message);
    if (o.export_path && !snapshot_export(o.export_path, &s, &r, &x, KVPLAN_GENERATOR, &d)) {
        diag_prefix(&d, "%s", OPTION_FLAG(OPT_EXPORT));
        return cli_fail(d.message);
    }
    if (o.export_svg_path && !plan_export_svg(o.export_svg_path, &s, &r, &d)) {
        diag_prefix(&d, "%s", OPTION_FLAG(OPT_EXPORT_SVG));
        return cli_fail(d.message);
    }
    int status = plan_print(&o, &s, &r, &x);
    if (status == 0)
        status = plan_gate(&o, &s, &r);
    if (fflush(stdout) != 0)
        return cli_fail("cannot write to standard output");
    return status;
}

/* The session of a --load file without --scenario, when it holds more than
 * one scenario or the Load screen's settings (NULL otherwise); s is its
 * current one. A session that does
 * not read whole is refused, never opened in part. */
static bool planner_session(const struct options *o, const struct scenario *s,
                            const struct snapshot_session **session, struct diag *d)
{
    static struct snapshot_session ss;
    *session = NULL;
    if (!o->load_path || o->scenario_label)
        return true;
    if (!snapshot_load_session(o->load_path, &ss, d)) {
        diag_prefix(d, "%s", OPTION_FLAG(OPT_LOAD));
        return false;
    }
    if (ss.count > 1 || ss.entry[0].load.rate > 0) {
        ss.entry[ss.current].scenario = *s;
        *session = &ss;
    }
    return true;
}

/* The planner on the terminal, or dumped to a file; without a usable
 * terminal, the same plan as text. */
static int planner_open(const struct options *o, const struct catalog *cat,
                        const struct scenario *s, const struct snapshot_session *session)
{
    char err[512] = "";
    bool mono = o->given[OPT_MONO], ascii = o->given[OPT_ASCII];
    struct app_input in = {cat, s, session, o->load_path, o->scenario_label, o->preset_dirs,
                           o->preset_dir_count, options_prefix_asked()};
    int status;
    if (o->dump_path) {
        struct app_dump_options dump = {
            .path = o->dump_path, .cols = o->dump_cols ? o->dump_cols : 80,
            .rows = o->dump_rows ? o->dump_rows : 24, .keys = o->keys, .mono = mono,
            .ascii = ascii, .with_attrs = o->given[OPT_DUMP_ATTRS]};
        status = app_dump(&in, &dump, err, sizeof err);
    } else {
        status = app_run(&in, mono, ascii, err, sizeof err);
        if (status == 3) {
            fprintf(stderr, "kvplan: %s; printing the plan instead of opening the planner\n", err);
            struct plan_result r;
            struct explain x;
            x.deferred = false;
            struct diag d = {0};
            status = plan_compute(s, &x, NULL, &r, &d) ? (report_text(stdout, s, &r, &x), 0)
                                                       : cli_fail(d.message);
            err[0] = '\0';
        }
    }
    return err[0] ? cli_fail(err) : status;
}

int cmd_planner(int argc, char **argv)
{
    /* The terminal's character set, for curses; LC_CTYPE only, so strtod
     * and printf keep the decimal point. Only the planner draws with it:
     * the other commands write UTF-8 bytes whatever the locale, and skip
     * loading it (60 thousand instructions, its alias file read). */
    setlocale(LC_CTYPE, "");
    struct options o;
    struct diag d = {0};
    int parsed = cli_parse(CMD_PLANNER, argc, argv, &o);
    if (parsed != CLI_PARSED)
        return parsed;
    if (o.given[OPT_VERSION]) {
        printf("kvplan %s\n", KVPLAN_VERSION);
        return 0;
    }
    if (o.export_svg_path) { /* as --export: the planner's key is g */
        diag_fail(&d, "%s: writes the picture of `kvplan plan`; in the planner, g exports it",
                  OPTION_FLAG(OPT_EXPORT_SVG));
        return cli_fail(d.message);
    }
    if (o.export_path) { /* the planner exports with e; --export is plan's */
        diag_fail(&d,
                  "%s: writes the snapshot of `kvplan plan`; in the planner, e exports the "
                  "session",
                  OPTION_FLAG(OPT_EXPORT));
        return cli_fail(d.message);
    }
    struct catalog cat;
    struct scenario s;
    const struct snapshot_session *session;
    if (!options_load(&o, &cat, &s, &d))
        return cli_fail(d.message);
    if (!planner_session(&o, &s, &session, &d)) {
        catalog_free(&cat);
        return cli_fail(d.message);
    }
    int status = planner_open(&o, &cat, &s, session);
    catalog_free(&cat);
    return status;
}
