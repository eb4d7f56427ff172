/* Unified memory (Apple silicon): the GPU may use Metal's working set of it,
 * recommendedMaxWorkingSetSize, which llama.cpp takes as the device's total
 * (ggml/src/ggml-metal/ggml-metal-device.m, ggml_metal_device_get_memory:
 * total = recommendedMaxWorkingSetSize, free = total - currentAllocatedSize;
 * ggml-org/llama.cpp at 177ab454). macOS sets it to two thirds of unified
 * memory up to 32 GiB and three quarters above, in whole 16 KiB pages; `sudo sysctl
 * iogpu.wired_limit_mb=N` sets it to N MiB (--wired-limit-mb N). The readings
 * are in tests/data/metal-working-set.txt, the plans' numbers worked by hand. */
#include <stdlib.h>

#include "catalog_fixture.h"

#include "core/plan.h"
#include "io/report.h"

static struct plan_result r;

static void run(const struct scenario *s)
{
    struct diag d = {0};
    if (!plan_compute(s, PLAN_NUMBERS, NULL, &r, &d))
        fail_msg("%s", d.message);
}

/* One reading of the file: the bytes it says, within its printed rounding. */
static double reading_bytes(double v, const char *unit, double *slack)
{
    if (strcmp(unit, "MB") == 0) {
        *slack = 0.005e6;
        return v * 1e6;
    }
    if (strcmp(unit, "MiB") == 0) {
        *slack = 0.005 * 1048576.0;
        return v * 1048576.0;
    }
    if (strcmp(unit, "GiB") == 0) {
        *slack = 0.005 * 1073741824.0;
        return v * 1073741824.0;
    }
    assert_string_equal(unit, "B");
    *slack = 0.5;
    return v;
}

static void the_readings_hold_the_rule(void **state)
{
    (void)state;
    FILE *f = fopen("tests/data/metal-working-set.txt", "r");
    assert_non_null(f);
    char line[1024];
    int defaults = 0, later = 0, wired = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        unsigned gib;
        double v;
        char unit[8], kind[32];
        assert_int_equal(sscanf(line, "%u %lf %7s %31s", &gib, &v, unit, kind), 4);
        double slack, bytes = reading_bytes(v, unit, &slack);
        uint64_t unified = (uint64_t)gib << 30;
        double rule = (double)spec_metal_working_set(unified);
        if (strcmp(kind, "default") == 0) {
            if (!(rule >= bytes - slack && rule <= bytes + slack))
                fail_msg("%u GiB: the rule gives %.0f B, the reading %.0f B", gib, rule, bytes);
            defaults++;
        } else if (strcmp(kind, "later") == 0) {
            /* newer macOS gives more: kvplan's default stays below it */
            if (!(rule < bytes))
                fail_msg("%u GiB: the rule's %.0f B is not below %.0f B", gib, rule, bytes);
            later++;
        } else {
            unsigned mb;
            assert_int_equal(sscanf(kind, "wired=%u", &mb), 1);
            struct scenario s = base("apple-m4-max", "llama-3.1-8b");
            s.gpu.unified_bytes = unified;
            s.wired_limit_mb = mb;
            double got = (double)scenario_gpu_memory(&s);
            if (!(got >= bytes - slack && got <= bytes + slack))
                fail_msg("wired %u MiB: %.0f B, the reading %.0f B", mb, got, bytes);
            wired++;
        }
    }
    fclose(f);
    assert_true(defaults >= 7);
    assert_true(later >= 5);
    assert_true(wired >= 3);
}

