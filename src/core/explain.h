/* explain: every result of a plan as data: an expression over named
 * operands, each with its value and unit, and the result it gives.
 *
 * Rows are built in core by the plan (one builder per profile); the text and
 * markdown reports, the planner's explain pane and the JSON snapshot all
 * render the same rows, and a test evaluates every row to check that what is
 * printed is what the operands give. No I/O: formatting into fixed buffers. */
#ifndef KVPLAN_CORE_EXPLAIN_H
#define KVPLAN_CORE_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "units.h"

enum {
    EXPLAIN_ROWS_MAX = 80,
    EXPLAIN_TERMS_MAX = 12,
    EXPLAIN_STEPS_MAX = 28,
    EXPLAIN_KEY_MAX = 24,
    EXPLAIN_LABEL_MAX = 40,
    EXPLAIN_NAME_MAX = 48,
    EXPLAIN_VALUE_MAX = 48,
    EXPLAIN_TEXT_MAX = 640
};

/* How a value is written. Bytes follow the unit system (GiB or GB). */
enum xunit {
    XU_COUNT,       /* 32 layers, 4 GPUs: an integer with separators */
    XU_TOKENS,      /* 32,768 tokens */
    XU_BYTES,       /* 1.95 GiB; negative: "short by 1.20 GiB" */
    XU_BYTES_EXACT, /* 524,288 B (512 KiB) */
    XU_PER_VALUE,   /* bytes per cached value: 2 B, 34/32 B */
    XU_PERCENT,     /* 10% */
    XU_FRACTION,    /* 0.900 (a memory fraction) */
    XU_USD_PER_H,   /* $1.39/h */
    XU_USD,         /* $0.0463 */
    XU_BYTES_PER_S, /* 2.04 TB/s */
    XU_TOK_PER_S,   /* 26.7 tok/s */
    XU_RATIO,       /* 30.44: an unrounded quotient */
    XU_SECONDS,     /* 12.3 ms, 1.25 s */
    XU_FLOPS,       /* 1.23 TFLOP */
    XU_LINK_BYTES_PER_S, /* 64.0 GB/s: a host link, in bytes per second */
    XU_BYTES_FRACTION    /* 7,705.45 B: bytes a token an engine averages over its pools */
};

/* The operations of a row's expression, in reverse Polish order. */
enum xop { XOP_TERM = 0, XOP_ADD, XOP_SUB, XOP_MUL, XOP_DIV, XOP_FLOOR, XOP_CEIL, XOP_MIN, XOP_ROUND, XOP_MAX };

struct xterm {
    long double value;
    enum xunit unit;
    char name[EXPLAIN_NAME_MAX];  /* "layers", "KV heads/GPU", "B (bf16)" */
    char text[EXPLAIN_VALUE_MAX]; /* the value as written: "32", "79.65 GiB" */
    char ref[EXPLAIN_KEY_MAX];    /* the row this operand is the result of, or "" */
};

struct xstep {
    uint8_t op;   /* enum xop */
    uint8_t term; /* for XOP_TERM: index into terms */
};

struct explain_row {
    char key[EXPLAIN_KEY_MAX];     /* stable id: "kv_per_token", "users", ... */
    char label[EXPLAIN_LABEL_MAX]; /* "KV per token" */
    char scope[EXPLAIN_KEY_MAX];   /* "per GPU", "per replica", "all GPUs" or "" */
    int nterms, nsteps;            /* nsteps 0: a statement (formula only) */
    struct xterm terms[EXPLAIN_TERMS_MAX];
    struct xstep steps[EXPLAIN_STEPS_MAX];
    struct xterm result;
    char formula[EXPLAIN_TEXT_MAX]; /* the expression as written, then any note */
    bool written;                   /* the texts are written; until then formula holds the note */
    enum unit_system units;         /* the texts' */
};

struct explain {
    int count;
    enum unit_system units;
    bool deferred; /* the caller's choice (false: texts written as rows end); true: rows
                    * end without their text, and explain_text writes it */
    struct explain_row rows[EXPLAIN_ROWS_MAX];
};

/* The builders: each accepts a NULL explain or row and does nothing, so a
 * plan computed without explanation runs the same code; that test is
 * inline, and what a builder's arguments cost is spent only on rows kept
 * (the _kept functions, which take them as they are). */
struct explain_row *explain_row_begin_kept(struct explain *e, const char *key, const char *label,
                                           const char *scope);
int explain_term_kept(struct explain_row *row, long double value, enum xunit unit,
                      const char *name);
int explain_ref_kept(struct explain *e, struct explain_row *row, const char *ref,
                     const char *name);
void explain_op_kept(struct explain_row *row, enum xop op);
void explain_row_end_kept(struct explain *e, struct explain_row *row, enum xunit unit,
                          long double value, const char *note);
void explain_rename_kept(struct explain *x, const char *from, const char *to);

/* Starts a row (at the end of e; the last slot is reused when e is full). */
static inline struct explain_row *explain_row_begin(struct explain *e, const char *key,
                                                    const char *label, const char *scope)
{
    return e ? explain_row_begin_kept(e, key, label, scope) : NULL;
}

/* Pushes an operand; returns its index (-1 for none). `name` follows the
 * value ("layers"). */
static inline int explain_term(struct explain_row *row, long double value, enum xunit unit,
                               const char *name)
{
    return row ? explain_term_kept(row, value, unit, name) : -1;
}

/* As explain_term, the operand being the result of row `ref` of e. */
static inline int explain_ref(struct explain *e, struct explain_row *row, const char *ref,
                              const char *name)
{
    return e && row ? explain_ref_kept(e, row, ref, name) : -1;
}

/* Pushes an operation over the values pushed before it. */
static inline void explain_op(struct explain_row *row, enum xop op)
{
    if (row)
        explain_op_kept(row, op);
}

/* Ends the row: evaluates its expression into result (unit `unit`), writes
 * the formula, and appends `note` to it (may be NULL). For a statement
 * (no operations), `value` is the result. With e->deferred, the texts (the
 * operands', the result's and the formula) wait for explain_text. */
static inline void explain_row_end(struct explain *e, struct explain_row *row, enum xunit unit,
                                   long double value, const char *note)
{
    if (e && row)
        explain_row_end_kept(e, row, unit, value, note);
}

/* Renames a row key and every reference to it (the row loses its scope). */
static inline void explain_rename(struct explain *x, const char *from, const char *to)
{
    if (x)
        explain_rename_kept(x, from, to);
}

/* Writes the texts of every row ended without them (e->deferred). */
void explain_text(struct explain *e);

/* A row's formula and its result as text, whether or not they are written
 * in the row (a deferred row is written into the buffers, not the row). */
void explain_row_strings(const struct explain_row *row, char *formula, size_t formula_size,
                         char *value, size_t value_size);

/* The value of a row's expression (what its operands give). */
long double explain_eval(const struct explain_row *row);

/* Writes a value in a unit: "79.65 GiB", "32,768", "$0.0463". */
void explain_format(long double value, enum xunit unit, enum unit_system units, char *buf,
                    size_t size);

/* The row with the given key, or NULL. */
const struct explain_row *explain_find(const struct explain *e, const char *key);

#endif
