#include "report.h"

#include "core/explain.h"
#include "core/version.h"

static void model_line(const struct scenario *s, const struct plan_result *r, char *buf,
                       size_t size)
{
    const struct model_spec *m = &s->model;
    char p[32];
    snprintf(p, sizeof p, "%.2f B params", (double)m->params / 1e9);
    if (m->attention == ATTENTION_MLA)
        snprintf(buf, size, "%s: %s, %u layers, MLA latent %u + %u rope dims", m->name, p,
                 m->layers, m->kv_lora_rank, m->qk_rope_head_dim);
    else
        snprintf(buf, size, "%s: %s, %u layers, %s, %u KV heads / %u attention heads%s, head_dim %u",
                 m->name, p, m->layers, spec_attention_name(m->attention), r->kv_heads,
                 m->attention_heads, s->kv_heads ? " (overridden)" : "", m->head_dim);
}

void report_text(FILE *out, const struct scenario *s, const struct plan_result *r)
{
    char a[64], b[64], c[64], line[512];
    enum unit_system u = s->units;
    fprintf(out, "kvplan %s: %s on %u x %s\n\n", KVPLAN_VERSION, s->model.name, s->gpus,
            s->gpu.name);
    units_format_int(s->context_tokens, a, sizeof a);
    units_format_int(r->max_users, b, sizeof b);
    units_format_int(r->max_users_paged, c, sizeof c);
    if (r->fits)
        fprintf(out, "  %s users fit at %s tokens each (%s with paging at the average length)\n\n",
                b, a, c);
    else {
        units_format_bytes(r->shortfall_bytes, u, b, sizeof b);
        fprintf(out, "  DOES NOT FIT: the weights exceed the memory budget by %s\n\n", b);
    }

    fprintf(out, "Scenario\n");
    units_format_bytes(r->gpu_memory_bytes_per_gpu, u, a, sizeof a);
    fprintf(out, "  %-14s %u x %s, %s each (%s)\n", "GPU", s->gpus, s->gpu.name, a,
            s->has_vram ? "--vram" : s->gpu.memory_basis);
    model_line(s, r, line, sizeof line);
    fprintf(out, "  %-14s %s\n", "Model", line);
    units_format_int(s->context_tokens, a, sizeof a);
    units_format_int(s->prefix_tokens, b, sizeof b);
    units_format_int(r->avg_context_tokens, c, sizeof c);
    fprintf(out, "  %-14s %s tokens per user; shared prefix %s; %s in use on average\n", "Context",
            a, b, c);
    fprintf(out, "  %-14s weights %s, KV cache %s (%s)\n", "Precision",
            dtype_info(r->weight_dtype)->name, dtype_info(r->kv_dtype)->name,
            dtype_info(r->kv_dtype)->description);
    fprintf(out, "  %-14s %g %% of memory kept free\n", "Headroom", s->headroom_percent);

    fprintf(out, "\nHow it is computed\n");
    struct explain e;
    explain_build(s, r, &e);
    for (int i = 0; i < e.count; i++) {
        fprintf(out, "  %-19s %s\n", e.lines[i].label, e.lines[i].formula);
        fprintf(out, "  %-19s = %s\n", "", e.lines[i].value);
    }

    fprintf(out, "\nMemory (all GPUs, %s)\n", units_name(u));
    uint64_t seg[SEG_COUNT];
    capacity_segments(r, seg);
    for (int i = 0; i < SEG_COUNT; i++) {
        units_format_bytes(seg[i], u, a, sizeof a);
        double pct = r->gpu_memory_bytes ? 100.0 * (double)seg[i] / (double)r->gpu_memory_bytes : 0;
        fprintf(out, "  %-14s %14s %6.1f %%\n", capacity_segment_name((enum segment)i), a, pct);
    }
    units_format_bytes(r->gpu_memory_bytes, u, a, sizeof a);
    fprintf(out, "  %-14s %14s\n", "total", a);

    if (r->warnings & ~(uint32_t)(WARN_PRICE_UNKNOWN | WARN_BANDWIDTH_UNKNOWN)) {
        fprintf(out, "\nWarnings\n");
        for (uint32_t bit = 1; bit <= WARN_MLA_REPLICATED; bit <<= 1)
            if ((r->warnings & bit) && bit != WARN_PRICE_UNKNOWN && bit != WARN_BANDWIDTH_UNKNOWN)
                fprintf(out, "  ! %s\n", capacity_warning_text((enum plan_warning)bit));
    }
}

void report_markdown(FILE *out, const struct scenario *s, const struct plan_result *r)
{
    char a[64], b[64];
    enum unit_system u = s->units;
    fprintf(out, "### %s on %u x %s\n\n", s->model.name, s->gpus, s->gpu.name);
    fprintf(out, "| Input | Value |\n|---|---|\n");
    units_format_bytes(r->gpu_memory_bytes_per_gpu, u, a, sizeof a);
    fprintf(out, "| GPU | %u x %s (%s each) |\n", s->gpus, s->gpu.name, a);
    fprintf(out, "| Model | %s |\n", s->model.name);
    units_format_int(s->context_tokens, a, sizeof a);
    fprintf(out, "| Context | %s tokens |\n", a);
    units_format_int(s->prefix_tokens, a, sizeof a);
    fprintf(out, "| Shared prefix | %s tokens |\n", a);
    units_format_int(r->avg_context_tokens, a, sizeof a);
    fprintf(out, "| Average in use | %s tokens |\n", a);
    fprintf(out, "| Weights | %s |\n| KV cache | %s |\n", dtype_info(r->weight_dtype)->name,
            dtype_info(r->kv_dtype)->name);
    fprintf(out, "| Headroom | %g %% |\n\n", s->headroom_percent);

    fprintf(out, "| Result | How | Value |\n|---|---|---|\n");
    struct explain e;
    explain_build(s, r, &e);
    for (int i = 0; i < e.count; i++)
        fprintf(out, "| %s | %s | **%s** |\n", e.lines[i].label, e.lines[i].formula,
                e.lines[i].value);
    if (!r->fits) {
        units_format_bytes(r->shortfall_bytes, u, b, sizeof b);
        fprintf(out, "\n**Does not fit**: the weights exceed the budget by %s.\n", b);
    }
    int shown = 0;
    for (uint32_t bit = 1; bit <= WARN_MLA_REPLICATED; bit <<= 1)
        if ((r->warnings & bit) && bit != WARN_PRICE_UNKNOWN && bit != WARN_BANDWIDTH_UNKNOWN)
            fprintf(out, "%s- %s\n", shown++ ? "" : "\nWarnings:\n\n",
                    capacity_warning_text((enum plan_warning)bit));
}
