/* The host memory tier (--host-kv, --prefix-hit-rate): users whose caches
 * host memory holds, and what one costs to bring back, with the numbers
 * worked by hand. Engine rules cited where kvplan mirrors them:
 * vllm/config/kv_offloading.py (NativeOffloadingParser.configure_kv_transfer:
 * --kv-offloading-size GiB split over TP x PP ranks) and SGLang
 * python/sglang/srt/mem_cache/memory_pool_host.py, now pool_host/base.py
 * (HostKVCache.__init__: --hicache-size GB of 1e9 bytes on each rank, over
 * that rank's bytes per token). */
#include <math.h>

#include "catalog_fixture.h"

#include "app/planner.h"
#include "core/plan.h"
#include "io/report.h"
#include "io/snapshot.h"

#include <stdlib.h>

static struct explain rows; /* the explain rows of the last plan computed with them */

static struct plan_result r;

static void run(const struct scenario *s)
{
    struct diag d = {0};
    if (!plan_compute(s, &rows, NULL, &r, &d))
        fail_msg("%s", d.message);
}

static const char *text_of(const char *key)
{
    const struct explain_row *row = explain_find(&rows, key);
    if (row == NULL)
        fail_msg("no %s row", key);
    return row->result.text;
}

static void llama_8b_at_32k_parks_64_users_in_256_gib(void **state)
{
    (void)state;
    /* Llama 3.1 8B, bf16 cache: 2 (K,V) x 8 KV heads x 128 x 2 B x 32 layers
     * = 131,072 B (128 KiB) a token; 32,768 tokens = 4,294,967,296 B (4 GiB)
     * a user (whole 16-token blocks). 256 GiB = 274,877,906,944 B of host
     * memory hold floor(274,877,906,944 / 4,294,967,296) = 64 users.
     * On the GPU: 85,520,809,984 B x 0.9 - 16,060,522,496 B of weights =
     * 60,908,206,489 B, floor(/ 4 GiB) = floor(14.18) = 14 users; the host
     * copies theirs too, so 64 - 14 = 50 are parked beyond the GPU.
     * Reload: 4,294,967,296 B / 64e9 B/s (PCIe Gen5 x16 each way) =
     * 0.067108864 s = 67.11 ms. */
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    s.context_tokens = 32768;
    s.host_kv_bytes = 256ull << 30;
    run(&s);
    assert_true(r.host.present);
    assert_int_equal(r.cost.bytes_per_token, 131072);
    assert_int_equal(r.host.user_bytes_per_gpu, 4294967296ull);
    assert_int_equal(r.host.users_per_replica, 64);
    assert_int_equal(r.host.users, 64);
    assert_int_equal(r.max_users, 14);
    assert_int_equal(r.host.beyond_gpu, 50);
    assert_int_equal(r.host.link_bytes_per_s, 64000000000ull);
    assert_true(r.host.reload_seconds == 4294967296.0 / 64e9);
    assert_string_equal(text_of("host_users"), "64");
    assert_string_equal(text_of("host_beyond"), "50");
    assert_string_equal(text_of("host_reload"), "67.11 ms");
    assert_non_null(strstr(explain_find(&rows, "host_reload")->formula, "64.0 GB/s"));
    /* recomputing the user's 32,768 tokens is the same prefill as the first
     * token of a 32,768-token prompt */
    assert_true(r.host.recompute_seconds > 0);
    assert_true(r.host.recompute_seconds == r.speed.ttft_prefill_seconds);
    assert_false(r.host.has_hit_rate);
    assert_null(explain_find(&rows, "host_restore"));

    /* --prefix-hit-rate 0.8: 0.8 x 0.067108864 s + 0.2 x the recompute */
    s.has_prefix_hit_rate = true;
    s.prefix_hit_rate = 0.8;
    run(&s);
    double want = 0.8 * (4294967296.0 / 64e9) + 0.2 * r.speed.ttft_prefill_seconds;
    assert_true(r.host.restore_seconds > want - 1e-12 && r.host.restore_seconds < want + 1e-12);
    assert_non_null(explain_find(&rows, "host_restore"));
}

