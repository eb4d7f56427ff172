#include "lora.h"
#include "engine_desc.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "kvcost.h"
#include "scenario.h"

static const char *const names[LORA_MODULES] = {"q_proj",    "k_proj",  "v_proj",   "o_proj",
                                                "gate_proj", "up_proj", "down_proj"};

const char *lora_module_name(enum lora_module m)
{
    return m >= 0 && m < LORA_MODULES ? names[m] : "";
}

bool lora_targets_parse(const char *text, uint32_t *mask, struct diag *d)
{
    uint32_t out = 0;
    const char *p = text ? text : "";
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char word[32];
        if (len == 0 || len >= sizeof word)
            return diag_fail(d, "'%.*s' is not a module (q_proj, k_proj, v_proj, o_proj, "
                             "gate_proj, up_proj, down_proj, all or attention)",
                             (int)(len < 40 ? len : 40), p);
        memcpy(word, p, len);
        word[len] = '\0';
        bool found = false;
        for (int m = 0; m < LORA_MODULES; m++)
            if (strcasecmp(word, names[m]) == 0) {
                out |= 1u << m;
                found = true;
            }
        if (strcasecmp(word, "all") == 0 || strcasecmp(word, "all-linear") == 0)
            out |= LORA_ALL, found = true;
        if (strcasecmp(word, "attention") == 0)
            out |= LORA_ATTENTION, found = true;
        if (!found)
            return diag_fail(d, "'%s' is not a module (q_proj, k_proj, v_proj, o_proj, gate_proj, "
                             "up_proj, down_proj, all or attention)", word);
        p = end ? end + 1 : p + len;
        if (end && *p == '\0')
            return diag_fail(d, "a module name is missing after the last comma");
    }
    if (out == 0)
        return diag_fail(d, "give at least one module (q_proj,k_proj,... or all)");
    *mask = out;
    return true;
}

void lora_targets_format(uint32_t mask, char *buf, size_t size)
{
    size_t n = 0;
    if (size)
        buf[0] = '\0';
    for (int m = 0; m < LORA_MODULES && n < size; m++)
        if (mask & (1u << m))
            n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? "," : "", names[m]);
}

uint32_t lora_targets(const struct scenario *s)
{
    if (s->lora_targets)
        return s->lora_targets;
    return s->model.experts > 0 ? LORA_ATTENTION : LORA_ALL;
}

uint32_t lora_allocated(const struct scenario *s)
{
    uint32_t t = lora_targets(s);
    const uint32_t qkv = (1u << LORA_Q) | (1u << LORA_K) | (1u << LORA_V);
    const uint32_t gate_up = (1u << LORA_GATE) | (1u << LORA_UP);
    bool packed = engine_desc(s->engine.kind)->packs_lora;
    if (packed && (t & qkv))
        t |= qkv;
    if (packed && (t & gate_up))
        t |= gate_up;
    if (s->model.mlp_ungated) /* fc1/fc2: gate_proj names nothing; up_proj is the first matrix */
        t &= ~(1u << LORA_GATE);
    return t;
}

uint32_t lora_rank(const struct scenario *s)
{
    return s->max_lora_rank ? s->max_lora_rank : LORA_DEFAULT_RANK;
}

enum dtype lora_dtype(const struct scenario *s)
{
    /* vLLM: lora_dtype "auto" is the model's dtype; SGLang: the model's dtype */
    return scenario_compute_dtype(s);
}

void lora_compute(const struct scenario *s, uint32_t attention_tp, uint32_t tp, uint32_t layers,
                  uint32_t kv_heads_per_gpu, struct lora_cost *c)
{
    const struct model_spec *m = &s->model;
    memset(c, 0, sizeof *c);
    c->slots = s->max_loras;
    c->rank = lora_rank(s);
    c->layers = layers;
    c->targets = lora_allocated(s);
    c->dtype = lora_dtype(s);
    uint32_t atp = attention_tp ? attention_tp : 1, mtp = tp ? tp : 1;
    uint64_t h = m->hidden_size;
    uint64_t q = kv_ceil_div((uint64_t)m->attention_heads * m->head_dim, atp);
    uint64_t kv = (uint64_t)kv_heads_per_gpu * m->head_dim;
    uint64_t inter = kv_ceil_div(m->intermediate_size, mtp);
    /* column-parallel: A keeps the whole input, B the output's share;
     * row-parallel: A the input's share, B the whole output */
    c->features[LORA_Q] = h + q;
    c->features[LORA_K] = h + kv;
    c->features[LORA_V] = h + kv;
    c->features[LORA_O] = q + h;
    c->features[LORA_GATE] = h + inter;
    c->features[LORA_UP] = h + inter;
    c->features[LORA_DOWN] = inter + h;
    for (int i = 0; i < LORA_MODULES; i++)
        if (c->targets & (1u << i))
            c->features_sum += c->features[i];
    if (c->slots == 0)
        return;
    const struct dtype_info *info = dtype_info(c->dtype);
    uint64_t values = kv_sat_mul(kv_sat_mul(layers, c->rank), c->features_sum);
    c->slot_bytes = kv_sat_mul(values, info->bytes_num) / info->bytes_den;
    c->bytes = kv_sat_mul(c->slot_bytes, c->slots);
}
