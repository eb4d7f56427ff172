#include "report.h"
#include "report_parts.h"

#include <string.h>

#include "core/engine_desc.h"
#include "core/text.h"
#include "core/version.h"
#include "io/markdown.h"

typedef unsigned long long ull;

/* Text from input as a report writes it: escaped for Markdown, else as it is. */
static const char *input_text(const char *text, bool md, char *buf, size_t size)
{
    return md ? md_text(text, buf, size) : text;
}

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
                 m->name, p, m->layers, spec_attention_name(spec_attention_with(m, s->kv_heads)),
                 r->cost.kv_heads,
                 m->attention_heads, s->kv_heads ? " (overridden)" : "", m->head_dim);
    if (m->state_layers > 0) {
        size_t n = strlen(buf);
        snprintf(buf + n, size - n, "; %u %s state layers%s, %u keep KV", m->state_layers,
                 m->state_kind, m->state_parallel ? " beside attention" : "", spec_kv_layers(m));
    }
}

/* A memory calibration in use (plan --calibration of a startup log's):
 * where it came from, in words; false when there is none. */
static bool calibration_memory_text(const struct scenario *s, bool md, char *buf, size_t size)
{
    const struct calibration_origin *o = &s->calibration_from;
    if (!o->present || !o->memory)
        return false;
    char ran[96], raw[REPORT_LINE_MD];
    const char *title = engine_desc(o->engine)->title;
    if (o->version[0])
        snprintf(ran, sizeof ran, "%s %s", title, o->version);
    else
        snprintf(ran, sizeof ran, "%s, version unknown", title);
    snprintf(raw, sizeof raw, "memory from %s%s%s%s%s%s%s%s%s, %s: %s (--calibration %s)",
             o->log[0] ? o->log : "a startup log", o->log_engine[0] ? " (a log of " : "",
             o->log_engine, o->log_engine[0] ? ")" : "", o->model[0] ? " of " : "", o->model,
             o->gpu_name[0] ? " on " : "", o->gpu_name,
             o->gpu_assumed ? " (assumed: the log named no GPU)" : "", ran,
             o->kv_logged && o->kv_applied != o->kv_logged
                             ? "its KV cache size applied, moved by what this plan changes "
                               "(the warning says how)"
             : o->kv_logged  ? "its KV cache size applied"
             : o->gpu_total  ? "its CUDA total and non-KV memory applied"
                             : "its slots applied, the cache sized by the engine's rule",
             o->file[0] ? o->file : "FILE");
    char cooked[MD_TEXT_SIZE(REPORT_LINE_MD)];
    snprintf(buf, size, "%s", input_text(raw, md, cooked, sizeof cooked));
    return true;
}

/* The service-level inputs as label and value pairs; returns how many
 * (none when the GPU has no bandwidth figure: there is no speed to model). */
