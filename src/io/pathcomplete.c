#include "pathcomplete.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"

enum { NAMES_MAX = 4096 };

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of dir beginning with base (hidden ones only when base does),
 * malloc'ed, sorted; returns the count. */
static int matches(const char *dir, const char *base, char **names)
{
    DIR *d = opendir(dir[0] ? dir : ".");
    if (d == NULL)
        return 0;
    int n = 0;
    size_t blen = strlen(base);
    for (struct dirent *e; (e = readdir(d)) != NULL && n < NAMES_MAX;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            strncmp(e->d_name, base, blen) != 0 || (e->d_name[0] == '.' && base[0] != '.'))
            continue;
        names[n] = strdup(e->d_name);
        if (names[n])
            n++;
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, by_name);
    return n;
}

/* Whether the entry name of dir is a directory (a link to one too). */
static bool is_dir(const char *dir, const char *name)
{
    char full[4096];
    snprintf(full, sizeof full, "%s%s", dir, name);
    return fileio_is_dir(full);
}

static void list_names(const char *dir, char **names, int n, char *list, size_t lsize)
{
    size_t len = 0;
    list[0] = '\0';
    for (int i = 0; i < n; i++) {
        const char *sep = i ? "  " : "";
        const char *slash = is_dir(dir, names[i]) ? "/" : "";
        size_t need = strlen(sep) + strlen(names[i]) + strlen(slash);
        if (len + need + 4 >= lsize) {
            snprintf(list + len, lsize - len, "%s...", sep);
            return;
        }
        len += (size_t)snprintf(list + len, lsize - len, "%s%s%s", sep, names[i], slash);
    }
}

int path_complete(const char *typed, char *out, size_t size, char *list, size_t lsize)
{
    const char *home = getenv("HOME");
    if (strncmp(typed, "~/", 2) == 0 && home && home[0])
        snprintf(out, size, "%s/%s", home, typed + 2);
    else
        snprintf(out, size, "%s", typed);
    list[0] = '\0';
    char dir[4096];
    const char *slash = strrchr(out, '/');
    size_t dlen = slash ? (size_t)(slash - out) + 1 : 0;
    snprintf(dir, sizeof dir, "%.*s", (int)dlen, out);
    char base[1024];
    snprintf(base, sizeof base, "%s", out + dlen);
    char **names = malloc(NAMES_MAX * sizeof *names);
    int n = names ? matches(dir, base, names) : 0;
    if (n > 0) {
        size_t common = strlen(names[0]);
        for (int i = 1; i < n; i++)
            for (size_t k = 0; k < common; k++)
                if (names[i][k] != names[0][k]) {
                    common = k;
                    break;
                }
        bool whole_dir = n == 1 && is_dir(dir, names[0]);
        int w = snprintf(out, size, "%s%.*s%s", dir, (int)common, names[0], whole_dir ? "/" : "");
        if (w < 0 || (size_t)w >= size)
            snprintf(out, size, "%s", typed); /* no room: as typed */
        if (n > 1)
            list_names(dir, names, n, list, lsize);
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return n;
}
