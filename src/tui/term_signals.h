/* term_signals: the terminal's signals, for term.c alone (internal to tui/).
 *
 * Every signal that would end the process restores the terminal first and
 * exits with 128 + the signal; a fault or an abort restores it and dies by
 * that signal. Resizes, Ctrl-Z and resuming only set a flag and write a byte
 * to a pipe that term_read_key waits on beside the terminal; the work is
 * done there, between keys. */
#ifndef KVPLAN_TUI_TERM_SIGNALS_H
#define KVPLAN_TUI_TERM_SIGNALS_H

#include <stdbool.h>
#include <stddef.h>

/* What a signal asked for and term_read_key has not yet done. */
enum { TERM_SIG_RESIZE = 1, TERM_SIG_STOP = 2, TERM_SIG_CONT = 4 };

/* Keeps the terminal's line discipline and forgets the restore sequence;
 * false when the settings cannot be read. */
bool term_signals_save_terminal(void);

/* Adds seq (a terminfo string, NULL or -1 for none) to what restores the
 * terminal. */
void term_signals_restore_add(const char *seq);

/* Whether the terminal is switched to the planner's screen: a signal
 * restores it only then. */
void term_signals_switched(bool on);

/* The wake pipe and every handler, installed before the terminal is
 * switched; false (and err says why) when the pipe cannot be made. */
bool term_signals_open(char *err, size_t errlen);

/* The handlers of term_signals_open removed and the pipe closed; with
 * `wake` false, only the ending signals' handlers (a headless screen never
 * installed the others). */
void term_signals_close(bool wake);

/* The terminal has gone: its late SIGHUP is ignored from here on. */
void term_signals_ignore_late_hangup(void);

/* The TERM_SIG_* flags set; term_signals_take clears those of `which`
 * and says whether any was set. */
int term_signals_pending(void);
bool term_signals_take(int which);

/* The pipe the handlers write to, and its bytes read away. */
int term_signals_fd(void);
void term_signals_drain(void);

/* Ctrl-Z's stop, after the terminal was restored: stops by the default
 * action and returns on resuming, with a resize pending (the terminal may
 * have changed size meanwhile) and the terminal counted as switched again. */
void term_signals_stop(void);

#endif
