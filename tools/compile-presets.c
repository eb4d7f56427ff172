/* compile-presets: reads every preset file given on the command line with
 * kvplan's own parser (src/io/preset.c) and writes C initializers for them,
 * so the binary starts with its catalogue already parsed and validated.
 * A malformed preset in the repository fails the build with its message.
 * A .csv under presets/datasets/ is a length profile: a request trace that
 * io/trace.c reads, after comment lines "# name: ...", "# title: ...",
 * "# kind: ...", "# source: ..." and "# license: ...".
 * Usage: compile-presets OUTPUT.c FILE... */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/fileio.h"
#include "io/preset.h"
#include "io/trace.h"

static void str(FILE *out, const char *field, const char *s)
{
    fprintf(out, "     .%s = \"", field);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20 || *p >= 0x7f)
            fprintf(out, "\\%03o", *p);
        else
            fputc(*p, out);
    }
    fprintf(out, "\",\n");
}

static void u64(FILE *out, const char *field, unsigned long long v)
{
    fprintf(out, "     .%s = %lluull,\n", field, v);
}

static void gpu(FILE *out, const struct gpu_spec *g)
{
    str(out, "id", g->id);
    str(out, "name", g->name);
    str(out, "vendor", g->vendor);
    str(out, "family", g->family);
    str(out, "memory_label", g->memory_label);
    str(out, "memory_basis", g->memory_basis);
    str(out, "source", g->source);
    u64(out, "memory_bytes", g->memory_bytes);
    u64(out, "bandwidth_bytes_per_s", g->bandwidth_bytes_per_s);
    fprintf(out, "     .fp8 = %s,\n", g->fp8 ? "true" : "false");
    fprintf(out, "     .price_usd_per_hour = %.17g,\n", g->price_usd_per_hour);
    str(out, "price_date", g->price_date);
    u64(out, "cuda_visible_bytes", g->cuda_visible_bytes);
    fprintf(out, "     .tflops_bf16 = %.17g,\n", g->tflops_bf16);
    fprintf(out, "     .tflops_fp8 = %.17g,\n", g->tflops_fp8);
    fprintf(out, "     .tops_int8 = %.17g,\n", g->tops_int8);
    fprintf(out, "     .tflops_fp4 = %.17g,\n", g->tflops_fp4);
    fprintf(out, "     .tflops_measured = %.17g,\n", g->tflops_measured);
    str(out, "tflops_measured_basis", g->tflops_measured_basis);
    u64(out, "link_bytes_per_s", g->link_bytes_per_s);
    fprintf(out, "     .achievable_mbu = %.17g,\n", g->achievable_mbu);
    str(out, "achievable_mbu_basis", g->achievable_mbu_basis);
    fprintf(out, "     .achievable_mfu = %.17g,\n", g->achievable_mfu);
    str(out, "achievable_mfu_basis", g->achievable_mfu_basis);
    fprintf(out, "     .layer_overhead_s = %.17g,\n", g->layer_overhead_s);
    str(out, "layer_overhead_basis", g->layer_overhead_basis);
    u64(out, "host_link_bytes_per_s", g->host_link_bytes_per_s);
    str(out, "host_link_basis", g->host_link_basis);
    u64(out, "unified_bytes", g->unified_bytes);
    u64(out, "nvlink_domain_gpus", g->nvlink_domain_gpus);
    u64(out, "gpus_per_node", g->gpus_per_node);
    u64(out, "sm_count", g->sm_count);
    str(out, "sm_count_basis", g->sm_count_basis);
}

