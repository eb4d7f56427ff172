#include "term.h"

#include <curses.h>
#include <errno.h>
#include <limits.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <term.h>
#include <unistd.h>
#include <wchar.h>

#include "canvas.h"
#include "emit.h"
#include "roles.h"
#include "term_signals.h"

static SCREEN *screen;
static FILE *null_out, *null_in;
static bool mode_1002;
static bool direct; /* frames written by emit.c, not by curses' refresh */

static bool take_resize(void)
{
    if (screen == NULL || !term_signals_take(TERM_SIG_RESIZE))
        return false;
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0 || ws.ws_col == 0)
        return false;
    int rows = ws.ws_row > TERM_MAX_ROWS ? TERM_MAX_ROWS : ws.ws_row;
    int cols = ws.ws_col > TERM_MAX_COLS ? TERM_MAX_COLS : ws.ws_col;
    if (rows == LINES && cols == COLS)
        return false;
    resizeterm(rows, cols); /* queues KEY_RESIZE: the loop repaints */
    if (direct)
        untouchwin(stdscr); /* else getch would refresh it, blank, over the frame */
    return true;
}

/* Mouse motion reporting (xterm mode 1002), which ncurses does not know:
 * on after ncurses' own press/release mode (1000), off before it. */
static void motion_reporting(bool on)
{
    fputs(on ? "\033[?1002h" : "\033[?1002l", stdout);
    fflush(stdout);
    mode_1002 = on;
}

/* Ctrl-Z, between keys (term_signals.c makes the stop itself): the terminal as it was, a stop by the default
 * action, and on resuming the planner's screen again, repainted (the shell
 * drew over it). */
static void suspend(void)
{
    if (direct) {
        emit_release();
        emit_flush(STDOUT_FILENO);
    }
    motion_reporting(false);
    endwin(); /* the normal screen, mouse reporting off, the shell's modes */
    term_signals_stop();
    clearok(curscr, TRUE);
    refresh(); /* back to the planner's screen and modes, mouse reporting on */
    motion_reporting(true);
}

int term_read_key(void)
{
    int unread = 0; /* waits that found input which curses then did not read */
    for (;;) {
        int pending = term_signals_pending();
        if (pending & (TERM_SIG_STOP | TERM_SIG_CONT)) {
            /* after our stop, or one we did not make (SIGSTOP): repaint
             * over whatever the shell drew meanwhile */
            if (pending & TERM_SIG_STOP)
                suspend();
            term_signals_take(TERM_SIG_CONT);
            take_resize();
            return KEY_RESIZE;
        }
        take_resize();
        errno = 0;
        int key = getch();
        if (key != ERR)
            return key;
        if (errno == EINTR)
            continue;
        if (unread >= 3) { /* the terminal says input, curses reads none: its end */
            term_signals_ignore_late_hangup();
            return ERR;
        }
        struct pollfd fds[2] = {{.fd = STDIN_FILENO, .events = POLLIN},
                                {.fd = term_signals_fd(), .events = POLLIN}};
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return ERR;
        }
        if (fds[1].revents)
            term_signals_drain();
        if (fds[0].revents & (POLLHUP | POLLERR | POLLNVAL)) {
            term_signals_ignore_late_hangup();
            return ERR;
        }
        bool woken = term_signals_pending() != 0;
        unread = fds[0].revents != 0 && !woken ? unread + 1 : 0;
    }
}

const char *term_unusable_reason(void)
{
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
        return "standard input or output is not a terminal";
    const char *t = getenv("TERM");
    if (t == NULL || t[0] == '\0')
        return "TERM is not set";
    if (strcmp(t, "dumb") == 0)
        return "TERM=dumb cannot position the cursor";
    int err = 0;
    if (setupterm(NULL, STDOUT_FILENO, &err) != OK)
        return "the terminal type is unknown to terminfo";
    const char *cup = tigetstr("cup");
    bool ok = cup != NULL && cup != (char *)-1;
    del_curterm(cur_term);
    return ok ? NULL : "the terminal cannot position the cursor";
}

static bool locale_utf8(void)
{
    const char *cs = nl_langinfo(CODESET);
    return cs != NULL && strcmp(cs, "UTF-8") == 0;
}

static void common_setup(struct term_caps *caps, bool mono)
{
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    /* xterm's modified arrows, which some terminfo entries (screen, tmux)
     * do not list: without them Shift-Right reads as Esc and "[1;2C" */
    define_key("\033[1;2C", KEY_SRIGHT);
    define_key("\033[1;2D", KEY_SLEFT);
    define_key("\033[1;2A", KEY_SR);
    define_key("\033[1;2B", KEY_SF);
    define_key("\033[1;2H", KEY_SHOME);
    define_key("\033[1;2F", KEY_SEND);
    curs_set(0);
    set_escdelay(25);
    leaveok(stdscr, TRUE); /* the cursor is hidden: never spend output restoring it */
    /* a number that grows or shrinks by a digit shifts the rest of its row:
     * the terminal inserts or deletes characters (where it can) rather than
     * receive the row again */
    idcok(stdscr, TRUE);
    const char *no_color = getenv("NO_COLOR"); /* no-color.org: set and not empty */
    caps->color = !mono && has_colors() && (no_color == NULL || no_color[0] == '\0');
    roles_init(caps->color, caps->utf8);
}

