/* engine: the table of profiles (one row per engine, each defined in its
 * own policy file) and kvplan's engine options, and the questions asked of
 * them: names, versions, cache types, vendors, knobs. */
#include "engine.h"
#include "engine_desc.h"
#include "optname.h"
#include "policy.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const struct engine_desc *const table[ENGINE_COUNT] = {
    [ENGINE_GENERIC] = &engine_generic, [ENGINE_VLLM] = &engine_vllm,
    [ENGINE_SGLANG] = &engine_sglang,   [ENGINE_LLAMACPP] = &engine_llamacpp,
    [ENGINE_TRTLLM] = &engine_trtllm,   [ENGINE_OLLAMA] = &engine_ollama,
};

#define FLAG_AT(field) offsetof(struct engine_flags, field)

/* In the order a command line gives them (io/report_command.c). An option
 * several engines share says what the others are told. */
static const struct engine_option options[] = {
    {OPTNAME_GPU_MEMORY_UTILIZATION, FLAG_AT(gpu_memory_utilization), EOPT_FRACTION,
     SF_GPU_MEMORY_UTILIZATION, true, NULL},
    {OPTNAME_MEM_FRACTION_STATIC, FLAG_AT(mem_fraction_static), EOPT_FRACTION, SF_MEM_FRACTION_STATIC,
     true, NULL},
    {OPTNAME_FREE_GPU_MEMORY_FRACTION, FLAG_AT(free_gpu_memory_fraction), EOPT_FRACTION,
     SF_FREE_GPU_MEMORY_FRACTION, true, NULL},
    {OPTNAME_MAX_NUM_SEQS, FLAG_AT(max_num_seqs), EOPT_COUNT, SF_MAX_NUM_SEQS, true,
     "is an engine's option (" OPTNAME_ENGINE " vllm, sglang or trtllm)"},
    {OPTNAME_MAX_NUM_BATCHED_TOKENS, FLAG_AT(max_num_batched_tokens), EOPT_TOKENS,
     SF_MAX_NUM_BATCHED_TOKENS, true,
     "is an option of vLLM and TensorRT-LLM (SGLang: " OPTNAME_CHUNKED_PREFILL_SIZE ")"},
    {OPTNAME_CHUNKED_PREFILL_SIZE, FLAG_AT(chunked_prefill_size), EOPT_TOKENS, SF_COUNT, false, NULL},
    {OPTNAME_PARALLEL, FLAG_AT(parallel), EOPT_COUNT, SF_PARALLEL, true, NULL},
    {OPTNAME_FIT_TARGET, FLAG_AT(fit_target_bytes), EOPT_BYTES, SF_COUNT, false, NULL},
    {OPTNAME_KV_DTYPE_V, FLAG_AT(v_dtype), EOPT_DTYPE, SF_COUNT, false, NULL},
    /* what a log said: any engine takes them */
    {OPTNAME_GPU_TOTAL, FLAG_AT(gpu_total_bytes), EOPT_BYTES, SF_LOGGED, false, NULL},
    {OPTNAME_NON_KV, FLAG_AT(non_kv_bytes), EOPT_BYTES, SF_LOGGED, false, NULL},
    {OPTNAME_KV_MEMORY, FLAG_AT(kv_memory_bytes), EOPT_BYTES, SF_LOGGED, false, NULL},
};
enum { OPTION_COUNT = sizeof options / sizeof options[0] };

const struct engine_desc *engine_desc(enum engine_kind k)
{
    return table[k >= 0 && k < ENGINE_COUNT ? k : ENGINE_GENERIC];
}

const char *engine_name(enum engine_kind k)
{
    return k >= 0 && k < ENGINE_COUNT ? table[k]->name : "?";
}

const char *engine_label(enum engine_kind k, enum engine_rule r)
{
    if (k < 0 || k >= ENGINE_COUNT)
        return "?";
    const struct engine_desc *d = table[k];
    for (int i = 0; i < ENGINE_VERSIONS_MAX && d->versions[i].label; i++)
        if (r != RULE_CURRENT && d->versions[i].rule == r)
            return d->versions[i].label;
    return d->name;
}

