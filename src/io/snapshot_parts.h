/* snapshot_parts: the pieces of a snapshot's JSON result written outside
 * snapshot_json.c. */
#ifndef KVPLAN_IO_SNAPSHOT_PARTS_H
#define KVPLAN_IO_SNAPSHOT_PARTS_H

#include "core/plan.h"
#include "io/jsonout.h"

/* A plan's result and its explain rows x (NULL: none), the "result" object
 * of a snapshot and of each scenario of a session (snapshot_result.c). */
cJSON *snapshot_result_json(const struct plan_result *r, const struct explain *x);

/* The service level (speed at `concurrency` users decoding at once), each
 * figure's measured spread and the decode step's parts, as fields of o. */
void snapshot_speed_json(struct jsonout *o, const struct plan_result *r);

/* The commands the launch line splits into over several nodes or servers
 * (core/launch.h), one string each; NULL when the launch line alone is run
 * (report_servers.c). */
cJSON *report_servers_json(const struct plan_result *r);

#endif
