/* The weights beside a config.json: the index's total, or the headers' sum. */
#include "hfweights.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cJSON.h>

#include "io/fileio.h"
#include "io/jsonread.h"

enum { DIR_MAX = 4096 };

static bool regular(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The files of weight_map in dir: none of them (the index alone, as one
 * downloads it with config.json to plan, hf-mem's way: its total_size
 * stands), or every one; some of them only is an incomplete download, the
 * folder describing weights it does not hold. */
static bool index_files(const char *path, const char *dir, const cJSON *root, struct diag *d)
{
    const cJSON *map = cJSON_GetObjectItemCaseSensitive(root, "weight_map");
    if (map == NULL)
        return true;
    if (!cJSON_IsObject(map))
        return diag_fail(d, "%s: weight_map: not an object (tensor names to file names)", path);
    const cJSON *e, *missing = NULL;
    bool present = false;
    cJSON_ArrayForEach(e, map) {
        const char *f = cJSON_GetStringValue(e);
        if (f == NULL || f[0] == '\0' || strchr(f, '/') != NULL || strlen(f) > 255)
            return diag_fail(d, "%s: weight_map: '%s' is not a file name", path,
                             e->string ? e->string : "");
        if (e->prev != NULL && e != map->child) {
            const char *before = cJSON_GetStringValue(e->prev);
            if (before != NULL && strcmp(before, f) == 0)
                continue; /* the same file as the tensor before: already looked at */
        }
        char file[DIR_MAX + 260];
        snprintf(file, sizeof file, "%s/%s", dir, f);
        if (regular(file))
            present = true;
        else if (missing == NULL)
            missing = e;
        if (present && missing != NULL)
            return diag_fail(d, "%s: weight_map: tensor '%s' is in %s, which is not in %s "
                                "(an incomplete download?)",
                             path, missing->string ? missing->string : "",
                             cJSON_GetStringValue(missing), dir);
    }
    return true;
}

/* metadata.total_size of the index, the bytes of every tensor it maps.
 * Parsed by cJSON alone: a large model's weight_map has more entries than
 * jsonread_parse allows a config (the fields are still located by jsonread). */
static bool index_total(const char *path, const char *dir, uint64_t *out, struct diag *d)
{
    size_t len = 0;
    char *text = fileio_read(path, &len, d);
    if (text == NULL)
        return false;
    cJSON *root = cJSON_ParseWithLength(text, len);
    struct jsonread r = {path, text, len, 0, ""};
    bool ok = cJSON_IsObject(root) || diag_fail(d, "%s: not a JSON object", path);
    const cJSON *meta = ok ? cJSON_GetObjectItemCaseSensitive(root, "metadata") : NULL;
    if (ok && !cJSON_IsObject(meta))
        ok = jsonread_fail(&r, d, "metadata: missing (an object holding total_size)");
    if (ok) {
        struct jsonread mr = jsonread_child(&r, "metadata", "metadata.");
        ok = jsonread_u64(&mr, meta, "total_size", true, 1, (uint64_t)1 << 53, out, d);
    }
    ok = ok && index_files(path, dir, root, d);
    cJSON_Delete(root);
    free(text);
    return ok;
}

static int by_string(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A shard's name, PREFIX-NNNNN-of-MMMMM.safetensors: the prefix's length,
 * the digits' width and the count M; false for a name not so made. */
static bool shard_name(const char *name, size_t *prefix, size_t *width, unsigned long *count)
{
    const char *of = strstr(name, "-of-");
    if (of == NULL)
        return false;
    const char *dash = of;
    while (dash > name && dash[-1] >= '0' && dash[-1] <= '9')
        dash--;
    size_t w = (size_t)(of - dash);
    if (dash == name || dash[-1] != '-' || w == 0 || w > 9 || strlen(of + 4) != w + 12 ||
        strspn(of + 4, "0123456789") != w || strcmp(of + 4 + w, ".safetensors") != 0)
        return false;
    *prefix = (size_t)(dash - 1 - name);
    *width = w;
    *count = strtoul(of + 4, NULL, 10);
    return *count > 0;
}

/* Every shard of each PREFIX-*-of-M set the folder holds one of: a missing
 * one would leave its tensors out of the sum. */
static bool shards_complete(const char *dir, char *const *names, size_t n, struct diag *d)
{
    for (size_t i = 0; i < n; i++) {
        size_t p, w, pp, pw;
        unsigned long m, pm;
        if (!shard_name(names[i], &p, &w, &m))
            continue;
        if (i > 0 && shard_name(names[i - 1], &pp, &pw, &pm) && pp == p && pw == w &&
            pm == m && strncmp(names[i - 1], names[i], p) == 0)
            continue; /* the set was looked at with its first file */
        for (unsigned long k = 1; k <= m; k++) {
            char file[DIR_MAX + 300];
            snprintf(file, sizeof file, "%s/%.*s-%0*lu-of-%0*lu.safetensors", dir, (int)p,
                     names[i], (int)w, k, (int)w, m);
            if (!regular(file))
                return diag_fail(d, "%s: %.*s-%0*lu-of-%0*lu.safetensors is missing (%s is one "
                                    "of %lu shards): an incomplete download?",
                                 dir, (int)p, names[i], (int)w, k, (int)w, m, names[i], m);
        }
    }
    return true;
}

/* The *.safetensors files of dir, in name order, their headers summed. */
static bool headers(const char *dir, struct st_sum *sum, struct diag *d)
{
    DIR *dp = opendir(dir);
    if (dp == NULL)
        return true; /* no folder to look in: nothing found */
    char **names = NULL;
    size_t n = 0, cap = 0;
    bool ok = true;
    struct dirent *e;
    while (ok && (e = readdir(dp)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l <= 12 || e->d_name[0] == '.' || strcmp(e->d_name + l - 12, ".safetensors") != 0)
            continue;
        if (n == cap) {
            char **more = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof *names);
            ok = more != NULL || diag_fail(d, "%s: out of memory", dir);
            names = more ? more : names;
        }
        if (ok && (names[n] = strdup(e->d_name)) == NULL)
            ok = diag_fail(d, "%s: out of memory", dir);
        n += ok;
    }
    closedir(dp);
    if (n)
        qsort(names, n, sizeof *names, by_string);
    ok = ok && shards_complete(dir, names, n, d);
    for (size_t i = 0; ok && i < n; i++) {
        char path[DIR_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        ok = safetensors_file(path, sum, d);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return ok;
}

bool hfweights_read(const char *config_path, struct hf_weights *w, struct diag *d)
{
    memset(w, 0, sizeof *w);
    char dir[DIR_MAX];
    if (strlen(config_path) >= sizeof dir - 64)
        return true; /* a path this long holds nothing kvplan looks beside */
    snprintf(dir, sizeof dir, "%s", config_path);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        dir[1] = '\0';
    else if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    char index[DIR_MAX];
    snprintf(index, sizeof index, "%s/model.safetensors.index.json", dir);
    if (regular(index)) {
        w->found = w->from_index = true;
        return index_total(index, dir, &w->bytes, d);
    }
    if (!headers(dir, &w->sum, d))
        return false;
    if (w->sum.bytes > ((uint64_t)1 << 53))
        return diag_fail(d, "%s: the safetensors files hold %llu bytes, more than a preset "
                            "holds (2^53)",
                         dir, (unsigned long long)w->sum.bytes);
    w->found = w->sum.files > 0 && w->sum.bytes > 0;
    w->bytes = w->sum.bytes;
    return true;
}
