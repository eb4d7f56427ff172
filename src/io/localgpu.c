#include "localgpu.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"

/* Lowercase words of letters and digits: "NVIDIA H100 80GB HBM3" -> nvidia h100 80gb hbm3 */
static int words(const char *s, char out[][32], int max)
{
    int n = 0;
    while (*s && n < max) {
        while (*s && !isalnum((unsigned char)*s))
            s++;
        int k = 0;
        while (*s && isalnum((unsigned char)*s)) {
            if (k < 31)
                out[n][k++] = (char)tolower((unsigned char)*s);
            s++;
        }
        if (k) {
            out[n][k] = '\0';
            n++;
        }
    }
    return n;
}

/* Reads "name, MiB" lines from a command; false when it cannot run. */
static bool query(const char *command, char *name, size_t size, unsigned long long *mib,
                  unsigned *count)
{
    FILE *f = popen(command, "r");
    if (f == NULL)
        return false;
    char line[256];
    *count = 0;
    while (fgets(line, sizeof line, f)) {
        char *comma = strrchr(line, ',');
        if (comma == NULL)
            continue;
        *comma = '\0';
        char *end;
        unsigned long long m = strtoull(comma + 1, &end, 10);
        if (m == 0)
            continue;
        if ((*count)++ == 0) {
            snprintf(name, size, "%s", line);
            *mib = m;
        }
    }
    return pclose(f) == 0 && *count > 0;
}

bool localgpu_detect(const struct catalog *c, struct gpu_spec *out, unsigned *count,
                     struct diag *d)
{
    char name[160] = "";
    unsigned long long mib = 0;
    const char *tool = "nvidia-smi";
    if (!query("nvidia-smi --query-gpu=name,memory.total --format=csv,noheader,nounits 2>/dev/null",
               name, sizeof name, &mib, count)) {
        tool = "rocm-smi";
        if (!query("rocm-smi --showproductname --showmeminfo vram --csv 2>/dev/null | "
                   "awk -F, 'NR>1 {print $2\",\"int($3/1048576)}'",
                   name, sizeof name, &mib, count))
            return diag_fail(d, "--gpu auto: no GPU found on this machine (nvidia-smi and "
                                "rocm-smi are absent or list none); name a preset instead");
    }
    char want[16][32];
    int nw = words(name, want, 16);
    int best = -1, best_score = 0;
    long long best_gap = 0;
    for (size_t i = 0; i < c->gpu_count; i++) {
        const struct gpu_spec *g = &c->gpus[i].spec;
        char have[24][32];
        char both[SPEC_NAME_MAX + SPEC_ID_MAX + 2];
        snprintf(both, sizeof both, "%s %s", g->name, g->id);
        int nh = words(both, have, 24), score = 0;
        for (int a = 0; a < nw; a++)
            for (int b = 0; b < nh; b++)
                if (strcmp(want[a], have[b]) == 0) {
                    score++;
                    break;
                }
        /* the driver names the PCIe and NVL cards so ("NVIDIA H100 PCIe"); the SXM
         * part is "NVIDIA H100 80GB HBM3": a form factor it does not name is not this card */
        for (int b = 0; b < nh; b++)
            if (strcmp(have[b], "pcie") == 0 || strcmp(have[b], "nvl") == 0) {
                bool named = false;
                for (int a = 0; a < nw; a++)
                    named = named || strcmp(want[a], have[b]) == 0;
                if (!named)
                    score = 0;
            }
        long long gap = llabs((long long)(g->memory_bytes >> 20) - (long long)mib);
        if (score > best_score || (score == best_score && score > 0 && gap < best_gap)) {
            best = (int)i;
            best_score = score;
            best_gap = gap;
        }
    }
    /* the vendor word alone is no match */
    if (best < 0 || best_score < 2)
        return diag_fail(d, "--gpu auto: %s reports '%s', which matches no preset (see kvplan list "
                            "gpus, or add one with --presets)", tool, name);
    *out = c->gpus[best].spec;
    out->memory_bytes = (uint64_t)mib << 20;
    /* the driver's name is another program's bytes: kept as text (no control
     * byte, UTF-8 only), cut at a whole character so the closing ')' stays */
    char head[64], shown[SPEC_NAME_MAX];
    int n = snprintf(head, sizeof head, "this machine (%s: %llu MiB, ", tool, mib);
    text_sanitize(name, shown, sizeof out->memory_basis - (size_t)n - 1);
    snprintf(out->memory_basis, sizeof out->memory_basis, "%s%s)", head, shown);
    return true;
}
