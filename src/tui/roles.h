/* roles: colours by meaning, each with a monochrome attribute and a glyph,
 * so the screen reads the same without colour (and the legend says which
 * glyph is which). */
#ifndef KVPLAN_TUI_ROLES_H
#define KVPLAN_TUI_ROLES_H

#include <curses.h>
#include <stdbool.h>

enum role {
    ROLE_TEXT = 0,
    ROLE_DIM,
    ROLE_TITLE,
    ROLE_FOCUS,
    ROLE_KEY,
    ROLE_GOOD,
    ROLE_BAD,
    ROLE_WARN,
    ROLE_WEIGHTS,
    ROLE_RUNTIME,
    ROLE_PREFIX,
    ROLE_KV,
    ROLE_REMAINDER,
    ROLE_HEADROOM,
    ROLE_OVER,
    ROLE_TRACK,
    ROLE_DRAFT, /* a bar segment: the draft model's weights (appended: pair numbers stay) */
    ROLE_STATE, /* the users' fixed state of state-space layers */
    ROLE_LORA, /* the bar's LoRA slots */
    ROLE_ENCODER, /* the bar's encoder cache */
    ROLE_COUNT
};

/* Sets up colour pairs when colour is on; call once after the screen opens. */
void roles_init(bool color, bool utf8);

/* The attribute to draw a role with (colour pair, or bold/reverse/dim in mono). */
attr_t role_attr(enum role r);

/* The fill glyph of a bar segment role: full block in colour, a distinct
 * ASCII or Unicode shade in monochrome ("#", "=", ":" ...). */
const char *role_glyph(enum role r);

/* What makes text stand out beyond its role: bold, or nothing where the
 * roles already use bright colours. */
attr_t role_emphasis(void);

/* True when colour is in use. */
bool roles_color(void);
bool roles_utf8(void);

#endif
