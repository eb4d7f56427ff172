/* term_signals: what the terminal's signals do (see term_signals.h). */
#include "term_signals.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

/* Every signal whose default action ends the process. Each one restores the
 * terminal and exits with 128 + the signal (130 for Ctrl-C): a hardening pass found
 * Ctrl-\, SIGUSR1 and SIGALRM leaving it raw, on the alternate screen, with
 * mouse reporting on. The handlers are installed before the terminal is
 * switched, so a signal at any moment finds them. */
static const int ending_signals[] = {SIGHUP,  SIGINT,  SIGQUIT, SIGTERM,   SIGUSR1, SIGUSR2,
                                     SIGALRM, SIGPIPE, SIGXCPU, SIGXFSZ,   SIGVTALRM,
                                     SIGPROF, SIGPOLL, SIGSYS};
enum { ENDING_SIGNALS = sizeof ending_signals / sizeof ending_signals[0] };
static struct sigaction ending_saved[ENDING_SIGNALS];
static bool ending_installed;

/* What restores the terminal, prepared before it is switched, so the handler
 * only writes bytes and resets the line discipline (async-signal-safe):
 * attributes off, cursor shown, keypad and mouse reporting off, the normal
 * screen back. */
static char restore_bytes[256];
static size_t restore_len;
static struct termios saved_termios;
static volatile sig_atomic_t terminal_switched;

static void add_restore(const char *seq)
{
    if (seq == NULL || seq == (char *)-1)
        return;
    size_t n = strlen(seq);
    if (restore_len + n < sizeof restore_bytes) {
        memcpy(restore_bytes + restore_len, seq, n);
        restore_len += n;
    }
}

static void restore_terminal_now(void)
{
    if (terminal_switched) {
        terminal_switched = 0;
        ssize_t ignored = write(STDOUT_FILENO, restore_bytes, restore_len);
        (void)ignored;
        tcsetattr(STDIN_FILENO, TCSANOW, &saved_termios);
    }
}

static void on_ending_signal(int sig)
{
    restore_terminal_now();
    _exit(128 + sig);
}

static void install_ending_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_ending_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < ENDING_SIGNALS; i++)
        sigaddset(&sa.sa_mask, ending_signals[i]); /* one restore, never two at once */
    for (int i = 0; i < ENDING_SIGNALS; i++) {
        sigaction(ending_signals[i], NULL, &ending_saved[i]);
        /* a signal the caller chose to ignore (nohup) stays ignored */
        if (ending_saved[i].sa_handler != SIG_IGN)
            sigaction(ending_signals[i], &sa, NULL);
    }
    ending_installed = true;
}

/* The terminal has gone (its reader met a hangup or the end of input): the
 * hangup's SIGHUP, which may land after the planner has begun to close, is
 * that same event, not a reason to die by a signal. It is ignored from here
 * on, also after the handlers are removed; the planner ends by its own exit. */
static void ignore_late_hangup(void)
{
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    for (int i = 0; i < ENDING_SIGNALS; i++)
        if (ending_signals[i] == SIGHUP && ending_installed)
            ending_saved[i] = ign;
    sigaction(SIGHUP, &ign, NULL);
}

static void remove_ending_handlers(void)
{
    if (!ending_installed)
        return;
    for (int i = 0; i < ENDING_SIGNALS; i++)
        sigaction(ending_signals[i], &ending_saved[i], NULL);
    ending_installed = false;
}

/* A fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL) or an abort restores the
 * terminal too, then dies by the same signal: the handler found before
 * (the default, or a sanitizer's report) is put back and the signal raised
 * again, or, for a fault the kernel raised, met again on return. */
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
enum { FATAL_SIGNALS = sizeof fatal_signals / sizeof fatal_signals[0] };
static struct sigaction fatal_saved[FATAL_SIGNALS];

static void on_fatal_signal(int sig, siginfo_t *info, void *context)
{
    (void)context;
    restore_terminal_now();
    for (int i = 0; i < FATAL_SIGNALS; i++)
        if (fatal_signals[i] == sig)
            sigaction(sig, &fatal_saved[i], NULL);
    if (info == NULL || info->si_code <= 0) /* sent (kill, raise, abort), not a fault */
        raise(sig);
}

static void install_fatal_handlers(bool on)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fatal_signal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < FATAL_SIGNALS; i++) {
        if (on)
            sigaction(fatal_signals[i], &sa, &fatal_saved[i]);
        else
            sigaction(fatal_signals[i], &fatal_saved[i], NULL);
    }
}

/* Resizes, Ctrl-Z and resuming are ours rather than ncurses': its SIGTSTP
 * handler repainted from inside whatever curses call the signal landed in
 * (a resize's, corrupting the heap), and its resize handler resizes to
 * whatever the terminal says, while the planner never allocates past
 * TERM_MAX_COLS x TERM_MAX_ROWS. Each handler sets a flag and writes a byte
 * to a pipe that term_read_key waits on beside the terminal, so a signal
 * just before the wait still wakes it; the work is done there, between
 * keys. */
