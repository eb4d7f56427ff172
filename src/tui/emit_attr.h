/* emit_attr: emit.c's attribute changes and its terminfo strings (inside
 * the toolkit only).
 *
 * A change from one cell's attributes (with the colour pair) to another's
 * is what curses makes of it: a reset (sgr0) only when an attribute goes
 * off, an attribute the terminal has no string for or cannot show with
 * colour (no_color_video) left out, default colours by op, or by SGR 39 and
 * 49 one at a time where the terminal says it takes them (AX), back-to-back
 * SGRs written as one. Each is worked out once and kept. */
#ifndef KVPLAN_TUI_EMIT_ATTR_H
#define KVPLAN_TUI_EMIT_ATTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A terminfo string. `plain`: it holds only text, %i, %p1%d, %p2%d and %%,
 * which emit.c expands itself (tiparm interprets the whole language, some
 * 2,500 instructions a cursor move); otherwise tiparm expands it. */
struct emit_cap {
    const char *s; /* NULL: the terminal has none */
    size_t len;
    bool plain;
};

/* Loads the current terminal's string `name`; false when it needs padding
 * (a delay the emitter does not make). A plain one is checked against
 * tiparm once. */
bool emit_cap_load(struct emit_cap *c, const char *name);

/* Loads the attribute strings: NULL, or why the emitter cannot use them. */
const char *emit_attr_open(void);
void emit_attr_close(void);

/* The bytes (n of them) that change the terminal's attributes from `from`
 * to `to`; valid until the next call. */
const char *emit_attr_change(uint32_t from, uint32_t to, size_t *n);

/* Whether an erase in attributes a leaves what blanks written in a would:
 * no attribute but the colour, and a colour an erase keeps (bce) or the
 * terminal's own. */
bool emit_attr_clearable(uint32_t a, bool bce);

#endif
