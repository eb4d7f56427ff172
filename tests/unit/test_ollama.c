/* Ollama's profile (core/policy_ollama.c), worked by hand from its source at
 * ollama/ollama v0.32.15: envconfig/config.go (OLLAMA_NUM_PARALLEL default 1,
 * OLLAMA_CONTEXT_LENGTH default 0 = the VRAM tier), server/routes.go Serve
 * (the tier: 4,096 below 23 GiB, 32,768 from 23 GiB, 262,144 from 47 GiB of
 * total memory less OLLAMA_GPU_OVERHEAD over every GPU), llm/server.go
 * NewLlamaServer (num_ctx above n_ctx_train lowered to it; the cache type of
 * OLLAMA_KV_CACHE_TYPE for K and V alike), llm/llama_server.go
 * startLlamaServer (llama-server -c num_ctx x num_parallel -np num_parallel,
 * no -ngl unless num_gpu is set: llama-server's --fit places the layers). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "app/controls.h"
#include "catalog_fixture.h"
#include "core/engine_desc.h"
#include "core/plan.h"
#include "core/policy_llamacpp.h"
#include "core/solve.h"

static struct explain rows;

static struct plan_result run(struct scenario *s)
{
    struct plan_result r;
    struct diag d = {0};
    if (!plan_compute(s, &rows, NULL, &r, &d))
        fail_msg("%s", d.message);
    return r;
}

/* A GGUF model in Q4_K_M on `gpus` cards, Ollama at its defaults: the
 * context a request without num_ctx gets. */
static struct scenario ollama(const char *gpu, uint32_t gpus, const char *model)
{
    struct scenario s = base(gpu, model);
    s.gpus = gpus;
    s.weight_dtype = DTYPE_Q4_K_M;
    s.engine.kind = ENGINE_OLLAMA;
    s.context_tokens = engine_desc(ENGINE_OLLAMA)->default_context(&s);
    return s;
}

static const struct explain_row *row_of(const char *key)
{
    for (int i = 0; i < rows.count; i++)
        if (strcmp(rows.rows[i].key, key) == 0)
            return &rows.rows[i];
    fail_msg("no explain row %s", key);
    return NULL;
}

static void the_default_context_is_the_vram_tier(void **state)
{
    (void)state;
    /* server/routes.go Serve: >= 47 GiB 262144, >= 23 GiB 32768, else 4096 */
    assert_int_equal(ollama_default_context(23ull * GIB - 1), 4096);
    assert_int_equal(ollama_default_context(23ull * GIB), 32768);
    assert_int_equal(ollama_default_context(47ull * GIB - 1), 32768);
    assert_int_equal(ollama_default_context(47ull * GIB), 262144);
    /* an RTX 4090: 24,564 MiB less kvplan's 460 MiB of CUDA context = 23.54
     * GiB, over the 23 GiB line (why Ollama draws it below 24); two of them
     * 47.08 GiB, over 47; a 16 GB card under 23 */
    assert_int_equal(ollama("rtx-4090", 1, "llama-3.1-8b").context_tokens, 32768);
    assert_int_equal(ollama("rtx-4090", 2, "llama-4-scout").context_tokens, 262144);
    /* Llama 3.1 8B was trained at 131,072: NewLlamaServer lowers num_ctx to it */
    assert_int_equal(ollama("rtx-4090", 2, "llama-3.1-8b").context_tokens, 131072);
    assert_int_equal(ollama("v100-16gb", 1, "llama-3.1-8b").context_tokens, 4096);
    /* Llama 2 was trained at 4,096 tokens: NewLlamaServer lowers num_ctx to it */
    assert_int_equal(ollama("rtx-4090", 2, "llama-2-7b").context_tokens, 4096);
}

static void llama_8b_on_a_24_gb_card_is_one_request_of_32k(void **state)
{
    (void)state;
    /* Llama 3.1 8B (32 layers, 8 KV heads of 128), f16 cache: a cell of a layer
     * is K 8 x 128 x 2 B + V the same = 4,096 B; num_ctx 32,768 x
     * OLLAMA_NUM_PARALLEL 1 = -c 32,768 cells (a multiple of 256: no padding);
     * 32 x 32,768 x 4,096 B = 4 GiB of cache, one user. */
    struct scenario s = ollama("rtx-4090", 1, "llama-3.1-8b");
    struct plan_result r = run(&s);
    assert_true(r.fits);
    assert_int_equal(r.engine.slots, 1);
    assert_int_equal(r.users_per_replica, 1);
    assert_int_equal(r.engine.units, 32768);
    assert_int_equal(r.engine.kv_cache_bytes, 32ull * 32768 * 4096);
    /* llama-server's --fit keeps 1 GiB free (LLAMA_ARG_FIT_TARGET unset) */
    assert_int_equal(r.engine.budget_bytes, r.engine.gpu_total_bytes - GIB);
    assert_string_equal(r.engine.launch, "OLLAMA_CONTEXT_LENGTH=32768 OLLAMA_NUM_PARALLEL=1 "
                                         "ollama serve  # then: ollama run llama3.1:8b");
    assert_int_equal((uint64_t)row_of("ollama_default_ctx")->result.value, 32768);
    assert_int_equal((uint64_t)row_of("ollama_cells")->result.value, 32768);
    assert_non_null(strstr(r.engine.log[0], "default_num_ctx=32768"));
    /* llama.cpp by itself takes as many slots as fit: Ollama's default is one */
    s.engine.kind = ENGINE_LLAMACPP;
    struct plan_result l = run(&s);
    assert_true(l.users_per_replica > 1);
    assert_int_equal(l.engine.kv_cache_bytes, l.users_per_replica * r.engine.kv_cache_bytes);
}

