/* solve_mac: on Apple silicon, a line under solve's answer saying the
 * split llama.cpp's fit search chose (core/offload_fit.h) and the wired
 * limit that holds the model on the GPU instead (core/plan_wired.c). */
#ifndef KVPLAN_CLI_SOLVE_MAC_H
#define KVPLAN_CLI_SOLVE_MAC_H

#include "core/scenario.h"

/* Plans s on one GPU of its type and, when that is a Mac whose plan keeps
 * part of the model on the CPU, prints "(ID: -ngl ... ; `sudo sysctl
 * iogpu.wired_limit_mb=N` holds it all on the GPU)". Nothing otherwise. */
void solve_mac_note(const struct scenario *s);

#endif
