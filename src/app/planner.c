#include "planner.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/lora.h"
#include "io/report.h"

/* The curve spans every context: a change of context (or of units) alone
 * only moves its marker, so it is computed again only when something else
 * changed. */
static bool same_curve(const struct scenario *a, const struct scenario *b)
{
    struct scenario ka = *a, kb = *b;
    ka.context_tokens = kb.context_tokens = 0;
    ka.units = kb.units = UNITS_GIB;
    return memcmp(&ka, &kb, sizeof ka) == 0;
}

/* What follows a new current scenario: no refusal to show, and a focus
 * on a control it has. */
static void settle_current(struct planner *p)
{
    p->error[0] = '\0';
    if (!control_visible(p->focus, planner_scenario(p)))
        p->focus = CTRL_ENGINE;
}

/* Plans next into the current slot, with its rows and, when it changed,
 * its curve; a refused one leaves the slot and the rows as they were
 * (plan_compute writes no row before it accepts). */
static bool compute(struct planner *p, const struct scenario *next)
{
    struct diag d = {0};
    struct plan_result r;
    if (!plan_compute(next, &p->explain, control_field_names, &r, &d)) {
        snprintf(p->error, sizeof p->error, "%s", d.message);
        return false;
    }
    struct planner_slot *sl = &p->slots[p->current];
    bool curve = !same_curve(&sl->scenario, next);
    sl->result = r;
    if (next != &sl->scenario)
        sl->scenario = *next;
    if (curve)
        curve_compute(&sl->scenario, &sl->curve);
    settle_current(p);
    return true;
}

/* The current slot keeps its plan and curve; only its explain rows, which
 * no other slot keeps, are computed again (into a plan thrown away). */
static void enter_current(struct planner *p)
{
    struct diag d = {0};
    struct plan_result r;
    if (plan_compute(planner_scenario(p), &p->explain, control_field_names, &r, &d))
        settle_current(p);
}

static void push(struct scenario *stack, int *count, const struct scenario *s)
{
    if (*count == PLANNER_UNDO) { /* the oldest change is forgotten */
        memmove(stack, stack + 1, (PLANNER_UNDO - 1) * sizeof *stack);
        (*count)--;
    }
    stack[(*count)++] = *s;
}

bool planner_apply(struct planner *p, const struct scenario *next)
{
    struct scenario before = *planner_scenario(p);
    if (!compute(p, next))
        return false;
    if (memcmp(&before, planner_scenario(p), sizeof before) != 0) {
        struct planner_slot *sl = &p->slots[p->current];
        push(sl->undo, &sl->undo_count, &before);
        sl->redo_count = 0;
    }
    return true;
}

/* Undo and redo: the top of one stack becomes the scenario, which goes on the other. */
static bool travel(struct planner *p, struct scenario *from, int *nfrom, struct scenario *to,
                   int *nto)
{
    if (*nfrom == 0)
        return false;
    struct scenario now = *planner_scenario(p);
    if (!compute(p, &from[--*nfrom]))
        return false;
    push(to, nto, &now);
    return true;
}

bool planner_undo(struct planner *p)
{
    struct planner_slot *sl = &p->slots[p->current];
    return travel(p, sl->undo, &sl->undo_count, sl->redo, &sl->redo_count);
}

bool planner_redo(struct planner *p)
{
    struct planner_slot *sl = &p->slots[p->current];
    return travel(p, sl->redo, &sl->redo_count, sl->undo, &sl->undo_count);
}

void planner_switch(struct planner *p, int i)
{
    if (i < 0 || i >= p->count || i == p->current)
        return;
    p->current = i;
    enter_current(p);
}

static void default_label(const struct planner *p, char *buf, size_t size)
{
    for (char c = 'A'; c <= 'Z'; c++) {
        char l[2] = {c, 0};
        bool used = false;
        for (int i = 0; i < p->count; i++)
            used |= snapshot_label_same(p->slots[i].label, l);
        if (!used) {
            snprintf(buf, size, "%s", l);
            return;
        }
    }
    snprintf(buf, size, "%d", p->count + 1);
}

