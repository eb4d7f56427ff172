/* import-gguf: a model preset from a GGUF file's header, its weights the
 * file's exact bytes. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "core/text.h"
#include "core/units.h"
#include "io/gguf.h"
#include "io/gguf_model.h"

/* What was read, on stderr (stdout stays a clean preset): the architecture,
 * the parameters and the bytes, then the quantization mix by ggml type. */
static void print_summary(const char *path, const struct gguf_file *g,
                          const struct gguf_import *h)
{
    const struct model_spec *m = &h->model;
    char shown[1024];
    text_escape(path, shown, sizeof shown);
    fprintf(stderr, "%s: GGUF v%u, %s, %.3fB parameters", shown, g->version, h->arch,
            (double)m->params / 1e9);
    if (m->active_params)
        fprintf(stderr, " (%.3fB active)", (double)m->active_params / 1e9);
    char n[32];
    if (g->parts > 1)
        fprintf(stderr, " in %u files", g->parts);
    fprintf(stderr, " in %llu tensors; weights %s bytes (%.2f GiB, %.2f bits a weight)",
            (unsigned long long)g->tensor_count, units_format_int(m->weights_bytes, n, sizeof n),
            (double)m->weights_bytes / (double)GIB,
            8.0 * (double)m->weights_bytes / (double)m->params);
    if (h->file_type[0])
        fprintf(stderr, "; general.file_type %s", h->file_type);
    fprintf(stderr, "\n");
    for (uint32_t t = 0; t < GGUF_MIX_MAX; t++) {
        const char *name = NULL;
        if (h->tensor_count[t] && ggml_type_info(t, &name, NULL, NULL))
            fprintf(stderr, "  %-8s %15s bytes in %llu tensor%s\n", name,
                    units_format_int(h->tensor_bytes[t], n, sizeof n),
                    (unsigned long long)h->tensor_count[t], h->tensor_count[t] == 1 ? "" : "s");
    }
    for (int i = 0; i < h->note_count; i++)
        fprintf(stderr, "  note: %s\n", h->notes[i]);
}

/* A model split over files: the first one given, the others read from
 * beside it by the names llama-gguf-split gives them,
 * PREFIX-00002-of-00003.gguf. */
static bool read_split(const char *path, struct gguf_file *g, struct diag *d)
{
    uint64_t count = gguf_unsigned(g, "split.count");
    if (count < 2 || count == UINT64_MAX)
        return true;
    char shown[1024], tail[48];
    text_escape(path, shown, sizeof shown);
    if (count > 99999)
        return diag_fail(d, "%s: split.count: %llu files is more than a split holds (99999)",
                         shown, (unsigned long long)count);
    unsigned n = (unsigned)count;
    snprintf(tail, sizeof tail, "-00001-of-%05u.gguf", n);
    size_t len = strlen(path), tl = strlen(tail);
    if (gguf_unsigned(g, "split.no") != 0 || len <= tl || strcmp(path + len - tl, tail) != 0)
        return diag_fail(d, "%s: split.count: one of %u files; give the first, named "
                            "PREFIX%s, and kvplan reads the others beside it",
                         shown, n, tail);
    for (unsigned i = 2; i <= n; i++) {
        char part_path[4096];
        if (len + 1 > sizeof part_path)
            return diag_fail(d, "%s: the file's name is too long", shown);
        snprintf(part_path, sizeof part_path, "%.*s-%05u-of-%05u.gguf", (int)(len - tl), path, i, n);
        struct gguf_file part;
        bool ok = gguf_read_path(part_path, &part, d) && gguf_add_part(part_path, g, &part, d);
        gguf_free(&part);
        if (!ok)
            return false;
    }
    return true;
}

int cmd_import_gguf(int argc, char **argv)
{
    struct options o;
    struct diag d = {0};
    int parsed = cli_parse(CMD_IMPORT_GGUF, argc, argv, &o);
    if (parsed != CLI_PARSED)
        return parsed;
    if (optind + 1 != argc)
        return cli_fail("import-gguf: give one GGUF file (see --help)");
    const char *path = argv[optind];
    struct gguf_file g;
    if (!gguf_read_path(path, &g, &d))
        return cli_fail(d.message);
    if (!read_split(path, &g, &d)) {
        gguf_free(&g);
        return cli_fail(d.message);
    }
    struct gguf_import h;
    bool ok = gguf_import_model(path, &g, o.hf_id, o.hf_name, &h, &d);
    if (ok)
        print_summary(path, &g, &h);
    gguf_free(&g);
    if (!ok)
        return cli_fail(d.message);
    return import_write_preset(path, &h.model, o.output_path);
}
