#include "planner.h"

#include <ctype.h>
#include <math.h>
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/version.h"
#include "io/snapshot.h"


enum { VALUES_MAX = 128 };

static const char *labels[CTRL_COUNT] = {
    [CTRL_GPU] = "GPU",           [CTRL_GPUS] = "GPUs (TP)",      [CTRL_MODEL] = "Model",
    [CTRL_CONTEXT] = "Context",   [CTRL_KV_HEADS] = "KV heads",   [CTRL_KV_DTYPE] = "KV cache",
    [CTRL_WEIGHT_DTYPE] = "Weights", [CTRL_PREFIX] = "Prefix",    [CTRL_AVG] = "In use",
    [CTRL_HEADROOM] = "Headroom", [CTRL_ENGINE] = "Engine",
};

static const enum dtype kv_dtypes[] = {DTYPE_AUTO, DTYPE_FP32, DTYPE_FP16, DTYPE_BF16, DTYPE_FP8,
                                       DTYPE_INT8, DTYPE_INT4, DTYPE_Q8_0, DTYPE_Q4_0};
static const enum dtype weight_dtypes[] = {DTYPE_AUTO, DTYPE_FP32, DTYPE_FP16, DTYPE_BF16,
                                           DTYPE_FP8,  DTYPE_INT8, DTYPE_INT4};

const char *planner_control_label(enum control c)
{
    return c >= 0 && c < CTRL_COUNT ? labels[c] : "";
}

static void compute_curve(struct planner *p)
{
    /* The curve spans every context: a change of context alone only moves
     * its marker, so it is computed again only when something else changed. */
    struct scenario key = p->scenario;
    key.context_tokens = 0;
    key.units = UNITS_GIB;
    if (p->curve_valid && memcmp(&key, &p->curve_of, sizeof key) == 0)
        return;
    p->curve_of = key;
    p->curve_valid = true;
    struct users_curve *c = &p->curve;
    struct scenario s = p->scenario;
    c->max_users = 0;
    for (int i = 0; i < CHART_POINTS; i++) {
        /* 2^10 .. 2^20 tokens in equal steps of log2 */
        double exp2 = 10.0 + 10.0 * i / (CHART_POINTS - 1);
        uint64_t ctx = (uint64_t)(pow(2.0, exp2) + 0.5);
        s.context_tokens = ctx;
        if (s.avg_context_tokens >= ctx)
            s.avg_context_tokens = 0;
        struct plan_result r;
        struct diag d = {0};
        c->context_tokens[i] = ctx;
        /* a context no longer than the shared prefix is not a scenario: no column */
        c->users[i] = s.prefix_tokens < ctx && capacity_compute_numbers(&s, &r, &d) ? r.max_users : 0;
        if (c->users[i] > c->max_users)
            c->max_users = c->users[i];
        s.prefix_tokens = p->scenario.prefix_tokens;
        s.avg_context_tokens = p->scenario.avg_context_tokens;
    }
}

bool planner_apply(struct planner *p, const struct scenario *next)
{
    struct diag d = {0};
    struct plan_result r;
    if (!capacity_compute(next, &r, &d)) {
        snprintf(p->error, sizeof p->error, "%s", d.message);
        return false;
    }
    p->scenario = *next;
    p->result = r;
    p->error[0] = '\0';
    explain_build(&p->scenario, &p->result, &p->explain);
    compute_curve(p);
    return true;
}

uint64_t planner_users(const struct planner *p)
{
    return p->scenario.engine.kind == ENGINE_GENERIC ? p->result.max_users : p->result.engine.users;
}

void planner_init(struct planner *p, const struct catalog *c, const struct scenario *s)
{
    memset(p, 0, sizeof *p);
    p->catalog = c;
    p->scenario = *s;
    p->focus = CTRL_CONTEXT;
    planner_apply(p, s);
}

