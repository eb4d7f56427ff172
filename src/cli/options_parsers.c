/* options_parsers: the value parsers the option table refers to. Each reads
 * one value into the field the row names (row->offset, of the type the
 * parser says), within the row's bounds, and names row->flag when it fails. */
#include <stdio.h>
#include <string.h>

#include "cli/options_table.h"
#include "core/engine_desc.h"
#include "core/lora.h"
#include "core/text.h"

#define FIELD_AT(type, o, row) ((type *)(void *)((char *)(o) + (row)->offset))

/* "--flag: " before the message of a parser below the CLI */
static bool wrap(const struct option_row *row, bool ok, const struct diag *inner, struct diag *d)
{
    if (!ok)
        return diag_fail(d, "%s: %s", row->flag, inner->message);
    return true;
}

bool opt_string(const struct option_row *row, const char *arg, struct options *o, struct diag *d)
{
    (void)d;
    *FIELD_AT(const char *, o, row) = arg;
    return true;
}

/* A file to write: not empty and not spaces alone (a file named "   " is
 * never what was meant). */
bool opt_nonempty(const struct option_row *row, const char *arg, struct options *o, struct diag *d)
{
    if (arg[0] == '\0')
        return diag_fail(d, "%s: give a file name", row->flag);
    if (arg[strspn(arg, " \t")] == '\0')
        return diag_fail(d, "%s: '%s' is only spaces: give a file name", row->flag, arg);
    return opt_string(row, arg, o, d);
}

bool opt_count32(const struct option_row *row, const char *arg, struct options *o, struct diag *d)
{
    uint64_t n = 0;
    if (!options_parse_count(row->flag, arg, row->min, row->max, &n, d))
        return false;
    *FIELD_AT(uint32_t, o, row) = (uint32_t)n; /* max fits: the table's bounds */
    return true;
}

/* A count of one of an engine's knobs (a field of struct engine_flags),
 * bounded as the engine's descriptor bounds it: llama.cpp's -np at its
 * LLAMA_MAX_SEQ. */
bool opt_engine_count32(const struct option_row *row, const char *arg, struct options *o,
                        struct diag *d)
{
    uint64_t n = 0;
    size_t field = row->offset - offsetof(struct options, flags);
    if (!options_parse_count(row->flag, arg, row->min, engine_option_max(field), &n, d))
        return false;
    *FIELD_AT(uint32_t, o, row) = (uint32_t)n;
    return true;
}

bool opt_count64(const struct option_row *row, const char *arg, struct options *o, struct diag *d)
{
    return options_parse_count(row->flag, arg, row->min, row->max, FIELD_AT(uint64_t, o, row), d);
}

/* Tokens ("8k"); zero only when the row's min is 0, at most its max if any. */
bool opt_tokens(const struct option_row *row, const char *arg, struct options *o, struct diag *d)
{
    struct diag in = {0};
    uint64_t *n = FIELD_AT(uint64_t, o, row);
    if (!wrap(row, units_parse_tokens(arg, row->min == 0, n, &in), &in, d))
        return false;
    if (row->max && *n > row->max)
        return diag_fail(d, "%s: '%s' is more than %llu tokens", row->flag, arg,
                         (unsigned long long)row->max);
    return true;
}

bool opt_number(const struct option_row *row, const char *arg, struct options *o, struct diag *d)
{
    struct diag in = {0};
    return wrap(row, units_parse_number(arg, row->lo, row->hi, FIELD_AT(double, o, row), &in), &in,
                d);
}

bool opt_fraction(const struct option_row *row, const char *arg, struct options *o, struct diag *d)
{
    struct diag in = {0};
    if (!units_parse_number(arg, row->lo, row->hi, FIELD_AT(double, o, row), &in))
        return diag_fail(d, "%s: '%s' is not a fraction from %g to %g", row->flag, arg, row->lo,
                         row->hi);
    return true;
}

/* A size ("80GiB"); more than 0 bytes when the row's min is 1. */
bool opt_size(const struct option_row *row, const char *arg, struct options *o, struct diag *d)
{
    struct diag in = {0};
    uint64_t *n = FIELD_AT(uint64_t, o, row);
    if (!wrap(row, units_parse_size(arg, n, &in), &in, d))
        return false;
    if (row->min && *n == 0)
        return diag_fail(d, "%s: '%s' must be more than 0 bytes", row->flag, arg);
    return true;
}

/* A size an engine's log states, per GPU: 1 B to 16 TiB. */
bool opt_logged_size(const struct option_row *row, const char *arg, struct options *o,
                     struct diag *d)
{
    struct diag in = {0};
    uint64_t n = 0;
    if (!wrap(row, units_parse_size(arg, &n, &in), &in, d))
        return false;
    if (n == 0 || n > ((uint64_t)1 << 44))
        return diag_fail(d, "%s: '%s' must be more than 0 B and at most 16 TiB", row->flag, arg);
    *FIELD_AT(uint64_t, o, row) = n;
    return true;
}

bool opt_dtype(const struct option_row *row, const char *arg, struct options *o, struct diag *d)
{
    if (!dtype_parse(arg, FIELD_AT(enum dtype, o, row)))
        return diag_fail(d, "%s: unknown precision '%s' (expected %s)", row->flag, arg,
                         dtype_names());
    return true;
}

