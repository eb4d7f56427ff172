#include "catalog.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "io/embedded.h"
#include "io/fileio.h"

/* One source's presets, collected before merging so duplicates within the
 * source are caught and a failing source changes nothing. */
struct batch {
    struct preset *items;
    char (*paths)[CATALOG_PATH_MAX];
    size_t count, cap;
};

void catalog_init(struct catalog *c)
{
    memset(c, 0, sizeof *c);
}

void catalog_free(struct catalog *c)
{
    free(c->gpus);
    free(c->models);
    memset(c, 0, sizeof *c);
}

static void batch_free(struct batch *b)
{
    free(b->items);
    free(b->paths);
    memset(b, 0, sizeof *b);
}

static bool batch_add(struct batch *b, const struct preset *p, const char *path, struct diag *d)
{
    for (size_t i = 0; i < b->count; i++) {
        if (b->items[i].kind != p->kind)
            continue;
        const char *a = p->kind == PRESET_GPU ? b->items[i].gpu.id : b->items[i].model.id;
        const char *n = p->kind == PRESET_GPU ? p->gpu.id : p->model.id;
        if (strcasecmp(a, n) == 0)
            return diag_fail(d, "%s: id: duplicate %s id '%s' (also in %s)", path,
                             p->kind == PRESET_GPU ? "GPU" : "model", n, b->paths[i]);
    }
    if (b->count == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        struct preset *items = realloc(b->items, cap * sizeof *items);
        if (items == NULL)
            return diag_fail(d, "out of memory");
        b->items = items;
        char(*paths)[CATALOG_PATH_MAX] = realloc(b->paths, cap * sizeof *paths);
        if (paths == NULL)
            return diag_fail(d, "out of memory");
        b->paths = paths;
        b->cap = cap;
    }
    b->items[b->count] = *p;
    snprintf(b->paths[b->count], CATALOG_PATH_MAX, "%s", path);
    b->count++;
    return true;
}

static bool merge(struct catalog *c, const struct batch *b, struct diag *d)
{
    for (size_t i = 0; i < b->count; i++) {
        const struct preset *p = &b->items[i];
        if (p->kind == PRESET_GPU) {
            struct catalog_gpu *slot = (struct catalog_gpu *)catalog_find_gpu(c, p->gpu.id);
            if (slot == NULL) {
                struct catalog_gpu *g = realloc(c->gpus, (c->gpu_count + 1) * sizeof *g);
                if (g == NULL)
                    return diag_fail(d, "out of memory");
                c->gpus = g;
                slot = &c->gpus[c->gpu_count++];
            }
            slot->spec = p->gpu;
            snprintf(slot->path, sizeof slot->path, "%s", b->paths[i]);
        } else {
            struct catalog_model *slot =
                (struct catalog_model *)catalog_find_model(c, p->model.id);
            if (slot == NULL) {
                struct catalog_model *m = realloc(c->models, (c->model_count + 1) * sizeof *m);
                if (m == NULL)
                    return diag_fail(d, "out of memory");
                c->models = m;
                slot = &c->models[c->model_count++];
            }
            slot->spec = p->model;
            snprintf(slot->path, sizeof slot->path, "%s", b->paths[i]);
        }
    }
    return true;
}