enum { SERVICE_INPUTS = 9 };
static int service_inputs(const struct scenario *s, const struct plan_result *r, bool md,
                          const char *label[SERVICE_INPUTS],
                          char value[SERVICE_INPUTS][REPORT_LINE_MD])
{
    const struct speed_result *sp = &r->speed;
    if (!sp->known)
        return 0;
    char a[32], basis[MD_TEXT_SIZE(sizeof s->gpu.achievable_mbu_basis)];
    int n = 0;
    units_format_int(sp->concurrency, a, sizeof a);
    label[n] = "Concurrency";
    snprintf(value[n++], REPORT_LINE_MD, "%s user%s decoding at once (%s)", a,
             sp->concurrency == 1 ? "" : "s",
             s->concurrency                    ? "--concurrency"
             : sp->level_missed               ? "one alone: no count keeps the service level"
             : sp->concurrency < r->max_users ? "those that keep the service level"
                                              : "all that fit");
    units_format_int(sp->prompt_tokens, a, sizeof a); /* with any image tokens */
    label[n] = "Prompt";
    snprintf(value[n++], REPORT_LINE_MD, "%s tokens (%s)", a,
             s->prompt_tokens ? "--prompt" : "the context");
    if (s->output_tokens) {
        units_format_int(s->output_tokens, a, sizeof a);
        label[n] = "Output";
        snprintf(value[n++], REPORT_LINE_MD, "%s tokens a request (--output-len): the decode "
                 "is a closed loop's", a);
    }
    label[n] = "Min tok/s";
    if (s->min_tokens_per_s > 0)
        snprintf(value[n++], REPORT_LINE_MD, "%g tok/s per user (--min-tok-s)",
                 s->min_tokens_per_s);
    else
        snprintf(value[n++], REPORT_LINE_MD, "none (no speed target)");
    label[n] = "Max TTFT";
    if (s->max_ttft_seconds > 0)
        snprintf(value[n++], REPORT_LINE_MD, "%g s to the first token (--max-ttft)",
                 s->max_ttft_seconds);
    else
        snprintf(value[n++], REPORT_LINE_MD, "none (no first-token target)");
    label[n] = "MBU";
    if (s->speed_calibrated & SPEED_CAL_MBU)
        snprintf(value[n++], REPORT_LINE_MD, "%.2f of peak bandwidth (calibrated)", sp->mbu);
    else if (s->mbu > 0)
        snprintf(value[n++], REPORT_LINE_MD, "%.2f of peak bandwidth (--mbu)", sp->mbu);
    else if (s->gpu.achievable_mbu > 0)
        snprintf(value[n++], REPORT_LINE_MD, "%.2f of peak bandwidth (measured: %s)", sp->mbu,
                 input_text(s->gpu.achievable_mbu_basis, md, basis, sizeof basis));
    else
        snprintf(value[n++], REPORT_LINE_MD, "%.2f of peak bandwidth (the default: no "
                 "measurement for this GPU)", sp->mbu);
    label[n] = "MFU";
    snprintf(value[n++], REPORT_LINE_MD, "%.2f of peak compute (%s)", sp->mfu,
             s->speed_calibrated & SPEED_CAL_MFU ? "calibrated"
             : s->mfu > 0                        ? "--mfu"
             : speed_default_mfu(s) != SPEED_DEFAULT_MFU ? "fitted for llama.cpp on this GPU"
                                                 : "the default");
    if (s->has_step_overhead) {
        label[n] = "Step overhead";
        snprintf(value[n++], REPORT_LINE_MD, "%.3f ms each step (%s)", s->step_overhead_s * 1e3,
                 s->speed_calibrated & SPEED_CAL_OVERHEAD ? "calibrated" : "--step-overhead");
    }
    if (s->speed_basis[0]) {
        char cal[MD_TEXT_SIZE(sizeof s->speed_basis)];
        label[n] = "Calibration";
        snprintf(value[n++], REPORT_LINE_MD, "speed from %s (kvplan calibrate)",
                 input_text(s->speed_basis, md, cal, sizeof cal));
    }
    return n;
}

/* The service-level inputs, as lines of the text Scenario or rows of the
 * Markdown Input table. */
static void print_service_inputs(FILE *out, const struct scenario *s, const struct plan_result *r,
                                 bool markdown)
{
    const char *label[SERVICE_INPUTS];
    char value[SERVICE_INPUTS][REPORT_LINE_MD];
    int n = service_inputs(s, r, markdown, label, value);
    for (int i = 0; i < n; i++) {
        if (markdown)
            fprintf(out, "| %s | %s |\n", label[i], value[i]);
        else
            fprintf(out, "  %-14s %s\n", label[i], value[i]);
    }
}

bool report_lora_text(const struct scenario *s, const struct plan_result *r, char *buf,
                      size_t size)
{
    if (r->lora.slots == 0)
        return false;
    char mods[128];
    lora_targets_format(r->lora.targets, mods, sizeof mods);
    snprintf(buf, size, "%u slot%s x rank %u, %s, on %s (%s%s)", r->lora.slots,
             r->lora.slots == 1 ? "" : "s", r->lora.rank, dtype_info(r->lora.dtype)->name, mods,
             engine_desc(s->engine.kind)->lora_flag,
             s->lora_targets ? ", --lora-target-modules"
             : s->model.experts ? "; the MoE experts carry none" : "");
    return true;
}