static int add_unique(uint64_t *v, int n, uint64_t x)
{
    for (int i = 0; i < n; i++)
        if (v[i] == x)
            return n;
    if (n < VALUES_MAX)
        v[n++] = x;
    return n;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The values a list-like control steps through, ascending. */
static int control_values(const struct planner *p, enum control c, uint64_t *v)
{
    const struct scenario *s = &p->scenario;
    int n = 0;
    switch (c) {
    case CTRL_GPU:
        for (size_t i = 0; i < p->catalog->gpu_count && n < VALUES_MAX; i++)
            v[n++] = i;
        return n;
    case CTRL_MODEL:
        for (size_t i = 0; i < p->catalog->model_count && n < VALUES_MAX; i++)
            v[n++] = i;
        return n;
    case CTRL_GPUS:
        for (uint64_t g = 1; g <= 64; g++)
            v[n++] = g;
        n = add_unique(v, n, s->gpus);
        break;
    case CTRL_CONTEXT:
        for (uint64_t t = 1024; t <= 1024 * 1024; t *= 2)
            n = add_unique(v, n, t);
        n = add_unique(v, n, s->model.max_context_tokens);
        n = add_unique(v, n, s->context_tokens);
        break;
    case CTRL_KV_HEADS:
        if (s->model.attention == ATTENTION_MLA)
            return 0;
        for (uint32_t h = 1; h <= s->model.attention_heads; h++)
            if (s->model.attention_heads % h == 0)
                n = add_unique(v, n, h);
        break;
    case CTRL_KV_DTYPE:
        for (size_t i = 0; i < sizeof kv_dtypes / sizeof kv_dtypes[0]; i++)
            v[n++] = i;
        return n;
    case CTRL_WEIGHT_DTYPE:
        for (size_t i = 0; i < sizeof weight_dtypes / sizeof weight_dtypes[0]; i++)
            v[n++] = i;
        return n;
    case CTRL_PREFIX:
        n = add_unique(v, n, 0);
        for (uint64_t t = 128; t < s->context_tokens; t *= 2)
            n = add_unique(v, n, t);
        if (s->prefix_tokens < s->context_tokens)
            n = add_unique(v, n, s->prefix_tokens);
        break;
    case CTRL_AVG:
        for (uint64_t t = 256; t < s->context_tokens; t *= 2)
            if (t > s->prefix_tokens)
                n = add_unique(v, n, t);
        if (s->avg_context_tokens && s->avg_context_tokens < s->context_tokens)
            n = add_unique(v, n, s->avg_context_tokens);
        n = add_unique(v, n, s->context_tokens); /* stored as 0: "= context" */
        break;
    case CTRL_HEADROOM:
        for (uint64_t h = 0; h <= 50; h++)
            v[n++] = h;
        break;
    case CTRL_ENGINE:
        for (uint64_t e = 0; e < ENGINE_COUNT; e++)
            v[n++] = e;
        return n;
    case CTRL_COUNT:
        return 0;
    }
    qsort(v, (size_t)n, sizeof *v, cmp_u64);
    return n;
}

static size_t find_index_of(const char *id, bool gpu, const struct catalog *c)
{
    size_t n = gpu ? c->gpu_count : c->model_count;
    for (size_t i = 0; i < n; i++)
        if (strcmp(gpu ? c->gpus[i].spec.id : c->models[i].spec.id, id) == 0)
            return i;
    return 0;
}

/* The current value of a control in control_values' terms. */
static uint64_t control_current(const struct planner *p, enum control c)
{
    const struct scenario *s = &p->scenario;
    switch (c) {
    case CTRL_GPU:
        return find_index_of(s->gpu.id, true, p->catalog);
    case CTRL_MODEL:
        return find_index_of(s->model.id, false, p->catalog);
    case CTRL_GPUS:
        return s->gpus;
    case CTRL_CONTEXT:
        return s->context_tokens;
    case CTRL_KV_HEADS:
        return s->kv_heads ? s->kv_heads : s->model.kv_heads;
    case CTRL_KV_DTYPE:
        for (size_t i = 0; i < sizeof kv_dtypes / sizeof kv_dtypes[0]; i++)
            if (kv_dtypes[i] == s->kv_dtype)
                return i;
        return 0;
    case CTRL_WEIGHT_DTYPE:
        for (size_t i = 0; i < sizeof weight_dtypes / sizeof weight_dtypes[0]; i++)
            if (weight_dtypes[i] == s->weight_dtype)
                return i;
        return 0;
    case CTRL_PREFIX:
        return s->prefix_tokens;
    case CTRL_AVG:
        return s->avg_context_tokens ? s->avg_context_tokens : s->context_tokens;
    case CTRL_HEADROOM:
        return (uint64_t)(s->headroom_percent + 0.5);
    case CTRL_ENGINE:
        return (uint64_t)s->engine.kind;
    case CTRL_COUNT:
        break;
    }
    return 0;
}

static int current_index(const uint64_t *v, int n, uint64_t cur)
{
    int best = 0;
    for (int i = 0; i < n; i++)
        if (v[i] <= cur)
            best = i;
    return best;
}

/* Builds the scenario with control c set to value (in control_values' terms). */
static void set_value(struct planner *p, enum control c, uint64_t value)
{
    struct scenario s = p->scenario;
    const struct catalog *cat = p->catalog;
    switch (c) {
    case CTRL_GPU:
        if (value < cat->gpu_count)
            s.gpu = cat->gpus[value].spec;
        break;
    case CTRL_MODEL:
        if (value < cat->model_count) {
            s.model = cat->models[value].spec;
            s.kv_heads = 0; /* a new model brings its own heads */
        }
        break;
    case CTRL_GPUS:
        s.gpus = (uint32_t)value;
        break;
    case CTRL_CONTEXT:
        s.context_tokens = value;
        if (s.prefix_tokens >= value)
            s.prefix_tokens = 0;
        if (s.avg_context_tokens >= value)
            s.avg_context_tokens = 0;
        break;
    case CTRL_KV_HEADS:
        s.kv_heads = value == s.model.kv_heads ? 0 : (uint32_t)value;
        break;
    case CTRL_KV_DTYPE:
        s.kv_dtype = kv_dtypes[value % (sizeof kv_dtypes / sizeof kv_dtypes[0])];
        break;
    case CTRL_WEIGHT_DTYPE:
        s.weight_dtype = weight_dtypes[value % (sizeof weight_dtypes / sizeof weight_dtypes[0])];
        break;
    case CTRL_PREFIX:
        s.prefix_tokens = value;
        if (s.avg_context_tokens && s.avg_context_tokens <= value)
            s.avg_context_tokens = 0;
        break;
    case CTRL_AVG:
        s.avg_context_tokens = value >= s.context_tokens ? 0 : value;
        break;
    case CTRL_HEADROOM:
        s.headroom_percent = (double)value;
        break;
    case CTRL_ENGINE:
        s.engine.kind = (enum engine_kind)(value % ENGINE_COUNT);
        s.engine.rule = RULE_CURRENT;
        break;
    case CTRL_COUNT:
        return;
    }
    planner_apply(p, &s);
}

void planner_step(struct planner *p, enum control c, int delta, bool big)
{
    uint64_t v[VALUES_MAX];
    int n = control_values(p, c, v);
    if (n == 0)
        return;
    int i = current_index(v, n, control_current(p, c));
    int stride = big ? (n / 8 > 2 ? n / 8 : 2) : 1;
    if (c == CTRL_GPU || c == CTRL_MODEL || c == CTRL_KV_DTYPE || c == CTRL_WEIGHT_DTYPE ||
        c == CTRL_ENGINE)
        i = ((i + delta * stride) % n + n) % n; /* lists wrap around */
    else {
        i += delta * stride;
        i = i < 0 ? 0 : i >= n ? n - 1 : i;
    }
    set_value(p, c, v[i]);
}

void planner_to_end(struct planner *p, enum control c, bool last)
{
    uint64_t v[VALUES_MAX];
    int n = control_values(p, c, v);
    if (n > 0)
        set_value(p, c, v[last ? n - 1 : 0]);
}

void planner_set_fraction(struct planner *p, enum control c, double f)
{
    uint64_t v[VALUES_MAX];
    int n = control_values(p, c, v);
    if (n == 0)
        return;
    int i = (int)(f * (n - 1) + 0.5);
    i = i < 0 ? 0 : i >= n ? n - 1 : i;
    if (v[i] != control_current(p, c))
        set_value(p, c, v[i]);
}

double planner_control_fraction(const struct planner *p, enum control c)
{
    uint64_t v[VALUES_MAX];
    int n = control_values(p, c, v);
    if (n < 2 || c == CTRL_GPU || c == CTRL_MODEL || c == CTRL_ENGINE)
        return -1;
    return (double)current_index(v, n, control_current(p, c)) / (n - 1);
}

void planner_control_value(const struct planner *p, enum control c, char *buf, size_t size)
{
    const struct scenario *s = &p->scenario;
    const struct plan_result *r = &p->result;
    char t[32];
    switch (c) {
    case CTRL_GPU:
        snprintf(buf, size, "%s", s->gpu.name);
        break;
    case CTRL_MODEL:
        snprintf(buf, size, "%s", s->model.name);
        break;
    case CTRL_GPUS:
        snprintf(buf, size, "%u", s->gpus);
        break;
    case CTRL_CONTEXT:
        snprintf(buf, size, "%s", units_format_tokens_short(s->context_tokens, t, sizeof t));
        break;
    case CTRL_KV_HEADS:
        if (s->model.attention == ATTENTION_MLA)
            snprintf(buf, size, "MLA latent");
        else {
            uint32_t h = r->kv_heads ? r->kv_heads : s->model.kv_heads;
            uint32_t group = s->model.attention_heads / (h ? h : 1);
            if (h == 1)
                snprintf(buf, size, "1 (MQA)");
            else if (group == 1)
                snprintf(buf, size, "%u (MHA)", h);
            else
                snprintf(buf, size, "%u (group %u)", h, group);
        }
        break;
    case CTRL_KV_DTYPE:
        if (s->kv_dtype == DTYPE_AUTO)
            snprintf(buf, size, "auto %s", dtype_info(r->kv_dtype)->name);
        else
            snprintf(buf, size, "%s", dtype_info(s->kv_dtype)->name);
        break;
    case CTRL_WEIGHT_DTYPE:
        if (s->weight_dtype == DTYPE_AUTO)
            snprintf(buf, size, "auto %s", dtype_info(r->weight_dtype)->name);
        else
            snprintf(buf, size, "%s", dtype_info(s->weight_dtype)->name);
        break;
    case CTRL_PREFIX:
        snprintf(buf, size, "%s", units_format_tokens_short(s->prefix_tokens, t, sizeof t));
        break;
    case CTRL_AVG:
        if (s->avg_context_tokens == 0)
            snprintf(buf, size, "= context");
        else
            snprintf(buf, size, "%s", units_format_tokens_short(s->avg_context_tokens, t, sizeof t));
        break;
    case CTRL_HEADROOM:
        snprintf(buf, size, "%g%%", s->headroom_percent);
        break;
    case CTRL_ENGINE:
        snprintf(buf, size, "%s", engine_label(s->engine.kind, s->engine.rule));
        break;
    case CTRL_COUNT:
        buf[0] = '\0';
        break;
    }
}

void planner_reset(struct planner *p, enum control c)
{
    struct scenario s = p->scenario;
    switch (c) {
    case CTRL_GPUS:
        s.gpus = 1;
        break;
    case CTRL_CONTEXT:
        s.context_tokens = s.model.max_context_tokens < 8192 ? s.model.max_context_tokens : 8192;
        if (s.prefix_tokens >= s.context_tokens)
            s.prefix_tokens = 0;
        if (s.avg_context_tokens >= s.context_tokens)
            s.avg_context_tokens = 0;
        break;
    case CTRL_KV_HEADS:
        s.kv_heads = 0;
        break;
    case CTRL_KV_DTYPE:
        s.kv_dtype = DTYPE_AUTO;
        break;
    case CTRL_WEIGHT_DTYPE:
        s.weight_dtype = DTYPE_AUTO;
        break;
    case CTRL_PREFIX:
        s.prefix_tokens = 0;
        break;
    case CTRL_AVG:
        s.avg_context_tokens = 0;
        break;
    case CTRL_HEADROOM:
        s.headroom_percent = 10;
        break;
    case CTRL_ENGINE:
        s.engine.kind = ENGINE_GENERIC;
        s.engine.rule = RULE_CURRENT;
        break;
    default:
        return;
    }
    planner_apply(p, &s);
}

static void reset_all(struct planner *p)
{
    for (int c = 0; c < CTRL_COUNT; c++)
        planner_reset(p, (enum control)c);
}

static bool contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return true;
    return n == 0;
}

