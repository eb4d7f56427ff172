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

/* The first block below `layers` that no tensor holds, or layers. */
static uint32_t first_missing(const struct gguf_file *g, uint32_t layers, bool *ok)
{
    unsigned char *seen = calloc(layers ? layers : 1, 1);
    *ok = seen != NULL;
    if (seen == NULL)
        return layers;
    for (uint64_t i = 0; i < g->tensor_count; i++) {
        int64_t b = block_of(g->tensors[i].name);
        if (b >= 0 && b < (int64_t)layers)
            seen[b] = 1;
    }
    uint32_t k = 0;
    while (k < layers && seen[k])
        k++;
    free(seen);
    return k;
}

bool gguf_layers_read(const char *path, const char *key, const struct gguf_file *g,
                      struct model_spec *m, struct diag *d)
{
    uint32_t layers = m->layers;
    bool keep = layers <= SPEC_LAYER_BYTES_MAX, tied = true;
    uint64_t outside = 0;
    for (uint64_t i = 0; i < g->tensor_count; i++) {
        const struct gguf_tensor *t = &g->tensors[i];
        int64_t b = block_of(t->name);
        if (b >= (int64_t)layers) {
            char shown[96];
            text_escape(t->name, shown, sizeof shown);
            return diag_fail(d, "%s: tensor %llu \"%s\": block %lld is past %s %u (blocks 0 to %u)",
                             path, (unsigned long long)i, shown, (long long)b, key, layers,
                             layers - 1);
        }
        if (b >= 0 && keep) {
            m->layer_bytes[b] += t->bytes;
            if (routed_expert(t->name))
                m->layer_expert_bytes[b] += t->bytes;
        } else if (b < 0 && strcmp(t->name, "token_embd.weight") == 0) {
            m->embed_bytes = t->bytes;
        } else if (b < 0) {
            tied = tied && strcmp(t->name, "output.weight") != 0;
            outside += t->bytes; /* the output layer, its norm, rope_freqs */
        }
    }
    bool ok = true;
    uint32_t missing = first_missing(g, layers, &ok);
    if (!ok)
        return diag_fail(d, "%s: out of memory counting %u blocks", path, layers);
    if (missing < layers)
        return diag_fail(d, "%s: %s: %u blocks, but no tensor holds block %u (blk.%u.*)", path,
                         key, layers, missing, missing);
    /* llama.cpp loads a tied output from the embedding, a copy on the output's device */
    m->output_bytes = outside + (tied ? m->embed_bytes : 0);
    m->layer_bytes_count = keep ? layers : 0;
    if (!keep) {
        memset(m->layer_bytes, 0, sizeof m->layer_bytes);
        memset(m->layer_expert_bytes, 0, sizeof m->layer_expert_bytes);
    }
    return true;
}
