/* Presets, the catalogue, snapshots and atomic files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/plan.h"
#include "io/catalog.h"
#include "io/fileio.h"
#include "io/preset.h"
#include "io/snapshot.h"

static struct explain rows; /* the explain rows of the last plan computed with them */

static const char *model_text =
    "{\n"
    "  \"format\": \"kvplan-model\",\n"
    "  \"format_version\": 1,\n"
    "  \"id\": \"tiny\",\n"
    "  \"name\": \"Tiny\",\n"
    "  \"source\": \"test\",\n"
    "  \"attention\": \"GQA\",\n"
    "  \"num_layers\": 4,\n"
    "  \"num_attention_heads\": 8,\n"
    "  \"num_kv_heads\": 2,\n"
    "  \"head_dim\": 64,\n"
    "  \"params\": 1000000,\n"
    "  \"weight_dtype\": \"bf16\",\n"
    "  \"max_context_tokens\": 4096\n"
    "}\n";

/* model_text with `from` replaced by `to` (first occurrence). */
static char *variant(const char *from, const char *to)
{
    const char *at = strstr(model_text, from);
    assert_non_null(at);
    size_t n = strlen(model_text) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(at - model_text), model_text, to, at + strlen(from));
    return out;
}

static void expect_error(const char *text, const char *message)
{
    struct preset p;
    struct diag d = {0};
    assert_false(preset_parse("m.json", text, strlen(text), &p, &d));
    if (strstr(d.message, message) == NULL)
        fail_msg("expected \"%s\" in \"%s\"", message, d.message);
}

static void a_valid_model_preset_parses(void **state)
{
    (void)state;
    struct preset p;
    struct diag d = {0};
    assert_true(preset_parse("m.json", model_text, strlen(model_text), &p, &d));
    assert_int_equal(p.kind, PRESET_MODEL);
    assert_string_equal(p.model.id, "tiny");
    assert_int_equal(p.model.kv_heads, 2);
}

static void preset_errors_name_file_line_column_and_field(void **state)
{
    (void)state;
    char *t = variant("\"num_kv_heads\": 2", "\"num_kv_heads\": 3");
    expect_error(t, "m.json:10:3: num_kv_heads: 3 does not divide num_attention_heads 8");
    free(t);
    t = variant("\"num_layers\": 4", "\"num_layers\": 0");
    expect_error(t, "m.json:8:3: num_layers: 0 is out of range");
    free(t);
    t = variant("\"head_dim\": 64", "\"head_dim\": \"64\"");
    expect_error(t, "m.json:11:3: head_dim: expected a positive integer");
    free(t);
    t = variant("  \"params\": 1000000,\n", "");
    expect_error(t, "params: missing");
    free(t);
    t = variant("\"format_version\": 1", "\"format_version\": 2");
    expect_error(t, "m.json:3:3: format_version: 2 is not supported");
    free(t);
    t = variant("\"id\": \"tiny\"", "\"id\": \"Tiny Model\"");
    expect_error(t, "m.json:4:3: id: 'Tiny Model' must be lowercase");
    free(t);
    t = variant("\"weight_dtype\": \"bf16\"", "\"weight_dtype\": \"fp7\"");
    expect_error(t, "weight_dtype: unknown precision 'fp7'");
    free(t);
    t = variant("\"params\": 1000000", "\"params\": 1e400");
    expect_error(t, "m.json:12:");
    free(t);
    expect_error("", "the file is empty");
    expect_error("{\"format\": \"kvplan-model\",", "JSON ends too early");
    expect_error("[1, 2]", "expected a JSON object");
    expect_error("{\"format\": \"other\", \"format_version\": 1}", "format: 'other' is not a preset");
}

static void unknown_fields_are_ignored(void **state)
{
    (void)state;
    char *t = variant("\"source\": \"test\"", "\"source\": \"test\", \"colour\": \"blue\"");
    struct preset p;
    struct diag d = {0};
    assert_true(preset_parse("m.json", t, strlen(t), &p, &d));
    free(t);
}

