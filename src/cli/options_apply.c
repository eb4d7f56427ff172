/* options_apply: the parsed options made a scenario: the catalogue with any
 * --presets directories, a snapshot or the defaults, then each option given. */
#include "cli/options.h"

#include <stdio.h>
#include <string.h>

#include "cli/options_table.h"
#include "core/engine_desc.h"
#include "io/calibration.h"
#include "io/fileio.h"
#include "io/localgpu.h"
#include "io/snapshot.h"

bool options_load_catalog(const struct options *o, struct catalog *c, struct diag *d)
{
    const char *presets = OPTION_FLAG(OPT_PRESETS);
    for (int i = 0; i < o->preset_dir_count; i++)
        if (!fileio_is_dir(o->preset_dirs[i]))
            return diag_fail(d, "%s: '%s' is not a directory", presets, o->preset_dirs[i]);
    if (catalog_load_all(c, o->preset_dirs, (size_t)o->preset_dir_count, d))
        return true;
    /* a file of a directory given with --presets: name the option */
    for (int i = 0; i < o->preset_dir_count; i++)
        if (strncmp(d->message, o->preset_dirs[i], strlen(o->preset_dirs[i])) == 0) {
            char msg[sizeof d->message];
            snprintf(msg, sizeof msg, "%s", d->message);
            d->failed = false; /* diag_fail keeps a first message: this one replaces it */
            return diag_fail(d, "%s: %s", presets, msg);
        }
    return false;
}

bool options_load(const struct options *o, struct catalog *c, struct scenario *s, struct diag *d)
{
    catalog_init(c);
    if (options_load_catalog(o, c, d) && options_scenario(o, c, s, d))
        return true;
    catalog_free(c);
    return false;
}

/* The scenario of that label in the --load session. */
static bool load_labelled(const struct options *o, struct scenario *s, struct diag *d)
{
    const char *flag = OPTION_FLAG(OPT_SCENARIO);
    static struct snapshot_session ss;
    if (!snapshot_load_session(o->load_path, &ss, d)) {
        diag_prefix(d, "%s", OPTION_FLAG(OPT_LOAD));
        return false;
    }
    int i = snapshot_session_find(&ss, o->scenario_label);
    if (i >= 0) {
        *s = ss.entry[i].scenario;
        return true;
    }
    char names[256] = "";
    size_t n = 0;
    for (int k = 0; k < ss.count && n < sizeof names; k++)
        n += (size_t)snprintf(names + n, sizeof names - n, "%s'%s'", k ? ", " : "",
                              ss.entry[k].label);
    if (ss.count == 1)
        return diag_fail(d,
                         "%s: '%s' is not in %s: it holds one scenario, named %s after the "
                         "file (or load it without %s)",
                         flag, o->scenario_label, o->load_path, names, flag);
    return diag_fail(d, "%s: '%s' is not in %s (it holds %s)", flag, o->scenario_label,
                     o->load_path, names);
}

/* Where the scenario starts: a snapshot, one scenario of a session, or the defaults. */
static bool start(const struct options *o, struct scenario *s, struct diag *d)
{
    if (o->scenario_label && !o->load_path)
        return diag_fail(d, "%s: names a scenario of a session given with %s",
                         OPTION_FLAG(OPT_SCENARIO), OPTION_FLAG(OPT_LOAD));
    if (o->load_path && o->scenario_label)
        return load_labelled(o, s, d);
    if (o->load_path) {
        if (!snapshot_load(o->load_path, s, d)) {
            diag_prefix(d, "%s", OPTION_FLAG(OPT_LOAD));
            return false;
        }
        return true;
    }
    scenario_default(s, NULL, NULL);
    return true;
}

