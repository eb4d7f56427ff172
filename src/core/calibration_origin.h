/* calibration_origin: where a calibration applied to a scenario was measured
 * (scenario.h, calibration_from), against the scenario as it is now: the
 * plan's warning, worked out again on every plan so that it follows the
 * scenario (the planner's GPU changed to the calibration's: no warning), and
 * whether its speed terms were fitted on another setup than the plan's. */
#ifndef KVPLAN_CORE_CALIBRATION_ORIGIN_H
#define KVPLAN_CORE_CALIBRATION_ORIGIN_H

#include <stddef.h>

#include "scenario.h"

/* A sentence for each of the GPU, model, engine (its rule and the release
 * given), tensor parallel and weight precision the scenario differs in
 * ("calibration from NVIDIA H100 SXM5 80GB used on NVIDIA H200 SXM 141GB:
 * ..."), joined by "; ", printable. Returns how many (0: none, buf ""). */
int calibration_origin_mismatch(const struct scenario *s, char *buf, size_t size);

/* Whether a speed calibration's terms were fitted on another GPU, model,
 * engine, TP or weight precision than the scenario's: its own band does not
 * hold there (speedband.c falls back to the public cases'). */
bool calibration_origin_speed_elsewhere(const struct scenario *s);

/* Whether a plan at `users` a server (and, for the first token, kind 1,
 * `prompt` tokens) is outside the users and prompts the speed fit's points
 * of that kind were measured at (kind 0: the decode step): its band holds
 * for those points only, the plan takes the public cases' (core/plan.c).
 * buf (may be NULL) gets the sentence for the plan's warning. */
bool calibration_origin_shape_outside(const struct scenario *s, int kind, uint64_t users,
                                      uint64_t prompt, char *buf, size_t size);

#endif
