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
    sl->kv_chosen = sl->scenario.kv_dtype;
    sl->knobs_chosen = sl->scenario.engine;
    sl->prefix_chosen = sl->scenario.prefix_tokens;
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

void planner_refresh_rows(struct planner *p)
{
    enter_current(p);
}

static void push(struct scenario *stack, int *count, const struct scenario *s)
{
    if (*count == PLANNER_UNDO) { /* the oldest change is forgotten */
        memmove(stack, stack + 1, (PLANNER_UNDO - 1) * sizeof *stack);
        (*count)--;
    }
    stack[(*count)++] = *s;
}

/* The prefix asked stays asked (doc/MODEL.md, section 4): a change that
 * leaves the Prefix control alone takes the one last asked, and a context
 * that reaches it holds it to the context less one token; *asked is the
 * prefix wanted, *held whether the rule applied. */
static void hold_prefix(const struct planner *p, struct scenario *s, uint64_t *asked, bool *held)
{
    const struct planner_slot *sl = &p->slots[p->current];
    *asked = s->prefix_tokens;
    if (s->prefix_tokens == sl->scenario.prefix_tokens && sl->prefix_chosen > *asked)
        *asked = sl->prefix_chosen;
    s->prefix_tokens = scenario_prefix_within(*asked, s->context_tokens);
    *held = s->prefix_tokens != *asked;
}

void planner_prefix_held(struct planner *p, uint64_t asked)
{
    struct planner_slot *sl = &p->slots[p->current];
    if (asked <= sl->scenario.prefix_tokens)
        return;
    char a[32], h[32];
    units_format_tokens(asked, a, sizeof a);
    units_format_tokens(sl->scenario.prefix_tokens, h, sizeof h);
    sl->prefix_chosen = asked;
    snprintf(p->status, sizeof p->status,
             "Prefix %s reaches the context: held to %s until the context grows", a, h);
}

