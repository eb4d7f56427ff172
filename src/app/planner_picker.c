/* planner_picker: the GPU and model picker's entries, matched by a fuzzy
 * filter and sorted by the users each gives (planner.h). */
#include "planner.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Lowercase letters and digits only: "H100 SXM", "h100-sxm" -> "h100sxm". */
static void fold(const char *in, char *out, size_t size)
{
    size_t n = 0;
    for (; *in && n + 1 < size; in++)
        if (isalnum((unsigned char)*in))
            out[n++] = (char)tolower((unsigned char)*in);
    out[n] = '\0';
}

/* Every term of the filter, in any order, inside the id or the name. */
static bool fuzzy_match(const char *id, const char *name, const char *filter)
{
    char hay[SPEC_ID_MAX + SPEC_NAME_MAX + 2], a[SPEC_ID_MAX], b[SPEC_NAME_MAX];
    fold(id, a, sizeof a);
    fold(name, b, sizeof b);
    snprintf(hay, sizeof hay, "%s %s", a, b);
    char terms[64];
    snprintf(terms, sizeof terms, "%s", filter);
    for (char *save = NULL, *t = strtok_r(terms, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        char f[64];
        fold(t, f, sizeof f);
        if (f[0] && strstr(hay, f) == NULL)
            return false;
    }
    return true;
}

uint64_t planner_picker_users(const struct planner *p, int index, bool *fits)
{
    struct scenario s = *planner_scenario(p);
    if (p->picker.of == CTRL_GPU) {
        s.gpu = p->catalog->gpus[index].spec;
        s.has_vram = false;
        s.wired_limit_mb = 0; /* the limit was the other Mac's */
    } else {
        s.model = p->catalog->models[index].spec;
        s.kv_heads = 0;
    }
    struct plan_result r;
    struct diag d = {0};
    if (!plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d)) {
        *fits = false;
        return 0;
    }
    *fits = r.fits;
    /* with a service level, the users that keep it (the number the headline leads with) */
    return r.speed.users_at_service_level;
}

static const struct planner *sorting;
static int by_users(const void *a, const void *b)
{
    bool fa, fb;
    uint64_t ua = planner_picker_users(sorting, *(const int *)a, &fa);
    uint64_t ub = planner_picker_users(sorting, *(const int *)b, &fb);
    if (ua != ub)
        return ua > ub ? -1 : 1;
    return *(const int *)a - *(const int *)b;
}

int planner_picker_matches(const struct planner *p, int *out, int max)
{
    bool gpu = p->picker.of == CTRL_GPU;
    size_t n = gpu ? p->catalog->gpu_count : p->catalog->model_count;
    int k = 0;
    for (size_t i = 0; i < n && k < max; i++) {
        const char *id = gpu ? p->catalog->gpus[i].spec.id : p->catalog->models[i].spec.id;
        const char *name = gpu ? p->catalog->gpus[i].spec.name : p->catalog->models[i].spec.name;
        if (fuzzy_match(id, name, p->picker.filter))
            out[k++] = (int)i;
    }
    if (p->picker.by_users && k > 1) {
        sorting = p;
        qsort(out, (size_t)k, sizeof *out, by_users);
    } else {
        /* an id typed whole comes first: "deepseek-v3" picks DeepSeek-V3, not V3.2 */
        for (int j = 1; j < k; j++) {
            const char *id = gpu ? p->catalog->gpus[out[j]].spec.id
                                 : p->catalog->models[out[j]].spec.id;
            if (strcasecmp(id, p->picker.filter) == 0) {
                int exact = out[j];
                memmove(out + 1, out, (size_t)j * sizeof *out);
                out[0] = exact;
                break;
            }
        }
    }
    return k;
}
