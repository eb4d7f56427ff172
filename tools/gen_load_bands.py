#!/usr/bin/python3
"""gen_load_bands: how far `kvplan simulate`'s mean TTFT and mean TPOT were off
the public measurements, by GPU family, engine and model kind, for simulate to
print beside its own figures.

The runs: every load point of tests/data/load-measurements.json that simulate
runs, below its sweep's measured knee (tools/validate_load.py's rule: past it
the queue, not the engine, sets the latency) and not over capacity in the
simulation; and every complete closed-loop serving benchmark of
tests/data/speed-measurements.json that simulate runs under its own engine
(tools/speed_sim.py), a run both files hold counted once (as fit_ttft counts
it); the runs tools/fit_speed.py leaves out (early-2025 builds, kernel paths
the model does not follow: the plan warns of them) are listed but in no band,
and the first tokens gen_speed_bands leaves out (vLLM's V0 engine) too. Each run's two ratios, measured / simulated: the mean TTFT (the source's
statistic, mean or median) and the mean TPOT (or the per-request inter-token
latency where the source gives no TPOT). Both are times: +50% is a measured
time half as long again as the simulated one.

The runs group as the plan's speed bands do (tools/gen_speed_bands.py): by kind
(dense or MoE), GPU family and engine, by kind and family over every engine,
and by kind over every family; a group's band is its least and its most ratio,
each taken with 1; simulate shows the narrowest group of its kind with at least
3 runs. A run is "held out" when tools/fit_ttft.py did not fit the per-request
term on it.

Writes src/core/loadband_table.c (the table the binary carries) and
doc/LOAD-BANDS.md (every group and every run). With --check it writes nothing
and exits 1 when either is not what the data and the binary give now
(`make check-bands`, part of `make test`).

Usage: gen_load_bands.py KVPLAN [--check]
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fit_speed as fs  # noqa: E402
import fit_ttft  # noqa: E402
import gen_speed_bands as gsb  # noqa: E402
import speed_sim  # noqa: E402
import validate_load as vl  # noqa: E402
import validate_speed as vs  # noqa: E402

REPO = vs.REPO
TABLE = os.path.join(REPO, "src", "core", "loadband_table.c")
DOC = os.path.join(REPO, "doc", "LOAD-BANDS.md")
LOAD_DATA = os.path.join("tests", "data", "load-measurements.json")
SPEED_DATA = os.path.join("tests", "data", "speed-measurements.json")


def run_key(engine, gpu, gpus, tp, weights, conc, ttft):
    return (engine, gpu, gpus, tp, weights, conc, round(ttft, 1))


def row(kvplan, cache, c, engine, ttft, tpot, fitted):
    """A run's row as gen_speed_bands groups them: decode holds the TPOT ratio here."""
    return dict(c=c, family=gsb.family_of(kvplan, cache[0], c["gpu"]), engine=engine,
                moe=gsb.moe_of(kvplan, cache[1], c["model"]), held=c["id"] not in fitted,
                left=False, decode=None if tpot is None else round(tpot, 4),
                ttft=None if ttft is None else round(ttft, 4))


def ratio(measured, simulated):
    return measured / simulated if measured and simulated else None


# First tokens left out of every band (their TPOT stays in), with the reason.
TTFT_LEFT_OUT = dict(gsb.TTFT_LEFT_OUT, **{
    "sglang-b200x8-deepseek-r1-fp8-8192-1024-c16":
        "SGLang 0.5.6 (lmsysorg/sglang:v0.5.6-cu129), the one run of that build: a mean first "
        "token of 7.5 s at 16 in flight, 15x the simulated, where the 0.5.12 runs of the same "
        "GPUs and lengths answer in 0.2-0.5 s at 1 and 16 in flight"})


