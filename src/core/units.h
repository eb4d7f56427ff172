/* units: parsing and formatting of token counts and byte sizes.
 *
 * Tokens follow how context windows are named: 8k = 8,192, 128k = 131,072,
 * 1M = 1,048,576 (binary multiples), plain integers as they are.
 * Sizes must carry a unit: GB = 10^9 bytes, GiB = 2^30 bytes (also B, KB,
 * KiB, MB, MiB, TB, TiB), so "80GB" can never be mistaken for "80GiB". */
#ifndef KVPLAN_CORE_UNITS_H
#define KVPLAN_CORE_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

enum unit_system { UNITS_GIB = 0, UNITS_GB = 1 };

#define KIB ((uint64_t)1024)
#define MIB (KIB * 1024)
#define GIB (MIB * 1024)
#define TIB (GIB * 1024)

/* Largest token count accepted anywhere: 2^40 tokens (no engine comes close;
 * it keeps every product of tokens and bytes within 64 bits). */
#define TOKENS_MAX ((uint64_t)1 << 40)

/* Parses "4000", "8k", "128K", "1M", "32,768". Fails (with the reason in d)
 * on anything else, on zero when !allow_zero, and above TOKENS_MAX. */
bool units_parse_tokens(const char *text, bool allow_zero, uint64_t *out, struct diag *d);

/* Parses "80GB", "79.65 GiB", "512MiB", "1TB", "123456B". A unit is required.
 * The result is rounded to the nearest byte. */
bool units_parse_size(const char *text, uint64_t *out, struct diag *d);

/* Digit groups: every parser here accepts commas or underscores only between
 * groups of three digits ("131,072", "1_000") and refuses the rest with the
 * reason ("79,65GiB", "1,5k": a comma is not a decimal point). */

/* Parses a decimal number within [min, max] ("10", "7.5"); "-0" gives 0. */
bool units_parse_number(const char *text, double min, double max, double *out, struct diag *d);

/* Parses a whole count within [min, max] ("8", "1,024"): GPUs, heads, slots,
 * users. A fraction ("2.5", "1.9") is refused, never truncated; the message
 * says "'2.5' is not a whole number: a count cannot be a fraction", or
 * "'0' is not a whole number from 1 to 65536" when out of range. */
bool units_parse_count(const char *text, uint64_t min, uint64_t max, uint64_t *out,
                       struct diag *d);

/* "85,520,809,984" */
char *units_format_int(uint64_t value, char *buf, size_t size);

/* "79.65 GiB" or "85.52 GB" (two decimals; B, KiB/KB and MiB/MB for small values). */
char *units_format_bytes(uint64_t bytes, enum unit_system units, char *buf, size_t size);

/* units_format_bytes with `places` decimals (2 to 6), and the number it
 * shows, in its own unit ("1.0737 GB": 1.0737). */
char *units_format_bytes_places(uint64_t bytes, enum unit_system units, int places, char *buf,
                                size_t size);
double units_bytes_shown(uint64_t bytes, enum unit_system units, int places);

/* Bytes in the largest binary unit that divides them exactly when there is one
 * ("512 KiB", "16 GiB"), else like units_format_bytes in GiB. */
char *units_format_bytes_exact(uint64_t bytes, char *buf, size_t size);

/* "8,192" or "128k (131,072)" style token label: "131,072 (128k)". */
char *units_format_tokens(uint64_t tokens, char *buf, size_t size);

/* Short token label for sliders and axes: "4k", "128k", "1M", "1.5M", "5,546". */
char *units_format_tokens_short(uint64_t tokens, char *buf, size_t size);

/* The same short form as an option or CSV field takes it: 1M, 8k, or plain
 * digits without grouping (1625). */
char *units_format_tokens_arg(uint64_t tokens, char *buf, size_t size);

/* The article before a number as written here, read aloud: "an" for one
 * that sounds with a vowel (8, 11, 18, 80, 800, 8,192, 8k, 11,000, 18k),
 * "a" otherwise (1, 110, 1,800, 180k). */
const char *units_article(const char *number);

/* Name of the unit: "GiB" or "GB". */
const char *units_name(enum unit_system units);

/* Value of one display unit in bytes: 2^30 or 10^9. */
double units_scale(enum unit_system units);

#endif
