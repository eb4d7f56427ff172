/* loadjson: the Load screen's settings in a session (loadjson.h). */
#include "io/loadjson.h"

#include <string.h>

#include "io/jsonout.h"
#include "io/trace.h"

cJSON *loadjson_write(const struct load_settings *ls)
{
    if (!(ls->rate > 0))
        return NULL;
    struct jsonout o = jsonout_begin();
    jsonout_double(&o, "request_rate", ls->rate);
    jsonout_uint(&o, "random_input_len", ls->input_len);
    jsonout_uint(&o, "random_output_len", ls->output_len);
    if (ls->max_concurrency)
        jsonout_uint(&o, "max_concurrency", ls->max_concurrency);
    else
        jsonout_null(&o, "max_concurrency");
    jsonout_double(&o, "goodput_ttft_ms", ls->slo_ttft_ms);
    jsonout_double(&o, "goodput_tpot_ms", ls->slo_tpot_ms);
    jsonout_uint(&o, "seed", ls->seed);
    if (ls->profile) /* the length profile, by name (io/trace.h) */
        jsonout_string(&o, "dataset", ls->profile->name);
    else
        jsonout_null(&o, "dataset");
    return jsonout_end(&o);
}

/* "dataset": a length profile's name, or null (the random dataset's). */
static bool read_profile(const struct jsonread *r, const cJSON *lo, struct load_settings *ls,
                         struct diag *d)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(lo, "dataset");
    if (e == NULL || cJSON_IsNull(e))
        return true;
    if (!cJSON_IsString(e))
        return jsonread_fail(r, d, "%sdataset: expected a length profile's name or null",
                             r->prefix);
    ls->profile = trace_profile(e->valuestring);
    if (ls->profile == NULL)
        return jsonread_fail(r, d, "%sdataset: '%.64s' is no length profile (kvplan list "
                             "datasets)", r->prefix, e->valuestring);
    return true;
}

bool loadjson_read(const struct jsonread *r, const cJSON *e, struct load_settings *ls,
                   struct diag *d)
{
    memset(ls, 0, sizeof *ls);
    const cJSON *lo = cJSON_GetObjectItemCaseSensitive(e, "load");
    if (lo == NULL || cJSON_IsNull(lo))
        return true;
    struct jsonread lr = jsonread_child(r, "load", "session.scenarios.load.");
    if (!cJSON_IsObject(lo))
        return jsonread_fail(r, d, "load: expected an object");
    return jsonread_double(&lr, lo, "request_rate", true, 0.01, 1e6, &ls->rate, d) &&
           jsonread_u64(&lr, lo, "random_input_len", true, 1, UINT32_MAX, &ls->input_len, d) &&
           jsonread_u64(&lr, lo, "random_output_len", true, 1, UINT32_MAX, &ls->output_len, d) &&
           jsonread_u64(&lr, lo, "max_concurrency", false, 1, SIM_MAX_REQUESTS,
                        &ls->max_concurrency, d) &&
           jsonread_double(&lr, lo, "goodput_ttft_ms", true, 0.01, 1e9, &ls->slo_ttft_ms, d) &&
           jsonread_double(&lr, lo, "goodput_tpot_ms", true, 0.01, 1e9, &ls->slo_tpot_ms, d) &&
           jsonread_u64(&lr, lo, "seed", false, 0, UINT64_MAX, &ls->seed, d) &&
           read_profile(&lr, lo, ls, d);
}
