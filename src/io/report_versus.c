/* report_versus: scenarios side by side as a Markdown table (report.h). */
#include "report.h"
#include "report_parts.h"

#include <math.h>
#include <string.h>

#include "core/engine_desc.h"
#include "io/markdown.h"

/* A table cell of scenario i, and the change against the first. */
static void versus_row(FILE *out, const char *label, const char *const *cells, const double *v,
                       int n, bool number)
{
    fprintf(out, "| %s |", label);
    for (int i = 0; i < n; i++) {
        char change[48] = "";
        if (i > 0 && number && v && v[0] > 0 && v[i] >= 0 && v[i] != v[0]) /* < 0: n/a */
            snprintf(change, sizeof change, " (%+.0f%%)", 100.0 * (v[i] - v[0]) / v[0]);
        fprintf(out, " %s%s |", cells[i], change);
    }
    fprintf(out, "\n");
}

/* "$0.0463", or "n/a" when unknown (< 0). */
static const char *dollars(double v, char *buf, size_t size)
{
    explain_format(v, XU_USD, UNITS_GIB, buf, size); /* the planner's and the report's format */
    return buf;
}

/* "302.42 ms", as the planner writes the first token; "n/a" without one. */
static const char *first_token(const struct plan_result *r, char *buf, size_t size)
{
    if (r->speed.ttft_seconds > 0)
        explain_format(r->speed.ttft_seconds, XU_SECONDS, UNITS_GIB, buf, size);
    else
        snprintf(buf, size, "n/a");
    return buf;
}

/* "3 x TP 4", "3 x 4 GPUs, layers split": the layout as the titles write it. */
static const char *layout_title(const struct plan_result *r, char *buf, size_t size)
{
    plan_layout_title(r, buf, size);
    return buf;
}

/* The speed's band, escaped for Markdown (the family comes from a preset):
 * "-15% to +20% over 8 Hopper/vLLM measurements"; "n/a" without a speed. */
static const char *speed_spread(const struct plan_result *r, char *buf, size_t size)
{
    if (r->speed.tokens_per_s_per_user <= 0)
        return snprintf(buf, size, "n/a"), buf;
    return report_band_text(&r->bands.decode, true, buf, size);
}

/* The speed per user at the users decoding at once; with a target no count
 * keeps, one user's alone. */
static const char *speed_cell(const struct plan_result *r, char *buf, size_t size)
{
    if (r->speed.level_missed)
        snprintf(buf, size, "%.1f tok/s, one user alone (none keeps the service level)",
                 r->speed.tokens_per_s_per_user);
    else
        snprintf(buf, size, "%.1f tok/s at %llu at once", r->speed.tokens_per_s_per_user,
                 (unsigned long long)r->speed.concurrency);
    return buf;
}

/* Their throughput; none served when no count keeps the target. */
static const char *throughput_cell(const struct plan_result *r, char *buf, size_t size)
{
    char t[32];
    if (r->speed.level_missed)
        snprintf(buf, size, "n/a: no user keeps the service level");
    else
        snprintf(buf, size, "%s tok/s at %llu at once",
                 units_format_int((uint64_t)llround(r->speed.tokens_per_s_total), t, sizeof t),
                 (unsigned long long)r->speed.concurrency);
    return buf;
}

/* The first token's band, the same way; "n/a" without a first token. */
static const char *ttft_spread(const struct plan_result *r, char *buf, size_t size)
{
    if (r->speed.ttft_seconds <= 0)
        return snprintf(buf, size, "n/a"), buf;
    return report_band_text(&r->bands.ttft, true, buf, size);
}

/* A setting's value: the number and its unit, or `unset` where 0 means the default. */
static const char *setting(double v, int decimals, const char *unit, const char *unset,
                           char *buf, size_t size)
{
    if (v == 0)
        snprintf(buf, size, "%s", unset);
    else
        snprintf(buf, size, "%.*f%s", decimals, v, unit);
    return buf;
}

