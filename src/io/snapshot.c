#include "snapshot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/engine_desc.h"
#include "core/text.h"
#include "io/calibration.h"
#include "io/catalog.h"
#include "io/fileio.h"
#include "io/jsonout.h"
#include "io/jsonread.h"
#include "io/offload_json.h"
#include "io/loadjson.h"
#include "io/preset.h"


/* release_asked must be a release the named rule holds for. */
static bool release_holds(const struct jsonread *r, const struct engine_flags *f,
                          struct diag *d)
{
    char text[96];
    snprintf(text, sizeof text, "%s@%s", engine_name(f->kind), f->release_asked);
    enum engine_kind kind;
    enum engine_rule rule;
    struct diag local = {0};
    if (!engine_parse(text, &kind, &rule, &local) || kind != f->kind || rule != f->rule)
        return jsonread_fail(r, d, "release_asked: '%s' is not a release of the %s rule",
                             f->release_asked, engine_label(f->kind, f->rule));
    return true;
}

static bool engine_flags_from_json(const struct jsonread *r, const cJSON *o,
                                   struct engine_flags *f, struct diag *d)
{
    char name[64] = "generic";
    struct diag local = {0};
    if (!cJSON_IsObject(o))
        return jsonread_fail(r, d, "engine: expected an object");
    if (!jsonread_string(r, o, "name", false, name, sizeof name, d))
        return false;
    if (!engine_parse_asked(name, &f->kind, &f->rule, NULL, 0, f->release_asked,
                            sizeof f->release_asked, &local))
        return jsonread_fail(r, d, "name: %s", local.message);
    /* the release asked for beside the rule's name (snapshot_json.c) */
    if (!jsonread_string(r, o, "release_asked", false, f->release_asked,
                         sizeof f->release_asked, d))
        return false;
    if (f->release_asked[0] && !release_holds(r, f, d))
        return false;
    const uint64_t big = (uint64_t)1 << 44;
    if (!jsonread_double(r, o, "gpu_memory_utilization", false, 0.01, 1.0,
                         &f->gpu_memory_utilization, d) ||
        !jsonread_u32(r, o, "max_num_seqs", false, 1, 1000000, &f->max_num_seqs, d) ||
        !jsonread_u64(r, o, "max_num_batched_tokens", false, 1, TOKENS_MAX,
                      &f->max_num_batched_tokens, d) ||
        !jsonread_double(r, o, "mem_fraction_static", false, 0.01, 1.0, &f->mem_fraction_static,
                         d) ||
        !jsonread_u64(r, o, "chunked_prefill_size", false, 1, TOKENS_MAX,
                      &f->chunked_prefill_size, d) ||
        !jsonread_u32(r, o, "parallel", false, 1,
                      (uint32_t)engine_option_max(offsetof(struct engine_flags, parallel)),
                      &f->parallel, d) ||
        !jsonread_u64(r, o, "fit_target_bytes", false, 1, big, &f->fit_target_bytes, d) ||
        !preset_read_dtype(r, o, "v_dtype", false, &f->v_dtype, d) ||
        !jsonread_double(r, o, "free_gpu_memory_fraction", false, 0.01, 1.0,
                         &f->free_gpu_memory_fraction, d) ||
        !jsonread_u64(r, o, "gpu_total_bytes", false, 1, big, &f->gpu_total_bytes, d) ||
        !jsonread_u64(r, o, "non_kv_bytes", false, 1, big, &f->non_kv_bytes, d) ||
        !jsonread_u64(r, o, "kv_memory_bytes", false, 1, big, &f->kv_memory_bytes, d))
        return false;
    return true;
}

/* The step overhead given or calibrated, and a speed calibration's basis:
 * "step_overhead_seconds": S, "speed_calibration": {"basis": "...", "mbu":
 * true, "mfu": true, "step_overhead": true} (absent from older snapshots). */
