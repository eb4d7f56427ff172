/* trace: a request trace for `kvplan simulate --dataset FILE`, each
 * request's prompt and output lengths and, optionally, when it arrives:
 *
 *  - CSV: a header naming the columns, then a request a line:
 *    input_len,output_len[,arrival][,prefix_id] (in any order; also
 *    prompt_len or input_tokens, output_tokens, timestamp or arrival_time,
 *    and the Azure LLM inference traces' ContextTokens, GeneratedTokens and
 *    TIMESTAMP; names in any case), so a downloaded Azure trace reads as
 *    it is;
 *  - JSONL: an object a line with the same keys, or Mooncake's
 *    (input_length, output_length, hash_ids, and its timestamp in
 *    milliseconds where a line has input_length).
 *
 * Lengths are whole tokens, at least 1; arrival is seconds (from any
 * origin: the first request's is taken as 0) or a date and time
 * ("2023-11-16 18:17:03.97996", a T for the space, a Z after it), the
 * lines in arrival order;
 * prefix_id is read and counted (the simulator shares one prefix,
 * --prefix, among every request). Blank lines and lines starting with #
 * are skipped. A line that does not parse is named by file, line and field. */
#ifndef KVPLAN_IO_TRACE_H
#define KVPLAN_IO_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/diag.h"
#include "core/workload.h"

struct trace {
    struct workload_request *req; /* arrival set when timed, else 0 */
    size_t n;
    uint32_t *line;               /* each request's line in the file */
    bool timed;                   /* every request has its arrival */
    size_t with_prefix_id;        /* requests that named a prefix id */
};

/* Reads at most max requests from text (of path, for messages); false with d
 * set on a malformed line or more than max. The caller frees with trace_free. */
bool trace_read(const char *path, const char *text, size_t len, size_t max, struct trace *out,
                struct diag *d);
void trace_free(struct trace *t);

/* The length profiles compiled in (presets/datasets/): the i-th (NULL past
 * the last), and the one of a name (NULL for none). */
const struct workload_profile *trace_profile_at(size_t i);
const struct workload_profile *trace_profile(const char *name);

#endif
