/* gguf_model: the preset a GGUF header describes (gguf_model.h). */
#include "gguf_model.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/text.h"
#include "core/units.h"
#include "io/gguf_layers.h"
#include "io/preset.h"

/* The architectures kvplan can describe, and which of their layers keep a
 * sliding window, as llama.cpp's loader sets them: Gemma 2 and gpt-oss
 * every other layer from the first, Gemma 3 five of every six. */
enum window_rule { WIN_NONE, WIN_ALTERNATE, WIN_SIX };

static const struct {
    const char *arch;
    enum window_rule win;
    const char *pattern;
} archs[] = {
    {"llama", WIN_NONE, ""},    {"qwen2", WIN_NONE, ""},
    {"qwen3", WIN_NONE, ""},    {"qwen3moe", WIN_NONE, ""},
    {"gemma", WIN_NONE, ""},    {"gemma2", WIN_ALTERNATE, "alternating local/global"},
    {"gemma3", WIN_SIX, "5 local : 1 global"},
    {"gpt-oss", WIN_ALTERNATE, "alternating sliding/full"},
    {"deepseek2", WIN_NONE, ""},
};
#define ARCH_NAMES "llama (and Mistral, Mixtral), qwen2, qwen3, qwen3moe, gemma, gemma2, gemma3, gpt-oss, deepseek2"

struct gx {
    const char *path; /* as printed */
    const struct gguf_file *g;
    const char *arch;
    struct gguf_import *h;
    struct diag *d;
};

static void note(struct gguf_import *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct gguf_import *h, const char *fmt, ...)
{
    if (h->note_count >= 4)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->notes[h->note_count++], sizeof h->notes[0], fmt, ap);
    va_end(ap);
}

static const struct gguf_kv *arch_kv(const struct gx *x, const char *suffix, char *key, size_t size)
{
    snprintf(key, size, "%s.%s", x->arch, suffix);
    return gguf_find(x->g, key);
}

static bool integer_type(enum gguf_value_type t)
{
    return t != GGUF_F32 && t != GGUF_F64 && t != GGUF_BOOL && t != GGUF_STRING &&
           t != GGUF_ARRAY;
}

static bool signed_type(enum gguf_value_type t)
{
    return t == GGUF_I8 || t == GGUF_I16 || t == GGUF_I32 || t == GGUF_I64;
}

/* <arch>.suffix as a whole number in [min, max]; a per-layer array must
 * hold one value, unless take_max (then its largest). 0 when absent. */
static bool num(const struct gx *x, const char *suffix, bool required, bool take_max,
                uint64_t max, uint64_t *out)
{
    char key[GGUF_KEY_MAX + 40];
    const struct gguf_kv *kv = arch_kv(x, suffix, key, sizeof key);
    *out = 0;
    if (kv == NULL)
        return !required || diag_fail(x->d, "%s: %s: missing", x->path, key);
    bool array = kv->type == GGUF_ARRAY;
    enum gguf_value_type t = array ? kv->elem_type : kv->type;
    if (!integer_type(t) || (array && (kv->ints == NULL || kv->count == 0)))
        return diag_fail(x->d, "%s: %s: %s %s%s, not a whole number", x->path, key,
                         array ? "an array of" : "a", gguf_value_type_name(t),
                         array ? " values" : "");
    uint64_t lo = UINT64_MAX, hi = 0;
    for (uint64_t i = 0; i < (array ? kv->count : 1); i++) {
        int64_t v = array ? kv->ints[i] : kv->v.i;
        if (signed_type(t) && v < 0)
            return diag_fail(x->d, "%s: %s: %lld is negative", x->path, key, (long long)v);
        uint64_t u = array ? (uint64_t)v : kv->v.u;
        lo = u < lo ? u : lo;
        hi = u > hi ? u : hi;
    }
    if (lo != hi && !take_max)
        return diag_fail(x->d, "%s: %s: varies by layer (%llu to %llu); kvplan plans one value "
                               "for every layer",
                         x->path, key, (unsigned long long)lo, (unsigned long long)hi);
    if (hi > max)
        return diag_fail(x->d, "%s: %s: %llu is out of range (at most %llu)", x->path, key,
                         (unsigned long long)hi, (unsigned long long)max);
    if (required && hi == 0)
        return diag_fail(x->d, "%s: %s: must be positive", x->path, key);
    *out = hi;
    return true;
}

