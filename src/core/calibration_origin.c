#include "calibration_origin.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "engine_desc.h"
#include "text.h"
#include "units.h"

/* "calibration A used on B: what", after "; " when buf has a sentence */
static void sentence(char *buf, size_t size, int *n, const char *a, const char *b,
                     const char *what)
{
    size_t at = strlen(buf);
    if (at + 3 < size)
        snprintf(buf + at, size - at, "%scalibration %s used on %s: %s", (*n)++ ? "; " : "", a,
                 b, what);
}

static const char *weight_name(enum dtype d)
{
    return d == DTYPE_AUTO ? "weights as released" : dtype_info(d)->name;
}

/* The GPU, the model and the engine's kind: its memory and speed alike. */
static void setup(const struct calibration_origin *c, const struct scenario *s, char *buf,
                  size_t size, int *n, const char *what)
{
    char a[SPEC_NAME_MAX + 80], b[96];
    if (c->gpu_id[0] && strcasecmp(c->gpu_id, s->gpu.id) != 0) {
        snprintf(a, sizeof a, "from %s%s", c->gpu_name,
                 c->gpu_assumed ? " (assumed when it was made: its file named no GPU)" : "");
        sentence(buf, size, n, a, s->gpu.name, what);
    }
    if (c->model[0] && strcasecmp(c->model, s->model.id) != 0) {
        snprintf(a, sizeof a, "of %s", c->model);
        sentence(buf, size, n, a, s->model.id, what);
    }
    if (c->engine != s->engine.kind) {
        snprintf(a, sizeof a, "with %s", engine_desc(c->engine)->title);
        sentence(buf, size, n, a, engine_desc(s->engine.kind)->title, what);
    } else if (c->rule != s->engine.rule) {
        /* the release it ran, not the rule kvplan took for it ("vLLM 0.10.1",
         * "llama.cpp b5721"); none stated: the rule was only assumed */
        if (c->version[0])
            snprintf(a, sizeof a, "with %s %s", engine_desc(c->engine)->title, c->version);
        else
            snprintf(a, sizeof a, "with %s, version unknown", engine_desc(c->engine)->title);
        sentence(buf, size, n, a, engine_flags_title(&s->engine, b, sizeof b), what);
    } else if (c->version[0] && s->engine.release_asked[0] &&
               strcmp(c->version, s->engine.release_asked) != 0) {
        snprintf(a, sizeof a, "with %s %s", engine_desc(c->engine)->title, c->version);
        snprintf(b, sizeof b, "%s %s", engine_desc(c->engine)->title, s->engine.release_asked);
        sentence(buf, size, n, a, b, what);
    }
}

int calibration_origin_mismatch(const struct scenario *s, char *buf, size_t size)
{
    const struct calibration_origin *c = &s->calibration_from;
    int n = 0;
    char a[96], b[96], raw[sizeof s->calibration_note];
    raw[0] = '\0';
    if (buf && size)
        buf[0] = '\0';
    if (!c->present)
        return 0;
    const char *what = c->memory && c->speed ? "its memory and speed were measured there"
                       : c->speed            ? "its MBU, MFU and step overhead were measured there"
                                             : "its memory figures were measured there";
    setup(c, s, raw, sizeof raw, &n, what);
    if (c->tp && c->tp != scenario_tp(s)) {
        snprintf(a, sizeof a, "at TP %u", (unsigned)c->tp);
        snprintf(b, sizeof b, "TP %u", (unsigned)scenario_tp(s));
        sentence(raw, sizeof raw, &n, a, b,
                 c->speed ? "its fit is of that split's reads and all-reduce"
                          : "its KV cache per GPU is of that split");
    }
    if (c->speed && c->weight_known && c->weight != s->weight_dtype) {
        snprintf(a, sizeof a, "with %s", weight_name(c->weight));
        snprintf(b, sizeof b, "%s", weight_name(s->weight_dtype));
        sentence(raw, sizeof raw, &n, a, b, "its MBU was fitted on that precision's reads");
    }
    if (buf && size)
        text_escape(raw, buf, size); /* names from a file: no controls */
    return n;
}

bool calibration_origin_speed_elsewhere(const struct scenario *s)
{
    /* shape_elsewhere: a plan outside the fit's points (a snapshot's too) */
    return s->calibration_from.shape_elsewhere ||
           (s->calibration_from.present && s->calibration_from.speed &&
            calibration_origin_mismatch(s, NULL, 0) > 0);
}

bool calibration_origin_shape_outside(const struct scenario *s, int kind, uint64_t users,
                                      uint64_t prompt, char *buf, size_t size)
{
    const struct calibration_origin *c = &s->calibration_from;
    const struct calibration_shape *sh = &c->fit_shape[kind ? 1 : 0];
    if (buf && size)
        buf[0] = '\0';
    if (sh->users_max == 0 || !s->speed_basis[0]) /* no speed calibration's points */
        return false;
    /* the users a server decodes or prefills beside: outside the points';
     * a first token's prompt too, past a tenth beyond them */
    bool users_out = users < sh->users_min || users > sh->users_max;
    bool prompt_out = kind && (prompt * 10 < sh->prompt_min * 9 || prompt * 10 > sh->prompt_max * 11);
    if (!users_out && !prompt_out)
        return false;
    if (buf && size) {
        char a[64], b[64], p[64], q[64], n0[32], n1[32];
        units_format_int(sh->users_min, n0, sizeof n0);
        units_format_int(sh->users_max, n1, sizeof n1);
        if (sh->users_min == sh->users_max)
            snprintf(a, sizeof a, "%s user%s", n0, sh->users_min == 1 ? "" : "s");
        else
            snprintf(a, sizeof a, "%s to %s users", n0, n1);
        units_format_int(users, n0, sizeof n0);
        snprintf(b, sizeof b, "%s user%s", n0, users == 1 ? "" : "s");
        units_format_int(sh->prompt_min, n0, sizeof n0);
        units_format_int(sh->prompt_max, n1, sizeof n1);
        if (sh->prompt_min == sh->prompt_max)
            snprintf(p, sizeof p, "%s-token prompts", n0);
        else
            snprintf(p, sizeof p, "%s- to %s-token prompts", n0, n1);
        units_format_int(prompt, n0, sizeof n0);
        snprintf(q, sizeof q, "%s-token prompts", n0);
        snprintf(buf, size, "calibration's %s fitted at %s a server%s%s, used at %s%s%s: its "
                 "own band is of those points, the public cases' band is given",
                 kind ? "first token" : "decode step", a, kind ? " with " : "", kind ? p : "", b,
                 kind ? " with " : "", kind ? q : "");
    }
    return true;
}
