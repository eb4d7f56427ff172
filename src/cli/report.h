/* report: a plan as readable text or a Markdown table: the answer, then
 * every explain row the plan carries (core/explain), the engine's log lines
 * and launch command, the memory of each GPU and the warnings. */
#ifndef KVPLAN_CLI_REPORT_H
#define KVPLAN_CLI_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "core/plan.h"

void report_text(FILE *out, const struct scenario *s, const struct plan_result *r);
void report_markdown(FILE *out, const struct scenario *s, const struct plan_result *r);

/* The one-sentence answer: "45 users fit at 32,768 tokens each ...". */
void report_headline(const struct scenario *s, const struct plan_result *r, char *buf, size_t size);

#endif
