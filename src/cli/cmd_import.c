/* import-hf: a model preset from a local Hugging Face config.json; and the
 * preset writer import-hf and import-gguf share. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/options_table.h"
#include "core/text.h"
#include "io/fileio.h"
#include "io/hfconfig.h"
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
    for (int i = 0; i < h.note_count; i++)
        fprintf(stderr, "  note: %s\n", h.notes[i]);
    return import_write_preset(path, &h.model, output);
}