bool report_images_text(const struct plan_result *r, char *buf, size_t size)
{
    if (r->image_tokens == 0)
        return false;
    char per[32], all[32], with[32];
    units_format_int(r->tokens_per_image, per, sizeof per);
    units_format_int(r->image_tokens, all, sizeof all);
    units_format_int(r->context_tokens, with, sizeof with);
    snprintf(buf, size, "%u image%s x %s tokens = %s tokens per user, added to the context "
             "(%s in all)", r->images, r->images == 1 ? "" : "s", per, all, with);
    return true;
}

/* The Images input line; with --image-tokens on a model whose config gives no
 * tokens per image, a note that kvplan cannot tell whether it reads images. */
static bool images_input(const struct scenario *s, const struct plan_result *r, bool md,
                         char *buf, size_t size)
{
    if (!report_images_text(r, buf, size))
        return false;
    size_t n = strlen(buf);
    char name[MD_TEXT_SIZE(sizeof s->model.name)];
    if (s->model.image_tokens_per_image == 0 && n < size)
        snprintf(buf + n, size - n, "; %s's config gives no tokens per image: kvplan counts "
                 "--image-tokens as given and cannot tell whether the model reads images",
                 input_text(s->model.name, md, name, sizeof name));
    return true;
}

bool report_is_speed_row(const struct explain_row *row)
{
    return strncmp(row->key, "speed_", 6) == 0 || strcmp(row->key, "decode") == 0 ||
           strcmp(row->key, "ttft") == 0 || strcmp(row->key, "users_slo") == 0;
}

bool report_is_host_row(const struct explain_row *row)
{
    return strncmp(row->key, "host_", 5) == 0;
}

void report_host_input(const struct scenario *s, char *buf, size_t size)
{
    char a[32];
    units_format_bytes(s->host_kv_bytes, s->units, a, sizeof a);
    int n = snprintf(buf, size, "%s of host memory per GPU (--host-kv)", a);
    if (s->has_prefix_hit_rate && n > 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, "; %g of returning users found there "
                 "(--prefix-hit-rate)", s->prefix_hit_rate);
}

/* md: the family comes from a preset */
const char *report_band_suffix(const struct plan_result *r, const struct explain_row *row,
                               bool md, char *buf, size_t size)
{
    const struct speed_result *sp = &r->speed;
    const struct speed_band *b = NULL;
    if ((strcmp(row->key, "decode") == 0 ||
         (strcmp(row->key, "speed_total") == 0 && !sp->level_missed)) &&
        sp->tokens_per_s_per_user > 0)
        b = &r->bands.decode;
    else if (strcmp(row->key, "ttft") == 0 && sp->ttft_seconds > 0)
        b = &r->bands.ttft;
    buf[0] = '\0';
    if (b == NULL)
        return buf;
    char text[REPORT_LINE_MD];
    snprintf(buf, size, " (%s)", report_band_text(b, md, text, sizeof text));
    return buf;
}

const char *report_band_text(const struct speed_band *b, bool md, char *buf, size_t size)
{
    struct speed_band e = *b;
    char family[MD_TEXT_SIZE(SPEC_ID_MAX)];
    if (md && e.family) /* the family comes from a preset; the rest is kvplan's own */
        e.family = md_text(e.family, family, sizeof family);
    speedband_text(&e, buf, size);
    return buf;
}

static void row_text(FILE *out, const struct plan_result *r, const struct explain_row *row)
{
    char band[REPORT_LINE_MD];
    fprintf(out, "  %-19s %s\n", row->label, row->formula);
    fprintf(out, "  %-19s = %s%s%s%s\n", "", row->result.text, row->scope[0] ? " " : "",
            row->scope, report_band_suffix(r, row, false, band, sizeof band));
}