bool catalog_load_embedded(struct catalog *c, struct diag *d)
{
    /* parsed, validated and checked for duplicate ids when kvplan was built */
    struct batch b = {0};
    bool ok = true;
    for (unsigned long i = 0; ok && i < embedded_gpu_count; i++) {
        struct preset p = {.kind = PRESET_GPU, .gpu = embedded_gpus[i].spec};
        ok = batch_add(&b, &p, embedded_gpus[i].path, d);
    }
    for (unsigned long i = 0; ok && i < embedded_model_count; i++) {
        struct preset p = {.kind = PRESET_MODEL, .model = embedded_models[i].spec};
        ok = batch_add(&b, &p, embedded_models[i].path, d);
    }
    if (ok)
        ok = merge(c, &b, d);
    batch_free(&b);
    return ok;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The directories and files a scan has read, by device and inode: a
 * symlink back to a parent (`ln -s . p/l`) is visited once, not to the
 * ninth power, and never reports a duplicate id of itself (issue 9). */
struct visited {
    struct {
        dev_t dev;
        ino_t ino;
    } *seen;
    size_t count;
};

/* True when st was already visited; else records it. False on out of
 * memory too, with d set. */
static bool visit(struct visited *v, const struct stat *st, bool *again, struct diag *d)
{
    *again = false;
    for (size_t i = 0; i < v->count; i++)
        if (v->seen[i].dev == st->st_dev && v->seen[i].ino == st->st_ino) {
            *again = true;
            return true;
        }
    void *bigger = realloc(v->seen, (v->count + 1) * sizeof *v->seen);
    if (bigger == NULL)
        return diag_fail(d, "out of memory");
    v->seen = bigger;
    v->seen[v->count].dev = st->st_dev;
    v->seen[v->count].ino = st->st_ino;
    v->count++;
    return true;
}

static bool scan(struct batch *b, struct visited *v, const char *dir, int depth, struct diag *d)
{
    struct stat self;
    bool again = false;
    if (depth > 8)
        return true;
    if (stat(dir, &self) != 0)
        return diag_fail(d, "%s: cannot open directory: %s", dir, strerror(errno));
    if (!visit(v, &self, &again, d))
        return false;
    if (again)
        return true;
    DIR *dp = opendir(dir);
    if (dp == NULL)
        return diag_fail(d, "%s: cannot open directory: %s", dir, strerror(errno));
    char **names = NULL;
    size_t count = 0;
    struct dirent *e;
    bool ok = true;
    while ((e = readdir(dp)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char **bigger = realloc(names, (count + 1) * sizeof *names);
        if (bigger == NULL) {
            ok = diag_fail(d, "out of memory");
            break;
        }
        names = bigger;
        names[count] = strdup(e->d_name);
        if (names[count] == NULL) {
            ok = diag_fail(d, "out of memory");
            break;
        }
        count++;
    }
    closedir(dp);
    if (count > 1)
        qsort(names, count, sizeof *names, compare_names);
    for (size_t i = 0; ok && i < count; i++) {
        char path[CATALOG_PATH_MAX];
        int n = snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (n < 0 || (size_t)n >= sizeof path) {
            ok = diag_fail(d, "%s/%s: path too long", dir, names[i]);
            break;
        }
        struct stat st;
        if (stat(path, &st) != 0)
            continue; /* dangling link: nothing to read */
        if (S_ISDIR(st.st_mode)) {
            ok = scan(b, v, path, depth + 1, d);
        } else if (has_suffix(names[i], ".json")) {
            ok = visit(v, &st, &again, d);
            if (!ok || again)
                continue; /* the same file by another name: read once */
            size_t len = 0;
            char *text = fileio_read(path, &len, d);
            struct preset p;
            ok = text != NULL && preset_parse(path, text, len, &p, d) && batch_add(b, &p, path, d);
            free(text);
        }
    }
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
    return ok;
}

bool catalog_load_dir(struct catalog *c, const char *dir, bool required, struct diag *d)
{
    if (!fileio_is_dir(dir)) {
        struct stat st;
        if (!required && stat(dir, &st) != 0)
            return true;
        return diag_fail(d, "%s: not a directory of presets", dir);
    }
    struct batch b = {0};
    struct visited v = {0};
    bool ok = scan(&b, &v, dir, 0, d) && merge(c, &b, d);
    free(v.seen);
    batch_free(&b);
    return ok;
}

bool catalog_user_dir(char *buf, size_t size)
{
    const char *xdg = getenv("XDG_CONFIG_HOME");
    if (xdg && xdg[0] == '/') {
        snprintf(buf, size, "%s/kvplan/presets", xdg);
        return true;
    }
    const char *home = getenv("HOME");
    if (home && home[0]) {
        snprintf(buf, size, "%s/.config/kvplan/presets", home);
        return true;
    }
    return false;
}

bool catalog_load_all(struct catalog *c, const char *const *dirs, size_t n, struct diag *d)
{
    if (!catalog_load_embedded(c, d))
        return false;
    char user[CATALOG_PATH_MAX];
    if (catalog_user_dir(user, sizeof user) && !catalog_load_dir(c, user, false, d))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!catalog_load_dir(c, dirs[i], true, d))
            return false;
    return true;
}

const struct catalog_gpu *catalog_find_gpu(const struct catalog *c, const char *id)
{
    for (size_t i = 0; i < c->gpu_count; i++)
        if (strcasecmp(c->gpus[i].spec.id, id) == 0) /* ids ignore case everywhere */
            return &c->gpus[i];
    return NULL;
}

const struct catalog_model *catalog_find_model(const struct catalog *c, const char *id)
{
    for (size_t i = 0; i < c->model_count; i++)
        if (strcasecmp(c->models[i].spec.id, id) == 0)
            return &c->models[i];
    return NULL;
}

static size_t edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 63 || m > 63)
        return 64;
    size_t prev[64], cur[64];
    for (size_t j = 0; j <= m; j++)
        prev[j] = j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = prev[j - 1] + cost;
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            cur[j] = best;
        }
        memcpy(prev, cur, sizeof prev);
    }
    return prev[m];
}

void catalog_suggest(const struct catalog *c, enum preset_kind kind, const char *id, char *buf,
                     size_t size)
{
    size_t count = kind == PRESET_GPU ? c->gpu_count : c->model_count;
    const char *best[3] = {0};
    size_t score[3] = {SIZE_MAX, SIZE_MAX, SIZE_MAX};
    for (size_t i = 0; i < count; i++) {
        const char *cand = kind == PRESET_GPU ? c->gpus[i].spec.id : c->models[i].spec.id;
        size_t s = edit_distance(id, cand);
        if (id[0] && strstr(cand, id) != NULL)
            s = s / 4; /* a fragment like "h100" should find every H100 */
        for (int k = 0; k < 3; k++) {
            if (s < score[k]) {
                for (int j = 2; j > k; j--) {
                    score[j] = score[j - 1];
                    best[j] = best[j - 1];
                }
                score[k] = s;
                best[k] = cand;
                break;
            }
        }
    }
    buf[0] = '\0';
    size_t used = 0;
    for (int k = 0; k < 3 && best[k]; k++) {
        int n = snprintf(buf + used, size - used, "%s%s", k ? ", " : "", best[k]);
        if (n < 0 || (size_t)n >= size - used)
            break;
        used += (size_t)n;
    }
}
