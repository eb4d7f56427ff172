/* canvas: the frame being drawn, kept beside the last frame shown (handed
 * to curses, or written by emit.h).
 *
 * Widgets write cells here: a character and its attributes with the colour
 * pair, as one attr_t (an attribute without a pair takes the background's,
 * as curses does for the characters it draws). canvas_present then gives
 * stdscr only the rows that changed, from their first changed cell to their
 * last, so curses neither copies nor compares the rest of the screen, and
 * what stdscr holds is what drawing every cell through curses would have put
 * there: the terminal receives the same bytes and the dumps read the same. */
#ifndef KVPLAN_TUI_CANVAS_H
#define KVPLAN_TUI_CANVAS_H

#include <curses.h>
#include <stdbool.h>
#include <stdint.h>
#include <wchar.h>

/* One cell: its character and its attributes with the colour pair. The
 * right half of a two-column character holds CANVAS_CONT and the
 * character's attributes. */
struct canvas_cell {
    uint32_t ch;
    uint32_t attr;
};
enum { CANVAS_CONT = 0 };

/* Starts a frame for the current size (COLS x LINES): every cell blank in
 * the background. After a change of size the next frame is written whole. */
void canvas_erase(void);

/* Writes UTF-8 text from (y, x) within w columns in attribute a (clipped to
 * the screen; a character that does not fit whole stops it). `utf8` decodes
 * the three-byte glyphs directly (the locale is UTF-8). Returns the columns
 * used. */
int canvas_text(int y, int x, int w, attr_t a, const char *text, bool utf8);

/* The same, but text cut short ends in a mark in its last column (an
 * ellipsis, or "~" without UTF-8): never a word cut silently. */
int canvas_text_marked(int y, int x, int w, attr_t a, const char *text, bool utf8);

/* The next character of UTF-8 text p (left bytes) and the bytes it took
 * (`used`); '?' for bytes that are not a character. */
wchar_t canvas_decode(const char *p, size_t left, bool utf8, mbstate_t *st, size_t *used);

/* n copies of the one-column character ch from (y, x) in attribute a. */
void canvas_fill(int y, int x, int n, wchar_t ch, attr_t a);

/* Hands stdscr every cell that differs from the frame presented before. */
void canvas_present(void);

/* For a renderer that writes the terminal itself (emit.h): the frame drawn,
 * the frame last shown (which the renderer brings up to date) and their
 * size; `whole` is true when the shown frame is not what the terminal holds
 * (the first frame, a new size), and the frame counts as shown from now on.
 * False when there is no frame of the current size. */
bool canvas_frames(struct canvas_cell **now, struct canvas_cell **was, int *cols, int *rows,
                   bool *whole);

/* The first column from x on where the rows `now` and `was` (ncols cells)
 * differ; ncols when none does. */
int canvas_next_change(const struct canvas_cell *now, const struct canvas_cell *was, int x,
                       int ncols);

/* Forgets the frame and frees the canvas (the screen is closing). */
void canvas_close(void);

#endif
