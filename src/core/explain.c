#include "explain.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "text.h"

struct explain_row *explain_row_begin_kept(struct explain *e, const char *key, const char *label,
                                           const char *scope)
{
    if (e == NULL)
        return NULL;
    if (e->count >= EXPLAIN_ROWS_MAX)
        e->count = EXPLAIN_ROWS_MAX - 1;
    struct explain_row *row = &e->rows[e->count++];
    row->nterms = row->nsteps = 0;
    row->formula[0] = '\0';
    row->result.name[0] = row->result.ref[0] = '\0';
    text_copy(row->key, sizeof row->key, key);
    text_copy(row->label, sizeof row->label, label);
    text_copy(row->scope, sizeof row->scope, scope ? scope : "");
    return row;
}

int explain_term_kept(struct explain_row *row, long double value, enum xunit unit,
                      const char *name)
{
    if (row == NULL || row->nterms >= EXPLAIN_TERMS_MAX || row->nsteps >= EXPLAIN_STEPS_MAX)
        return -1;
    int i = row->nterms++;
    struct xterm *t = &row->terms[i];
    t->value = value;
    t->unit = unit;
    t->ref[0] = '\0';
    t->text[0] = '\0'; /* written in explain_row_end, when the unit system is known */
    text_copy(t->name, sizeof t->name, name ? name : "");
    row->steps[row->nsteps++] = (struct xstep){XOP_TERM, (uint8_t)i};
    return i;
}

int explain_ref_kept(struct explain *e, struct explain_row *row, const char *ref, const char *name)
{
    if (e == NULL || row == NULL)
        return -1;
    const struct explain_row *from = explain_find(e, ref);
    long double v = from ? from->result.value : 0;
    enum xunit u = from ? from->result.unit : XU_COUNT;
    int i = explain_term_kept(row, v, u, name);
    if (i >= 0)
        text_copy(row->terms[i].ref, sizeof row->terms[i].ref, ref);
    return i;
}

void explain_op_kept(struct explain_row *row, enum xop op)
{
    if (row != NULL && row->nsteps < EXPLAIN_STEPS_MAX)
        row->steps[row->nsteps++] = (struct xstep){(uint8_t)op, 0};
}

static int arity(enum xop op)
{
    return op == XOP_TERM ? 0 : op == XOP_FLOOR || op == XOP_CEIL || op == XOP_ROUND ? 1 : 2;
}

/* Runs steps [0, n) on a stack; returns the stack depth (values in out). */
static int run(const struct explain_row *row, int n, long double *out, int max)
{
    int sp = 0;
    for (int i = 0; i < n; i++) {
        enum xop op = (enum xop)row->steps[i].op;
        if (op == XOP_TERM) {
            if (sp < max)
                out[sp++] = row->terms[row->steps[i].term].value;
            continue;
        }
        if (sp < arity(op))
            return sp;
        long double b = out[sp - 1];
        if (arity(op) == 1) {
            out[sp - 1] = op == XOP_FLOOR ? floorl(b) : op == XOP_CEIL ? ceill(b) : roundl(b);
            continue;
        }
        long double a = out[sp - 2], r = 0;
        switch (op) {
        case XOP_ADD:
            r = a + b;
            break;
        case XOP_SUB:
            r = a - b;
            break;
        case XOP_MUL:
            r = a * b;
            break;
        case XOP_DIV:
            r = b != 0 ? a / b : 0;
            break;
        case XOP_MIN:
            r = a < b ? a : b;
            break;
        case XOP_MAX:
            r = a > b ? a : b;
            break;
        default:
            break;
        }
        out[--sp - 1] = r;
    }
    return sp;
}

long double explain_eval(const struct explain_row *row)
{
    long double stack[EXPLAIN_STEPS_MAX];
    int sp = run(row, row->nsteps, stack, EXPLAIN_STEPS_MAX);
    return sp > 0 ? stack[sp - 1] : row->result.value;
}

static void format_int(long double v, char *buf, size_t size)
{
    if (v >= 0 && v < 1.8e19L && v == floorl(v))
        units_format_int((uint64_t)v, buf, size);
    else
        snprintf(buf, size, "%.2Lf", v);
}

