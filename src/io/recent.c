#include "recent.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"

bool recent_location(char *buf, size_t size)
{
    const char *xdg = getenv("XDG_STATE_HOME");
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(buf, size, "%s/kvplan/recent", xdg);
    else if (getenv("HOME") && getenv("HOME")[0] == '/')
        n = snprintf(buf, size, "%s/.local/state/kvplan/recent", getenv("HOME"));
    else
        return false;
    return n > 0 && (size_t)n < size;
}

void recent_read(struct recent_files *r)
{
    r->count = 0;
    char where[RECENT_PATH_MAX];
    struct diag d = {0};
    size_t len;
    char *text = recent_location(where, sizeof where) ? fileio_read(where, &len, &d) : NULL;
    if (text == NULL)
        return;
    for (char *line = text, *next; line && *line && r->count < RECENT_MAX; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (line[0] == '/' && strlen(line) < RECENT_PATH_MAX)
            snprintf(r->path[r->count++], RECENT_PATH_MAX, "%s", line);
    }
    free(text);
}

/* mkdir -p of the directories above the file at path */
static bool make_parents(const char *path, struct diag *d)
{
    char dir[RECENT_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *c = dir + 1; *c; c++) {
        if (*c != '/')
            continue;
        *c = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST)
            return diag_fail(d, "%s: cannot make the directory: %s", dir, strerror(errno));
        *c = '/';
    }
    return true;
}

bool recent_remember(const char *path, struct diag *d)
{
    char where[RECENT_PATH_MAX];
    if (!recent_location(where, sizeof where))
        return diag_fail(d, "no place for the recent files: neither XDG_STATE_HOME nor HOME is set");
    /* absolute, so that it opens from any directory */
    char full[RECENT_PATH_MAX], cwd[RECENT_PATH_MAX];
    int n = path[0] == '/'               ? snprintf(full, sizeof full, "%s", path)
            : getcwd(cwd, sizeof cwd) ? snprintf(full, sizeof full, "%s/%s", cwd, path)
                                      : -1;
    if (n < 0)
        return diag_fail(d, "%s: cannot tell the current directory: %s", path, strerror(errno));
    bool keep = (size_t)n < sizeof full && strchr(full, '\n') == NULL;
    static struct recent_files r;
    recent_read(&r);
    char text[RECENT_MAX * (RECENT_PATH_MAX + 1)];
    size_t len = 0;
    if (keep)
        len += (size_t)snprintf(text, sizeof text, "%s\n", full);
    int kept = keep ? 1 : 0;
    for (int i = 0; i < r.count && kept < RECENT_MAX; i++)
        if (strcmp(r.path[i], full) != 0) {
            len += (size_t)snprintf(text + len, sizeof text - len, "%s\n", r.path[i]);
            kept++;
        }
    return make_parents(where, d) && fileio_write_atomic(where, text, len, d);
}
