#include "catalog.h"

#include <ctype.h>
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

/* A hash set of item numbers, each found by its hash and confirmed by the
 * caller's test: the duplicate checks of a load stay linear in its files. */
struct index {
    struct index_slot {
        uint64_t hash;
        size_t item; /* the item + 1; 0 is an empty slot */
    } *slots;
    size_t cap, count; /* cap a power of two, at most half full */
};

typedef bool (*index_same)(const void *key, size_t item);

static void index_free(struct index *x)
{
    free(x->slots);
    memset(x, 0, sizeof *x);
}

/* The slot of hash h holding an item same() accepts, or the empty slot
 * where such an item goes. */
static struct index_slot *index_slot(const struct index *x, uint64_t h, index_same same,
                                     const void *key)
{
    for (size_t i = (size_t)h & (x->cap - 1);; i = (i + 1) & (x->cap - 1)) {
        struct index_slot *s = &x->slots[i];
        if (s->item == 0 || (s->hash == h && same(key, s->item - 1)))
            return s;
    }
}

/* Room for n more items, doubling (and rehashing) past half full. */
static bool index_reserve(struct index *x, size_t n, struct diag *d)
{
    if ((x->count + n) * 2 <= x->cap)
        return true;
    size_t cap = x->cap ? x->cap * 2 : 64;
    while (cap < (x->count + n) * 2)
        cap *= 2;
    struct index_slot *slots = calloc(cap, sizeof *slots);
    if (slots == NULL)
        return diag_fail(d, "out of memory");
    for (size_t i = 0; i < x->cap; i++) {
        const struct index_slot *s = &x->slots[i];
        if (s->item == 0)
            continue;
        size_t j = (size_t)s->hash & (cap - 1);
        while (slots[j].item != 0)
            j = (j + 1) & (cap - 1);
        slots[j] = *s;
    }
    free(x->slots);
    x->slots = slots;
    x->cap = cap;
    return true;
}

/* Fills the empty slot s (from index_slot) with item. */
static void index_put(struct index *x, struct index_slot *s, uint64_t h, size_t item)
{
    s->hash = h;
    s->item = item + 1;
    x->count++;
}

/* FNV-1a of the id folded to lowercase (ids ignore case), and the kind. */
static uint64_t id_hash(enum preset_kind kind, const char *id)
{
    uint64_t h = 14695981039346656037u ^ (uint64_t)kind;
    for (const unsigned char *p = (const unsigned char *)id; *p; p++)
        h = (h ^ (uint64_t)tolower(*p)) * 1099511628211u;
    return h;
}

static const char *preset_id(const struct preset *p)
{
    return p->kind == PRESET_GPU ? p->gpu.id : p->model.id;
}

/* One source's presets, collected before merging so duplicates within the
 * source are caught and a failing source changes nothing. */
struct batch {
    struct preset *items;
    char (*paths)[CATALOG_PATH_MAX];
    size_t count, cap;
    struct index ids;
};

/* An id looked up in a batch (item: a preset of it) or a catalogue (item: a
 * GPU or a model, by kind). */
struct id_key {
    const struct batch *b;
    const struct catalog *c;
    enum preset_kind kind;
    const char *id;
};

static bool same_batch_id(const void *key, size_t item)
{
    const struct id_key *k = key;
    const struct preset *p = &k->b->items[item];
    return p->kind == k->kind && strcasecmp(preset_id(p), k->id) == 0;
}

static bool same_catalog_id(const void *key, size_t item)
{
    const struct id_key *k = key;
    const char *id = k->kind == PRESET_GPU ? k->c->gpus[item].spec.id : k->c->models[item].spec.id;
    return strcasecmp(id, k->id) == 0;
}

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
    index_free(&b->ids);
    memset(b, 0, sizeof *b);
}

static bool batch_add(struct batch *b, const struct preset *p, const char *path, struct diag *d)
{
    if (!index_reserve(&b->ids, 1, d))
        return false;
    struct id_key key = {.b = b, .kind = p->kind, .id = preset_id(p)};
    uint64_t h = id_hash(p->kind, key.id);
    struct index_slot *slot = index_slot(&b->ids, h, same_batch_id, &key);
    if (slot->item != 0)
        return diag_fail(d, "%s: id: duplicate %s id '%s' (also in %s)", path,
                         p->kind == PRESET_GPU ? "GPU" : "model", key.id,
                         b->paths[slot->item - 1]);
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
    index_put(&b->ids, slot, h, b->count);
    b->items[b->count] = *p;
    snprintf(b->paths[b->count], CATALOG_PATH_MAX, "%s", path);
    b->count++;
    return true;
}

