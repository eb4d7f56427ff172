#!/usr/bin/python3
"""validate_load: kvplan simulate against public latency-under-load measurements.

For each point of tests/data/load-measurements.json (doc/FORMATS.md, "Load
measurements") this builds the `kvplan simulate` command of the same
deployment and workload (engine, GPU, layout, model, precisions, the server's
scheduling flags, dataset lengths, request rate or concurrency, prompts), runs
it with --format json, and sets the prediction beside the measurement: mean
TTFT, mean TPOT, output throughput and the tail (p95, or p99 where the source
gives no p95), each with its error (predicted - measured) / measured. Per
sweep it finds the knee, measured and predicted, and sums up the errors
against the aim: mean TTFT, mean TPOT and output throughput within 25% below
the knee, and the load at the knee within 25%. A point kvplan does not
simulate yet (its engine, or a dataset it cannot stand for) is listed with
the reason, never dropped.

Writes doc/LOAD-VALIDATION.md (--out FILE elsewhere; --out - to standard
output). Deterministic: the same binary and data give the same bytes.

Usage: validate_load.py KVPLAN DATA.json [--out doc/LOAD-VALIDATION.md]
"""
import json
import os
import re
import shlex
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # its sibling, however loaded
import fit_ttft  # noqa: E402

AIM = 25.0          # percent
KNEE_SHARE = 0.90   # the knee: where output throughput reaches this share of the sweep's most
ENGINES = {"vllm": "vllm", "sglang": "sglang", "trtllm": "trtllm", "llama.cpp": "llama.cpp"}
# The server flags that shape scheduling, as kvplan's options spell them.
SERVER_FLAGS = ("max-num-batched-tokens", "max-num-seqs", "gpu-memory-utilization",
                "mem-fraction-static", "chunked-prefill-size", "max-running-requests",
                "max-prefill-tokens")
FLAG_VALUE = re.compile(r"(?<![\w-])(?:--)?(%s)(?:=|\s+)([0-9][0-9.]*)(?![\w.])"
                        % "|".join(SERVER_FLAGS))
# SGLang's poll interval, which a sweep's script may set by concurrency:
# "--scheduler-recv-interval 10 (conc < 16) or 30".
RECV_INTERVAL = re.compile(r"--scheduler-recv-interval(?:=|\s+)([0-9]+)"
                           r"(?:\s+\(conc\s*<\s*([0-9]+)\)\s+or\s+([0-9]+))?")


def recv_interval(p):
    """The point's --scheduler-recv-interval as its concurrency picks it; None: not set."""
    m = RECV_INTERVAL.search(p["server_args"] or "")
    if m is None:
        return None
    if m.group(2) is None:
        return m.group(1)
    return m.group(1) if (p["max_concurrency"] or 0) < int(m.group(2)) else m.group(3)


def engine_option(p):
    """kvplan's --engine for the point, or (None, reason)."""
    name = ENGINES.get(p["engine"])
    if name is None:
        return None, "%s is no engine kvplan models (the container's engine is not named)" % (
            p["engine"].upper() if p["engine"] == "nim" else p["engine"])
    if name == "vllm":
        m = re.match(r"(\d+)\.(\d+)", p["engine_version"])
        if m and (int(m.group(1)), int(m.group(2))) < (0, 8):
            return "vllm@0", None  # V1 became vLLM's default engine in 0.8
        # The 0.10 and 0.11 points ran FlashInfer's sampler (on whenever FlashInfer
        # was installed before vllm PR #26859): their profile sorted nothing, as the
        # current rule's (Triton, vllm PR #33538), not vllm@0.13's torch.sort.
    return name, None


def lengths(p):
    """(input, output, range ratio, how) of the point's requests, or None."""
    if p["input_len"] and p["output_len"]:
        return p["input_len"], p["output_len"], p["range_ratio"] or 0, "the dataset's"
    m = p["metrics"]
    if m.get("completed") and m.get("total_input_tokens") and m.get("total_output_tokens"):
        n = m["completed"]
        return (round(m["total_input_tokens"] / n), round(m["total_output_tokens"] / n), 0,
                "the run's means (%s)" % p["dataset"])
    return None


