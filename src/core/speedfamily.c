#include "speedfamily.h"

#include <stddef.h>
#include <string.h>

#include "speed.h"

/* From tools/fit_speed_family.py (doc/SPEED-FIT.md): each family's terms
 * fitted on the DeepSeek-R1 cases of tests/data/speed-measurements.json it
 * fits on (InferenceX nightly rows of SGLang, TensorRT-LLM and ATOM in 2026),
 * every model weighing as one, over a grid; the last column, the hop of an
 * all-reduce, by tools/fit_allreduce.py on the family's dense cases
 * with its MBU (Hopper: TP 1, 2 and 8 fitted, TP 2, 4 and 8 held out).
 * The MoE term is a time per fine-grained MoE layer (DeepSeek's 58 of 61),
 * first fitted per layer of the 61 on a grid of 7.5 us: those times x 61/58.
 * Blackwell Ultra's expert MBU stays at its first fit, 0.8: on today's cases
 * the tool finds 0.75, with as many decode cases within 20% (153 of 174) and
 * the simulated first tokens of B300 further off (doc/LOAD-VALIDATION.md). */
static const struct speed_family_terms table[] = {
    {"Hopper", 1.0, 0.85, 31.5517e-6, 2.5e-6},
    {"Blackwell", 0.5, 0, 70.9914e-6, 0},
    {"Blackwell Ultra", 0.3, 0.8, 63.1034e-6, 0},
    {"CDNA 3", 0.25, 0.6, 126.207e-6, 0},
    {"CDNA 4", 1.0, 0.85, 94.6552e-6, 0},
};

static const struct speed_family_terms fallback = {"", 1.0, 0, SPEED_MOE_LAYER_OVERHEAD_S, 0};

const struct speed_family_terms *speed_family_terms(const char *family)
{
    for (size_t i = 0; family && i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].family, family) == 0)
            return &table[i];
    return &fallback;
}
