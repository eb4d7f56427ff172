/* preset: GPU and model presets as JSON (format "kvplan-gpu" and
 * "kvplan-model", format_version 1), read and written with cJSON.
 *
 * The same object layouts appear inside scenario snapshots, so a snapshot
 * carries the full specs it was computed with. doc/FORMATS.md is the schema. */
#ifndef KVPLAN_IO_PRESET_H
#define KVPLAN_IO_PRESET_H

#include <cJSON.h>

#include "core/spec.h"
#include "io/jsonread.h"

enum preset_kind { PRESET_GPU, PRESET_MODEL };

#define PRESET_GPU_FORMAT "kvplan-gpu"
#define PRESET_MODEL_FORMAT "kvplan-model"
#define PRESET_FORMAT_VERSION 1

struct preset {
    enum preset_kind kind;
    struct gpu_spec gpu;
    struct model_spec model;
};

/* True for an id of lowercase ASCII letters, digits, '-', '.' and '_' that
 * fits SPEC_ID_MAX: ids name files and appear in commands, never a path. */
bool preset_id_valid(const char *id);

/* Parses one preset file's text; the kind comes from its "format" field.
 * Errors name path, line, column and field. */
bool preset_parse(const char *path, const char *text, size_t len, struct preset *out,
                  struct diag *d);

/* Reads a GPU / model object (no "format" check: also used in snapshots). */
bool preset_gpu_from_json(const struct jsonread *r, const cJSON *obj, struct gpu_spec *g,
                          struct diag *d);
bool preset_model_from_json(const struct jsonread *r, const cJSON *obj, struct model_spec *m,
                            struct diag *d);

/* Reads a dtype name ("bf16", "q8_0", "auto"); a missing optional field
 * leaves *out as it was. Errors name the field. */
bool preset_read_dtype(const struct jsonread *r, const cJSON *obj, const char *key, bool required,
                       enum dtype *out, struct diag *d);

/* Builds the JSON object of a spec (NULL on out of memory). with_format adds
 * "format" and "format_version" as a standalone preset file has them. */
cJSON *preset_gpu_to_json(const struct gpu_spec *g, bool with_format);
cJSON *preset_model_to_json(const struct model_spec *m, bool with_format);

/* True when two specs are the same as a preset or a snapshot holds them
 * (every field written, whatever the bytes past a string's end); false on
 * out of memory. */
bool preset_gpu_same(const struct gpu_spec *a, const struct gpu_spec *b);
bool preset_model_same(const struct model_spec *a, const struct model_spec *b);
/* A model's served_from record kept for the process, one copy of each; NULL
 * when out of memory. */
const struct model_served *preset_keep_served(const struct model_served *v);

#endif