static void num_parallel_multiplies_the_context(void **state)
{
    (void)state;
    /* OLLAMA_NUM_PARALLEL=4: -c 4 x 32,768 = 131,072 cells, each slot 32,768 */
    struct scenario s = ollama("rtx-4090", 1, "llama-3.1-8b");
    s.engine.parallel = 4;
    struct plan_result r = run(&s);
    assert_int_equal(r.users_per_replica, 4);
    assert_int_equal(r.engine.units, 4ull * 32768);
    assert_int_equal(r.engine.kv_cache_bytes, 4ull * 32 * 32768 * 4096);
    assert_int_equal((uint64_t)row_of("ollama_cells")->result.value, 131072);
    assert_non_null(strstr(r.engine.launch, "OLLAMA_NUM_PARALLEL=4 ollama serve"));
    assert_false(r.engine.offload.active);
    /* 5 slots' 20 GiB no longer fit beside 4.58 GiB of weights in 22.54 GiB:
     * --fit moves the first layers (and their cache) to host memory */
    s.engine.parallel = 5;
    r = run(&s);
    assert_true(r.fits && r.engine.offload.active);
    assert_true(r.engine.offload.gpu_layers < 32);
    assert_int_equal(r.users_per_replica, 5);
}

static void a_quantized_cache_sets_both_types_and_flash_attention(void **state)
{
    (void)state;
    /* q8_0: 34 bytes a block of 32 values; K and V of 1,024 values each */
    struct scenario s = ollama("rtx-4090", 1, "llama-3.1-8b");
    s.kv_dtype = DTYPE_Q8_0;
    struct plan_result r = run(&s);
    assert_int_equal(r.engine.kv_cache_bytes, 32ull * 32768 * 2 * (1024 / 32 * 34));
    assert_non_null(strstr(r.engine.launch, "OLLAMA_KV_CACHE_TYPE=q8_0 OLLAMA_FLASH_ATTENTION=1 "
                                            "ollama serve"));
}

static void a_70b_is_split_by_llama_servers_fit(void **state)
{
    (void)state;
    /* Llama 3.1 70B Q4_K_M (40.25 GiB) on one 24 GB card at 8,192 tokens:
     * Ollama passes no -ngl, llama-server's --fit puts the last layers on
     * the GPU while their weights and cache fit in the budget less the
     * compute buffers; the rest stays in host memory. */
    struct scenario s = ollama("rtx-4090", 1, "llama-3.1-70b");
    s.context_tokens = 8192;
    s.offload.host_memory_bytes = 64 * GIB;
    struct plan_result r = run(&s);
    const struct offload_split *o = &r.engine.offload;
    assert_true(r.fits);
    assert_true(o->active && o->searched);
    /* a layer's cache: 8,192 cells x 4,096 B = 32 MiB beside its 499.81 MiB */
    uint64_t layer = o->layer_bytes + 8192ull * 4096;
    uint64_t room = r.engine.budget_bytes - r.runtime_bytes_per_gpu;
    assert_int_equal(o->ngl, 42);
    assert_true(42 * layer <= room && 43 * layer > room);
    assert_int_equal(r.users_per_replica, 1);
    assert_string_equal(r.engine.launch, "OLLAMA_CONTEXT_LENGTH=8192 OLLAMA_NUM_PARALLEL=1 "
                                         "ollama serve  # then: ollama run llama3.1:70b");
    /* num_gpu set (--n-gpu-layers): the Modelfile's PARAMETER, not an env */
    s.offload.ngl_given = true;
    s.offload.ngl = 40;
    r = run(&s);
    assert_int_equal(r.engine.offload.ngl, 40);
    assert_non_null(strstr(r.engine.launch, "PARAMETER num_gpu 40"));
}

/* scenario_validate refuses s, and its message begins with `want` */
static void refused(const struct scenario *s, const char *want)
{
    struct diag d = {0};
    assert_false(scenario_validate(s, NULL, NULL, &d));
    if (strncmp(d.message, want, strlen(want)) != 0)
        fail_msg("'%s' does not begin with '%s'", d.message, want);
}

