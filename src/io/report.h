/* report: a plan as readable text or a Markdown table: the answer, then
 * every explain row of the plan (core/explain), the engine's log lines
 * and launch command, the memory of each GPU and the warnings. */
#ifndef KVPLAN_IO_REPORT_H
#define KVPLAN_IO_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "core/plan.h"
#include "io/snapshot.h"

/* Plan r with its explain rows x (NULL: none). */
/* The plan's Warnings section as the text report prints it ("" without any):
 * what simulate prints of the plan it runs on too. */
void report_text_warnings(FILE *out, const struct plan_result *r);

void report_text(FILE *out, const struct scenario *s, const struct plan_result *r,
                 const struct explain *x);
void report_markdown(FILE *out, const struct scenario *s, const struct plan_result *r,
                     const struct explain *x);

/* Scenarios side by side, as a Markdown table ready for a design document:
 * shown[0..n) index ss (the first is the one the others are compared with). */
void report_markdown_versus(FILE *out, const struct snapshot_session *ss,
                            const struct plan_result *const *results, const int *shown, int n);

/* Whether an explain row belongs to the speed (service level) part. */
bool report_is_speed_row(const struct explain_row *row);

/* The spread the measurements saw beside a speed figure's row (the speed
 * per user, the throughput, the first token): " (-15% to +20% over 8
 * Hopper/vLLM measurements)"; "" for another row or a figure kvplan cannot
 * give. md: escaped for Markdown. Returns buf. */
const char *report_band_suffix(const struct plan_result *r, const struct explain_row *row,
                               bool md, char *buf, size_t size);

/* Whether an explain row belongs to the host memory tier ("host_*"). */
bool report_is_host_row(const struct explain_row *row);

/* The one-sentence answer: "45 users fit at 32,768 tokens each ...". */
/* The `kvplan plan` command that rebuilds scenario s: every knob that differs
 * from the defaults, so running it gives the same answer, each word quoted
 * for the shell. Returns the length the whole line needs; buf holds it
 * only when that is less than size, and is "" otherwise (never a cut
 * line). REPORT_COMMAND_MAX always holds it: every id at its longest with
 * every byte quoted and every option given (tests/unit/test_launch.c). */
enum { REPORT_COMMAND_MAX = 4096 };
size_t report_command_line(const struct scenario *s, char *buf, size_t size);

/* The service level asked for: "30 tok/s each, first token within 2 s", or "none". */
const char *report_speed_target(const struct scenario *s, char *buf, size_t size);

void report_headline(const struct scenario *s, const struct plan_result *r, char *buf, size_t size);
/* The engine's rule as reports name it, with the release the scenario asked
 * for ("vLLM 0.13 rule, for 0.11"); buf holds it, or a static title. */
const char *report_engine_title(const struct scenario *s, const struct plan_result *r, char *buf,
                                size_t size);

#endif