/* --gpu (a preset, or auto) and --model from the catalogue. */
static bool presets(const struct options *o, const struct catalog *c, struct scenario *s,
                    struct diag *d)
{
    char near[256];
    const char *gpu_id = o->gpu_id ? o->gpu_id : (o->load_path ? NULL : DEFAULT_GPU_ID);
    const char *model_id = o->model_id ? o->model_id : (o->load_path ? NULL : DEFAULT_MODEL_ID);
    if (gpu_id && strcmp(gpu_id, "auto") == 0) {
        unsigned n = 0;
        if (!localgpu_detect(c, &s->gpu, &n, d))
            return false;
        if (!o->given[OPT_GPUS] && !o->load_path)
            s->gpus = n; /* every GPU the driver lists, unless --gpus says otherwise */
    } else if (gpu_id) {
        const struct catalog_gpu *g = catalog_find_gpu(c, gpu_id);
        if (g == NULL) {
            catalog_suggest(c, PRESET_GPU, gpu_id, near, sizeof near);
            return diag_fail(d, "%s: unknown GPU '%s' (closest: %s; see kvplan list gpus)",
                             OPTION_FLAG(OPT_GPU), gpu_id, near);
        }
        s->gpu = g->spec;
    }
    if (model_id) {
        const struct catalog_model *m = catalog_find_model(c, model_id);
        if (m == NULL) {
            catalog_suggest(c, PRESET_MODEL, model_id, near, sizeof near);
            return diag_fail(d, "%s: unknown model '%s' (closest: %s; see kvplan list models)",
                             OPTION_FLAG(OPT_MODEL), model_id, near);
        }
        s->model = m->spec;
        if (o->model_id && o->load_path)
            s->kv_heads = 0; /* a new model brings its own heads */
    }
    return true;
}

/* The knobs of the scenario itself, each only when given. */
static void knobs(const struct options *o, struct scenario *s)
{
    const bool *g = o->given;
    if (g[OPT_GPUS])
        s->gpus = o->gpus;
    if (g[OPT_CONTEXT])
        s->context_tokens = o->context;
    if (g[OPT_PREFIX])
        s->prefix_tokens = o->prefix;
    if (g[OPT_AVG])
        s->avg_context_tokens = o->avg;
    if (g[OPT_BLOCK]) {
        s->block_tokens = o->block;
        s->block_given = true;
    }
    if (g[OPT_HEADROOM])
        s->headroom_percent = o->headroom;
    if (g[OPT_KV_HEADS])
        s->kv_heads = o->kv_heads;
    if (g[OPT_KV_DTYPE])
        s->kv_dtype = o->kv_dtype;
    if (g[OPT_WEIGHT_DTYPE])
        s->weight_dtype = o->weight_dtype;
    if (g[OPT_UNITS])
        s->units = o->units;
    if (g[OPT_FULL_ATTENTION])
        s->full_attention = true;
    if (g[OPT_VRAM]) {
        s->has_vram = true;
        s->vram_bytes = o->vram;
    }
    if (g[OPT_WIRED_LIMIT])
        s->wired_limit_mb = o->wired_limit_mb;
    if (g[OPT_WEIGHTS]) {
        s->has_weights = true;
        s->weights_bytes = o->weights;
    }
    if (g[OPT_PRICE]) {
        s->has_price = true;
        s->price_usd_per_hour = o->price;
    }
}

/* --mbu, --mfu and --step-overhead: given, they win over a snapshot's or a
 * calibration's figure, which then no longer counts as calibrated. */
static void speed_flags(const struct options *o, struct scenario *s)
{
    if (o->mbu > 0) {
        s->mbu = o->mbu;
        s->speed_calibrated &= ~SPEED_CAL_MBU;
    }
    if (o->mfu > 0) {
        s->mfu = o->mfu;
        s->speed_calibrated &= ~SPEED_CAL_MFU;
    }
    if (o->given[OPT_STEP_OVERHEAD]) {
        s->has_step_overhead = true;
        s->step_overhead_s = o->step_overhead;
        s->speed_calibrated &= ~SPEED_CAL_OVERHEAD;
    }
    if (s->speed_calibrated == 0)
        s->speed_basis[0] = '\0'; /* every figure given on top: nothing calibrated is left */
}

