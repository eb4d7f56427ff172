/* prompts: the planner's one-line prompts and what Enter does with each. */
#ifndef KVPLAN_APP_PROMPTS_H
#define KVPLAN_APP_PROMPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "app/planner.h"

/* Opens a prompt of this kind offering initial (typing replaces it). */
void prompt_open(struct planner *p, enum prompt_kind kind, const char *initial);

/* The open prompt: its recent files read as it opens; Tab (completes the
 * path), Up and Down (the recent files) in it, false for any other key. */
void prompt_open_begin(struct planner *p);
bool prompt_open_key(struct planner *p, int key);

/* Writes the session as JSON, or the scenario or versus view as Markdown, to
 * path (atomically; a failure leaves any file there as it was). */
void prompt_export(struct planner *p, const char *path, enum prompt_kind kind);

/* What the open prompt says before its text and, in brackets, after it. */
void prompt_describe(const struct planner *p, char *prefix, size_t psize, char *hint,
                     size_t hsize);

/* Enter in a prompt: applies the value, writes, opens, names or asks. */
void prompt_finish(struct planner *p);

/* What a key did to a line of text. */
enum text_key { TEXT_KEY_OTHER, TEXT_KEY_EDITED, TEXT_KEY_FULL };

/* Backspace (a whole character) and typed text (UTF-8, one byte a key) edit
 * buf, which holds at most max bytes: TEXT_KEY_FULL when the character
 * would pass max (nothing is added), TEXT_KEY_OTHER for any other key. */
enum text_key prompt_text_key(char *buf, size_t max, int key);

/* The bytes the open prompt holds at most: a label's or a note's limit
 * (io/snapshot.h), else its buffer's. */
size_t prompt_max(const struct planner *p);

/* A key typed into the open prompt: the first replaces a prefilled value;
 * at the limit, the status line says it. False for a key that is not text. */
bool prompt_type(struct planner *p, int key);

#endif
