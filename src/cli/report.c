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

/* What the engine profile predicts, per GPU, and the launch command. */
static void report_engine(FILE *out, const struct scenario *s, const struct plan_result *r)
{
    const struct engine_result *e = &r->engine;
    enum unit_system u = s->units;
    char a[64], b[64], c[64];
    fprintf(out, "\nEngine: %s (%u replica%s of tensor parallel %u)\n",
            engine_label(s->engine.kind, s->engine.rule), e->replicas,
            e->replicas == 1 ? "" : "s", e->tp);
    units_format_bytes(e->gpu_total_bytes, u, a, sizeof a);
    fprintf(out, "  %-19s %s per GPU%s\n", "CUDA-visible", a,
            s->engine.gpu_total_bytes ? " (given)" : s->gpu.cuda_visible_bytes ? " (observed)"
                                                                               : " (driver total - 460 MiB)");
    if (e->fraction > 0) {
        units_format_bytes(e->budget_bytes, u, b, sizeof b);
        fprintf(out, "  %-19s %s x %.3f = %s\n", "Budget", a, e->fraction, b);
    }
    units_format_bytes(e->weights_bytes, u, a, sizeof a);
    units_format_bytes(e->activation_bytes, u, b, sizeof b);
    units_format_bytes(e->runtime_bytes, u, c, sizeof c);
    if (s->engine.non_kv_bytes) {
        units_format_bytes(e->non_kv_bytes, u, a, sizeof a);
        fprintf(out, "  %-19s %s per GPU (given)\n", "Outside weights+KV", a);
    } else {
        fprintf(out, "  %-19s weights %s + activation peak %s + runtime %s (estimates)\n",
                "Not KV", a, b, c);
    }
    units_format_bytes(e->kv_cache_bytes_per_gpu, u, a, sizeof a);
    units_format_int(e->units, b, sizeof b);
    fprintf(out, "  %-19s %s per GPU%s = %s units of %llu token%s\n", "KV cache", a,
            s->engine.kv_memory_bytes ? " (given)" : "", b, (unsigned long long)e->unit_tokens,
            e->unit_tokens == 1 ? "" : "s");
    units_format_int(e->kv_tokens, a, sizeof a);
    units_format_int(e->users, b, sizeof b);
    units_format_int(e->scheduler_limited_users, c, sizeof c);
    fprintf(out, "  %-19s %s tokens; concurrency %.2fx at %llu tokens -> %s users\n",
            "Capacity", a, e->max_concurrency, (unsigned long long)s->context_tokens, b);
    if (e->scheduler_cap)
        fprintf(out, "  %-19s %u per replica -> %s users served at once\n", "Scheduler cap",
                e->scheduler_cap, c);
    fprintf(out, "  %-19s %s\n", "Why it differs", e->note);
    for (int i = 0; i < e->log_lines; i++)
        fprintf(out, "  %-19s %s\n", i == 0 ? "It would log" : "", e->log[i]);
    fprintf(out, "  %-19s %s\n", "Launch", e->launch);
    units_format_int(r->max_users, a, sizeof a);
    fprintf(out, "  %-19s %s users with %g%% headroom (generic)\n", "Compare", a,
            s->headroom_percent);
}

void report_text(FILE *out, const struct scenario *s, const struct plan_result *r)
{
    char a[64], b[64], c[64], line[512];
    enum unit_system u = s->units;
    fprintf(out, "kvplan %s: %s on %u x %s%s%s\n\n", KVPLAN_VERSION, s->model.name, s->gpus,
            s->gpu.name, s->engine.kind != ENGINE_GENERIC ? ", " : "",
            s->engine.kind != ENGINE_GENERIC ? engine_label(s->engine.kind, s->engine.rule) : "");
    units_format_int(s->context_tokens, a, sizeof a);
    units_format_int(r->max_users, b, sizeof b);
    units_format_int(r->max_users_paged, c, sizeof c);
    if (s->engine.kind != ENGINE_GENERIC && !r->engine.fits) {
        const struct engine_result *e = &r->engine;
        uint64_t room = e->budget_bytes > e->non_kv_bytes ? e->budget_bytes - e->non_kv_bytes : 0;
        char need[32], left[32];
        units_format_bytes(e->kv_cache_bytes_per_gpu, s->units, need, sizeof need);
        units_format_bytes(room, s->units, left, sizeof left);
        if (s->engine.kind == ENGINE_LLAMACPP && room > 0)
            fprintf(out, "  DOES NOT FIT under llama.cpp's budget: the cache of %s tokens needs %s "
                         "per GPU, %s is left after the weights (generic: %s users)\n\n",
                    a, need, left, b);
        else
            fprintf(out, "  DOES NOT FIT under %s's budget: nothing is left for the KV cache at "
                         "%s tokens (generic: %s users)\n\n",
                    engine_label(s->engine.kind, s->engine.rule), a, b);
    } else if (s->engine.kind == ENGINE_LLAMACPP) {
        char e1[32];
        units_format_int(r->engine.users, e1, sizeof e1);
        fprintf(out, "  llama.cpp: %s slots of %s tokens would fit (launched with -np %u); "
                     "generic: %s\n\n",
                e1, a, r->engine.scheduler_cap, b);
    } else if (s->engine.kind != ENGINE_GENERIC) {
        char e1[32];
        units_format_int(r->engine.users, e1, sizeof e1);
        fprintf(out, "  %s: %s users at %s tokens each (concurrency %.2fx); generic: %s\n\n",
                engine_label(s->engine.kind, s->engine.rule), e1, a, r->engine.max_concurrency,
                b);
    } else if (r->fits)
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

    if (s->engine.kind != ENGINE_GENERIC)
        report_engine(out, s, r);

    fprintf(out, "\nMemory (one replica: %u GPU%s, %s)\n", r->tp, r->tp == 1 ? "" : "s",
            units_name(u));
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
        for (uint32_t bit = 1; bit <= WARN_ENGINE_DTYPE; bit <<= 1)
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
    for (uint32_t bit = 1; bit <= WARN_ENGINE_DTYPE; bit <<= 1)
        if ((r->warnings & bit) && bit != WARN_PRICE_UNKNOWN && bit != WARN_BANDWIDTH_UNKNOWN)
            fprintf(out, "%s- %s\n", shown++ ? "" : "\nWarnings:\n\n",
                    capacity_warning_text((enum plan_warning)bit));
}