/* What the engine would print and run, and the generic rule beside it. */
static void report_engine(FILE *out, const struct scenario *s, const struct plan_result *r)
{
    const struct engine_detail *e = &r->engine;
    char a[96];
    fprintf(out, "\nEngine: %s\n", report_engine_title(s, r, a, sizeof a));
    units_format_bytes(e->gpu_total_bytes, s->units, a, sizeof a);
    char api[32];
    snprintf(api, sizeof api, "%s total", spec_gpu_api(&s->gpu));
    fprintf(out, "  %-19s %s per GPU (%s)\n", api, a,
            s->engine.gpu_total_bytes ? "given"
            : s->has_vram || s->gpu.unified_bytes ? scenario_gpu_memory_basis(s)
            : s->gpu.cuda_visible_bytes ? "observed"
                                        : "driver total - 460 MiB");
    fprintf(out, "  %-19s %s\n", "How it budgets", e->note);
    for (int i = 0; i < e->log_lines; i++)
        fprintf(out, "  %-19s %s\n", i == 0 ? "It would log" : "", e->log[i]);
    fprintf(out, "  %-19s %s\n", "Launch", e->launch);
    report_servers_text(out, r);
    if (r->generic.present) {
        units_format_int(r->generic.max_users, a, sizeof a);
        fprintf(out, "  %-19s %s user%s with %g%% headroom (for comparison only)\n",
                "Generic rule", a, r->generic.max_users == 1 ? "" : "s",
                r->generic.headroom_percent);
    }
}

void report_spec_text(const struct scenario *s, const struct plan_result *r, bool md, char *buf,
                      size_t size)
{
    char name[MD_TEXT_SIZE(sizeof s->draft.name)], id[MD_TEXT_SIZE(sizeof s->draft.id)];
    if (r->spec.method == SPEC_DRAFT)
        snprintf(buf, size, "draft %s (%s), %u speculative token%s per step",
                 input_text(s->draft.name, md, name, sizeof name),
                 input_text(s->draft.id, md, id, sizeof id), r->spec.tokens,
                 r->spec.tokens == 1 ? "" : "s");
    else
        snprintf(buf, size, "MTP, %u layer%s of %s, %u speculative token%s per step",
                 s->model.nextn_layers, s->model.nextn_layers == 1 ? "" : "s",
                 input_text(s->model.name, md, name, sizeof name), r->spec.tokens,
                 r->spec.tokens == 1 ? "" : "s");
}

/* The speed model times the model's own step: no draft passes, no acceptance. */
static const char spec_speed_note[] =
    "speed is the model's step alone: the draft's passes and the accepted tokens are not modelled";

/* The title line and the headline. */
static void report_text_title(FILE *out, const struct scenario *s, const struct plan_result *r,
                              const struct engine_desc *e)
{
    char a[96], line[512];
    char split[72];
    plan_layout_suffix(r, split, sizeof split);
    fprintf(out, "kvplan %s: %s on %u x %s%s%s%s\n\n", KVPLAN_VERSION, s->model.name, s->gpus,
            s->gpu.name, split, e->server ? ", " : "",
            e->server ? report_engine_title(s, r, a, sizeof a) : "");
    report_headline(s, r, line, sizeof line);
    fprintf(out, "  %s\n\n", line);
}

/* Why the default chose the layout it runs; false for one given or the only one. */
static bool layout_basis_text(const struct scenario *s, const struct plan_result *r, char *buf,
                              size_t size)
{
    if (r->layout_basis != LAYOUT_MOST_USERS)
        return false;
    bool mla = s->model.attention == ATTENTION_MLA;
    snprintf(buf, size, "the one serving the most users of the %u that run, TP in a node before "
                        "stages%s; --tp/--pp to pin",
             r->layouts_run, mla ? " (MLA's latent kept at TP, as engines deploy it; T offers "
                                   "stages)" : "");
    return true;
}