bool planner_duplicate(struct planner *p)
{
    if (p->count >= PLANNER_SLOTS)
        return false;
    struct planner_slot *sl = &p->slots[p->count];
    const struct planner_slot *from = &p->slots[p->current];
    sl->undo_count = sl->redo_count = 0;
    sl->note[0] = '\0';
    sl->origin = from->origin; /* a copy is planned from the same file */
    sl->load = from->load;
    default_label(p, sl->label, sizeof sl->label);
    sl->scenario = from->scenario;
    sl->result = from->result;
    sl->curve = from->curve;
    p->current = p->count++; /* the same scenario: its rows stay */
    return true;
}

void planner_remove(struct planner *p)
{
    if (p->count <= 1)
        return;
    int gone = p->current;
    memmove(&p->slots[gone], &p->slots[gone + 1],
            (size_t)(p->count - gone - 1) * sizeof p->slots[0]);
    p->count--;
    if (p->reference == gone)
        p->reference = -1;
    else if (p->reference > gone)
        p->reference--;
    p->current = gone < p->count ? gone : p->count - 1;
    enter_current(p);
}

const struct plan_result *planner_result_of(const struct planner *p, int i)
{
    return &p->slots[i].result;
}

void planner_explains(const struct planner *p, const struct explain **explains,
                      struct explain *scratch)
{
    for (int i = 0; i < p->count; i++) {
        struct plan_result r;
        struct diag d = {0};
        if (i != p->current &&
            !plan_compute(&p->slots[i].scenario, &scratch[i], control_field_names, &r, &d))
            scratch[i].count = 0;
        explains[i] = i == p->current ? &p->explain : &scratch[i];
    }
}

const struct users_curve *planner_curve_of(const struct planner *p, int i)
{
    return &p->slots[i].curve;
}

const struct plan_result *planner_reference(const struct planner *p)
{
    if (p->reference < 0 || p->reference >= p->count || p->reference == p->current)
        return NULL;
    return &p->slots[p->reference].result;
}

int planner_versus(const struct planner *p, int *out)
{
    /* the reference (or the first), the scenario being edited, then the others
     * in order, four at most, shown in session order after the reference */
    int n = 0, first = p->reference >= 0 && p->reference < p->count ? p->reference : 0;
    bool in[PLANNER_SLOTS] = {false};
    in[first] = true;
    int want = 1;
    if (p->current != first && p->current < p->count) {
        in[p->current] = true;
        want++;
    }
    for (int i = 0; i < p->count && want < 4; i++)
        if (!in[i]) {
            in[i] = true;
            want++;
        }
    out[n++] = first;
    for (int i = 0; i < p->count; i++)
        if (in[i] && i != first)
            out[n++] = i;
    return n;
}

void planner_session(const struct planner *p, struct snapshot_session *ss,
                     const struct plan_result **results)
{
    memset(ss, 0, sizeof *ss);
    ss->count = p->count;
    ss->current = p->current;
    ss->reference = p->reference;
    for (int i = 0; i < p->count; i++) {
        snprintf(ss->entry[i].label, sizeof ss->entry[i].label, "%s", p->slots[i].label);
        snprintf(ss->entry[i].note, sizeof ss->entry[i].note, "%s", p->slots[i].note);
        ss->entry[i].scenario = p->slots[i].scenario;
        ss->entry[i].load = p->slots[i].load;
        results[i] = planner_result_of(p, i);
    }
}

/* A planner holds every session scenario with its undo history (megabytes):
 * zero what is read before it is written, not the histories' contents,
 * which only their counts make live. */
static void planner_clear(struct planner *p)
{
    memset(p, 0, offsetof(struct planner, slots));
    size_t tail = offsetof(struct planner, copied);
    memset((char *)p + tail, 0, sizeof *p - tail);
    for (int i = 0; i < PLANNER_SLOTS; i++) {
        struct planner_slot *sl = &p->slots[i];
        memset(sl, 0, offsetof(struct planner_slot, result));
        memset(&sl->result, 0, sizeof sl->result);
        memset(&sl->curve, 0, sizeof sl->curve);
        sl->undo_count = sl->redo_count = 0;
    }
}

