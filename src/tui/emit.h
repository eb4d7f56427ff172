/* emit: the frame's changes written to the terminal by kvplan itself.
 *
 * curses keeps the terminal (its modes, keys, mouse, size, endwin) and
 * gives the terminfo strings; a frame's difference from the one shown
 * (canvas.h) goes out as one write of cursor moves, attribute changes and
 * the changed cells' UTF-8, so curses' refresh, which compares every
 * changed row again and plans each move by trying every way of moving,
 * is not run at all. An attribute change follows curses' rules (emit_attr.h)
 * and is worked out once for each pair of attributes. What is on the
 * screen is what curses' refresh of the same cells puts there. */
#ifndef KVPLAN_TUI_EMIT_H
#define KVPLAN_TUI_EMIT_H

#include <stdbool.h>
#include <stddef.h>

#include "canvas.h"

/* Reads the current terminal's strings; false (and why) when it lacks one
 * the emitter needs (cursor addressing, clearing the screen), needs
 * padding or wraps at the last column without holding the cursor there:
 * then curses draws. The attributes on the terminal are curses' normal. */
bool emit_open(char *why, size_t whylen);

/* The bytes that bring the terminal from `was` to `now` (cols x rows),
 * appended to the emitter's buffer; `was` becomes `now`. `whole`: the
 * terminal's content is unknown, the screen is cleared first. */
void emit_frame(const struct canvas_cell *now, struct canvas_cell *was, int cols, int rows,
                bool whole);

/* Back to the attributes curses believes the terminal has (its normal),
 * the cursor's place unknown: before curses writes (endwin, a suspend). */
void emit_release(void);

/* The bytes buffered and their count; emit_flush writes them to fd in one
 * write (repeated only when the terminal takes them in parts) and empties
 * the buffer; emit_discard empties it. */
const char *emit_bytes(size_t *len);
bool emit_flush(int fd);
void emit_discard(void);

/* Frees the buffer and the kept strings. */
void emit_close(void);

#endif
