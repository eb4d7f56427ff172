/* options_host: the options of the host memory tier, --host-kv and
 * --prefix-hit-rate (doc/MODEL.md, "Host memory tier"). */
#include "cli/options.h"
#include "cli/options_table.h"

#include <string.h>

bool opt_host_kv(const struct option_row *row, const char *arg, struct options *o, struct diag *d)
{
    struct diag in = {0};
    if (strcmp(arg, "0") == 0) /* none, as --help says: a loaded scenario's tier off */
        o->host_kv = 0;
    else if (!units_parse_size(arg, &o->host_kv, &in))
        return diag_fail(d, "%s: %s", row->flag, in.message);
    if (o->host_kv > ((uint64_t)1 << 50))
        return diag_fail(d, "%s: '%s' is more than 1 PiB per GPU", row->flag, arg);
    return true;
}

bool opt_hit_rate(const struct option_row *row, const char *arg, struct options *o, struct diag *d)
{
    struct diag in = {0};
    if (!units_parse_number(arg, row->lo, row->hi, &o->hit_rate, &in))
        return diag_fail(d, "%s: %s", row->flag, in.message);
    return true;
}

bool options_host_apply(const struct options *o, struct scenario *s, struct diag *d)
{
    if (o->given[OPT_HOST_KV])
        s->host_kv_bytes = o->host_kv;
    if (o->given[OPT_HIT_RATE]) {
        s->has_prefix_hit_rate = true;
        s->prefix_hit_rate = o->hit_rate;
    }
    /* a hit rate is of the host tier: without one it would be ignored */
    if (o->given[OPT_HIT_RATE] && s->host_kv_bytes == 0)
        return diag_fail(d,
                         "%s: the share of returning users found in host memory needs a "
                         "host tier: give %s too",
                         OPTION_FLAG(OPT_HIT_RATE), OPTION_FLAG(OPT_HOST_KV));
    return true;
}
