/* report_load: the Load section of the Markdown report (report_load.h). */
#include "io/report_load.h"

#include <stdlib.h>
#include <string.h>

#include "core/engine_desc.h"
#include "core/loadband.h"
#include "io/markdown.h"

static void settings_table(FILE *out, const struct load_settings *ls)
{
    fprintf(out, "| Setting | Value |\n|---|---|\n");
    fprintf(out, "| Request rate | %g req/s (Poisson) |\n", ls->rate);
    if (ls->profile)
        fprintf(out, "| Lengths | drawn from %s (%s) |\n", ls->profile->name,
                ls->profile->title);
    else
        fprintf(out, "| Input, output | %llu, %llu tokens |\n", (unsigned long long)ls->input_len,
                (unsigned long long)ls->output_len);
    if (ls->max_concurrency)
        fprintf(out, "| Max concurrency | %llu |\n", (unsigned long long)ls->max_concurrency);
    else
        fprintf(out, "| Max concurrency | none |\n");
    fprintf(out, "| Goodput objectives | TTFT %g ms, TPOT %g ms |\n\n", ls->slo_ttft_ms,
            ls->slo_tpot_ms);
}

static void run_table(FILE *out, const struct report_load *l)
{
    const struct sim_result *o = l->run;
    if (o->over_capacity) {
        fprintf(out, "At %g req/s the deployment is over capacity: latencies never settle, so "
                "no percentiles are given.\n\n", l->settings->rate);
    } else {
        fprintf(out, "| At %g req/s (ms) | p50 | p95 |\n|---|---:|---:|\n", l->settings->rate);
        fprintf(out, "| TTFT | %.2f | %.2f ± %.2f |\n", o->ttft.median * 1000,
                o->ttft.p95 * 1000, load_p95_spread(&o->ttft, o->completed) * 1000);
        fprintf(out, "| TPOT | %.2f | %.2f ± %.2f |\n\n", o->tpot.median * 1000,
                o->tpot.p95 * 1000, load_p95_spread(&o->tpot, o->completed) * 1000);
    }
    double share = o->completed ? 100.0 * (double)o->good / (double)o->completed : 0;
    fprintf(out, "%llu requests. Goodput %.2f req/s (%.0f%% keep both objectives); waiting %.1f "
            "on average (at most %llu), running %.1f.", (unsigned long long)o->completed,
            o->request_goodput, share, o->mean_waiting, (unsigned long long)o->max_waiting,
            o->mean_running);
    if (o->over_capacity)
        fprintf(out, " **Over capacity**: %.2f more requests a second wait or run.",
                o->queue_growth_per_s > o->system_growth_per_s ? o->queue_growth_per_s
                                                               : o->system_growth_per_s);
    fprintf(out, "\n\n");
}

static void sweep_table(FILE *out, const struct load_sweep *sw)
{
    fprintf(out, "The sweep: a burst of %.3g req/s (every request sent at once; a steady stream "
                 "may be served faster); ", sw->capacity);
    if (sw->knee >= 0)
        fprintf(out, "the knee at %.3g req/s.\n\n", sw->pt[sw->knee].rate);
    else
        fprintf(out, "no knee.\n\n");
    fprintf(out, "| Rate (req/s) | TTFT p50 | TTFT p95 | TPOT p50 | TPOT p95 | |\n"
                 "|---:|---:|---:|---:|---:|---|\n");
    for (int i = 0; i < sw->count; i++) {
        const struct load_point *p = &sw->pt[i];
        if (p->over) { /* as simulate says: no percentiles of a run that never settles */
            fprintf(out, "| %.3g | - | - | - | - | %sover capacity |\n", p->rate,
                    i == sw->knee ? "knee, " : "");
            continue;
        }
        fprintf(out, "| %.3g | %.2f | %.2f | %.2f | %.2f | %s |\n", p->rate, p->ttft_p50,
                p->ttft_p95, p->tpot_p50, p->tpot_p95, i == sw->knee ? "knee" : "");
    }
    fprintf(out, "\n");
}

void report_markdown_load(FILE *out, const struct report_load *l)
{
    fprintf(out, "\n## Load\n\n");
    if (l->command[0]) {
        size_t n = MD_CODE_SIZE(strlen(l->command));
        char *code = malloc(n);
        if (code)
            fprintf(out, "Simulated as %s (%s's scheduler, seed %llu; times in ms).\n\n",
                    md_code(l->command, code, n),
                    l->s ? engine_desc(l->s->engine.kind)->sched.title : "the engine",
                    (unsigned long long)l->settings->seed);
        free(code);
    }
    settings_table(out, l->settings);
    run_table(out, l);
    /* how far simulate's means were off on public runs (core/loadband.h) */
    if (l->s == NULL || l->run->over_capacity) { /* the runs were below their knee */
        if (l->sweep->count)
            sweep_table(out, l->sweep);
        return;
    }
    struct load_bands lb;
    char t[SPEEDBAND_GROUP_MAX * 3], p[SPEEDBAND_GROUP_MAX * 3];
    loadband_lookup(l->s, &lb);
    speedband_text(&lb.ttft, t, sizeof t);
    speedband_text(&lb.tpot, p, sizeof p);
    fprintf(out, "Measured against simulated on public serving runs (doc/LOAD-BANDS.md): mean "
                 "TTFT %s; mean TPOT %s.\n\n", t, p);
    if (l->sweep->count)
        sweep_table(out, l->sweep);
}