static bool scenario_speed_from_json(const struct jsonread *sr, const cJSON *so,
                                     struct scenario *s, struct diag *d)
{
    if (jsonread_has(so, "step_overhead_seconds")) {
        s->has_step_overhead = true;
        if (!jsonread_double(sr, so, "step_overhead_seconds", true, 0, STEP_OVERHEAD_MAX_S,
                             &s->step_overhead_s, d))
            return false;
    }
    const cJSON *co = cJSON_GetObjectItemCaseSensitive(so, "speed_calibration");
    if (co == NULL || cJSON_IsNull(co))
        return true;
    if (!cJSON_IsObject(co))
        return jsonread_fail(sr, d, "speed_calibration: expected an object or null");
    struct jsonread cr = jsonread_child(sr, "speed_calibration", "speed_calibration.");
    char basis[sizeof s->speed_basis] = "";
    bool mbu = false, mfu = false, overhead = false;
    if (!jsonread_string(&cr, co, "basis", true, basis, sizeof basis, d) ||
        !jsonread_bool(&cr, co, "mbu", false, &mbu, d) ||
        !jsonread_bool(&cr, co, "mfu", false, &mfu, d) ||
        !jsonread_bool(&cr, co, "step_overhead", false, &overhead, d) ||
        !calibration_band_read(&cr, cJSON_GetObjectItemCaseSensitive(co, "band"),
                               "speed_calibration.band.", s->calibration_band, d))
        return false;
    text_sanitize(basis, s->speed_basis, sizeof s->speed_basis);
    if (!s->speed_basis[0])
        return jsonread_fail(&cr, d, "basis: empty or not text");
    s->speed_calibrated = (mbu ? SPEED_CAL_MBU : 0) | (mfu ? SPEED_CAL_MFU : 0) |
                          (overhead ? SPEED_CAL_OVERHEAD : 0);
    /* the users and prompts the fit's points were measured at (absent from
     * older snapshots: its band then holds everywhere, as it did) */
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(co, "fit_shape");
    if (shape == NULL || cJSON_IsNull(shape))
        return true;
    if (!cJSON_IsObject(shape))
        return jsonread_fail(&cr, d, "fit_shape: expected an object or null");
    static const char *const kinds[2] = {"decode", "first_token"};
    for (int k = 0; k < 2; k++) {
        const cJSON *one = cJSON_GetObjectItemCaseSensitive(shape, kinds[k]);
        if (one == NULL || cJSON_IsNull(one))
            continue;
        char at[64];
        snprintf(at, sizeof at, "speed_calibration.fit_shape.%s.", kinds[k]);
        struct jsonread kr = jsonread_child(&cr, kinds[k], at);
        struct calibration_shape *sh = &s->calibration_from.fit_shape[k];
        if (!cJSON_IsObject(one))
            return jsonread_fail(&kr, d, "expected an object or null");
        if (!jsonread_u64(&kr, one, "users_min", true, 1, 1000000000, &sh->users_min, d) ||
            !jsonread_u64(&kr, one, "users_max", true, sh->users_min, 1000000000, &sh->users_max,
                          d) ||
            !jsonread_u64(&kr, one, "prompt_min", true, 1, (uint64_t)1 << 40, &sh->prompt_min, d) ||
            !jsonread_u64(&kr, one, "prompt_max", true, sh->prompt_min, (uint64_t)1 << 40,
                          &sh->prompt_max, d))
            return false;
    }
    return true;
}

/* One scenario object (the top-level "scenario", or a session entry's). */
/* "speculative": {"method": "draft" | "mtp", "draft_model": {...}, "num_speculative_tokens": N | null} */
static bool snapshot_spec_from_json(const struct jsonread *sr, const cJSON *po, struct scenario *s,
                                    struct diag *d)
{
    if (!cJSON_IsObject(po))
        return jsonread_fail(sr, d, "speculative: expected an object or null");
    struct jsonread pr = jsonread_child(sr, "speculative", "speculative.");
    char method[16] = "";
    if (!jsonread_string(&pr, po, "method", true, method, sizeof method, d))
        return false;
    if (!spec_method_parse(method, &s->spec_method))
        return jsonread_fail(&pr, d, "method: '%s' is not draft, mtp or none", method);
    const cJSON *dm = cJSON_GetObjectItemCaseSensitive(po, "draft_model");
    if (s->spec_method == SPEC_DRAFT) {
        if (!cJSON_IsObject(dm))
            return jsonread_fail(&pr, d, "draft_model: a draft needs its model object");
        struct jsonread dr = jsonread_child(&pr, "draft_model", "draft_model.");
        if (!preset_model_from_json(&dr, dm, &s->draft, d))
            return false;
    }
    return jsonread_u32(&pr, po, "num_speculative_tokens", false, 1, SPEC_TOKENS_MAX,
                        &s->spec_tokens, d);
}