static void the_presets_cap_at_the_working_set(void **state)
{
    (void)state;
    /* 128 GiB x 3/4 = 96 GiB = 103,079,215,104 B; 48 GiB x 3/4 = 36 GiB;
     * 512 GiB x 3/4 = 384 GiB */
    const struct {
        const char *id;
        uint64_t unified, memory;
    } want[] = {
        {"apple-m4-max", 137438953472ull, 103079215104ull},
        {"apple-m4pro-48gb", 51539607552ull, 38654705664ull},
        {"apple-m4-pro", 68719476736ull, 51539607552ull},
        {"apple-m3-ultra", 549755813888ull, 412316860416ull},
        {"apple-m2-ultra", 206158430208ull, 154618822656ull},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const struct catalog_gpu *g = catalog_find_gpu(&cat, want[i].id);
        assert_non_null(g);
        assert_int_equal(g->spec.unified_bytes, want[i].unified);
        assert_int_equal(g->spec.memory_bytes, want[i].memory);
    }
    /* at 32 GiB and below, two thirds in whole 16 KiB pages, rounded up:
     * 20 GiB = 1,310,720 pages, x 2/3 = 873,813.3, 873,814 pages =
     * 14,316,568,576 B; 32 GiB: 1,398,101.3, 1,398,102 pages =
     * 22,906,503,168 B = 22906.50 MB as printed (two thirds of the bytes,
     * 22,906,492,245, would print 22906.49) */
    assert_int_equal(spec_metal_working_set(20ull << 30), 14316568576ull);
    assert_int_equal(spec_metal_working_set(32ull << 30), 22906503168ull);
    assert_int_equal(spec_metal_working_set(36ull << 30), 28991029248ull);
}

static void llama_cpp_takes_the_working_set_whole(void **state)
{
    (void)state;
    /* llama.cpp on Metal: the CUDA total is the working set itself, no
     * driver reserve: 96 GiB; with iogpu.wired_limit_mb=114688, 112 GiB =
     * 120,259,084,288 B */
    struct scenario s = base("apple-m4-max", "llama-3.1-8b");
    s.engine.kind = ENGINE_LLAMACPP;
    run(&s);
    assert_int_equal(r.engine.gpu_total_bytes, 103079215104ull);
    assert_int_equal(r.memory_bytes_per_gpu, 103079215104ull);
    s.wired_limit_mb = 114688;
    run(&s);
    assert_int_equal(r.engine.gpu_total_bytes, 120259084288ull);
    /* the headroom rule: 10% of the 96 GiB kept free, 86.4 GiB to share */
    s = base("apple-m4-max", "llama-3.1-8b");
    run(&s);
    assert_int_equal(r.memory_bytes_per_gpu, 103079215104ull);
    assert_int_equal(r.reserved_bytes_per_gpu, 10307921510ull);
}