static void the_embedded_catalogue_has_the_required_ids(void **state)
{
    (void)state;
    struct catalog c;
    catalog_init(&c);
    struct diag d = {0};
    if (!catalog_load_embedded(&c, &d))
        fail_msg("%s", d.message);
    assert_true(c.model_count >= 40);
    assert_true(c.gpu_count >= 30);
    const char *gpus[] = {"h100-sxm", "h100-pcie", "h100-nvl", "h200",     "b200",    "a100-80gb",
                          "a100-40gb", "l40s",     "l4",       "a10g",     "t4",      "rtx-3090",
                          "rtx-4090",  "rtx-5090", "mi300x",   "mi325x"};
    const char *models[] = {"llama-2-7b",     "llama-2-13b",     "llama-2-70b",
                            "llama-3-8b",     "llama-3-70b",     "llama-3.1-8b",
                            "llama-3.1-70b",  "llama-3.1-405b",  "mistral-7b-v0.1",
                            "mixtral-8x7b",   "qwen2.5-7b",      "qwen3-32b",
                            "qwen3-235b-a22b", "gemma-2-9b",     "gemma-3-27b",
                            "deepseek-v2-lite", "deepseek-v3",   "gpt-oss-20b",
                            "gpt-oss-120b",   "phi-4",           "falcon-7b"};
    for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++)
        if (catalog_find_gpu(&c, gpus[i]) == NULL)
            fail_msg("missing GPU %s", gpus[i]);
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (catalog_find_model(&c, models[i]) == NULL)
            fail_msg("missing model %s", models[i]);
    /* Driver totals, not box labels: H100 SXM 81,559 MiB, A100 80GB 81,920 MiB. */
    assert_int_equal(catalog_find_gpu(&c, "h100-sxm")->spec.memory_bytes, 81559ull << 20);
    assert_int_equal(catalog_find_gpu(&c, "a100-80gb")->spec.memory_bytes, 81920ull << 20);
    char near[256];
    catalog_suggest(&c, PRESET_GPU, "h100", near, sizeof near);
    assert_non_null(strstr(near, "h100-sxm"));
    catalog_free(&c);
}

static void catalog_presets_give_the_reference_kv_bytes(void **state)
{
    (void)state;
    /* bf16/fp16 bytes per token from the reference notes, computed by hand. */
    const struct {
        const char *id;
        uint64_t bytes;
    } want[] = {{"llama-2-7b", 524288},   {"llama-3-8b", 131072},  {"qwen3-32b", 262144},
                {"deepseek-v3", 70272},   {"falcon-7b", 8192},     {"gemma-2-9b", 344064},
                {"gpt-oss-120b", 73728},  {"phi-4", 204800},       {"command-r-v01", 1310720}};
    struct catalog c;
    catalog_init(&c);
    struct diag d = {0};
    assert_true(catalog_load_embedded(&c, &d));
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const struct catalog_model *m = catalog_find_model(&c, want[i].id);
        assert_non_null(m);
        struct scenario s;
        struct plan_result r;
        scenario_default(&s, &catalog_find_gpu(&c, "h100-sxm")->spec, &m->spec);
        s.context_tokens = 1024;
        assert_true(plan_compute(&s, &rows, NULL, &r, &d));
        if ((r.cost.bytes_per_token * r.tp) != want[i].bytes)
            fail_msg("%s: %llu != %llu", want[i].id, (unsigned long long)(r.cost.bytes_per_token * r.tp),
                     (unsigned long long)want[i].bytes);
    }
    catalog_free(&c);
}

/* Equal JSON texts; takes ownership of both trees. */
static void assert_same_json(cJSON *x, cJSON *y)
{
    char *sx = cJSON_Print(x), *sy = cJSON_Print(y);
    assert_string_equal(sx, sy);
    free(sx);
    free(sy);
    cJSON_Delete(x);
    cJSON_Delete(y);
}

