/* report_command: the command line that reproduces a scenario (the planner's
 * copy, the versus table's notes), every field as the CLI's own parser reads
 * it back (tests/unit/test_command.c round-trips each one). */
#include "report.h"

#include <stdio.h>
#include <string.h>

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

void report_command_line(const struct scenario *s, char *buf, size_t size)
{
    const struct engine_flags *e = &s->engine;
    char t[32];
    size_t n = (size_t)snprintf(buf, size, "kvplan plan --gpu %s --model %s --gpus %u", s->gpu.id,
                                s->model.id, s->gpus);
#define ADD(...)                                                                                   \
    do {                                                                                           \
        if (n < size)                                                                              \
            n += (size_t)snprintf(buf + n, size - n, __VA_ARGS__);                                 \
    } while (0)
    if (s->tp)
        ADD(" --tp %u", s->tp);
    if (s->pp > 1)
        ADD(" --pp %u", s->pp);
    ADD(" --context %s", units_format_tokens_arg(s->context_tokens, t, sizeof t));
    if (s->kv_dtype != DTYPE_AUTO)
        ADD(" --kv-dtype %s", dtype_info(s->kv_dtype)->name);
    if (s->weight_dtype != DTYPE_AUTO)
        ADD(" --weight-dtype %s", dtype_info(s->weight_dtype)->name);
    if (s->kv_heads)
        ADD(" --kv-heads %u", s->kv_heads);
    if (s->prefix_tokens)
        ADD(" --prefix %s", units_format_tokens_arg(s->prefix_tokens, t, sizeof t));
    if (s->avg_context_tokens)
        ADD(" --avg-context %s", units_format_tokens_arg(s->avg_context_tokens, t, sizeof t));
    if (s->block_tokens && s->block_tokens != DEFAULT_BLOCK_TOKENS)
        ADD(" --block-size %llu", (unsigned long long)s->block_tokens);
    if (s->engine.kind == ENGINE_GENERIC && s->headroom_percent != 10.0)
        ADD(" --headroom %g", s->headroom_percent);
    if (s->has_vram)
        ADD(" --vram %s", size_arg(s->vram_bytes, t, sizeof t));
    if (s->has_weights)
        ADD(" --weights %s", size_arg(s->weights_bytes, t, sizeof t));
    if (s->has_price)
        ADD(" --price %g", s->price_usd_per_hour);
    if (s->full_attention)
        ADD(" --full-attention");
    if (s->units == UNITS_GB)
        ADD(" --units gb");
    if (e->kind != ENGINE_GENERIC)
        ADD(" --engine %s", engine_label(e->kind, e->rule));
    if (s->dp_attention)
        ADD(" --enable-dp-attention");
    if (s->expert_parallel)
        ADD(" --enable-expert-parallel");
    if (s->spec_method == SPEC_DRAFT)
        ADD(" --draft-model %s", s->draft.id);
    else if (s->spec_method == SPEC_MTP)
        ADD(" --speculative-method mtp");
    if (s->spec_method != SPEC_NONE && s->spec_tokens)
        ADD(" --num-speculative-tokens %u", s->spec_tokens);
    if (e->gpu_memory_utilization > 0)
        ADD(" --gpu-memory-utilization %g", e->gpu_memory_utilization);
    if (e->mem_fraction_static > 0)
        ADD(" --mem-fraction-static %g", e->mem_fraction_static);
    if (e->free_gpu_memory_fraction > 0)
        ADD(" --free-gpu-memory-fraction %g", e->free_gpu_memory_fraction);
    if (e->max_num_seqs)
        ADD(" --max-num-seqs %u", e->max_num_seqs);
    if (e->max_num_batched_tokens)
        ADD(" --max-num-batched-tokens %llu", (unsigned long long)e->max_num_batched_tokens);
    if (e->chunked_prefill_size)
        ADD(" --chunked-prefill-size %llu", (unsigned long long)e->chunked_prefill_size);
    if (e->parallel)
        ADD(" --parallel %u", e->parallel);
    if (e->fit_target_bytes)
        ADD(" --fit-target %s", size_arg(e->fit_target_bytes, t, sizeof t));
    if (e->v_dtype != DTYPE_AUTO)
        ADD(" --kv-dtype-v %s", dtype_info(e->v_dtype)->name);
    if (e->gpu_total_bytes)
        ADD(" --gpu-total %s", size_arg(e->gpu_total_bytes, t, sizeof t));
    if (e->non_kv_bytes)
        ADD(" --non-kv %s", size_arg(e->non_kv_bytes, t, sizeof t));
    if (e->kv_memory_bytes)
        ADD(" --kv-memory %s", size_arg(e->kv_memory_bytes, t, sizeof t));
    if (s->concurrency)
        ADD(" --concurrency %llu", (unsigned long long)s->concurrency);
    if (s->prompt_tokens)
        ADD(" --prompt %s", units_format_tokens_arg(s->prompt_tokens, t, sizeof t));
    if (s->min_tokens_per_s > 0)
        ADD(" --min-tok-s %g", s->min_tokens_per_s);
    if (s->max_ttft_seconds > 0)
        ADD(" --max-ttft %g", s->max_ttft_seconds);
    if (s->mbu > 0)
        ADD(" --mbu %g", s->mbu);
    if (s->mfu > 0)
        ADD(" --mfu %g", s->mfu);
    if (s->host_kv_bytes)
        ADD(" --host-kv %s", size_arg(s->host_kv_bytes, t, sizeof t));
    if (s->has_prefix_hit_rate && s->host_kv_bytes) /* the CLI refuses it without a tier */
        ADD(" --prefix-hit-rate %g", s->prefix_hit_rate);
    if (s->max_loras)
        ADD(" --max-loras %u", s->max_loras);
    if (s->max_lora_rank)
        ADD(" --max-lora-rank %u", s->max_lora_rank);
    if (s->lora_targets) {
        char mods[128];
        lora_targets_format(s->lora_targets, mods, sizeof mods);
        ADD(" --lora-target-modules %s", mods);
    }
    if (s->images)
        ADD(" --images %u", s->images);
    if (s->image_tokens)
        ADD(" --image-tokens %u", s->image_tokens);
#undef ADD
}
