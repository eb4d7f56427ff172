#include "roles.h"

static bool use_color;
static bool use_utf8;
static bool use_bright; /* 16 colours or more: emphasis by a bright colour, not bold */

struct role_def {
    short fg, bg;
    attr_t color_extra;
    attr_t mono;
    const char *glyph_utf8_mono;
    const char *glyph_ascii;
};

static const struct role_def defs[ROLE_COUNT] = {
    [ROLE_TEXT] = {-1, -1, 0, 0, " ", " "},
    [ROLE_DIM] = {COLOR_CYAN, -1, 0, A_DIM, " ", " "},
    [ROLE_TITLE] = {COLOR_YELLOW, -1, A_BOLD, A_BOLD, " ", " "},
    [ROLE_FOCUS] = {COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE, " ", " "},
    [ROLE_KEY] = {COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE, " ", " "},
    [ROLE_GOOD] = {COLOR_GREEN, -1, A_BOLD, A_BOLD, " ", " "},
    [ROLE_BAD] = {COLOR_RED, -1, A_BOLD, A_BOLD | A_UNDERLINE, " ", " "},
    [ROLE_WARN] = {COLOR_YELLOW, -1, 0, A_BOLD, " ", " "},
    [ROLE_WEIGHTS] = {COLOR_BLUE, -1, 0, 0, "\u2593", "#"},
    [ROLE_RUNTIME] = {COLOR_CYAN, -1, 0, 0, "\u259a", "+"},
    [ROLE_PREFIX] = {COLOR_MAGENTA, -1, 0, 0, "\u2592", "%"},
    [ROLE_KV] = {COLOR_GREEN, -1, 0, 0, "\u2588", "="},
    [ROLE_STATE] = {COLOR_GREEN, -1, A_BOLD, A_BOLD, "\u2584", "s"},
    [ROLE_REMAINDER] = {COLOR_WHITE, -1, A_DIM, 0, "\u2591", ":"},
    [ROLE_HEADROOM] = {COLOR_YELLOW, -1, 0, 0, "\u00b7", "."},
    [ROLE_OVER] = {COLOR_RED, -1, A_BOLD, A_BOLD, "X", "X"},
    [ROLE_TRACK] = {COLOR_WHITE, -1, A_DIM, A_DIM, "\u2500", "-"},
    [ROLE_DRAFT] = {COLOR_BLUE, -1, A_BOLD, 0, "\u2590", "&"},
    [ROLE_LORA] = {COLOR_MAGENTA, -1, A_BOLD, 0, "\u259e", "~"},
    [ROLE_ENCODER] = {COLOR_CYAN, -1, A_BOLD, 0, "\u2580", "@"},
};

void roles_init(bool color, bool utf8)
{
    use_color = color;
    use_utf8 = utf8;
    if (!color)
        return;
    start_color();
    use_default_colors();
    /* Bold can only be switched off by resetting every attribute (sgr0), so
     * a screen that alternates bold and plain runs sends a reset at each
     * change; bright colours change with one short sequence instead. */
    use_bright = COLORS >= 16;
    for (int r = 0; r < ROLE_COUNT; r++) {
        short fg = defs[r].fg;
        if (use_bright && (defs[r].color_extra & A_BOLD) && fg >= 0 && fg < 8)
            fg = (short)(fg + 8);
        init_pair((short)(r + 1), fg, defs[r].bg);
    }
    /* Blank cells carry the plain text's pair, not pair 0: going back to
     * plain text is then a colour change, never a full attribute reset. */
    bkgdset((chtype)' ' | COLOR_PAIR(ROLE_TEXT + 1));
}

attr_t role_attr(enum role r)
{
    if (r < 0 || r >= ROLE_COUNT)
        return A_NORMAL;
    if (use_color)
        return COLOR_PAIR(r + 1) | (use_bright ? defs[r].color_extra & ~(attr_t)A_BOLD
                                               : defs[r].color_extra);
    return defs[r].mono;
}

const char *role_glyph(enum role r)
{
    if (r < 0 || r >= ROLE_COUNT)
        return " ";
    if (use_color && ((r >= ROLE_WEIGHTS && r <= ROLE_OVER && r != ROLE_HEADROOM) || r == ROLE_DRAFT ||
                      r == ROLE_STATE || r == ROLE_LORA || r == ROLE_ENCODER))
        return use_utf8 ? "\u2588" : "#";
    return use_utf8 ? defs[r].glyph_utf8_mono : defs[r].glyph_ascii;
}

bool roles_color(void)
{
    return use_color;
}

attr_t role_emphasis(void)
{
    return use_color && use_bright ? A_NORMAL : A_BOLD;
}

bool roles_utf8(void)
{
    return use_utf8;
}