bool planner_apply(struct planner *p, const struct scenario *given)
{
    struct scenario before = *planner_scenario(p), s = *given;
    uint64_t asked;
    bool held;
    hold_prefix(p, &s, &asked, &held);
    planner_calibration_follow(p, &before, &s);
    uint64_t chosen = p->slots[p->current].prefix_chosen;
    const struct scenario *next = &s;
    if (!compute(p, next))
        return false;
    if (held) {
        planner_prefix_held(p, asked);
    } else if (before.prefix_tokens < chosen && s.prefix_tokens == chosen) {
        char a[32];
        units_format_tokens(asked, a, sizeof a);
        snprintf(p->status, sizeof p->status, "Prefix %s is back: the context holds it", a);
    }
    if (memcmp(&before, planner_scenario(p), sizeof before) != 0) {
        struct planner_slot *sl = &p->slots[p->current];
        push(sl->undo, &sl->undo_count, &before);
        sl->redo_count = 0;
        planner_drop_reopen(p);
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

/* The letter of the new scenario's place (B for the second), or the next
 * one free after it: a first scenario renamed leaves A unused, and the
 * second is still B. */
static void default_label(const struct planner *p, char *buf, size_t size)
{
    for (int k = 0; k < 26; k++) {
        char l[2] = {(char)('A' + (p->count + k) % 26), 0};
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
    sl->kv_chosen = from->kv_chosen;
    sl->knobs_chosen = from->knobs_chosen;
    sl->prefix_chosen = from->prefix_chosen;
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
    p->held.valid = false;
    snprintf(p->slots[0].label, sizeof p->slots[0].label, "A");
    p->slots[0].scenario = *s;
    curve_compute(s, &p->slots[0].curve);
    compute(p, s);
    p->saved_print = planner_session_print(p); /* nothing on file: no scenario saved */
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
        sl->kv_chosen = sl->scenario.kv_dtype;
        sl->knobs_chosen = sl->scenario.engine;
        sl->prefix_chosen = sl->scenario.prefix_tokens;
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
    planner_mark_saved(p);
}

static uint64_t fnv(uint64_t h, const char *text)
{
    for (const char *c = text; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    return (h ^ 0xff) * 1099511628211ull; /* ends each text: "ab","c" differs from "a","bc" */
}

/* One scenario's part of the session's fingerprint. */
static uint64_t slot_print(uint64_t h, const struct planner_slot *sl)
{
    /* the command line carries every scenario field (test_command checks it) */
    char line[REPORT_COMMAND_MAX];
    h = fnv(h, sl->label);
    h = fnv(h, sl->note);
    report_command_line(&sl->scenario, line, sizeof line);
    h = fnv(h, line);
    const struct load_settings *ls = &sl->load; /* the Load screen's */
    snprintf(line, sizeof line, "%g %llu %llu %llu %g %g %llu %s", ls->rate,
             (unsigned long long)ls->input_len, (unsigned long long)ls->output_len,
             (unsigned long long)ls->max_concurrency, ls->slo_ttft_ms, ls->slo_tpot_ms,
             (unsigned long long)ls->seed, ls->profile ? ls->profile->name : "");
    return fnv(h, line);
}

#define PRINT_BASIS 14695981039346656037ull

uint64_t planner_session_print(const struct planner *p)
{
    uint64_t h = PRINT_BASIS;
    for (int i = 0; i < p->count; i++)
        h = slot_print(h, &p->slots[i]);
    return h;
}

void planner_mark_saved(struct planner *p)
{
    p->saved_print = planner_session_print(p);
    for (int i = 0; i < p->count; i++)
        p->slots[i].saved_print = slot_print(PRINT_BASIS, &p->slots[i]);
}

int planner_unsaved_count(const struct planner *p)
{
    int n = 0;
    for (int i = 0; i < p->count; i++)
        n += slot_print(PRINT_BASIS, &p->slots[i]) != p->slots[i].saved_print;
    return n;
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
    for (int i = 0; i < n; i++) {
        if (v[i] == cur) /* a list in an order of its own (the engines' pins) */
            return i;
        if (v[i] <= cur)
            best = i;
    }
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
        snprintf(what, size, "expert parallel");
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
    else if (was->block_tokens != next->block_tokens && next->block_tokens == DEFAULT_BLOCK_TOKENS)
        snprintf(what, size, "the %llu-token block", (unsigned long long)was->block_tokens);
    else if (c != CTRL_KV_DTYPE && was->kv_dtype != next->kv_dtype && next->kv_dtype == DTYPE_AUTO)
        snprintf(what, size, "the %s cache", dtype_info(was->kv_dtype)->name);
    else
        return false;
    return true;
}

void planner_apply_control(struct planner *p, enum control c, const struct scenario *next)
{
    char what[96];
    const struct scenario *was = planner_scenario(p);
    struct scenario s = *next;
    if (c == CTRL_ENGINE && was->kv_dtype != DTYPE_AUTO) /* said by engine_step */
        s.kv_dtype = was->kv_dtype;
    bool gone = dropped(was, &s, c, what, sizeof what);
    if (c == CTRL_ENGINE) {
        char said[PLANNER_TEXT_MAX];
        planner_engine_step(p, next);
        snprintf(said, sizeof said, "%s", p->status);
        if (gone && !p->error[0])
            snprintf(p->status, sizeof p->status, "%s is off with this engine: z brings it back%s%s",
                     what, said[0] ? "; " : "", said);
        return;
    }
    planner_apply(p, &s);
    if (gone && !p->error[0])
        snprintf(p->status, sizeof p->status, "%s is off with this %s: z brings it back", what,
                 c == CTRL_MODEL ? "model" : "setting");
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
    /* an engine or release the model is refused under (a release before the
     * model, a rule with no rule for its cache) is stepped over, so that the
     * engines past it stay in reach; with none past it the refusal is shown */
    if (c == CTRL_ENGINE && delta != 0)
        for (int j = i; j >= 0 && j < n; j += delta < 0 ? -1 : 1) {
            struct scenario t = *planner_scenario(p);
            struct diag d = {0};
            enum scenario_field f = SF_COUNT;
            control_set(c, &t, p->catalog, v[j]);
            if (scenario_validate(&t, NULL, &f, &d)) {
                i = j;
                break;
            }
        }
    set_value(p, c, v[i]);
}

void planner_to_end(struct planner *p, enum control c, bool last)
{
    uint64_t v[CONTROL_VALUES_MAX];
    int n = control_values(c, planner_scenario(p), planner_result(p), p->catalog, v);
    if (n > 0)
        set_value(p, c, v[last ? n - 1 : 0]);
}

/* The GPUs' track is of counts on a log scale, 1 to control_gpus_top: the
 * same count sits at the same place whatever the split steps by; the other
 * tracks are of steps. */
static double gpus_place(const struct scenario *s, uint64_t gpus)
{
    return log((double)gpus) / log((double)control_gpus_top(s));
}

void planner_set_fraction(struct planner *p, enum control c, double f)
{
    uint64_t v[CONTROL_VALUES_MAX];
    int n = control_values(c, planner_scenario(p), planner_result(p), p->catalog, v);
    if (n == 0)
        return;
    int i = (int)(f * (n - 1) + 0.5);
    if (c == CTRL_GPUS) /* the count nearest the place */
        for (int j = 0; j < n; j++)
            if (fabs(gpus_place(planner_scenario(p), v[j]) - f) <
                fabs(gpus_place(planner_scenario(p), v[i < n ? i : n - 1]) - f))
                i = j;
    i = i < 0 ? 0 : i >= n ? n - 1 : i;
    if (v[i] != control_current(c, planner_scenario(p), planner_result(p), p->catalog))
        set_value(p, c, v[i]);
}

void planner_set_nearest(struct planner *p, enum control c, uint64_t value)
{
    uint64_t v[CONTROL_VALUES_MAX];
    int n = control_values(c, planner_scenario(p), planner_result(p), p->catalog, v);
    if (n == 0 || value == 0)
        return;
    int i = 0;
    for (int j = 1; j < n; j++)
        if (v[j] > 0 && fabs(log((double)v[j] / (double)value)) <
                            fabs(log((double)(v[i] ? v[i] : 1) / (double)value)))
            i = j;
    if (v[i] != control_current(c, planner_scenario(p), planner_result(p), p->catalog))
        set_value(p, c, v[i]);
}

double planner_control_fraction(const struct planner *p, enum control c)
{
    if (control_kind(c) != CK_SLIDER)
        return -1;
    uint64_t v[CONTROL_VALUES_MAX];
    int i, n = values_of(p, c, v, &i);
    if (n == 1 && c == CTRL_AVG) /* a prefix near the context leaves one: a slider still */
        return 1;
    if (n < 2)
        return -1;
    if (c == CTRL_GPUS)
        return gpus_place(planner_scenario(p), planner_scenario(p)->gpus);
    return (double)i / (n - 1);
}

void planner_reset(struct planner *p, enum control c)
{
    struct scenario s = *planner_scenario(p);
    control_reset(c, &s);
    planner_apply(p, &s);
}

void planner_export_name(const struct planner *p, char *buf, size_t size)
{
    char t[32];
    const struct scenario *s = planner_scenario(p);
    snprintf(buf, size, "kvplan-%s-%s-%s.json", s->model.id, s->gpu.id,
             units_format_tokens_short(s->context_tokens, t, sizeof t));
}