void planner_init(struct planner *p, const struct catalog *c, const struct scenario *s)
{
    planner_clear(p);
    p->explain.deferred = true; /* the pane shows a few rows: only theirs are written */
    p->catalog = c;
    p->focus = CTRL_CONTEXT;
    p->count = 1;
    p->reference = -1;
    snprintf(p->slots[0].label, sizeof p->slots[0].label, "A");
    p->slots[0].scenario = *s;
    curve_compute(s, &p->slots[0].curve);
    compute(p, s);
    p->saved_print = planner_session_print(p);
}

void planner_init_session(struct planner *p, const struct catalog *c,
                          const struct snapshot_session *ss)
{
    planner_init(p, c, &ss->entry[0].scenario);
    p->count = ss->count;
    for (int i = 0; i < ss->count; i++) {
        struct planner_slot *sl = &p->slots[i];
        snprintf(sl->label, sizeof sl->label, "%s", ss->entry[i].label);
        snprintf(sl->note, sizeof sl->note, "%s", ss->entry[i].note);
        sl->scenario = ss->entry[i].scenario;
        sl->load = ss->entry[i].load;
        struct diag d = {0};
        /* with rows (the launch line, the generic comparison); the live
         * scenario's, computed last, take their place */
        plan_compute(&sl->scenario, &p->explain, control_field_names, &sl->result, &d);
        curve_compute(&sl->scenario, &sl->curve);
    }
    p->reference = ss->reference;
    p->current = ss->current;
    enter_current(p);
    p->saved_print = planner_session_print(p);
}