/* The version row of kind and rule (RULE_CURRENT: the newest), or NULL. */
static const struct engine_version *version_row(enum engine_kind k, enum engine_rule r)
{
    if (k < 0 || k >= ENGINE_COUNT)
        return NULL;
    const struct engine_desc *d = table[k];
    for (int i = 0; i < ENGINE_VERSIONS_MAX && d->versions[i].label; i++)
        if (d->versions[i].rule == r)
            return &d->versions[i];
    return NULL;
}

const char *engine_release(enum engine_kind k, enum engine_rule r)
{
    const struct engine_version *v = version_row(k, r);
    return v && v->release ? v->release : "";
}

const char *engine_version_title(enum engine_kind k, enum engine_rule r, char *buf, size_t size)
{
    const char *release = engine_release(k, r);
    if (release[0] == '\0')
        snprintf(buf, size, "%s", engine_label(k, r));
    else
        snprintf(buf, size, "%s %s", engine_desc(k)->title, release);
    return buf;
}

const char *engine_flags_title(const struct engine_flags *f, char *buf, size_t size)
{
    char title[64];
    engine_version_title(f->kind, f->rule, title, sizeof title);
    if (f->release_asked[0])
        snprintf(buf, size, "%s rule, for %s", title, f->release_asked);
    else
        snprintf(buf, size, "%s", title);
    return buf;
}

/* The engine called `name` (its name or an alias), or NULL. */
static const struct engine_desc *named(const char *name)
{
    for (int k = 0; k < ENGINE_COUNT; k++) {
        const struct engine_desc *d = table[k];
        if (strcasecmp(name, d->name) == 0)
            return d;
        for (int a = 0; a < ENGINE_ALIASES_MAX && d->aliases[a]; a++)
            if (strcasecmp(name, d->aliases[a]) == 0)
                return d;
    }
    return NULL;
}

/* The engines' names, or every version pin, joined for a message. */
static void list_all(bool versions, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int k = 0; k < ENGINE_COUNT; k++) {
        const struct engine_desc *d = table[k];
        for (int i = 0; i < (versions ? ENGINE_VERSIONS_MAX : 1); i++) {
            const char *word = versions ? d->versions[i].label : d->name;
            if (word == NULL || n >= size)
                break;
            n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", word);
        }
    }
}

/* A release as run, "0.11", "v0.14", "0.5.6", "b6500", not a rule's word
 * ("1", "v0", "trt", "pre-mla"), kept where it is not the release the rule is
 * named after: "vllm@0.11" is the vllm@0.13 rule, for 0.11. */
static void keep_asked(const struct engine_desc *e, enum engine_rule rule, const char *version,
                       char *asked, size_t size)
{
    if (asked == NULL || size == 0)
        return;
    const char *v = (version[0] == 'v' || version[0] == 'V') ? version + 1 : version;
    bool release = isdigit((unsigned char)v[0]) && strchr(v, '.') != NULL;
    bool build = (version[0] == 'b' || version[0] == 'B') && isdigit((unsigned char)version[1]);
    if ((release || build) && strcasecmp(version, engine_release(e->kind, rule)) != 0)
        snprintf(asked, size, "%s", version);
}

bool engine_parse(const char *text, enum engine_kind *kind, enum engine_rule *rule,
                  struct diag *d)
{
    return engine_parse_noted(text, kind, rule, NULL, 0, d);
}

bool engine_parse_noted(const char *text, enum engine_kind *kind, enum engine_rule *rule,
                        char *note, size_t size, struct diag *d)
{
    return engine_parse_asked(text, kind, rule, note, size, NULL, 0, d);
}

