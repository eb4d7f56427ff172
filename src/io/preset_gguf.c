/* preset_gguf: the "gguf" object of a model preset (preset_gguf.h). */
#include "preset_gguf.h"

#include <string.h>

#include "core/text.h"

/* An array of `n` whole byte counts into out; false with d naming it. */
static bool read_bytes(const struct jsonread *r, const cJSON *g, const char *key, uint32_t n,
                       uint64_t *out, struct diag *d)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(g, key);
    if (!cJSON_IsArray(a) || (uint32_t)cJSON_GetArraySize(a) != n)
        return jsonread_fail(r, d, "%s: expected an array of %u byte counts, one a layer "
                                   "(num_layers)", key, n);
    int i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, a) {
        double x = cJSON_IsNumber(v) ? v->valuedouble : -1;
        if (x < 0 || x > 9007199254740992.0 || x != (double)(uint64_t)x)
            return jsonread_fail(r, d, "%s[%d]: expected a whole byte count", key, i);
        out[i++] = (uint64_t)x;
    }
    return true;
}

bool preset_read_gguf(const struct jsonread *r, const cJSON *o, struct model_spec *m,
                      struct diag *d)
{
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(o, "gguf");
    if (g == NULL || cJSON_IsNull(g))
        return true;
    if (!cJSON_IsObject(g))
        return jsonread_fail(r, d, "gguf: expected an object or null");
    struct jsonread c = jsonread_child(r, "gguf", "gguf.");
    const uint64_t big = (uint64_t)1 << 53;
    unsigned cp = 0;
    if (!jsonread_string(&c, g, "file", true, m->gguf_file, sizeof m->gguf_file, d))
        return false;
    if (m->gguf_file[0] == '\0' || strchr(m->gguf_file, '/') ||
        text_check(m->gguf_file, sizeof m->gguf_file - 1, &cp) != TEXT_OK)
        return jsonread_fail(&c, d, "file: expected a file's name, without '/' or controls");
    if (!jsonread_has(g, "layer_bytes"))
        return true;
    if (m->layers > SPEC_LAYER_BYTES_MAX)
        return jsonread_fail(&c, d, "layer_bytes: kept for at most %d layers",
                             SPEC_LAYER_BYTES_MAX);
    if (!jsonread_u64(&c, g, "embed_bytes", true, 0, big, &m->embed_bytes, d) ||
        !jsonread_u64(&c, g, "output_bytes", true, 0, big, &m->output_bytes, d) ||
        !read_bytes(&c, g, "layer_bytes", m->layers, m->layer_bytes, d) ||
        (jsonread_has(g, "layer_expert_bytes") &&
         !read_bytes(&c, g, "layer_expert_bytes", m->layers, m->layer_expert_bytes, d)))
        return false;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < m->layers; i++) {
        if (m->layer_expert_bytes[i] > m->layer_bytes[i])
            return jsonread_fail(&c, d, "layer_expert_bytes[%u]: more than layer_bytes[%u]", i, i);
        sum += m->layer_bytes[i];
    }
    if (m->weights_bytes == 0 || sum > m->weights_bytes)
        return jsonread_fail(&c, d, "layer_bytes: %llu bytes in all, more than weights_bytes",
                             (unsigned long long)sum);
    m->layer_bytes_count = m->layers;
    return true;
}

static void write_bytes(struct jsonout *o, const char *key, const uint64_t *v, uint32_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (uint32_t i = 0; i < n && a; i++) {
        cJSON *x = cJSON_CreateNumber((double)v[i]);
        if (x == NULL || !cJSON_AddItemToArray(a, x)) {
            cJSON_Delete(x);
            cJSON_Delete(a);
            a = NULL;
        }
    }
    jsonout_object(o, key, a);
}

void preset_write_gguf(struct jsonout *o, const struct model_spec *m)
{
    if (m->gguf_file[0] == '\0')
        return;
    struct jsonout g = jsonout_begin();
    jsonout_string(&g, "file", m->gguf_file);
    if (m->layer_bytes_count == m->layers && m->layers) {
        jsonout_uint(&g, "embed_bytes", m->embed_bytes);
        jsonout_uint(&g, "output_bytes", m->output_bytes);
        write_bytes(&g, "layer_bytes", m->layer_bytes, m->layers);
        bool experts = false;
        for (uint32_t i = 0; i < m->layers; i++)
            experts = experts || m->layer_expert_bytes[i];
        if (experts)
            write_bytes(&g, "layer_expert_bytes", m->layer_expert_bytes, m->layers);
    }
    jsonout_object(o, "gguf", jsonout_end(&g));
}