static void what_ollama_has_no_option_for_is_refused_by_name(void **state)
{
    (void)state;
    struct scenario s = ollama("rtx-4090", 2, "llama-3.1-8b");
    struct diag d = {0};
    assert_true(scenario_validate(&s, NULL, NULL, &d));
    s.tp = 2; /* no tensor parallel */
    refused(&s, "--tp: Ollama has no tensor parallel");
    s.tp = 1; /* nor replicas */
    refused(&s, "--tp: Ollama has no tensor parallel");
    s.tp = 0;
    s.pp = 2; /* nor pipeline stages: the GPUs are given with --gpus */
    refused(&s, "--pp: Ollama already splits layers across its GPUs; give them with --gpus");
    s.pp = 0;
    s.engine.v_dtype = DTYPE_Q4_0; /* one OLLAMA_KV_CACHE_TYPE for K and V */
    refused(&s, "--kv-dtype-v: Ollama's OLLAMA_KV_CACHE_TYPE");
    s.engine.v_dtype = DTYPE_AUTO;
    s.offload.no_kv_offload = true; /* only num_gpu */
    refused(&s, "--no-kv-offload: Ollama sets only the GPU layers");
    s.offload.no_kv_offload = false;
    s.kv_dtype = DTYPE_BF16; /* docs/faq: f16, q8_0, q4_0 */
    refused(&s, "--kv-dtype: ollama has no bf16 cache");
    s.kv_dtype = DTYPE_AUTO;
    s.engine.max_num_seqs = 4; /* vLLM's word for it */
    refused(&s, "--max-num-seqs: Ollama counts parallel requests");
}

/* The planner stepping to Ollama drops what Ollama has no setting for, as
 * it drops a cache type an engine lacks, instead of refusing the step. */
static void the_planner_drops_what_ollama_refuses(void **state)
{
    (void)state;
    struct scenario s = ollama("rtx-4090", 4, "llama-3.1-8b");
    s.tp = 2;
    s.spec_method = SPEC_DRAFT;
    s.draft = base("rtx-4090", "llama-3.2-1b").model;
    s.offload.no_kv_offload = true;
    s.engine.v_dtype = DTYPE_Q8_0;
    struct diag d = {0};
    assert_false(scenario_validate(&s, NULL, NULL, &d));
    control_fit_knobs(&s);
    assert_int_equal(s.tp, 0);
    assert_int_equal(s.spec_method, SPEC_NONE);
    assert_false(s.offload.no_kv_offload);
    assert_int_equal(s.engine.v_dtype, DTYPE_AUTO);
    d = (struct diag){0};
    assert_true(scenario_validate(&s, NULL, NULL, &d));
}

/* solve for N users under Ollama: N parallel requests (OLLAMA_NUM_PARALLEL
 * unset would serve one), over one server's GPUs (no TP to choose). */
static void solve_sets_the_parallel_requests_and_spreads_layers(void **state)
{
    (void)state;
    struct scenario s = ollama("rtx-4090", 1, "llama-3.1-8b");
    /* 4 x 4 GiB of cache beside 4.58 GiB of weights: one card */
    struct solve_split one = solve_gpus(&s, 4, 8, 0, NULL, false);
    assert_true(one.solved);
    assert_int_equal(one.gpus, 1);
    assert_int_equal(one.users, 4);
    /* the 70B at 32k: two requests' 2 x 10 GiB of cache beside 40.25 GiB of
     * weights, about 60 GiB, more than two cards' 2 x 21.97 GiB (each 22.54 GiB
     * less 570.50 MiB of buffers), and the 8 GiB of host memory here cannot
     * take the 16 GiB left over: three cards, every layer on them */
    s = ollama("rtx-4090", 1, "llama-3.1-70b");
    s.context_tokens = 32768;
    s.offload.host_memory_bytes = 8 * GIB;
    struct solve_split two = solve_gpus(&s, 2, 8, 0, NULL, false);
    assert_true(two.solved);
    assert_int_equal(two.gpus, 3);
    assert_int_equal(two.tp, 3); /* one server over the three */
    assert_int_equal(two.users, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_default_context_is_the_vram_tier),
        cmocka_unit_test(llama_8b_on_a_24_gb_card_is_one_request_of_32k),
        cmocka_unit_test(num_parallel_multiplies_the_context),
        cmocka_unit_test(a_quantized_cache_sets_both_types_and_flash_attention),
        cmocka_unit_test(a_70b_is_split_by_llama_servers_fit),
        cmocka_unit_test(what_ollama_has_no_option_for_is_refused_by_name),
        cmocka_unit_test(the_planner_drops_what_ollama_refuses),
        cmocka_unit_test(solve_sets_the_parallel_requests_and_spreads_layers),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
