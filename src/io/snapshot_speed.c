/* snapshot_speed: the service level of a plan's JSON result: the speed, its
 * measured spread and the step's parts (snapshot_parts.h). */
#include "snapshot_parts.h"

#include <stdio.h>
#include <string.h>

#include "core/plan.h"

/* "NIM, vLLM" as ["NIM", "vLLM"]; NULL or "" as []. */
static cJSON *list_json(const char *list)
{
    cJSON *a = cJSON_CreateArray();
    for (const char *e = list; e && *e;) {
        const char *end = strchr(e, ',');
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(end ? end - e : (long)strlen(e)), e);
        cJSON_AddItemToArray(a, cJSON_CreateString(name));
        e = end ? end + 2 : NULL;
    }
    return a;
}

/* A figure's band (core/speedband.h): what it rests on, the group of cases,
 * how many (and held out of the fit), and the ratios; null group and ratios
 * without a band. */
static cJSON *band_json(const struct speed_band *b)
{
    struct jsonout o = jsonout_begin();
    bool band = b->banded;
    jsonout_string(&o, "basis", speedband_basis_name(b->basis));
    char group[SPEEDBAND_GROUP_MAX];
    speedband_group(b, group, sizeof group);
    if (group[0])
        jsonout_string(&o, "group", group);
    else
        jsonout_null(&o, "group");
    /* the engines and models of the group's cases; borrowed: none of the
     * engines the plan's */
    jsonout_object(&o, "engines", list_json(b->cases ? b->engines : NULL));
    jsonout_object(&o, "models", list_json(b->cases ? b->models : NULL));
    jsonout_bool(&o, "borrowed", speedband_borrowed(b));
    /* the plan's model is none of the cases' (the text's "measured on ...") */
    jsonout_bool(&o, "other_models", b->cases && b->other_models);
    jsonout_uint(&o, "measurements", b->cases);
    jsonout_uint(&o, "held_out", b->held_out);
    /* a calibrated figure whose band is the public cases' (used on another
     * setup, or part of its fit replaced): not the calibration's own */
    if (b->basis == SPEEDBAND_CALIBRATED)
        jsonout_bool(&o, "public_band", b->elsewhere || b->replaced);
    jsonout_double_or_null(&o, "low_ratio", b->low, band);
    jsonout_double_or_null(&o, "high_ratio", b->high, band);
    return jsonout_end(&o);
}

/* Each speed figure's low and high (null without a band or a figure). */
static void result_band_json(struct jsonout *o, const struct speed_bands *sp, bool level_missed)
{
    bool dec = sp->tokens_per_s_per_user_low > 0, ttft = sp->ttft_seconds_low > 0;
    bool total = dec && !level_missed;
    jsonout_double_or_null(o, "tokens_per_s_per_user_low", sp->tokens_per_s_per_user_low, dec);
    jsonout_double_or_null(o, "tokens_per_s_per_user_high", sp->tokens_per_s_per_user_high, dec);
    jsonout_double_or_null(o, "tokens_per_s_total_low", sp->tokens_per_s_total_low, total);
    jsonout_double_or_null(o, "tokens_per_s_total_high", sp->tokens_per_s_total_high, total);
    jsonout_double_or_null(o, "ttft_seconds_low", sp->ttft_seconds_low, ttft);
    jsonout_double_or_null(o, "ttft_seconds_high", sp->ttft_seconds_high, ttft);
    jsonout_string(o, "speed_basis", speedband_basis_name(sp->decode.basis));
    jsonout_string(o, "ttft_basis", speedband_basis_name(sp->ttft.basis));
    jsonout_object(o, "speed_band", band_json(&sp->decode));
    jsonout_object(o, "ttft_band", band_json(&sp->ttft));
}

/* --output-len's closed loop: each user at its mean context, its steps
 * carrying the others' prompts; bytes and tokens plain, seconds */
static cJSON *loop_json(const struct speed_result *sp, bool fast)
{
    struct jsonout o = jsonout_begin();
    jsonout_uint(&o, "output_tokens", sp->output_tokens);
    jsonout_uint(&o, "decode_context_tokens", sp->decode_context_tokens);
    jsonout_double_or_null(&o, "step_seconds", sp->loop.step_s, fast);
    jsonout_double_or_null(&o, "prompt_seconds", sp->loop.prompt_s, fast);
    jsonout_double_or_null(&o, "prompts_shared", sp->loop.prompts, fast);
    jsonout_double_or_null(&o, "full_step_prompt_seconds", sp->loop.full_s, fast);
    jsonout_bool(&o, "saturated", sp->loop.saturated);
    jsonout_double_or_null(&o, "tpot_seconds", sp->tpot_seconds, fast);
    return jsonout_end(&o);
}