/* ncurses sizes its screens from LINES and COLUMNS in the environment, else
 * from the terminal, when it starts: COLUMNS=30000 LINES=30000 grew to 24 GB
 * and COLUMNS=99999999 aborted inside ncurses. A larger size is
 * read as the cap, by capping what ncurses will read. */
static void cap_screen_size(void)
{
    long rows = 0, cols = 0;
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) {
        rows = ws.ws_row;
        cols = ws.ws_col;
    }
    const char *names[2] = {"LINES", "COLUMNS"};
    long *sizes[2] = {&rows, &cols};
    const long caps[2] = {TERM_MAX_ROWS, TERM_MAX_COLS};
    bool over = false;
    for (int i = 0; i < 2; i++) {
        const char *v = getenv(names[i]);
        if (v != NULL && v[0] != '\0') {
            char *end;
            errno = 0;
            long n = strtol(v, &end, 10);
            *sizes[i] = errno == ERANGE ? LONG_MAX : n;
        }
        over = over || *sizes[i] > caps[i];
    }
    if (!over)
        return;
    for (int i = 0; i < 2; i++) {
        char buf[16];
        snprintf(buf, sizeof buf, "%ld",
                 *sizes[i] > caps[i] || *sizes[i] <= 0 ? caps[i] : *sizes[i]);
        setenv(names[i], buf, 1);
    }
}

bool term_open(bool mono, bool ascii, struct term_caps *caps, char *err, size_t errlen)
{
    memset(caps, 0, sizeof *caps);
    const char *why = term_unusable_reason();
    if (why) {
        snprintf(err, errlen, "%s", why);
        return false;
    }
    caps->utf8 = !ascii && locale_utf8();
    /* the restore sequence and the terminal's own mode, then the handlers,
     * and only then the switch to the planner's screen */
    int e = 0;
    if (!term_signals_save_terminal() || setupterm(NULL, STDOUT_FILENO, &e) != OK) {
        snprintf(err, errlen, "cannot read the terminal's settings");
        return false;
    }
    term_signals_restore_add("\033[?1002l\033[?1006l\033[?1000l");
    term_signals_restore_add(tigetstr("sgr0"));
    term_signals_restore_add(tigetstr("cnorm"));
    term_signals_restore_add(tigetstr("rmkx"));
    term_signals_restore_add(tigetstr("rmcup"));
    del_curterm(cur_term);
    cap_screen_size();
    if (!term_signals_open(err, errlen))
        return false;
    screen = newterm(NULL, stdout, stdin);
    if (screen == NULL) {
        term_signals_close(true);
        snprintf(err, errlen, "cannot initialise the terminal");
        return false;
    }
    term_signals_switched(true);
    set_term(screen);
    common_setup(caps, mono);
    nodelay(stdscr, TRUE); /* term_read_key waits, on the terminal and the signals' pipe */
    mousemask(BUTTON1_PRESSED | BUTTON1_RELEASED | BUTTON1_CLICKED | BUTTON4_PRESSED |
                  BUTTON5_PRESSED | REPORT_MOUSE_POSITION,
              NULL);
    mouseinterval(0);
    caps->mouse = true;
    /* ncurses enables press/release reporting (1000) on its first refresh;
     * 1002 must come after it to also report motion while a button is held. */
    refresh();
    motion_reporting(true);
    /* the frames through emit.c unless asked for curses, or the terminal
     * lacks what it needs */
    const char *renderer = getenv("KVPLAN_RENDERER");
    char no[128];
    direct = !(renderer && strcmp(renderer, "curses") == 0) && emit_open(no, sizeof no);
    return true;
}

bool term_open_headless(int cols, int rows, bool mono, bool ascii, struct term_caps *caps,
                        char *err, size_t errlen)
{
    memset(caps, 0, sizeof *caps);
    null_out = fopen("/dev/null", "w");
    null_in = fopen("/dev/null", "r");
    if (null_out == NULL || null_in == NULL) {
        snprintf(err, errlen, "cannot open /dev/null");
        return false;
    }
    screen = newterm("xterm-256color", null_out, null_in);
    if (screen == NULL) {
        snprintf(err, errlen, "terminfo has no xterm-256color entry");
        return false;
    }
    set_term(screen);
    resizeterm(rows, cols);
    caps->headless = true;
    caps->utf8 = !ascii && locale_utf8();
    common_setup(caps, mono);
    return true;
}

