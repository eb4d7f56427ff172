/* policy_vllm_profile: the activation peak of vLLM's profiling run, what
 * determine_available_memory subtracts as torch's peak increase (V1
 * gpu_model_runner.py profile_run and _dummy_sampler_run; V0
 * worker/model_runner.py profile_run): one dummy forward of the batched
 * tokens, then the sampler on the last token of each of min(max_num_seqs,
 * batched tokens) dummy requests. The peak is the larger of the two:
 *  - forward, per batched token, in the 2-byte compute precision: five
 *    hidden-sized tensors (embedding output, residual, normed input,
 *    attention output, MLP output), the fused QKV projection of this rank's
 *    heads, and the MLP's gate_up output (2 x intermediate / TP) with its
 *    activated half (intermediate / TP) alive together;
 *  - sampler, per row and vocabulary entry. V1's _dummy_sampler_run asks for
 *    top-p 0.9 and top-k vocab - 1, so the sampler (v1/sample/sampler.py)
 *    holds the bf16 logits and their fp32 copy (2 + 4 B) while
 *    TopKTopPSampler.forward_native's apply_top_k_top_p
 *    (v1/sample/ops/topk_topp_sampler.py) sorts the fp32 copy: the PyTorch
 *    sort's outputs and scratch (see sort_parts) are its peak, above what
 *    follows (the masks, the softmax and the exponential noise): the rules up
 *    to vllm@0.17. FlashInfer's sampler, which sorts nothing, was off by
 *    default (VLLM_USE_FLASHINFER_SAMPLER opt-in, vllm PR #26859; vllm PR
 *    #32558, January 2026: "the current pytorch sort-based top-p/top-k
 *    implementation uses a large amount of memory");
 *  - from 0.18 (the current rule) apply_top_k_top_p masks in place with
 *    apply_top_k_top_p_triton (v1/sample/ops/topk_topp_triton.py, vllm PR
 *    #33538) whenever Triton is present and the batch has 8 rows or more
 *    ("HAS_TRITON and logits.shape[0] >= 8"; fewer rows still sort): no sort,
 *    the logits, the softmax's probabilities and the exponential noise (2 + 4
 *    + 4 + 4 = 14 B an entry) and the kernel's cached fp32 buffer of
 *    [programs, vocab], programs min(next power of 2 of min(SMs, rows), SMs)
 *    (apply_top_k_top_p_triton, _TRITON_BUFFER_CACHE; "~80MiB" in the PR),
 *    SMs being num_compute_units (vllm/utils/platform_utils.py: the
 *    platform's multi_processor_count, compute units on ROCm): the GPU
 *    preset's sm_count, or H100's 132 when the preset has none.
 * V0 profiles top-k/top-p too, counted as before at 30 B: the sort's values
 * and indices and a cumulative sum beside 14 B of logits, softmax and noise. */
#include "policy.h"

#include "units.h"

#include <stdio.h>

enum { VLLM_LOGITS_BYTES = 6, VLLM_TRITON_SAMPLER_BYTES = 14, VLLM_V0_SAMPLER_BYTES = 30,
       VLLM_TRITON_MIN_ROWS = 8, VLLM_TRITON_SMS_UNKNOWN = 132 };

/* One buffer of the sort, in bytes per row and vocabulary entry. */
struct sort_part {
    uint8_t bytes;
    const char *name;
};

/* PyTorch's sort along the vocabulary of a [rows, vocab] fp32 tensor
 * (aten/src/ATen/native/cuda/SortStable.cu, do_launch_stable_sort_kernel,
 * vocabularies under 1,000,000): the sorted values (fp32) and int64 indices
 * it returns, and the scratch of the path the rows pick:
 *  - 128 rows or more, segmented_sort_pairs: int64 reverse indices to sort
 *    along, then cub's DeviceSegmentedRadixSort::SortPairs, whose temporary
 *    storage holds a third keys buffer and a third values buffer (cub's
 *    dispatch_segmented_radix_sort.cuh: num_items x sizeof key, x sizeof
 *    value, as it does not overwrite its input);
 *  - 2 to 127 rows, segmented_sort_pairs_by_full_sort: two arrays of int2
 *    (index, segment) pairs, the sorted keys it allocates (keys_out null in
 *    aten/src/ATen/cuda/cub.cuh) and cub's DeviceRadixSort third buffers;
 *  - one row, segmented_sort_large_segments: cub's third buffers only. */
static const struct sort_part SORT_SEGMENTED[] = {
    {4, "sorted values"}, {8, "indices"},       {8, "reverse indices"},
    {4, "cub's spare keys"}, {8, "cub's spare values"}};