/* the optional sizes and price a snapshot may pin, and the display units */
static bool scenario_sizes_from_json(const struct jsonread *sr, const cJSON *so,
                                     const char *units, struct scenario *sc, struct diag *d)
{
    bool ok = true;
    if (jsonread_has(so, "vram_bytes")) {
        sc->has_vram = true;
        ok = jsonread_u64(sr, so, "vram_bytes", true, 1, (uint64_t)1 << 44, &sc->vram_bytes,
                          d);
    }
    if (ok && jsonread_has(so, "weights_bytes")) {
        sc->has_weights = true;
        ok = jsonread_u64(sr, so, "weights_bytes", true, 0, (uint64_t)1 << 53,
                          &sc->weights_bytes, d);
    }
    if (ok && jsonread_has(so, "price_usd_per_gpu_hour")) {
        sc->has_price = true;
        ok = jsonread_double(sr, so, "price_usd_per_gpu_hour", true, 0.0, 1e6,
                             &sc->price_usd_per_hour, d);
    }
    if (ok) {
        if (strcmp(units, "gib") == 0)
            sc->units = UNITS_GIB;
        else if (strcmp(units, "gb") == 0)
            sc->units = UNITS_GB;
        else
            ok = jsonread_fail(sr, d, "units: '%s' is not gib or gb", units);
    }
    return ok;
}

/* the parallel layout and where the cache lives */
static bool scenario_layout_from_json(const struct jsonread *sr, const cJSON *so,
                                      struct scenario *sc, struct diag *d)
{
    bool ok = true;
    if (jsonread_has(so, "tp"))
        ok = jsonread_u32(sr, so, "tp", true, 1, GPUS_MAX, &sc->tp, d);
    if (ok && jsonread_has(so, "pp"))
        ok = jsonread_u32(sr, so, "pp", true, 1, GPUS_MAX, &sc->pp, d);
    ok = ok && jsonread_bool(sr, so, "dp_attention", false, &sc->dp_attention, d) &&
         jsonread_bool(sr, so, "expert_parallel", false, &sc->expert_parallel, d) &&
         jsonread_bool(sr, so, "allow_long_context", false, &sc->allow_long_context, d) &&
         jsonread_u64(sr, so, "host_kv_bytes", false, 0, (uint64_t)1 << 50, &sc->host_kv_bytes,
                      d);
    if (ok && jsonread_has(so, "prefix_hit_rate")) {
        sc->has_prefix_hit_rate = true;
        ok = jsonread_double(sr, so, "prefix_hit_rate", true, 0.0, 1.0, &sc->prefix_hit_rate, d);
    }
    return ok;
}

/* LoRA slots, images and the Apple wired limit: absent from older snapshots */
static bool scenario_extras_from_json(const struct jsonread *sr, const cJSON *so,
                                      struct scenario *sc, struct diag *d)
{
    /* LoRA slots (core/lora.h): older snapshots keep none */
    char mods[160] = "";
    bool ok = jsonread_u32(sr, so, "max_loras", false, 1, LORA_SLOTS_MAX, &sc->max_loras, d) &&
         jsonread_u32(sr, so, "max_lora_rank", false, 1, LORA_RANK_MAX, &sc->max_lora_rank, d) &&
         jsonread_string(sr, so, "lora_target_modules", false, mods, sizeof mods, d);
    ok = ok && jsonread_u32(sr, so, "images", false, 1, 1000, &sc->images, d) &&
         jsonread_u32(sr, so, "image_tokens", false, 1, 1000000, &sc->image_tokens, d) &&
         jsonread_u32(sr, so, "wired_limit_mb", false, 1, 1u << 24, &sc->wired_limit_mb, d);
    if (ok && mods[0]) {
        struct diag in = {0};
        if (!lora_targets_parse(mods, &sc->lora_targets, &in))
            ok = jsonread_fail(sr, d, "lora_target_modules: %s", in.message);
    }
    return ok;
}

/* A snapshot saved before GPU presets had their SM count (which vLLM's
 * sampler buffer takes, core/policy_vllm_profile.c) holds none: the built-in
 * preset's, when it is the same GPU (its id and its name), else none, which
 * the plan says it assumes. */