static void report_text_scenario(FILE *out, const struct scenario *s, const struct plan_result *r,
                                 const struct engine_desc *e, const char *layout)
{
    char a[64], b[64], c[64], line[REPORT_LINE_MD];
    enum unit_system u = s->units;
    fprintf(out, "Scenario\n");
    units_format_bytes(scenario_gpu_memory(s), u, a, sizeof a);
    fprintf(out, "  %-14s %u x %s, %s each (%s)\n", "GPU", s->gpus, s->gpu.name, a,
            scenario_gpu_memory_basis(s));
    fprintf(out, "  %-14s %s\n", "Layout", layout);
    if (layout_basis_text(s, r, line, sizeof line))
        fprintf(out, "  %-14s %s\n", "Layout basis", line);
    model_line(s, r, line, sizeof line);
    fprintf(out, "  %-14s %s\n", "Model", line);
    units_format_int(s->context_tokens, a, sizeof a);
    units_format_int(s->prefix_tokens, b, sizeof b);
    units_format_int(r->avg_context_tokens, c, sizeof c);
    fprintf(out, "  %-14s %s tokens per user; shared prefix %s; %s in use on average\n", "Context",
            a, b, c);
    if (images_input(s, r, false, line, sizeof line))
        fprintf(out, "  %-14s %s\n", "Images", line);
    fprintf(out, "  %-14s weights %s, KV cache %s (%s)\n", "Precision",
            plan_weights_label(r), dtype_info(r->kv_dtype)->name,
            dtype_info(r->kv_dtype)->description);
    if (!e->server)
        fprintf(out, "  %-14s %g %% of memory kept free\n", "Headroom", s->headroom_percent);
    else {
        const char *title = engine_version_title(r->profile, r->rule, a, sizeof a);
        fprintf(out, "  %-14s %s%s own rule (the headroom applies to the generic rule only)\n",
                "Budget", title, text_possessive(title));
    }
    if (calibration_memory_text(s, false, line, sizeof line))
        fprintf(out, "  %-14s %s\n", "Calibration", line);
    if (r->spec.method != SPEC_NONE) {
        report_spec_text(s, r, false, line, sizeof line);
        fprintf(out, "  %-14s %s\n", "Speculative", line);
    }
    if (report_lora_text(s, r, line, sizeof line))
        fprintf(out, "  %-14s %s\n", "LoRA", line);
    print_service_inputs(out, s, r, false);
    if (r->host.present) {
        report_host_input(s, line, sizeof line);
        fprintf(out, "  %-14s %s\n", "Host KV", line);
    }
    if (report_offload_input(s, r, line, sizeof line))
        fprintf(out, "  %-14s %s\n", "Host memory", line);
}

static void report_text_computed(FILE *out, const struct scenario *s, const struct plan_result *r,
                             const struct explain *x)
{
    int rows = x ? x->count : 0; /* NULL: no rows */
    fprintf(out, "\nHow it is computed\n");
    for (int i = 0; i < rows; i++)
        if (!report_is_speed_row(&x->rows[i]) && !report_is_host_row(&x->rows[i]))
            row_text(out, r, &x->rows[i]);
    char conc[32];
    units_format_int(r->speed.concurrency, conc, sizeof conc);
    fprintf(out, "\nSpeed (%s user%s decoding at once; MBU %.2f, MFU %.2f)\n", conc,
            r->speed.concurrency == 1 ? "" : "s", r->speed.mbu, r->speed.mfu);
    if (s->mbu <= 0 && s->gpu.achievable_mbu > 0)
        fprintf(out, "  MBU %.2f: %s\n", s->gpu.achievable_mbu, s->gpu.achievable_mbu_basis);
    if (s->speed_basis[0])
        fprintf(out, "  Calibrated: %s\n", s->speed_basis);
    if (r->spec.method != SPEC_NONE)
        fprintf(out, "  Speculative: %s\n", spec_speed_note);
    for (int i = 0; i < rows; i++)
        if (report_is_speed_row(&x->rows[i]))
            row_text(out, r, &x->rows[i]);
    if (r->host.present) {
        fprintf(out, "\nHost memory tier (caches parked in host memory, and bringing one back)\n");
        for (int i = 0; i < rows; i++)
            if (report_is_host_row(&x->rows[i]))
                row_text(out, r, &x->rows[i]);
    }
}

