/* report_command: the command line that reproduces a scenario (the planner's
 * copy, the versus table's notes), every field as the CLI's own parser reads
 * it back (tests/unit/test_command.c round-trips each one), every word
 * quoted for the shell (core/shell.h). */
#include "report.h"

#include <stdio.h>
#include <string.h>

#include "core/engine_desc.h"
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

/* The engine options given, as kvplan's table spells and orders them. */
static void engine_options_words(const struct engine_flags *e, struct shell_line *l)
{
    size_t count;
    const struct engine_option *opt = engine_options(&count);
    char t[32];
    for (size_t i = 0; i < count; i++) {
        const struct engine_option *o = &opt[i];
        if (!engine_option_given(e, o))
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

size_t report_command_line(const struct scenario *s, char *buf, size_t size)
{
    const struct engine_flags *e = &s->engine;
    char t[32];
    struct shell_line l;
    shell_line_init(&l, buf, size);
    shell_words(&l, "kvplan plan");
    shell_option(&l, "--gpu", "%s", s->gpu.id);
    shell_option(&l, "--model", "%s", s->model.id);
    shell_option(&l, "--gpus", "%u", s->gpus);
    if (s->tp)
        shell_option(&l, "--tp", "%u", s->tp);
    if (s->pp > 1)
        shell_option(&l, "--pp", "%u", s->pp);
    shell_option(&l, "--context", "%s", units_format_tokens_arg(s->context_tokens, t, sizeof t));
    if (s->kv_dtype != DTYPE_AUTO)
        shell_option(&l, "--kv-dtype", "%s", dtype_info(s->kv_dtype)->name);
    if (s->weight_dtype != DTYPE_AUTO)
        shell_option(&l, "--weight-dtype", "%s", dtype_info(s->weight_dtype)->name);
    if (s->kv_heads)
        shell_option(&l, "--kv-heads", "%u", s->kv_heads);
    if (s->prefix_tokens)
        shell_option(&l, "--prefix", "%s", units_format_tokens_arg(s->prefix_tokens, t, sizeof t));
    if (s->avg_context_tokens)
        shell_option(&l, "--avg-context", "%s", units_format_tokens_arg(s->avg_context_tokens, t, sizeof t));
    if (s->block_tokens && s->block_tokens != DEFAULT_BLOCK_TOKENS)
        shell_option(&l, "--block-size", "%llu", (unsigned long long)s->block_tokens);
    bool server = engine_desc(e->kind)->server;
    if (!server && s->headroom_percent != 10.0)
        shell_option(&l, "--headroom", "%g", s->headroom_percent);
    if (s->has_vram)
        shell_option(&l, "--vram", "%s", size_arg(s->vram_bytes, t, sizeof t));
    if (s->has_weights)
        shell_option(&l, "--weights", "%s", size_arg(s->weights_bytes, t, sizeof t));
    if (s->has_price)
        shell_option(&l, "--price", "%g", s->price_usd_per_hour);
    if (s->full_attention)
        shell_word(&l, "--full-attention");
    if (s->units == UNITS_GB)
        shell_words(&l, "--units gb");
    if (server)
        shell_option(&l, "--engine", "%s", engine_label(e->kind, e->rule));
    if (s->dp_attention)
        shell_word(&l, "--enable-dp-attention");
    if (s->expert_parallel)
        shell_word(&l, "--enable-expert-parallel");
    if (s->spec_method == SPEC_DRAFT)
        shell_option(&l, "--draft-model", "%s", s->draft.id);
    else if (s->spec_method == SPEC_MTP)
        shell_words(&l, "--speculative-method mtp");
    if (s->spec_method != SPEC_NONE && s->spec_tokens)
        shell_option(&l, "--num-speculative-tokens", "%u", s->spec_tokens);
    engine_options_words(e, &l);
    if (s->concurrency)
        shell_option(&l, "--concurrency", "%llu", (unsigned long long)s->concurrency);
    if (s->prompt_tokens)
        shell_option(&l, "--prompt", "%s", units_format_tokens_arg(s->prompt_tokens, t, sizeof t));
    if (s->min_tokens_per_s > 0)
        shell_option(&l, "--min-tok-s", "%g", s->min_tokens_per_s);
    if (s->max_ttft_seconds > 0)
        shell_option(&l, "--max-ttft", "%g", s->max_ttft_seconds);
    if (s->mbu > 0)
        shell_option(&l, "--mbu", "%g", s->mbu);
    if (s->mfu > 0)
        shell_option(&l, "--mfu", "%g", s->mfu);
    if (s->host_kv_bytes)
        shell_option(&l, "--host-kv", "%s", size_arg(s->host_kv_bytes, t, sizeof t));
    if (s->has_prefix_hit_rate && s->host_kv_bytes) /* the CLI refuses it without a tier */
        shell_option(&l, "--prefix-hit-rate", "%g", s->prefix_hit_rate);
    if (s->max_loras)
        shell_option(&l, "--max-loras", "%u", s->max_loras);
    if (s->max_lora_rank)
        shell_option(&l, "--max-lora-rank", "%u", s->max_lora_rank);
    if (s->lora_targets) {
        char mods[128];
        lora_targets_format(s->lora_targets, mods, sizeof mods);
        shell_option(&l, "--lora-target-modules", "%s", mods);
    }
    if (s->images)
        shell_option(&l, "--images", "%u", s->images);
    if (s->image_tokens)
        shell_option(&l, "--image-tokens", "%u", s->image_tokens);
    size_t need = 0;
    shell_line_done(&l, &need);
    return need;
}