int planner_picker_matches(const struct planner *p, int *out, int max)
{
    bool gpu = p->picker_for == CTRL_GPU;
    size_t n = gpu ? p->catalog->gpu_count : p->catalog->model_count;
    int k = 0;
    for (size_t i = 0; i < n && k < max; i++) {
        const char *id = gpu ? p->catalog->gpus[i].spec.id : p->catalog->models[i].spec.id;
        const char *name = gpu ? p->catalog->gpus[i].spec.name : p->catalog->models[i].spec.name;
        if (p->filter[0] == '\0' || contains_nocase(id, p->filter) || contains_nocase(name, p->filter))
            out[k++] = (int)i;
    }
    return k;
}

void planner_export_name(const struct planner *p, char *buf, size_t size)
{
    char t[32];
    snprintf(buf, size, "kvplan-%s-%s-%s.json", p->scenario.model.id, p->scenario.gpu.id,
             units_format_tokens_short(p->scenario.context_tokens, t, sizeof t));
}

static void open_prompt(struct planner *p, enum prompt_kind kind, const char *initial)
{
    p->mode = MODE_PROMPT;
    p->prompt_kind = kind;
    snprintf(p->prompt, sizeof p->prompt, "%s", initial);
}

static bool apply_typed_value(struct planner *p, enum control c, const char *text)
{
    struct diag d = {0};
    struct scenario s = p->scenario;
    uint64_t n = 0;
    double x = 0;
    enum dtype t;
    switch (c) {
    case CTRL_CONTEXT:
        if (!units_parse_tokens(text, false, &n, &d))
            break;
        s.context_tokens = n;
        if (s.prefix_tokens >= n)
            s.prefix_tokens = 0;
        if (s.avg_context_tokens >= n)
            s.avg_context_tokens = 0;
        break;
    case CTRL_PREFIX:
        if (units_parse_tokens(text, true, &n, &d))
            s.prefix_tokens = n;
        break;
    case CTRL_AVG:
        if (units_parse_tokens(text, false, &n, &d))
            s.avg_context_tokens = n >= s.context_tokens ? 0 : n;
        break;
    case CTRL_GPUS:
    case CTRL_KV_HEADS:
        if (units_parse_number(text, 1, GPUS_MAX, &x, &d)) {
            if (c == CTRL_GPUS)
                s.gpus = (uint32_t)x;
            else
                s.kv_heads = (uint32_t)x;
        }
        break;
    case CTRL_HEADROOM:
        if (units_parse_number(text, 0, 99.9, &x, &d))
            s.headroom_percent = x;
        break;
    case CTRL_KV_DTYPE:
    case CTRL_WEIGHT_DTYPE:
        if (!dtype_parse(text, &t))
            diag_fail(&d, "'%s' is not a precision (%s)", text, dtype_names());
        else if (c == CTRL_KV_DTYPE)
            s.kv_dtype = t;
        else
            s.weight_dtype = t;
        break;
    default:
        return false;
    }
    if (d.failed) {
        snprintf(p->error, sizeof p->error, "%s: %s", labels[c], d.message);
        return false;
    }
    return planner_apply(p, &s);
}