static void report_text_memory(FILE *out, const struct scenario *s, const struct plan_result *r,
                               const struct engine_desc *e)
{
    char a[64];
    enum unit_system u = s->units;
    uint64_t seg[SEG_COUNT], total = 0;
    plan_segments(r, seg);
    fprintf(out, "\nMemory of each GPU (%s%s%s%s)\n", units_name(u),
            e->server ? ", of the " : "", e->server ? spec_gpu_api(&s->gpu) : "",
            e->server ? " total" : "");
    for (int i = 0; i < SEG_COUNT; i++) {
        total += seg[i];
        if ((i == SEG_RUNTIME || i == SEG_DRAFT || i == SEG_STATE || i == SEG_LORA ||
             i == SEG_ENCODER) && seg[i] == 0)
            continue;
        units_format_bytes(seg[i], u, a, sizeof a);
        double pct = r->memory_bytes_per_gpu
                         ? 100.0 * (double)seg[i] / (double)r->memory_bytes_per_gpu
                         : 0;
        fprintf(out, "  %-16s %14s %6.1f %%\n", plan_segment_name(r, (enum segment)i), a, pct);
    }
    units_format_bytes(r->memory_bytes_per_gpu, u, a, sizeof a);
    fprintf(out, "  %-16s %14s\n", "total", a);
    if (total > r->memory_bytes_per_gpu) { /* the weights do not fit: the parts pass it */
        units_format_bytes(total - r->memory_bytes_per_gpu, u, a, sizeof a);
        fprintf(out, "  %-16s %14s\n", "over by", a);
    }
    (void)total;
}

void report_text_warnings(FILE *out, const struct plan_result *r)
{
    char line[512];
    uint32_t shown = plan_shown_warnings(r);
    if (shown) {
        fprintf(out, "\nWarnings\n");
        for (uint32_t bit = 1; bit <= WARN_LAST; bit <<= 1)
            if (shown & bit) {
                plan_warning_format(r, (enum plan_warning)bit, line, sizeof line);
                fprintf(out, "  ! %s\n", line);
            }
    }
}

void report_text(FILE *out, const struct scenario *s, const struct plan_result *r,
                 const struct explain *x)
{
    char layout[128];
    const struct engine_desc *e = engine_desc(r->profile);
    plan_layout_text(r, layout, sizeof layout);
    report_text_title(out, s, r, e);
    report_text_scenario(out, s, r, e, layout);
    report_text_computed(out, s, r, x);

    if (e->server)
        report_engine(out, s, r);

    report_text_memory(out, s, r, e);

    report_text_warnings(out, r);
}

