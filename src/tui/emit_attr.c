/* emit_attr: the attribute changes emit.c writes, each worked out once
 * from the terminal's strings and kept. */
#include "emit_attr.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>

/* The changes worked out, by the attributes they go from and to. */
enum { TRANS_SLOTS = 256, TRANS_MAX = 60 };
struct trans {
    uint32_t from, to;
    bool used;
    unsigned char len;
    char s[TRANS_MAX];
};
static struct trans *trans;

/* Pairs whose colours are the terminal's own (an erase without bce leaves
 * those): 0 not yet asked, 1 default, 2 not. */
static unsigned char pair_default[256];

/* The attribute strings: an attribute the terminal cannot show (no
 * string, or no_color_video's with a colour pair) is left out, as curses
 * leaves it out. */
static const struct {
    attr_t attr;
    const char *name;
} attr_caps[] = {{A_STANDOUT, "smso"}, {A_UNDERLINE, "smul"}, {A_REVERSE, "rev"},
                 {A_BLINK, "blink"},   {A_DIM, "dim"},       {A_BOLD, "bold"},
                 {A_INVIS, "invis"},   {A_PROTECT, "prot"},  {A_ITALIC, "sitm"}};
enum { ATTR_CAPS = sizeof attr_caps / sizeof attr_caps[0] };
static struct emit_cap attr_str[ATTR_CAPS], sgr0, op, setaf, setab;
static attr_t shown_attrs, ncv_attrs; /* those with a string; those not with colour */
static bool ax;                       /* default colours one at a time (SGR 39, 49) */


static char seq[256];
static size_t seq_len;

static void seq_add(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (seq_len + n <= sizeof seq) {
        memcpy(seq + seq_len, s, n);
        seq_len += n;
    }
}

static void pair_colors(int pair, short *fg, short *bg)
{
    *fg = *bg = -1;
    if (pair != 0 && pair_content((short)pair, fg, bg) != OK)
        *fg = *bg = -1;
}

/* Length of the SGR (ESC [ digits and semicolons m) at s, or 0. */
static size_t sgr_at(const char *s, size_t n)
{
    if (n < 3 || s[0] != '\033' || s[1] != '[')
        return 0;
    for (size_t i = 2; i < n; i++) {
        if (s[i] == 'm')
            return i + 1;
        if (s[i] != ';' && (s[i] < '0' || s[i] > '9'))
            return 0;
    }
    return 0;
}

/* Back-to-back SGRs as one (ESC [30m ESC [46m as ESC [30;46m: ECMA-48's
 * parameters, in the same order), an empty parameter list written as 0. */
static void merge_sgrs(void)
{
    char out[sizeof seq];
    size_t o = 0, last = 0; /* last: where the previous SGR ends in out, 0: none */
    for (size_t i = 0; i < seq_len;) {
        size_t k = sgr_at(seq + i, seq_len - i);
        if (k > 0 && last == o && o > 0) {
            out[o - 1] = ';'; /* its m */
            if (k == 3)
                out[o++] = '0';
            memcpy(out + o, seq + i + 2, k - 2);
            o += k - 2;
        } else {
            memcpy(out + o, seq + i, k ? k : 1);
            o += k ? k : 1;
        }
        last = k > 0 ? o : last;
        i += k ? k : 1;
    }
    memcpy(seq, out, o);
    seq_len = o;
}

