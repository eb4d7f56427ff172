/* sim_hold: KV a finished request keeps in its replica's pool for a while
 * (sim_config.kv_hold: a prefill instance's blocks, held until the decode
 * instance has read them), as a binary min-heap of release times; ties
 * release in the order they were held. */
#include <math.h>

#include "sim_internal.h"

static bool before(const struct sim_release *a, const struct sim_release *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void swap(struct sim_release *a, struct sim_release *b)
{
    struct sim_release t = *a;
    *a = *b;
    *b = t;
}

void sim_hold_push(struct sim *m, uint32_t ri, uint64_t blocks, double t)
{
    if (!sim_grow((void **)&m->held, &m->capheld, m->nheld + 1, sizeof *m->held)) {
        m->status = SIM_NO_MEMORY;
        return;
    }
    size_t i = m->nheld++;
    m->held[i] = (struct sim_release){t, m->held_seq++, blocks, ri};
    while (i > 0 && before(&m->held[i], &m->held[(i - 1) / 2])) {
        swap(&m->held[i], &m->held[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
}

/* The earliest release: its blocks back to its replica's pool; the replica. */
uint32_t sim_hold_pop(struct sim *m)
{
    struct sim_release top = m->held[0];
    m->held[0] = m->held[--m->nheld];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, k = i;
        if (l < m->nheld && before(&m->held[l], &m->held[k]))
            k = l;
        if (r < m->nheld && before(&m->held[r], &m->held[k]))
            k = r;
        if (k == i)
            break;
        swap(&m->held[i], &m->held[k]);
        i = k;
    }
    m->rep[top.replica].free += top.blocks;
    return top.replica;
}