static void the_compiled_catalogue_equals_the_preset_files(void **state)
{
    (void)state;
    /* The binary carries presets parsed at build time; parsing presets/ now must
     * give exactly the same specs (compared through their JSON). */
    struct catalog built, files;
    catalog_init(&built);
    catalog_init(&files);
    struct diag d = {0};
    assert_true(catalog_load_embedded(&built, &d));
    if (!catalog_load_dir(&files, "presets", true, &d))
        fail_msg("%s", d.message);
    assert_int_equal(built.gpu_count, files.gpu_count);
    assert_int_equal(built.model_count, files.model_count);
    for (size_t i = 0; i < files.model_count; i++) {
        const struct catalog_model *b = catalog_find_model(&built, files.models[i].spec.id);
        assert_non_null(b);
        assert_same_json(preset_model_to_json(&b->spec, true),
                         preset_model_to_json(&files.models[i].spec, true));
    }
    for (size_t i = 0; i < files.gpu_count; i++) {
        const struct catalog_gpu *b = catalog_find_gpu(&built, files.gpus[i].spec.id);
        assert_non_null(b);
        assert_same_json(preset_gpu_to_json(&b->spec, true),
                         preset_gpu_to_json(&files.gpus[i].spec, true));
    }
    catalog_free(&built);
    catalog_free(&files);
}

static char tmpdir[64];

static int make_tmpdir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/kvplan-test-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void duplicate_ids_in_one_directory_are_an_error(void **state)
{
    (void)state;
    char dir[128], a[160], b[160];
    snprintf(dir, sizeof dir, "%s/dup", tmpdir);
    mkdir(dir, 0755);
    snprintf(a, sizeof a, "%s/a.json", dir);
    snprintf(b, sizeof b, "%s/b.json", dir);
    write_file(a, model_text);
    write_file(b, model_text);
    struct catalog c;
    catalog_init(&c);
    struct diag d = {0};
    assert_false(catalog_load_dir(&c, dir, true, &d));
    assert_non_null(strstr(d.message, "duplicate model id 'tiny'"));
    catalog_free(&c);
    unlink(a);
    unlink(b);
    rmdir(dir);
}

static void a_directory_overrides_embedded_presets_by_id(void **state)
{
    (void)state;
    char dir[128], a[160];
    snprintf(dir, sizeof dir, "%s/over", tmpdir);
    mkdir(dir, 0755);
    snprintf(a, sizeof a, "%s/l.json", dir);
    char *t = variant("\"id\": \"tiny\"", "\"id\": \"llama-2-7b\"");
    write_file(a, t);
    free(t);
    struct catalog c;
    catalog_init(&c);
    struct diag d = {0};
    assert_true(catalog_load_embedded(&c, &d));
    size_t before = c.model_count;
    assert_true(catalog_load_dir(&c, dir, true, &d));
    assert_int_equal(c.model_count, before);
    assert_int_equal(catalog_find_model(&c, "llama-2-7b")->spec.layers, 4);
    catalog_free(&c);
    unlink(a);
    rmdir(dir);
}

/* s planned, written, read back into `back` and planned again gives the same
 * snapshot text, which is returned (the caller frees it) */
static char *round_trip(const struct scenario *s, struct scenario *back)
{
    struct plan_result r, r2;
    struct diag d = {0};
    assert_true(plan_compute(s, &rows, NULL, &r, &d));
    char *json = snapshot_to_json(s, &r, &rows, "kvplan test");
    assert_non_null(json);
    if (!snapshot_parse("snap.json", json, strlen(json), back, &d))
        fail_msg("%s", d.message);
    assert_true(plan_compute(back, &rows, NULL, &r2, &d));
    char *again = snapshot_to_json(back, &r2, &rows, "kvplan test");
    assert_string_equal(json, again);
    free(again);
    return json;
}

