/* report_command: the command line that reproduces a scenario (the planner's
 * copy, the versus table's notes), every field as the CLI's own parser reads
 * it back (tests/unit/test_command.c round-trips each one), each option
 * spelled as core/optname.h spells it for the CLI's table, every word quoted
 * for the shell (core/shell.h). */
#include "report.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/engine_desc.h"
#include "core/optname.h"
#include "core/shell.h"

/* A size as an option takes it, exactly: "64GiB" when whole GiB, "512MiB"
 * when whole MiB, else bytes ("80000000000B"). */
static const char *size_arg(uint64_t bytes, char *buf, size_t size)
{
    const uint64_t gib = (uint64_t)1 << 30, mib = (uint64_t)1 << 20;
    if (bytes && bytes % gib == 0)
        snprintf(buf, size, "%lluGiB", (unsigned long long)(bytes / gib));
    else if (bytes && bytes % mib == 0)
        snprintf(buf, size, "%lluMiB", (unsigned long long)(bytes / mib));
    else
        snprintf(buf, size, "%lluB", (unsigned long long)bytes);
    return buf;
}

/* Whether the figure a log gave is the calibration file's (the line gives
 * --calibration FILE, which sets it, and moves a logged cache with the
 * options as the plan did), not one given on top of it. */
static bool calibration_line(const struct scenario *s)
{
    const struct calibration_origin *c = &s->calibration_from;
    /* plan refuses a memory calibration of another model: its figures then */
    return c->present && c->file[0] &&
           (!c->memory || !c->model[0] || strcasecmp(c->model, s->model.id) == 0);
}

static bool from_calibration(const struct scenario *s, const struct engine_option *o)
{
    const struct calibration_origin *c = &s->calibration_from;
    const struct engine_flags *e = &s->engine;
    if (!calibration_line(s) || !c->memory)
        return false;
    if (o->offset == offsetof(struct engine_flags, kv_memory_bytes))
        return c->kv_logged && e->kv_memory_bytes == c->kv_applied;
    if (o->offset == offsetof(struct engine_flags, gpu_total_bytes))
        return c->gpu_total && e->gpu_total_bytes == c->gpu_total;
    if (o->offset == offsetof(struct engine_flags, non_kv_bytes))
        return c->non_kv && e->non_kv_bytes == c->non_kv;
    return false;
}

/* The engine options given, as kvplan's table spells and orders them. */
static void engine_options_words(const struct scenario *s, struct shell_line *l)
{
    const struct engine_flags *e = &s->engine;
    size_t count;
    const struct engine_option *opt = engine_options(&count);
    char t[32];
    for (size_t i = 0; i < count; i++) {
        const struct engine_option *o = &opt[i];
        if (!engine_option_given(e, o) || from_calibration(s, o))
            continue;
        uint64_t n = engine_option_uint(e, o);
        switch (o->type) {
        case EOPT_FRACTION:
            shell_option(l, o->flag, "%g", engine_option_value(e, o));
            break;
        case EOPT_COUNT:
        case EOPT_TOKENS:
            shell_option(l, o->flag, "%llu", (unsigned long long)n);
            break;
        case EOPT_BYTES:
            shell_option(l, o->flag, "%s", size_arg(n, t, sizeof t));
            break;
        case EOPT_DTYPE:
            shell_option(l, o->flag, "%s", dtype_info((enum dtype)n)->name);
            break;
        }
    }
}

/* The scenario itself: the hardware, the model, the context and the knobs. */
static void command_scenario(struct shell_line *l, const struct scenario *s)
{
    char t[32];
    shell_option(l, OPTNAME_GPU, "%s", s->gpu.id);
    shell_option(l, OPTNAME_MODEL, "%s", s->model.id);
    shell_option(l, OPTNAME_GPUS, "%u", s->gpus);
    if (s->tp)
        shell_option(l, OPTNAME_TP, "%u", s->tp);
    if (scenario_pp_written(s))
        shell_option(l, OPTNAME_PP, "%u", s->pp);
    shell_option(l, OPTNAME_CONTEXT, "%s", units_format_tokens_arg(s->context_tokens, t, sizeof t));
    if (s->kv_dtype != DTYPE_AUTO)
        shell_option(l, OPTNAME_KV_DTYPE, "%s", dtype_info(s->kv_dtype)->name);
    if (s->weight_dtype != DTYPE_AUTO)
        shell_option(l, OPTNAME_WEIGHT_DTYPE, "%s", dtype_info(s->weight_dtype)->name);
    if (s->kv_heads)
        shell_option(l, OPTNAME_KV_HEADS, "%u", s->kv_heads);
    if (s->prefix_tokens)
        shell_option(l, OPTNAME_PREFIX, "%s",
                     units_format_tokens_arg(s->prefix_tokens, t, sizeof t));
    if (s->avg_context_tokens)
        shell_option(l, OPTNAME_AVG_CONTEXT, "%s",
                     units_format_tokens_arg(s->avg_context_tokens, t, sizeof t));
    if (scenario_block_given(s) && s->block_tokens)
        shell_option(l, OPTNAME_BLOCK_SIZE, "%llu", (unsigned long long)s->block_tokens);
    if (!engine_desc(s->engine.kind)->server && s->headroom_percent != 10.0)
        shell_option(l, OPTNAME_HEADROOM, "%g", s->headroom_percent);
    if (s->has_vram)
        shell_option(l, OPTNAME_VRAM, "%s", size_arg(s->vram_bytes, t, sizeof t));
    if (s->has_weights)
        shell_option(l, OPTNAME_WEIGHTS, "%s", size_arg(s->weights_bytes, t, sizeof t));
    if (s->has_price)
        shell_option(l, OPTNAME_PRICE, "%g", s->price_usd_per_hour);
    if (s->full_attention)
        shell_word(l, OPTNAME_FULL_ATTENTION);
    if (s->units == UNITS_GB)
        shell_option(l, OPTNAME_UNITS, "%s", "gb");
}

