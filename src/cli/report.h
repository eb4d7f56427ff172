/* report: a plan as readable text or a Markdown table, every number with
 * the arithmetic that produced it (from core/explain). */
#ifndef KVPLAN_CLI_REPORT_H
#define KVPLAN_CLI_REPORT_H

#include <stdio.h>

#include "core/capacity.h"

void report_text(FILE *out, const struct scenario *s, const struct plan_result *r);
void report_markdown(FILE *out, const struct scenario *s, const struct plan_result *r);

#endif