/* A price's decimals: four ($0.0480), and below a tenth of a cent as many as
 * keep two significant digits ($0.00031, not $0.0003; $0.0000 only for 0). */
static int usd_decimals(long double v)
{
    int d = 4;
    for (long double scaled = v * 1e4L; v > 0 && scaled < 10 && d < 12; scaled *= 10)
        d++;
    return d;
}

/* v to d decimals, a decimal tie rounded up whichever side of it the
 * binary value fell: $1.05 an hour over 56 users is 0.01875, a double
 * just under it (the plan's figure, on the screens) and a long double just
 * over (the explain row's, in the text): both $0.0188, not $0.0187 and
 * $0.0188. The tolerance, a millionth of a millionth, is far above the two
 * precisions' difference and far below a figure's own. */
static long double decimal_round(long double v, int d)
{
    long double scale = powl(10.0L, d), x = v * scale;
    return floorl(x + 0.5L + fabsl(x) * 1e-12L) / scale;
}

void explain_format(long double v, enum xunit unit, enum unit_system units, char *buf, size_t size)
{
    char tmp[EXPLAIN_VALUE_MAX];
    switch (unit) {
    case XU_COUNT:
    case XU_TOKENS:
        format_int(v, buf, size);
        return;
    case XU_BYTES:
        if (v < 0) {
            units_format_bytes((uint64_t)llroundl(-v), units, tmp, sizeof tmp);
            snprintf(buf, size, "short by %s", tmp);
        } else {
            units_format_bytes((uint64_t)llroundl(v), units, buf, size);
        }
        return;
    case XU_BYTES_EXACT: {
        uint64_t b = v > 0 ? (uint64_t)llroundl(v) : 0;
        char n[32];
        units_format_int(b, n, sizeof n);
        size_t len = 0;
        text_append(buf, size, &len, n);
        text_append(buf, size, &len, " B");
        if (units == UNITS_GB ? b >= 1000 : b >= KIB) { /* in the units shown (u) */
            if (units == UNITS_GB)
                units_format_bytes(b, units, tmp, sizeof tmp);
            else
                units_format_bytes_exact(b, tmp, sizeof tmp);
            text_append(buf, size, &len, " (");
            text_append(buf, size, &len, tmp);
            text_append(buf, size, &len, ")");
        }
        return;
    }
    case XU_PER_VALUE: {
        /* as the format is defined: 34/32 (q8_0), 210/256 (q6_k), 57/80 (a mix) */
        static const int dens[] = {1, 2, 16, 32, 80, 256};
        for (size_t i = 0; i < sizeof dens / sizeof dens[0]; i++)
            if (v * dens[i] == floorl(v * dens[i])) {
                if (dens[i] == 1)
                    snprintf(buf, size, "%.0Lf", v);
                else
                    snprintf(buf, size, "%.0Lf/%d", v * dens[i], dens[i]);
                return;
            }
        snprintf(buf, size, "%.4Lf", v);
        return;
    }
    case XU_PERCENT:
        snprintf(buf, size, "%Lg%%", v);
        return;
    case XU_FRACTION:
        snprintf(buf, size, "%.3Lf", v);
        return;
    case XU_USD_PER_H:
        snprintf(buf, size, "$%.2Lf/h", v);
        return;
    case XU_USD:
        if (v < 0)
            snprintf(buf, size, "n/a"); /* no price, or no user to share it */
        else /* four decimals, more below a tenth of a cent: two significant digits */
            snprintf(buf, size, "$%.*Lf", usd_decimals(v), decimal_round(v, usd_decimals(v)));
        return;
    case XU_BYTES_PER_S:
        snprintf(buf, size, "%.2Lf TB/s", v / 1e12L);
        return;
    case XU_LINK_BYTES_PER_S:
        snprintf(buf, size, "%.1Lf GB/s", v / 1e9L);
        return;
    case XU_TOK_PER_S: {
        char whole[32];
        uint64_t tenths = v > 0 ? (uint64_t)(decimal_round(v, 1) * 10.0L + 0.5L) : 0;
        units_format_int(tenths / 10, whole, sizeof whole);
        snprintf(buf, size, "%s.%u tok/s", whole, (unsigned)(tenths % 10));
        return;
    }
    case XU_RATIO:
        snprintf(buf, size, "%.2Lf", v);
        return;
    case XU_BYTES_FRACTION: {
        char whole[32];
        uint64_t hundredths = v > 0 ? (uint64_t)(v * 100.0L + 0.5L) : 0;
        units_format_int(hundredths / 100, whole, sizeof whole);
        snprintf(buf, size, "%s.%02u B", whole, (unsigned)(hundredths % 100));
        return;
    }
    case XU_SECONDS:
        if (v < 1e-3L)
            snprintf(buf, size, "%.1Lf us", v * 1e6L);
        else if (v < 1.0L)
            snprintf(buf, size, "%.2Lf ms", v * 1e3L);
        else
            snprintf(buf, size, "%.2Lf s", v);
        return;
    case XU_FLOPS:
        if (v >= 1e15L)
            snprintf(buf, size, "%.2Lf PFLOP", v / 1e15L);
        else if (v >= 1e12L)
            snprintf(buf, size, "%.2Lf TFLOP", v / 1e12L);
        else
            snprintf(buf, size, "%.2Lf GFLOP", v / 1e9L);
        return;
    }
    snprintf(buf, size, "%Lg", v);
}