void term_refresh(void)
{
    if (!direct) {
        canvas_present();
        refresh();
        return;
    }
    struct canvas_cell *now, *was;
    int cols, rows;
    bool whole;
    if (!canvas_frames(&now, &was, &cols, &rows, &whole))
        return;
    /* a repaint asked of curses (clearok: Ctrl-L, a resize, a resume) */
    whole = whole || is_cleared(stdscr) || is_cleared(curscr);
    clearok(stdscr, FALSE);
    clearok(curscr, FALSE);
    emit_frame(now, was, cols, rows, whole);
    fflush(stdout);
    emit_flush(STDOUT_FILENO);
}

void term_close(void)
{
    if (screen == NULL)
        return;
    if (direct) {
        emit_release();
        emit_flush(STDOUT_FILENO);
        emit_close();
        direct = false;
    }
    if (mode_1002)
        motion_reporting(false);
    /* a terminal without an alternate screen (vt100) keeps what was drawn:
     * clear it, so the shell's prompt does not land among the planner */
    const char *rmcup = tigetstr("rmcup");
    if (!null_out && (rmcup == NULL || rmcup == (char *)-1 || rmcup[0] == '\0')) {
        clear();
        refresh();
    }
    endwin();
    term_signals_switched(false);
    canvas_close();
    delscreen(screen);
    screen = NULL;
    term_signals_close(!null_out);
    if (null_out)
        fclose(null_out);
    if (null_in)
        fclose(null_in);
    null_out = null_in = NULL;
}

size_t term_dump_text(char *buf, size_t size)
{
    canvas_present();
    size_t used = 0;
    int rows = LINES, cols = COLS;
    for (int y = 0; y < rows; y++) {
        char line[4096];
        size_t n = 0, keep = 0;
        for (int x = 0; x < cols && n + 8 < sizeof line; x++) {
            cchar_t cc;
            if (mvin_wch(y, x, &cc) == ERR)
                break;
            wchar_t wch[CCHARW_MAX + 1];
            attr_t attrs;
            short pair;
            if (getcchar(&cc, wch, &attrs, &pair, NULL) == ERR)
                continue;
            for (int i = 0; wch[i] && i < CCHARW_MAX; i++) {
                mbstate_t st;
                memset(&st, 0, sizeof st);
                char mb[8];
                size_t k = wcrtomb(mb, wch[i], &st);
                if (k == (size_t)-1) {
                    mb[0] = '?';
                    k = 1;
                }
                memcpy(line + n, mb, k);
                n += k;
            }
            if (!(wch[0] == L' ' && wch[1] == 0))
                keep = n;
        }
        line[keep] = '\n';
        if (used + keep + 1 < size)
            memcpy(buf + used, line, keep + 1);
        used += keep + 1;
    }
    if (size > 0)
        buf[used < size ? used : size - 1] = '\0';
    return used;
}

size_t term_dump_attrs(char *buf, size_t size)
{
    canvas_present();
    size_t used = 0;
    for (int y = 0; y < LINES; y++) {
        for (int x = 0; x <= COLS; x++) {
            char c = '\n';
            if (x < COLS) {
                cchar_t cc;
                wchar_t wch[CCHARW_MAX + 1];
                attr_t attrs = 0;
                short pair = 0;
                c = '.';
                if (mvin_wch(y, x, &cc) != ERR &&
                    getcchar(&cc, wch, &attrs, &pair, NULL) != ERR) {
                    if (pair > 0)
                        c = (char)('a' + (pair - 1) % 26);
                    else if (attrs & A_BOLD)
                        c = 'B';
                    else if (attrs & A_REVERSE)
                        c = 'R';
                    else if (attrs & A_DIM)
                        c = 'D';
                    else if (attrs & A_UNDERLINE)
                        c = 'U';
                }
            }
            if (used + 1 < size)
                buf[used] = c;
            used++;
        }
    }
    if (size > 0)
        buf[used < size ? used : size - 1] = '\0';
    return used;
}

void term_clipboard(const char *text)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(text);
    fputs("\033]52;c;", stdout);
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned char)text[i] << 16;
        if (i + 1 < n)
            v |= (unsigned char)text[i + 1] << 8;
        if (i + 2 < n)
            v |= (unsigned char)text[i + 2];
        char out[4] = {b64[(v >> 18) & 63], b64[(v >> 12) & 63],
                       i + 1 < n ? b64[(v >> 6) & 63] : '=', i + 2 < n ? b64[v & 63] : '='};
        fwrite(out, 1, 4, stdout);
    }
    fputs("\a", stdout);
    fflush(stdout);
}

bool term_input_within(int ms)
{
    struct pollfd fds[2] = {{.fd = STDIN_FILENO, .events = POLLIN},
                            {.fd = term_signals_fd(), .events = POLLIN}};
    int n;
    do
        n = poll(fds, 2, ms);
    while (n < 0 && errno == EINTR);
    return n != 0; /* input, a signal, or an error term_read_key then reports */
}
