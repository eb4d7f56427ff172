/* calibration: what a real engine's startup log says, and a saved
 * calibration that replaces kvplan's estimates with those measurements.
 *
 * enginelog_parse() reads pasted logs of vLLM (V0 and V1), SGLang,
 * llama.cpp, Ollama and TGI; it never fails on odd input, it reports what
 * it found and what it did not. A calibration file ("kvplan-calibration")
 * keeps the engine, the model and GPU it is of, and the memory (the
 * CUDA-visible total and the memory outside weights and KV, per GPU) a log
 * gave, or the speed (MBU, MFU, step overhead) a benchmark gave, or both;
 * benchlog.h reads the benchmarks. */
#ifndef KVPLAN_IO_CALIBRATION_H
#define KVPLAN_IO_CALIBRATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "core/plan.h"
#include "core/speedfit.h"

struct catalog;

enum log_engine { LOG_UNKNOWN, LOG_VLLM_V0, LOG_VLLM_V1, LOG_SGLANG, LOG_LLAMACPP, LOG_OLLAMA, LOG_TGI };

/* One figure found in the log, with the line it came from. */
struct log_figure {
    bool found;
    double value; /* bytes for sizes, plain numbers otherwise */
    int line;
};

enum log_field {
    LF_TOTAL_GPU_MEMORY, /* bytes, CUDA-visible total */
    LF_UTILIZATION,      /* vLLM gpu_memory_utilization */
    LF_WEIGHTS,          /* bytes per GPU */
    LF_NON_TORCH,        /* bytes */
    LF_ACTIVATION,       /* bytes, activation peak */
    LF_KV_MEMORY,        /* bytes of KV cache per GPU */
    LF_GPU_BLOCKS,
    LF_KV_TOKENS,
    LF_MAX_CONCURRENCY,
    LF_CONTEXT,          /* max_model_len / context_len / n_ctx per sequence */
    LF_K_SIZE,           /* bytes (SGLang K size, llama.cpp K) */
    LF_V_SIZE,
    LF_CELLS,            /* llama.cpp kv_size / cells */
    LF_LAYERS,
    LF_SEQS,             /* llama.cpp parallel sequences, Ollama --parallel */
    LF_MEM_FRACTION,     /* SGLang mem_fraction_static */
    LF_TP,
    LF_KV_NEEDED,        /* vLLM: KV needed for one max-length request, bytes */
    LF_PP,               /* the launch line's --pp / pipeline_parallel_size */
    LF_DP,               /* the launch line's --dp / data_parallel_size */
    LF_COUNT
};

struct engine_log {
    enum log_engine engine;
    struct log_figure f[LF_COUNT];
    char k_type[16], v_type[16]; /* llama.cpp cache types */
    /* what the log says it ran: the model (a Hugging Face id or path, or a
     * GGUF file name), the engine's version ("0.8.5") and the first
     * timestamp as written ("05-14 10:02:11": vLLM states no year) */
    char model[160], model_file[160], version[32], date[32];
    int lines;
    unsigned seen;               /* bit per log_engine family whose lines appeared */
};

/* The name of a recognised engine ("vLLM V1", "SGLang", ...). */
const char *enginelog_engine_name(enum log_engine e);

/* The name of a field, for reports ("KV cache memory"). */
const char *enginelog_field_name(enum log_field f);

/* Whether a field is a size in bytes (saved as a whole number of bytes). */
bool enginelog_field_is_bytes(enum log_field f);

/* Reads a log's text (any bytes; at most len). */
void enginelog_parse(const char *text, size_t len, struct engine_log *log);

/* The engine profile that matches a recognised log. */
enum engine_kind enginelog_profile(const struct engine_log *log, enum engine_rule *rule);

/* A calibration file ("kvplan-calibration"): format_version 1 holds memory
 * from a startup log, 2 may hold speed from a benchmark too (doc/FORMATS.md).
 * What one came from, for the checks made once the options given on top of
 * it are applied. */
struct calibration_source {
    bool memory, speed;     /* the parts it holds */
    char gpu_id[SPEC_ID_MAX], gpu_name[SPEC_NAME_MAX]; /* "" when it does not say */
    bool gpu_assumed; /* the GPU is the one calibrate assumed: its log or benchmark named none */
    char model[SPEC_ID_MAX];
    enum engine_kind engine;
    enum engine_rule rule;
    uint64_t kv_memory_bytes; /* the KV cache size it set, 0 = none */
    uint64_t gpu_total_bytes; /* the GPU total it set, 0 = none */
    double utilization, mem_fraction; /* the fractions its log ran at; 0 = not logged */
    char version[64];         /* the engine's release it ran; "" = not stated */
    uint32_t tp;              /* its tensor parallel; 0 = not stated */
    enum dtype weight;        /* its weights' precision (weight_known: the file says) */
    bool weight_known;
    uint32_t parallel;        /* llama.cpp / Ollama slots its log ran with; 0 = none */
    uint64_t log_cells;       /* llama.cpp / Ollama: the cells (n_ctx) its logged cache is of;
                               * kv_memory_bytes is then that cache's size, not a pool */
    uint64_t non_kv_bytes;    /* the non-KV memory it set, 0 = none */
    enum dtype cache_k, cache_v; /* llama.cpp / Ollama: the log's cache types; AUTO = unnamed */
    char log[160], log_engine[32]; /* the log it was made of, that log's engine; "" none */
    struct calibration_shape fit_shape[2]; /* the speed fit's points (core/scenario.h) */
};