/* Indexes the catalogue's ids of one kind. */
static bool index_catalog(struct index *x, const struct catalog *c, enum preset_kind kind,
                          struct diag *d)
{
    size_t n = kind == PRESET_GPU ? c->gpu_count : c->model_count;
    if (!index_reserve(x, n + 1, d)) /* + 1: never empty, so lookups need no case */
        return false;
    for (size_t i = 0; i < n; i++) {
        struct id_key key = {.c = c, .kind = kind};
        key.id = kind == PRESET_GPU ? c->gpus[i].spec.id : c->models[i].spec.id;
        uint64_t h = id_hash(kind, key.id);
        index_put(x, index_slot(x, h, same_catalog_id, &key), h, i);
    }
    return true;
}

/* The catalogue's slot of p's id, or NULL (with *slot where it goes). */
static struct index_slot *find_slot(const struct index *x, const struct catalog *c,
                                    const struct preset *p)
{
    struct id_key key = {.c = c, .kind = p->kind, .id = preset_id(p)};
    return index_slot(x, id_hash(p->kind, key.id), same_catalog_id, &key);
}

/* Room for b's new GPUs and models (arrays and indexes) before anything
 * changes, so a merge moves each array once and cannot fail halfway. */
static bool make_room(struct catalog *c, const struct batch *b, struct index x[2], struct diag *d)
{
    size_t add[2] = {0, 0};
    for (size_t i = 0; i < b->count; i++) {
        const struct preset *p = &b->items[i];
        int k = p->kind == PRESET_GPU ? 0 : 1;
        add[k] += find_slot(&x[k], c, p)->item == 0;
    }
    if (add[0]) {
        struct catalog_gpu *g = realloc(c->gpus, (c->gpu_count + add[0]) * sizeof *g);
        if (g == NULL)
            return diag_fail(d, "out of memory");
        c->gpus = g;
    }
    if (add[1]) {
        struct catalog_model *m = realloc(c->models, (c->model_count + add[1]) * sizeof *m);
        if (m == NULL)
            return diag_fail(d, "out of memory");
        c->models = m;
    }
    return index_reserve(&x[0], add[0], d) && index_reserve(&x[1], add[1], d);
}

static bool merge(struct catalog *c, const struct batch *b, struct diag *d)
{
    struct index x[2] = {{0}, {0}}; /* GPUs, models */
    bool ok = index_catalog(&x[0], c, PRESET_GPU, d) && index_catalog(&x[1], c, PRESET_MODEL, d) &&
              make_room(c, b, x, d);
    for (size_t i = 0; ok && i < b->count; i++) {
        const struct preset *p = &b->items[i];
        int k = p->kind == PRESET_GPU ? 0 : 1;
        struct index_slot *s = find_slot(&x[k], c, p);
        size_t at = s->item ? s->item - 1 : k == 0 ? c->gpu_count++ : c->model_count++;
        if (s->item == 0)
            index_put(&x[k], s, id_hash(p->kind, preset_id(p)), at);
        if (k == 0) {
            c->gpus[at].spec = p->gpu;
            snprintf(c->gpus[at].path, sizeof c->gpus[at].path, "%s", b->paths[i]);
        } else {
            c->models[at].spec = p->model;
            snprintf(c->models[at].path, sizeof c->models[at].path, "%s", b->paths[i]);
        }
    }
    index_free(&x[0]);
    index_free(&x[1]);
    return ok;
}

/* path into a catalogue entry's path, cut to fit as snprintf would. */
static void copy_path(char dst[CATALOG_PATH_MAX], const char *path)
{
    size_t n = strnlen(path, CATALOG_PATH_MAX - 1);
    memcpy(dst, path, n);
    dst[n] = '\0';
}

/* The embedded presets into an empty catalogue: their ids were checked for
 * duplicates when kvplan was built, so each is copied in place, without the
 * batch and the indexes a source read from files needs (a third of what
 * `kvplan plan` cost once the loader was cheap). */
static bool load_embedded_fresh(struct catalog *c, struct diag *d)
{
    c->gpus = malloc(embedded_gpu_count * sizeof *c->gpus);
    c->models = malloc(embedded_model_count * sizeof *c->models);
    if (c->gpus == NULL || c->models == NULL) {
        catalog_free(c);
        return diag_fail(d, "out of memory");
    }
    for (unsigned long i = 0; i < embedded_gpu_count; i++) {
        c->gpus[i].spec = embedded_gpus[i].spec;
        copy_path(c->gpus[i].path, embedded_gpus[i].path);
    }
    for (unsigned long i = 0; i < embedded_model_count; i++) {
        c->models[i].spec = embedded_models[i].spec;
        /* the one kept copy, which a snapshot's model of the same record shares */
        if (c->models[i].spec.served)
            c->models[i].spec.served = preset_keep_served(c->models[i].spec.served);
        copy_path(c->models[i].path, embedded_models[i].path);
    }
    c->gpu_count = embedded_gpu_count;
    c->model_count = embedded_model_count;
    return true;
}