void snapshot_speed_json(struct jsonout *o, const struct plan_result *r)
{
    /* the service level (speed at `concurrency` users decoding at once) */
    const struct speed_result *sp = &r->speed;
    bool fast = sp->step_seconds > 0;
    /* a target no count keeps: no user is served at it (concurrency 0, as
     * users_at_service_level), the speed is one user's alone (speed_alone)
     * and no throughput is served */
    jsonout_uint(o, "concurrency", sp->level_missed ? 0 : sp->concurrency);
    jsonout_bool(o, "speed_alone", sp->level_missed);
    jsonout_double_or_null(o, "decode_step_seconds", sp->step_seconds, fast);
    if (sp->output_tokens) /* --output-len: the closed loop's TPOT (core/speed.h) */
        jsonout_object(o, "closed_loop", loop_json(sp, fast));
    jsonout_double_or_null(o, "tokens_per_s_per_user", sp->tokens_per_s_per_user, fast);
    jsonout_double_or_null(o, "tokens_per_s_total", sp->tokens_per_s_total,
                           fast && !sp->level_missed);
    jsonout_uint(o, "prompt_tokens", sp->prompt_tokens);
    if (sp->prompt_never_runs) /* a whole-prompt engine's step holds fewer tokens */
        jsonout_bool(o, "prompt_never_runs", true);
    jsonout_double_or_null(o, "ttft_seconds", sp->ttft_seconds, sp->ttft_seconds > 0);
    jsonout_double_or_null(o, "prefill_tokens_per_s", sp->prefill_tokens_per_s,
                           sp->prefill_tokens_per_s > 0);
    /* ttft_seconds' parts (core/speed_ttft.h) */
    bool first = sp->ttft_seconds > 0;
    jsonout_double_or_null(o, "ttft_prefill_seconds", sp->ttft_prefill_seconds, first);
    jsonout_double_or_null(o, "ttft_request_seconds", sp->ttft_request_seconds, first);
    jsonout_double_or_null(o, "ttft_wait_seconds", sp->ttft_wait_seconds, first);
    if (sp->ttft_queue_seconds > 0) /* a saturated closed loop (--output-len) */
        jsonout_double(o, "ttft_queue_seconds", sp->ttft_queue_seconds);
    result_band_json(o, &r->bands, r->speed.level_missed);
    /* null when the target cannot be checked (no bandwidth or compute figure) */
    if (sp->level_unknown)
        jsonout_null(o, "users_at_service_level");
    else
        jsonout_uint(o, "users_at_service_level", sp->users_at_service_level);
    /* with a target: true when no count of users keeps it, not even one alone,
     * or when the --concurrency users miss it (WARN_SERVICE_LEVEL_MISSED); null
     * when it cannot be checked */
    if (sp->level_target && sp->level_unknown)
        jsonout_null(o, "service_level_missed");
    else if (sp->level_target)
        jsonout_bool(o, "service_level_missed", sp->level_missed || sp->level_forced_missed);
    jsonout_string(o, "binding_limit", plan_binding_name(sp->binding));
    jsonout_double(o, "mbu", sp->mbu);
    jsonout_double(o, "mfu", sp->mfu);
    jsonout_double_or_null(o, "step_memory_seconds", sp->memory_seconds, fast);
    jsonout_double_or_null(o, "step_compute_seconds", sp->compute_seconds, fast);
    jsonout_double_or_null(o, "step_comm_seconds", sp->comm_seconds, fast);
    jsonout_double_or_null(o, "step_send_seconds", sp->send_seconds, fast);
    if (sp->a2a_seconds > 0) { /* expert parallel under DP attention only */
        jsonout_double(o, "step_all_to_all_seconds", sp->a2a_seconds);
        jsonout_double(o, "step_all_to_all_bytes_per_gpu", sp->a2a_bytes_per_gpu);
    }
    jsonout_double_or_null(o, "step_moe_seconds", sp->moe_seconds, fast);
    jsonout_double_or_null(o, "step_overhead_seconds", sp->overhead_seconds, fast);
    jsonout_uint(o, "step_layers", sp->step_layers);
    jsonout_uint(o, "step_moe_layers", sp->step_moe_layers);
    jsonout_uint(o, "stages", sp->stages);
}
