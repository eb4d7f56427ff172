/* Shared by the engine tests: a Llama 3 8B on an A100 40GB as vLLM logged
 * it (vllm#12330), and small scenario builders. Static inline so each test
 * file takes what it uses. */
#ifndef KVPLAN_TESTS_ENGINE_FIXTURE_H
#define KVPLAN_TESTS_ENGINE_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/plan.h"
#include "model_fixture.h"

static struct explain rows; /* the explain rows of the last plan computed with them */

static inline struct gpu_spec a100_40(void)
{
    struct gpu_spec g = {0};
    strcpy(g.id, "a100-40gb");
    g.memory_bytes = 40960ull << 20;
    g.cuda_visible_bytes = 42412802048ull; /* 39.50 GiB as vLLM logged it */
    g.bandwidth_bytes_per_s = 1555000000000ull;
    g.price_usd_per_hour = -1;
    return g;
}

static inline struct plan_result run(struct scenario *s)
{
    struct plan_result r;
    struct diag d = {0};
    if (!plan_compute(s, &rows, NULL, &r, &d))
        fail_msg("%s", d.message);
    return r;
}

static inline struct scenario base(enum engine_kind kind)
{
    struct gpu_spec g = a100_40();
    struct model_spec m = llama3_8b();
    struct scenario s;
    scenario_default(&s, &g, &m);
    s.engine.kind = kind;
    return s;
}

/* A Llama 3.1 8B shape (MLP 14,336) on a GPU known by its driver total alone. */
static inline struct scenario on(enum engine_kind kind, const char *gpu_id, uint64_t driver_mib)
{
    struct scenario s = base(kind);
    memset(&s.gpu, 0, sizeof s.gpu);
    snprintf(s.gpu.id, sizeof s.gpu.id, "%s", gpu_id);
    s.gpu.memory_bytes = driver_mib << 20;
    s.gpu.price_usd_per_hour = -1;
    s.model.intermediate_size = 14336;
    s.model.max_context_tokens = 131072;
    s.context_tokens = 8192;
    return s;
}

/* DeepSeek-V3's attention (MLA: a 512-value latent and 64 rope dims, 128
 * heads of 128 + 64) over 61 layers, at 8,192 tokens. */
static inline void deepseek_v3_shape(struct scenario *s)
{
    s->model.attention = ATTENTION_MLA;
    s->model.layers = 61;
    s->model.attention_heads = 128;
    s->model.kv_heads = 0;
    s->model.head_dim = 0;
    s->model.kv_lora_rank = 512;
    s->model.qk_rope_head_dim = 64;
    s->model.qk_nope_head_dim = 128;
    s->model.v_head_dim = 128;
    s->model.params = 671026419200;
    s->model.max_context_tokens = 163840;
    s->context_tokens = 8192;
}

/* vLLM V1 on a model of `layers`, `windowed` of them windowed, with a logged
 * 10 GiB KV pool. */
static inline struct scenario hybrid_on_10_gib(uint32_t layers, uint32_t windowed, uint64_t window,
                                        uint64_t context)
{
    struct scenario s = base(ENGINE_VLLM);
    s.model.layers = layers;
    s.model.windowed_layers = windowed;
    s.model.window_tokens = window;
    s.model.max_context_tokens = 131072;
    s.context_tokens = context;
    s.engine.kv_memory_bytes = 10ull << 30;
    return s;
}

#endif
