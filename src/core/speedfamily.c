#include "speedfamily.h"

#include <stddef.h>
#include <string.h>

#include "speed.h"

/* From tools/fit_speed_family.py (doc/SPEED-FIT.md): each family's terms
 * fitted on the DeepSeek-R1 cases of tests/data/speed-measurements.json it
 * fits on (InferenceX nightly rows of SGLang, TensorRT-LLM and ATOM in 2026),
 * every model weighing as one, over a grid; the last column, the hop of an
 * all-reduce, by tools/fit_allreduce.py on the family's dense cases
 * with its MBU (Hopper: TP 1, 2 and 8 fitted, TP 2, 4 and 8 held out). */
static const struct speed_family_terms table[] = {
    {"Hopper", 1.0, 0.85, 30e-6, 2.5e-6},
    {"Blackwell", 0.5, 0, 67.5e-6, 0},
    {"Blackwell Ultra", 0.3, 0.8, 60e-6, 0},
    {"CDNA 3", 0.25, 0.6, 120e-6, 0},
    {"CDNA 4", 1.0, 0.85, 90e-6, 0},
};

static const struct speed_family_terms fallback = {"", 1.0, 0, SPEED_MOE_LAYER_OVERHEAD_S, 0};

const struct speed_family_terms *speed_family_terms(const char *family)
{
    for (size_t i = 0; family && i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].family, family) == 0)
            return &table[i];
    return &fallback;
}
