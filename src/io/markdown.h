/* markdown: text that came from input (names, ids, labels, notes, the
 * sources in a preset) made safe to write into GitHub-flavoured Markdown,
 * so that a name reads as the name and never as markup: a '|' never splits
 * a table cell, '<script>', '<img ...>' or '<b>' never reach a renderer as
 * HTML, '[x](javascript:...)' never becomes a link, and a backtick never
 * closes a code span early. kvplan's own words and numbers need neither. */
#ifndef KVPLAN_IO_MARKDOWN_H
#define KVPLAN_IO_MARKDOWN_H

#include <stddef.h>

/* The room an escaped copy of n bytes of text may need ("&amp;" for '&'). */
#define MD_TEXT_SIZE(n) (5 * (n) + 1)

/* Copies text to out as inline Markdown, for a table cell, a heading or a
 * list item: '<', '>' and '&' as HTML entities; '\', '`', '*', '[', ']',
 * '|', '#', '!', '~' and any '_' not inside a word with a backslash; a '-',
 * '+' or "1." that would start a list, and leading spaces, defused; a
 * control character (a newline) as a space, never a new row. Cut at a whole
 * character when out is too small. Returns out. */
const char *md_text(const char *text, char *out, size_t size);

/* The room a code span of n bytes of text may need (a fence longer than
 * any run of backticks in it, each side, and the padding spaces). */
#define MD_CODE_SIZE(n) (3 * (n) + 5)

/* Writes text as one inline code span: fenced by one backtick more than
 * the longest run of backticks in it, with a space inside each fence when
 * the text begins or ends with a backtick (or with spaces at both ends),
 * as CommonMark reads it back to the same text; control characters as
 * spaces. For a paragraph: in a table cell a '|' would still split it. Cut
 * at a whole character, the fence kept, when out is too small. Returns out. */
const char *md_code(const char *text, char *out, size_t size);

#endif