static void do_export(struct planner *p, const char *path)
{
    struct diag d = {0};
    if (snapshot_export(path, &p->scenario, &p->result, KVPLAN_GENERATOR, &d))
        snprintf(p->status, sizeof p->status, "exported %s", path);
    else
        snprintf(p->error, sizeof p->error, "%s", d.message);
}

static void do_open(struct planner *p, const char *path)
{
    struct diag d = {0};
    struct scenario s;
    if (snapshot_load(path, &s, &d) && planner_apply(p, &s))
        snprintf(p->status, sizeof p->status, "opened %s", path);
    else if (d.failed)
        snprintf(p->error, sizeof p->error, "%s", d.message);
}

static void finish_prompt(struct planner *p)
{
    p->mode = MODE_MAIN;
    if (p->prompt[0] == '\0')
        return;
    switch (p->prompt_kind) {
    case PROMPT_VALUE:
        apply_typed_value(p, (enum control)p->focus, p->prompt);
        break;
    case PROMPT_EXPORT:
        if (access(p->prompt, F_OK) == 0) {
            snprintf(p->pending_path, sizeof p->pending_path, "%s", p->prompt);
            p->mode = MODE_CONFIRM;
        } else {
            do_export(p, p->prompt);
        }
        break;
    case PROMPT_OPEN:
        do_open(p, p->prompt);
        break;
    }
}