/* The engine and its flags, speculative decoding. */
static void command_engine(struct shell_line *l, const struct scenario *s)
{
    const struct engine_flags *e = &s->engine;
    if (engine_desc(e->kind)->server)
        shell_option(l, OPTNAME_ENGINE, "%s", engine_label(e->kind, e->rule));
    if (s->dp_attention)
        shell_word(l, OPTNAME_DP_ATTENTION);
    if (s->expert_parallel)
        shell_word(l, OPTNAME_EXPERT_PARALLEL);
    if (s->allow_long_context)
        shell_word(l, OPTNAME_ALLOW_LONG_CONTEXT);
    if (s->spec_method == SPEC_DRAFT)
        shell_option(l, OPTNAME_DRAFT_MODEL, "%s", s->draft.id);
    else if (s->spec_method == SPEC_MTP)
        shell_option(l, OPTNAME_SPECULATIVE_METHOD, "%s", "mtp");
    if (s->spec_method != SPEC_NONE && s->spec_tokens)
        shell_option(l, OPTNAME_NUM_SPECULATIVE_TOKENS, "%u", s->spec_tokens);
    engine_options_words(s, l);
    if (calibration_line(s))
        shell_option(l, OPTNAME_CALIBRATION, "%s", s->calibration_from.file);
}

/* How it is served: the speed figures, the host tier, LoRA slots, images. */
static void command_serving(struct shell_line *l, const struct scenario *s)
{
    char t[32];
    if (s->concurrency)
        shell_option(l, OPTNAME_CONCURRENCY, "%llu", (unsigned long long)s->concurrency);
    if (s->prompt_tokens)
        shell_option(l, OPTNAME_PROMPT, "%s",
                     units_format_tokens_arg(s->prompt_tokens, t, sizeof t));
    if (s->output_tokens)
        shell_option(l, OPTNAME_OUTPUT_LEN, "%s",
                     units_format_tokens_arg(s->output_tokens, t, sizeof t));
    if (s->min_tokens_per_s > 0)
        shell_option(l, OPTNAME_MIN_TOK_S, "%g", s->min_tokens_per_s);
    if (s->max_ttft_seconds > 0)
        shell_option(l, OPTNAME_MAX_TTFT, "%g", s->max_ttft_seconds);
    /* a speed calibration's figures come with its --calibration FILE */
    unsigned cal = calibration_line(s) ? s->speed_calibrated : 0;
    if (s->mbu > 0 && !(cal & SPEED_CAL_MBU))
        shell_option(l, OPTNAME_MBU, "%g", s->mbu);
    if (s->mfu > 0 && !(cal & SPEED_CAL_MFU))
        shell_option(l, OPTNAME_MFU, "%g", s->mfu);
    if (s->has_step_overhead && !(cal & SPEED_CAL_OVERHEAD))
        shell_option(l, OPTNAME_STEP_OVERHEAD, "%g", s->step_overhead_s);
    if (s->wired_limit_mb)
        shell_option(l, OPTNAME_WIRED_LIMIT_MB, "%u", s->wired_limit_mb);
    if (s->host_kv_bytes)
        shell_option(l, OPTNAME_HOST_KV, "%s", size_arg(s->host_kv_bytes, t, sizeof t));
    if (s->has_prefix_hit_rate && s->host_kv_bytes) /* the CLI refuses it without a tier */
        shell_option(l, OPTNAME_PREFIX_HIT_RATE, "%g", s->prefix_hit_rate);
    if (s->max_loras)
        shell_option(l, OPTNAME_MAX_LORAS, "%u", s->max_loras);
    if (s->max_lora_rank)
        shell_option(l, OPTNAME_MAX_LORA_RANK, "%u", s->max_lora_rank);
    if (s->lora_targets) {
        char mods[128];
        lora_targets_format(s->lora_targets, mods, sizeof mods);
        shell_option(l, OPTNAME_LORA_TARGET_MODULES, "%s", mods);
    }
    if (s->images)
        shell_option(l, OPTNAME_IMAGES, "%u", s->images);
    if (s->image_tokens)
        shell_option(l, OPTNAME_IMAGE_TOKENS, "%u", s->image_tokens);
    const struct offload_opts *o = &s->offload; /* llama.cpp's placement, the host */
    if (o->ngl_given)
        shell_option(l, OPTNAME_N_GPU_LAYERS, "%u", o->ngl);
    if (o->n_cpu_moe_given)
        shell_option(l, OPTNAME_N_CPU_MOE, "%u", o->n_cpu_moe);
    if (o->no_kv_offload)
        shell_word(l, OPTNAME_NO_KV_OFFLOAD);
    if (o->ubatch)
        shell_option(l, OPTNAME_UBATCH, "%u", o->ubatch);
    if (o->host_memory_bytes && !o->host_memory_read)
        shell_option(l, OPTNAME_HOST_MEMORY, "%s", size_arg(o->host_memory_bytes, t, sizeof t));
    if (o->cpu[0])
        shell_option(l, OPTNAME_CPU, "%s", o->cpu);
    else if (o->host_bytes_per_s > 0)
        shell_option(l, OPTNAME_HOST_BANDWIDTH, "%g", o->host_bytes_per_s / 1e9);
}

size_t report_command_line(const struct scenario *s, char *buf, size_t size)
{
    struct shell_line l;
    shell_line_init(&l, buf, size);
    shell_words(&l, "kvplan plan");
    command_scenario(&l, s);
    command_engine(&l, s);
    command_serving(&l, s);
    size_t need = 0;
    shell_line_done(&l, &need);
    return need;
}