def excluded_keys():
    """The runs of the speed file that tools/fit_speed.py leaves out, by the key a load
    point of the same run has: a sweep point of an excluded run is left out too."""
    out = set()
    for c in json.load(open(os.path.join(REPO, SPEED_DATA), encoding="utf-8"))["measurements"]:
        if c["id"] in fs.EXCLUDED and c.get("ttft_ms"):
            out.add(run_key(c["engine"], c["gpu"], c["gpus"], c["tp"], c["weight_dtype"],
                            c.get("concurrency"), c["ttft_ms"]))
    return out


def load_rows(kvplan, cache, fitted, seen):
    data = json.load(open(os.path.join(REPO, LOAD_DATA), encoding="utf-8"))
    out, excluded = [], excluded_keys()
    for _, pts in vl.sweeps_of(vl.run_points(kvplan, data)):
        km, _ = vl.sweep_knees(pts)
        for r in pts:
            p, pred, meas = r["p"], r["pred"], r["meas"]
            if pred is None or pred["over"] or not vl.below_knee(r, km):
                continue
            engine = vl.ENGINES[p["engine"]]
            key = run_key(p["engine"], p["gpu"], p["gpus"], p["tp"], p["weight_dtype"],
                          p.get("max_concurrency"), meas["ttft"] or 0)
            if meas["ttft"]:
                seen.add(key)
            r = row(kvplan, cache, p, engine, ratio(meas["ttft"], pred["ttft"]),
                    ratio(meas["tpot"], pred["tpot"]), fitted)
            r["left"] = key in excluded
            out.append(r)
    return out


def speed_rows(kvplan, cache, fitted, seen):
    data = json.load(open(os.path.join(REPO, SPEED_DATA), encoding="utf-8"))
    out = []
    for c in data["measurements"]:
        engine = vs.ENGINES.get(c["engine"])
        if not c.get("complete") or engine is None or c["engine"] not in fit_ttft.ENGINES:
            continue
        if c.get("ttft_ms") and run_key(c["engine"], c["gpu"], c["gpus"], c["tp"], c["weight_dtype"],
                                        c.get("concurrency"), c["ttft_ms"]) in seen:
            continue
        r = speed_sim.run_case(kvplan, c, vs.base_args(c))
        if r is None or r["why"]:
            continue
        ttft = r["ttft"] and ratio(r["ttft"][0], r["ttft"][1])
        tpot = r["tpot"] and ratio(r["tpot"][0], r["tpot"][1])
        if ttft is None and tpot is None:
            continue
        r = row(kvplan, cache, c, engine, None if c["id"] in TTFT_LEFT_OUT else ttft, tpot,
                fitted)
        r["left"] = c["id"] in fs.EXCLUDED
        out.append(r)
    return out


def table_source(g):
    L = ["/* Generated by tools/gen_load_bands.py from %s and %s" % (LOAD_DATA, SPEED_DATA),
         " * and the binary's own simulations: do not edit. `make check-bands` fails",
         " * when it is stale; `make bands` writes it again. Per kind (dense or MoE),",
         " * GPU family (\"\": every family) and engine (\"\": every engine), over the",
         " * runs below their knee: the runs, those tools/fit_ttft.py holds out, and",
         " * the band of the mean TPOT (in `decode`) and of the mean TTFT, the least",
         " * and the most measured/simulated ratio of the time each taken with 1, and",
         " * the engines and models of its runs (doc/LOAD-BANDS.md). */",
         '#include "loadband.h"', "",
         "const struct speedband_entry loadband_table[] = {"]
    for (family, engine, moe), rows in g.items():
        d, t = gsb.spread(rows, "decode"), gsb.spread(rows, "ttft")
        L.append("    {%s, %s, %s, {%d, %d, %.4f, %.4f, %s, %s}, {%d, %d, %.4f, %.4f, %s, %s}}," % (
            gsb.c_string(family), gsb.c_string(engine), "true" if moe else "false", d["cases"],
            d["held_out"], d["low"], d["high"], gsb.c_string(d["engines"]), gsb.c_string(d["models"]),
            t["cases"], t["held_out"], t["low"], t["high"], gsb.c_string(t["engines"]),
            gsb.c_string(t["models"])))
    L += ["};", "const size_t loadband_table_count = sizeof loadband_table / sizeof loadband_table[0];"]
    return "\n".join(L) + "\n"