void report_markdown(FILE *out, const struct scenario *s, const struct plan_result *r,
                     const struct explain *x)
{
    char a[128], line[REPORT_LINE_MD], model[MD_TEXT_SIZE(sizeof s->model.name)],
        gpu[MD_TEXT_SIZE(sizeof s->gpu.name)];
    enum unit_system u = s->units;
    md_text(s->model.name, model, sizeof model);
    md_text(s->gpu.name, gpu, sizeof gpu);
    const struct engine_desc *e = engine_desc(r->profile);
    char engine[96], split[72];
    plan_layout_suffix(r, split, sizeof split);
    /* the release asked for too ("SGLang 0.5 rule, for 0.5.6"), as the text title */
    fprintf(out, "### %s on %u x %s%s%s%s\n\n", model, s->gpus, gpu, split, e->server ? ", " : "",
            e->server ? engine_flags_title(&s->engine, engine, sizeof engine) : "");
    report_headline(s, r, line, sizeof line);
    fprintf(out, "**%s**\n\n", line);
    fprintf(out, "| Input | Value |\n|---|---|\n");
    units_format_bytes(scenario_gpu_memory(s), u, a, sizeof a);
    fprintf(out, "| GPU | %u x %s (%s each) |\n", s->gpus, gpu, a);
    plan_layout_text(r, a, sizeof a);
    fprintf(out, "| Layout | %s |\n", a);
    if (layout_basis_text(s, r, line, sizeof line))
        fprintf(out, "| Layout basis | %s |\n", line);
    fprintf(out, "| Model | %s |\n", model);
    units_format_int(s->context_tokens, a, sizeof a);
    fprintf(out, "| Context | %s tokens |\n", a);
    if (images_input(s, r, true, line, sizeof line))
        fprintf(out, "| Images | %s |\n", line);
    units_format_int(s->prefix_tokens, a, sizeof a);
    fprintf(out, "| Shared prefix | %s tokens |\n", a);
    units_format_int(r->avg_context_tokens, a, sizeof a);
    fprintf(out, "| Average in use | %s tokens |\n", a);
    fprintf(out, "| Weights | %s |\n| KV cache | %s |\n", plan_weights_label(r),
            dtype_info(r->kv_dtype)->name);
    if (!e->server)
        fprintf(out, "| Headroom | %g %% |\n", s->headroom_percent);
    else
        fprintf(out, "| Budget | %s%s rule |\n", engine, text_possessive(engine));
    if (calibration_memory_text(s, true, line, sizeof line))
        fprintf(out, "| Calibration | %s |\n", line);
    if (r->spec.method != SPEC_NONE) {
        report_spec_text(s, r, true, line, sizeof line);
        fprintf(out, "| Speculative | %s (%s) |\n", line, spec_speed_note);
    }
    if (report_lora_text(s, r, line, sizeof line))
        fprintf(out, "| LoRA | %s |\n", line);
    print_service_inputs(out, s, r, true);
    if (r->host.present) {
        report_host_input(s, line, sizeof line);
        fprintf(out, "| Host KV | %s |\n", line);
    }
    if (report_offload_input(s, r, line, sizeof line))
        fprintf(out, "| Host memory | %s |\n", line);
    fprintf(out, "\n");

    fprintf(out, "| Result | How | Value |\n|---|---|---|\n");
    for (int i = 0; x && i < x->count; i++) {
        /* a formula's notes quote the presets (a GPU's host link source) */
        const struct explain_row *row = &x->rows[i];
        char how[MD_TEXT_SIZE(sizeof row->formula)], band[REPORT_LINE_MD];
        fprintf(out, "| %s%s%s%s | %s | **%s**%s |\n", row->label, row->scope[0] ? " (" : "",
                row->scope, row->scope[0] ? ")" : "", md_text(row->formula, how, sizeof how),
                row->result.text, report_band_suffix(r, row, true, band, sizeof band));
    }
    if (e->server) {
        char launch[MD_CODE_SIZE(sizeof r->engine.launch)];
        fprintf(out, "\nLaunch: %s\n", md_code(r->engine.launch, launch, sizeof launch));
        report_servers_markdown(out, r);
        if (r->generic.present) {
            units_format_int(r->generic.max_users, a, sizeof a);
            fprintf(out, "\nThe generic rule (%g%% headroom) would give %s user%s; shown for "
                         "comparison only.\n",
                    r->generic.headroom_percent, a, r->generic.max_users == 1 ? "" : "s");
        }
    }
    uint32_t shown = plan_shown_warnings(r);
    int n = 0;
    for (uint32_t bit = 1; bit <= WARN_LAST; bit <<= 1)
        if (shown & bit) {
            plan_warning_format(r, (enum plan_warning)bit, line, sizeof line);
            fprintf(out, "%s- %s\n", n++ ? "" : "\nWarnings:\n\n", line);
        }
}

const char *report_speed_target(const struct scenario *s, char *buf, size_t size)
{
    if (s->min_tokens_per_s > 0 && s->max_ttft_seconds > 0)
        snprintf(buf, size, "%g tok/s each, the first token within %g s", s->min_tokens_per_s,
                 s->max_ttft_seconds);
    else if (s->min_tokens_per_s > 0)
        snprintf(buf, size, "%g tok/s each", s->min_tokens_per_s);
    else if (s->max_ttft_seconds > 0)
        snprintf(buf, size, "the first token within %g s", s->max_ttft_seconds);
    else
        snprintf(buf, size, "none");
    return buf;
}
