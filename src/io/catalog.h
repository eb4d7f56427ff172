/* catalog: every GPU and model preset kvplan knows, by id.
 *
 * Built from the presets embedded in the binary, then the user's directory
 * ($XDG_CONFIG_HOME/kvplan/presets, default ~/.config/kvplan/presets), then
 * each --presets DIR; a later source adds presets or overrides by id. Within
 * one source an id may appear once. The catalogue owns its arrays. */
#ifndef KVPLAN_IO_CATALOG_H
#define KVPLAN_IO_CATALOG_H

#include <stddef.h>

#include "core/spec.h"
#include "io/preset.h"

/* CATALOG_MAX_ENTRIES: the names one preset directory may hold, counting
 * its subdirectories' (a source past it is refused, never half read). */
enum { CATALOG_PATH_MAX = 512, CATALOG_MAX_ENTRIES = 20000 };

struct catalog_gpu {
    struct gpu_spec spec;
    char path[CATALOG_PATH_MAX]; /* where it was read from */
};

struct catalog_model {
    struct model_spec spec;
    char path[CATALOG_PATH_MAX];
};

struct catalog {
    struct catalog_gpu *gpus;
    size_t gpu_count;
    struct catalog_model *models;
    size_t model_count;
};

void catalog_init(struct catalog *c);
void catalog_free(struct catalog *c);

/* Adds the presets embedded at build time. */
bool catalog_load_embedded(struct catalog *c, struct diag *d);

/* Adds every *.json below dir (recursively, in name order); the kind of
 * each file comes from its "format". A missing dir is an error only when
 * `required`; so is one holding more than CATALOG_MAX_ENTRIES names. */
bool catalog_load_dir(struct catalog *c, const char *dir, bool required, struct diag *d);

/* Embedded, then the user's directory, then each of dirs[0..n). */
bool catalog_load_all(struct catalog *c, const char *const *dirs, size_t n, struct diag *d);

/* The user's preset directory (XDG rule) into buf; false when HOME is unset too. */
bool catalog_user_dir(char *buf, size_t size);

const struct catalog_gpu *catalog_find_gpu(const struct catalog *c, const char *id);
const struct catalog_model *catalog_find_model(const struct catalog *c, const char *id);

/* Up to 3 closest ids ("h100-sxm, h100-pcie, h100-nvl") for an unknown one. */
void catalog_suggest(const struct catalog *c, enum preset_kind kind, const char *id, char *buf,
                     size_t size);

#endif
