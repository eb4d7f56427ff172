#include "launch.h"

#include "engine_desc.h"

int launch_servers(const struct plan_result *r)
{
    const struct engine_desc *e = engine_desc(r->profile);
    if (!e->servers || r->engine.launch[0] == '\0')
        return 0;
    int n = e->servers(&r->placement, r->engine.launch, 0, NULL);
    return n > 1 ? n : 0;
}

bool launch_server(const struct plan_result *r, int k, char *buf, size_t size)
{
    buf[0] = '\0';
    if (k < 0 || k >= launch_servers(r))
        return false;
    struct shell_line l;
    shell_line_init(&l, buf, size);
    engine_desc(r->profile)->servers(&r->placement, r->engine.launch, k, &l);
    return shell_line_done(&l, NULL);
}