static void the_warning_names_the_sysctl_and_its_limit_fits(void **state)
{
    (void)state;
    /* Llama 3.1 70B q4_k_m at 128k, llama.cpp -np 2: two slots of 40 GiB
     * (80 layers x 131,072 cells x 4 KiB) = 80 GiB; the budget is 96 GiB -
     * 1 GiB margin - 39.65 GiB weights on the GPU (40.25 GiB less the token
     * embedding's 613.73 MiB, kept on the CPU) - 570.5 MiB runtime = 54.8 GiB,
     * so 25.2 GiB are missing; with the margin's share (96/95) 25.47 GiB more,
     * 121.47 GiB in all: the whole GiB above, 122 GiB = 124,928 MiB. The
     * fit search holds it meanwhile with layers on the CPU, in what the GPU's
     * part leaves of the 123 GiB (128 less macOS's 5): the same 25.2 GiB the
     * GPU lacks sit there, so the same limit holds it all on the GPU. */
    struct scenario s = base("apple-m4-max", "llama-3.1-70b");
    s.engine.kind = ENGINE_LLAMACPP;
    s.engine.parallel = 2;
    s.weight_dtype = DTYPE_Q4_K_M;
    s.context_tokens = 131072;
    run(&s);
    assert_true(r.fits);
    assert_true(r.engine.offload.active && r.engine.offload.searched);
    assert_true(r.warnings & WARN_WIRED_LIMIT);
    assert_true(r.wired.split);
    assert_int_equal(r.wired.suggest_mb, 124928);
    char text[512];
    plan_warning_format(&r, WARN_WIRED_LIMIT, text, sizeof text);
    assert_non_null(strstr(text, "the GPU may use 96.0 GiB of 128 GiB unified memory, so the fit "
                                 "search keeps part of the model on the CPU"));
    assert_non_null(strstr(text, "`sudo sysctl iogpu.wired_limit_mb=124928` holds it all"));
    assert_non_null(strstr(text, "--wired-limit-mb 124928"));
    /* a GiB less still needs a layer on the CPU */
    s.wired_limit_mb = 124928 - 1024;
    run(&s);
    assert_true(r.fits && r.engine.offload.active);
    s.wired_limit_mb = 0;
    /* the limit it names holds what was asked, and the command line of the
     * plan (what the planner copies) repeats it */
    s.wired_limit_mb = r.wired.suggest_mb;
    run(&s);
    char line[1024];
    report_command_line(&s, line, sizeof line);
    assert_non_null(strstr(line, " --wired-limit-mb 124928"));
    assert_true(r.fits);
    assert_false(r.engine.offload.active);
    assert_int_equal(r.users_per_replica, 2);
    assert_false(r.warnings & WARN_WIRED_LIMIT);
    /* what fits raises nothing; what no limit below the Mac's memory holds
     * (bf16 weights, 141 GB) neither */
    s = base("apple-m4-max", "llama-3.1-8b");
    run(&s);
    assert_false(r.warnings & WARN_WIRED_LIMIT);
    s = base("apple-m4-max", "llama-3.1-70b");
    run(&s);
    assert_false(r.weights_fit);
    assert_false(r.warnings & WARN_WIRED_LIMIT);
    /* a GPU of its own memory has no wired limit */
    s = base("h100-sxm", "llama-3.1-70b");
    s.concurrency = 1000;
    run(&s);
    assert_false(r.warnings & WARN_WIRED_LIMIT);
    assert_int_equal(r.wired.unified_bytes, 0);
}

/* The CPU layers of a Mac have the RAM the GPU's part does not allocate:
 * 64 GiB less macOS's 5 GiB (min(20%, 5 GiB), what exo's configure_mlx.sh
 * leaves it) is 63,350,767,616 B for both sides. Llama 3.1 70B q4_k_m,
 * -ngl 60, -np 2 at 16k: the output layer and 59 layers (llama.cpp's -ngl
 * since PR #18148), the GPU's part its weights 643,537,306 + 59 x
 * 524,088,382 = 31,564,751,844 B + the GPU layers' cache 59 x 32,768 cells
 * x 4 KiB = 7,918,845,952 B + the buffers 512 x (128,256 + 4 x 8,192) x 4 +
 * 256 MiB = 598,212,608 B = 40,081,810,404 B, which leaves 23,268,957,212 B
 * for the 21 CPU layers, the embedding and their cache. It did
 * not fit when the host had what the working-set cap left (59 - 48 = 11
 * GiB), and raising the wired limit shrank that; the GPU's part is the same
 * whatever the limit, so its host is too. */
