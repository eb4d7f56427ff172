/* options_host: the options of the host memory tier, --host-kv and
 * --prefix-hit-rate (doc/MODEL.md, "Host memory tier"). */
#include "options.h"

#include <string.h>

bool options_host_arg(bool host_kv, const char *arg, struct options *o, struct diag *d)
{
    struct diag in = {0};
    if (host_kv) {
        /* 0 turns a loaded scenario's tier off */
        if (strcmp(arg, "0") == 0) /* none, as --help says: a loaded scenario's tier off */
            o->host_kv = 0;
        else if (!units_parse_size(arg, &o->host_kv, &in))
            return diag_fail(d, "--host-kv: %s", in.message);
        if (o->host_kv > ((uint64_t)1 << 50))
            return diag_fail(d, "--host-kv: '%s' is more than 1 PiB per GPU", arg);
        o->has_host_kv = true;
        return true;
    }
    if (!units_parse_number(arg, 0.0, 1.0, &o->hit_rate, &in))
        return diag_fail(d, "--prefix-hit-rate: %s", in.message);
    o->has_hit_rate = true;
    return true;
}

bool options_host_apply(const struct options *o, struct scenario *s, struct diag *d)
{
    if (o->has_host_kv)
        s->host_kv_bytes = o->host_kv;
    if (o->has_hit_rate) {
        s->has_prefix_hit_rate = true;
        s->prefix_hit_rate = o->hit_rate;
    }
    /* a hit rate is of the host tier: without one it would be ignored */
    if (o->has_hit_rate && s->host_kv_bytes == 0)
        return diag_fail(d, "--prefix-hit-rate: the share of returning users found in host "
                            "memory needs a host tier: give --host-kv too");
    return true;
}