static void sm_count_from_catalogue(struct gpu_spec *g)
{
    if (g->sm_count || g->id[0] == '\0')
        return;
    static struct catalog cat;
    struct diag d = {0};
    catalog_init(&cat);
    if (catalog_load_embedded(&cat, &d)) {
        const struct catalog_gpu *c = catalog_find_gpu(&cat, g->id);
        if (c && c->spec.sm_count && strcmp(c->spec.name, g->name) == 0) {
            g->sm_count = c->spec.sm_count;
            snprintf(g->sm_count_basis, sizeof g->sm_count_basis, "%s", c->spec.sm_count_basis);
        }
    }
    catalog_free(&cat);
}

static bool scenario_from_json(const struct jsonread *sr, const cJSON *so, const char *path,
                               struct scenario *out, struct diag *d)
{
    struct scenario tmp;
    scenario_default(&tmp, NULL, NULL);
    struct diag local = {0};
    bool ok = true;
    const cJSON *go = cJSON_GetObjectItemCaseSensitive(so, "gpu");
    const cJSON *mo = cJSON_GetObjectItemCaseSensitive(so, "model");
    if (!cJSON_IsObject(go) || !cJSON_IsObject(mo))
        ok = jsonread_fail(sr, d, "%s: missing (expected an object)",
                           cJSON_IsObject(go) ? "model" : "gpu");
    struct jsonread gr = jsonread_child(sr, "gpu", "gpu.");
    struct jsonread mr = jsonread_child(sr, "model", "model.");
    char units[8] = "gib";
    ok = ok && preset_gpu_from_json(&gr, go, &tmp.gpu, d);
    if (ok)
        sm_count_from_catalogue(&tmp.gpu);
    ok = ok && preset_model_from_json(&mr, mo, &tmp.model, d) &&
         jsonread_u32(sr, so, "gpus", true, 1, GPUS_MAX, &tmp.gpus, d) &&
         preset_read_dtype(sr, so, "weight_dtype", false, &tmp.weight_dtype, d) &&
         preset_read_dtype(sr, so, "kv_dtype", false, &tmp.kv_dtype, d) &&
         jsonread_u32(sr, so, "kv_heads", false, 1, 100000, &tmp.kv_heads, d) &&
         jsonread_u64(sr, so, "context_tokens", true, 1, TOKENS_MAX, &tmp.context_tokens,
                      d) &&
         jsonread_u64(sr, so, "prefix_tokens", false, 0, TOKENS_MAX, &tmp.prefix_tokens,
                      d) &&
         jsonread_u64(sr, so, "avg_context_tokens", false, 1, TOKENS_MAX,
                      &tmp.avg_context_tokens, d) &&
         jsonread_u64(sr, so, "block_tokens", false, 1, BLOCK_TOKENS_MAX, &tmp.block_tokens,
                      d) &&
         jsonread_bool(sr, so, "block_size_given", false, &tmp.block_given, d) &&
         jsonread_double(sr, so, "headroom_percent", false, 0.0, 99.999999,
                         &tmp.headroom_percent, d) &&
         jsonread_bool(sr, so, "full_attention", false, &tmp.full_attention, d) &&
         jsonread_string(sr, so, "units", false, units, sizeof units, d);
    ok = ok && scenario_sizes_from_json(sr, so, units, &tmp, d) &&
         scenario_layout_from_json(sr, so, &tmp, d) &&
         scenario_extras_from_json(sr, so, &tmp, d);
    ok = ok && jsonread_u64(sr, so, "concurrency", false, 1, 100000000, &tmp.concurrency, d) &&
         jsonread_u64(sr, so, "prompt_tokens", false, 1, TOKENS_MAX, &tmp.prompt_tokens, d) &&
         jsonread_u64(sr, so, "output_tokens", false, 1, TOKENS_MAX, &tmp.output_tokens, d) &&
         jsonread_double(sr, so, "min_tokens_per_s", false, 0.001, 1e6, &tmp.min_tokens_per_s, d) &&
         jsonread_double(sr, so, "max_ttft_seconds", false, 0.001, 86400, &tmp.max_ttft_seconds,
                         d) &&
         jsonread_double(sr, so, "mbu", false, 0.01, 1.0, &tmp.mbu, d) &&
         jsonread_double(sr, so, "mfu", false, 0.01, 1.0, &tmp.mfu, d);
    ok = ok && scenario_speed_from_json(sr, so, &tmp, d) &&
         offload_opts_from_json(sr, so, &tmp.offload, d);
    const cJSON *po = cJSON_GetObjectItemCaseSensitive(so, "speculative");
    if (ok && po != NULL && !cJSON_IsNull(po))
        ok = snapshot_spec_from_json(sr, po, &tmp, d);
    const cJSON *eo = cJSON_GetObjectItemCaseSensitive(so, "engine");
    if (ok && eo != NULL && !cJSON_IsNull(eo)) {
        struct jsonread er = jsonread_child(sr, "engine", "engine.");
        ok = engine_flags_from_json(&er, eo, &tmp.engine, d);
    }
    if (ok && !scenario_validate(&tmp, NULL, NULL, &local)) {
        ok = diag_fail(d, "%s: scenario: %s", path, local.message);
    }
    if (ok)
        *out = tmp;
    return ok;
}