bool catalog_load_embedded(struct catalog *c, struct diag *d)
{
    if (c->gpu_count == 0 && c->model_count == 0 && embedded_gpu_count && embedded_model_count) {
        catalog_free(c);
        return load_embedded_fresh(c, d);
    }
    /* parsed, validated and checked for duplicate ids when kvplan was built */
    struct batch b = {0};
    bool ok = true;
    for (unsigned long i = 0; ok && i < embedded_gpu_count; i++) {
        struct preset p = {.kind = PRESET_GPU, .gpu = embedded_gpus[i].spec};
        ok = batch_add(&b, &p, embedded_gpus[i].path, d);
    }
    for (unsigned long i = 0; ok && i < embedded_model_count; i++) {
        struct preset p = {.kind = PRESET_MODEL, .model = embedded_models[i].spec};
        if (p.model.served)
            p.model.served = preset_keep_served(p.model.served);
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
 * ninth power, and never reports a duplicate id of itself. entries counts
 * the names the scan has read, against CATALOG_MAX_ENTRIES. */
struct visited {
    struct seen {
        dev_t dev;
        ino_t ino;
    } *seen;
    size_t count, cap, entries;
    struct index index;
};

struct seen_key {
    const struct visited *v;
    const struct stat *st;
};

static bool same_file(const void *key, size_t item)
{
    const struct seen_key *k = key;
    return k->v->seen[item].dev == k->st->st_dev && k->v->seen[item].ino == k->st->st_ino;
}

static void visited_free(struct visited *v)
{
    free(v->seen);
    index_free(&v->index);
}

/* True when st was already visited; else records it. False on out of
 * memory too, with d set. */
static bool visit(struct visited *v, const struct stat *st, bool *again, struct diag *d)
{
    if (!index_reserve(&v->index, 1, d))
        return false;
    struct seen_key key = {v, st};
    uint64_t h = ((uint64_t)st->st_dev * 1099511628211u ^ (uint64_t)st->st_ino) *
                 0x9E3779B97F4A7C15u; /* odd multiplier: spreads consecutive inodes */
    struct index_slot *slot = index_slot(&v->index, h, same_file, &key);
    *again = slot->item != 0;
    if (*again)
        return true;
    if (v->count == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 64;
        struct seen *bigger = realloc(v->seen, cap * sizeof *bigger);
        if (bigger == NULL)
            return diag_fail(d, "out of memory");
        v->seen = bigger;
        v->cap = cap;
    }
    v->seen[v->count] = (struct seen){st->st_dev, st->st_ino};
    index_put(&v->index, slot, h, v->count++);
    return true;
}

static void free_names(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

/* The names in dir but the hidden ones, sorted, into *names; refuses a scan
 * that reads more than CATALOG_MAX_ENTRIES names before holding them all. */
static bool read_names(struct visited *v, const char *dir, char ***names, size_t *count,
                       struct diag *d)
{
    DIR *dp = opendir(dir);
    if (dp == NULL)
        return diag_fail(d, "%s: cannot open directory: %s", dir, strerror(errno));
    size_t cap = 0;
    struct dirent *e;
    bool ok = true;
    *names = NULL;
    *count = 0;
    while (ok && (e = readdir(dp)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (++v->entries > CATALOG_MAX_ENTRIES) {
            ok = diag_fail(d, "%s: more than %d files and directories; kvplan reads at most %d "
                              "in one preset directory, counting those below it",
                           dir, CATALOG_MAX_ENTRIES, CATALOG_MAX_ENTRIES);
            break;
        }
        if (*count == cap) {
            cap = cap ? cap * 2 : 64;
            char **bigger = realloc(*names, cap * sizeof **names);
            if (bigger == NULL) {
                ok = diag_fail(d, "out of memory");
                break;
            }
            *names = bigger;
        }
        (*names)[*count] = strdup(e->d_name);
        if ((*names)[*count] == NULL)
            ok = diag_fail(d, "out of memory");
        else
            (*count)++;
    }
    closedir(dp);
    if (ok && *count > 1)
        qsort(*names, *count, sizeof **names, compare_names);
    return ok;
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
    char **names = NULL;
    size_t count = 0;
    bool ok = read_names(v, dir, &names, &count, d);
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
    free_names(names, count);
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
    visited_free(&v);
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
