/* calibrate_model: the model preset a benchmark's output names, so that
 * --model is asked for only when the file's words match none.
 *
 * In order: a Hugging Face id (vllm bench serve's model_id, the model=
 * of its argument dump, genai-perf's input_config.model; a local path that
 * ends with the id; a fine-tune "-Instruct" of a preset's id); a preset's id
 * or Hugging Face name inside a file name (llama-bench's model_filename,
 * "models/Meta-Llama-3.1-8B-Instruct-Q4_0.gguf", "llama-2-7b.Q4_0.gguf",
 * genai-perf's artifact folder), its weight precision from the quantisation
 * word after it; llama-bench's model_type "{arch} {size} {ftype}" ("llama 8B
 * Q4_0", llama.cpp src/llama-model.cpp, llama_model::desc) with its
 * parameter count, when one architecture has that count. */
#include "cli/calibrate.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The preset whose Hugging Face id (hf_id) the file's model is, or a
 * fine-tune of it named with a suffix ("meta-llama/Llama-3.1-8B-Instruct"
 * for meta-llama/Llama-3.1-8B), which has the base's architecture. */
static const char *by_hf_id(const struct catalog *cat, const char *named, bool *base)
{
    static const char *const tunes[] = {"-Instruct", "-Chat", "-it"};
    size_t len = strlen(named);
    for (size_t i = 0; i < cat->model_count; i++) {
        const char *hf = cat->models[i].spec.hf_id;
        size_t n = strlen(hf);
        if (n && n <= len && strcasecmp(named + len - n, hf) == 0 &&
            (len == n || named[len - n - 1] == '/'))
            return cat->models[i].spec.id;
    }
    for (size_t i = 0; i < cat->model_count; i++) {
        const char *hf = cat->models[i].spec.hf_id;
        size_t n = strlen(hf);
        for (size_t t = 0; n && t < sizeof tunes / sizeof tunes[0]; t++) {
            size_t tl = strlen(tunes[t]);
            if (n + tl > len || strcasecmp(named + len - tl, tunes[t]) != 0 ||
                strncasecmp(named + len - tl - n, hf, n) != 0 ||
                (len > n + tl && named[len - tl - n - 1] != '/'))
                continue;
            *base = true;
            return cat->models[i].spec.id;
        }
    }
    return NULL;
}

/* Whether key is in name (both lower case) as a whole: neither a letter or
 * digit before it nor after it, nor a ".digit" after ("llama-3" is not in
 * "llama-3.1-8b"). Where it ends, or NULL. */
static const char *whole(const char *name, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = strstr(name, key); n && p; p = strstr(p + 1, key)) {
        const char *e = p + n;
        bool before = p == name || !isalnum((unsigned char)p[-1]);
        bool after = !isalnum((unsigned char)*e) && !(*e == '.' && isdigit((unsigned char)e[1]));
        if (before && after)
            return e;
    }
    return NULL;
}

static void lower(const char *in, char *out, size_t size)
{
    size_t k = 0;
    for (; in[k] && k + 1 < size; k++)
        out[k] = (char)tolower((unsigned char)in[k]);
    out[k] = '\0';
}

/* The longest preset id, or Hugging Face name (after its '/'), that is a
 * whole word of name; *rest where it ends in name. */
static const char *by_file_name(const struct catalog *cat, const char *name, const char **rest)
{
    char low[256], key[SPEC_HF_ID_MAX];
    lower(name, low, sizeof low);
    const char *best = NULL;
    size_t best_len = 0;
    for (size_t i = 0; i < cat->model_count; i++) {
        const struct model_spec *m = &cat->models[i].spec;
        const char *slash = strchr(m->hf_id, '/');
        const char *keys[] = {m->id, slash ? slash + 1 : ""};
        for (size_t k = 0; k < 2; k++) {
            lower(keys[k], key, sizeof key);
            const char *e = whole(low, key);
            if (e && strlen(key) > best_len) {
                best = m->id;
                best_len = strlen(key);
                *rest = name + (e - low);
            }
        }
    }
    return best;
}

/* The weight precision a GGUF file name gives after the model's name:
 * "-Q4_0.gguf", ".Q4_K_M.gguf", "-f16.gguf"; DTYPE_AUTO for none. */
static enum dtype file_dtype(const char *rest)
{
    char word[32];
    while (*rest) {
        rest += strspn(rest, "-.");
        size_t n = strcspn(rest, "-.");
        lower(rest, word, n < sizeof word ? n + 1 : sizeof word);
        enum dtype d;
        if (n && strcmp(word, "gguf") != 0 && dtype_parse(word, &d))
            return d;
        rest += n;
    }
    return DTYPE_AUTO;
}