/* Infix text of the expression, parenthesised where precedence needs it:
 * the reverse Polish steps become a tree, written in one pass. */
struct node {
    uint8_t op, term;
    int8_t a, b; /* children (node indexes), -1 for none */
};

struct out {
    char *buf;
    size_t size, len;
};

static void put(struct out *o, const char *s, size_t n)
{
    if (o->len + 1 >= o->size)
        return;
    if (n > o->size - 1 - o->len)
        n = o->size - 1 - o->len;
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    o->buf[o->len] = '\0';
}

static void puts_(struct out *o, const char *s)
{
    put(o, s, strlen(s));
}

static int prec_of(const struct node *n)
{
    switch ((enum xop)n->op) {
    case XOP_ADD:
    case XOP_SUB:
        return 1;
    case XOP_MUL:
    case XOP_DIV:
        return 2;
    default:
        return 3;
    }
}

typedef char term_text[EXPLAIN_VALUE_MAX];

static void emit(const struct explain_row *row, const term_text *texts, const struct node *nodes,
                 int i, struct out *o)
{
    const struct node *n = &nodes[i];
    enum xop op = (enum xop)n->op;
    if (op == XOP_TERM) {
        const struct xterm *t = &row->terms[n->term];
        puts_(o, texts[n->term]);
        if (t->name[0]) {
            put(o, " ", 1);
            puts_(o, t->name);
        }
        return;
    }
    if (arity(op) == 1 || op == XOP_MIN || op == XOP_MAX) {
        puts_(o, op == XOP_FLOOR   ? "floor("
                 : op == XOP_CEIL  ? "ceil("
                 : op == XOP_ROUND ? "round("
                 : op == XOP_MIN   ? "min("
                                   : "max(");
        emit(row, texts, nodes, n->a, o);
        if (op == XOP_MIN || op == XOP_MAX) {
            put(o, ", ", 2);
            emit(row, texts, nodes, n->b, o);
        }
        put(o, ")", 1);
        return;
    }
    int p = prec_of(n), pa = prec_of(&nodes[n->a]), pb = prec_of(&nodes[n->b]);
    bool wa = p == 2 && pa < 2;
    bool wb = op == XOP_SUB ? pb <= 1 : op == XOP_MUL ? pb < 2 : op == XOP_DIV ? pb <= 2 : false;
    if (wa)
        put(o, "(", 1);
    emit(row, texts, nodes, n->a, o);
    if (wa)
        put(o, ")", 1);
    puts_(o, op == XOP_ADD ? " + " : op == XOP_SUB ? " - " : op == XOP_MUL ? " x " : " / ");
    if (wb)
        put(o, "(", 1);
    emit(row, texts, nodes, n->b, o);
    if (wb)
        put(o, ")", 1);
}

