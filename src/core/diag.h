/* diag: an error as a value, with its context already in the message.
 *
 * Every layer fills a `struct diag` instead of printing; exactly one place
 * (the command line or the TUI status line) shows it to the user.
 * Messages follow the compiler convention "where: field: what is wrong".
 * Every message is passed through text_escape, so input quoted in it (a
 * name, an option value, a line of a file) never reaches a terminal as a
 * control sequence. */
#ifndef KVPLAN_CORE_DIAG_H
#define KVPLAN_CORE_DIAG_H

#include <stdbool.h>

enum { DIAG_MESSAGE_MAX = 512 };

struct diag {
    bool failed;
    char message[DIAG_MESSAGE_MAX];
};

/* Marks the diag as failed with a printf-style message; keeps the first error
 * when called twice, because the first is the cause. Returns false so callers
 * can write `return diag_fail(d, ...)`. */
bool diag_fail(struct diag *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prepends "prefix: " to an existing message (used to add a file name). */
void diag_prefix(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Resets to "no error". */
void diag_clear(struct diag *d);

#endif
