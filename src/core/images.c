#include "images.h"

#include <stdio.h>
#include <string.h>

#include "policy.h"

void images_apply(const struct scenario *s, struct scenario *eff, struct image_counts *out)
{
    *eff = *s;
    memset(out, 0, sizeof *out);
    out->images = scenario_images(s);
    out->tokens_per_image = out->images ? scenario_tokens_per_image(s) : 0;
    out->image_tokens = scenario_image_tokens(s);
    out->text_tokens = s->context_tokens;
    if (out->image_tokens == 0)
        return;
    eff->context_tokens += out->image_tokens;
    if (eff->avg_context_tokens)
        eff->avg_context_tokens += out->image_tokens;
    if (eff->prompt_tokens)
        eff->prompt_tokens += out->image_tokens;
    eff->images = 0;
    eff->image_tokens = 0;
}

void images_context_row(const struct policy_ctx *c)
{
    const struct image_counts *i = c->img;
    if (i->image_tokens == 0)
        return;
    struct explain_row *row = explain_row_begin(c->x, "context", "Context", "per user");
    explain_term(row, (long double)i->text_tokens, XU_TOKENS, "text tokens");
    explain_term(row, i->images, XU_COUNT, i->images == 1 ? "image" : "images");
    explain_term(row, i->tokens_per_image, XU_TOKENS, "per image");
    explain_op(row, XOP_MUL);
    explain_op(row, XOP_ADD);
    explain_row_end(c->x, row, XU_TOKENS, 0, "image tokens take KV cells like text");
}

void images_encoder_cache(const struct policy_ctx *c, uint64_t batched)
{
    const struct scenario *s = c->s;
    const struct image_counts *i = c->img;
    struct plan_budget *r = c->b;
    if (i->image_tokens == 0)
        return;
    const struct dtype_info *info = dtype_info(scenario_compute_dtype(s));
    uint64_t hidden = s->model.hidden_size;
    r->encoder_cache_tokens = batched > i->tokens_per_image ? batched : i->tokens_per_image;
    r->encoder_cache_bytes_per_gpu =
        kv_sat_mul(kv_sat_mul(r->encoder_cache_tokens, hidden), info->bytes_num) / info->bytes_den;
    char bpv[48];
    snprintf(bpv, sizeof bpv, "B (%s)", info->name);
    struct explain_row *row = explain_row_begin(c->x, "encoder_cache", "Encoder cache", "per GPU");
    explain_term(row, (long double)batched, XU_TOKENS, "batched tokens");
    explain_term(row, i->tokens_per_image, XU_TOKENS, "per image");
    explain_op(row, XOP_MAX);
    explain_term(row, (long double)hidden, XU_COUNT, "hidden");
    explain_op(row, XOP_MUL);
    explain_term(row, (long double)info->bytes_num / info->bytes_den, XU_PER_VALUE, bpv);
    explain_op(row, XOP_MUL);
    explain_row_end(c->x, row, XU_BYTES, 0,
                    "image embeddings the profile run holds; outside the KV cache");
}
