#include "io/trace.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cJSON.h>

enum column { COL_INPUT, COL_OUTPUT, COL_ARRIVAL, COL_PREFIX, COL_NONE };

/* A column's or key's name, as the trace may spell it. */
static enum column column_of(const char *name, size_t len)
{
    static const struct {
        const char *name;
        enum column c;
    } names[] = {{"input_len", COL_INPUT},       {"prompt_len", COL_INPUT},
                 {"input_tokens", COL_INPUT},    {"output_len", COL_OUTPUT},
                 {"output_tokens", COL_OUTPUT},  {"arrival", COL_ARRIVAL},
                 {"timestamp", COL_ARRIVAL},     {"arrival_time", COL_ARRIVAL},
                 {"prefix_id", COL_PREFIX},
                 /* the Azure LLM inference traces' (Azure/AzurePublicDataset,
                  * AzureLLMInferenceDataset2023.md: TIMESTAMP, ContextTokens,
                  * GeneratedTokens) */
                 {"contexttokens", COL_INPUT},   {"generatedtokens", COL_OUTPUT},
                 /* Mooncake's (kvcache-ai/Mooncake FAST25-release/README.md:
                  * input_length, output_length, hash_ids; its timestamp in
                  * milliseconds, json_line) */
                 {"input_length", COL_INPUT},    {"output_length", COL_OUTPUT},
                 {"hash_ids", COL_PREFIX}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].name) == len && strncasecmp(names[i].name, name, len) == 0)
            return names[i].c;
    return COL_NONE;
}

static const char *const COLUMN_NAME[] = {"input_len", "output_len", "arrival", "prefix_id"};

