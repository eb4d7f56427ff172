/* pathcomplete: Tab in a prompt that takes a file, as a shell completes:
 * the entries of the typed directory that begin with the typed name; one
 * completes the name (a directory with its '/'), several extend it to
 * what they share and are listed when they share no more. */
#ifndef KVPLAN_IO_PATHCOMPLETE_H
#define KVPLAN_IO_PATHCOMPLETE_H

#include <stdbool.h>
#include <stddef.h>

/* Completes typed (a leading "~/" is the home directory) into out; list
 * gets the matching names, sorted, a directory with its '/', separated by
 * two spaces (cut with "..." when it is full). Returns the number of
 * matches: 0, nothing to complete (out holds typed, or its "~/" expanded). */
int path_complete(const char *typed, char *out, size_t size, char *list, size_t lsize);

#endif
