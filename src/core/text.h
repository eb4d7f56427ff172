/* text: what may be printed of text that came from input.
 *
 * C0 and C1 controls (raw or UTF-8 encoded), DEL, bytes that are not UTF-8
 * and the bidirectional overrides (U+202A-202E, U+2066-2069) would steer
 * the user's terminal or hide what a line says; they are escaped on the way
 * out (\x1b, \u009b, \u202e) or refused on the way in. */
#ifndef KVPLAN_CORE_TEXT_H
#define KVPLAN_CORE_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Length of the well-formed UTF-8 sequence at p (1 to 4) with its code
 * point in *cp, or 0 for a stray, overlong or surrogate sequence. */
size_t text_utf8_decode(const unsigned char *p, unsigned *cp);

/* True for a code point that must never reach a terminal from input. */
bool text_unsafe_char(unsigned cp);

/* Copies text to out (NUL-terminated, cut at a whole character) with every
 * unsafe character or malformed byte escaped; returns the length the whole
 * escaped text needs. */
size_t text_escape(const char *text, char *out, size_t size);

#endif