/* A length: a whole number of tokens, 1 to 10^9. */
static bool length_of(const char *s, size_t len, uint64_t *out)
{
    if (len == 0 || len > 10)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)s[i]))
            return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v < 1 || v > 1000000000ull)
        return false;
    *out = v;
    return true;
}

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar. */
static long days_from_civil(long y, long m, long d)
{
    y -= m <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    long yoe = y - era * 400;
    long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* A date and time, "YYYY-MM-DD HH:MM:SS[.fraction]" (a T for the space
 * and a Z after it also taken), as seconds from 1970 (UTC; the trace's
 * zone cancels out, the first request's arrival being taken as 0). */
static bool datetime_of(const char *buf, double *out)
{
    int y, mo, d, h, mi, n = 0;
    char sep;
    static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (sscanf(buf, "%4d-%2d-%2d%c%2d:%2d:%n", &y, &mo, &d, &sep, &h, &mi, &n) != 6 || n == 0 ||
        (sep != ' ' && sep != 'T') || mo < 1 || mo > 12 || h < 0 || h > 23 || mi < 0 || mi > 59)
        return false;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (d < 1 || d > days[mo - 1] + (mo == 2 && leap)) /* 2023-02-29, 2023-11-31: no such day */
        return false;
    char *end;
    double sec = strtod(buf + n, &end);
    if (end == buf + n || !(sec >= 0 && sec < 60) || !isdigit((unsigned char)buf[n]))
        return false;
    if (*end == 'Z')
        end++;
    if (*end != '\0')
        return false;
    *out = (double)days_from_civil(y, mo, d) * 86400.0 + h * 3600.0 + mi * 60.0 + sec;
    return true;
}

/* A time: seconds, finite and not negative, or a date and time (*date
 * set). */
static bool seconds_of(const char *s, size_t len, double *out, bool *date)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    double v = strtod(buf, &end);
    *date = *end == '-' && end - buf == 4;
    if (*date)
        return datetime_of(buf, out);
    if (*end != '\0' || !isfinite(v) || v < 0)
        return false;
    *out = v;
    return true;
}

struct reader {
    const char *path;
    struct trace *t;
    size_t max;
    struct diag *d;
    bool saw_arrival;
    bool dates;          /* the first request's arrival was a date (the others must be) */
    unsigned first_line; /* its line */
};

/* One request's fields, checked and kept. */
static bool keep(struct reader *r, unsigned line, uint64_t in, uint64_t out, bool timed,
                 double at, bool date, bool prefix)
{
    struct trace *t = r->t;
    if (t->n == r->max)
        return diag_fail(r->d, "%s:%u: more than %zu requests (simulate's cap)", r->path, line,
                         r->max);
    if (t->n == 0) {
        r->saw_arrival = timed;
        r->dates = date;
        r->first_line = line;
    } else if (timed != r->saw_arrival) {
        return diag_fail(r->d, "%s:%u: arrival: %s, where the first request's line %s", r->path,
                         line, timed ? "given" : "missing", timed ? "had none" : "had one");
    } else if (timed && date != r->dates) {
        return diag_fail(r->d, "%s:%u: arrival: %s where line %u gave %s", r->path, line,
                         date ? "a date and time" : "seconds", r->first_line,
                         r->dates ? "a date and time" : "seconds");
    }
    if (timed && t->n && at < t->req[t->n - 1].arrival && r->dates) /* from the first request's */
        return diag_fail(r->d, "%s:%u: arrival: %.3f s after line %u's, before the line "
                         "above's %.3f s (the lines in arrival order)", r->path, line,
                         at - t->req[0].arrival, r->first_line,
                         t->req[t->n - 1].arrival - t->req[0].arrival);
    if (timed && t->n && at < t->req[t->n - 1].arrival)
        return diag_fail(r->d, "%s:%u: arrival: %g s, before the line above's %g s (the lines "
                         "in arrival order)", r->path, line, at, t->req[t->n - 1].arrival);
    t->req[t->n] = (struct workload_request){.arrival = timed ? at : 0, .prompt = in,
                                             .output = out};
    t->line[t->n] = line;
    t->n++;
    t->with_prefix_id += prefix;
    return true;
}

static bool bad_field(struct reader *r, unsigned line, enum column c, const char *s, size_t len)
{
    return diag_fail(r->d, "%s:%u: %s: '%.*s' is not %s", r->path, line, COLUMN_NAME[c],
                     (int)(len > 40 ? 40 : len), s,
                     c == COL_ARRIVAL ? "a time in seconds (0 or more) or a date and time"
                                      : "a whole number of tokens, 1 or more");
}

/* A CSV field without the spaces around it and one pair of double quotes
 * ("input_len", as spreadsheets write a header). */
static void trim_field(const char **f, size_t *n)
{
    while (*n && isspace((unsigned char)(*f)[0]))
        (*f)++, (*n)--;
    while (*n && isspace((unsigned char)(*f)[*n - 1]))
        (*n)--;
    if (*n >= 2 && (*f)[0] == '"' && (*f)[*n - 1] == '"') {
        (*f)++;
        *n -= 2;
    }
}

/* A CSV line of the header's columns. */
static bool csv_line(struct reader *r, unsigned line, const char *s, size_t len,
                     const enum column *cols, int ncols)
{
    uint64_t in = 0, out = 0;
    double at = 0;
    bool timed = false, prefix = false, date = false;
    int col = 0;
    for (size_t i = 0; i <= len; col++) {
        size_t j = i;
        while (j < len && s[j] != ',')
            j++;
        const char *f = s + i;
        size_t n = j - i;
        trim_field(&f, &n);
        if (col >= ncols)
            return diag_fail(r->d, "%s:%u: more fields than the header's %d", r->path, line,
                             ncols);
        enum column c = cols[col];
        if (c == COL_INPUT && !length_of(f, n, &in))
            return bad_field(r, line, c, f, n);
        if (c == COL_OUTPUT && !length_of(f, n, &out))
            return bad_field(r, line, c, f, n);
        if (c == COL_ARRIVAL && !(timed = seconds_of(f, n, &at, &date)))
            return bad_field(r, line, c, f, n);
        if (c == COL_PREFIX)
            prefix = n > 0;
        i = j + 1;
    }
    if (col < ncols)
        return diag_fail(r->d, "%s:%u: %d field%s, the header names %d", r->path, line, col,
                         col == 1 ? "" : "s", ncols);
    return keep(r, line, in, out, timed, at, date, prefix);
}

/* The header: its columns, input_len and output_len among them. */
static bool csv_header(struct reader *r, unsigned line, const char *s, size_t len,
                       enum column *cols, int *ncols)
{
    bool have[COL_NONE] = {false};
    *ncols = 0;
    for (size_t i = 0; i <= len;) {
        size_t j = i;
        while (j < len && s[j] != ',')
            j++;
        const char *f = s + i;
        size_t n = j - i;
        trim_field(&f, &n);
        enum column c = column_of(f, n);
        if (*ncols == 8)
            return diag_fail(r->d, "%s:%u: more than 8 columns", r->path, line);
        if (c == COL_NONE)
            return diag_fail(r->d, "%s:%u: column '%.*s': not input_len, output_len, arrival or "
                             "prefix_id (nor prompt_len, input_tokens, output_tokens, timestamp, "
                             "arrival_time, ContextTokens, GeneratedTokens)", r->path, line, (int)(n > 40 ? 40 : n), f);
        if (have[c])
            return diag_fail(r->d, "%s:%u: column %s named twice", r->path, line, COLUMN_NAME[c]);
        have[c] = true;
        cols[(*ncols)++] = c;
        i = j + 1;
    }
    if (!have[COL_INPUT] || !have[COL_OUTPUT])
        return diag_fail(r->d, "%s:%u: the header names no %s column", r->path, line,
                         have[COL_INPUT] ? "output_len" : "input_len");
    return true;
}

/* A JSONL line: an object of the same keys. */
static bool json_line(struct reader *r, unsigned line, const char *s, size_t len)
{
    cJSON *o = cJSON_ParseWithLength(s, len);
    if (o == NULL || !cJSON_IsObject(o)) {
        cJSON_Delete(o);
        return diag_fail(r->d, "%s:%u: not a JSON object", r->path, line);
    }
    uint64_t v[2] = {0, 0};
    double at = 0;
    bool timed = false, prefix = false, date = false, have[COL_NONE] = {false}, ok = true;
    /* Mooncake's lines (input_length): their timestamp is in milliseconds */
    double unit = cJSON_GetObjectItemCaseSensitive(o, "input_length") ? 1e-3 : 1;
    for (const cJSON *e = o->child; e && ok; e = e->next) {
        enum column c = column_of(e->string, strlen(e->string));
        if (c == COL_NONE)
            continue; /* other keys (a prompt's text, an id) are a trace's own */
        have[c] = true;
        if ((c == COL_INPUT || c == COL_OUTPUT)) {
            double x = cJSON_IsNumber(e) ? e->valuedouble : -1;
            ok = x >= 1 && x <= 1e9 && x == floor(x);
            if (ok)
                v[c] = (uint64_t)x;
            else
                diag_fail(r->d, "%s:%u: %s: not a whole number of tokens, 1 or more", r->path,
                          line, COLUMN_NAME[c]);
        } else if (c == COL_ARRIVAL) {
            date = cJSON_IsString(e);
            ok = cJSON_IsNumber(e) ? isfinite(e->valuedouble) && e->valuedouble >= 0
                 : date && strlen(e->valuestring) < 64 && datetime_of(e->valuestring, &at);
            timed = ok;
            if (ok && cJSON_IsNumber(e))
                at = e->valuedouble * unit;
            if (!ok)
                diag_fail(r->d, "%s:%u: arrival: not a time in seconds (0 or more) nor a date "
                          "and time", r->path, line);
        } else { /* a prefix id, or Mooncake's shared blocks (none: an empty list) */
            prefix = !cJSON_IsNull(e) && !(cJSON_IsArray(e) && cJSON_GetArraySize(e) == 0);
        }
    }
    cJSON_Delete(o);
    if (!ok)
        return false;
    if (!have[COL_INPUT] || !have[COL_OUTPUT])
        return diag_fail(r->d, "%s:%u: %s: missing", r->path, line,
                         have[COL_INPUT] ? "output_len" : "input_len");
    return keep(r, line, v[0], v[1], timed, at, date, prefix);
}

bool trace_read(const char *path, const char *text, size_t len, size_t max, struct trace *out,
                struct diag *d)
{
    memset(out, 0, sizeof *out);
    size_t lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    size_t cap = lines < max ? lines : max + 1;
    out->req = calloc(cap ? cap : 1, sizeof *out->req);
    out->line = calloc(cap ? cap : 1, sizeof *out->line);
    if (out->req == NULL || out->line == NULL) {
        trace_free(out);
        return diag_fail(d, "%s: out of memory for %zu lines", path, lines);
    }
    struct reader r = {path, out, max, d, false, false, 0};
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) { /* a UTF-8 byte order mark */
        text += 3;
        len -= 3;
    }
    enum column cols[8];
    int ncols = 0;
    bool json = false, header = false;
    unsigned line = 0;
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && text[j] != '\n')
            j++;
        line++;
        const char *s = text + i;
        size_t n = j - i;
        if (n && s[n - 1] == '\r')
            n--;
        size_t k = 0;
        while (k < n && isspace((unsigned char)s[k]))
            k++;
        bool skip = k == n || s[k] == '#';
        bool ok = true;
        if (!skip && !header && !json && s[k] == '[') {
            trace_free(out);
            return diag_fail(d, "%s:%u: a JSON array: give one object a line (JSONL), or a CSV "
                             "with a header", path, line);
        }
        if (!skip && !header && !json) {
            json = s[k] == '{';
            if (!json) {
                ok = csv_header(&r, line, s + k, n - k, cols, &ncols);
                header = true;
                skip = true;
            }
        }
        if (ok && !skip)
            ok = json ? json_line(&r, line, s + k, n - k)
                      : csv_line(&r, line, s + k, n - k, cols, ncols);
        if (!ok) {
            trace_free(out);
            return false;
        }
        i = j + 1;
    }
    if (out->n == 0) {
        trace_free(out);
        return diag_fail(d, "%s: no request in it (a CSV header, then a line a request; or a "
                            "JSON object a line)", path);
    }
    out->timed = r.saw_arrival;
    if (out->timed) /* the first request's arrival as 0 */
        for (size_t q = out->n; q-- > 0;)
            out->req[q].arrival -= out->req[0].arrival;
    return true;
}

void trace_free(struct trace *t)
{
    free(t->req);
    free(t->line);
    t->req = NULL;
    t->line = NULL;
    t->n = 0;
}