/* How the scenario is served: speed, parallelism, LoRA slots, images. */
static bool serving(const struct options *o, struct scenario *s, struct diag *d)
{
    const bool *g = o->given;
    if (o->concurrency)
        s->concurrency = o->concurrency;
    if (o->prompt)
        s->prompt_tokens = o->prompt;
    if (g[OPT_OUTPUT_LEN]) /* 0 clears a loaded snapshot's */
        s->output_tokens = o->output_tokens;
    if (o->min_tok_s > 0)
        s->min_tokens_per_s = o->min_tok_s;
    if (o->max_ttft > 0)
        s->max_ttft_seconds = o->max_ttft;
    speed_flags(o, s);
    if (g[OPT_PP])
        s->pp = o->pp;
    if (g[OPT_DP_ATTENTION])
        s->dp_attention = true;
    if (g[OPT_EXPERT_PARALLEL])
        s->expert_parallel = true;
    if (g[OPT_ALLOW_LONG_CONTEXT])
        s->allow_long_context = true;
    if (g[OPT_MAX_LORAS] || g[OPT_MAX_LORAS_PER_BATCH])
        s->max_loras = o->max_loras;
    if (o->max_lora_rank)
        s->max_lora_rank = o->max_lora_rank;
    if (o->lora_targets)
        s->lora_targets = o->lora_targets;
    if (g[OPT_IMAGES])
        s->images = o->images;
    if (o->image_tokens)
        s->image_tokens = o->image_tokens;
    if (g[OPT_IMAGES] && o->images == 0)
        s->image_tokens = 0; /* an explicit --images 0: no images, whatever their size */
    if ((o->max_lora_rank || o->lora_targets) && s->max_loras == 0)
        return diag_fail(d, "%s: sizes LoRA slots: give %s N too",
                         OPTION_FLAG(o->max_lora_rank ? OPT_MAX_LORA_RANK : OPT_LORA_TARGETS),
                         OPTION_FLAG(OPT_MAX_LORAS));
    if (g[OPT_TP])
        s->tp = o->tp;
    else if (g[OPT_GPUS] && o->load_path)
        s->tp = 0;
    return true;
}

/* --engine, then the engine flags given, which win over a snapshot's or a
 * calibration's. */
static void engine(const struct options *o, struct scenario *s)
{
    if (o->given[OPT_ENGINE]) {
        /* another engine than a loaded snapshot's: its flags and layouts go with it
         * (as in the planner); the ones given here apply below */
        if (o->load_path && s->engine.kind != o->engine) {
            memset(&s->engine, 0, sizeof s->engine);
            if (!engine_desc(o->engine)->dp_attention)
                s->dp_attention = false;
            if (!engine_expert_parallel(engine_desc(o->engine), o->engine_rule))
                s->expert_parallel = false;
            if (!o->given[OPT_KV_DTYPE] && !engine_supports(o->engine, s->kv_dtype))
                s->kv_dtype = DTYPE_AUTO; /* a cache type the new engine lacks */
        }
        bool other = o->load_path && s->engine.kind != o->engine;
        s->engine.kind = o->engine;
        s->engine.rule = o->engine_rule;
        snprintf(s->engine.release_asked, sizeof s->engine.release_asked, "%s",
                 o->engine_release_asked);
        char why[320]; /* a block the new engine does not start with, as the cache type */
        if (other && !o->given[OPT_BLOCK] && scenario_block_refusal(s, why, sizeof why)) {
            s->block_tokens = DEFAULT_BLOCK_TOKENS;
            s->block_given = false;
        }
    }
    const struct engine_flags *f = &o->flags;
    struct engine_flags *e = &s->engine;
    if (f->gpu_memory_utilization > 0)
        e->gpu_memory_utilization = f->gpu_memory_utilization;
    if (f->max_num_seqs)
        e->max_num_seqs = f->max_num_seqs;
    if (f->max_num_batched_tokens)
        e->max_num_batched_tokens = f->max_num_batched_tokens;
    if (f->mem_fraction_static > 0)
        e->mem_fraction_static = f->mem_fraction_static;
    if (f->chunked_prefill_size)
        e->chunked_prefill_size = f->chunked_prefill_size;
    if (f->parallel)
        e->parallel = f->parallel;
    if (f->fit_target_bytes)
        e->fit_target_bytes = f->fit_target_bytes;
    if (f->v_dtype != DTYPE_AUTO)
        e->v_dtype = f->v_dtype;
    if (f->free_gpu_memory_fraction > 0)
        e->free_gpu_memory_fraction = f->free_gpu_memory_fraction;
    if (f->gpu_total_bytes)
        e->gpu_total_bytes = f->gpu_total_bytes;
    if (f->non_kv_bytes)
        e->non_kv_bytes = f->non_kv_bytes;
    if (f->kv_memory_bytes)
        e->kv_memory_bytes = f->kv_memory_bytes;
}

/* The prefix asked by the last options_scenario that held it (0: none). */
static uint64_t prefix_asked;

uint64_t options_prefix_asked(void)
{
    return prefix_asked;
}

/* A --prefix that reaches the --context is held to it less one token (the
 * rule of core/scenario.h, scenario_prefix_within), said on standard error;
 * along a context axis the sweep holds it row by row instead. */