static uint64_t fnv(uint64_t h, const char *text)
{
    for (const char *c = text; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    return (h ^ 0xff) * 1099511628211ull; /* ends each text: "ab","c" differs from "a","bc" */
}

uint64_t planner_session_print(const struct planner *p)
{
    /* the command line carries every scenario field (test_command checks it) */
    uint64_t h = 14695981039346656037ull;
    char line[REPORT_COMMAND_MAX];
    for (int i = 0; i < p->count; i++) {
        h = fnv(h, p->slots[i].label);
        h = fnv(h, p->slots[i].note);
        report_command_line(&p->slots[i].scenario, line, sizeof line);
        h = fnv(h, line);
        const struct load_settings *ls = &p->slots[i].load; /* the Load screen's */
        snprintf(line, sizeof line, "%g %llu %llu %llu %g %g %llu", ls->rate,
                 (unsigned long long)ls->input_len, (unsigned long long)ls->output_len,
                 (unsigned long long)ls->max_concurrency, ls->slo_ttft_ms, ls->slo_tpot_ms,
                 (unsigned long long)ls->seed);
        h = fnv(h, line);
    }
    return h;
}

bool planner_unsaved(const struct planner *p)
{
    bool notes = false;
    for (int i = 0; i < p->count; i++)
        notes = notes || p->slots[i].note[0] != '\0';
    return (p->count > 1 || notes) && planner_session_print(p) != p->saved_print;
}

int planner_controls(const struct planner *p, enum control *out)
{
    int n = 0;
    for (int c = 0; c < CTRL_COUNT; c++)
        if (control_visible((enum control)c, planner_scenario(p)))
            out[n++] = (enum control)c;
    return n;
}

static int current_index(const uint64_t *v, int n, uint64_t cur)
{
    int best = 0;
    for (int i = 0; i < n; i++)
        if (v[i] <= cur)
            best = i;
    return best;
}

/* What a change of c dropped that belongs to the engine or model left behind
 * (a layout, slots, images, a cache type: control_fit_knobs), said in `what`;
 * false when nothing was. */
static bool dropped(const struct scenario *was, const struct scenario *next, enum control c,
                    char *what, size_t size)
{
    if (was->dp_attention && !next->dp_attention)
        snprintf(what, size, "DP attention (SGLang)");
    else if (was->expert_parallel && !next->expert_parallel)
        snprintf(what, size, "expert parallel (vLLM)");
    else if (was->pp > 1 && next->pp <= 1)
        snprintf(what, size, "pipeline stages");
    else if (c != CTRL_LORA && was->max_loras && !next->max_loras)
        snprintf(what, size, "LoRA (%u slot%s x rank %u)", was->max_loras,
                 was->max_loras == 1 ? "" : "s", lora_rank(was));
    else if (c != CTRL_LORA && was->lora_targets && !next->lora_targets)
        snprintf(what, size, "LoRA on the MLP");
    else if (c != CTRL_IMAGES && scenario_images(was) && !scenario_images(next))
        snprintf(what, size, "image input (%u x %u tokens)", scenario_images(was),
                 scenario_tokens_per_image(was));
    else if (c != CTRL_KV_DTYPE && was->kv_dtype != next->kv_dtype && next->kv_dtype == DTYPE_AUTO)
        snprintf(what, size, "the %s cache", dtype_info(was->kv_dtype)->name);
    else
        return false;
    return true;
}

void planner_apply_control(struct planner *p, enum control c, const struct scenario *next)
{
    char what[96];
    bool gone = dropped(planner_scenario(p), next, c, what, sizeof what);
    struct scenario s = *next;
    planner_apply(p, &s);
    if (gone && !p->error[0])
        snprintf(p->status, sizeof p->status, "%s is off with this %s: z brings it back", what,
                 c == CTRL_ENGINE ? "engine" : c == CTRL_MODEL ? "model" : "setting");
}

static void set_value(struct planner *p, enum control c, uint64_t value)
{
    struct scenario s = *planner_scenario(p);
    control_set(c, &s, p->catalog, value);
    planner_apply_control(p, c, &s);
}

/* The values control c steps through for the current scenario, and the
 * index of its current value. */
static int values_of(const struct planner *p, enum control c, uint64_t *v, int *at)
{
    const struct scenario *s = planner_scenario(p);
    const struct plan_result *r = planner_result(p);
    int n = control_values(c, s, r, p->catalog, v);
    *at = n > 0 ? current_index(v, n, control_current(c, s, r, p->catalog)) : 0;
    return n;
}

void planner_step(struct planner *p, enum control c, int delta, bool big)
{
    uint64_t v[CONTROL_VALUES_MAX];
    int i, n = values_of(p, c, v, &i);
    if (n == 0)
        return;
    int stride = big ? (n / 8 > 2 ? n / 8 : 2) : 1;
    /* every control stops at its ends, lists as sliders do */
    i += delta * stride;
    i = i < 0 ? 0 : i >= n ? n - 1 : i;
    set_value(p, c, v[i]);
}

void planner_to_end(struct planner *p, enum control c, bool last)
{
    uint64_t v[CONTROL_VALUES_MAX];
    int n = control_values(c, planner_scenario(p), planner_result(p), p->catalog, v);
    if (n > 0)
        set_value(p, c, v[last ? n - 1 : 0]);
}

void planner_set_fraction(struct planner *p, enum control c, double f)
{
    uint64_t v[CONTROL_VALUES_MAX];
    int n = control_values(c, planner_scenario(p), planner_result(p), p->catalog, v);
    if (n == 0)
        return;
    int i = (int)(f * (n - 1) + 0.5);
    i = i < 0 ? 0 : i >= n ? n - 1 : i;
    if (v[i] != control_current(c, planner_scenario(p), planner_result(p), p->catalog))
        set_value(p, c, v[i]);
}

double planner_control_fraction(const struct planner *p, enum control c)
{
    if (control_kind(c) != CK_SLIDER)
        return -1;
    uint64_t v[CONTROL_VALUES_MAX];
    int i, n = values_of(p, c, v, &i);
    if (n < 2)
        return -1;
    return (double)i / (n - 1);
}

void planner_reset(struct planner *p, enum control c)
{
    struct scenario s = *planner_scenario(p);
    control_reset(c, &s);
    planner_apply(p, &s);
}

/* Lowercase letters and digits only: "H100 SXM", "h100-sxm" -> "h100sxm". */
static void fold(const char *in, char *out, size_t size)
{
    size_t n = 0;
    for (; *in && n + 1 < size; in++)
        if (isalnum((unsigned char)*in))
            out[n++] = (char)tolower((unsigned char)*in);
    out[n] = '\0';
}

/* Every term of the filter, in any order, inside the id or the name. */
static bool fuzzy_match(const char *id, const char *name, const char *filter)
{
    char hay[SPEC_ID_MAX + SPEC_NAME_MAX + 2], a[SPEC_ID_MAX], b[SPEC_NAME_MAX];
    fold(id, a, sizeof a);
    fold(name, b, sizeof b);
    snprintf(hay, sizeof hay, "%s %s", a, b);
    char terms[64];
    snprintf(terms, sizeof terms, "%s", filter);
    for (char *save = NULL, *t = strtok_r(terms, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        char f[64];
        fold(t, f, sizeof f);
        if (f[0] && strstr(hay, f) == NULL)
            return false;
    }
    return true;
}

uint64_t planner_picker_users(const struct planner *p, int index, bool *fits)
{
    struct scenario s = *planner_scenario(p);
    if (p->picker.of == CTRL_GPU) {
        s.gpu = p->catalog->gpus[index].spec;
        s.has_vram = false;
    } else {
        s.model = p->catalog->models[index].spec;
        s.kv_heads = 0;
    }
    struct plan_result r;
    struct diag d = {0};
    if (!plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d)) {
        *fits = false;
        return 0;
    }
    *fits = r.fits;
    /* with a service level, the users that keep it (the number the headline leads with) */
    return r.speed.users_at_service_level;
}

static const struct planner *sorting;
static int by_users(const void *a, const void *b)
{
    bool fa, fb;
    uint64_t ua = planner_picker_users(sorting, *(const int *)a, &fa);
    uint64_t ub = planner_picker_users(sorting, *(const int *)b, &fb);
    if (ua != ub)
        return ua > ub ? -1 : 1;
    return *(const int *)a - *(const int *)b;
}

int planner_picker_matches(const struct planner *p, int *out, int max)
{
    bool gpu = p->picker.of == CTRL_GPU;
    size_t n = gpu ? p->catalog->gpu_count : p->catalog->model_count;
    int k = 0;
    for (size_t i = 0; i < n && k < max; i++) {
        const char *id = gpu ? p->catalog->gpus[i].spec.id : p->catalog->models[i].spec.id;
        const char *name = gpu ? p->catalog->gpus[i].spec.name : p->catalog->models[i].spec.name;
        if (fuzzy_match(id, name, p->picker.filter))
            out[k++] = (int)i;
    }
    if (p->picker.by_users && k > 1) {
        sorting = p;
        qsort(out, (size_t)k, sizeof *out, by_users);
    } else {
        /* an id typed whole comes first: "deepseek-v3" picks DeepSeek-V3, not V3.2 */
        for (int j = 1; j < k; j++) {
            const char *id = gpu ? p->catalog->gpus[out[j]].spec.id
                                 : p->catalog->models[out[j]].spec.id;
            if (strcasecmp(id, p->picker.filter) == 0) {
                int exact = out[j];
                memmove(out + 1, out, (size_t)j * sizeof *out);
                out[0] = exact;
                break;
            }
        }
    }
    return k;
}

void planner_export_name(const struct planner *p, char *buf, size_t size)
{
    char t[32];
    const struct scenario *s = planner_scenario(p);
    snprintf(buf, size, "kvplan-%s-%s-%s.json", s->model.id, s->gpu.id,
             units_format_tokens_short(s->context_tokens, t, sizeof t));
}