/* Two presets of one architecture: what the fit reads of a model is the same. */
static bool same_arch(const struct model_spec *a, const struct model_spec *b)
{
    return a->layers == b->layers && a->hidden_size == b->hidden_size &&
           a->kv_heads == b->kv_heads && a->head_dim == b->head_dim &&
           a->attention == b->attention && a->params == b->params &&
           a->active_params == b->active_params;
}

/* llama-bench's "llama 8B Q4_0" with its parameter count: the presets whose
 * id starts with the architecture's word and whose count is within 0.5%. */
static const char *by_arch_size(const struct catalog *cat, const struct bench_log *b,
                                struct bench_model *m)
{
    char arch[32];
    size_t n = strcspn(b->model, " ");
    if (b->params <= 0 || n == 0 || n >= sizeof arch)
        return NULL;
    lower(b->model, arch, n + 1);
    const struct model_spec *first = NULL;
    int count = 0;
    bool one_arch = true;
    for (size_t i = 0; i < cat->model_count; i++) {
        const struct model_spec *s = &cat->models[i].spec;
        if (strncasecmp(s->id, arch, n) != 0 || fabs((double)s->params - b->params) > 0.005 * b->params)
            continue;
        size_t at = strlen(m->candidates);
        snprintf(m->candidates + at, sizeof m->candidates - at, "%s%s", at ? ", " : "", s->id);
        one_arch = one_arch && (first == NULL || same_arch(first, s));
        first = first ? first : s;
        count++;
    }
    if (count == 0 || !one_arch)
        return NULL;
    m->how = count == 1 ? "its architecture and parameter count"
                        : "its architecture and parameter count, which these presets share "
                          "(one architecture: the same fit)";
    return first->id;
}

bool calibrate_model_match(const struct catalog *cat, const struct bench_log *b,
                           struct bench_model *m)
{
    memset(m, 0, sizeof *m);
    m->weight = DTYPE_AUTO;
    const char *rest = NULL;
    if (b->model[0] && (m->id = by_hf_id(cat, b->model, &m->base)) != NULL) {
        m->how = m->base ? "its Hugging Face id, a fine-tune of the preset's (the same "
                           "architecture)"
                         : "its Hugging Face id";
        snprintf(m->said, sizeof m->said, "%s", b->model);
    } else if (b->model_file[0] && (m->id = by_file_name(cat, b->model_file, &rest)) != NULL) {
        m->how = "its file name";
        m->weight = file_dtype(rest);
        snprintf(m->said, sizeof m->said, "%s", b->model_file);
    } else if (b->model[0] && (m->id = by_file_name(cat, b->model, &rest)) != NULL) {
        m->how = "its name";
        snprintf(m->said, sizeof m->said, "%s", b->model);
    } else if (b->model[0] && (m->id = by_arch_size(cat, b, m)) != NULL) {
        snprintf(m->said, sizeof m->said, "%s, %.2f B params", b->model, b->params / 1e9);
    }
    return m->id != NULL;
}

void calibrate_model_unmatched(const struct bench_log *b, const struct bench_model *m, char *buf,
                               size_t size)
{
    char said[400] = "";
    if (b->model[0] && b->model_file[0])
        snprintf(said, sizeof said, "'%s' (%s)", b->model, b->model_file);
    else if (b->model[0] || b->model_file[0])
        snprintf(said, sizeof said, "'%s'", b->model[0] ? b->model : b->model_file);
    if (b->params > 0 && strlen(said) + 40 < sizeof said)
        snprintf(said + strlen(said), sizeof said - strlen(said), ", %.2f B params",
                 b->params / 1e9);
    if (!said[0])
        snprintf(buf, size, "the file names no model");
    else if (m->candidates[0])
        snprintf(buf, size, "the file names the model %s: it could be any of %s, which differ "
                 "in architecture", said, m->candidates);
    else
        snprintf(buf, size, "the file names the model %s, which matches no model preset "
                 "(kvplan list models)", said);
}

bool calibrate_log_model(const struct catalog *cat, const struct engine_log *log,
                         struct bench_model *m)
{
    static struct bench_log b; /* the log's names as a benchmark's */
    memset(&b, 0, sizeof b);
    snprintf(b.model, sizeof b.model, "%s", log->model);
    snprintf(b.model_file, sizeof b.model_file, "%s", log->model_file);
    if (!b.model[0] && !b.model_file[0]) {
        memset(m, 0, sizeof *m);
        return false;
    }
    return calibrate_model_match(cat, &b, m);
}