static void each_gpu_parks_its_share_and_replicas_multiply(void **state)
{
    (void)state;
    /* 4 x H100 at TP 2 are 2 replicas; a GPU holds 4 of the 8 KV heads:
     * 2 x 4 x 128 x 2 B x 32 = 65,536 B a token, 32,768 tokens = 2 GiB a
     * user on each GPU. 64 GiB of host memory a GPU hold 64 / 2 = 32 users
     * a replica, 64 in all; each GPU brings its 2 GiB back over its own
     * link: 2,147,483,648 / 64e9 = 0.033554432 s. vLLM is given the
     * engine's total: 64 GiB x (TP 2 x PP 1) = 128 GiB. */
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    s.context_tokens = 32768;
    s.gpus = 4;
    s.tp = 2;
    s.host_kv_bytes = 64ull << 30;
    s.engine.kind = ENGINE_VLLM;
    run(&s);
    assert_int_equal(r.replicas, 2);
    assert_int_equal(r.cost.bytes_per_token, 65536);
    assert_int_equal(r.host.user_bytes_per_gpu, 2147483648ull);
    assert_int_equal(r.host.users_per_replica, 32);
    assert_int_equal(r.host.users, 64);
    assert_true(r.host.reload_seconds == 2147483648.0 / 64e9);
    assert_non_null(strstr(r.engine.launch,
                           " --kv-offloading-backend native --kv-offloading-size 128"));
    assert_string_equal(text_of("host_users"), "64");
}

static void sglang_sizes_each_rank_in_gigabytes_and_dp_attention_parks_per_rank(void **state)
{
    (void)state;
    /* --hicache-size is whole GB of 1e9 B on each rank: 256 GiB =
     * 274,877,906,944 B = 274.88 GB, given as 274. */
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    s.context_tokens = 32768;
    s.host_kv_bytes = 256ull << 30;
    s.engine.kind = ENGINE_SGLANG;
    run(&s);
    assert_non_null(strstr(r.engine.launch, " --enable-hierarchical-cache --hicache-size 274"));
    /* and that is the pool: 274e9 B over 4 GiB (4,294,967,296 B) a user,
     * token-granular = floor(63.80) = 63 users, not the 64 of 256 GiB */
    assert_int_equal(r.host.pool_bytes_per_gpu, 274000000000ull);
    assert_int_equal(r.host.users, 63);
    assert_false(r.warnings & WARN_HOST_TOO_SMALL);
    /* under 1 GB it is still 1 GB (0 would mean SGLang's ratio), and a pool
     * no larger than the device's is refused at startup (HostKVCache) */
    s.host_kv_bytes = 100000000ull;
    run(&s);
    assert_int_equal(r.host.pool_bytes_per_gpu, 1000000000ull);
    assert_non_null(strstr(r.engine.launch, " --hicache-size 1"));
    assert_true(r.warnings & WARN_HOST_TOO_SMALL);
    s.host_kv_bytes = 256ull << 30;

    /* DeepSeek-V3 under DP attention on 8 x H200: each rank holds its own
     * requests' latents whole, (512 + 64) x 61 layers x 2 B = 70,272 B a
     * token; 4,096 tokens = 287,834,112 B a user. 100 GB = 1e11 B of host
     * memory a rank: floor(1e11 / 287,834,112) = floor(347.42) = 347 users a
     * rank, x 8 ranks = 2,776 a replica. */
    s = base("h200", "deepseek-v3");
    s.gpus = 8;
    s.tp = 8;
    s.context_tokens = 4096;
    s.engine.kind = ENGINE_SGLANG;
    s.dp_attention = true;
    s.host_kv_bytes = 100000000000ull;
    run(&s);
    assert_int_equal(r.cost.bytes_per_token, 70272);
    assert_int_equal(r.host.user_bytes_per_gpu, 287834112ull);
    assert_int_equal(r.host.users_per_replica, 2776);
}

