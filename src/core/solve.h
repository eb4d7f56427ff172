/* solve: the inverse questions, answered with the same plan as everything
 * else: the fewest GPUs (and their tensor-parallel x replica split) that
 * serve N users, the longest context that does, and the smallest vLLM
 * memory fraction that does. Pure: scenarios in, numbers out. */
#ifndef KVPLAN_CORE_SOLVE_H
#define KVPLAN_CORE_SOLVE_H

#include <stdbool.h>
#include <stdint.h>

#include "plan.h"

struct solve_split {
    bool solved;
    uint32_t gpus, tp;  /* 0 when not solved */
    uint64_t users;
    double cost_per_hour; /* all GPUs; < 0 unknown or not solved */
    uint32_t pp;          /* pipeline stages; 1 without, 0 when not solved */
    enum solve_unsolved {
        UNSOLVED_NEEDS_MORE,   /* more GPUs than max_gpus (or no split works) */
        UNSOLVED_NO_BANDWIDTH, /* a speed target, and no bandwidth figure for the GPU */
        UNSOLVED_NO_COMPUTE,   /* a first-token target, and no compute figure for the GPU */
        UNSOLVED_OVER_BUDGET   /* the search would plan more layouts than it may */
    } why;                /* when not solved */
    uint64_t context_tokens; /* the context it serves (the engine's default, engine_context) */
    /* llama.cpp without --parallel: the slots its fit search was sized for
     * to serve them (-np; 0: the plan's own) */
    uint32_t parallel;
};

/* The fewest GPUs of base's GPU type, up to max_gpus, that serve `need`
 * users; among splits of that count, the fewest pipeline stages (up to
 * max_pp; 1 = none), then the largest tensor-parallel size that divides the
 * heads evenly (fewer weight copies). With pipeline stages allowed, tensor
 * parallel stays within a node or NVLink domain (spec_gpu_domain) as engines deploy it,
 * unless base->tp asks for more. A GPU whose figures cannot check the
 * targets is not solved, and `why` says so. Each layout tried costs one of
 * *plans_left (NULL: no limit); at 0 the search stops, UNSOLVED_OVER_BUDGET. */
struct solve_split solve_gpus(const struct scenario *base, uint64_t need, uint32_t max_gpus,
                              uint32_t max_pp, uint64_t *plans_left, bool engine_context);
/* engine_context: no context was given, and the engine picks its own by
 * the GPUs (Ollama's num_ctx by their memory, engine_desc default_context):
 * each count of GPUs is planned at the context the engine would pick there. */

/* True when base's GPU has no figure to check base's targets with (no
 * bandwidth for any target, no compute for a first-token one); *why says
 * which. Such a GPU serves no one at the service level. */
bool solve_unchecked(const struct scenario *base, enum solve_unsolved *why);

/* The longest context (tokens) that still serves `need` users, at most the
 * model's own (max_context_tokens: past it the model runs beyond its
 * training, as plan warns, and Ollama lowers num_ctx to it); 0 = none. */
uint64_t solve_max_context(const struct scenario *base, uint64_t need);

/* Whether the answer `best` of solve_max_context is the model's limit while
 * a longer context would still serve need (the memory is not what ends it). */
bool solve_context_capped(const struct scenario *base, uint64_t need, uint64_t best);

/* The scenario of an answer at `context` (with the slots an engine of fixed
 * slots takes for need, as the search planned it) and its plan, explained
 * into x (its launch line comes with the rows; PLAN_NUMBERS for none);
 * false when it does not plan. */
bool solve_plan_at(const struct scenario *base, uint64_t need, uint64_t context,
                   struct explain *x, struct scenario *s, struct plan_result *r);

/* The smallest gpu-memory-utilization (in hundredths) that serves `need`
 * users under vLLM; 0 = none up to 1.00. */
double solve_min_utilization(const struct scenario *base, uint64_t need);