static void render(const struct explain_row *row, const term_text *texts, char *buf, size_t size)
{
    struct node nodes[EXPLAIN_STEPS_MAX];
    int stack[EXPLAIN_STEPS_MAX], sp = 0;
    buf[0] = '\0';
    for (int i = 0; i < row->nsteps; i++) {
        enum xop op = (enum xop)row->steps[i].op;
        nodes[i] = (struct node){(uint8_t)op, row->steps[i].term, -1, -1};
        if (sp < arity(op))
            return;
        if (arity(op) == 2) {
            nodes[i].b = (int8_t)stack[--sp];
            nodes[i].a = (int8_t)stack[--sp];
        } else if (arity(op) == 1) {
            nodes[i].a = (int8_t)stack[--sp];
        }
        stack[sp++] = i;
    }
    if (sp == 0)
        return;
    struct out o = {buf, size, 0};
    emit(row, texts, nodes, stack[sp - 1], &o);
}

/* The text of a row: its operands', its result's, and the formula with the
 * note appended. */
struct row_text {
    term_text terms[EXPLAIN_TERMS_MAX];
    char result[EXPLAIN_VALUE_MAX];
    char formula[EXPLAIN_TEXT_MAX];
};

/* A size divided by a size shows the numbers the division used: more
 * decimals (up to 6) until the sizes shown give the quotient shown
 * ("60.91 GB / 1.07 GB" gives 56.92, not the 56.73 computed). */
static void division_places(const struct explain_row *row, struct row_text *out)
{
    if (row->nsteps < 3 || row->steps[0].op != XOP_TERM || row->steps[1].op != XOP_TERM ||
        row->steps[2].op != XOP_DIV)
        return;
    int a = row->steps[0].term, b = row->steps[1].term;
    if (row->terms[a].unit != XU_BYTES || row->terms[b].unit != XU_BYTES ||
        row->terms[a].value <= 0 || row->terms[b].value <= 0)
        return;
    uint64_t x = (uint64_t)llroundl(row->terms[a].value), y = (uint64_t)llroundl(row->terms[b].value);
    long double q = roundl((long double)x / (long double)y * 100) / 100;
    for (int places = 2; places <= 6; places++) {
        long double sx = units_bytes_shown(x, row->units, places);
        long double sy = units_bytes_shown(y, row->units, places);
        if (sy > 0 && roundl(sx / sy * 100) / 100 == q) {
            if (places > 2) {
                units_format_bytes_places(x, row->units, places, out->terms[a], sizeof out->terms[a]);
                units_format_bytes_places(y, row->units, places, out->terms[b], sizeof out->terms[b]);
            }
            return;
        }
    }
}