static void snapshots_round_trip_exactly(void **state)
{
    (void)state;
    struct catalog c;
    catalog_init(&c);
    struct diag d = {0};
    assert_true(catalog_load_embedded(&c, &d));
    struct scenario s, back;
    scenario_default(&s, &catalog_find_gpu(&c, "h100-sxm")->spec,
                              &catalog_find_model(&c, "gemma-3-27b")->spec);
    s.gpus = 2;
    s.context_tokens = 32768;
    s.prefix_tokens = 1000;
    s.avg_context_tokens = 9000;
    s.kv_dtype = DTYPE_FP8;
    s.headroom_percent = 7.5;
    s.has_price = true;
    s.price_usd_per_hour = 3.25;
    s.units = UNITS_GB;
    free(round_trip(&s, &back));
    catalog_free(&c);
}

static void a_hybrid_model_round_trips_with_its_state_layers(void **state)
{
    (void)state;
    /* the state layers travel in the snapshot's model ("state": {...}) and
     * the plan's JSON ("state": {...}), and come back the same */
    struct catalog c;
    catalog_init(&c);
    struct diag d = {0};
    assert_true(catalog_load_embedded(&c, &d));
    struct scenario s, back;
    scenario_default(&s, &catalog_find_gpu(&c, "h100-sxm")->spec,
                     &catalog_find_model(&c, "nemotron-9b-v2")->spec);
    s.engine.kind = ENGINE_SGLANG;
    char *json = round_trip(&s, &back);
    assert_non_null(strstr(json, "\"slots_per_replica\""));
    assert_int_equal(back.model.state_layers, 27);
    assert_int_equal(back.model.plain_layers, 25);
    assert_string_equal(back.model.state_kind, "mamba2");
    free(json);
    catalog_free(&c);
}

/* A draft model (its whole spec), MTP and the token count survive a snapshot. */
static void speculative_decoding_round_trips_in_a_snapshot(void **state)
{
    (void)state;
    struct catalog c;
    catalog_init(&c);
    struct diag d = {0};
    assert_true(catalog_load_embedded(&c, &d));
    static struct scenario s, back;
    static struct plan_result r, r2;
    scenario_default(&s, &catalog_find_gpu(&c, "h100-sxm")->spec,
                     &catalog_find_model(&c, "llama-3.1-70b")->spec);
    s.gpus = 4;
    s.spec_method = SPEC_DRAFT;
    s.draft = catalog_find_model(&c, "llama-3.2-1b")->spec;
    s.spec_tokens = 4;
    for (int pass = 0; pass < 2; pass++) {
        assert_true(plan_compute(&s, &rows, NULL, &r, &d));
        char *json = snapshot_to_json(&s, &r, &rows, "kvplan test");
        assert_non_null(json);
        assert_non_null(strstr(json, "\"speculative\""));
        if (!snapshot_parse("snap.json", json, strlen(json), &back, &d))
            fail_msg("%s", d.message);
        assert_int_equal(back.spec_method, s.spec_method);
        assert_int_equal(back.spec_tokens, s.spec_tokens);
        assert_string_equal(back.draft.id, s.draft.id);
        assert_int_equal(back.draft.params, s.draft.params);
        assert_true(plan_compute(&back, &rows, NULL, &r2, &d));
        assert_int_equal(r.max_users, r2.max_users);
        char *again = snapshot_to_json(&back, &r2, &rows, "kvplan test");
        assert_string_equal(json, again);
        free(json);
        free(again);
        /* then DeepSeek-V3's own MTP layer, the default token count */
        scenario_default(&s, &catalog_find_gpu(&c, "h200")->spec,
                         &catalog_find_model(&c, "deepseek-v3")->spec);
        s.gpus = 8;
        s.spec_method = SPEC_MTP;
    }
    catalog_free(&c);
}