def doc_text(g, rows):
    L = ["# The measured spread of `kvplan simulate`'s latencies", "",
         "Generated by `tools/gen_load_bands.py` from `%s`, `%s` and kvplan's own simulations "
         "(`make bands`; `make check-bands` fails when this or `src/core/loadband_table.c` is stale). "
         "The runs: the load points simulate runs below their sweep's measured knee and not over "
         "capacity (doc/LOAD-VALIDATION.md), and the complete closed-loop serving benchmarks it runs "
         "under their own engine (doc/SPEED-VALIDATION.md), a run both files hold counted once. A "
         "ratio is measured / simulated, of the mean TTFT and of the mean TPOT, both times (+50%%: the "
         "measured time half as long again). The runs group by kind (dense or MoE), GPU family and "
         "engine, by kind and family over every engine, and by kind over every family; a group's band "
         "is its least and its most ratio, each taken with 1, and simulate prints the band of the "
         "narrowest group of its kind with at least %d runs beside its mean TTFT and TPOT (JSON: "
         "`result.simulation.measured_spread`). \"Held out\" counts the runs tools/fit_ttft.py did not "
         "fit the per-request term on; \"left out\" runs are in no band: the early builds and kernel "
         "paths tools/fit_speed.py leaves out (the plan warns of them)." % (LOAD_DATA, SPEED_DATA,
                                                                           gsb.MIN_CASES), "",
         "| kind | family | engine | TPOT runs (held out) | TPOT band | TTFT runs (held out) | TTFT band | engines of the runs |",
         "|---|---|---|---|---|---|---|---|"]
    L += gsb.group_rows(g)
    L += ["", "| run | kind | family | engine | TTFT fit | TPOT ratio | TTFT ratio |",
          "|---|---|---|---|---|---|---|"]
    for r in rows:
        L.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            r["c"]["id"], "MoE" if r["moe"] else "dense", r["family"], r["c"]["engine"],
            "left out" if r["left"] else "held out" if r["held"] else "fit",
            "" if r["decode"] is None else "%.4f" % r["decode"],
            "" if r["ttft"] is None else "%.4f" % r["ttft"]))
    L += ["", "First tokens left out of every band (their TPOT stays in):", ""]
    L += ["- `%s`: %s" % kv for kv in sorted(TTFT_LEFT_OUT.items())]
    L += ["", "Load points left out: the sweep points of a run the speed file holds and "
          "tools/fit_speed.py leaves out (the same engine, GPUs, layout, weights, concurrency and "
          "mean TTFT), marked \"left out\" above."]
    return "\n".join(L) + "\n"


def main():
    args = sys.argv[1:]
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    if len(args) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    kvplan = args[0]
    cache, seen, fitted = ({}, {}), set(), fit_ttft.fitted_ids()
    rows = load_rows(kvplan, cache, fitted, seen)
    rows += speed_rows(kvplan, cache, fitted, seen)
    g = gsb.groups(rows)
    stale = gsb.write_stale({TABLE: table_source(g), DOC: doc_text(g, rows)}, check)
    if check:
        for path in stale:
            print("load bands: %s is not what the data and %s give now: run `make bands`" % (
                os.path.relpath(path, REPO), kvplan))
        print("load bands: %d groups from %d runs%s" % (len(g), len(rows), ", stale" if stale else ", up to date"))
        return 1 if stale else 0
    print("load bands: %d groups from %d runs; %s" % (
        len(g), len(rows), "wrote " + ", ".join(os.path.relpath(p, REPO) for p in stale) if stale
        else "nothing changed"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