/* An id from the file's name: "Llama-3.1-8B-Q4_K_M.gguf" gives
 * "llama-3.1-8b-q4_k_m". */
static void derive_id(const char *path, char *out, size_t size)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    while (*base && !isalnum((unsigned char)*base))
        base++;
    size_t n = 0, len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".gguf") == 0)
        len -= 5;
    /* a split's first file, PREFIX-00001-of-00003: the model is PREFIX */
    unsigned no = 0, of = 0;
    char tail[16] = "", end = 0;
    if (len > 15)
        memcpy(tail, base + len - 15, 15);
    if (sscanf(tail, "-%5u-of-%5u%c", &no, &of, &end) == 2 && no == 1)
        len -= 15;
    for (size_t i = 0; i < len && n + 1 < size; i++) {
        char c = (char)tolower((unsigned char)base[i]);
        out[n++] = isalnum((unsigned char)c) || c == '.' || c == '_' ? c : '-';
    }
    out[n] = '\0';
    if (n == 0)
        snprintf(out, size, "imported-model");
}

/* id, name and source. */
static bool names(const struct gx *x, const char *id, const char *name)
{
    struct model_spec *m = &x->h->model;
    if (id && !preset_id_valid(id))
        return diag_fail(x->d, "--id: '%s' must be 1 to %d lowercase letters, digits, '-', '.' "
                               "or '_', starting with a letter or digit",
                         id, SPEC_ID_MAX - 1);
    unsigned cp = 0;
    if (name && text_check(name, SPEC_NAME_MAX - 1, &cp) != TEXT_OK)
        return diag_fail(x->d, "--name: not UTF-8 text of at most %d bytes without controls",
                         SPEC_NAME_MAX - 1);
    if (id)
        snprintf(m->id, sizeof m->id, "%s", id);
    else
        derive_id(x->path, m->id, sizeof m->id);
    const struct gguf_kv *gn = gguf_find(x->g, "general.name");
    if (name)
        snprintf(m->name, sizeof m->name, "%s", name);
    else if (gn && gn->str)
        text_sanitize(gn->str, m->name, sizeof m->name); /* cut whole, controls dropped */
    if (m->name[0] == '\0')
        snprintf(m->name, sizeof m->name, "%s", m->id);
    /* the file llama-server -m opens (a split's first), as its launch line names it */
    const char *base = strrchr(x->path, '/');
    text_sanitize(base ? base + 1 : x->path, m->gguf_file, sizeof m->gguf_file);
    const char *ft = x->h->file_type[0] ? x->h->file_type : "not given";
    char more[64] = "";
    if (x->g->parts > 1)
        snprintf(more, sizeof more, " and the %u other files of its split", x->g->parts - 1);
    snprintf(m->source, sizeof m->source, "imported from %.380s%s by kvplan import-gguf "
                                          "(general.file_type %s)",
             x->path, more, ft);
    return true;
}

/* Parameters, bytes and the mix from the tensors; the vocabulary from the
 * token embedding (its second dimension); what routed experts hold. */
static bool count_tensors(const struct gx *x, uint64_t *expert_elems)
{
    struct gguf_import *h = x->h;
    struct model_spec *m = &h->model;
    *expert_elems = 0;
    for (uint64_t i = 0; i < x->g->tensor_count; i++) {
        const struct gguf_tensor *t = &x->g->tensors[i];
        uint64_t n = t->ne[0] * t->ne[1] * t->ne[2] * t->ne[3]; /* checked by the reader */
        if (n > ((uint64_t)1 << 53) - m->params)
            return diag_fail(x->d, "%s: the tensors hold more than 2^53 parameters", x->path);
        m->params += n;
        m->weights_bytes += t->bytes; /* each within the file: no overflow */
        if (t->type < GGUF_MIX_MAX) {
            h->tensor_bytes[t->type] += t->bytes;
            h->tensor_count[t->type]++;
        }
        /* routed experts: ffn_gate_exps, ffn_up_exps, ffn_down_exps and their biases */
        if (strstr(t->name, "_exps.") || strstr(t->name, "_exps_"))
            *expert_elems += n;
        if (strcmp(t->name, "token_embd.weight") == 0 && t->n_dims >= 2)
            m->vocab_size = t->ne[1] <= 100000000 ? (uint32_t)t->ne[1] : 0;
    }
    if (m->params == 0)
        return diag_fail(x->d, "%s: tensor_count: no tensors, so no weights to plan", x->path);
    const struct gguf_kv *tokens = gguf_find(x->g, "tokenizer.ggml.tokens");
    if (m->vocab_size == 0 && tokens && tokens->type == GGUF_ARRAY && tokens->count <= 100000000)
        m->vocab_size = (uint32_t)tokens->count;
    return true;
}

