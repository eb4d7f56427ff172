/* import-hf: a model preset from a local Hugging Face config.json; and the
 * preset writer import-hf and import-gguf share. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/options_table.h"
#include "core/dtype.h"
#include "core/text.h"
#include "core/units.h"
#include "io/fileio.h"
#include "io/hfconfig.h"
#include "io/hfweights.h"
#include "io/preset.h"

int import_write_preset(const char *path, const struct model_spec *m, const char *output)
{
    struct diag d = {0};
    cJSON *json = preset_model_to_json(m, true);
    char *out = json ? cJSON_Print(json) : NULL;
    cJSON_Delete(json);
    if (out == NULL)
        return cli_fail("cannot build the preset (out of memory)");
    /* what is written must load, and load as the same preset */
    struct preset back;
    char shown[1024];
    text_escape(path, shown, sizeof shown);
    if (!preset_parse("the imported preset", out, strlen(out), &back, &d) ||
        !preset_model_same(&back.model, m)) {
        if (!d.failed)
            diag_fail(&d, "it does not read back the same");
        diag_prefix(&d, "%s: the preset it gives would not load", shown);
        free(out);
        return cli_fail(d.message);
    }
    int status = 0;
    if (output) {
        size_t n = strlen(out);
        char *withnl = malloc(n + 2);
        if (withnl == NULL) {
            free(out);
            return cli_fail("out of memory");
        }
        memcpy(withnl, out, n);
        withnl[n] = '\n';
        withnl[n + 1] = '\0';
        if (!fileio_write_atomic(output, withnl, n + 1, &d)) {
            diag_prefix(&d, "%s", OPTION_FLAG(OPT_OUTPUT));
            status = cli_fail(d.message);
        }
        free(withnl);
    } else {
        puts(out);
    }
    free(out);
    return status;
}

/* Weights read from the checkpoint more than twice or less than half of what
 * the dimensions give: a folder holding part of a model, or a config that
 * does not describe these files. Said, not refused: quantized checkpoints
 * legitimately differ from params x torch_dtype. */
static void warn_far(const struct hf_import *h, uint64_t read)
{
    uint64_t computed = h->model.weights_bytes
                            ? h->model.weights_bytes
                            : dtype_bytes_for(h->model.weight_dtype, h->model.params);
    if (computed == 0 || (read <= 2 * computed && 2 * read >= computed))
        return;
    fprintf(stderr, "  warning: the checkpoint holds %llu bytes (%.2f GiB) of weights, but "
                    "%.3fB parameters x %s make %llu bytes (%.2f GiB): %.2fx; are these the "
                    "config's files, all of them?\n",
            (unsigned long long)read, (double)read / (double)GIB, (double)h->model.params / 1e9,
            dtype_info(h->model.weight_dtype)->name, (unsigned long long)computed,
            (double)computed / (double)GIB, (double)read / (double)computed);
}

/* The weights' exact bytes, when the checkpoint sits beside the config;
 * what they come from goes to stderr with the summary. */
static bool exact_weights(const char *path, struct hf_import *h, struct diag *d)
{
    struct hf_weights w;
    if (!hfweights_read(path, &w, d))
        return false;
    if (!w.found)
        return true;
    warn_far(h, w.bytes);
    h->model.weights_bytes = w.bytes;
    if (w.from_index) {
        fprintf(stderr, "  weights: %llu bytes (%.2f GiB), model.safetensors.index.json's "
                        "metadata.total_size\n",
                (unsigned long long)w.bytes, (double)w.bytes / (double)GIB);
        return true;
    }
    fprintf(stderr, "  weights: %llu bytes (%.2f GiB) in %llu tensors of %llu safetensors "
                    "file%s:",
            (unsigned long long)w.bytes, (double)w.bytes / (double)GIB,
            (unsigned long long)w.sum.tensors, (unsigned long long)w.sum.files,
            w.sum.files == 1 ? "" : "s");
    for (int t = 0; t < ST_DTYPE_COUNT; t++)
        if (w.sum.by_dtype[t])
            fprintf(stderr, " %s %llu", safetensors_dtype_name((enum st_dtype)t),
                    (unsigned long long)w.sum.by_dtype[t]);
    fprintf(stderr, "\n");
    return true;
}

/* --hf-id: the model every launch line serves, in place of _name_or_path. */
static bool set_hf_id(const char *hf_id, struct hf_import *h, struct diag *d)
{
    if (hf_id == NULL)
        return true;
    if (!spec_hf_id_valid(hf_id))
        return diag_fail(d, "%s: '%s' is not a Hugging Face id (OWNER/NAME or NAME: letters, "
                            "digits, '-', '_', '.')",
                         OPTION_FLAG(OPT_HF_ID), hf_id);
    snprintf(h->model.hf_id, sizeof h->model.hf_id, "%s", hf_id);
    /* the note that _name_or_path was left out no longer holds: drop it */
    int kept = 0;
    for (int i = 0; i < h->note_count; i++)
        if (strncmp(h->notes[i], "_name_or_path ", 14) != 0)
            memmove(h->notes[kept++], h->notes[i], sizeof h->notes[i]);
    h->note_count = kept;
    return true;
}

int cmd_import_hf(int argc, char **argv)
{
    struct options o;
    struct diag d = {0};
    int parsed = cli_parse(CMD_IMPORT_HF, argc, argv, &o);
    if (parsed != CLI_PARSED)
        return parsed;
    const char *id = o.hf_id, *name = o.hf_name, *output = o.output_path;
    if (optind + 1 != argc)
        return cli_fail("import-hf: give one config.json (see --help)");
    const char *path = argv[optind];
    size_t len = 0;
    char *text = fileio_read(path, &len, &d);
    if (text == NULL)
        return cli_fail(d.message);
    struct hf_import h;
    bool ok = hfconfig_parse(path, text, len, id, name, &h, &d);
    free(text);
    ok = ok && set_hf_id(o.hf_repo, &h, &d);
    if (!ok)
        return cli_fail(d.message);
    /* the summary goes to stderr so stdout stays a clean preset */
    char shown[1024]; /* the file name as printed: no controls in it */
    text_escape(path, shown, sizeof shown);
    fprintf(stderr, "%s: %s family, %.3fB parameters computed from the dimensions", shown,
            params_family_name(h.dims.family), (double)h.model.params / 1e9);
    if (h.model.active_params)
        fprintf(stderr, " (%.3fB active)", (double)h.model.active_params / 1e9);
    if (h.stated_params > 0)
        fprintf(stderr, "; the config states %.3fB", h.stated_params / 1e9);
    fprintf(stderr, "\n");
    for (int i = 0; i < 2; i++)
        if (h.defaults[i].count)
            fprintf(stderr, "  defaulted as transformers' %s (not in the config): %s\n",
                    h.defaults[i].cls, h.defaults[i].fields);
    for (int i = 0; i < h.note_count; i++)
        fprintf(stderr, "  note: %s\n", h.notes[i]);
    if (!exact_weights(path, &h, &d))
        return cli_fail(d.message);
    return import_write_preset(path, &h.model, output);
}