static void model(FILE *out, const struct model_spec *m, int index)
{
    str(out, "id", m->id);
    str(out, "name", m->name);
    str(out, "hf_id", m->hf_id);
    str(out, "ollama_tag", m->ollama_tag);
    str(out, "source", m->source);
    if (m->served)
        fprintf(out, "     .served = &served_%d,\n", index);
    fprintf(out, "     .attention = %d,\n", (int)m->attention);
    u64(out, "layers", m->layers);
    u64(out, "hidden_size", m->hidden_size);
    u64(out, "attention_heads", m->attention_heads);
    u64(out, "kv_heads", m->kv_heads);
    u64(out, "head_dim", m->head_dim);
    u64(out, "kv_lora_rank", m->kv_lora_rank);
    u64(out, "qk_rope_head_dim", m->qk_rope_head_dim);
    u64(out, "qk_nope_head_dim", m->qk_nope_head_dim);
    u64(out, "v_head_dim", m->v_head_dim);
    u64(out, "windowed_layers", m->windowed_layers);
    u64(out, "window_tokens", m->window_tokens);
    str(out, "window_pattern", m->window_pattern);
    u64(out, "global_kv_heads", m->global_kv_heads);
    u64(out, "global_head_dim", m->global_head_dim);
    fprintf(out, "     .global_k_eq_v = %s,\n", m->global_k_eq_v ? "true" : "false");
    u64(out, "csa_layers", m->csa_layers);
    u64(out, "hca_layers", m->hca_layers);
    u64(out, "csa_ratio", m->csa_ratio);
    u64(out, "hca_ratio", m->hca_ratio);
    u64(out, "csa_index_dim", m->csa_index_dim);
    u64(out, "csa_index_heads", m->csa_index_heads);
    u64(out, "csa_index_topk", m->csa_index_topk);
    u64(out, "params", m->params);
    u64(out, "active_params", m->active_params);
    fprintf(out, "     .weight_dtype = %d,\n", (int)m->weight_dtype);
    u64(out, "weights_bytes", m->weights_bytes);
    u64(out, "max_context_tokens", m->max_context_tokens);
    u64(out, "vocab_size", m->vocab_size);
    u64(out, "intermediate_size", m->intermediate_size);
    u64(out, "experts", m->experts);
    u64(out, "experts_per_token", m->experts_per_token);
    u64(out, "expert_params", m->expert_params);
    u64(out, "moe_first_dense", m->moe_first_dense);
    u64(out, "moe_period", m->moe_period);
    u64(out, "moe_offset", m->moe_offset);
    u64(out, "q_lora_rank", m->q_lora_rank);
    u64(out, "index_head_dim", m->index_head_dim);
    u64(out, "index_n_heads", m->index_n_heads);
    u64(out, "index_topk", m->index_topk);
    u64(out, "nextn_layers", m->nextn_layers);
    u64(out, "mtp_params", m->mtp_params);
    u64(out, "state_layers", m->state_layers);
    u64(out, "plain_layers", m->plain_layers);
    u64(out, "state_conv_kernel", m->state_conv_kernel);
    u64(out, "state_heads", m->state_heads);
    u64(out, "state_head_dim", m->state_head_dim);
    u64(out, "state_groups", m->state_groups);
    u64(out, "state_size", m->state_size);
    fprintf(out, "     .state_dtype = %d,\n", (int)m->state_dtype);
    str(out, "state_kind", m->state_kind);
    fprintf(out, "     .state_parallel = %s,\n", m->state_parallel ? "true" : "false");
    u64(out, "image_tokens_per_image", m->image_tokens_per_image);
    fprintf(out, "     .mlp_ungated = %s,\n", m->mlp_ungated ? "true" : "false");
}

static bool is_profile(const char *path)
{
    size_t len = strlen(path);
    return len >= 4 && strcmp(path + len - 4, ".csv") == 0;
}

/* The value of "# key: value" in a profile's comment lines, or NULL. */
static char *profile_meta(const char *text, const char *key)
{
    size_t k = strlen(key);
    for (const char *l = text; l && *l == '#'; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        const char *v = l + 1;
        while (*v == ' ')
            v++;
        if (strncmp(v, key, k) != 0 || v[k] != ':')
            continue;
        v += k + 1;
        while (*v == ' ')
            v++;
        size_t n = strcspn(v, "\r\n");
        char *out = malloc(n + 1);
        if (out) {
            memcpy(out, v, n);
            out[n] = '\0';
        }
        return out;
    }
    return NULL;
}

/* The profiles among the files, written as workload_profile records; the
 * count, or -1 with the message on stderr. */
