#include "options.h"

#include "core/engine_desc.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>


enum {
    OPT_GPU = 256,
    OPT_GPUS,
    OPT_MODEL,
    OPT_CONTEXT,
    OPT_KV_DTYPE,
    OPT_WEIGHT_DTYPE,
    OPT_KV_HEADS,
    OPT_PREFIX,
    OPT_HEADROOM,
    OPT_AVG,
    OPT_BLOCK,
    OPT_VRAM,
    OPT_WEIGHTS,
    OPT_PRICE,
    OPT_FULL_ATTENTION,
    OPT_UNITS,
    OPT_PRESETS,
    OPT_LOAD,
    OPT_SCENARIO,
    OPT_CONCURRENCY,
    OPT_PROMPT,
    OPT_MIN_TOK_S,
    OPT_MAX_TTFT,
    OPT_MBU,
    OPT_MFU,
    OPT_EXPORT,
    OPT_REQUIRE_USERS,
    OPT_FORMAT,
    OPT_DUMP,
    OPT_SIZE,
    OPT_KEYS,
    OPT_MONO,
    OPT_ASCII,
    OPT_DUMP_ATTRS,
    OPT_ENGINE,
    OPT_TP,
    OPT_UTIL,
    OPT_MAX_SEQS,
    OPT_MAX_BATCHED,
    OPT_MEM_FRACTION,
    OPT_CHUNKED,
    OPT_PARALLEL,
    OPT_FIT_TARGET,
    OPT_FREE_FRACTION,
    OPT_GPU_TOTAL,
    OPT_NON_KV,
    OPT_KV_MEMORY,
    OPT_KV_DTYPE_V,
    OPT_CALIBRATION,
    OPT_PP,
    OPT_DP_ATTENTION,
    OPT_EXPERT_PARALLEL,
    OPT_HOST_KV,
    OPT_HIT_RATE,
    OPT_MAX_LORAS,
    OPT_MAX_LORA_RANK,
    OPT_LORA_TARGETS,
    OPT_IMAGES,
    OPT_IMAGE_TOKENS,
};

