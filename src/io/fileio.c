#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *fileio_read(const char *path, size_t *len, struct diag *d)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        diag_fail(d, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        diag_fail(d, "%s: cannot read: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        diag_fail(d, "%s: is a directory, not a file", path);
        close(fd);
        return NULL;
    }
    size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 65536;
    if (S_ISREG(st.st_mode) && st.st_size > FILEIO_MAX_BYTES) {
        diag_fail(d, "%s: is %lld bytes, more than the %d bytes a preset or snapshot may be",
                  path, (long long)st.st_size, FILEIO_MAX_BYTES);
        close(fd);
        return NULL;
    }
    char *buf = malloc(cap);
    size_t n = 0;
    for (;;) {
        if (buf == NULL) {
            diag_fail(d, "%s: out of memory", path);
            close(fd);
            return NULL;
        }
        if (n + 1 >= cap) {
            if (cap > FILEIO_MAX_BYTES) {
                diag_fail(d, "%s: larger than the %d bytes a preset or snapshot may be", path,
                          FILEIO_MAX_BYTES);
                free(buf);
                close(fd);
                return NULL;
            }
            char *bigger = realloc(buf, cap * 2);
            if (bigger == NULL)
                free(buf);
            buf = bigger;
            cap *= 2;
            continue;
        }
        ssize_t got = read(fd, buf + n, cap - n - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            diag_fail(d, "%s: cannot read: %s", path, strerror(errno));
            free(buf);
            close(fd);
            return NULL;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

/* Writes all of data to fd, retrying short writes; false with errno set. */
static bool write_all(int fd, const char *data, size_t len)
{
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return false;
        }
        off += (size_t)w;
    }
    return true;
}

/* A device or pipe (/dev/stdout, /dev/full) has no old contents to keep and
 * must never be replaced by a renamed file: write to it directly. */
static bool write_device(const char *path, const char *data, size_t len, struct diag *d)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return diag_fail(d, "%s: cannot open for writing: %s", path, strerror(errno));
    if (!write_all(fd, data, len)) {
        int err = errno;
        close(fd);
        return diag_fail(d, "%s: write failed: %s", path, strerror(err));
    }
    if (close(fd) != 0)
        return diag_fail(d, "%s: write failed: %s", path, strerror(errno));
    return true;
}

bool fileio_write_atomic(const char *path, const char *data, size_t len, struct diag *d)
{
    struct stat st;
    mode_t mode = 0644;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return diag_fail(d, "%s: is a directory; choose a file name", path);
        if (!S_ISREG(st.st_mode))
            return write_device(path, data, len, d);
        mode = st.st_mode & 07777;
    }
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 32);
    if (tmp == NULL)
        return diag_fail(d, "%s: out of memory", path);
    snprintf(tmp, plen + 32, "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        diag_fail(d, "%s: cannot create a file in its directory: %s", path, strerror(errno));
        free(tmp);
        return false;
    }
    /* one way out on failure: report, drop the temporary file, keep the old one */
    if (!write_all(fd, data, len) || fsync(fd) != 0 || fchmod(fd, mode) != 0) {
        int err = errno;
        close(fd);
        errno = err;
        goto fail;
    }
    if (close(fd) != 0)
        goto fail;
    if (rename(tmp, path) != 0) {
        diag_fail(d, "%s: cannot replace: %s (the existing file, if any, is unchanged)", path,
                  strerror(errno));
        unlink(tmp);
        free(tmp);
        return false;
    }
    free(tmp);
    return true;
fail:
    diag_fail(d, "%s: write failed: %s (the existing file, if any, is unchanged)", path,
              strerror(errno));
    unlink(tmp);
    free(tmp);
    return false;
}

bool fileio_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}