/* MLA (deepseek2): the latent and the rope part it caches; the per-head
 * sizes from key_length_mla and value_length_mla, or from key_length and
 * value_length in a file converted before those keys. */
static bool read_mla(const struct gx *x)
{
    struct model_spec *m = &x->h->model;
    uint64_t kv_lora = 0, rope = 0, q_lora = 0, k_mla = 0, v_mla = 0, k = 0, v = 0;
    if (!num(x, "attention.kv_lora_rank", true, false, 1000000, &kv_lora) ||
        !num(x, "rope.dimension_count", false, false, 1000000, &rope) ||
        !num(x, "attention.q_lora_rank", false, false, 1000000, &q_lora) ||
        !num(x, "attention.key_length_mla", false, false, 1000000, &k_mla) ||
        !num(x, "attention.value_length_mla", false, false, 1000000, &v_mla) ||
        !num(x, "attention.key_length", false, false, 1000000, &k) ||
        !num(x, "attention.value_length", false, false, 1000000, &v))
        return false;
    uint64_t head_k = k_mla ? k_mla : k;
    if (head_k < rope)
        return diag_fail(x->d, "%s: %s.attention.key_length%s: %llu is less than "
                               "rope.dimension_count %llu",
                         x->path, x->arch, k_mla ? "_mla" : "", (unsigned long long)head_k,
                         (unsigned long long)rope);
    m->attention = ATTENTION_MLA;
    m->kv_lora_rank = (uint32_t)kv_lora;
    m->qk_rope_head_dim = (uint32_t)rope;
    m->qk_nope_head_dim = (uint32_t)(head_k - rope);
    m->v_head_dim = (uint32_t)(v_mla ? v_mla : v);
    m->q_lora_rank = (uint32_t)q_lora;
    note(x->h, "MLA: caching %llu latent values per layer; head_count_kv is ignored",
         (unsigned long long)(kv_lora + rope));
    return true;
}

/* GQA, MQA or MHA: KV heads and one head_dim for keys and values. */
static bool read_heads(const struct gx *x, uint64_t hidden, uint64_t heads)
{
    struct model_spec *m = &x->h->model;
    uint64_t kv = 0, k = 0, v = 0;
    if (!num(x, "attention.head_count_kv", false, false, 100000, &kv) ||
        !num(x, "attention.key_length", false, false, 100000, &k) ||
        !num(x, "attention.value_length", false, false, 100000, &v))
        return false;
    if (k == 0 && hidden % heads != 0)
        return diag_fail(x->d, "%s: %s.attention.key_length: missing, and embedding_length %llu "
                               "is not whole heads of head_count %llu",
                         x->path, x->arch, (unsigned long long)hidden, (unsigned long long)heads);
    if (k == 0)
        k = hidden / heads;
    if (v && v != k)
        return diag_fail(x->d, "%s: %s.attention.value_length: %llu is not key_length %llu; "
                               "kvplan plans one head_dim for keys and values",
                         x->path, x->arch, (unsigned long long)v, (unsigned long long)k);
    m->kv_heads = (uint32_t)(kv ? kv : heads);
    m->head_dim = (uint32_t)k;
    m->attention = m->kv_heads == 1 ? ATTENTION_MQA
                   : m->kv_heads == m->attention_heads ? ATTENTION_MHA
                                                       : ATTENTION_GQA;
    return true;
}

/* The sliding window: sliding_window_pattern when the file gives it (a
 * period N, or a flag per layer), else the architecture's rule. */
