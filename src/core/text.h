/* text: what may be printed or stored of text that came from input.
 *
 * C0 and C1 controls (raw or UTF-8 encoded), DEL, bytes that are not UTF-8,
 * the bidirectional overrides and isolates (U+202A-202E, U+2066-2069) and
 * marks (U+200E, U+200F, U+061C), and the line and paragraph separators
 * (U+2028, U+2029) would steer the user's terminal, break a line or hide
 * what it says; they are escaped on the way out (\x1b, \u009b, \u202e),
 * refused on the way in, or dropped where a name comes from another program.
 *
 * Every stored text field has a limit in bytes of UTF-8 (its buffer less
 * the NUL); text is cut, when it must be, only between whole characters. */
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

/* Why a stored text would be refused (the last two: a name only). */
enum text_fault { TEXT_OK, TEXT_TOO_LONG, TEXT_NOT_UTF8, TEXT_UNSAFE, TEXT_INVISIBLE, TEXT_MARK_FIRST };

/* Checks text against what every stored field holds: at most max bytes,
 * well-formed UTF-8, no unsafe character (its code point in *cp). */
enum text_fault text_check(const char *text, size_t max, unsigned *cp);

/* What a name (a scenario's label) must be on top of text_check, so that
 * two names that look alike are one name (text_same_name): no invisible
 * format character (U+00AD, U+200B-200D, U+2060-2064, U+FEFF, U+180E), and
 * no combining mark (U+0300-036F, U+1AB0-1AFF, U+1DC0-1DFF, U+20D0-20FF,
 * U+FE20-FE2F) first, spaces aside; the code point in *cp. */
enum text_fault text_check_name(const char *text, size_t max, unsigned *cp);

/* True for a space as names trim and compare it: U+0020, U+00A0, U+1680,
 * U+2000-200A, U+202F, U+205F and U+3000. */
bool text_space_char(unsigned cp);

/* True when two names are one: compared without leading and trailing
 * spaces, every space as U+0020, full-width ASCII (U+FF01-FF5E) as ASCII
 * and ASCII letters without case ("fp8", " FP8\u00a0" and full-width "fp8"). */
bool text_same_name(const char *a, const char *b);

/* The fault as the end of a message after a field name: "longer than 24
 * bytes", "is not valid UTF-8 text", "contains a control character (U+001B)",
 * "contains an invisible character (U+200B)", "starts with a combining mark (U+0301)". */
void text_fault_describe(enum text_fault f, unsigned cp, size_t max, char *buf, size_t size);

/* Copies text to out (size bytes, NUL included) as a stored field may hold
 * it: unsafe characters dropped, each byte that is not UTF-8 replaced by
 * U+FFFD, cut at a whole character. True when anything was changed. */
bool text_sanitize(const char *text, char *out, size_t size);

/* The text without its leading and trailing spaces (text_space_char), as
 * pointer and length. */
const char *text_trim(const char *text, size_t *len);

/* The ending of name's possessive in English: "'" after a final s
 * ("llama.cpp 2026 builds' own rule"), "'s" otherwise. */
const char *text_possessive(const char *name);

/* Appends src to the text of buf (size bytes, *len of them used), cut as
 * snprintf cuts a text too long for its buffer (at a byte; always ended,
 * nothing written when size is 0); returns buf. What snprintf(buf, size,
 * "%s%s", buf, src) gives, without printf's machinery: the planner puts
 * its texts together each frame. */
char *text_append(char *buf, size_t size, size_t *len, const char *src);

/* The same from an empty text: snprintf(buf, size, "%s", src). */
char *text_copy(char *buf, size_t size, const char *src);

/* Offset of the last character of text[0..n) (n when n is 0): where a
 * Backspace cuts. An unfinished sequence at the end counts as one character. */
size_t text_last_char(const char *text, size_t n);

#endif