/* Parked caches need a server: Llama 3.1 70B in bf16 (141 GB) does not fit
 * one L4, so nobody is parked however large the host memory. */
static void no_server_no_parked_users(void **state)
{
    (void)state;
    struct scenario s = base("l4", "llama-3.1-70b");
    s.host_kv_bytes = 100ull << 30;
    run(&s);
    assert_false(r.fits);
    assert_true(r.host.present);
    assert_false(r.host.serving);
    assert_int_equal(r.host.users, 0);
    assert_int_equal(r.host.beyond_gpu, 0);
    /* llama.cpp has no host tier: nobody parked either */
    s = base("h100-sxm", "llama-3.1-8b");
    s.host_kv_bytes = 256ull << 30;
    s.engine.kind = ENGINE_LLAMACPP;
    run(&s);
    assert_true(r.host.serving);
    assert_int_equal(r.host.users, 0);
}

/* The Markdown of the versus view lists what else sits in GPU memory when
 * any scenario has it: a draft, LoRA slots, the host tier. */
static void versus_markdown_names_the_new_inputs(void **state)
{
    (void)state;
    static struct snapshot_session ss;
    static struct plan_result res[2];
    memset(&ss, 0, sizeof ss);
    ss.count = 2;
    ss.reference = 0;
    struct scenario a = base("h100-sxm", "llama-3.1-70b");
    a.gpus = 4;
    a.engine.kind = ENGINE_VLLM;
    struct scenario b = a;
    b.spec_method = SPEC_DRAFT;
    b.draft = catalog_find_model(&cat, "llama-3.2-1b")->spec;
    b.max_loras = 4;
    b.host_kv_bytes = 256ull << 30;
    ss.entry[0].scenario = a;
    ss.entry[1].scenario = b;
    snprintf(ss.entry[0].label, sizeof ss.entry[0].label, "A");
    snprintf(ss.entry[1].label, sizeof ss.entry[1].label, "B");
    struct diag d = {0};
    assert_true(plan_compute(&a, &rows, NULL, &res[0], &d));
    assert_true(plan_compute(&b, &rows, NULL, &res[1], &d));
    const struct plan_result *results[2] = {&res[0], &res[1]};
    int shown[2] = {0, 1};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    report_markdown_versus(f, &ss, results, shown, 2);
    fclose(f);
    assert_non_null(strstr(text, "| Speculative | none | draft Llama 3.2 1B"));
    assert_non_null(strstr(text, "| LoRA | none | 4 slots x rank 16"));
    assert_non_null(strstr(text, "| Host KV | none | 256.00 GiB of host memory per GPU"));
    assert_non_null(strstr(text, "| Parked in host memory |"));
    free(text);
}

static void without_the_option_nothing_changes(void **state)
{
    (void)state;
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    s.engine.kind = ENGINE_VLLM;
    run(&s);
    assert_false(r.host.present);
    assert_null(explain_find(&rows, "host_users"));
    assert_null(strstr(r.engine.launch, "offloading"));
    char line[512];
    report_headline(&s, &r, line, sizeof line);
    assert_null(strstr(line, "host"));
}

static void no_link_figure_no_reload_time_and_llama_cpp_is_named(void **state)
{
    (void)state;
    /* Apple parts share one memory: no host link figure, so no reload time
     * and no blended time; the recompute is still known */
    struct scenario s = base("apple-m4-max", "llama-3.1-8b");
    s.host_kv_bytes = 8ull << 30;
    s.has_prefix_hit_rate = true;
    s.prefix_hit_rate = 0.5;
    run(&s);
    assert_int_equal(r.host.link_bytes_per_s, 0);
    assert_true(r.host.reload_seconds == 0);
    assert_true(r.host.restore_seconds == 0);
    const struct explain_row *row = explain_find(&rows, "host_reload");
    assert_non_null(row);
    assert_non_null(strstr(row->formula, "no host link figure"));

    /* llama.cpp: -nkvo keeps the whole cache in host memory instead of a
     * second tier (src/llama-kv-cache.cpp: the CPU buffer type for every
     * layer unless offload); the users row says so */
    s = base("rtx-4090", "llama-3.1-8b");
    s.engine.kind = ENGINE_LLAMACPP;
    s.host_kv_bytes = 32ull << 30;
    run(&s);
    row = explain_find(&rows, "host_users");
    assert_non_null(row);
    assert_non_null(strstr(row->formula, "-nkvo"));
}

