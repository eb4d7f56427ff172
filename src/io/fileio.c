#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "a FIFO", "a character device"...: what a path is when it is not a file. */
static const char *kind_of(mode_t m)
{
    return S_ISFIFO(m)   ? "a FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
           : S_ISLNK(m)  ? "a symbolic link"
                         : "not a regular file";
}

/* FIFOs and devices would block a read forever (the XDG preset directory is
 * read at every start) or have no end: only regular files are read, and the
 * check is made on the opened descriptor so nothing can be swapped in
 * between; O_NONBLOCK keeps the open itself from waiting for a writer. */
static bool refuse_non_regular(const char *path, mode_t m, struct diag *d)
{
    if (S_ISDIR(m))
        return diag_fail(d, "%s: is a directory, not a file", path);
    return diag_fail(d, "%s: is %s, not a regular file: kvplan reads only regular files", path,
                     kind_of(m));
}

char *fileio_read(const char *path, size_t *len, struct diag *d)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        refuse_non_regular(path, st.st_mode, d);
        return NULL;
    }
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        diag_fail(d, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) != 0) {
        diag_fail(d, "%s: cannot read: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        refuse_non_regular(path, st.st_mode, d);
        close(fd);
        return NULL;
    }
    if (st.st_size > FILEIO_MAX_BYTES) {
        diag_fail(d, "%s: is %lld bytes, more than the %d bytes a preset or snapshot may be",
                  path, (long long)st.st_size, FILEIO_MAX_BYTES);
        close(fd);
        return NULL;
    }
    /* a file that grows while it is read is still held to the limit */
    size_t cap = (size_t)st.st_size + 1;
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

/* "-" and /dev/stdout, named so, write to standard output as it is. */
static bool write_stdout(const char *path, const char *data, size_t len, struct diag *d)
{
    if (!write_all(STDOUT_FILENO, data, len))
        return diag_fail(d, "%s: write to standard output failed: %s", path, strerror(errno));
    return true;
}

/* While a temporary file exists, a SIGINT, SIGTERM, SIGHUP or SIGQUIT that
 * would end the process removes it first (a killed export once left
 * FILE.XXXXXX behind with the whole snapshot), then ends the process as it
 * would have: by the program's own handler (the planner's restores the
 * terminal), else by the default action. An ignored signal changes nothing. */
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
enum { CLEANUP_SIGNALS = sizeof cleanup_signals / sizeof cleanup_signals[0] };
static struct sigaction cleanup_saved[CLEANUP_SIGNALS];
static char *volatile cleanup_tmp;

static void on_signal_while_writing(int sig)
{
    const struct sigaction *old = NULL;
    for (int i = 0; i < CLEANUP_SIGNALS; i++)
        if (cleanup_signals[i] == sig)
            old = &cleanup_saved[i];
    if (old && old->sa_handler == SIG_IGN)
        return;
    char *tmp = cleanup_tmp;
    if (tmp)
        unlink(tmp);
    if (old && old->sa_handler != SIG_DFL && !(old->sa_flags & SA_SIGINFO)) {
        old->sa_handler(sig); /* the program's own ending (the planner restores its terminal) */
        return;
    }
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig); /* delivered when this handler returns: the usual death */
}

static void block_signals(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < CLEANUP_SIGNALS; i++)
        sigaddset(&set, cleanup_signals[i]);
    sigprocmask(SIG_BLOCK, &set, old);
}

