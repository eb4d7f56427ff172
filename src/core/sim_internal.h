/* sim_internal: the simulator's state, shared by its engine (sim.c) and its
 * figures (sim_stats.c); nothing outside those two includes it. */
#ifndef KVPLAN_CORE_SIM_INTERNAL_H
#define KVPLAN_CORE_SIM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim.h"

enum sim_state { RQ_FUTURE, RQ_WAITING, RQ_RUNNING, RQ_DONE };

/* One request as the engine sees it. */
struct sim_rq {
    uint64_t prompt, output;  /* tokens */
    uint64_t computed;        /* tokens whose KV is in the cache */
    uint64_t produced;        /* tokens generated */
    uint64_t blocks;          /* private KV blocks held */
    uint64_t shared;          /* the prefix's whole blocks it uses */
    double arrival, send, first, last, finish;
    uint32_t replica;
    enum sim_state state;
};

/* The waiting queue: a ring of request indices, pushed at either end. */
struct sim_deque {
    size_t *v;
    size_t cap, head, len;
};

/* A request of a step and the tokens it computes. */
struct sim_sched {
    size_t q;
    uint64_t tokens;
};

struct sim_replica {
    size_t *running;          /* in the order they joined */
    size_t nrun, caprun;
    struct sim_deque waiting;
    uint64_t free;            /* blocks */
    bool busy;
    double start, end;        /* the step in flight */
    struct sim_sched *sched;  /* the step's requests */
    size_t nsched, capsched;
};

/* An inter-token latency and how many tokens had it. */
struct sim_itl {
    double seconds;
    uint64_t count;
};

struct sim {
    const struct sim_config *c;
    struct sim_rq *rq;
    size_t n;
    struct sim_replica *rep;
    struct step_seq *seqs;    /* a step's batch, for step_time */
    size_t capseqs;
    size_t next_send;         /* the client: requests before it are sent */
    uint64_t inflight;
    double last_t, area_wait, area_run;
    uint64_t nwait, nrun, max_wait, max_run;
    struct sim_itl *itl;
    size_t nitl, capitl;
    uint64_t steps, preemptions, done;
    double peak_usage;
    enum sim_status status;
};

/* sim_stats.c: the figures of a finished run. */
void sim_figures(const struct sim *m, struct sim_result *out);

#endif
