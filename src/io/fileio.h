/* fileio: reading a whole file with limits, and writing one atomically.
 *
 * Only regular files are read or written: FIFOs, devices, sockets and
 * directories are refused with a message naming the path (a FIFO would
 * block forever). Writes go to a temporary file beside the target, are
 * fsync'ed and renamed over it, so a failed write leaves any existing file
 * exactly as it was and a symlink at the target is replaced, never followed;
 * a terminating signal during the write removes the temporary file. */
#ifndef KVPLAN_IO_FILEIO_H
#define KVPLAN_IO_FILEIO_H

#include <stdbool.h>
#include <stddef.h>

#include "core/diag.h"

enum { FILEIO_MAX_BYTES = 16 * 1024 * 1024 };

/* Reads path into a NUL-terminated malloc'ed buffer (caller frees). */
char *fileio_read(const char *path, size_t *len, struct diag *d);

/* Writes len bytes to path atomically: a new file's mode follows the umask,
 * a replaced file keeps its permission bits without setuid/setgid/sticky.
 * "-" and "/dev/stdout" write to standard output. */
bool fileio_write_atomic(const char *path, const char *data, size_t len, struct diag *d);

/* True when path exists and is a directory. */
bool fileio_is_dir(const char *path);

#endif