static bool text_key(char *buf, size_t size, int key)
{
    size_t n = strlen(buf);
    if (key == KEY_BACKSPACE || key == 127 || key == 8) {
        if (n > 0)
            buf[n - 1] = '\0';
        return true;
    }
    if (key >= 32 && key < 127 && n + 1 < size) {
        buf[n] = (char)key;
        buf[n + 1] = '\0';
        return true;
    }
    return false;
}

static int picker_key(struct planner *p, int key)
{
    int idx[VALUES_MAX * 2];
    int n = planner_picker_matches(p, idx, (int)(sizeof idx / sizeof idx[0]));
    switch (key) {
    case 27:
        p->mode = MODE_MAIN;
        return PLAN_REDRAW;
    case KEY_UP:
        p->picker_sel = p->picker_sel > 0 ? p->picker_sel - 1 : 0;
        return PLAN_REDRAW;
    case KEY_DOWN:
        p->picker_sel = p->picker_sel + 1 < n ? p->picker_sel + 1 : p->picker_sel;
        return PLAN_REDRAW;
    case KEY_PPAGE:
        p->picker_sel = p->picker_sel > 10 ? p->picker_sel - 10 : 0;
        return PLAN_REDRAW;
    case KEY_NPAGE:
        p->picker_sel = p->picker_sel + 10 < n ? p->picker_sel + 10 : (n > 0 ? n - 1 : 0);
        return PLAN_REDRAW;
    case '\n':
    case '\r':
    case KEY_ENTER:
        if (n > 0)
            set_value(p, p->picker_for, (uint64_t)idx[p->picker_sel < n ? p->picker_sel : 0]);
        p->mode = MODE_MAIN;
        return PLAN_REDRAW;
    default:
        if (text_key(p->filter, sizeof p->filter, key)) {
            p->picker_sel = 0;
            return PLAN_REDRAW;
        }
        return 0;
    }
}