bool opt_units(const struct option_row *row, const char *arg, struct options *o, struct diag *d)
{
    if (strcmp(arg, "gib") == 0 || strcmp(arg, "GiB") == 0)
        o->units = UNITS_GIB;
    else if (strcmp(arg, "gb") == 0 || strcmp(arg, "GB") == 0)
        o->units = UNITS_GB;
    else
        return diag_fail(d, "%s: '%s' is not gib or gb", row->flag, arg);
    return true;
}

bool opt_plan_format(const struct option_row *row, const char *arg, struct options *o,
                     struct diag *d)
{
    if (strcmp(arg, "text") == 0)
        o->format = FORMAT_TEXT;
    else if (strcmp(arg, "json") == 0)
        o->format = FORMAT_JSON;
    else if (strcmp(arg, "markdown") == 0 || strcmp(arg, "md") == 0)
        o->format = FORMAT_MARKDOWN;
    else
        return diag_fail(d, "%s: '%s' is not text, json or markdown", row->flag, arg);
    return true;
}

/* solve writes text, JSON and (its GPU table) Markdown: its message names them. */
bool opt_solve_format(const struct option_row *row, const char *arg, struct options *o,
                      struct diag *d)
{
    if (strcmp(arg, "text") == 0 || strcmp(arg, "json") == 0) {
        o->format = arg[0] == 'j' ? FORMAT_JSON : FORMAT_TEXT;
        return true;
    }
    if (strcmp(arg, "markdown") == 0 || strcmp(arg, "md") == 0) {
        o->format = FORMAT_MARKDOWN;
        return true;
    }
    char shown[64];
    text_escape(arg, shown, sizeof shown);
    return diag_fail(d, "%s: solve writes text, json or markdown, not %s", row->flag, shown);
}

bool opt_sweep_format(const struct option_row *row, const char *arg, struct options *o,
                      struct diag *d)
{
    static const char *const names[] = {[SWEEP_TABLE] = "table",
                                        [SWEEP_CSV] = "csv",
                                        [SWEEP_MARKDOWN] = "markdown",
                                        [SWEEP_JSON] = "json"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(arg, names[i]) == 0) {
            o->sweep_format = (enum sweep_format)i;
            return true;
        }
    return diag_fail(d, "%s: '%s' is not table, csv, markdown or json", row->flag, arg);
}

bool opt_catalog_format(const struct option_row *row, const char *arg, struct options *o,
                        struct diag *d)
{
    if (strcmp(arg, "json") != 0 && strcmp(arg, "text") != 0)
        return diag_fail(d, "%s: '%s' is not text or json", row->flag, arg);
    o->json = arg[0] == 'j';
    return true;
}

bool opt_screen_size(const struct option_row *row, const char *arg, struct options *o,
                     struct diag *d)
{
    int w = 0, h = 0;
    char extra;
    if (sscanf(arg, "%dx%d%c", &w, &h, &extra) != 2 || w < 1 || h < 1 || w > 1000 || h > 1000)
        return diag_fail(d, "%s: '%s' is not WIDTHxHEIGHT (1 to 1000 each)", row->flag, arg);
    o->dump_cols = w;
    o->dump_rows = h;
    return true;
}

bool opt_engine(const struct option_row *row, const char *arg, struct options *o, struct diag *d)
{
    struct diag in = {0};
    char note[160];
    bool ok = engine_parse_asked(arg, &o->engine, &o->engine_rule, note, sizeof note,
                                 o->engine_release_asked, sizeof o->engine_release_asked, &in);
    if (ok && note[0])
        fprintf(stderr, "kvplan: note: %s: %s\n", row->flag, note);
    return wrap(row, ok, &in, d);
}

bool opt_lora_targets(const struct option_row *row, const char *arg, struct options *o,
                      struct diag *d)
{
    struct diag in = {0};
    return wrap(row, lora_targets_parse(arg, &o->lora_targets, &in), &in, d);
}

bool opt_presets(const struct option_row *row, const char *arg, struct options *o, struct diag *d)
{
    if (o->preset_dir_count >= OPTIONS_PRESET_DIRS_MAX)
        return diag_fail(d, "%s: at most %d directories", row->flag, OPTIONS_PRESET_DIRS_MAX);
    o->preset_dirs[o->preset_dir_count++] = arg;
    return true;
}

bool opt_vary(const struct option_row *row, const char *arg, struct options *o, struct diag *d)
{
    if (o->vary_count >= OPTIONS_VARY_MAX)
        return diag_fail(d, "%s: at most three axes", row->flag);
    o->varies[o->vary_count++] = arg;
    return true;
}

/* solve's --gpu: each a GPU type to compare, the last also the scenario's
 * one GPU (for --max-context and --utilization); cmd_solve refuses more types
 * than it holds. */
bool opt_solve_gpu(const struct option_row *row, const char *arg, struct options *o, struct diag *d)
{
    (void)row, (void)d;
    if (o->solve_gpu_count < OPTIONS_SOLVE_GPUS_MAX)
        o->solve_gpus[o->solve_gpu_count] = arg;
    o->solve_gpu_count++;
    o->gpu_id = arg;
    return true;
}
