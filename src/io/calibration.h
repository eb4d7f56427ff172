/* calibration: what a real engine's startup log says, and a saved
 * calibration that replaces kvplan's estimates with those measurements.
 *
 * enginelog_parse() reads pasted logs of vLLM (V0 and V1), SGLang,
 * llama.cpp, Ollama and TGI; it never fails on odd input, it reports what
 * it found and what it did not. A calibration file ("kvplan-calibration",
 * format_version 1) keeps the engine, the CUDA-visible total and the memory
 * outside weights and KV, per GPU. */
#ifndef KVPLAN_IO_CALIBRATION_H
#define KVPLAN_IO_CALIBRATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/plan.h"

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
    LF_COUNT
};

struct engine_log {
    enum log_engine engine;
    struct log_figure f[LF_COUNT];
    char k_type[16], v_type[16]; /* llama.cpp cache types */
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

/* Applies a saved calibration file to a scenario: engine, CUDA-visible total
 * and non-KV memory per GPU. */
bool calibration_apply(const char *path, struct scenario *s, struct diag *d);

/* Writes a calibration file from a parsed log (atomically): refused without a
 * model id, or when the log has nothing calibration_apply could use. */
bool calibration_save(const char *path, const struct engine_log *log, const char *log_path,
                      const char *model_id, uint64_t non_kv_bytes, uint64_t gpu_total_bytes,
                      struct diag *d);

#endif