static bool read_windows(const struct gx *x, enum window_rule rule, const char *pattern)
{
    struct model_spec *m = &x->h->model;
    uint64_t window = 0, period = 0, windowed = 0, L = m->layers;
    char key[GGUF_KEY_MAX + 40];
    const struct gguf_kv *p = arch_kv(x, "attention.sliding_window_pattern", key, sizeof key);
    if (!num(x, "attention.sliding_window", false, false, TOKENS_MAX, &window))
        return false;
    if (p && p->type == GGUF_ARRAY && p->ints && p->count == L) {
        for (uint64_t i = 0; i < L; i++)
            windowed += p->ints[i] != 0;
        snprintf(m->window_pattern, sizeof m->window_pattern, "per layer (GGUF)");
    } else if (p) {
        if (!num(x, "attention.sliding_window_pattern", false, false, 100000, &period))
            return false;
        if (period > 1)
            windowed = L - L / period;
        snprintf(m->window_pattern, sizeof m->window_pattern, "%llu local : 1 global",
                 (unsigned long long)(period ? period - 1 : 0));
    } else if (rule != WIN_NONE) {
        windowed = rule == WIN_ALTERNATE ? (L + 1) / 2 : L - L / 6;
        snprintf(m->window_pattern, sizeof m->window_pattern, "%s", pattern);
    }
    if (windowed && window == 0) {
        note(x->h, "no %s.attention.sliding_window: planned as full attention", x->arch);
        windowed = 0;
    } else if (!windowed && window) {
        note(x->h, "%s.attention.sliding_window %llu not applied: llama.cpp's %s attends to the "
                   "whole context",
             x->arch, (unsigned long long)window, x->arch);
    }
    if (windowed) {
        m->windowed_layers = (uint32_t)windowed;
        m->window_tokens = window;
    } else {
        m->window_pattern[0] = '\0';
    }
    return true;
}

/* Routed experts: their count, how many a token uses, what they hold. */
static bool read_experts(const struct gx *x, uint64_t expert_elems)
{
    struct model_spec *m = &x->h->model;
    uint64_t experts = 0, used = 0;
    if (!num(x, "expert_count", false, false, 100000, &experts) ||
        !num(x, "expert_used_count", false, false, 100000, &used))
        return false;
    if (experts < 2)
        return true;
    if (used == 0 || used > experts)
        return diag_fail(x->d, "%s: %s.expert_used_count: %llu of %llu experts", x->path, x->arch,
                         (unsigned long long)used, (unsigned long long)experts);
    if (expert_elems == 0) {
        note(x->h, "%llu experts named, but no *_exps tensor holds them: planned as dense",
             (unsigned long long)experts);
        return true;
    }
    m->experts = (uint32_t)experts;
    m->experts_per_token = (uint32_t)used;
    m->expert_params = expert_elems;
    m->active_params = m->params - expert_elems + expert_elems / experts * used;
    return true;
}

/* The precision the preset names: general.file_type's when kvplan has it,
 * else the nearest of those llama.cpp loads to the file's bits a weight
 * (the planner takes the exact bytes either way). */
static void name_precision(const struct gx *x)
{
    struct model_spec *m = &x->h->model;
    static const struct {
        const char *file_type;
        enum dtype d;
    } direct[] = {{"F32", DTYPE_FP32},   {"F16", DTYPE_FP16},       {"BF16", DTYPE_BF16},
                  {"Q8_0", DTYPE_Q8_0},  {"Q4_0", DTYPE_Q4_0},      {"Q6_K", DTYPE_Q6_K},
                  {"Q5_K_M", DTYPE_Q5_K_M}, {"Q4_K_M", DTYPE_Q4_K_M}};
    for (size_t i = 0; i < sizeof direct / sizeof direct[0]; i++)
        if (strcmp(x->h->file_type, direct[i].file_type) == 0) {
            m->weight_dtype = direct[i].d;
            return;
        }
    static const enum dtype near[] = {DTYPE_Q4_0, DTYPE_Q4_K_M, DTYPE_Q5_K_M, DTYPE_Q6_K,
                                      DTYPE_Q8_0, DTYPE_BF16,   DTYPE_FP32};
    double bits = 8.0 * (double)m->weights_bytes / (double)m->params, best = 1e300;
    for (size_t i = 0; i < sizeof near / sizeof near[0]; i++) {
        const struct dtype_info *di = dtype_info(near[i]);
        double b = 8.0 * di->bytes_num / di->bytes_den, off = b > bits ? b - bits : bits - b;
        if (off < best) {
            best = off;
            m->weight_dtype = near[i];
        }
    }
    note(x->h, "weight_dtype %s: the nearest to the file's %.2f bits a weight; the planner takes "
               "its exact bytes",
         dtype_info(m->weight_dtype)->name, bits);
}

