/* A logged KV cache size (a vLLM V1 log's "Available KV cache memory",
 * measured at --gpu-memory-utilization 0.8) follows the planner's changes
 * of the memory fraction and the weights' precision as plan --calibration
 * moves it with the options given on top (cli/options_calibration.c,
 * io/calibration_carry.c calibration_fraction_on_top): the planner's pool is
 * the CLI's for the same options, and a fraction set back gives the log's
 * own size again (moved from the log's, not from the last move). The
 * planner's y copies --calibration FILE, not the --kv-memory it set, and
 * the line plans what the planner shows. */
#include "catalog_fixture.h"

#include <stdlib.h>
#include <unistd.h>

#include "app/planner.h"
#include "cli/options.h"
#include "core/plan.h"

static char path[] = "/tmp/kvplan-plancal-XXXXXX";

static const char calibration[] =
    "{\"format\": \"kvplan-calibration\", \"format_version\": 1, \"engine\": \"vllm@0.13\",\n"
    " \"log_engine\": \"vLLM V1\", \"log\": \"vllm-08.log\", \"model\": \"llama-3.1-8b\",\n"
    " \"gpu\": \"h100-sxm\", \"gpu_name\": \"NVIDIA H100 SXM5 80GB\", \"engine_version\": \"0.10.1\",\n"
    " \"tp\": 1, \"weight_dtype\": \"auto\",\n"
    " \"figures\": {\"gpu_memory_utilization\": 0.8, \"weights\": 16094208826,\n"
    "  \"KV cache memory\": 49499498086, \"KV cache tokens\": 377632, \"context per request\": 16384}}\n";

static int start(void **state)
{
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, calibration, sizeof calibration - 1) != (ssize_t)(sizeof calibration - 1))
        return -1;
    close(fd);
    return setup(state);
}

static int stop(void **state)
{
    unlink(path);
    return teardown(state);
}

/* plan --calibration FILE ARGS...: the scenario the CLI builds */
static struct scenario cli(const char *a1, const char *a2, const char *a3, const char *a4)
{
    char *argv[] = {"kvplan", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--calibration", path,
                    (char *)a1, (char *)a2, (char *)a3, (char *)a4, NULL};
    int argc = 7;
    while (argc < 11 && argv[argc])
        argc++;
    struct options o;
    struct diag d = {0};
    bool help;
    struct scenario s = {0};
    if (!options_parse(argc, argv, &o, &help, &d) || !options_scenario(&o, &cat, &s, &d))
        fail_msg("%s", d.message);
    return s;
}

static uint64_t pool(const struct scenario *s)
{
    struct plan_result r;
    struct diag d = {0};
    assert_true(plan_compute(s, PLAN_NUMBERS, NULL, &r, &d));
    return r.kv_pool_bytes_per_gpu;
}

static void the_logged_cache_follows_the_fraction_and_weights_as_the_clis(void **state)
{
    (void)state;
    static struct planner p;
    struct scenario s = cli(NULL, NULL, NULL, NULL);
    assert_int_equal(s.engine.kv_memory_bytes, 49499498086ull); /* the log's, at its 0.8 */
    planner_init(&p, &cat, &s);

    struct scenario next = *planner_scenario(&p);
    next.engine.gpu_memory_utilization = 0.9;
    assert_true(planner_apply(&p, &next));
    struct scenario want = cli("--gpu-memory-utilization", "0.9", NULL, NULL);
    assert_int_equal(planner_scenario(&p)->engine.kv_memory_bytes, want.engine.kv_memory_bytes);
    assert_true(planner_scenario(&p)->engine.kv_memory_bytes > 49499498086ull);
    assert_int_equal(planner_result(&p)->kv_pool_bytes_per_gpu, pool(&want));

    next = *planner_scenario(&p);
    next.weight_dtype = DTYPE_FP8;
    assert_true(planner_apply(&p, &next));
    want = cli("--gpu-memory-utilization", "0.9", "--weight-dtype", "fp8");
    assert_int_equal(planner_scenario(&p)->engine.kv_memory_bytes, want.engine.kv_memory_bytes);
    assert_int_equal(planner_result(&p)->max_users, 61);

    /* back to the log's own fraction and weights: the log's own cache */
    next = *planner_scenario(&p);
    next.engine.gpu_memory_utilization = 0.8;
    next.weight_dtype = DTYPE_AUTO;
    assert_true(planner_apply(&p, &next));
    assert_int_equal(planner_scenario(&p)->engine.kv_memory_bytes, 49499498086ull);
    assert_int_equal(planner_result(&p)->max_users, 46);
}

static void a_cache_given_by_hand_is_left_as_given(void **state)
{
    (void)state;
    static struct planner p;
    struct scenario s = cli(NULL, NULL, NULL, NULL);
    planner_init(&p, &cat, &s);
    struct scenario next = *planner_scenario(&p);
    next.engine.kv_memory_bytes = 30ull << 30; /* as --kv-memory 30GiB would */
    assert_true(planner_apply(&p, &next));
    next = *planner_scenario(&p);
    next.engine.gpu_memory_utilization = 0.9;
    assert_true(planner_apply(&p, &next));
    assert_int_equal(planner_scenario(&p)->engine.kv_memory_bytes, 30ull << 30);
}