/* A row of a setting, only where the scenarios differ: cells[i] as written. */
static void setting_row(FILE *out, const char *label, const char *const *cells, int n)
{
    for (int i = 1; i < n; i++)
        if (strcmp(cells[i], cells[0]) != 0) {
            versus_row(out, label, cells, NULL, n, false);
            return;
        }
}

/* Every setting that changes a plan and that the rows above do not show,
 * listed where a scenario's differs from the others' (the planner's "In
 * use", a service level, an engine's flag), so the columns say why their
 * results differ. */
static void versus_settings(FILE *out, const struct snapshot_session *ss,
                            const struct plan_result *const *results, const int *shown, int n)
{
    char buf[4][REPORT_LINE_MD] = {{0}}, t[4][48];
    const char *cells[4] = {buf[0], buf[1], buf[2], buf[3]};
#define SETTING(label, ...)                                                                        \
    do {                                                                                           \
        for (int i = 0; i < n; i++) {                                                              \
            const struct scenario *s = &ss->entry[shown[i]].scenario;                              \
            const struct plan_result *r = results[shown[i]];                                       \
            char *c = t[i];                                                                        \
            (void)s;                                                                               \
            (void)r;                                                                               \
            (void)c;                                                                               \
            snprintf(buf[i], sizeof buf[i], __VA_ARGS__);                                          \
        }                                                                                          \
        setting_row(out, label, cells, n);                                                         \
    } while (0)
    const size_t z = sizeof t[0];
    SETTING("In use", "%s tokens", units_format_int(r->avg_context_tokens, c, z));
    SETTING("Users at once", "%s", setting((double)s->concurrency, 0, "", "all that fit", c, z));
    SETTING("Prompt", "%s", setting((double)s->prompt_tokens, 0, " tokens", "the context", c, z));
    SETTING("Output", "%s", setting((double)s->output_tokens, 0, " tokens", "the step alone", c, z));
    SETTING("KV heads", "%u", r->cost.kv_heads);
    SETTING("Full attention", "%s", s->full_attention ? "yes (windows as global)" : "no");
    SETTING("Block", "%s", setting((double)s->block_tokens, 0, " tokens", "16 tokens", c, z));
    SETTING("Headroom", "%g%%", s->headroom_percent);
    SETTING("Memory per GPU", "%s",
            s->has_vram ? units_format_bytes(s->vram_bytes, s->units, c, z) : "the preset's");
    SETTING("Price per GPU-hour", "%s",
            s->has_price ? dollars(s->price_usd_per_hour, c, z) : "the preset's");
    SETTING("MBU", "%s", setting(s->mbu, 2, "", "default", c, z));
    SETTING("MFU", "%s", setting(s->mfu, 2, "", "default", c, z));
    SETTING("Step overhead", "%s",
            s->has_step_overhead ? (explain_format(s->step_overhead_s, XU_SECONDS, UNITS_GIB, c, z), c)
                                 : "the engine's");
    SETTING("Speed calibration", "%s", s->speed_basis[0] ? s->speed_basis : "none");
    SETTING("DP attention", "%s", s->dp_attention ? "on" : "off");
    SETTING("Expert parallel", "%s", s->expert_parallel ? "on" : "off");
    SETTING("GPU memory utilization", "%s",
            setting(s->engine.gpu_memory_utilization, 2, "", "default", c, z));
    SETTING("Max running requests", "%s",
            setting((double)s->engine.max_num_seqs, 0, "", "default", c, z));
    SETTING("Max batched tokens", "%s",
            setting((double)s->engine.max_num_batched_tokens, 0, "", "default", c, z));
    SETTING("Mem fraction static", "%s",
            setting(s->engine.mem_fraction_static, 2, "", "default", c, z));
    SETTING("Chunked prefill", "%s",
            setting((double)s->engine.chunked_prefill_size, 0, "", "default", c, z));
    SETTING("Parallel slots", "%s", setting((double)s->engine.parallel, 0, "", "as many as fit", c, z));
    SETTING("Free GPU memory fraction", "%s",
            setting(s->engine.free_gpu_memory_fraction, 2, "", "default", c, z));
    SETTING("Wired limit", "%s", setting((double)s->wired_limit_mb, 0, " MiB", "macOS's", c, z));
    SETTING("From a startup log", "%s",
            s->engine.kv_memory_bytes || s->engine.non_kv_bytes || s->engine.gpu_total_bytes
                ? "yes"
                : "no");
#undef SETTING
}