/* general.architecture, and its row of the table. */
static bool read_arch(struct gx *x, enum window_rule *rule, const char **pattern)
{
    const struct gguf_kv *a = gguf_find(x->g, "general.architecture");
    if (a == NULL || a->type != GGUF_STRING || a->str == NULL)
        return diag_fail(x->d, "%s: general.architecture: %s", x->path,
                         a ? "not a short string" : "missing");
    for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
        if (strcmp(a->str, archs[i].arch) == 0) {
            x->arch = archs[i].arch;
            *rule = archs[i].win;
            *pattern = archs[i].pattern;
            snprintf(x->h->arch, sizeof x->h->arch, "%s", x->arch);
            return true;
        }
    char shown[96];
    text_escape(a->str, shown, sizeof shown);
    return diag_fail(x->d, "%s: general.architecture: '%s' is not one kvplan can describe (%s)",
                     x->path, shown, ARCH_NAMES);
}

bool gguf_import_model(const char *path, const struct gguf_file *g, const char *id,
                       const char *name, struct gguf_import *h, struct diag *d)
{
    memset(h, 0, sizeof *h);
    char shown[256];
    text_escape(path, shown, sizeof shown);
    struct gx x = {.path = shown, .g = g, .h = h, .d = d};
    struct model_spec *m = &h->model;
    enum window_rule rule = WIN_NONE;
    const char *pattern = "";
    const struct gguf_kv *ft = gguf_find(g, "general.file_type");
    if (ft && integer_type(ft->type) && ft->v.u <= UINT32_MAX && gguf_file_type_name((uint32_t)ft->v.u))
        snprintf(h->file_type, sizeof h->file_type, "%s", gguf_file_type_name((uint32_t)ft->v.u));
    uint64_t layers = 0, hidden = 0, heads = 0, context = 0, ffn = 0, expert_elems = 0;
    /* a model split over files (llama-gguf-split): every file's tensors, or none */
    uint64_t split = gguf_unsigned(g, "split.count");
    if (split != UINT64_MAX && split > 1 && split != g->parts)
        return diag_fail(d, "%s: split.count: the weights are in %llu files, and %u of them "
                            "were read",
                         shown, (unsigned long long)split, g->parts);
    if (!read_arch(&x, &rule, &pattern) || !names(&x, id, name) ||
        !num(&x, "block_count", true, false, 100000, &layers) ||
        !num(&x, "embedding_length", true, false, 10000000, &hidden) ||
        !num(&x, "attention.head_count", true, false, 100000, &heads) ||
        !num(&x, "context_length", true, false, TOKENS_MAX, &context) ||
        !num(&x, "feed_forward_length", false, true, 100000000, &ffn))
        return false;
    m->layers = (uint32_t)layers;
    m->hidden_size = (uint32_t)hidden;
    m->attention_heads = (uint32_t)heads;
    m->max_context_tokens = context;
    m->intermediate_size = (uint32_t)ffn;
    bool mla = strcmp(x.arch, "deepseek2") == 0;
    if (!(mla ? read_mla(&x) : read_heads(&x, hidden, heads)) ||
        !read_windows(&x, rule, pattern) || !count_tensors(&x, &expert_elems) ||
        !read_experts(&x, expert_elems))
        return false;
    char key[GGUF_KEY_MAX + 40];
    snprintf(key, sizeof key, "%s.block_count", x.arch);
    if (!gguf_layers_read(shown, key, g, m, d))
        return false;
    name_precision(&x);
    struct diag v = {0};
    if (!spec_model_validate(m, &v))
        return diag_fail(d, "%s: the model it describes is not valid: %s", shown, v.message);
    return true;
}