static void a_newer_snapshot_major_version_is_refused(void **state)
{
    (void)state;
    const char *text = "{\"format\": \"kvplan-scenario\",\n \"format_version\": 4, \"scenario\": {}}";
    struct scenario s;
    struct diag d = {0};
    assert_false(snapshot_parse("s.json", text, strlen(text), &s, &d));
    assert_non_null(strstr(d.message, "s.json:2:2: format_version: 4 is not supported"));
}

static void a_version_1_snapshot_still_loads(void **state)
{
    (void)state;
    /* written by kvplan before the one-answer result (format_version 1): its
     * scenario is read as it was, and the plan recomputed (the seed article without headroom: 31) */
    struct scenario s;
    struct diag d = {0};
    if (!snapshot_load("tests/data/snapshot-v1.json", &s, &d))
        fail_msg("%s", d.message);
    assert_string_equal(s.model.id, "llama-2-7b");
    assert_int_equal(s.context_tokens, 4000);
    struct plan_result r;
    assert_true(plan_compute(&s, &rows, NULL, &r, &d));
    assert_int_equal(r.max_users, 31);
}

static void a_failed_atomic_write_keeps_the_old_file(void **state)
{
    (void)state;
    char path[160];
    snprintf(path, sizeof path, "%s/keep.json", tmpdir);
    write_file(path, "old contents\n");
    struct diag d = {0};
    /* A directory in the way of the temporary file: make the dir read-only. */
    if (geteuid() != 0) {
        chmod(tmpdir, 0555);
        assert_false(fileio_write_atomic(path, "new", 3, &d));
        chmod(tmpdir, 0755);
    }
    diag_clear(&d);
    assert_false(fileio_write_atomic(tmpdir, "new", 3, &d)); /* target is a directory */
    assert_non_null(strstr(d.message, "is a directory"));
    size_t len;
    char *text = fileio_read(path, &len, &d);
    assert_string_equal(text, "old contents\n");
    free(text);
    assert_true(fileio_write_atomic(path, "new\n", 4, &d));
    text = fileio_read(path, &len, &d);
    assert_string_equal(text, "new\n");
    free(text);
    unlink(path);
}

static mode_t mode_of(const char *path)
{
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    return st.st_mode;
}

static void assert_file_holds(const char *path, const char *want)
{
    size_t len;
    struct diag d = {0};
    char *text = fileio_read(path, &len, &d);
    assert_non_null(text);
    assert_string_equal(text, want);
    free(text);
}

/* Issue 9: `ln -s /dev/loopN out.json; kvplan plan --export out.json` wrote
 * the snapshot over the device. The link is replaced by a file instead. */
static void a_symlink_at_the_target_is_replaced_never_followed(void **state)
{
    (void)state;
    char path[160];
    snprintf(path, sizeof path, "%s/link.json", tmpdir);
    assert_int_equal(symlink("/dev/null", path), 0);
    struct diag d = {0};
    assert_true(fileio_write_atomic(path, "new\n", 4, &d));
    assert_true(S_ISREG(mode_of(path)));
    assert_file_holds(path, "new\n");
    unlink(path);
}

/* Issue 9: the export was 0644 whatever the umask, and copied a setuid bit. */
static void new_files_follow_the_umask_and_replaced_ones_lose_setuid(void **state)
{
    (void)state;
    char path[160];
    snprintf(path, sizeof path, "%s/mode.json", tmpdir);
    struct diag d = {0};
    mode_t old = umask(077);
    bool ok = fileio_write_atomic(path, "a", 1, &d);
    umask(old);
    assert_true(ok);
    assert_int_equal(mode_of(path) & 07777, 0600);
    assert_int_equal(chmod(path, 04750), 0);
    assert_true(fileio_write_atomic(path, "b", 1, &d));
    assert_int_equal(mode_of(path) & 07777, 0750); /* kept, without setuid */
    unlink(path);
}

/* Issue 9: a 254-character name failed, "File name too long", because the
 * temporary name beside it was longer than NAME_MAX. */
