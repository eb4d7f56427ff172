/* list and show: the preset catalogue, whole or one preset. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/options_table.h"
#include "core/engine.h"
#include "core/engine_desc.h"
#include "core/kvcost.h"
#include "core/text.h"
#include "core/units.h"
#include "io/catalog.h"
#include "io/preset.h"

static int print_json(cJSON *item)
{
    char *text = item ? cJSON_Print(item) : NULL;
    cJSON_Delete(item);
    if (text == NULL)
        return cli_fail("cannot build JSON (out of memory)");
    puts(text);
    free(text);
    return 0;
}

static void list_gpus_text(const struct catalog *c)
{
    printf("%-16s %-44s %12s %10s %4s %9s\n", "ID", "NAME", "MEMORY", "BANDWIDTH", "FP8", "$/HOUR");
    for (size_t i = 0; i < c->gpu_count; i++) {
        const struct gpu_spec *g = &c->gpus[i].spec;
        char mem[32], price[16] = "-";
        units_format_bytes(g->memory_bytes, UNITS_GIB, mem, sizeof mem);
        if (g->price_usd_per_hour >= 0)
            snprintf(price, sizeof price, "%.2f", g->price_usd_per_hour);
        printf("%-16s %-44.44s %12s %5.2f TB/s %4s %9s\n", g->id, g->name, mem,
               (double)g->bandwidth_bytes_per_s / 1e12, g->fp8 ? "yes" : "no", price);
    }
}

static void list_models_text(const struct catalog *c)
{
    /* the columns as wide as the longest id and name (a name to 44 columns) */
    int idw = 18, namew = 28;
    for (size_t i = 0; i < c->model_count; i++) {
        int a = (int)strlen(c->models[i].spec.id), b = (int)strlen(c->models[i].spec.name);
        idw = a > idw ? a : idw;
        namew = b > namew ? (b < 44 ? b : 44) : namew;
    }
    printf("%-*s %-*s %9s %6s %4s %11s %12s %9s\n", idw, "ID", namew, "NAME", "PARAMS", "LAYERS",
           "ATTN", "KV/Q HEADS", "KV/TOKEN", "MAX CTX");
    for (size_t i = 0; i < c->model_count; i++) {
        const struct model_spec *m = &c->models[i].spec;
        char heads[24], kv[32], ctx[24];
        if (m->attention == ATTENTION_MLA)
            snprintf(heads, sizeof heads, "latent");
        else
            snprintf(heads, sizeof heads, "%u/%u", m->kv_heads, m->attention_heads);
        /* two decimals in the whole column: 30.38 KiB above 128.00 KiB */
        units_format_bytes(kvcost_model_bytes_per_token(m), UNITS_GIB, kv, sizeof kv);
        units_format_tokens_short(m->max_context_tokens, ctx, sizeof ctx);
        printf("%-*s %-*.*s %8.2fB %6u %4s %11s %12s %9s\n", idw, m->id, namew, namew, m->name,
               (double)m->params / 1e9, m->layers, spec_attention_name(m->attention), heads, kv,
               ctx);
    }
}

/* Every engine and each version pin of its arithmetic, with the release it
 * is named after and what differs; the newest (the default) marked. */
static int list_engines(bool json)
{
    cJSON *arr = json ? cJSON_CreateArray() : NULL;
    if (!json)
        printf("%-10s %-18s %-18s %s\n", "ENGINE", "VERSION", "RELEASE", "WHAT DIFFERS");
    for (int k = 0; k < ENGINE_COUNT; k++) {
        const struct engine_desc *e = engine_desc((enum engine_kind)k);
        cJSON *versions = json ? cJSON_CreateArray() : NULL;
        if (!json && !e->versions[0].label)
            printf("%-10s %-18s %-18s %s\n", e->name, e->name, "", "(the default) the one rule");
        for (int i = 0; i < ENGINE_VERSIONS_MAX && e->versions[i].label; i++) {
            const struct engine_version *v = &e->versions[i];
            char range[96];
            engine_release_range(e, i, range, sizeof range);
            if (!json) {
                printf("%-10s %-18s %-18s %s%s%s%s%s\n", i == 0 ? e->name : "", v->label,
                       v->release ? v->release : "", v->rule == RULE_CURRENT ? "(the default) " : "",
                       v->changed, range[0] ? " [releases " : "", range, range[0] ? "]" : "");
                continue;
            }
            cJSON *item = cJSON_CreateObject();
            cJSON_AddItemToArray(versions, item);
            cJSON_AddStringToObject(item, "version", v->label);
            cJSON_AddStringToObject(item, "release", v->release ? v->release : "");
            cJSON_AddBoolToObject(item, "latest", v->rule == RULE_CURRENT);
            cJSON_AddStringToObject(item, "changes", v->changed);
            cJSON_AddStringToObject(item, "releases", range);
        }
        if (json) {
            cJSON *item = cJSON_CreateObject();
            cJSON_AddItemToArray(arr, item);
            cJSON_AddStringToObject(item, "engine", e->name);
            cJSON_AddStringToObject(item, "title", e->title);
            cJSON_AddItemToObject(item, "versions", versions);
        }
    }
    return json ? print_json(arr) : 0;
}