/* What goes from attributes a to b (each with its pair), into seq. */
static void transition(uint32_t a, uint32_t b)
{
    int pa = PAIR_NUMBER((attr_t)a), pb = PAIR_NUMBER((attr_t)b);
    attr_t from = (attr_t)a & shown_attrs & ~(pa ? ncv_attrs : 0);
    attr_t to = (attr_t)b & shown_attrs & ~(pb ? ncv_attrs : 0);
    short fa, ba, fb, bb;
    pair_colors(pa, &fa, &ba);
    pair_colors(pb, &fb, &bb);
    seq_len = 0;
    if (from & ~to) { /* an attribute goes off: only a reset does that */
        seq_add(sgr0.s);
        from = A_NORMAL;
        fa = ba = -1;
    }
    for (int i = 0; i < ATTR_CAPS; i++)
        if (to & ~from & attr_caps[i].attr)
            seq_add(attr_str[i].s);
    bool fg_off = fb < 0 && fa >= 0, bg_off = bb < 0 && ba >= 0;
    if (ax && fg_off != bg_off) {
        /* AX: the terminal takes ECMA-48's default foreground (39) and
         * background (49) one at a time, as curses then writes them */
        seq_add(fg_off ? "\033[39m" : "\033[49m");
        fa = fg_off ? -1 : fa;
        ba = bg_off ? -1 : ba;
    } else if ((fg_off || bg_off) && op.s) {
        seq_add(op.s);
        fa = ba = -1;
    }
    if (fb >= 0 && fb != fa && setaf.s)
        seq_add(tiparm(setaf.s, fb));
    if (bb >= 0 && bb != ba && setab.s)
        seq_add(tiparm(setab.s, bb));
    merge_sgrs();
}

const char *emit_attr_open(void)
{
    shown_attrs = ncv_attrs = 0;
    int ncv = tigetnum("ncv");
    for (int i = 0; i < ATTR_CAPS; i++) {
        if (!emit_cap_load(&attr_str[i], attr_caps[i].name))
            return "the terminal needs padding";
        if (attr_str[i].s)
            shown_attrs |= attr_caps[i].attr;
        if (ncv > 0 && i < 8 && (ncv & 1 << i)) /* ncv's bits, in the order of the table */
            ncv_attrs |= attr_caps[i].attr;
    }
    if (!emit_cap_load(&sgr0, "sgr0") || !emit_cap_load(&op, "op") ||
        !emit_cap_load(&setaf, "setaf") || !emit_cap_load(&setab, "setab"))
        return "the terminal needs padding";
    if (sgr0.s == NULL && shown_attrs)
        return "the terminal cannot reset its attributes";
    ax = tigetflag("AX") > 0;
    memset(pair_default, 0, sizeof pair_default);
    free(trans);
    trans = calloc(TRANS_SLOTS, sizeof *trans);
    return trans == NULL ? "out of memory" : NULL;
}

void emit_attr_close(void)
{
    free(trans);
    trans = NULL;
}

const char *emit_attr_change(uint32_t from, uint32_t to, size_t *n)
{
    uint32_t h = from * 0x9e3779b1u + to; /* the pair is in bits 8-15 */
    h ^= h >> 15;
    h = (h * 0x85ebca6bu) >> 24;
    struct trans *t = NULL;
    for (uint32_t i = 0; trans != NULL && i < TRANS_SLOTS; i++) {
        struct trans *s = &trans[(h + i) & (TRANS_SLOTS - 1)];
        if (s->used && s->from == from && s->to == to) {
            *n = s->len;
            return s->s;
        }
        if (!s->used) {
            t = s;
            break;
        }
    }
    transition(from, to);
    if (t != NULL && seq_len <= TRANS_MAX) {
        *t = (struct trans){.from = from, .to = to, .used = true, .len = (unsigned char)seq_len};
        memcpy(t->s, seq, seq_len);
    }
    *n = seq_len;
    return seq;
}

bool emit_attr_clearable(uint32_t a, bool bce)
{
    if ((attr_t)a & (A_ATTRIBUTES & ~(attr_t)A_COLOR))
        return false;
    int pair = PAIR_NUMBER((attr_t)a);
    if (bce || pair == 0)
        return true;
    if (pair >= (int)sizeof pair_default)
        return false;
    if (pair_default[pair] == 0) {
        short fg, bg;
        bool own = pair_content((short)pair, &fg, &bg) == OK && fg == -1 && bg == -1;
        pair_default[pair] = own ? 1 : 2;
    }
    return pair_default[pair] == 1;
}