static void prefix_rule(const struct options *o, struct scenario *s)
{
    if (!(o->given[OPT_PREFIX] || o->given[OPT_CONTEXT]) || s->context_tokens == 0 ||
        s->prefix_tokens < s->context_tokens)
        return;
    for (int i = 0; i < o->vary_count; i++)
        if (strncmp(o->varies[i], "context=", 8) == 0)
            return;
    uint64_t held = scenario_prefix_within(s->prefix_tokens, s->context_tokens);
    prefix_asked = s->prefix_tokens;
    fprintf(stderr,
            "kvplan: note: %s %llu tokens reaches %s (%llu tokens): held to %llu, the context "
            "less the token each user keeps\n",
            OPTION_FLAG(OPT_PREFIX), (unsigned long long)s->prefix_tokens, OPTION_FLAG(OPT_CONTEXT),
            (unsigned long long)s->context_tokens, (unsigned long long)held);
    s->prefix_tokens = held;
}

/* kvplan's default context (8k) past the model's longest, under an engine
 * that refuses to start with one (vLLM, SGLang: scenario_context_ceiling):
 * planned at the model's longest, as the engine without --max-model-len or
 * --context-length takes it, and said so (not along a context axis, whose
 * rows give their own); a --context given, or a file's, is refused there. */
static void default_context_within(const struct options *o, struct scenario *s)
{
    uint64_t top = scenario_context_ceiling(s);
    if (o->given[OPT_CONTEXT] || o->load_path || o->calibration_path || top == 0 ||
        s->context_tokens <= top)
        return;
    bool axis = false;
    for (int i = 0; i < o->vary_count; i++)
        axis = axis || strncmp(o->varies[i], "context=", 8) == 0;
    const struct engine_desc *e = engine_desc(s->engine.kind);
    if (!axis)
        fprintf(stderr,
                "kvplan: note: %s: the default %llu tokens is past %s's longest context, which "
                "%s refuses without %s=1: planned at %llu, as %s without %s takes it\n",
                OPTION_FLAG(OPT_CONTEXT), (unsigned long long)s->context_tokens, s->model.id,
                e->title, e->long_context.env, (unsigned long long)top, e->title,
                e->long_context.option);
    s->context_tokens = top;
    if (s->avg_context_tokens >= top)
        s->avg_context_tokens = 0;
    prefix_rule(o, s);
}

/* A block the engine takes and plans another in place of (an MLA backend's,
 * DeepSeek V4's: core/scenario.h scenario_block_override), said on standard
 * error: the plan is of the engine's block, not the one given. */
static void block_overridden(const struct scenario *s)
{
    const char *why = "";
    uint64_t used = scenario_block_override(s, &why);
    char title[96];
    if (used)
        fprintf(stderr, "kvplan: warning: %s %llu: %s plans %llu-token blocks instead: %s\n",
                OPTION_FLAG(OPT_BLOCK), (unsigned long long)s->block_tokens,
                engine_flags_title(&s->engine, title, sizeof title), (unsigned long long)used,
                why);
}

bool options_scenario(const struct options *o, const struct catalog *c, struct scenario *s,
                      struct diag *d)
{
    if (!start(o, s, d) || !presets(o, c, s, d))
        return false;
    knobs(o, s);
    prefix_asked = 0;
    prefix_rule(o, s);
    if (!serving(o, s, d) || !options_host_apply(o, s, d) || !options_offload_apply(o, s, d))
        return false;
    struct calibration_source cal;
    if (o->calibration_path && !calibration_apply(o->calibration_path, s, &cal, d)) {
        diag_prefix(d, "%s", OPTION_FLAG(OPT_CALIBRATION));
        return false;
    }
    speed_flags(o, s); /* on top of the calibration's */
    engine(o, s);
    const struct engine_desc *e = engine_desc(s->engine.kind);
    if (e->default_context && !o->given[OPT_CONTEXT] && !o->load_path && !o->calibration_path)
        s->context_tokens = e->default_context(s); /* Ollama's own default num_ctx */
    default_context_within(o, s);
    if (!options_spec_apply(o, c, s, d) || !scenario_validate(s, NULL, NULL, d))
        return false;
    block_overridden(s);
    return o->calibration_path == NULL || options_calibration_on_top(o, c, &cal, s, d);
}