static const struct sort_part SORT_FULL[] = {
    {4, "sorted values"},   {8, "indices"},          {8, "index-segment pairs"},
    {8, "their sorted copy"}, {4, "sorted keys"},    {4, "cub's spare keys"},
    {8, "cub's spare pairs"}};
static const struct sort_part SORT_ONE_ROW[] = {
    {4, "sorted values"}, {8, "indices"}, {4, "cub's spare keys"},
    {8, "cub's spare values"}};

static const struct sort_part *sort_parts(uint64_t rows, size_t *n)
{
    if (rows >= 128) {
        *n = sizeof SORT_SEGMENTED / sizeof SORT_SEGMENTED[0];
        return SORT_SEGMENTED;
    }
    if (rows >= 2) {
        *n = sizeof SORT_FULL / sizeof SORT_FULL[0];
        return SORT_FULL;
    }
    *n = sizeof SORT_ONE_ROW / sizeof SORT_ONE_ROW[0];
    return SORT_ONE_ROW;
}

/* bytes per row and vocabulary entry of the sort's outputs and scratch */
uint32_t vllm_sort_bytes_per_entry(uint64_t rows)
{
    size_t n;
    const struct sort_part *p = sort_parts(rows, &n);
    uint32_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += p[i].bytes;
    return sum;
}

static uint64_t forward_bytes_per_token(const struct model_spec *m, uint32_t tp)
{
    uint64_t head_dim = m->head_dim ? m->head_dim : policy_hidden(m) / m->attention_heads;
    uint64_t qkv = m->attention == ATTENTION_MLA
                       ? (uint64_t)m->attention_heads * head_dim / tp
                       : ((uint64_t)m->attention_heads + 2ull * m->kv_heads) * head_dim / tp;
    uint64_t inter = m->intermediate_size ? m->intermediate_size : 4ull * policy_hidden(m);
    return 2 * (5ull * policy_hidden(m) + qkv + 3 * kv_ceil_div(inter, tp));
}

/* The explain row of V1's sort (key sampler_sort): rows x vocab x the sum
 * of its buffers. */
static void sort_row(const struct policy_ctx *c, uint64_t rows, uint32_t vocab)
{
    size_t n;
    const struct sort_part *p = sort_parts(rows, &n);
    struct explain_row *row = explain_row_begin(c->x, "sampler_sort", "Sampler's sort", "per GPU");
    explain_term(row, rows, XU_COUNT, "rows");
    explain_term(row, vocab, XU_COUNT, "vocabulary");
    explain_op(row, XOP_MUL);
    for (size_t i = 0; i < n; i++) {
        explain_term(row, p[i].bytes, XU_BYTES_EXACT, p[i].name);
        if (i > 0)
            explain_op(row, XOP_ADD);
    }
    explain_op(row, XOP_MUL);
    explain_row_end(c->x, row, XU_BYTES, 0,
                    "torch.sort of the fp32 logits for top-k/top-p (top-k vocab - 1, "
                    "top-p 0.9 in the profile)");
}

/* How the profile filters top-k/top-p at this many rows: the Triton
 * releases still sort under 8 rows. */
enum sampler_path { SAMPLER_V0, SAMPLER_SORT, SAMPLER_TRITON };

static enum sampler_path sampler_path(enum vllm_topk topk, uint64_t rows)
{
    if (topk == VLLM_TOPK_V0)
        return SAMPLER_V0;
    if (topk == VLLM_TOPK_SORT || rows < VLLM_TRITON_MIN_ROWS)
        return SAMPLER_SORT;
    return SAMPLER_TRITON;
}

static const char *const PER_ROW_NAME[] = {
    [SAMPLER_V0] = "logits and sampler per entry",
    [SAMPLER_SORT] = "bf16 and fp32 logits per entry",
    [SAMPLER_TRITON] = "logits, softmax and noise per entry"};

/* The SMs vLLM's num_compute_units reports on the scenario's GPU: its
 * preset's, or H100's when the preset does not say. */
uint32_t vllm_triton_sms(const struct gpu_spec *g)
{
    return g->sm_count ? g->sm_count : VLLM_TRITON_SMS_UNKNOWN;
}

/* The Triton kernel's programs, one buffer row each: NUM_PROGRAMS =
 * min(SMs, rows), the cache sized to min(next_power_of_2(it), SMs). */
uint64_t vllm_triton_programs(uint64_t rows, uint32_t sms)
{
    uint64_t n = rows < sms ? rows : sms, pow2 = 1;
    while (pow2 < n)
        pow2 *= 2;
    return pow2 < sms ? pow2 : sms;
}

