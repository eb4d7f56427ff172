/* preset_gguf: the "gguf" object of a model preset (preset_gguf.h). */
#include "preset_gguf.h"

#include <string.h>

#include "core/text.h"

/* An array of `n` whole byte counts into out (NULL: absent, all 0); false
 * with d naming it. */
static bool read_bytes(const struct jsonread *r, const cJSON *g, const char *key, uint32_t n,
                       uint64_t *out, struct diag *d)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(g, key);
    if (a == NULL || cJSON_IsNull(a))
        return true;
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

/* Each layer's bytes and experts' into m; false with d naming the field. */
static bool read_layers(const struct jsonread *c, const cJSON *g, struct model_spec *m,
                        struct diag *d)
{
    uint64_t bytes[SPEC_LAYER_BYTES_MAX] = {0}, experts[SPEC_LAYER_BYTES_MAX] = {0}, sum = 0;
    if (!read_bytes(c, g, "layer_bytes", m->layers, bytes, d) ||
        !read_bytes(c, g, "layer_expert_bytes", m->layers, experts, d))
        return false;
    for (uint32_t i = 0; i < m->layers; i++) {
        if (experts[i] > bytes[i])
            return jsonread_fail(c, d, "layer_expert_bytes[%u]: more than layer_bytes[%u]", i, i);
        if (!spec_set_layer_bytes(m, i, bytes[i], experts[i]))
            return jsonread_fail(c, d, "layer_bytes: more than %d different sizes of layer",
                                 SPEC_LAYER_SIZES_MAX);
        sum += bytes[i];
    }
    if (m->weights_bytes == 0 || sum > m->weights_bytes)
        return jsonread_fail(c, d, "layer_bytes: %llu bytes in all, more than weights_bytes",
                             (unsigned long long)sum);
    m->layer_bytes_count = m->layers;
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
    return jsonread_u64(&c, g, "embed_bytes", true, 0, big, &m->embed_bytes, d) &&
           jsonread_u64(&c, g, "output_bytes", true, 0, big, &m->output_bytes, d) &&
           read_layers(&c, g, m, d);
}

/* One number a layer: its bytes, or its experts'. */
static void write_layers(struct jsonout *o, const char *key, const struct model_spec *m,
                         bool experts)
{
    cJSON *a = cJSON_CreateArray();
    for (uint32_t i = 0; i < m->layers && a; i++) {
        uint64_t v = experts ? spec_layer_expert_bytes(m, i) : spec_layer_bytes(m, i);
        cJSON *x = cJSON_CreateNumber((double)v);
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
        write_layers(&g, "layer_bytes", m, false);
        bool experts = false;
        for (uint32_t i = 0; i < m->layers; i++)
            experts = experts || spec_layer_expert_bytes(m, i);
        if (experts)
            write_layers(&g, "layer_expert_bytes", m, true);
    }
    jsonout_object(o, "gguf", jsonout_end(&g));
}