def context_of(inp, out, ratio):
    """The longest request the workload draws: vLLM's random ranges' top."""
    top = lambda n: -(-n * (1 + ratio) // 1)  # noqa: E731 (ceil)
    return int(top(inp) + max(1, top(out)))


def command(p):
    """(the kvplan simulate argv after 'simulate', None) or (None, reason)."""
    engine, why = engine_option(p)
    if engine is None:
        return None, why
    ln = lengths(p)
    if ln is None:
        return None, "no lengths: the source gives neither the dataset's nor its token totals"
    inp, out, ratio, _ = ln
    a = ["--engine", engine, "--gpu", p["gpu"], "--gpus", str(p["gpus"]), "--tp", str(p["tp"]),
         "--model", p["model"], "--weight-dtype", p["weight_dtype"]]
    if p["kv_dtype"]:
        a += ["--kv-dtype", p["kv_dtype"]]
    if p["pp"] > 1:
        a += ["--pp", str(p["pp"])]
    if p["ep"] > 1 and engine.startswith("vllm"):
        a += ["--enable-expert-parallel"]
    seen = set()
    for flag, value in FLAG_VALUE.findall(p["server_args"] or ""):
        if flag not in seen:
            seen.add(flag)
            a += ["--" + flag, value]
    if recv_interval(p):
        a += ["--scheduler-recv-interval", recv_interval(p)]
    a += ["--context", str(context_of(inp, out, ratio))]
    prompts = p["num_prompts"] or p["metrics"].get("completed")
    if prompts is None:
        return None, "no prompt count: the source gives neither num_prompts nor completed"
    a += ["--num-prompts", str(prompts), "--random-input-len", str(inp),
          "--random-output-len", str(out)]
    if ratio:
        a += ["--random-range-ratio", "%g" % ratio]
    if p["request_rate"] != "inf":
        a += ["--request-rate", "%g" % p["request_rate"]]
    if p["max_concurrency"]:
        a += ["--max-concurrency", str(p["max_concurrency"])]
    if p.get("warm_prompts"):  # an earlier run's prompts in the prefix cache (its source)
        a += ["--warm-prompts", str(p["warm_prompts"])]
    return a, None


def simulate(kvplan, args):
    out = subprocess.run([kvplan, "simulate", *args, "--format", "json"], capture_output=True,
                         text=True, env=dict(os.environ, XDG_CONFIG_HOME="/nonexistent"),
                         timeout=600)
    if out.returncode != 0:
        return None, out.stderr.strip().removeprefix("kvplan: ")
    return json.loads(out.stdout)["result"]["simulation"], None


def tail_key(m, what):
    """p95 where the source gives it, else p99, else None."""
    for stat in ("p95", "p99"):
        if ("%s_%s_ms" % (stat, what)) in m:
            return "%s_%s_ms" % (stat, what)
    return None


def measured(p):
    """The figures compared: mean TTFT, mean TPOT (genai-perf's per-request
    inter-token latency where no TPOT), output throughput, the tails."""
    m = p["metrics"]
    tpot = m.get("mean_tpot_ms", m.get("mean_itl_ms"))
    t_ttft, t_tpot = tail_key(m, "ttft"), tail_key(m, "tpot")
    return {"ttft": m.get("mean_ttft_ms"), "tpot": tpot, "tput": m.get("output_throughput"),
            "med_ttft": m.get("median_ttft_ms"),
            "tail_ttft": m.get(t_ttft) if t_ttft else None,
            "tail_tpot": m.get(t_tpot) if t_tpot else None,
            "tail_ttft_key": t_ttft, "tail_tpot_key": t_tpot}


def predicted(sim, meas):
    if sim is None:
        return None
    return {"ttft": sim["mean_ttft_ms"], "tpot": sim["mean_tpot_ms"],
            "tput": sim["output_throughput"], "med_ttft": sim["median_ttft_ms"],
            "tail_ttft": sim[meas["tail_ttft_key"]] if meas["tail_ttft_key"] else None,
            "tail_tpot": sim[meas["tail_tpot_key"]] if meas["tail_tpot_key"] else None,
            "over": sim["over_capacity"]}


def err(pred, real):
    if pred is None or real is None or not real:
        return None
    return 100.0 * (pred - real) / real


def unit_of(p):
    return "in flight" if p["max_concurrency"] else "req/s"


def load_of(p):
    """The point's load: its concurrency in a concurrency sweep, else its rate."""
    return p["max_concurrency"] if p["max_concurrency"] else p["request_rate"]


def knee(loads, tputs):
    """The lowest load at which output throughput reaches KNEE_SHARE of the
    sweep's most, interpolated linearly between the two points around it:
    ('at', load), ('below', first load) when the first point already does,
    ('none', None) when only the last does (still rising), or ('n/a', None)."""
    if any(t is None for t in tputs) or not tputs:
        return ("n/a", None)
    goal = KNEE_SHARE * max(tputs)
    k = next(i for i, t in enumerate(tputs) if t >= goal)
    if k == 0:
        return ("below", loads[0])
    if k == len(tputs) - 1:
        return ("none", None)
    x0, x1, t0, t1 = loads[k - 1], loads[k], tputs[k - 1], tputs[k]
    return ("at", x0 + (goal - t0) / (t1 - t0) * (x1 - x0))


def fmt(v, f="%.1f"):
    return "-" if v is None else f % v


def fpct(v):
    return "-" if v is None else "%+.0f%%" % v


def knee_words(k, unit):
    kind, x = k
    if kind == "at":
        return "%s %s" % (fmt(x, "%.3g"), unit)
    if kind == "below":
        return "at or below %g %s (the lightest load)" % (x, unit)
    if kind == "none":
        return "not reached (throughput still rising at the heaviest load)"
    return "n/a"


def cell(pred, real, f="%.1f"):
    """measured / predicted (error)."""
    if real is None:
        return "-"
    if pred is None:
        return "%s / -" % fmt(real, f)
    return "%s / %s (%s)" % (fmt(real, f), fmt(pred, f), fpct(err(pred, real)))


def run_points(kvplan, data):
    rows = []
    for p in data["points"]:
        args, why = command(p)
        meas = measured(p)
        sim = None
        if args is not None:
            sim, why = simulate(kvplan, args)
        rows.append({"p": p, "args": args, "why": why, "meas": meas,
                     "pred": predicted(sim, meas)})
    return rows


def sweeps_of(rows):
    order, by = [], {}
    for r in rows:
        s = r["p"]["sweep"]
        if s not in by:
            order.append(s)
            by[s] = []
        by[s].append(r)
    return [(s, by[s]) for s in order]


def sweep_knees(pts):
    loads = [load_of(r["p"]) for r in pts]
    if any(l == "inf" for l in loads):
        return ("n/a", None), ("n/a", None)
    km = knee(loads, [r["meas"]["tput"] for r in pts])
    kp = knee(loads, [r["pred"]["tput"] if r["pred"] else None for r in pts])
    return km, kp


def below_knee(r, km):
    """A point below the measured knee (every point of a sweep whose knee is not reached)."""
    kind, x = km
    if kind == "none":
        return True
    if kind == "at":
        return load_of(r["p"]) < x
    return False


def summary(sweeps):
    stats = {k: [] for k in ("ttft", "tpot", "tput", "med_ttft")}
    knees = []
    for name, pts in sweeps:
        km, kp = sweep_knees(pts)
        for r in pts:
            if r["pred"] and below_knee(r, km):
                for k in stats:
                    stats[k].append(err(r["pred"][k], r["meas"][k]))
        if pts[0]["pred"] is not None:
            knees.append((name, km, kp, unit_of(pts[0]["p"])))
    return stats, knees


def summary_lines(rows, sweeps):
    stats, knees = summary(sweeps)
    sim = [r for r in rows if r["pred"]]
    out = ["## Summary", "",
           "%d points in %d sweeps; %d simulated, %d not (below, with the reason)." % (
               len(rows), len(sweeps), len(sim), len(rows) - len(sim)), "",
           "The aim: mean TTFT, mean TPOT and output throughput within %g%% of the "
           "measurement at every load below the knee, and the load at the knee within %g%%."
           % (AIM, AIM), "",
           "| figure, below the measured knee | points | within %g%% | median error | "
           "median \\|error\\| |" % AIM, "|---|---:|---:|---:|---:|"]
    names = {"ttft": "mean TTFT", "tpot": "mean TPOT", "tput": "output throughput",
             "med_ttft": "median TTFT (beside the aim)"}
    for k, name in names.items():
        e = [x for x in stats[k] if x is not None]
        within = sum(1 for x in e if abs(x) <= AIM)
        med = statistics.median(e) if e else None
        mabs = statistics.median(abs(x) for x in e) if e else None
        out.append("| %s | %d | %d | %s | %s |" % (name, len(e), within, fpct(med),
                                                    fmt(mabs, "%.0f%%")))
    # how far the measured means sit above their medians: a tail of slow first tokens
    ratios = sorted(r["meas"]["ttft"] / r["meas"]["med_ttft"] for name_, pts in sweeps
                    for r in pts if r["pred"] and below_knee(r, sweep_knees(pts)[0])
                    and r["meas"]["ttft"] and r["meas"]["med_ttft"])
    if ratios:
        out += ["", "The measured mean TTFT over its median, below the knee: median %.2f, "
                "%d of %d points above 2 (a tail of slow first tokens, p90 up to ten times the "
                "median in some ROCm runs, which the simulator does not model and the "
                "per-request term, fitted on means, spreads over every request)." % (
                    statistics.median(ratios), sum(1 for x in ratios if x > 2), len(ratios))]
    located = [(km, kp) for _, km, kp, _ in knees if km[0] == "at" and kp[0] == "at"]
    good = sum(1 for km, kp in located if abs(err(kp[1], km[1])) <= AIM)
    out += ["", "Knees of the simulated sweeps: %d; measured and predicted both located in %d, "
            "the predicted load within %g%% of the measured in %d." % (
                len(knees), len(located), AIM, good)]
    for n, km, kp, unit in knees:
        out.append("- `%s`: measured %s; predicted %s" % (n, knee_words(km, unit),
                                                          knee_words(kp, unit)))
    reasons = {}
    for r in rows:
        if r["pred"] is None:
            reasons.setdefault(r["why"], []).append(r["p"]["sweep"])
    out += ["", "Not simulated:"]
    for why in sorted(reasons):
        sw = sorted(set(reasons[why]))
        out.append("- %d points in %d sweeps: %s" % (len(reasons[why]), len(sw), why))
    return out


HEAD = """# Load validation: kvplan simulate against measured latency under load

Generated by `make validate` (`tools/validate_load.py`) from
`tests/data/load-measurements.json` and the binary: do not edit; the same binary and
data give the same bytes. Each point is run as the `kvplan simulate` command shown
for it, with `--format json`; its figures are set beside the source's as
**measured / predicted (error)**, the error (predicted - measured) / measured.

## How a point becomes a command

- The engine: `vllm` (`vllm@0`, vLLM's V0 engine, before 0.8, when V1 became the
  default; the 0.10 and 0.11 points ran FlashInfer's sampler, which sorts nothing in
  the profile, so the current rule stands for them rather than `vllm@0.13`'s sort),
  `sglang`, `trtllm`; an engine kvplan does not model (NIM) is not
  simulated. The GPU, `--gpus`, `--tp`, `--pp`, the model, `--weight-dtype` and
  `--kv-dtype` (when the source states it) as the point gives them; the server's
  scheduling flags found in its `server_args` (`--max-num-batched-tokens`,
  `--max-num-seqs`, `--gpu-memory-utilization`, `--mem-fraction-static`,
  `--chunked-prefill-size`, `--max-running-requests`), each with a number, and
  SGLang's `--scheduler-recv-interval` (the one a script's "N (conc < C) or M"
  picks for the point's concurrency).
- The workload: `--num-prompts` (the source's, else its completed requests),
  `--random-input-len`, `--random-output-len` and `--random-range-ratio` of the
  random dataset (vLLM's meaning of the ratio: [L(1 - r), L(1 + r)]); for a
  dataset of varying lengths (ShareGPT) the run's mean lengths, total tokens over
  completed requests, fixed (so its spread of lengths is not modelled);
  `--request-rate` unless infinite, `--max-concurrency` when capped; `--context`
  the longest request the ranges allow; seed 0; `--warm-prompts` where the point's
  `warm_prompts` counts the prompts an earlier run on the same server had sent
  (found in vLLM's prefix cache; from the source's logged hit rates, its
  `warm_prompts_source`).
- Compared: mean TTFT, mean TPOT (the per-request inter-token latency where the
  source gives no TPOT: NIM's AIPerf), output throughput, and the tails, p95 where
  the source gives it, else p99.

## The knee

For a sweep of loads x1 < ... < xn (concurrency in flight, or request rate) with
output throughputs T1 ... Tn, the knee is the lowest load at which the throughput
reaches %d%% of the most the sweep reached, max(T), interpolated linearly between
the two points around it: past it, more load buys at most a tenth more throughput
and goes into latency (queueing, TTFT rising). It is *at or below the lightest
load* when T1 already reaches it, and *not reached* when only the last point does
(the throughput still rising): every point of such a sweep counts as below the
knee. The predicted knee is the same rule applied to the predicted throughputs at
the same loads, and its error is that of the two loads.
""" % round(KNEE_SHARE * 100)


def sweep_lines(name, pts):
    p0 = pts[0]["p"]
    km, kp = sweep_knees(pts)
    conc = bool(p0["max_concurrency"])
    unit = unit_of(p0)
    ln = lengths(p0)
    words = "n/a" if ln is None else "%d + %d tokens%s, %s" % (
        ln[0], ln[1], (", range ratio %g" % ln[2]) if ln[2] else "", ln[3])
    layout = "TP %d" % p0["tp"] + "".join(
        ", %s %d" % (k.upper(), p0[k]) for k in ("pp", "dp", "ep") if p0[k] > 1)
    out = ["### `%s`" % name, "",
           "%s %s on %d x %s (%s), %s %s%s; %s; %s sweep; %s." % (
               p0["engine"], p0["engine_version"], p0["gpus"], p0["gpu"], layout,
               p0["model"], p0["weight_dtype"],
               (", KV " + p0["kv_dtype"]) if p0["kv_dtype"] else "", p0["dataset"],
               "concurrency" if conc else "request-rate", words), ""]
    if pts[0]["pred"] is not None or km[0] != "n/a":
        out.append("Knee: measured %s; predicted %s%s." % (
            knee_words(km, unit), knee_words(kp, unit),
            (" (%s)" % fpct(err(kp[1], km[1]))) if km[0] == kp[0] == "at" else ""))
        out.append("")
    tt, tp = pts[0]["meas"]["tail_ttft_key"], pts[0]["meas"]["tail_tpot_key"]
    out += ["| load | mean TTFT ms | mean TPOT ms | output tok/s | %s | %s |" % (
        tt or "tail TTFT", tp or "tail TPOT"), "|---|---|---|---|---|---|"]
    for r in pts:
        m, pr = r["meas"], r["pred"] or {}
        load = "%s %s" % (load_of(r["p"]), unit)
        if pr.get("over"):
            load += " (over capacity)"
        out.append("| %s | %s | %s | %s | %s | %s |" % (
            load, cell(pr.get("ttft"), m["ttft"]), cell(pr.get("tpot"), m["tpot"], "%.2f"),
            cell(pr.get("tput"), m["tput"], "%.0f"), cell(pr.get("tail_ttft"), m["tail_ttft"]),
            cell(pr.get("tail_tpot"), m["tail_tpot"], "%.2f")))
    out.append("")
    whys = {r["why"] for r in pts}
    shared = whys.pop() if len(whys) == 1 else None
    if shared:
        out += ["Not simulated: %s." % shared, ""]
    for r in pts:
        if r["args"] is not None:
            out.append("- `%s`: `kvplan simulate %s`" % (r["p"]["id"], shlex.join(r["args"])))
            if r["why"] and not shared:
                out.append("  - not simulated: %s" % r["why"])
        else:
            out.append("- `%s`: no command: %s" % (r["p"]["id"], r["why"]))
    out.append("")
    return out


def render(rows):
    sweeps = sweeps_of(rows)
    items = [(r["p"]["id"], r["meas"]["ttft"], r["pred"]["ttft"]) for r in rows if r["pred"]]
    out = HEAD.splitlines() + [""] + summary_lines(rows, sweeps) + [""] + \
        fit_ttft.section(items, AIM / 100.0, "simulated points") + ["## Sweeps", ""]
    for name, pts in sweeps:
        out += sweep_lines(name, pts)
    return "\n".join(out).rstrip("\n") + "\n"


def main():
    argv = sys.argv[1:]
    out_path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                            "doc", "LOAD-VALIDATION.md")
    if "--out" in argv:
        i = argv.index("--out")
        out_path = argv[i + 1]
        del argv[i:i + 2]
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    kvplan, data_path = argv
    with open(data_path, encoding="utf-8") as f:
        data = json.load(f)
    rows = run_points(kvplan, data)
    text = render(rows)
    if out_path == "-":
        sys.stdout.write(text)
    else:
        with open(out_path, "w", encoding="utf-8") as f:
            f.write(text)
        sims = sum(1 for r in rows if r["pred"])
        print("load validation: %d points, %d simulated: %s" % (len(rows), sims, out_path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