/* The explain row of the Triton kernel's buffer (key sampler_triton), with
 * the SM count it took and where that comes from. */
static void triton_row(const struct policy_ctx *c, uint64_t programs, uint32_t vocab)
{
    const struct gpu_spec *g = &c->s->gpu;
    struct explain_row *row =
        explain_row_begin(c->x, "sampler_triton", "Top-k/top-p buffer", "per GPU");
    explain_term(row, programs, XU_COUNT, "Triton programs");
    explain_term(row, vocab, XU_COUNT, "vocabulary");
    explain_op(row, XOP_MUL);
    explain_term(row, 4, XU_BYTES_EXACT, "fp32");
    explain_op(row, XOP_MUL);
    char sms[SPEC_NAME_MAX * 2 + 32], note[sizeof sms + 160];
    if (g->sm_count)
        snprintf(sms, sizeof sms, "%u SMs (%s)", (unsigned)g->sm_count, g->sm_count_basis);
    else
        snprintf(sms, sizeof sms, "SM count unknown: assumed %u (H100)",
                 (unsigned)VLLM_TRITON_SMS_UNKNOWN);
    snprintf(note, sizeof note,
             "apply_top_k_top_p_triton masks in place, no sort (vllm PR #33538); programs "
             "min(next power of 2 of min(rows, SMs), SMs), %s",
             sms);
    explain_row_end(c->x, row, XU_BYTES, 0, note);
}

uint64_t vllm_activation_row(const struct policy_ctx *c, uint64_t tokens, uint32_t seqs,
                             enum vllm_topk topk)
{
    const struct model_spec *m = &c->s->model;
    uint64_t per_token = forward_bytes_per_token(m, c->l->tp);
    uint64_t rows = seqs < tokens ? seqs : tokens;
    uint32_t vocab = policy_vocab(m);
    enum sampler_path path = sampler_path(topk, rows);
    uint64_t sort_entry = path == SAMPLER_SORT ? vllm_sort_bytes_per_entry(rows) : 0;
    uint64_t per_row = path == SAMPLER_V0       ? VLLM_V0_SAMPLER_BYTES
                       : path == SAMPLER_TRITON ? VLLM_TRITON_SAMPLER_BYTES
                                                : VLLM_LOGITS_BYTES;
    uint64_t programs =
        path == SAMPLER_TRITON ? vllm_triton_programs(rows, vllm_triton_sms(&c->s->gpu)) : 0;
    uint64_t buffers = kv_sat_mul(kv_sat_mul(programs, vocab), 4);
    uint64_t forward = kv_sat_mul(tokens, per_token);
    uint64_t entries = kv_sat_mul(rows, vocab);
    uint64_t sort = kv_sat_mul(entries, sort_entry);
    uint64_t sampler = kv_sat_add(kv_sat_add(kv_sat_mul(entries, per_row), sort), buffers);
    bool fwd = forward >= sampler;
    if (!fwd && sort > 0)
        sort_row(c, rows, vocab);
    if (!fwd && buffers > 0)
        triton_row(c, programs, vocab);
    char note[96], other[32];
    units_format_bytes(fwd ? sampler : forward, UNITS_GIB, other, sizeof other);
    snprintf(note, sizeof note, "the larger of the forward pass and the sampler (%s %s)",
             fwd ? "sampler" : "forward", other);
    struct explain_row *row = explain_row_begin(c->x, "activation", "Activation peak", "per GPU");
    if (fwd) {
        explain_term(row, tokens, XU_TOKENS, "batched tokens");
        explain_term(row, per_token, XU_BYTES_EXACT, "hidden, QKV and MLP / TP per token");
        explain_op(row, XOP_MUL);
    } else {
        explain_term(row, rows, XU_COUNT, "sampled rows");
        explain_term(row, vocab, XU_COUNT, "vocabulary");
        explain_op(row, XOP_MUL);
        explain_term(row, per_row, XU_BYTES_EXACT, PER_ROW_NAME[path]);
        explain_op(row, XOP_MUL);
        if (sort > 0) {
            explain_ref(c->x, row, "sampler_sort", "sort");
            explain_op(row, XOP_ADD);
        }
        if (buffers > 0) {
            explain_ref(c->x, row, "sampler_triton", "Triton buffer");
            explain_op(row, XOP_ADD);
        }
    }
    explain_row_end(c->x, row, XU_BYTES, 0, note);
    return fwd ? forward : sampler;
}
