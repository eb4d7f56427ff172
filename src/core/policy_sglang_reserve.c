/* SGLang's default mem-fraction-static: the reserve server_args.py keeps
 * (_handle_gpu_memory_settings) and the fraction it leaves of the driver
 * total, with their explain rows; policy_sglang.c's budget calls them. */
#include "policy_sglang.h"

#include <math.h>

/* The default mem-fraction-static as explain rows: the reserve
 * server_args.py keeps (in MiB, its "MB"), then the fraction left. The
 * arithmetic is sglang_default_fraction's below; the rows show each term. */
void sglang_fraction_rows(const struct policy_ctx *c, double total_mb, uint64_t chunked,
                          uint32_t graph_bs)
{
    const struct scenario *s = c->s;
    if (c->x == NULL)
        return;
    struct explain_row *row = explain_row_begin(c->x, "sglang_reserve", "SGLang reserve", "per GPU");
    explain_term(row, 512.0 * MIB, XU_BYTES, "base");
    explain_term(row, (double)(chunked > 2048 ? chunked : 2048), XU_TOKENS, "chunked prefill");
    explain_term(row, 1.5 * MIB, XU_BYTES_EXACT, "each");
    explain_op(row, XOP_MUL);
    explain_op(row, XOP_ADD);
    explain_term(row, graph_bs, XU_COUNT, "CUDA-graph batch");
    explain_term(row, 2.0 * MIB, XU_BYTES_EXACT, "each");
    explain_op(row, XOP_MUL);
    explain_op(row, XOP_ADD);
    explain_term(row, (double)c->l->tp * c->l->pp, XU_COUNT, "TP x PP");
    explain_term(row, 128.0 * MIB, XU_BYTES, "each");
    explain_op(row, XOP_MUL);
    explain_op(row, XOP_ADD);
    const char *key = "sglang_reserve";
    bool more = s->dp_attention || total_mb > 60 * 1024.0 || s->spec_method != SPEC_NONE;
    explain_row_end(c->x, row, XU_BYTES, 0,
                    more ? "server_args.py (_handle_gpu_memory_settings)"
                         : "server_args.py (_handle_gpu_memory_settings), from the driver total");
    if (more) {
        row = explain_row_begin(c->x, "sglang_reserve_all", "SGLang reserve, all", "per GPU");
        explain_ref(c->x, row, "sglang_reserve", "");
        key = "sglang_reserve_all";
    }
    if (s->dp_attention) {
        explain_term(row, (double)graph_bs * c->l->tp, XU_COUNT, "graph batch x DP ranks");
        explain_term(row, (graph_bs > 300 ? 4.5 : 3.0) * MIB, XU_BYTES_EXACT, "each");
        explain_op(row, XOP_MUL);
        explain_op(row, XOP_ADD);
    }
    if (total_mb > 60 * 1024.0) {
        explain_term(row, 10.0 * GIB, XU_BYTES, "at least, above 60 GiB");
        explain_op(row, XOP_MAX);
    }
    if (s->spec_method != SPEC_NONE) {
        explain_term(row, (s->spec_method == SPEC_DRAFT ? 6.0 : 2.0) * GIB, XU_BYTES,
                     s->spec_method == SPEC_DRAFT ? "draft model" : "MTP head");
        explain_op(row, XOP_ADD);
    }
    if (more)
        explain_row_end(c->x, row, XU_BYTES, 0, "with DP attention's padding, the floor above "
                                                "60 GiB and a draft's share, as they apply");
    row = explain_row_begin(c->x, "sglang_fraction", "mem-fraction-static", "");
    explain_term(row, total_mb * MIB, XU_BYTES, "driver total");
    explain_ref(c->x, row, key, "reserve");
    explain_op(row, XOP_SUB);
    explain_term(row, total_mb * MIB, XU_BYTES, "driver total");
    explain_op(row, XOP_DIV);
    explain_term(row, 1000, XU_COUNT, "");
    explain_op(row, XOP_MUL);
    explain_op(row, XOP_ROUND);
    explain_term(row, 1000, XU_COUNT, "");
    explain_op(row, XOP_DIV);
    explain_row_end(c->x, row, XU_FRACTION, 0, "the default, rounded to 3 places as SGLang does");
}

/* The default mem-fraction-static: what server_args.py's reserve (in MiB,
 * its "MB") leaves of the driver total, to 3 decimals as it rounds it. */
double sglang_default_fraction(const struct policy_ctx *c, double total_mb, uint64_t chunked,
                               uint32_t graph_bs)
{
    const struct scenario *s = c->s;
    /* server_args.py: a reserve in MB, at least 10 GiB on GPUs over 60 GiB */
    double reserved = 512 + (double)(chunked > 2048 ? chunked : 2048) * 1.5 + graph_bs * 2.0 +
                      c->l->tp * (double)c->l->pp / 8.0 * 1024;
    if (s->dp_attention) /* padding for DP attention, more past a graph batch of 300 */
        reserved += graph_bs * (double)c->l->tp * (graph_bs > 300 ? 4.5 : 3.0);
    if (total_mb > 60 * 1024.0 && reserved < 10 * 1024.0)
        reserved = 10 * 1024.0;
    /* _handle_gpu_memory_settings: a draft model and its graphs, 6 GiB
     * (STANDALONE); an EAGLE/NEXTN head, 2 GiB */
    if (s->spec_method == SPEC_DRAFT)
        reserved += 6 * 1024.0;
    else if (s->spec_method == SPEC_MTP)
        reserved += 2 * 1024.0;
    double fraction = total_mb > reserved ? (total_mb - reserved) / total_mb : 0.01;
    return round(fraction * 1000.0) / 1000.0;
}