bool engine_parse_asked(const char *text, enum engine_kind *kind, enum engine_rule *rule,
                        char *note, size_t size, char *asked, size_t asked_size,
                        struct diag *d)
{
    if (note && size)
        note[0] = '\0';
    if (asked && asked_size)
        asked[0] = '\0';
    char name[64], all[256];
    snprintf(name, sizeof name, "%s", text ? text : "");
    char *at = strchr(name, '@');
    const char *version = NULL;
    if (at) {
        *at = '\0';
        version = at + 1;
    }
    const struct engine_desc *e = named(name);
    if (e == NULL) {
        list_all(false, all, sizeof all);
        return diag_fail(d, "'%s' is not an engine (%s)", text ? text : "", all);
    }
    *kind = e->kind;
    *rule = RULE_CURRENT;
    if (version && version[0] == '\0') /* "vllm@": a release was meant and is missing */
        return diag_fail(d, "'%s': name a release or a rule after '@' (%s@latest, or see kvplan "
                            "list engines)", text, e->name);
    if (version == NULL || strcasecmp(version, "latest") == 0)
        return true;
    for (int i = 0; i < ENGINE_VERSIONS_MAX && e->versions[i].label; i++)
        for (int j = 0; j < ENGINE_SPELLINGS_MAX && e->versions[i].spellings[j]; j++)
            if (strcasecmp(version, e->versions[i].spellings[j]) == 0) {
                *rule = e->versions[i].rule;
                keep_asked(e, *rule, version, asked, asked_size);
                return true;
            }
    if (e->versions[0].from) {
        if (!engine_release_rule(e, version, rule, note, size, d))
            return false;
        keep_asked(e, *rule, version, asked, asked_size);
        return true;
    }
    list_all(true, all, sizeof all);
    return diag_fail(d, "'%s': unknown version of %s (known: %s)", text, e->name, all);
}

/* Whether d is in the list (an empty list holds every precision). */
static bool listed(const enum dtype *list, enum dtype d)
{
    if (list[0] == DTYPE_AUTO)
        return true;
    for (int i = 0; i < ENGINE_DTYPES_MAX && list[i] != DTYPE_AUTO; i++)
        if (list[i] == d)
            return true;
    return false;
}

bool engine_supports(enum engine_kind k, enum dtype d)
{
    return listed(engine_desc(k)->cache_dtypes, d);
}

bool engine_loads(enum engine_kind k, enum dtype d)
{
    return listed(engine_desc(k)->weight_dtypes, d);
}

void engine_cache_types(enum engine_kind k, char *buf, size_t size)
{
    const enum dtype *list = engine_desc(k)->cache_dtypes;
    int n = 0;
    while (n < ENGINE_DTYPES_MAX && list[n] != DTYPE_AUTO)
        n++;
    if (n == 0) {
        snprintf(buf, size, "any");
        return;
    }
    size_t len = (size_t)snprintf(buf, size, "auto");
    for (int i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i == n - 1 ? " or " : ", ",
                                dtype_info(list[i])->name);
}

bool engine_runs_on(enum engine_kind k, const char *vendor)
{
    const struct engine_desc *d = engine_desc(k);
    if (d->vendors[0] == NULL)
        return true;
    for (int i = 0; i < ENGINE_VENDORS_MAX && d->vendors[i]; i++)
        if (strncasecmp(vendor, d->vendors[i], strlen(d->vendors[i])) == 0)
            return true;
    return false;
}