/* What would it take: single changes of base that serve `need` users. */
enum solve_change_kind {
    CHANGE_CONTEXT,  /* the longest context that does */
    CHANGE_KV_DTYPE, /* the widest cheaper cache precision the profile supports that does */
    CHANGE_GPUS,     /* the fewest GPUs of the same type (and their split) */
    CHANGE_PREFIX,   /* the shortest shared prefix that does */
    CHANGE_GPU_TYPE, /* the cheapest other GPU type, as many of them as now */
    CHANGE_WEIGHT_DTYPE, /* the widest cheaper weight precision the engine loads */
    CHANGE_ENGINE,   /* the server engine, at its latest, that serves the most */
    CHANGE_SPLIT,    /* as many GPUs split otherwise (TP x PP x replicas), the most served */
    CHANGE_NEAR_GPUS /* where the count admits only stages within a node or no fit: the
                      * nearest count below or above whose default is whole TP groups */
};
enum { SOLVE_CHANGES_MAX = 9 }; /* a digit each in the planner */

struct solve_change {
    enum solve_change_kind kind;
    struct scenario scenario; /* base with the one change */
    uint64_t users;           /* what it serves: below need for the closest
                               * (solve_closest_changes) */
};

/* The changes that reach need users (each kind at most once, in the order
 * above, but for the nearest counts, one below and one above); gpus[] are
 * the GPU types to try. Where base serves need already, only the nearest
 * counts of a poor layout; where none reaches need, the closest of the
 * layout and precision changes (solve_closest_changes). Returns the count
 * (0 to SOLVE_CHANGES_MAX). */
int solve_changes(const struct scenario *base, uint64_t need, const struct gpu_spec *const *gpus,
                  size_t ngpus, struct solve_change *out);

/* solve_changes' last four kinds (solve_layout.c): the weights' precision,
 * the engine, the split, the nearest count of GPUs with a good layout;
 * appended to out[n...]; returns the new count. */
int solve_layout_changes(const struct scenario *base, uint64_t need, struct solve_change *out,
                         int n);
/* Where no change reaches need: the closest each of the cache's precision,
 * the weights', the engine and the split of the same GPUs gets, each the
 * one of its kind that serves the most, where that is more than base
 * serves (users below need). Appended to out[n...]; returns the new count. */
int solve_closest_changes(const struct scenario *base, struct solve_change *out, int n);
/* Where base's count of GPUs admits by default only poor stages
 * (solve_poor_stages) or no fit (5 H100s of a 70B model: TP 1 x PP 5; 13: TP
 * 1 x PP 13), the nearest count below and the nearest above whose default
 * layout is whole TP groups (or stages of whole nodes) and serves need ("16
 * would allow 2 x TP 8"), as CHANGE_NEAR_GPUS, but on the side a CHANGE_GPUS
 * in out[0..n) is on; none where --tp, --pp or DP attention are given.
 * Appended to out[n...]; returns the new count. */
int solve_near_gpus(const struct scenario *base, uint64_t need, struct solve_change *out, int n);
/* The first count of GPUs from `from`, stepping by step (+1 or -1) within 1
 * to 256, whose default layout (no --tp, --pp) is no poor one and serves
 * need: its scenario in *found. */
bool solve_good_count(const struct scenario *base, uint64_t need, uint32_t from, int step,
                      struct scenario *found);
/* Sets s's layout to tp x pp: given, or the default (s->tp, s->pp 0) where
 * the default is that layout. */
void solve_set_layout(struct scenario *s, uint32_t tp, uint32_t pp);
/* Whether a layout of tp x pp stages is a poor one: stages within a node,
 * where tensor parallel would hold the same GPUs, or a replica past a node
 * whose stages are not whole nodes of TP. */
bool solve_poor_stages(const struct scenario *s, uint32_t tp, uint32_t pp);
/* Keeps s at out[*n] as a change of this kind when it serves need. */
bool solve_keep(struct solve_change *out, int *n, enum solve_change_kind kind,
                const struct scenario *s, uint64_t need);

/* The users a scenario serves: those that fit, or with a service level
 * (min_tokens_per_s, max_ttft_seconds), those that keep it; 0 when invalid. */
uint64_t solve_users(const struct scenario *s);
/* The same for `need` users: under llama.cpp without --parallel, a fit
 * search that falls short is sized for the slots they need a replica. */
uint64_t solve_users_of(const struct scenario *s, uint64_t need);

#endif