/* The header: format and a version this kvplan reads. */
static bool header_from_json(const struct jsonread *r, const cJSON *root, uint32_t *version,
                             struct diag *d)
{
    char format[64] = "";
    bool ok = jsonread_string(r, root, "format", true, format, sizeof format, d) &&
              jsonread_u32(r, root, "format_version", true, 1, 1000000, version, d);
    if (ok && strcmp(format, SNAPSHOT_FORMAT) != 0)
        return jsonread_fail(r, d, "format: '%s' is not a kvplan scenario (expected \"%s\")",
                             format, SNAPSHOT_FORMAT);
    if (ok && (*version < 1 || *version > SNAPSHOT_FORMAT_VERSION))
        return jsonread_fail(r, d,
                             "format_version: %u is not supported (this kvplan reads versions 1 "
                             "to %d); use a kvplan that writes version %u",
                             *version, SNAPSHOT_FORMAT_VERSION, *version);
    return ok;
}

/* The top-level scenario (the current one in a session). */
static bool top_scenario(const struct jsonread *r, const cJSON *root, struct scenario *s,
                         struct diag *d)
{
    const cJSON *so = cJSON_GetObjectItemCaseSensitive(root, "scenario");
    if (!cJSON_IsObject(so))
        return jsonread_fail(r, d, "scenario: missing (expected an object)");
    struct jsonread sr = jsonread_child(r, "scenario", "");
    return scenario_from_json(&sr, so, r->path, s, d);
}

/* A session's top-level scenario is a copy of its current one, there for
 * readers of single snapshots: one that differs is refused, naming the
 * first field that does (what --load and the planner would each take). */
static bool top_is_current(const struct jsonread *r, const cJSON *root,
                           const struct snapshot_session *ss, struct diag *d)
{
    static struct scenario top;
    static struct snapshot_difference diff;
    if (!top_scenario(r, root, &top, d))
        return false;
    const struct snapshot_entry *cur = &ss->entry[ss->current];
    if (!snapshot_scenario_difference(&top, &cur->scenario, &diff))
        return true;
    return jsonread_fail(r, d,
                         "scenario.%s: %s, but %s in the current scenario (session.scenarios[%d], "
                         "'%s'): the top-level scenario is a copy of the current one and must "
                         "equal it",
                         diff.field, diff.a, diff.b, ss->current, cur->label);
}

bool snapshot_parse(const char *path, const char *text, size_t len, struct scenario *s,
                    struct diag *d)
{
    cJSON *root = jsonread_parse(path, text, len, d);
    if (root == NULL)
        return false;
    struct jsonread r = {path, text, len, 0, ""};
    uint32_t version = 0;
    struct scenario tmp;
    bool ok = header_from_json(&r, root, &version, d) && top_scenario(&r, root, &tmp, d);
    cJSON_Delete(root);
    if (ok)
        *s = tmp;
    return ok;
}

/* A label from a file name: "meeting.json" -> "meeting", as a label may be:
 * text only, cut at a whole character, never empty. */
static void label_from_path(const char *path, char *out, size_t size)
{
    const char *base = strrchr(path, '/');
    char name[256];
    snprintf(name, sizeof name, "%s", base ? base + 1 : path);
    char *dot = strrchr(name, '.');
    if (dot && dot != name)
        *dot = '\0';
    text_sanitize(name, out, size);
    size_t n;
    unsigned cp = 0;
    text_trim(out, &n);
    if (n == 0 || text_check_name(out, size - 1, &cp) != TEXT_OK)
        snprintf(out, size, "A"); /* a name a label may not be */
}

bool snapshot_label_same(const char *a, const char *b)
{
    return text_same_name(a, b);
}

