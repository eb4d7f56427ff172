/* engine_release: an engine's release as the user runs it ("0.20.1",
 * "b6500") mapped to the rule that holds for it, from each version row's
 * first release (struct engine_version's from). */
#include "diag.h"
#include "engine.h"
#include "engine_desc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PARTS = 4 };

/* A release: up to four numbers ("0.20.1", "v1.2"), or a build ("b6500")
 * when build is set. A suffix after the last number ("rc1", ".post1",
 * "-dev") is ignored. Returns how many numbers were read, 0 for none. */
static int parse(const char *text, bool build, unsigned long part[PARTS])
{
    const char *p = text;
    memset(part, 0, PARTS * sizeof part[0]);
    if (build) {
        if (*p != 'b' && *p != 'B')
            return 0;
        p++;
    } else if (*p == 'v' || *p == 'V') {
        p++;
    }
    int n = 0;
    while (n < (build ? 1 : PARTS) && isdigit((unsigned char)*p)) {
        char *end;
        part[n++] = strtoul(p, &end, 10);
        p = end;
        if (*p != '.' || !isdigit((unsigned char)p[1]))
            break;
        p++;
    }
    if (n == 0)
        return 0;
    if (*p == '\0')
        return n;
    /* every release of a series ("0.5.x"), or a pre-release or build suffix:
     * "rc1", "-dev", "+cu128", ".post1", ".dev0" */
    if (build)
        return 0;
    if (strcmp(p, ".x") == 0)
        return n;
    if (*p == '.' && strncmp(p + 1, "post", 4) != 0 && strncmp(p + 1, "dev", 3) != 0 &&
        strncmp(p + 1, "rc", 2) != 0)
        return 0;
    if (!(isalpha((unsigned char)*p) || *p == '-' || *p == '+' || *p == '.'))
        return 0;
    for (; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-' && *p != '+')
            return 0;
    return n;
}

/* a before b: -1, 0 or 1, over the first n numbers */
static int compare(const unsigned long *a, const unsigned long *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* A release candidate's number ("1.3.0rc9": 9), or -1 for a release that
 * is none (a final release comes after all its candidates). */
static long candidate_of(const char *release)
{
    const char *rc = strstr(release, "rc");
    return rc && isdigit((unsigned char)rc[2]) ? strtol(rc + 2, NULL, 10) : -1;
}

bool engine_release_before(const char *release, const char *first)
{
    unsigned long a[PARTS], b[PARTS];
    bool build = first[0] == 'b' || first[0] == 'B'; /* llama.cpp's b6500 */
    int n = parse(release, build, a), m = parse(first, build, b);
    if (n == 0 || m == 0)
        return false;
    /* "0.20" of a series is its first: before 0.20.1 */
    int order = compare(a, b, PARTS);
    if (order != 0 || build || strstr(release, ".x"))
        return order < 0;
    /* the same numbers: 1.3.0rc8 before 1.3.0rc9, both before 1.3.0 */
    long ra = candidate_of(release), rb = candidate_of(first);
    return ra >= 0 && (rb < 0 || ra < rb);
}

/* The row the release falls in (the newest `from` not after it), or NULL;
 * *oldest the row with the oldest `from`. */
static const struct engine_version *holding(const struct engine_desc *e, const unsigned long *r,
                                            bool build, const struct engine_version **oldest)
{
    const struct engine_version *best = NULL;
    unsigned long best_from[PARTS] = {0}, old_from[PARTS] = {0}, from[PARTS];
    *oldest = NULL;
    for (int i = 0; i < ENGINE_VERSIONS_MAX && e->versions[i].label; i++) {
        const struct engine_version *v = &e->versions[i];
        if (!v->from || parse(v->from, build, from) == 0)
            continue;
        if (*oldest == NULL || compare(from, old_from, PARTS) < 0) {
            *oldest = v;
            memcpy(old_from, from, sizeof from);
        }
        if (compare(r, from, PARTS) >= 0 && (best == NULL || compare(from, best_from, PARTS) > 0)) {
            best = v;
            memcpy(best_from, from, sizeof from);
        }
    }
    return best;
}

bool engine_release_rule(const struct engine_desc *e, const char *release, enum engine_rule *rule,
                         char *note, size_t size, struct diag *d)
{
    const struct engine_version *first = &e->versions[0];
    bool build = first->from && (first->from[0] == 'b' || first->from[0] == 'B');
    unsigned long r[PARTS];
    if (note && size)
        note[0] = '\0';
    if (!first->from || parse(release, build, r) == 0)
        return diag_fail(d, "'%s@%s': not a release of %s (%s, or a rule: see kvplan list engines)",
                         e->name, release, e->name,
                         !first->from ? "it has named rules only"
                         : build      ? "a build such as b6500"
                                      : "a release such as 0.15.1");
    const struct engine_version *oldest;
    const struct engine_version *v = holding(e, r, build, &oldest);
    if (v == NULL)
        return diag_fail(d, "'%s@%s': %s %s is older than the oldest release modelled (%s, rule %s)%s%s",
                         e->name, release, e->title, release, oldest ? oldest->from : "?",
                         oldest ? oldest->label : "?", oldest && oldest->older ? ": " : "",
                         oldest && oldest->older ? oldest->older : "");
    *rule = v->rule;
    unsigned long newest[PARTS];
    int known = first->newest ? parse(first->newest, build, newest) : 0;
    if (note && size && v == first && known && compare(r, newest, known) > 0)
        snprintf(note, size, "%s %s is newer than the newest release known (%s): rule %s", e->title,
                 release, first->newest, first->label);
    return true;
}

/* The `from` of the version row that follows row i (the next newer), or
 * NULL for the newest or a row without releases. */
static const char *until_of(const struct engine_desc *e, int i)
{
    const struct engine_version *v = &e->versions[i];
    if (!v->from)
        return NULL;
    bool build = v->from[0] == 'b' || v->from[0] == 'B';
    unsigned long from[PARTS], other[PARTS], next[PARTS];
    parse(v->from, build, from);
    const char *until = NULL;
    for (int j = 0; j < ENGINE_VERSIONS_MAX && e->versions[j].label; j++) {
        const char *f = e->versions[j].from;
        if (j == i || !f || parse(f, build, other) == 0 || compare(other, from, PARTS) <= 0)
            continue;
        if (until == NULL || compare(other, next, PARTS) < 0) {
            until = f;
            memcpy(next, other, sizeof other);
        }
    }
    return until;
}

const char *engine_rule_until(const struct engine_desc *e, enum engine_rule rule)
{
    for (int i = 0; i < ENGINE_VERSIONS_MAX && e->versions[i].label; i++)
        if (e->versions[i].rule == rule)
            return until_of(e, i);
    return NULL;
}

void engine_release_range(const struct engine_desc *e, int i, char *buf, size_t size)
{
    const struct engine_version *v = &e->versions[i];
    buf[0] = '\0';
    if (!v->from)
        return;
    const char *until = until_of(e, i);
    if (until)
        snprintf(buf, size, "from %s, before %s", v->from, until);
    else if (v->newest)
        snprintf(buf, size, "from %s (newest known %s)", v->from, v->newest);
    else
        snprintf(buf, size, "from %s", v->from);
}