int planner_key(struct planner *p, int key)
{
    switch (p->mode) {
    case MODE_HELP:
        p->mode = MODE_MAIN;
        return PLAN_REDRAW;
    case MODE_COMPARE:
        if (key == 'q' || key == 'Q') {
            p->quit = true;
            return PLAN_QUIT;
        }
        if (key == 'c' || key == 27 || key == '\n' || key == '\r' || key == KEY_ENTER)
            p->mode = MODE_MAIN;
        else if (key == 'b') {
            p->has_baseline = true;
            p->baseline = p->scenario;
            p->baseline_result = p->result;
        }
        return PLAN_REDRAW;
    case MODE_PICKER:
        return picker_key(p, key);
    case MODE_CONFIRM:
        p->mode = MODE_MAIN;
        if (key == 'y' || key == 'Y')
            do_export(p, p->pending_path);
        else
            snprintf(p->status, sizeof p->status, "export cancelled: %s kept", p->pending_path);
        return PLAN_REDRAW;
    case MODE_PROMPT:
        if (key == 27)
            p->mode = MODE_MAIN;
        else if (key == '\n' || key == '\r' || key == KEY_ENTER)
            finish_prompt(p);
        else if (!text_key(p->prompt, sizeof p->prompt, key))
            return 0;
        return PLAN_REDRAW;
    case MODE_MAIN:
        break;
    }
    enum control c = (enum control)p->focus;
    p->status[0] = '\0';
    switch (key) {
    case 'q':
    case 'Q':
        p->quit = true;
        return PLAN_QUIT;
    case KEY_UP:
    case KEY_BTAB:
        p->focus = (p->focus + CTRL_COUNT - 1) % CTRL_COUNT;
        return PLAN_REDRAW;
    case KEY_DOWN:
    case '\t':
        p->focus = (p->focus + 1) % CTRL_COUNT;
        return PLAN_REDRAW;
    case KEY_LEFT:
    case 'h':
        planner_step(p, c, -1, false);
        return PLAN_REDRAW;
    case KEY_RIGHT:
    case 'l':
        planner_step(p, c, +1, false);
        return PLAN_REDRAW;
    case KEY_SLEFT:
    case KEY_PPAGE:
        planner_step(p, c, -1, true);
        return PLAN_REDRAW;
    case KEY_SRIGHT:
    case KEY_NPAGE:
        planner_step(p, c, +1, true);
        return PLAN_REDRAW;
    case KEY_HOME:
        planner_to_end(p, c, false);
        return PLAN_REDRAW;
    case KEY_END:
        planner_to_end(p, c, true);
        return PLAN_REDRAW;
    case '\n':
    case '\r':
    case KEY_ENTER:
        if (c == CTRL_ENGINE) {
            planner_step(p, c, +1, false);
        } else if (c == CTRL_GPU || c == CTRL_MODEL) {
            p->mode = MODE_PICKER;
            p->picker_for = c;
            p->filter[0] = '\0';
            p->picker_sel = (int)control_current(p, c);
        } else {
            open_prompt(p, PROMPT_VALUE, "");
        }
        return PLAN_REDRAW;
    case 'r':
        planner_reset(p, c);
        return PLAN_REDRAW;
    case 'R':
        reset_all(p);
        return PLAN_REDRAW;
    case 'u':
        p->scenario.units = p->scenario.units == UNITS_GIB ? UNITS_GB : UNITS_GIB;
        explain_build(&p->scenario, &p->result, &p->explain);
        return PLAN_REDRAW;
    case 'b':
        p->has_baseline = true;
        p->baseline = p->scenario;
        p->baseline_result = p->result;
        snprintf(p->status, sizeof p->status, "baseline set: %llu users",
                 (unsigned long long)p->result.max_users);
        return PLAN_REDRAW;
    case 'e': {
        char name[PLANNER_TEXT_MAX];
        planner_export_name(p, name, sizeof name);
        open_prompt(p, PROMPT_EXPORT, name);
        return PLAN_REDRAW;
    }
    case 'o':
        open_prompt(p, PROMPT_OPEN, "");
        return PLAN_REDRAW;
    case '?':
        p->mode = MODE_HELP;
        return PLAN_REDRAW;
    case 'c':
        if (!p->has_baseline) {
            snprintf(p->status, sizeof p->status,
                     "no baseline yet: press b to keep this scenario, change it, then c");
            return PLAN_REDRAW;
        }
        p->mode = MODE_COMPARE;
        return PLAN_REDRAW;
    case 'p':
        p->presentation = !p->presentation;
        return PLAN_REDRAW;
    case 27:
        if (p->presentation) {
            p->presentation = false;
            return PLAN_REDRAW;
        }
        return 0;
    case 12: /* Ctrl-L */
        clearok(stdscr, TRUE);
        return PLAN_REDRAW;
    default:
        if (isdigit(key) && c != CTRL_GPU && c != CTRL_MODEL && c != CTRL_ENGINE) {
            char first[2] = {(char)key, 0};
            open_prompt(p, PROMPT_VALUE, first);
            return PLAN_REDRAW;
        }
        return 0;
    }
}