static void the_snapshot_keeps_the_tier_and_old_snapshots_have_none(void **state)
{
    (void)state;
    struct scenario s = base("gh200-144gb", "llama-3.1-70b");
    s.context_tokens = 131072;
    s.host_kv_bytes = 400ull << 30;
    s.has_prefix_hit_rate = true;
    s.prefix_hit_rate = 0;
    run(&s);
    char *json = snapshot_to_json(&s, &r, &rows, "kvplan test");
    assert_non_null(json);
    assert_non_null(strstr(json, "\"host_kv_bytes\":\t429496729600"));
    assert_non_null(strstr(json, "\"prefix_hit_rate\":\t0"));
    /* GH200's NVLink-C2C: 450 GB/s each way */
    assert_non_null(strstr(json, "\"link_bytes_per_s\":\t450000000000"));
    struct scenario back;
    struct diag d = {0};
    if (!snapshot_parse("snap.json", json, strlen(json), &back, &d))
        fail_msg("%s", d.message);
    assert_int_equal(back.host_kv_bytes, 400ull << 30);
    assert_true(back.has_prefix_hit_rate);
    assert_true(back.prefix_hit_rate == 0);
    assert_int_equal(back.gpu.host_link_bytes_per_s, 450000000000ull);
    free(json);
    /* without the tier the keys are not written, and a snapshot without
     * them (every older one) loads with no tier */
    s.host_kv_bytes = 0;
    s.has_prefix_hit_rate = false;
    run(&s);
    json = snapshot_to_json(&s, &r, &rows, "kvplan test");
    assert_null(strstr(json, "host_kv_bytes"));
    assert_null(strstr(json, "host_tier"));
    if (!snapshot_parse("snap.json", json, strlen(json), &back, &d))
        fail_msg("%s", d.message);
    assert_int_equal(back.host_kv_bytes, 0);
    assert_false(back.has_prefix_hit_rate);
    free(json);
}

static void type_at(struct planner *p, enum control c, const char *text)
{
    p->focus = c;
    planner_key(p, '\n');
    for (const char *k = text; *k; k++)
        planner_key(p, *k);
    planner_key(p, '\n');
}

static void type(struct planner *p, const char *text)
{
    type_at(p, CTRL_HOST_KV, text);
}

/* The hit rate is a control of its own once there is a tier: stepped in
 * tenths, typed as the option takes it or as a percentage. */