static int profiles(FILE *out, int argc, char **argv)
{
    static const char *const keys[] = {"name", "title", "kind", "source", "license"};
    int count = 0;
    char *meta[32][5];
    size_t n[32];
    double duration[32];
    for (int i = 2; i < argc; i++) {
        if (!is_profile(argv[i]))
            continue;
        if (count == 32) {
            fprintf(stderr, "compile-presets: %s: more than 32 profiles\n", argv[i]);
            return -1;
        }
        struct diag d = {0};
        size_t size;
        char *text = fileio_read(argv[i], &size, &d);
        struct trace t;
        if (text == NULL || !trace_read(argv[i], text, size, (size_t)-1 / 2, &t, &d)) {
            fprintf(stderr, "compile-presets: %s\n", d.message);
            return -1;
        }
        for (int k = 0; k < 5; k++)
            if ((meta[count][k] = profile_meta(text, keys[k])) == NULL) {
                fprintf(stderr, "compile-presets: %s: no \"# %s:\" line before the header\n",
                        argv[i], keys[k]);
                return -1;
            }
        for (int j = 0; j < count; j++)
            if (strcmp(meta[j][0], meta[count][0]) == 0) {
                fprintf(stderr, "compile-presets: %s: name: duplicate '%s'\n", argv[i],
                        meta[count][0]);
                return -1;
            }
        free(text);
        const char *what[2] = {"in", "out"};
        for (int w = 0; w < 2; w++) {
            fprintf(out, "static const uint32_t profile_%s_%d[] = {", what[w], count);
            for (size_t q = 0; q < t.n; q++)
                fprintf(out, "%s%llu,", q % 16 ? "" : "\n    ",
                        (unsigned long long)(w ? t.req[q].output : t.req[q].prompt));
            fprintf(out, "\n};\n");
        }
        n[count] = t.n;
        duration[count] = t.timed ? t.req[t.n - 1].arrival : 0;
        trace_free(&t);
        count++;
    }
    fprintf(out, "const struct workload_profile embedded_profiles[] = {\n");
    for (int c = 0; c < count; c++) {
        fprintf(out, "    {\n");
        for (int k = 0; k < 5; k++) {
            str(out, keys[k], meta[c][k]);
            free(meta[c][k]);
        }
        fprintf(out, "     .n = %zu, .input = profile_in_%d, .output = profile_out_%d, "
                     ".duration = %.17g},\n", n[c], c, c, duration[c]);
    }
    fprintf(out, "    {0}\n};\nconst unsigned long embedded_profile_count = %d;\n", count);
    return count;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: compile-presets OUTPUT.c FILE...\n");
        return 2;
    }
    struct preset *all = calloc((size_t)argc, sizeof *all);
    if (all == NULL)
        return 1;
    /* the profiles after the presets, each kind in its order */
    int ends = 2;
    char **files = calloc((size_t)argc, sizeof *files);
    if (files == NULL)
        return 1;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 2; i < argc; i++)
            if (is_profile(argv[i]) == (pass == 1))
                files[ends++] = argv[i];
    int presets = 2;
    while (presets < argc && !is_profile(files[presets]))
        presets++;
    files[0] = argv[0];
    files[1] = argv[1];
    argv = files;
    int gpus = 0, models = 0;
    for (int i = 2; i < presets; i++) {
        struct diag d = {0};
        size_t len;
        char *text = fileio_read(argv[i], &len, &d);
        if (text == NULL || !preset_parse(argv[i], text, len, &all[i], &d)) {
            fprintf(stderr, "compile-presets: %s\n", d.message);
            return 1;
        }
        free(text);
        for (int j = 2; j < i; j++) {
            if (all[j].kind != all[i].kind)
                continue;
            const char *a = all[i].kind == PRESET_GPU ? all[i].gpu.id : all[i].model.id;
            const char *b = all[j].kind == PRESET_GPU ? all[j].gpu.id : all[j].model.id;
            if (strcmp(a, b) == 0) {
                fprintf(stderr, "compile-presets: %s: id: duplicate id '%s' (also in %s)\n",
                        argv[i], a, argv[j]);
                return 1;
            }
        }
        if (all[i].kind == PRESET_GPU)
            gpus++;
        else
            models++;
    }
    FILE *out = fopen(argv[1], "w");
    if (out == NULL) {
        perror(argv[1]);
        return 1;
    }
    fprintf(out, "/* Generated by tools/compile-presets.c from presets/: do not edit. */\n"
                 "#include \"io/embedded.h\"\n\n");
    /* each model's first releases, a record the spec points to */
    for (int i = 2; i < presets; i++) {
        const struct model_served *v = all[i].kind == PRESET_MODEL ? all[i].model.served : NULL;
        if (v == NULL)
            continue;
        fprintf(out, "static const struct model_served served_%d = {\n     .engine = {", i);
        for (int j = 0; j < SPEC_SERVED_MAX && v->engine[j][0]; j++)
            fprintf(out, "\"%s\", ", v->engine[j]);
        fprintf(out, "},\n     .first = {");
        for (int j = 0; j < SPEC_SERVED_MAX && v->engine[j][0]; j++)
            fprintf(out, "\"%s\", ", v->first[j]);
        fprintf(out, "},\n");
        str(out, "source", v->source);
        fprintf(out, "};\n");
    }
    fprintf(out, "const struct embedded_gpu embedded_gpus[] = {\n");
    for (int i = 2; i < presets; i++)
        if (all[i].kind == PRESET_GPU) {
            fprintf(out, "    {\"%s\", {\n", argv[i]);
            gpu(out, &all[i].gpu);
            fprintf(out, "    }},\n");
        }
    fprintf(out, "    {0, {{0}}}\n};\nconst unsigned long embedded_gpu_count = %d;\n\n", gpus);
    fprintf(out, "const struct embedded_model embedded_models[] = {\n");
    for (int i = 2; i < presets; i++)
        if (all[i].kind == PRESET_MODEL) {
            fprintf(out, "    {\"%s\", {\n", argv[i]);
            model(out, &all[i].model, i);
            fprintf(out, "    }},\n");
        }
    fprintf(out, "    {0, {{0}}}\n};\nconst unsigned long embedded_model_count = %d;\n\n", models);
    free(all);
    if (profiles(out, argc, argv) < 0) {
        fclose(out);
        remove(argv[1]);
        return 1;
    }
    int status = 0;
    if (fclose(out) != 0) {
        perror(argv[1]);
        status = 1;
    }
    free(files);
    return status;
}
