/* recent: the session files the planner opened or exported last, newest
 * first, for its open prompt (Up and Down go through them). Kept one path
 * a line in $XDG_STATE_HOME/kvplan/recent (an absolute XDG_STATE_HOME;
 * else ~/.local/state/kvplan/recent), RECENT_MAX at most, written
 * atomically (io/fileio.h). */
#ifndef KVPLAN_IO_RECENT_H
#define KVPLAN_IO_RECENT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/diag.h"

enum { RECENT_MAX = 10, RECENT_PATH_MAX = 1024 };

struct recent_files {
    int count;
    char path[RECENT_MAX][RECENT_PATH_MAX];
};

/* The file the list is kept in; false when neither XDG_STATE_HOME nor
 * HOME names a place. */
bool recent_location(char *buf, size_t size);

/* The list as kept: empty when there is none or it cannot be read; a line
 * too long or not absolute is left out. */
void recent_read(struct recent_files *r);

/* Puts the file at path (made absolute) first, once, and writes the list
 * back, its directories made as needed; false, said in d, when it cannot. */
bool recent_remember(const char *path, struct diag *d);

#endif
