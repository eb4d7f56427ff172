/* snapshot: a scenario and its result as JSON ("kvplan-scenario",
 * format_version 3; versions 1 and 2 still load), the file `plan --format json` prints and --export writes.
 *
 * The scenario carries the full GPU and model specs, so loading a snapshot
 * reproduces its result even after the presets change; the result is always
 * recomputed on load, never trusted. */
#ifndef KVPLAN_IO_SNAPSHOT_H
#define KVPLAN_IO_SNAPSHOT_H

#include <stdio.h>

#include "core/loadrun.h"
#include "core/plan.h"

#define SNAPSHOT_FORMAT "kvplan-scenario"
#define SNAPSHOT_FORMAT_VERSION 3

/* The snapshot text (pretty-printed, ending in a newline) of plan r with
 * its explain rows x (NULL: none); caller frees. NULL on out of memory or a non-finite
 * number. */
char *snapshot_to_json(const struct scenario *s, const struct plan_result *r,
                       const struct explain *x, const char *generator);

/* The same text written to out (`plan --format json`); false when it
 * cannot be built. A write error stays in out, for the caller's fflush. */
/* "engine_version" ("0.15") and "engine_title" ("vLLM 0.15") of kind and
 * rule, both null under the generic rule: the plan's, solve's and sweep's. */
struct jsonout;
void snapshot_engine_json(struct jsonout *o, enum engine_kind k, enum engine_rule r);

bool snapshot_write_json(FILE *out, const struct scenario *s, const struct plan_result *r,
                         const struct explain *x, const char *generator);

/* Parses a snapshot's scenario (its "result" is ignored). Versions 1 and 2
 * share the scenario; a newer format_version is refused; errors name path, line, column and field. */
bool snapshot_parse(const char *path, const char *text, size_t len, struct scenario *s,
                    struct diag *d);

/* A session: several named scenarios of one meeting. The snapshot's
 * top-level "scenario" and "result" are the current entry's, so a reader of
 * one scenario finds it; "session" lists them all (format_version 3). */
enum {
    SNAPSHOT_SESSION_MAX = 6,
    /* the limits of the session's own text, in bytes of UTF-8 (doc/FORMATS.md);
     * the planner's prompts stop at them, the loader and the exporter refuse more */
    SNAPSHOT_LABEL_BYTES = 24,
    SNAPSHOT_NOTE_BYTES = 160,
    SNAPSHOT_LABEL_MAX = SNAPSHOT_LABEL_BYTES + 1, /* the buffers, NUL included */
    SNAPSHOT_NOTE_MAX = SNAPSHOT_NOTE_BYTES + 1
};

struct snapshot_entry {
    char label[SNAPSHOT_LABEL_MAX]; /* short name: "fp8 at 128k" */
    char note[SNAPSHOT_NOTE_MAX];
    struct load_settings load; /* the planner's Load screen's; rate 0: none */
    struct scenario scenario;
};

struct snapshot_session {
    int count;
    int current;   /* the entry being edited */
    int reference; /* the entry others are compared with; -1 none */
    struct snapshot_entry entry[SNAPSHOT_SESSION_MAX];
};

/* The session as JSON; results[i] is entry i's plan, explains[i] its
 * explain rows. Caller frees. A session of one scenario without a note is
 * the plain snapshot. */
char *snapshot_session_to_json(const struct snapshot_session *ss,
                               const struct plan_result *const *results,
                               const struct explain *const *explains, const char *generator);

/* Reads a session. A file of one scenario (any version) is a session of one
 * entry labelled from its file; errors name path, line, column and field. */
bool snapshot_parse_session(const char *path, const char *text, size_t len,
                            struct snapshot_session *ss, struct diag *d);
bool snapshot_load_session(const char *path, struct snapshot_session *ss, struct diag *d);

/* Computes nothing: writes ss with its results, atomically, when it loads
 * back (snapshot_session_export_text); else writes nothing. */
bool snapshot_export_session(const char *path, const struct snapshot_session *ss,
                             const struct plan_result *const *results,
                             const struct explain *const *explains, const char *generator,
                             struct diag *d);

/* The entry with this label, or -1: labels are compared as text_same_name
 * compares names (spaces around, ASCII case, full-width forms aside:
 * "Fp8 " names "fp8"). */
int snapshot_session_find(const struct snapshot_session *ss, const char *label);
bool snapshot_label_same(const char *a, const char *b);

/* Why a label (field "label") or note (field "note") would not load: d gets
 * "FIELD: ..." (too long, not UTF-8, a control character; an empty label,
 * or one text_check_name refuses). */
bool snapshot_label_check(const char *label, struct diag *d);
bool snapshot_note_check(const char *note, struct diag *d);

/* What the loader refuses of a session's own parts: the count, current and
 * reference, each label and note, and a label that names two scenarios; d
 * names the scenario ("scenario 2: label: ..."). */
bool snapshot_session_check(const struct snapshot_session *ss, struct diag *d);

/* The session as the JSON an export writes, checked first and read back by
 * the loader: NULL with d saying why when it would not load. Caller frees. */
char *snapshot_session_export_text(const char *path, const struct snapshot_session *ss,
                                   const struct plan_result *const *results,
                                   const struct explain *const *explains, const char *generator,
                                   struct diag *d);

/* Where two scenarios differ as a snapshot writes them: the first field
 * ("context_tokens", "model.num_layers") and each one's value as JSON
 * ("16384"; "absent" when it has none). */
struct snapshot_difference {
    char field[128];
    char a[96], b[96];
};
/* True when a and b would not be written the same (out says where). */
bool snapshot_scenario_difference(const struct scenario *a, const struct scenario *b,
                                  struct snapshot_difference *out);

/* Reads and parses a file. */
bool snapshot_load(const char *path, struct scenario *s, struct diag *d);

/* Serialises and writes atomically, when the snapshot loads back. */
bool snapshot_export(const char *path, const struct scenario *s, const struct plan_result *r,
                     const struct explain *x, const char *generator, struct diag *d);

#endif
