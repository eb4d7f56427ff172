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
#include "io/trace.h"

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

/* The value at quantile q of the n values v: the smallest x with more than
 * q x (n - 1) of them (rounded) at most x, found by halving the range. */
static uint32_t quantile(const uint32_t *v, size_t n, double q)
{
    size_t k = (size_t)(q * (double)(n - 1) + 0.5);
    uint32_t lo = 0, hi = UINT32_MAX;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        size_t at_most = 0;
        for (size_t i = 0; i < n; i++)
            at_most += v[i] <= mid;
        if (at_most > k)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The length profiles --dataset NAME draws from: each one's requests,
 * lengths (mean, median, p90, most) and source. */
static int list_datasets(bool json)
{
    cJSON *arr = json ? cJSON_CreateArray() : NULL;
    int namew = 16, kindw = 16; /* as wide as the longest */
    for (size_t i = 0; trace_profile_at(i); i++) {
        int a = (int)strlen(trace_profile_at(i)->name), b = (int)strlen(trace_profile_at(i)->kind);
        namew = a > namew ? a : namew;
        kindw = b > kindw ? b : kindw;
    }
    if (!json)
        printf("%-*s %-*s %8s %24s %23s\n", namew, "NAME", kindw, "KIND", "REQUESTS",
               "INPUT mean/p50/p90/max", "OUTPUT mean/p50/p90/max");
    for (size_t i = 0; trace_profile_at(i); i++) {
        const struct workload_profile *p = trace_profile_at(i);
        double mean[2] = {0, 0};
        uint32_t q[2][3];
        const uint32_t *v[2] = {p->input, p->output};
        for (int k = 0; k < 2; k++) {
            for (size_t j = 0; j < p->n; j++)
                mean[k] += v[k][j];
            mean[k] /= (double)p->n;
            q[k][0] = quantile(v[k], p->n, 0.5);
            q[k][1] = quantile(v[k], p->n, 0.9);
            q[k][2] = quantile(v[k], p->n, 1.0);
        }
        if (!json) {
            char in[48], out[48];
            snprintf(in, sizeof in, "%.0f/%u/%u/%u", mean[0], q[0][0], q[0][1], q[0][2]);
            snprintf(out, sizeof out, "%.0f/%u/%u/%u", mean[1], q[1][0], q[1][1], q[1][2]);
            printf("%-*s %-*s %8zu %24s %23s\n", namew, p->name, kindw, p->kind, p->n, in, out);
            printf("  %s; %.0f min, %.2f req/s\n  source: %s\n  license: %s\n", p->title,
                   p->duration / 60, p->duration > 0 ? (double)(p->n - 1) / p->duration : 0,
                   p->source, p->license);
            continue;
        }
        cJSON *item = cJSON_CreateObject();
        cJSON_AddItemToArray(arr, item);
        cJSON_AddStringToObject(item, "name", p->name);
        cJSON_AddStringToObject(item, "title", p->title);
        cJSON_AddStringToObject(item, "kind", p->kind);
        cJSON_AddNumberToObject(item, "requests", (double)p->n);
        cJSON_AddNumberToObject(item, "duration", p->duration);
        const char *side[2] = {"input", "output"};
        for (int k = 0; k < 2; k++) {
            cJSON *o = cJSON_AddObjectToObject(item, side[k]);
            cJSON_AddNumberToObject(o, "mean", mean[k]);
            cJSON_AddNumberToObject(o, "median", q[k][0]);
            cJSON_AddNumberToObject(o, "p90", q[k][1]);
            cJSON_AddNumberToObject(o, "max", q[k][2]);
        }
        cJSON_AddStringToObject(item, "source", p->source);
        cJSON_AddStringToObject(item, "license", p->license);
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
    bool engines = strcmp(what, "engines") == 0, datasets = strcmp(what, "datasets") == 0;
    if (!gpus && !models && !engines && !datasets) {
        diag_fail(&d, "list: '%s' is not gpus, models, engines or datasets", what);
        return cli_fail(d.message);
    }
    if (optind + 1 < argc) {
        diag_fail(&d, "list: unexpected argument '%s'", argv[optind + 1]);
        return cli_fail(d.message);
    }
    if (engines)
        return list_engines(o.json);
    if (datasets)
        return list_datasets(o.json);
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
