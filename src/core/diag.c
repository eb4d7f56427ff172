#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "text.h"

/* Messages quote what the user gave them: escape anything that would
 * reach the terminal as a control (ESC]2; in a snapshot once retitled
 * the window). */
static void make_safe(struct diag *d)
{
    char safe[DIAG_MESSAGE_MAX];
    text_escape(d->message, safe, sizeof safe);
    memcpy(d->message, safe, sizeof safe);
}

bool diag_fail(struct diag *d, const char *fmt, ...)
{
    if (d == NULL || d->failed)
        return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->message, sizeof d->message, fmt, ap);
    va_end(ap);
    make_safe(d);
    d->failed = true;
    return false;
}

void diag_prefix(struct diag *d, const char *fmt, ...)
{
    if (d == NULL)
        return;
    char prefix[DIAG_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    char old[DIAG_MESSAGE_MAX];
    memcpy(old, d->message, sizeof old);
    snprintf(d->message, sizeof d->message, "%s: %s", prefix, old);
    make_safe(d);
}

void diag_clear(struct diag *d)
{
    if (d == NULL)
        return;
    d->failed = false;
    d->message[0] = '\0';
}