static volatile sig_atomic_t resize_pending, stop_pending, continued;
static int wake_pipe[2] = {-1, -1};
static struct sigaction winch_saved, tstp_saved, cont_saved;

static void on_wake_signal(int sig)
{
    int saved_errno = errno;
    if (sig == SIGWINCH)
        resize_pending = 1;
    else if (sig == SIGTSTP)
        stop_pending = 1;
    else
        continued = 1;
    if (wake_pipe[1] >= 0) {
        ssize_t ignored = write(wake_pipe[1], "", 1); /* non-blocking: a full pipe wakes already */
        (void)ignored;
    }
    errno = saved_errno;
}

static bool open_wake_pipe(void)
{
    if (pipe(wake_pipe) != 0)
        return false;
    for (int i = 0; i < 2; i++) {
        fcntl(wake_pipe[i], F_SETFL, fcntl(wake_pipe[i], F_GETFL) | O_NONBLOCK);
        fcntl(wake_pipe[i], F_SETFD, FD_CLOEXEC);
    }
    return true;
}

static void close_wake_pipe(void)
{
    for (int i = 0; i < 2; i++) {
        if (wake_pipe[i] >= 0)
            close(wake_pipe[i]);
        wake_pipe[i] = -1;
    }
}

/* Installs (or, with `on` false, removes) the resize, stop and resume
 * handlers. Without SA_RESTART: a read they interrupt returns. A stop the
 * caller chose to ignore stays ignored, and ncurses, which takes SIGTSTP
 * only while it is SIG_DFL, leaves it to us. */
static void install_wake_handlers(bool on)
{
    if (!on) {
        sigaction(SIGWINCH, &winch_saved, NULL);
        sigaction(SIGTSTP, &tstp_saved, NULL);
        sigaction(SIGCONT, &cont_saved, NULL);
        return;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_wake_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGWINCH, &sa, &winch_saved);
    sigaction(SIGCONT, &sa, &cont_saved);
    sigaction(SIGTSTP, NULL, &tstp_saved);
    if (tstp_saved.sa_handler != SIG_IGN)
        sigaction(SIGTSTP, &sa, NULL);
}
bool term_signals_save_terminal(void)
{
    restore_len = 0;
    return tcgetattr(STDIN_FILENO, &saved_termios) == 0;
}

void term_signals_restore_add(const char *seq)
{
    add_restore(seq);
}

void term_signals_switched(bool on)
{
    terminal_switched = on;
}

bool term_signals_open(char *err, size_t errlen)
{
    if (!open_wake_pipe()) {
        snprintf(err, errlen, "cannot create a pipe: %s", strerror(errno));
        return false;
    }
    install_ending_handlers();
    install_fatal_handlers(true);
    install_wake_handlers(true);
    return true;
}

void term_signals_close(bool wake)
{
    if (wake) {
        install_wake_handlers(false);
        install_fatal_handlers(false);
        close_wake_pipe();
    }
    remove_ending_handlers();
}

void term_signals_ignore_late_hangup(void)
{
    ignore_late_hangup();
}

int term_signals_pending(void)
{
    return (resize_pending ? TERM_SIG_RESIZE : 0) | (stop_pending ? TERM_SIG_STOP : 0) |
           (continued ? TERM_SIG_CONT : 0);
}

bool term_signals_take(int which)
{
    bool any = (term_signals_pending() & which) != 0;
    if (which & TERM_SIG_RESIZE)
        resize_pending = 0;
    if (which & TERM_SIG_STOP)
        stop_pending = 0;
    if (which & TERM_SIG_CONT)
        continued = 0;
    return any;
}

int term_signals_fd(void)
{
    return wake_pipe[0];
}

void term_signals_drain(void)
{
    char drain[64];
    while (read(wake_pipe[0], drain, sizeof drain) > 0)
        ;
}

void term_signals_stop(void)
{
    stop_pending = 0;
    terminal_switched = 0;
    struct sigaction dfl, ours;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGTSTP, &dfl, &ours);
    sigset_t tstp;
    sigemptyset(&tstp);
    sigaddset(&tstp, SIGTSTP);
    sigprocmask(SIG_UNBLOCK, &tstp, NULL);
    raise(SIGTSTP); /* stops here, unless an orphaned process group discards it */
    stop_pending = 0; /* a Ctrl-Z typed while stopping asked for this stop */
    sigaction(SIGTSTP, &ours, NULL);
    terminal_switched = 1;
    continued = 0;
    resize_pending = 1; /* the terminal may have changed size meanwhile */
}