void engine_vendors_text(enum engine_kind k, char *buf, size_t size)
{
    const struct engine_desc *d = engine_desc(k);
    size_t n = 0;
    snprintf(buf, size, "any");
    for (int i = 0; i < ENGINE_VENDORS_MAX && d->vendors[i] && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s", i == 0 ? "" : " and ", d->vendors[i]);
}

const struct engine_option *engine_options(size_t *count)
{
    *count = OPTION_COUNT;
    return options;
}

const struct engine_option *engine_option_at(size_t offset)
{
    for (size_t i = 0; i < OPTION_COUNT; i++)
        if (options[i].offset == offset)
            return &options[i];
    return NULL;
}

const struct engine_option *engine_option_of(enum scenario_field field)
{
    for (size_t i = 0; i < OPTION_COUNT; i++)
        if (options[i].field == field && field != SF_LOGGED)
            return &options[i];
    return NULL;
}

uint64_t engine_option_uint(const struct engine_flags *f, const struct engine_option *o)
{
    const char *p = (const char *)f + o->offset;
    switch (o->type) {
    case EOPT_FRACTION:
        return 0;
    case EOPT_COUNT:
        return *(const uint32_t *)(const void *)p;
    case EOPT_TOKENS:
    case EOPT_BYTES:
        return *(const uint64_t *)(const void *)p;
    case EOPT_DTYPE:
        return (uint64_t)*(const enum dtype *)(const void *)p;
    }
    return 0;
}

double engine_option_value(const struct engine_flags *f, const struct engine_option *o)
{
    if (o->type == EOPT_FRACTION)
        return *(const double *)(const void *)((const char *)f + o->offset);
    return (double)engine_option_uint(f, o);
}

bool engine_option_given(const struct engine_flags *f, const struct engine_option *o)
{
    const char *p = (const char *)f + o->offset;
    switch (o->type) {
    case EOPT_FRACTION:
        return *(const double *)(const void *)p > 0;
    case EOPT_COUNT:
        return *(const uint32_t *)(const void *)p != 0;
    case EOPT_TOKENS:
    case EOPT_BYTES:
        return *(const uint64_t *)(const void *)p != 0;
    case EOPT_DTYPE:
        return *(const enum dtype *)(const void *)p != DTYPE_AUTO;
    }
    return false;
}

void engine_option_set(struct engine_flags *f, const struct engine_option *o, double v)
{
    char *p = (char *)f + o->offset;
    switch (o->type) {
    case EOPT_FRACTION:
        *(double *)(void *)p = v;
        break;
    case EOPT_COUNT:
        *(uint32_t *)(void *)p = (uint32_t)v;
        break;
    case EOPT_TOKENS:
    case EOPT_BYTES:
        *(uint64_t *)(void *)p = (uint64_t)v;
        break;
    case EOPT_DTYPE:
        *(enum dtype *)(void *)p = (enum dtype)(int)v;
        break;
    }
}

const struct engine_knob *engine_knob(const struct engine_desc *d, size_t offset)
{
    for (int i = 0; i < ENGINE_KNOBS_MAX && d->knobs[i].label; i++)
        if (d->knobs[i].offset == offset)
            return &d->knobs[i];
    return NULL;
}

const struct engine_knob *engine_knob_role(const struct engine_desc *d, enum knob_role role)
{
    for (int i = 0; i < ENGINE_KNOBS_MAX && d->knobs[i].label; i++)
        if (d->knobs[i].role == role && role != KNOB_OTHER)
            return &d->knobs[i];
    return NULL;
}

const struct engine_desc *engine_owner(size_t offset)
{
    for (int k = 0; k < ENGINE_COUNT; k++)
        if (engine_knob(table[k], offset))
            return table[k];
    return NULL;
}

const struct engine_knob *engine_knob_any(size_t offset)
{
    const struct engine_desc *d = engine_owner(offset);
    return d ? engine_knob(d, offset) : NULL;
}

uint64_t engine_option_max(size_t offset)
{
    const struct engine_knob *k = engine_knob_any(offset);
    return k ? (uint64_t)k->max : 0;
}

void engine_refusal(const struct engine_desc *d, const struct engine_option *o, char *buf,
                    size_t size)
{
    const struct engine_desc *own = engine_owner(o->offset);
    const struct engine_knob *theirs = own ? engine_knob(own, o->offset) : NULL;
    /* an engine with a knob of its own in that row names it: "counts slots" */
    const struct engine_knob *mine = theirs ? engine_knob_role(d, theirs->role) : NULL;
    if (mine && mine->counts) {
        const struct engine_option *m = engine_option_at(mine->offset);
        snprintf(buf, size, "%s counts %s: use %s", d->title, mine->counts, m ? m->flag : "");
    } else if (o->refusal) {
        snprintf(buf, size, "%s", o->refusal);
    } else if (own) {
        snprintf(buf, size, "is %s option (--engine %s)", own->title_a, own->name);
    } else {
        snprintf(buf, size, "is no engine's option");
    }
}

void engine_list(bool (*has)(const struct engine_desc *), struct engine_list how, char *buf,
                 size_t size)
{
    const struct engine_desc *in[ENGINE_COUNT];
    int n = 0;
    for (int k = 0; k < ENGINE_COUNT; k++)
        if (table[k]->server && has(table[k]))
            in[n++] = table[k];
    if (how.generic && has(table[ENGINE_GENERIC]))
        in[n++] = table[ENGINE_GENERIC];
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s",
                                i == 0 ? "" : i == n - 1 ? how.last : ", ",
                                how.titles ? in[i]->title : in[i]->name);
}

bool engine_any_rule(enum engine_rule rule)
{
    (void)rule;
    return true;
}

bool engine_expert_parallel(const struct engine_desc *e, enum engine_rule rule)
{
    return e->experts_over_tp || (e->experts_over_dp && e->experts_over_dp(rule));
}

const struct engine_desc *engine_find(bool (*has)(const struct engine_desc *))
{
    for (int k = 0; k < ENGINE_COUNT; k++)
        if (has(table[k]))
            return table[k];
    return NULL;
}