static void a_254_character_file_name_can_be_written(void **state)
{
    (void)state;
    char path[400];
    int n = snprintf(path, sizeof path, "%s/", tmpdir);
    memset(path + n, 'x', 249);
    memcpy(path + n + 249, ".json", 6);
    struct diag d = {0};
    assert_true(fileio_write_atomic(path, "{}\n", 3, &d));
    assert_file_holds(path, "{}\n");
    unlink(path);
}

/* Issue 9: a FIFO among the presets hung every start; devices are refused too. */
static void only_regular_files_are_read(void **state)
{
    (void)state;
    char path[160];
    snprintf(path, sizeof path, "%s/fifo.json", tmpdir);
    assert_int_equal(mkfifo(path, 0600), 0);
    struct diag d = {0};
    size_t len;
    assert_null(fileio_read(path, &len, &d));
    assert_non_null(strstr(d.message, "is a FIFO, not a regular file"));
    diag_clear(&d);
    assert_false(fileio_write_atomic(path, "x", 1, &d));
    assert_non_null(strstr(d.message, "is a FIFO, not a regular file: kvplan writes only"));
    unlink(path);
    diag_clear(&d);
    assert_null(fileio_read("/dev/zero", &len, &d));
    assert_non_null(strstr(d.message, "is a character device"));
}

static int remove_tmpdir(void **state)
{
    (void)state;
    rmdir(tmpdir);
    return 0;
}

static void layouts_past_one_node_round_trip_and_stay_out_when_unset(void **state)
{
    (void)state;
    struct catalog c;
    catalog_init(&c);
    struct diag d = {0};
    assert_true(catalog_load_embedded(&c, &d));
    struct scenario s, back;
    struct plan_result r;
    scenario_default(&s, &catalog_find_gpu(&c, "h200")->spec,
                     &catalog_find_model(&c, "deepseek-v3")->spec);
    s.gpus = 16;
    s.tp = 8;
    s.pp = 2;
    s.engine.kind = ENGINE_SGLANG;
    s.dp_attention = true;
    assert_true(plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d));
    char *json = snapshot_to_json(&s, &r, NULL, "kvplan test");
    struct scenario ep = s;
    ep.engine.kind = ENGINE_VLLM;
    ep.dp_attention = false;
    ep.expert_parallel = true;
    struct plan_result epr;
    assert_true(plan_compute(&ep, PLAN_NUMBERS, NULL, &epr, &d));
    char *ejson = snapshot_to_json(&ep, &epr, NULL, "kvplan test");
    assert_non_null(strstr(ejson, "\"expert_parallel\":\ttrue"));
    if (!snapshot_parse("snap.json", ejson, strlen(ejson), &back, &d))
        fail_msg("%s", d.message);
    assert_true(back.expert_parallel);
    free(ejson);
    assert_non_null(strstr(json, "\"pp\":\t2"));
    assert_non_null(strstr(json, "\"dp_attention\":\ttrue"));
    if (!snapshot_parse("snap.json", json, strlen(json), &back, &d))
        fail_msg("%s", d.message);
    assert_int_equal(back.pp, 2);
    assert_true(back.dp_attention);
    free(json);
    /* unset, the keys are not written: older readers see format 2 unchanged */
    s.pp = 0;
    s.dp_attention = false;
    s.tp = 8;
    s.gpus = 8; /* one node of TP 8, no stages (the default would take PP 8: MLA's latent
                 * on every TP rank holds fewer users) */
    assert_true(plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d));
    json = snapshot_to_json(&s, &r, NULL, "kvplan test");
    assert_null(strstr(json, "\"pp\""));
    assert_null(strstr(json, "dp_attention"));
    free(json);
    catalog_free(&c);
}