/* The table's head: each scenario's name, the reference marked. */
static void versus_header(FILE *out, const struct snapshot_session *ss, const int *shown, int n)
{
    char label[MD_TEXT_SIZE(sizeof ss->entry[0].label)];
    fprintf(out, "| |");
    for (int i = 0; i < n; i++)
        fprintf(out, " %s%s |", md_text(ss->entry[shown[i]].label, label, sizeof label),
                i == 0 && ss->reference == shown[0] ? " (reference)" : "");
    fprintf(out, "\n|---|");
    for (int i = 0; i < n; i++)
        fprintf(out, "---|");
    fprintf(out, "\n");
}

/* The scenarios' notes after the table, each with its name. */
static void versus_notes(FILE *out, const struct snapshot_session *ss, const int *shown, int n)
{
    char label[MD_TEXT_SIZE(sizeof ss->entry[0].label)];
    int notes = 0;
    for (int i = 0; i < n; i++) {
        const struct snapshot_entry *e = &ss->entry[shown[i]];
        char note[MD_TEXT_SIZE(sizeof e->note)];
        if (e->note[0])
            fprintf(out, "%s- %s: %s\n", notes++ ? "" : "\n",
                    md_text(e->label, label, sizeof label), md_text(e->note, note, sizeof note));
    }
}