static void the_planner_sets_the_hit_rate_with_a_tier(void **state)
{
    (void)state;
    static struct planner p;
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    s.context_tokens = 32768;
    planner_init(&p, &cat, &s);
    assert_false(control_visible(CTRL_HIT_RATE, planner_scenario(&p)));
    planner_step(&p, CTRL_HOST_KV, 1, false);
    assert_true(control_visible(CTRL_HIT_RATE, planner_scenario(&p)));
    /* one step from "not given" is 0%, the next 10% */
    planner_step(&p, CTRL_HIT_RATE, 1, false);
    planner_step(&p, CTRL_HIT_RATE, 1, false);
    assert_true(planner_scenario(&p)->has_prefix_hit_rate);
    assert_true(fabs(planner_scenario(&p)->prefix_hit_rate - 0.1) < 1e-12);
    assert_true(planner_result(&p)->host.has_hit_rate);
    type_at(&p, CTRL_HIT_RATE, "80%");
    assert_true(fabs(planner_scenario(&p)->prefix_hit_rate - 0.8) < 1e-12);
    type_at(&p, CTRL_HIT_RATE, "0.25");
    assert_true(fabs(planner_scenario(&p)->prefix_hit_rate - 0.25) < 1e-12);
    /* the returning user's wait: 0.25 x reload + 0.75 x recompute */
    assert_true(fabs(planner_result(&p)->host.restore_seconds - (0.25 * planner_result(&p)->host.reload_seconds +
                                                      0.75 * planner_result(&p)->host.recompute_seconds)) <
                1e-9);
    type_at(&p, CTRL_HIT_RATE, "150%");
    assert_non_null(strstr(p.error, "Hit rate:"));
    char line[2048];
    planner_command_line(&p, line, sizeof line);
    assert_non_null(strstr(line, "--prefix-hit-rate 0.25"));
    type_at(&p, CTRL_HIT_RATE, "none");
    assert_false(planner_scenario(&p)->has_prefix_hit_rate);
}

static void the_planner_steps_and_types_the_host_kv(void **state)
{
    (void)state;
    static struct planner p;
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    s.context_tokens = 32768;
    planner_init(&p, &cat, &s);
    assert_false(planner_result(&p)->host.present);
    /* one step right from none: 16 GiB a GPU, floor(16 / 4) = 4 users of 4 GiB */
    planner_step(&p, CTRL_HOST_KV, 1, false);
    assert_int_equal(planner_scenario(&p)->host_kv_bytes, 16ull << 30);
    assert_int_equal(planner_result(&p)->host.users, 4);
    /* typed as --host-kv takes it: 256 GiB hold 64, 50 beyond the GPU's 14 */
    type(&p, "256GiB");
    assert_int_equal(planner_scenario(&p)->host_kv_bytes, 256ull << 30);
    assert_int_equal(planner_result(&p)->host.users, 64);
    assert_int_equal(planner_result(&p)->host.beyond_gpu, 50);
    /* the copied command carries it */
    char line[2048];
    planner_command_line(&p, line, sizeof line);
    assert_non_null(strstr(line, "--host-kv 256GiB"));
    /* a refusal names the control in the planner's words */
    type(&p, "lots");
    assert_non_null(strstr(p.error, "Host KV:"));
    assert_int_equal(planner_scenario(&p)->host_kv_bytes, 256ull << 30);
    type(&p, "off");
    assert_int_equal(planner_scenario(&p)->host_kv_bytes, 0);
    assert_false(planner_result(&p)->host.present);
    /* a hit rate left from a loaded scenario is not copied without its tier:
     * the command line refuses --prefix-hit-rate alone */
    p.slots[p.current].scenario.has_prefix_hit_rate = true;
    p.slots[p.current].scenario.prefix_hit_rate = 0.5;
    planner_command_line(&p, line, sizeof line);
    assert_null(strstr(line, "--prefix-hit-rate"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(llama_8b_at_32k_parks_64_users_in_256_gib),
        cmocka_unit_test(each_gpu_parks_its_share_and_replicas_multiply),
        cmocka_unit_test(sglang_sizes_each_rank_in_gigabytes_and_dp_attention_parks_per_rank),
        cmocka_unit_test(without_the_option_nothing_changes),
        cmocka_unit_test(no_server_no_parked_users),
        cmocka_unit_test(versus_markdown_names_the_new_inputs),
        cmocka_unit_test(no_link_figure_no_reload_time_and_llama_cpp_is_named),
        cmocka_unit_test(the_planner_steps_and_types_the_host_kv),
        cmocka_unit_test(the_planner_sets_the_hit_rate_with_a_tier),
        cmocka_unit_test(the_snapshot_keeps_the_tier_and_old_snapshots_have_none),
    };
    return cmocka_run_group_tests_name("hosttier", tests, setup, teardown);
}