static void lora_slots_round_trip_and_stay_out_when_unset(void **state)
{
    (void)state;
    struct catalog c;
    catalog_init(&c);
    struct diag d = {0};
    assert_true(catalog_load_embedded(&c, &d));
    struct scenario s, back;
    struct plan_result r;
    scenario_default(&s, &catalog_find_gpu(&c, "h100-sxm")->spec,
                     &catalog_find_model(&c, "llama-3.1-8b")->spec);
    assert_true(plan_compute(&s, PLAN_NUMBERS, NULL, &r, &d));
    char *json = snapshot_to_json(&s, &r, NULL, "kvplan test");
    assert_null(strstr(json, "lora")); /* unset: older readers see nothing new */
    free(json);
    s.engine.kind = ENGINE_VLLM;
    s.max_loras = 4;
    s.max_lora_rank = 32;
    s.lora_targets = LORA_ATTENTION;
    assert_true(plan_compute(&s, &rows, NULL, &r, &d));
    json = snapshot_to_json(&s, &r, &rows, "kvplan test");
    assert_non_null(strstr(json, "\"max_loras\":\t4"));
    assert_non_null(strstr(json, "\"lora_target_modules\":\t\"q_proj,k_proj,v_proj,o_proj\""));
    /* 32 layers x 32 x (8,192 + 5,120 + 5,120 + 8,192) x 2 B = 54,525,952 B a slot */
    assert_non_null(strstr(json, "\"lora_slot_bytes_per_gpu\":\t54525952"));
    if (!snapshot_parse("snap.json", json, strlen(json), &back, &d))
        fail_msg("%s", d.message);
    assert_int_equal(back.max_loras, 4);
    assert_int_equal(back.max_lora_rank, 32);
    assert_int_equal(back.lora_targets, LORA_ATTENTION);
    free(json);
    /* images: the scenario keeps its knobs, the result its tokens and cache */
    s.images = 2;
    s.image_tokens = 576;
    assert_true(plan_compute(&s, &rows, NULL, &r, &d));
    json = snapshot_to_json(&s, &r, &rows, "kvplan test");
    assert_non_null(strstr(json, "\"image_tokens\":\t576"));
    assert_non_null(strstr(json, "\"image_tokens\":\t1152"));
    if (!snapshot_parse("snap.json", json, strlen(json), &back, &d))
        fail_msg("%s", d.message);
    assert_int_equal(back.images, 2);
    assert_int_equal(back.image_tokens, 576);
    free(json);
    catalog_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lora_slots_round_trip_and_stay_out_when_unset),
        cmocka_unit_test(a_valid_model_preset_parses),
        cmocka_unit_test(preset_errors_name_file_line_column_and_field),
        cmocka_unit_test(unknown_fields_are_ignored),
        cmocka_unit_test(the_embedded_catalogue_has_the_required_ids),
        cmocka_unit_test(catalog_presets_give_the_reference_kv_bytes),
        cmocka_unit_test(the_compiled_catalogue_equals_the_preset_files),
        cmocka_unit_test(duplicate_ids_in_one_directory_are_an_error),
        cmocka_unit_test(a_directory_overrides_embedded_presets_by_id),
        cmocka_unit_test(snapshots_round_trip_exactly),
        cmocka_unit_test(speculative_decoding_round_trips_in_a_snapshot),
        cmocka_unit_test(a_hybrid_model_round_trips_with_its_state_layers),
        cmocka_unit_test(layouts_past_one_node_round_trip_and_stay_out_when_unset),
        cmocka_unit_test(a_newer_snapshot_major_version_is_refused),
        cmocka_unit_test(a_version_1_snapshot_still_loads),
        cmocka_unit_test(a_failed_atomic_write_keeps_the_old_file),
        cmocka_unit_test(a_symlink_at_the_target_is_replaced_never_followed),
        cmocka_unit_test(new_files_follow_the_umask_and_replaced_ones_lose_setuid),
        cmocka_unit_test(a_254_character_file_name_can_be_written),
        cmocka_unit_test(only_regular_files_are_read),
    };
    return cmocka_run_group_tests_name("io", tests, make_tmpdir, remove_tmpdir);
}