/* the words of a copied line, for options_parse (no quoting in these) */
static struct scenario parse_line(char *line)
{
    char *argv[64];
    int argc = 0;
    for (char *w = strtok(line, " "); w && argc < 63; w = strtok(NULL, " "))
        argv[argc++] = w;
    argv[argc] = NULL;
    struct options o;
    struct diag d = {0};
    bool help;
    struct scenario s = {0};
    /* "kvplan plan ...": plan's own options from the third word */
    argv[1] = argv[0];
    if (!options_parse(argc - 1, argv + 1, &o, &help, &d) || !options_scenario(&o, &cat, &s, &d))
        fail_msg("%s", d.message);
    return s;
}

static void the_copied_line_gives_the_calibration_file(void **state)
{
    (void)state;
    static struct planner p;
    struct scenario s = cli(NULL, NULL, NULL, NULL);
    planner_init(&p, &cat, &s);
    char line[8192], want[512];
    planner_command_line(&p, line, sizeof line);
    snprintf(want, sizeof want, "--calibration %s", path);
    if (!strstr(line, want) || strstr(line, "--kv-memory"))
        fail_msg("copied: %s", line);
    struct scenario next = *planner_scenario(&p);
    next.engine.gpu_memory_utilization = 0.9;
    assert_true(planner_apply(&p, &next));
    planner_command_line(&p, line, sizeof line);
    if (!strstr(line, want) || strstr(line, "--kv-memory") || !strstr(line, "--gpu-memory-utilization 0.9"))
        fail_msg("copied: %s", line);
    struct scenario back = parse_line(line);
    assert_int_equal(back.engine.kv_memory_bytes, planner_scenario(&p)->engine.kv_memory_bytes);
    /* another model: plan refuses the memory calibration, so the figures */
    next = *planner_scenario(&p);
    next.model = catalog_find_model(&cat, "qwen2.5-7b")->spec;
    assert_true(planner_apply(&p, &next));
    planner_command_line(&p, line, sizeof line);
    if (strstr(line, "--calibration") || !strstr(line, "--kv-memory"))
        fail_msg("another model: %s", line);
}

/* a vLLM V0 log's total and non-KV memory (tests/data/logs/vllm-03.log's
 * figures, as calibrate saves them on the GPU given) */
static char v0path[] = "/tmp/kvplan-plancal-v0-XXXXXX";
static const char v0[] =
    "{\"format\": \"kvplan-calibration\", \"format_version\": 1, \"engine\": \"vllm@0\",\n"
    " \"log_engine\": \"vLLM V0\", \"log\": \"vllm-03.log\", \"model\": \"llama-3.1-8b\",\n"
    " \"gpu\": \"a100-40gb\", \"gpu_name\": \"NVIDIA A100 SXM4 40GB\", \"tp\": 1,\n"
    " \"weight_dtype\": \"auto\", \"gpu_total_bytes\": 42412802048, \"non_kv_bytes\": 26231512760,\n"
    " \"figures\": {\"CUDA-visible GPU memory\": 42412802048, \"gpu_memory_utilization\": 0.9}}\n";

static void a_logged_total_follows_the_gpu_as_the_clis(void **state)
{
    (void)state;
    int fd = mkstemp(v0path);
    assert_true(fd >= 0 && write(fd, v0, sizeof v0 - 1) == (ssize_t)(sizeof v0 - 1));
    close(fd);
    char *a40[] = {"kvplan", "--model", "llama-3.1-8b", "--gpu", "a100-40gb", "--calibration", v0path, NULL};
    char *h100[] = {"kvplan", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--calibration", v0path, NULL};
    struct options o;
    struct diag d = {0};
    bool help;
    static struct scenario s, there;
    assert_true(options_parse(7, a40, &o, &help, &d) && options_scenario(&o, &cat, &s, &d));
    assert_int_equal(s.engine.gpu_total_bytes, 42412802048ull);
    assert_true(options_parse(7, h100, &o, &help, &d) && options_scenario(&o, &cat, &there, &d));
    assert_int_equal(there.engine.gpu_total_bytes, 0); /* another GPU: its own total */
    static struct planner p;
    planner_init(&p, &cat, &s);
    struct scenario next = *planner_scenario(&p);
    next.gpu = catalog_find_gpu(&cat, "h100-sxm")->spec;
    assert_true(planner_apply(&p, &next));
    assert_int_equal(planner_scenario(&p)->engine.gpu_total_bytes, 0);
    struct plan_result r;
    assert_true(plan_compute(&there, PLAN_NUMBERS, NULL, &r, &d));
    assert_int_equal(planner_result(&p)->max_users, r.max_users);
    next = *planner_scenario(&p);
    next.gpu = catalog_find_gpu(&cat, "a100-40gb")->spec;
    assert_true(planner_apply(&p, &next));
    assert_int_equal(planner_scenario(&p)->engine.gpu_total_bytes, 42412802048ull);
    unlink(v0path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_logged_cache_follows_the_fraction_and_weights_as_the_clis),
        cmocka_unit_test(a_cache_given_by_hand_is_left_as_given),
        cmocka_unit_test(the_copied_line_gives_the_calibration_file),
        cmocka_unit_test(a_logged_total_follows_the_gpu_as_the_clis),
    };
    return cmocka_run_group_tests(tests, start, stop);
}