/* Applies a calibration file to a scenario: the engine, the memory (the
 * CUDA-visible total and non-KV memory per GPU, or the KV cache's size) and
 * the speed (MBU, MFU and step overhead, with their basis). A memory
 * calibration of another model is refused; `src` says what the file is of. */
bool calibration_apply(const char *path, struct scenario *s, struct calibration_source *src,
                       struct diag *d);

/* The calibration a scenario's origin (core/scenario.h calibration_from)
 * keeps, for calibration_fraction_on_top once the scenario changes (the
 * planner: its logged cache follows the fraction and weights as the CLI's). */
void calibration_source_of(const struct calibration_origin *o, struct calibration_source *c);

/* A KV cache size measured at one memory fraction (--gpu-memory-utilization,
 * --mem-fraction-static, --free-gpu-memory-fraction), planned at another: it
 * moves by what that fraction changes in kvplan's own budget for the engine.
 * Measured on another GPU (`measured`, NULL when the catalogue lacks it), no
 * absolute bytes transfer: a cache size keeps only its difference from
 * kvplan's rule on that GPU, or is dropped when that leaves no pool or the
 * GPU is unknown; a logged total gives way to this GPU's, the non-KV memory
 * kept. note says what was done ("" when nothing moved). */
/* A scenario changed from `before` (another GPU, fraction, precision: the
 * planner's keys, a solve or sweep row's GPU): a logged KV cache and total
 * still the calibration's move again from the log's own, as
 * calibration_fraction_on_top moves them (the GPU the log was of looked up
 * in cat); anything given on top of them stays. */
void calibration_follow(const struct catalog *cat, const struct scenario *before,
                        struct scenario *s);

/* Whether a memory calibration's figures are of another GPU or tensor-parallel
 * split than s's: its absolute bytes do not carry, its difference from
 * kvplan's rule there does. */
bool calibration_other_layout(const struct calibration_source *c, const struct scenario *s);

bool calibration_fraction_on_top(const struct calibration_source *c,
                                 const struct gpu_spec *measured, struct scenario *s, char *note,
                                 size_t size, struct diag *d);

/* llama.cpp and Ollama: the logged cache (kv_memory_bytes at log_cells)
 * against kvplan's rule for the same cells, slots and the plan's cache
 * types, once the options are on top; a difference past the log's printed
 * rounding is said in note ("" when it matches or nothing was logged). */
bool calibration_slots_check(const struct calibration_source *c, const struct scenario *s,
                             char *note, size_t size, struct diag *d);

/* A log's own CUDA-visible total (bytes; 0: none logged) against the plan's
 * GPU preset's: false, with both named in note, when they differ by more
 * than 3% (the log ran on another card). */
bool calibration_total_check(uint64_t logged, const struct scenario *s, char *note, size_t size);

/* A memory calibration to save: the parsed log, the model it is of, the GPU
 * (--gpu's, or the default one assumed: gpu_assumed; NULL: none recorded),
 * and the figures calibrate worked out per GPU. */
struct memory_calibration {
    const struct engine_log *log;
    const char *log_path, *model_id;
    const struct gpu_spec *gpu;
    bool gpu_assumed;
    uint64_t non_kv_bytes, gpu_total_bytes;
    const struct scenario *s; /* the log's scenario (its TP, weights); NULL: none */
};

/* Writes a calibration file from a parsed log (atomically): refused without a
 * model id, or when the log has nothing calibration_apply could use. */
bool calibration_save(const char *path, const struct memory_calibration *m, struct diag *d);

/* A speed calibration to save: what was measured, where, and what the fit
 * came to (core/speedfit.h). from[] says which figure each fitted value
 * (MBU, MFU, step overhead) comes from; labels[] names each point's figure. */
struct speed_calibration {
    const char *benchmark, *output, *benchmark_path; /* "vllm bench serve", "--save-result JSON" */
    const char *const *benchmark_paths; /* every file fitted on (benchmark_path the first) */
    int benchmark_files;
    const char *model_id;
    const struct gpu_spec *gpu;
    bool gpu_assumed; /* no --gpu, and the benchmark names no GPU preset */
    enum engine_kind engine;
    enum engine_rule rule;
    const char *engine_version, *date, *benchmark_date; /* NULL: not known */
    uint32_t tp, pp;
    enum dtype weight; /* the weights' precision the fit ran at (AUTO: as released) */
    unsigned fixed; /* SPEED_CAL_ bits of the figures held as given */
    const struct fit_result *fit;
    const struct fit_point *points;
    const char *const *labels;
    int npoints;
    const char *from[3];
    struct calibration_band bands[2]; /* the fit's own band: decode, first token */
};

/* Writes a speed calibration (format_version 2), atomically. */
bool calibration_save_speed(const char *path, const struct speed_calibration *c, struct diag *d);

/* Writes root (taken, freed) to path atomically, a newline after it. */
bool calibration_write(const char *path, cJSON *root, struct diag *d);

/* Reads the "speed" object of a calibration into s (calibration_file.c). */
struct jsonread;
bool calibration_speed_read(const struct jsonread *r, const cJSON *speed, const char *gpu_name,
                            struct scenario *s, struct diag *d);

/* A fit's band (core/scenario.h, calibration_band) as a calibration file's
 * or snapshot's "band" object ({"decode": {...}, "first_token": {...}}), and
 * read back: absent or null, none (points 0); prefix names its fields in
 * messages ("speed.band."). */
cJSON *calibration_band_json(const struct calibration_band bands[2]);
bool calibration_band_read(const struct jsonread *r, const cJSON *band, const char *prefix,
                           struct calibration_band bands[2], struct diag *d);

#endif
