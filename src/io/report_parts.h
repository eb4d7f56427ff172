/* report_parts: the pieces of a report that the scenario's reports
 * (report.c) and the versus table (report_versus.c) both write. */
#ifndef KVPLAN_IO_REPORT_PARTS_H
#define KVPLAN_IO_REPORT_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/plan.h"

/* Room for a line that holds a name or two from input, escaped for Markdown. */
enum { REPORT_LINE_MD = 1024 };

/* The commands the launch line splits into over several nodes or servers
 * (core/launch.h), rows of the text report's engine section and a list in
 * Markdown; nothing when the launch line alone is run (report_servers.c). */
void report_servers_text(FILE *out, const struct plan_result *r);
void report_servers_markdown(FILE *out, const struct plan_result *r);

/* "draft Llama 3.2 1B (llama-3.2-1b), 4 speculative tokens per step"; md:
 * the names escaped for Markdown. */
void report_spec_text(const struct scenario *s, const struct plan_result *r, bool md, char *buf,
                      size_t size);

/* "4 slots x rank 16, bf16, on q_proj,...,down_proj (--max-loras)", or false when no LoRA. */
bool report_lora_text(const struct scenario *s, const struct plan_result *r, char *buf,
                      size_t size);

/* "4 images x 256 tokens = 1,024 tokens per user, added to the context", or false. */
bool report_images_text(const struct plan_result *r, char *buf, size_t size);

/* The host tier as an input: "256.00 GiB per GPU (--host-kv); 0.8 of
 * returning users found there (--prefix-hit-rate)". */
void report_host_input(const struct scenario *s, char *buf, size_t size);

/* llama.cpp's split as an input (report_offload.c): "64.00 GiB host memory
 * (--host-memory), read at 76.8 GB/s (DDR5-4800, dual channel (desktop):
 * the default)", or false when nothing is in host memory. */
bool report_offload_input(const struct scenario *s, const struct plan_result *r, char *buf,
                          size_t size);

/* Appends "; -ngl 61 of 81: 20 layers on the CPU" (chosen by the fit
 * search, or as asked) to a headline of `len` characters; the new length. */
int report_offload_headline(const struct plan_result *r, char *buf, size_t size, int len);

/* The headline of a split whose host side does not fit, or false. */
bool report_offload_unfit(const struct scenario *s, const struct plan_result *r, char *buf,
                          size_t size);

/* A speed figure's measured spread, "-15% to +20% over 8 Hopper/vLLM
 * measurements" or "default: no measurement behind it"; md: the family
 * escaped for Markdown. */
const char *report_band_text(const struct speed_band *b, bool md, char *buf, size_t size);

#endif