void report_markdown_versus(FILE *out, const struct snapshot_session *ss,
                            const struct plan_result *const *results, const int *shown, int n)
{
    char buf[4][REPORT_LINE_MD] = {{0}};
    const char *cells[4] = {buf[0], buf[1], buf[2], buf[3]};
    double v[4] = {0};
    char name[MD_TEXT_SIZE(SPEC_NAME_MAX)];
    if (n > 4)
        n = 4;
    versus_header(out, ss, shown, n);
#define ROW(label, number, value, ...)                                                             \
    do {                                                                                           \
        for (int i = 0; i < n; i++) {                                                              \
            const struct scenario *s = &ss->entry[shown[i]].scenario;                              \
            const struct plan_result *r = results[shown[i]];                                       \
            (void)s;                                                                               \
            (void)r;                                                                               \
            v[i] = (double)(value);                                                                \
            snprintf(buf[i], sizeof buf[i], __VA_ARGS__);                                          \
        }                                                                                          \
        versus_row(out, label, cells, v, n, number);                                               \
    } while (0)
    char t[32], line[REPORT_LINE_MD];
    bool slo = false;
    for (int i = 0; i < n; i++) {
        const struct scenario *s = &ss->entry[shown[i]].scenario;
        slo = slo || s->min_tokens_per_s > 0 || s->max_ttft_seconds > 0;
    }
    if (slo) {
        /* the level asked for and the users who keep it lead, as in the planner */
        ROW("Service level", false, 0, "%s", report_speed_target(s, line, sizeof line));
        ROW("**Users at service level**", true, r->speed.users_at_service_level, "**%s** (%s binds)",
            units_format_int(r->speed.users_at_service_level, t, sizeof t),
            plan_binding_name(r->speed.binding));
        ROW("Users fit in memory", true, r->max_users, "%s",
            units_format_int(r->max_users, t, sizeof t));
    } else {
        ROW("**Users**", true, r->max_users, "**%s**", units_format_int(r->max_users, t, sizeof t));
    }
    ROW("Speed per user", true, r->speed.level_missed ? 0 : r->speed.tokens_per_s_per_user, "%s",
        speed_cell(r, line, sizeof line));
    ROW("Throughput", true, r->speed.level_missed ? 0 : r->speed.tokens_per_s_total, "%s",
        throughput_cell(r, line, sizeof line));
    ROW("Measured spread", false, 0, "%s", speed_spread(r, line, sizeof line));
    ROW("First token", true, r->speed.ttft_seconds, "%s", first_token(r, t, sizeof t));
    ROW("First-token spread", false, 0, "%s", ttft_spread(r, line, sizeof line));
    ROW("GPUs", false, 0, "%u x %s (%s)", s->gpus, md_text(s->gpu.name, name, sizeof name),
        layout_title(r, line, sizeof line));
    ROW("Model", false, 0, "%s", md_text(s->model.name, name, sizeof name));
    ROW("Engine", false, 0, "%s", engine_version_title(r->profile, r->rule, name, sizeof name));
    ROW("Context", true, s->context_tokens, "%s tokens", units_format_int(s->context_tokens, t, sizeof t));
    ROW("Shared prefix", false, 0, "%s tokens", units_format_int(s->prefix_tokens, t, sizeof t));
    ROW("KV cache", false, 0, "%s", dtype_info(r->kv_dtype)->name);
    ROW("Weights", false, 0, "%s", plan_weights_label(r));
    versus_settings(out, ss, results, shown, n);
    /* what else sits in GPU memory, when any scenario has it */
    bool spec = false, lora = false, images = false, tier = false;
    for (int i = 0; i < n; i++) {
        const struct plan_result *r = results[shown[i]];
        spec = spec || r->spec.method != SPEC_NONE;
        lora = lora || r->lora.slots;
        images = images || r->image_tokens;
        tier = tier || r->host.present;
    }
    if (spec)
        ROW("Speculative", false, 0, "%s",
            r->spec.method == SPEC_NONE ? "none"
                                        : (report_spec_text(s, r, true, line, sizeof line), line));
    if (lora)
        ROW("LoRA", false, 0, "%s", report_lora_text(s, r, line, sizeof line) ? line : "none");
    if (images)
        ROW("Images", false, 0, "%s", report_images_text(r, line, sizeof line) ? line : "none");
    if (tier)
        ROW("Host KV", false, 0, "%s",
            s->host_kv_bytes ? (report_host_input(s, line, sizeof line), line) : "none");
    ROW("KV per token (per GPU)", true, r->cost.bytes_per_token, "%s",
        units_format_bytes(r->cost.bytes_per_token, s->units, t, sizeof t)); /* as its row's others */
    ROW("KV per user (per GPU)", true, r->user_bytes_per_gpu, "%s",
        units_format_bytes(r->user_bytes_per_gpu, s->units, t, sizeof t));
    ROW("KV pool (per GPU)", true, r->kv_pool_bytes_per_gpu, "%s",
        units_format_bytes(r->kv_pool_bytes_per_gpu, s->units, t, sizeof t));
    ROW("Tokens held", true, r->kv_tokens, "%s", units_format_int(r->kv_tokens, t, sizeof t));
    if (tier)
        ROW("Parked in host memory", true, r->host.beyond_gpu, "%s",
            units_format_int(r->host.beyond_gpu, t, sizeof t));
    /* a price not known (< 0) is n/a, with no change against the first */
    ROW("Cost per user-hour", true, r->cost_per_user_hour, "%s",
        dollars(r->cost_per_user_hour, t, sizeof t));
    ROW("Cost per million output tokens", true, r->cost_per_million_output_tokens, "%s",
        dollars(r->cost_per_million_output_tokens, t, sizeof t));
    ROW("Cost per million input tokens", true, r->cost_per_million_input_tokens, "%s",
        dollars(r->cost_per_million_input_tokens, t, sizeof t));
#undef ROW
    versus_notes(out, ss, shown, n);
}
