/* libFuzzer target: the GGUF header reader and import-gguf over it. Any
 * input is read from memory in bounded reads; a refusal always says why;
 * whatever is accepted holds what its header says (each tensor's data
 * within the input) and gives a preset that loads and reads back the same,
 * as `kvplan import-gguf` writes it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "io/gguf.h"
#include "io/gguf_model.h"
#include "io/preset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_preset(const struct model_spec *m)
{
    cJSON *j = preset_model_to_json(m, true);
    char *written = j ? cJSON_Print(j) : NULL;
    cJSON_Delete(j);
    if (written == NULL)
        return;
    struct preset back;
    struct diag d = {0};
    if (!preset_parse("imported.json", written, strlen(written), &back, &d) ||
        back.kind != PRESET_MODEL || !preset_model_same(&back.model, m))
        abort();
    free(written);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gguf_file g;
    struct diag d = {0};
    if (!gguf_read_memory("fuzz.gguf", data, size, &g, &d)) {
        if (d.message[0] == '\0')
            abort(); /* a refusal always says why */
        return 0;
    }
    /* with no tensors the data's start may lie past the end: nothing is there */
    for (uint64_t i = 0; i < g.tensor_count; i++)
        if (g.data_offset > size || g.tensors[i].offset + g.tensors[i].bytes > size - g.data_offset)
            abort();
    struct gguf_import h;
    struct diag d2 = {0};
    if (gguf_import_model("fuzz.gguf", &g, NULL, NULL, &h, &d2))
        check_preset(&h.model);
    else if (d2.message[0] == '\0')
        abort();
    gguf_free(&g);
    return 0;
}