/* Creates the temporary file with the cleanup armed; -1 with errno set. */
static int create_temporary(char *tmp)
{
    sigset_t old;
    block_signals(&old);
    int fd = mkstemp(tmp);
    int err = errno;
    if (fd >= 0) {
        cleanup_tmp = tmp;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal_while_writing;
        sigemptyset(&sa.sa_mask);
        for (int i = 0; i < CLEANUP_SIGNALS; i++)
            sigaction(cleanup_signals[i], &sa, &cleanup_saved[i]);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    errno = err;
    return fd;
}

/* The temporary file is gone (renamed or removed): the old handlers return. */
static void disarm_cleanup(void)
{
    sigset_t old;
    block_signals(&old);
    for (int i = 0; i < CLEANUP_SIGNALS; i++)
        sigaction(cleanup_signals[i], &cleanup_saved[i], NULL);
    cleanup_tmp = NULL;
    sigprocmask(SIG_SETMASK, &old, NULL);
}

/* "DIR/BASE.XXXXXX" where BASE is cut so the name fits the directory's
 * NAME_MAX: a 254-character file name must still be writable. */
static char *temporary_name(const char *path)
{
    size_t plen = strlen(path);
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    size_t base = plen - dirlen;
    long name_max = 255;
    if (dirlen > 0) {
        char *dir = strndup(path, dirlen);
        long got = dir ? pathconf(dir, _PC_NAME_MAX) : -1;
        free(dir);
        if (got > 16)
            name_max = got;
    } else {
        long got = pathconf(".", _PC_NAME_MAX);
        if (got > 16)
            name_max = got;
    }
    size_t keep = base;
    if (keep + 7 > (size_t)name_max)
        keep = (size_t)name_max - 7;
    char *tmp = malloc(dirlen + keep + 8);
    if (tmp != NULL) {
        memcpy(tmp, path, dirlen + keep);
        memcpy(tmp + dirlen + keep, ".XXXXXX", 8);
    }
    return tmp;
}

/* New files follow the umask like any other program's; a replaced regular
 * file keeps its permission bits, never setuid, setgid or sticky. The mode
 * is read from the opened file (O_NOFOLLOW: never a symlink's target). */
static mode_t mode_for(const char *path, const struct stat *lst)
{
    mode_t mask = umask(0);
    umask(mask);
    mode_t mode = 0666 & ~mask;
    if (lst == NULL || !S_ISREG(lst->st_mode))
        return mode;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
        mode = st.st_mode & 0777;
    else if (fd < 0 && errno == EACCES)
        mode = lst->st_mode & 0777; /* a write-only file: lstat saw the same inode */
    if (fd >= 0)
        close(fd);
    return mode;
}

bool fileio_write_atomic(const char *path, const char *data, size_t len, struct diag *d)
{
    if (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0)
        return write_stdout(path, data, len, d);
    /* Only regular files are written, always by renaming a new file over
     * the name: a symlink there is replaced, never followed into a device
     * or FIFO, and nothing swapped in after this check is ever opened. */
    struct stat lst;
    bool exists = lstat(path, &lst) == 0;
    if (exists && S_ISDIR(lst.st_mode))
        return diag_fail(d, "%s: is a directory; choose a file name", path);
    if (exists && !S_ISREG(lst.st_mode) && !S_ISLNK(lst.st_mode))
        return diag_fail(d, "%s: is %s, not a regular file: kvplan writes only regular files "
                            "(- writes to standard output)",
                         path, kind_of(lst.st_mode));
    mode_t mode = mode_for(path, exists ? &lst : NULL);
    char *tmp = temporary_name(path);
    if (tmp == NULL)
        return diag_fail(d, "%s: out of memory", path);
    int fd = create_temporary(tmp);
    if (fd < 0) {
        diag_fail(d, "%s: cannot create a file in its directory: %s", path, strerror(errno));
        free(tmp);
        return false;
    }
    /* one way out on failure: report, drop the temporary file, keep the old one */
    if (!write_all(fd, data, len) || fchmod(fd, mode) != 0 || fsync(fd) != 0) {
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
        disarm_cleanup();
        free(tmp);
        return false;
    }
    disarm_cleanup();
    free(tmp);
    return true;
fail:
    diag_fail(d, "%s: write failed: %s (the existing file, if any, is unchanged)", path,
              strerror(errno));
    unlink(tmp);
    disarm_cleanup();
    free(tmp);
    return false;
}

bool fileio_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}