static bool text_field_fault(const char *field, enum text_fault f, unsigned cp, size_t max,
                             struct diag *d)
{
    if (f == TEXT_OK)
        return true;
    char why[96];
    text_fault_describe(f, cp, max, why, sizeof why);
    return diag_fail(d, "%s: %s", field, why);
}

bool snapshot_label_check(const char *label, struct diag *d)
{
    size_t n;
    unsigned cp = 0;
    enum text_fault f = text_check_name(label, SNAPSHOT_LABEL_BYTES, &cp);
    if (!text_field_fault("label", f, cp, SNAPSHOT_LABEL_BYTES, d))
        return false;
    text_trim(label, &n);
    return n > 0 || diag_fail(d, "label: empty; each scenario needs a name");
}

bool snapshot_note_check(const char *note, struct diag *d)
{
    unsigned cp = 0;
    enum text_fault f = text_check(note, SNAPSHOT_NOTE_BYTES, &cp);
    return text_field_fault("note", f, cp, SNAPSHOT_NOTE_BYTES, d);
}

bool snapshot_session_check(const struct snapshot_session *ss, struct diag *d)
{
    if (ss->count < 1 || ss->count > SNAPSHOT_SESSION_MAX)
        return diag_fail(d, "session: %d scenarios (1 to %d)", ss->count, SNAPSHOT_SESSION_MAX);
    if (ss->current < 0 || ss->current >= ss->count || ss->reference < -1 ||
        ss->reference >= ss->count)
        return diag_fail(d, "session: scenario %d current, %d reference, of %d", ss->current + 1,
                         ss->reference + 1, ss->count);
    for (int i = 0; i < ss->count; i++) {
        const struct snapshot_entry *e = &ss->entry[i];
        struct diag in = {0};
        if (!snapshot_label_check(e->label, &in) || !snapshot_note_check(e->note, &in))
            return diag_fail(d, "scenario %d: %s", i + 1, in.message);
        for (int j = 0; j < i; j++)
            if (snapshot_label_same(ss->entry[j].label, e->label))
                return diag_fail(d, "scenario %d: label: '%s' already names scenario %d", i + 1,
                                 e->label, j + 1);
    }
    return true;
}

bool snapshot_parse_session(const char *path, const char *text, size_t len,
                            struct snapshot_session *ss, struct diag *d)
{
    cJSON *root = jsonread_parse(path, text, len, d);
    if (root == NULL)
        return false;
    struct jsonread r = {path, text, len, 0, ""};
    uint32_t version = 0;
    static struct snapshot_session tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.reference = -1;
    bool ok = header_from_json(&r, root, &version, d);
    const cJSON *so = cJSON_GetObjectItemCaseSensitive(root, "session");
    if (ok && (so == NULL || cJSON_IsNull(so))) {
        /* one scenario: a session of one entry */
        tmp.count = 1;
        label_from_path(path, tmp.entry[0].label, sizeof tmp.entry[0].label);
        ok = top_scenario(&r, root, &tmp.entry[0].scenario, d);
    } else if (ok) {
        struct jsonread sr = jsonread_child(&r, "session", "session.");
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(so, "scenarios");
        if (!cJSON_IsObject(so) || !cJSON_IsArray(list))
            ok = jsonread_fail(&sr, d, "scenarios: missing (expected an array)");
        int n = ok ? cJSON_GetArraySize(list) : 0;
        if (ok && (n < 1 || n > SNAPSHOT_SESSION_MAX))
            ok = jsonread_fail(&sr, d, "scenarios: %d entries (1 to %d)", n, SNAPSHOT_SESSION_MAX);
        uint32_t cur = 0, ref = UINT32_MAX;
        ok = ok && jsonread_u32(&sr, so, "current", false, 0, (uint32_t)n - 1, &cur, d) &&
             jsonread_u32(&sr, so, "reference", false, 0, (uint32_t)n - 1, &ref, d);
        for (int i = 0; ok && i < n; i++) {
            struct jsonread lr = jsonread_element(&sr, "scenarios", i, "session.scenarios.");
            const cJSON *e = cJSON_GetArrayItem(list, i);
            struct snapshot_entry *en = &tmp.entry[i];
            if (!cJSON_IsObject(e)) {
                ok = jsonread_fail(&lr, d, "entry %d: expected an object", i + 1);
                break;
            }
            struct diag in = {0};
            ok = jsonread_string(&lr, e, "label", true, en->label, sizeof en->label, d) &&
                 jsonread_string(&lr, e, "note", false, en->note, sizeof en->note, d) &&
                 loadjson_read(&lr, e, &en->load, d);
            if (ok && !snapshot_label_check(en->label, &in))
                ok = jsonread_fail(&lr, d, "%s (scenario %d)", in.message, i + 1);
            const cJSON *es = cJSON_GetObjectItemCaseSensitive(e, "scenario");
            if (ok && !cJSON_IsObject(es))
                ok = jsonread_fail(&lr, d, "entry %d: scenario: missing (expected an object)", i + 1);
            struct jsonread er = jsonread_child(&lr, "scenario", "session.scenarios.scenario.");
            ok = ok && scenario_from_json(&er, es, path, &en->scenario, d);
            for (int j = 0; ok && j < i; j++)
                if (snapshot_label_same(tmp.entry[j].label, en->label))
                    ok = jsonread_fail(&lr, d, "label: '%s' names two scenarios (%d and %d)",
                                       en->label, j + 1, i + 1);
        }
        tmp.count = n;
        tmp.current = (int)cur;
        tmp.reference = ref == UINT32_MAX ? -1 : (int)ref;
        ok = ok && top_is_current(&r, root, &tmp, d);
    }
    cJSON_Delete(root);
    if (ok)
        *ss = tmp;
    return ok;
}