static void write_text(const struct explain_row *row, const char *note, struct row_text *out)
{
    enum unit_system u = row->units;
    enum xunit unit = row->result.unit;
    for (int i = 0; i < row->nterms; i++)
        explain_format(row->terms[i].value, row->terms[i].unit, u, out->terms[i],
                       sizeof out->terms[i]);
    division_places(row, out);
    explain_format(row->result.value, unit, u, out->result, sizeof out->result);
    /* a time, rate or price that a sentence explains away is unknown, not 0 */
    bool measure = unit == XU_SECONDS || unit == XU_TOK_PER_S || unit == XU_USD ||
                   unit == XU_USD_PER_H || unit == XU_FLOPS || unit == XU_BYTES_PER_S;
    if (row->nsteps == 0 && measure && row->result.value == 0)
        snprintf(out->result, sizeof out->result, "n/a");
    char expr[EXPLAIN_TEXT_MAX] = "";
    if (row->nsteps > 0)
        render(row, (const term_text *)out->terms, expr, sizeof expr);
    /* A floor, ceiling or minimum last: show what it was applied to. */
    char inner[96] = "";
    enum xop last = row->nsteps > 0 ? (enum xop)row->steps[row->nsteps - 1].op : XOP_TERM;
    bool nested = false; /* "max(a, b) = max(a, b)" says nothing: only nested operands */
    for (int i = 0; i + 1 < row->nsteps; i++)
        nested |= row->steps[i].op != XOP_TERM;
    if ((last == XOP_FLOOR || last == XOP_CEIL || last == XOP_MIN || last == XOP_MAX) && nested) {
        long double st[EXPLAIN_STEPS_MAX];
        int sp = run(row, row->nsteps - 1, st, EXPLAIN_STEPS_MAX);
        char x[EXPLAIN_VALUE_MAX], y[EXPLAIN_VALUE_MAX];
        if ((last == XOP_MIN || last == XOP_MAX) && sp >= 2) {
            explain_format(st[sp - 2], unit, u, x, sizeof x);
            explain_format(st[sp - 1], unit, u, y, sizeof y);
            snprintf(inner, sizeof inner, " = %s(%s, %s)", last == XOP_MIN ? "min" : "max", x, y);
        } else if (sp >= 1 && last != XOP_MIN && last != XOP_MAX &&
                   (unit == XU_COUNT || unit == XU_TOKENS)) {
            /* enough decimals that the shown value floors (ceils) as the
             * result does: 117.9996 is floor(117.9996), not floor(118.00) */
            long double v = st[sp - 1];
            int dec = 2;
            for (long double k = 100; dec < 9; dec++, k *= 10) {
                long double shown = roundl(v * k) / k;
                if ((last == XOP_FLOOR ? floorl(shown) == floorl(v) : ceill(shown) == ceill(v)))
                    break;
            }
            snprintf(inner, sizeof inner, " = %s(%.*Lf)", last == XOP_FLOOR ? "floor" : "ceil",
                     dec, v);
        }
    }
    size_t len = 0;
    text_append(out->formula, sizeof out->formula, &len, expr);
    text_append(out->formula, sizeof out->formula, &len, inner);
    text_append(out->formula, sizeof out->formula, &len, note && note[0] && expr[0] ? "; " : "");
    text_append(out->formula, sizeof out->formula, &len, note ? note : "");
}

/* Writes the text of a row whose text waited (its note kept in formula). */
static void write_row(struct explain_row *row)
{
    struct row_text text;
    write_text(row, row->formula, &text);
    for (int i = 0; i < row->nterms; i++)
        memcpy(row->terms[i].text, text.terms[i], sizeof row->terms[i].text);
    memcpy(row->result.text, text.result, sizeof row->result.text);
    memcpy(row->formula, text.formula, sizeof row->formula);
    row->written = true;
}

void explain_row_end_kept(struct explain *e, struct explain_row *row, enum xunit unit,
                          long double value, const char *note)
{
    if (e == NULL || row == NULL)
        return;
    row->units = e->units;
    row->result.unit = unit;
    row->result.value = row->nsteps > 0 ? explain_eval(row) : value;
    /* the note waits where the formula goes, until the text is written */
    text_copy(row->formula, sizeof row->formula, note ? note : "");
    row->written = false;
    if (!e->deferred)
        write_row(row);
}

void explain_text(struct explain *e)
{
    for (int i = 0; e && i < e->count; i++)
        if (!e->rows[i].written)
            write_row(&e->rows[i]);
}

void explain_row_strings(const struct explain_row *row, char *formula, size_t formula_size,
                         char *value, size_t value_size)
{
    if (row->written) {
        text_copy(formula, formula_size, row->formula);
        text_copy(value, value_size, row->result.text);
        return;
    }
    struct row_text text;
    write_text(row, row->formula, &text);
    text_copy(formula, formula_size, text.formula);
    text_copy(value, value_size, text.result);
}

const struct explain_row *explain_find(const struct explain *e, const char *key)
{
    for (int i = 0; i < e->count; i++) /* the first byte first: most keys differ there */
        if (e->rows[i].key[0] == key[0] && strcmp(e->rows[i].key, key) == 0)
            return &e->rows[i];
    return NULL;
}

void explain_rename_kept(struct explain *x, const char *from, const char *to)
{
    for (int i = 0; x && i < x->count; i++) {
        struct explain_row *row = &x->rows[i];
        if (strcmp(row->key, from) == 0) {
            text_copy(row->key, sizeof row->key, to);
            row->scope[0] = '\0';
        }
        for (int t = 0; t < row->nterms; t++)
            if (strcmp(row->terms[t].ref, from) == 0)
                text_copy(row->terms[t].ref, sizeof row->terms[t].ref, to);
    }
}