static const struct option long_options[] = {
    {"gpu", required_argument, 0, OPT_GPU},
    {"gpus", required_argument, 0, OPT_GPUS},
    {"model", required_argument, 0, OPT_MODEL},
    {"context", required_argument, 0, OPT_CONTEXT},
    {"kv-dtype", required_argument, 0, OPT_KV_DTYPE},
    {"weight-dtype", required_argument, 0, OPT_WEIGHT_DTYPE},
    {"kv-heads", required_argument, 0, OPT_KV_HEADS},
    {"prefix", required_argument, 0, OPT_PREFIX},
    {"headroom", required_argument, 0, OPT_HEADROOM},
    {"avg-context", required_argument, 0, OPT_AVG},
    {"block-size", required_argument, 0, OPT_BLOCK},
    {"vram", required_argument, 0, OPT_VRAM},
    {"weights", required_argument, 0, OPT_WEIGHTS},
    {"price", required_argument, 0, OPT_PRICE},
    {"full-attention", no_argument, 0, OPT_FULL_ATTENTION},
    {"units", required_argument, 0, OPT_UNITS},
    {"presets", required_argument, 0, OPT_PRESETS},
    {"load", required_argument, 0, OPT_LOAD},
    {"scenario", required_argument, 0, OPT_SCENARIO},
    {"concurrency", required_argument, 0, OPT_CONCURRENCY},
    {"prompt", required_argument, 0, OPT_PROMPT},
    {"min-tok-s", required_argument, 0, OPT_MIN_TOK_S},
    {"max-ttft", required_argument, 0, OPT_MAX_TTFT},
    {"mbu", required_argument, 0, OPT_MBU},
    {"mfu", required_argument, 0, OPT_MFU},
    {"export", required_argument, 0, OPT_EXPORT},
    {"require-users", required_argument, 0, OPT_REQUIRE_USERS},
    {"format", required_argument, 0, OPT_FORMAT},
    {"dump-screen", required_argument, 0, OPT_DUMP},
    {"size", required_argument, 0, OPT_SIZE},
    {"keys", required_argument, 0, OPT_KEYS},
    {"mono", no_argument, 0, OPT_MONO},
    {"ascii", no_argument, 0, OPT_ASCII},
    {"dump-attrs", no_argument, 0, OPT_DUMP_ATTRS},
    {"engine", required_argument, 0, OPT_ENGINE},
    {"tp", required_argument, 0, OPT_TP},
    {"pp", required_argument, 0, OPT_PP},
    {"enable-dp-attention", no_argument, 0, OPT_DP_ATTENTION},
    {"enable-expert-parallel", no_argument, 0, OPT_EXPERT_PARALLEL},
    {"host-kv", required_argument, 0, OPT_HOST_KV},
    {"prefix-hit-rate", required_argument, 0, OPT_HIT_RATE},
    {"gpu-memory-utilization", required_argument, 0, OPT_UTIL},
    {"max-num-seqs", required_argument, 0, OPT_MAX_SEQS},
    {"max-running-requests", required_argument, 0, OPT_MAX_SEQS},
    {"max-num-batched-tokens", required_argument, 0, OPT_MAX_BATCHED},
    {"mem-fraction-static", required_argument, 0, OPT_MEM_FRACTION},
    {"chunked-prefill-size", required_argument, 0, OPT_CHUNKED},
    {"parallel", required_argument, 0, OPT_PARALLEL},
    {"fit-target", required_argument, 0, OPT_FIT_TARGET},
    {"free-gpu-memory-fraction", required_argument, 0, OPT_FREE_FRACTION},
    {"gpu-total", required_argument, 0, OPT_GPU_TOTAL},
    {"non-kv", required_argument, 0, OPT_NON_KV},
    {"kv-memory", required_argument, 0, OPT_KV_MEMORY},
    {"kv-dtype-v", required_argument, 0, OPT_KV_DTYPE_V},
    {"calibration", required_argument, 0, OPT_CALIBRATION},
    {"draft-model", required_argument, 0, OPT_DRAFT_MODEL},
    {"num-speculative-tokens", required_argument, 0, OPT_SPEC_TOKENS},
    {"speculative-method", required_argument, 0, OPT_SPEC_METHOD},
    {"max-loras", required_argument, 0, OPT_MAX_LORAS},
    {"max-loras-per-batch", required_argument, 0, OPT_MAX_LORAS},
    {"max-lora-rank", required_argument, 0, OPT_MAX_LORA_RANK},
    {"lora-target-modules", required_argument, 0, OPT_LORA_TARGETS},
    {"images", required_argument, 0, OPT_IMAGES},
    {"image-tokens", required_argument, 0, OPT_IMAGE_TOKENS},
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0},
};


static bool wrap(const char *opt, bool ok, const struct diag *inner, struct diag *d)
{
    if (!ok)
        return diag_fail(d, "%s: %s", opt, inner->message);
    return true;
}

bool options_parse_count(const char *opt, const char *arg, uint64_t min, uint64_t max,
                         uint64_t *out, struct diag *d)
{
    struct diag inner = {0};
    return wrap(opt, units_parse_count(arg, min, max, out, &inner), &inner, d);
}

bool options_exact_names(const char *cmd, int argc, char **argv, struct diag *d)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--", 2) != 0 || a[2] == '\0')
            continue;
        const char *eq = strchr(a, '=');
        size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        const struct option *hit = NULL, *near = NULL;
        int nears = 0;
        for (const struct option *p = long_options; p->name; p++) {
            if (strlen(p->name) == len && strncmp(p->name, a + 2, len) == 0)
                hit = p;
            else if (strncmp(p->name, a + 2, len) == 0)
                near = p, nears++;
        }
        if (hit == NULL) {
            if (nears >= 1)
                return diag_fail(d, "%s: '%.*s' is not an option (options are not abbreviated: "
                                 "--%s%s?)", cmd, (int)(len + 2 < 60 ? len + 2 : 60), a,
                                 near->name, nears > 1 ? " or another" : "");
            return diag_fail(d, "%s: '%.*s' is not an option", cmd,
                             (int)(len + 2 < 60 ? len + 2 : 60), a);
        }
        if (hit->has_arg == required_argument && eq == NULL)
            i++; /* its value */
    }
    return true;
}