static void the_host_is_what_the_gpus_part_leaves(void **state)
{
    (void)state;
    struct scenario s = base("apple-m4-pro", "llama-3.1-70b");
    s.engine.kind = ENGINE_LLAMACPP;
    s.engine.parallel = 2;
    s.weight_dtype = DTYPE_Q4_K_M;
    s.context_tokens = 16384;
    s.offload.ngl_given = true;
    s.offload.ngl = 60;
    run(&s);
    const struct offload_split *o = &r.engine.offload;
    assert_int_equal(o->gpu_weights_bytes, 31564751844ull);
    assert_int_equal(o->gpu_kv_bytes, 7918845952ull);
    assert_int_equal(o->gpu_buffers_bytes, 598212608ull);
    assert_int_equal(o->os_reserve_bytes, 5ull << 30);
    assert_int_equal(o->host_memory_bytes, 23268957212ull);
    assert_true(o->host_fits && r.fits);
    assert_int_equal(r.users_per_replica, 2);
    s.wired_limit_mb = 53248; /* the sysctl's hint: a bigger cap, the same host */
    run(&s);
    assert_int_equal(r.engine.offload.host_memory_bytes, 23268957212ull);
    assert_true(r.fits);
    /* the fit search computes it for each split it tries: -np 3 at 16k with
     * --no-kv-offload holds every layer on the GPU (42,570,607,866 B of
     * weights + 598,212,608 B of buffers, no cache) and leaves 20,181,947,142 B
     * for the embedding's 643,537,363 B and the cache's 3 x 16,384 x 80 x
     * 4 KiB = 16,106,127,360 B: 16,749,664,723 B. The cap's 11 GiB did not. */
    s.wired_limit_mb = 0;
    s.offload.ngl_given = false;
    s.offload.ngl = 0;
    s.offload.no_kv_offload = true;
    s.engine.parallel = 3;
    run(&s);
    assert_true(o->searched && o->found);
    assert_int_equal(o->ngl, 81);
    assert_int_equal(o->host_memory_bytes, 20181947142ull);
    assert_int_equal(o->host_bytes, 16749664723ull);
    assert_true(r.fits);
    /* weights, cache and buffers together past the 59 GiB: no split holds */
    s.context_tokens = 32768;
    run(&s);
    assert_false(r.fits);
}

static void the_limit_is_refused_where_it_means_nothing(void **state)
{
    (void)state;
    struct diag d = {0};
    struct scenario s = base("h100-sxm", "llama-3.1-8b");
    s.wired_limit_mb = 65536;
    assert_false(plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d));
    assert_non_null(strstr(d.message, "--wired-limit-mb"));
    assert_non_null(strstr(d.message, "no unified memory"));
    /* macOS takes any number, but the wired RAM is the OS's loss: kvplan
     * takes at most max(80% of it, all but 5 GiB), as exo's configure_mlx.sh
     * sets the sysctl (exo-explore/exo at 191553a; MLX's set_wired_limit:
     * "strictly less than the total memory size"). 128 GiB is 131,072 MiB:
     * at most 125,952; all of it is refused, naming the most */
    s = base("apple-m4-max", "llama-3.1-8b");
    s.wired_limit_mb = 131072;
    d = (struct diag){0};
    assert_false(plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d));
    assert_non_null(strstr(d.message, "--wired-limit-mb"));
    assert_non_null(strstr(d.message, "of the 131072 MiB apple-m4-max has: at most 125952 MiB"));
    s.wired_limit_mb = 125953;
    assert_false(plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d));
    s.wired_limit_mb = 125952;
    run(&s);
    assert_int_equal(r.memory_bytes_per_gpu, 125952ull << 20);
    /* on small Macs 80% binds: 16 GiB = 16,384 MiB, 13,107 of it */
    assert_int_equal(spec_wired_limit_max(16ull << 30), 13107ull << 20);
    assert_int_equal(spec_wired_limit_max(24ull << 30), 19660ull << 20);
    assert_int_equal(spec_wired_limit_max(32ull << 30), 27648ull << 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_readings_hold_the_rule),
        cmocka_unit_test(the_presets_cap_at_the_working_set),
        cmocka_unit_test(llama_cpp_takes_the_working_set_whole),
        cmocka_unit_test(the_warning_names_the_sysctl_and_its_limit_fits),
        cmocka_unit_test(the_limit_is_refused_where_it_means_nothing),
        cmocka_unit_test(the_host_is_what_the_gpus_part_leaves),
    };
    return cmocka_run_group_tests_name("unified", tests, setup, teardown);
}
