/* term: the one module that owns the terminal (initscr/newterm, endwin).
 *
 * Every exit path goes through term_close(), and every ending signal through
 * a handler that restores the terminal, so it is always left as it was
 * (the handlers are in term_signals.c). Colour roles live in roles.h. */
#ifndef KVPLAN_TUI_TERM_H
#define KVPLAN_TUI_TERM_H

#include <stdbool.h>
#include <stddef.h>

/* The largest screen the planner allocates for: a terminal (or LINES and
 * COLUMNS) beyond it is used as this size. */
enum { TERM_MAX_COLS = 1000, TERM_MAX_ROWS = 500 };

struct term_caps {
    bool color;    /* colours in use (has_colors, and NO_COLOR unset) */
    bool utf8;     /* the locale's codeset is UTF-8: smooth bar glyphs */
    bool mouse;    /* mouse reporting enabled */
    bool headless; /* drawing into a screen on /dev/null (dumps, tests) */
};

/* Why the interactive UI cannot run here (not a terminal, TERM unset or
 * dumb, no cursor addressing), or NULL when it can. */
const char *term_unusable_reason(void);

/* Opens the real terminal: raw keys, no echo, keypad, mouse with motion
 * while a button is held (xterm mode 1002). Every signal that would end the
 * process (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGALRM, SIGPIPE...)
 * restores the terminal and exits with status 128 + the signal; a fault or
 * an abort (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) restores it and dies by
 * that signal. The handlers are in place before the terminal is switched. */
bool term_open(bool mono, bool ascii, struct term_caps *caps, char *err, size_t errlen);

/* Opens an invisible cols x rows screen on /dev/null for screen dumps.
 * `mono` forces monochrome, `ascii` forces ASCII glyphs. */
bool term_open_headless(int cols, int rows, bool mono, bool ascii, struct term_caps *caps,
                        char *err, size_t errlen);

/* The next key (getch's codes), waiting for it; ERR at the end of input.
 * Signals are answered here, between keys: after a SIGWINCH the screen
 * takes the terminal's size capped at TERM_MAX_COLS x TERM_MAX_ROWS
 * (KEY_RESIZE when it changed); Ctrl-Z (SIGTSTP) restores the terminal,
 * stops, and on resuming returns KEY_RESIZE for a full repaint, as after
 * SIGCONT. */
int term_read_key(void);

/* Whether a key (or a signal) comes within ms milliseconds, without
 * reading it: the planner does slower work when none does. */
bool term_input_within(int ms);

/* Shows the frame drawn (canvas.h): its changed cells written to the
 * terminal by emit.h, or (KVPLAN_RENDERER=curses, or a terminal emit.h
 * cannot drive; always on the headless screen) handed to stdscr for
 * curses to send the difference. A repaint asked of curses (clearok on
 * stdscr or curscr) writes the whole frame. */
void term_refresh(void);

/* Restores the terminal (idempotent, async-signal tolerant path). */
void term_close(void);

/* Writes the current screen's text (UTF-8, one line per row, trailing
 * blanks trimmed) to buf; returns the bytes needed. */
size_t term_dump_text(char *buf, size_t size);

/* Asks the terminal to put text on the system clipboard (OSC 52, base64);
 * terminals that do not pass it ignore the sequence. */
void term_clipboard(const char *text);

/* Writes one character per cell describing its attributes, one line per
 * row: '.' plain, else a letter for the colour pair ('a' = pair 1) or, in
 * monochrome, B bold, R reverse, D dim, U underline (the first that applies).
 * Returns the bytes needed. Golden screens keep it beside the text. */
size_t term_dump_attrs(char *buf, size_t size);

#endif