bool options_parse(int argc, char **argv, struct options *o, bool *help, struct diag *d)
{
    memset(o, 0, sizeof *o);
    *help = false;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", long_options, NULL)) != -1) {
        struct diag in = {0};
        uint64_t n = 0;
        const char *a = optarg;
        switch (c) {
        case OPT_GPU:
            o->gpu_id = a;
            break;
        case OPT_MODEL:
            o->model_id = a;
            break;
        case OPT_GPUS:
            if (!options_parse_count("--gpus", a, 1, GPUS_MAX, &n, d))
                return false;
            o->gpus = (uint32_t)n;
            o->has_gpus = true;
            break;
        case OPT_KV_HEADS:
            if (!options_parse_count("--kv-heads", a, 1, 100000, &n, d))
                return false;
            o->kv_heads = (uint32_t)n;
            o->has_kv_heads = true;
            break;
        case OPT_CONTEXT:
            if (!wrap("--context", units_parse_tokens(a, false, &o->context, &in), &in, d))
                return false;
            o->has_context = true;
            break;
        case OPT_PREFIX:
            if (!wrap("--prefix", units_parse_tokens(a, true, &o->prefix, &in), &in, d))
                return false;
            o->has_prefix = true;
            break;
        case OPT_AVG:
            if (!wrap("--avg-context", units_parse_tokens(a, false, &o->avg, &in), &in, d))
                return false;
            o->has_avg = true;
            break;
        case OPT_BLOCK:
            if (!wrap("--block-size", units_parse_tokens(a, false, &o->block, &in), &in, d))
                return false;
            if (o->block > BLOCK_TOKENS_MAX)
                return diag_fail(d, "--block-size: '%s' is more than %d tokens", a,
                                 BLOCK_TOKENS_MAX);
            o->has_block = true;
            break;
        case OPT_HEADROOM:
            if (!wrap("--headroom", units_parse_number(a, 0.0, 99.999, &o->headroom, &in), &in,
                      d))
                return false;
            o->has_headroom = true;
            break;
        case OPT_KV_DTYPE:
        case OPT_WEIGHT_DTYPE: {
            enum dtype t;
            const char *name = c == OPT_KV_DTYPE ? "--kv-dtype" : "--weight-dtype";
            if (!dtype_parse(a, &t))
                return diag_fail(d, "%s: unknown precision '%s' (expected %s)", name, a,
                                 dtype_names());
            if (c == OPT_KV_DTYPE) {
                o->kv_dtype = t;
                o->has_kv_dtype = true;
            } else {
                o->weight_dtype = t;
                o->has_weight_dtype = true;
            }
            break;
        }
        case OPT_VRAM:
            if (!wrap("--vram", units_parse_size(a, &o->vram, &in), &in, d))
                return false;
            if (o->vram == 0)
                return diag_fail(d, "--vram: '%s' must be more than 0 bytes", a);
            o->has_vram = true;
            break;
        case OPT_WEIGHTS:
            if (!wrap("--weights", units_parse_size(a, &o->weights, &in), &in, d))
                return false;
            o->has_weights = true;
            break;
        case OPT_PRICE:
            if (!wrap("--price", units_parse_number(a, 0.0, 1e6, &o->price, &in), &in, d))
                return false;
            o->has_price = true;
            break;
        case OPT_CONCURRENCY:
            if (!options_parse_count("--concurrency", a, 1, 100000000, &o->concurrency, d))
                return false;
            break;
        case OPT_PROMPT:
            if (!wrap("--prompt", units_parse_tokens(a, false, &o->prompt, &in), &in, d))
                return false;
            break;
        case OPT_MIN_TOK_S:
            if (!wrap("--min-tok-s", units_parse_number(a, 0.001, 1e6, &o->min_tok_s, &in), &in, d))
                return false;
            break;
        case OPT_MAX_TTFT:
            if (!wrap("--max-ttft", units_parse_number(a, 0.001, 86400, &o->max_ttft, &in), &in, d))
                return false;
            break;
        case OPT_MBU:
        case OPT_MFU: {
            double f;
            const char *name = c == OPT_MBU ? "--mbu" : "--mfu";
            if (!wrap(name, units_parse_number(a, 0.01, 1.0, &f, &in), &in, d))
                return false;
            *(c == OPT_MBU ? &o->mbu : &o->mfu) = f;
            break;
        }
        case OPT_FULL_ATTENTION:
            o->full_attention = true;
            break;
        case OPT_UNITS:
            if (strcmp(a, "gib") == 0 || strcmp(a, "GiB") == 0)
                o->units = UNITS_GIB;
            else if (strcmp(a, "gb") == 0 || strcmp(a, "GB") == 0)
                o->units = UNITS_GB;
            else
                return diag_fail(d, "--units: '%s' is not gib or gb", a);
            o->has_units = true;
            break;
        case OPT_PRESETS:
            if (o->preset_dir_count >= OPTIONS_PRESET_DIRS_MAX)
                return diag_fail(d, "--presets: at most %d directories", OPTIONS_PRESET_DIRS_MAX);
            o->preset_dirs[o->preset_dir_count++] = a;
            break;
        case OPT_SCENARIO:
            o->scenario_label = a;
            break;
        case OPT_LOAD:
            o->load_path = a;
            break;
        case OPT_EXPORT:
            if (a[0] == '\0')
                return diag_fail(d, "--export: give a file name");
            o->export_path = a;
            break;
        case OPT_REQUIRE_USERS:
            if (!options_parse_count("--require-users", a, 0, (uint64_t)1 << 53, &n, d))
                return false;
            o->require_users = n;
            o->has_require_users = true;
            break;
        case OPT_FORMAT:
            if (strcmp(a, "text") == 0)
                o->format = FORMAT_TEXT;
            else if (strcmp(a, "json") == 0)
                o->format = FORMAT_JSON;
            else if (strcmp(a, "markdown") == 0 || strcmp(a, "md") == 0)
                o->format = FORMAT_MARKDOWN;
            else
                return diag_fail(d, "--format: '%s' is not text, json or markdown", a);
            break;
        case OPT_DUMP:
            o->dump_path = a;
            break;
        case OPT_SIZE: {
            int w = 0, h = 0;
            char extra;
            if (sscanf(a, "%dx%d%c", &w, &h, &extra) != 2 || w < 1 || h < 1 || w > 1000 ||
                h > 1000)
                return diag_fail(d, "--size: '%s' is not WIDTHxHEIGHT (1 to 1000 each)", a);
            o->dump_cols = w;
            o->dump_rows = h;
            break;
        }
        case OPT_KEYS:
            o->keys = a;
            break;
        case OPT_MONO:
            o->mono = true;
            break;
        case OPT_ASCII:
            o->ascii = true;
            break;
        case OPT_DUMP_ATTRS:
            o->dump_attrs = true;
            break;
        case OPT_ENGINE:
            if (!wrap("--engine", engine_parse(a, &o->engine, &o->engine_rule, &in), &in, d))
                return false;
            o->has_engine = true;
            break;
        case OPT_TP:
            if (!options_parse_count("--tp", a, 1, GPUS_MAX, &n, d))
                return false;
            o->tp = (uint32_t)n;
            o->has_tp = true;
            break;
        case OPT_PP:
            if (!options_parse_count("--pp", a, 1, GPUS_MAX, &n, d))
                return false;
            o->pp = (uint32_t)n;
            o->has_pp = true;
            break;
        case OPT_DP_ATTENTION:
            o->dp_attention = true;
            break;
        case OPT_EXPERT_PARALLEL:
            o->expert_parallel = true;
            break;
        case OPT_HOST_KV:
        case OPT_HIT_RATE:
            if (!options_host_arg(c == OPT_HOST_KV, a, o, d))
                return false;
            break;
        case OPT_MAX_LORAS:
            if (!options_parse_count("--max-loras", a, 0, LORA_SLOTS_MAX, &n, d))
                return false;
            o->max_loras = (uint32_t)n, o->has_max_loras = true;
            break;
        case OPT_MAX_LORA_RANK:
            if (!options_parse_count("--max-lora-rank", a, 1, LORA_RANK_MAX, &n, d))
                return false;
            o->max_lora_rank = (uint32_t)n;
            break;
        case OPT_IMAGES:
            if (!options_parse_count("--images", a, 0, 1000, &n, d))
                return false;
            o->images = (uint32_t)n, o->has_images = true;
            break;
        case OPT_IMAGE_TOKENS:
            if (!options_parse_count("--image-tokens", a, 1, 1000000, &n, d))
                return false;
            o->image_tokens = (uint32_t)n;
            break;
        case OPT_LORA_TARGETS:
            if (!wrap("--lora-target-modules", lora_targets_parse(a, &o->lora_targets, &in), &in, d))
                return false;
            break;
        case OPT_UTIL:
        case OPT_MEM_FRACTION:
        case OPT_FREE_FRACTION: {
            const char *name = c == OPT_UTIL           ? "--gpu-memory-utilization"
                               : c == OPT_MEM_FRACTION ? "--mem-fraction-static"
                                                       : "--free-gpu-memory-fraction";
            double x;
            if (!units_parse_number(a, 0.01, 1.0, &x, &in))
                return diag_fail(d, "%s: '%s' is not a fraction from 0.01 to 1", name, a);
            if (c == OPT_UTIL)
                o->flags.gpu_memory_utilization = x;
            else if (c == OPT_MEM_FRACTION)
                o->flags.mem_fraction_static = x;
            else
                o->flags.free_gpu_memory_fraction = x;
            break;
        }
        case OPT_MAX_SEQS:
            if (!options_parse_count("--max-num-seqs", a, 1, 1000000, &n, d))
                return false;
            o->flags.max_num_seqs = (uint32_t)n;
            break;
        case OPT_MAX_BATCHED:
        case OPT_CHUNKED:
            if (!wrap(c == OPT_CHUNKED ? "--chunked-prefill-size" : "--max-num-batched-tokens",
                      units_parse_tokens(a, false, &n, &in), &in, d))
                return false;
            if (c == OPT_CHUNKED)
                o->flags.chunked_prefill_size = n;
            else
                o->flags.max_num_batched_tokens = n;
            break;
        case OPT_PARALLEL:
            if (!options_parse_count("--parallel", a, 1,
                                     engine_option_max(offsetof(struct engine_flags, parallel)),
                                     &n, d))
                return false;
            o->flags.parallel = (uint32_t)n;
            break;
        case OPT_FIT_TARGET:
        case OPT_GPU_TOTAL:
        case OPT_NON_KV:
        case OPT_KV_MEMORY: {
            const char *name = c == OPT_FIT_TARGET  ? "--fit-target"
                               : c == OPT_GPU_TOTAL ? "--gpu-total"
                               : c == OPT_NON_KV    ? "--non-kv"
                                                    : "--kv-memory";
            if (!wrap(name, units_parse_size(a, &n, &in), &in, d))
                return false;
            if (n == 0 || n > ((uint64_t)1 << 44))
                return diag_fail(d, "%s: '%s' must be more than 0 B and at most 16 TiB", name, a);
            if (c == OPT_FIT_TARGET)
                o->flags.fit_target_bytes = n;
            else if (c == OPT_GPU_TOTAL)
                o->flags.gpu_total_bytes = n;
            else if (c == OPT_NON_KV)
                o->flags.non_kv_bytes = n;
            else
                o->flags.kv_memory_bytes = n;
            break;
        }
        case OPT_KV_DTYPE_V:
            if (!dtype_parse(a, &o->flags.v_dtype))
                return diag_fail(d, "--kv-dtype-v: unknown precision '%s' (expected %s)", a,
                                 dtype_names());
            break;
        case OPT_CALIBRATION:
            o->calibration_path = a;
            break;
        case 'h':
            *help = true;
            break;
        case ':':
            return diag_fail(d, "%s: needs a value", argv[optind - 1]);
        default:
            if (c >= OPT_SPEC_FIRST) {
                if (!options_spec_parse(c, a, o, d))
                    return false;
                break;
            }
            return diag_fail(d, "%s: unknown option (see --help)", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return diag_fail(d, "'%s': unexpected argument (see --help)", argv[optind]);
    /* these only shape a dump: alone they would be ignored without a word */
    const char *dump_only = o->dump_cols ? "--size"
                            : o->keys    ? "--keys"
                            : o->dump_attrs ? "--dump-attrs"
                                            : NULL;
    if (dump_only && !o->dump_path)
        return diag_fail(d, "%s: only with --dump-screen FILE (it shapes the dumped screen)",
                         dump_only);
    return true;
}