bool snapshot_load_session(const char *path, struct snapshot_session *ss, struct diag *d)
{
    size_t len = 0;
    char *text = fileio_read(path, &len, d);
    if (text == NULL)
        return false;
    bool ok = snapshot_parse_session(path, text, len, ss, d);
    free(text);
    return ok;
}

char *snapshot_session_export_text(const char *path, const struct snapshot_session *ss,
                                   const struct plan_result *const *results,
                                   const struct explain *const *explains, const char *generator,
                                   struct diag *d)
{
    struct diag in = {0};
    if (!snapshot_session_check(ss, &in)) {
        diag_fail(d, "%s: not written: %s", path, in.message);
        return NULL;
    }
    char *text = snapshot_session_to_json(ss, results, explains, generator);
    if (text == NULL) {
        diag_fail(d, "%s: cannot build the snapshot (out of memory)", path);
        return NULL;
    }
    /* what kvplan writes, kvplan reads: the loader's own verdict, before a byte is written */
    static struct snapshot_session back;
    if (!snapshot_parse_session(path, text, strlen(text), &back, &in)) {
        diag_fail(d, "%s: not written: it would not load back (%s)", path, in.message);
        free(text);
        return NULL;
    }
    return text;
}

bool snapshot_export_session(const char *path, const struct snapshot_session *ss,
                             const struct plan_result *const *results,
                             const struct explain *const *explains, const char *generator,
                             struct diag *d)
{
    char *text = snapshot_session_export_text(path, ss, results, explains, generator, d);
    if (text == NULL)
        return false;
    bool ok = fileio_write_atomic(path, text, strlen(text), d);
    free(text);
    return ok;
}

int snapshot_session_find(const struct snapshot_session *ss, const char *label)
{
    for (int i = 0; i < ss->count; i++)
        if (snapshot_label_same(ss->entry[i].label, label))
            return i;
    return -1;
}

bool snapshot_load(const char *path, struct scenario *s, struct diag *d)
{
    size_t len = 0;
    char *text = fileio_read(path, &len, d);
    if (text == NULL)
        return false;
    /* a session is read whole (every scenario checked) even when one is used:
     * a damaged file is refused, never opened in part */
    static struct snapshot_session ss;
    bool ok = snapshot_parse(path, text, len, s, d) &&
              snapshot_parse_session(path, text, len, &ss, d);
    free(text);
    return ok;
}

bool snapshot_export(const char *path, const struct scenario *s, const struct plan_result *r,
                     const struct explain *x, const char *generator, struct diag *d)
{
    char *text = snapshot_to_json(s, r, x, generator);
    if (text == NULL)
        return diag_fail(d, "%s: cannot build the snapshot (out of memory)", path);
    struct scenario back;
    struct diag in = {0};
    bool ok = snapshot_parse(path, text, strlen(text), &back, &in) ||
              diag_fail(d, "%s: not written: it would not load back (%s)", path, in.message);
    ok = ok && fileio_write_atomic(path, text, strlen(text), d);
    free(text);
    return ok;
}
