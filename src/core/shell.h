/* shell: command lines a user pastes into a POSIX shell (the launch lines,
 * the planner's copied `kvplan plan` line).
 *
 * Each argument is given as one word and written so that the shell reads
 * back exactly that word, whatever it holds: a word of only plain
 * characters (letters, digits and _ - . / , : = + @ %) as it is, anything
 * else in single quotes, a quote inside as '\''. So an ordinary line reads
 * as it always did, and no ';', '|', '$(', backtick or newline in a name
 * runs anything.
 *
 * A line never comes out cut: a builder writes into the caller's buffer,
 * counts what the whole line needs, and when that does not fit leaves the
 * buffer empty and says so. */
#ifndef KVPLAN_CORE_SHELL_H
#define KVPLAN_CORE_SHELL_H

#include <stdbool.h>
#include <stddef.h>

struct shell_line {
    char *buf;   /* the caller's */
    size_t size;
    size_t need; /* bytes the whole line needs, without the NUL */
    bool remarked; /* a remark is written: a further one follows it after "; " */
};

/* Starts an empty line in buf (size > 0). */
void shell_line_init(struct shell_line *l, char *buf, size_t size);

/* Appends one argument, after a space unless the line is empty. */
void shell_word(struct shell_line *l, const char *word);
void shell_wordf(struct shell_line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends the words of a fixed text kvplan writes ("--enable-lora
 * --max-loras"), split at its spaces, each as shell_word does. */
void shell_words(struct shell_line *l, const char *text);

/* Appends an option and its value: two words, "--tp" "4". */
void shell_option(struct shell_line *l, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Appends len bytes of words already written as this builder writes them
 * (a part of another line), after a space unless the line is empty. */
void shell_raw(struct shell_line *l, const char *text, size_t len);

/* Where the word starting at p ends in a line this builder wrote: at the
 * first space outside quotes, or at the end. */
const char *shell_word_end(const char *p);

/* Appends a remark after the arguments ("  # x 2 replicas"), as given but
 * with any control character shown as '?': nothing in it ends the line. */
void shell_comment(struct shell_line *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* True when the whole line is in buf; otherwise buf is "" (never a cut
 * line). Returns the bytes it needs in *need when need is not NULL. */
bool shell_line_done(struct shell_line *l, size_t *need);

/* True for a non-empty word of plain characters only (written unquoted). */
bool shell_word_plain(const char *word);

/* The word as the shell must be given it; returns the length that needs
 * (like snprintf: out holds it whole only when that is less than size). */
size_t shell_quote(const char *word, char *out, size_t size);

/* Lines of at most `width` bytes that, pasted together into a shell, are
 * the command `line` (as the builder above writes it): each line but the
 * last ends in a continuation (" \" between words, "\" or "'\" inside a
 * word too long for a line, which goes on at the start of the next one); a
 * remark wraps into further remark lines. The lines go to out, each ending
 * in '\n'; returns the length that needs (out is "" when it does not fit).
 * width below 16 is taken as 16. */
size_t shell_wrap(const char *line, size_t width, char *out, size_t size);

#endif
