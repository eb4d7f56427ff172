/* profiles: the length profiles compiled in (io/trace.h), apart from the
 * trace reader so that compile-presets, which makes them, links without. */
#include "io/trace.h"

#include <string.h>

#include "io/embedded.h"

const struct workload_profile *trace_profile_at(size_t i)
{
    return i < embedded_profile_count ? &embedded_profiles[i] : NULL;
}

const struct workload_profile *trace_profile(const char *name)
{
    for (size_t i = 0; name && i < embedded_profile_count; i++)
        if (strcmp(embedded_profiles[i].name, name) == 0)
            return &embedded_profiles[i];
    return NULL;
}
