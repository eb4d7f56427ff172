/* explain: every result of a plan as a sentence of arithmetic, with each
 * term's value and unit, so a number on screen can be checked by hand.
 *
 * Used by the text and markdown reports and by the TUI's explain pane; it
 * only formats into fixed buffers (no I/O). */
#ifndef KVPLAN_CORE_EXPLAIN_H
#define KVPLAN_CORE_EXPLAIN_H

#include "capacity.h"

enum { EXPLAIN_LINES_MAX = 16, EXPLAIN_TEXT_MAX = 320, EXPLAIN_LABEL_MAX = 32 };

struct explain_line {
    char key[EXPLAIN_LABEL_MAX];     /* stable id: "kv_per_token", "users", ... */
    char label[EXPLAIN_LABEL_MAX];   /* "KV per token" */
    char formula[EXPLAIN_TEXT_MAX];  /* "2 (K,V) x 32 layers x 8 KV heads x 128 x 2 B" */
    char value[EXPLAIN_LABEL_MAX * 2]; /* "131,072 B (128 KiB)" */
};

struct explain {
    int count;
    struct explain_line lines[EXPLAIN_LINES_MAX];
};

/* Fills e with the derivation of r from s, sizes in s->units. */
void explain_build(const struct scenario *s, const struct plan_result *r, struct explain *e);

/* The line with the given key, or NULL. */
const struct explain_line *explain_find(const struct explain *e, const char *key);

#endif
