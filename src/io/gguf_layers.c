/* gguf_layers: the blocks of a GGUF and their bytes (gguf_layers.h). */
#include "gguf_layers.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"

/* The block of a tensor named "blk.N.*" (llama.cpp's LLM_TENSOR names), or
 * -1 for a tensor outside the blocks; a number too long to be one is
 * UINT32_MAX, past any block_count. */
static int64_t block_of(const char *name)
{
    if (strncmp(name, "blk.", 4) != 0 || !isdigit((unsigned char)name[4]))
        return -1;
    uint64_t n = 0;
    const char *p = name + 4;
    for (; isdigit((unsigned char)*p); p++)
        n = n > UINT32_MAX ? n : n * 10 + (uint64_t)(*p - '0');
    if (*p != '.')
        return -1;
    return n > UINT32_MAX ? (int64_t)UINT32_MAX : (int64_t)n;
}

static bool routed_expert(const char *name)
{
    return strstr(name, "_exps.") || strstr(name, "_exps_");
}

struct block {
    uint64_t bytes, experts;
    bool held;
};

/* Each block's tensors summed into b[]; the embedding's bytes, and those
 * of the other tensors outside the blocks. False at a tensor past them. */
static bool sum_blocks(const char *path, const char *key, const struct gguf_file *g,
                       struct model_spec *m, struct block *b, uint64_t *outside, bool *tied,
                       struct diag *d)
{
    uint32_t layers = m->layers;
    for (uint64_t i = 0; i < g->tensor_count; i++) {
        const struct gguf_tensor *t = &g->tensors[i];
        int64_t k = block_of(t->name);
        if (k >= (int64_t)layers) {
            char shown[96];
            text_escape(t->name, shown, sizeof shown);
            return diag_fail(d, "%s: tensor %llu \"%s\": block %lld is past %s %u (blocks 0 to %u)",
                             path, (unsigned long long)i, shown, (long long)k, key, layers,
                             layers - 1);
        }
        if (k >= 0) {
            b[k].held = true;
            b[k].bytes += t->bytes;
            b[k].experts += routed_expert(t->name) ? t->bytes : 0;
        } else if (strcmp(t->name, "token_embd.weight") == 0) {
            m->embed_bytes = t->bytes;
        } else {
            *tied = *tied && strcmp(t->name, "output.weight") != 0;
            *outside += t->bytes; /* the output layer, its norm, rope_freqs */
        }
    }
    return true;
}

bool gguf_layers_read(const char *path, const char *key, const struct gguf_file *g,
                      struct model_spec *m, struct diag *d)
{
    uint32_t layers = m->layers;
    struct block *b = calloc(layers ? layers : 1, sizeof *b);
    if (b == NULL)
        return diag_fail(d, "%s: out of memory counting %u blocks", path, layers);
    uint64_t outside = 0;
    bool tied = true;
    if (!sum_blocks(path, key, g, m, b, &outside, &tied, d)) {
        free(b);
        return false;
    }
    uint32_t missing = 0;
    while (missing < layers && b[missing].held)
        missing++;
    if (missing < layers) {
        free(b);
        return diag_fail(d, "%s: %s: %u blocks, but no tensor holds block %u (blk.%u.*)", path,
                         key, layers, missing, missing);
    }
    /* llama.cpp loads a tied output from the embedding, a copy on the output's device */
    m->output_bytes = outside + (tied ? m->embed_bytes : 0);
    bool keep = layers <= SPEC_LAYER_BYTES_MAX;
    for (uint32_t i = 0; keep && i < layers; i++)
        keep = spec_set_layer_bytes(m, i, b[i].bytes, b[i].experts);
    free(b);
    m->layer_bytes_count = keep ? layers : 0; /* else even shares */
    return true;
}
