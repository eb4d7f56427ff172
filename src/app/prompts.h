/* prompts: the planner's one-line prompts and what Enter does with each. */
#ifndef KVPLAN_APP_PROMPTS_H
#define KVPLAN_APP_PROMPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "app/planner.h"

/* Opens a prompt of this kind offering initial (typing replaces it). */
void prompt_open(struct planner *p, enum prompt_kind kind, const char *initial);

/* Writes the session as JSON, or the scenario or versus view as Markdown, to
 * path (atomically; a failure leaves any file there as it was). */
void prompt_export(struct planner *p, const char *path, enum prompt_kind kind);

/* Enter in a prompt: applies the value, writes, opens, names or asks. */
void prompt_finish(struct planner *p);

/* Backspace and printable keys edit buf; false for any other key. */
bool prompt_text_key(char *buf, size_t size, int key);

#endif