int cmd_list(int argc, char **argv)
{
    struct options o;
    struct diag d = {0};
    int parsed = cli_parse(CMD_LIST, argc, argv, &o);
    if (parsed != CLI_PARSED)
        return parsed;
    if (optind >= argc) {
        options_print_help(CMD_LIST, stderr);
        return 2;
    }
    const char *what = argv[optind];
    bool gpus = strcmp(what, "gpus") == 0, models = strcmp(what, "models") == 0;
    bool engines = strcmp(what, "engines") == 0;
    if (!gpus && !models && !engines) {
        diag_fail(&d, "list: '%s' is not gpus, models or engines", what);
        return cli_fail(d.message);
    }
    if (optind + 1 < argc) {
        diag_fail(&d, "list: unexpected argument '%s'", argv[optind + 1]);
        return cli_fail(d.message);
    }
    if (engines)
        return list_engines(o.json);
    struct catalog c;
    catalog_init(&c);
    if (!options_load_catalog(&o, &c, &d)) {
        catalog_free(&c);
        return cli_fail(d.message);
    }
    int status = 0;
    if (o.json) {
        cJSON *arr = cJSON_CreateArray();
        size_t n = gpus ? c.gpu_count : c.model_count;
        for (size_t i = 0; arr && i < n; i++) {
            cJSON *item = gpus ? preset_gpu_to_json(&c.gpus[i].spec, false)
                               : preset_model_to_json(&c.models[i].spec, false);
            if (item == NULL || !cJSON_AddItemToArray(arr, item)) {
                cJSON_Delete(item);
                cJSON_Delete(arr);
                arr = NULL;
            }
        }
        status = print_json(arr);
    } else if (gpus) {
        list_gpus_text(&c);
    } else {
        list_models_text(&c);
    }
    catalog_free(&c);
    return status;
}

int cmd_show(int argc, char **argv)
{
    struct options o;
    struct diag d = {0};
    int parsed = cli_parse(CMD_SHOW, argc, argv, &o);
    if (parsed != CLI_PARSED)
        return parsed;
    if (optind + 1 == argc) {
        /* "show llama-3.1-8b": say which it is */
        struct catalog c;
        catalog_init(&c);
        const char *id = argv[optind];
        if (options_load_catalog(&o, &c, &d)) {
            const char *kind = catalog_find_model(&c, id) ? "model" : catalog_find_gpu(&c, id) ? "gpu" : NULL;
            if (kind) {
                diag_fail(&d, "show: say what '%s' is: kvplan show %s %s", id, kind, id);
                catalog_free(&c);
                return cli_fail(d.message);
            }
        }
        catalog_free(&c);
    }
    if (optind + 2 != argc) {
        options_print_help(CMD_SHOW, stderr);
        return 2;
    }
    const char *what = argv[optind], *id = argv[optind + 1];
    bool gpu = strcmp(what, "gpu") == 0;
    if (!gpu && strcmp(what, "model") != 0) {
        diag_fail(&d, "show: '%s' is not gpu or model", what);
        return cli_fail(d.message);
    }
    struct catalog c;
    catalog_init(&c);
    if (!options_load_catalog(&o, &c, &d)) {
        catalog_free(&c);
        return cli_fail(d.message);
    }
    cJSON *item = NULL;
    const char *path = NULL;
    if (gpu) {
        const struct catalog_gpu *g = catalog_find_gpu(&c, id);
        if (g) {
            item = preset_gpu_to_json(&g->spec, true);
            path = g->path;
        }
    } else {
        const struct catalog_model *m = catalog_find_model(&c, id);
        if (m) {
            item = preset_model_to_json(&m->spec, true);
            path = m->path;
        }
    }
    if (path == NULL) {
        char near[256];
        catalog_suggest(&c, gpu ? PRESET_GPU : PRESET_MODEL, id, near, sizeof near);
        diag_fail(&d, "show: unknown %s '%s' (closest: %s)", what, id, near);
        catalog_free(&c);
        return cli_fail(d.message);
    }
    int status;
    if (o.json) {
        status = print_json(item);
    } else {
        char shown[1024]; /* a preset's file name as printed: no controls in it */
        text_escape(path, shown, sizeof shown);
        /* where it came from goes to standard error: standard output stays JSON */
        fflush(stdout);
        fprintf(stderr, "# from %s\n", shown);
        status = print_json(item);
    }
    catalog_free(&c);
    return status;
}
