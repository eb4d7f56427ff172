"""speed_sim: the serving benchmarks of tests/data/speed-measurements.json run
through `kvplan simulate`, for tools/validate_speed.py.

A case whose `benchmark` object says it was a closed loop (C requests in
flight, a new one sent as one ends: InferenceX, sglang.bench_serving, vllm
benchmark_serving, AIPerf at a fixed concurrency) is the workload `kvplan
simulate` runs: its TPOT holds the other users' prefills mixed into the decode
steps, its TTFT the wait for and the sharing of steps. This builds the same
command (the plan's options, the lengths, the range, the prompts, the
concurrency), runs it and reads the simulated figure of the statistic the
source gives (mean or median) beside the measured one. Which engines simulate
is the binary's matter: one it refuses is "not simulated" with its message.
"""
import math
import shlex

from validate_load import context_of, simulate

# A run is at most this many requests (the sources' own counts are kept below it),
# so that `make validate` stays short; a source that gives no count runs 10 x C,
# InferenceX's own choice.
MAX_PROMPTS = 640
PROMPTS_PER_USER = 10


def centred(length, ratio, semantics):
    """vLLM's (centre, ratio) for a range: sglang's and InferenceX's randint(int(L x r), L)
    is the centre L(1 + r)/2 and the ratio (1 - r)/(1 + r), the centre a whole number of
    tokens and the ratio rounded down (6 decimals) so that kvplan's top, ceil(centre x
    (1 + ratio)), is the source's L and never one more (a 8,192-token engine limit holds
    InferenceX's 8,192-token prompts); vLLM's is as given."""
    if semantics == "sglang":
        centre = int(round(length * (1 + ratio) / 2.0))
        return centre, max(0.0, math.floor((length - centre) * 1e6 / centre) / 1e6)
    return length, ratio


def prompts(c, b):
    """The requests the run sends and a note when it is not the source's own count."""
    n = b.get("num_prompts")
    if n is None:
        n = PROMPTS_PER_USER * c["concurrency"]
        return min(n, MAX_PROMPTS), "%d (the source gives no count: %d x C)" % (min(n, MAX_PROMPTS), PROMPTS_PER_USER)
    if n > MAX_PROMPTS:
        return MAX_PROMPTS, "%d (the source ran %d; capped)" % (MAX_PROMPTS, n)
    return n, None


def command(c, base):
    """The `kvplan simulate` argv for case c (base: its plan options with --context), or None."""
    b = c.get("benchmark")
    if not b or b.get("kind") != "closed-loop" or not c.get("concurrency"):
        return None, None
    inp, r_in = centred(b["random_input_len"], b["random_range_ratio"], b["range"])
    out, _ = centred(b["random_output_len"], b["random_range_ratio"], b["range"])
    i = base.index("--context")
    a = base[:i] + base[i + 2:] + ["--context", str(context_of(inp, out, r_in))]
    a += shlex.split(b.get("server_args") or "")
    n, note = prompts(c, b)
    a += ["--num-prompts", str(n), "--random-input-len", str(inp), "--random-output-len", str(out),
          "--max-concurrency", str(c["concurrency"])]
    if r_in:
        a += ["--random-range-ratio", "%.6f" % r_in]
    return a, note


def measured_pairs(c):
    """(what, measured ms, the simulation's key) for the decode and the first-token figures."""
    stat = c["benchmark"].get("statistic", "mean")
    out = []
    if c.get("tpot_ms"):
        out.append(("tpot", c["tpot_ms"], stat + "_tpot_ms"))
    elif c.get("itl_ms"):
        out.append(("tpot", c["itl_ms"], stat + "_itl_ms"))
    if c.get("ttft_ms"):
        out.append(("ttft", c["ttft_ms"], stat + "_ttft_ms"))
    return out


def run_case(kvplan, c, base):
    """The simulated comparison of one case: None when it is no serving benchmark, else a
    dict with args, note, why (not simulated), and per figure (measured, simulated, error %)."""
    args, note = command(c, base)
    if args is None:
        return None
    res = {"args": args, "note": note, "why": None, "tpot": None, "ttft": None, "overhead_ms": 0.0}
    sim, why = simulate(kvplan, args)
    if sim is None:
        res["why"] = why.replace("\n", " ")
        return res
    res["overhead_ms"] = 1000.0 * sim.get("request_overhead_seconds", 0.0)
    # a server kvplan does not model (NIM, TGI, ATOM) runs on vLLM V1's scheduler (simulate's
    # default) but not behind vLLM's frontend: its TTFT without vLLM's per-request term, which
    # adds to every request alike (no term of its own is fitted)
    own = "--engine" in args
    for what, real, key in measured_pairs(c):
        pred = sim.get(key)
        if what == "ttft" and pred is not None and not own:
            pred -= res["overhead_ms"]
        res[what] = (real, pred, 100.0 * (pred - real) / real if pred is not None else None)
    return res


def decode_error(r):
    """The decode error a case counts with: the simulated TPOT's for a simulated serving
    benchmark, the static step's otherwise."""
    s = r.get("sim")
    if s and s["tpot"] and s["tpot"][2] is not None:
        return s["tpot"][2]
    return r["err_dec"]


def ttft_error(r):
    s = r.get("sim")
    if s and s["ttft"] and s["ttft"][2] is not None:
        return s["ttft"][2]
    return r["err_ttft"]


def tallies(rows, tol):
    """(within, counted) of the complete cases: decode static, decode with the simulated TPOT
    where a serving benchmark was simulated, TTFT static, TTFT likewise; and the simulated
    cases' own (within, simulated) for TPOT and TTFT."""
    done = [r for r in rows if r["c"]["complete"]]
    lim = 100.0 * tol

    def count(errs):
        errs = [e for e in errs if e is not None]
        return sum(abs(e) <= lim for e in errs), len(errs)
    sims = [r["sim"] for r in done if r.get("sim") and not r["sim"]["why"]]
    return {"decode_static": count(r["err_dec"] for r in done if r["dec_ms"] is not None),
            "decode_step": count(r.get("err_step", r["err_dec"]) for r in done if r["dec_ms"] is not None),
            "decode": count(decode_error(r) for r in done if r["dec_ms"] is not None),
            "ttft_static": count(r["err_ttft"] for r in done),
            "ttft": count(ttft_error(r) for r in done),
            "sim_tpot": count(s["tpot"][2] for s in sims if s["tpot"]),
            "sim_ttft": count(s["ttft"][2] for s in sims if s["ttft"]),
            "benchmarks": sum(1 for r in done if r.get("sim")), "simulated": len(sims)}


def line(t):
    """The one-line summary `--check` prints after the static one."""
    return ("speed, serving benchmarks simulated: decode %d/%d within, TTFT %d/%d within "
            "(kvplan plan: decode %d/%d, the step alone %d/%d, TTFT %d/%d; %d of %d serving benchmarks simulated)" % (
                *t["decode"], *t["ttft"], *t["decode_static"], *t["decode_step"], *t["ttft_static"], t["simulated"],
                t["benchmarks"]))


def read_gate(path):
    """The gate's simulated cases, {id: {figure: tolerance}}: {} without a gate or with none
    listed, None (after a message) when one is malformed."""
    import json
    import sys
    if path is None:
        return {}
    out = {}
    for i, g in enumerate(json.load(open(path)).get("simulated_cases", [])):
        tol, fig = g.get("tolerance"), g.get("figure")
        if not isinstance(g.get("id"), str) or fig not in ("tpot", "ttft") or \
                not isinstance(tol, (int, float)) or not 0 < tol < 10:
            print("%s: simulated_cases[%d]: needs an id, a figure (tpot or ttft) and a tolerance between 0 and 10"
                  % (path, i), file=sys.stderr)
            return None
        out.setdefault(g["id"], {})[fig] = float(tol)
    return out


def check_gate(gate, rows):
    """Each gated simulated figure within its tolerance; prints every miss and the closing line."""
    by_id = {r["c"]["id"]: r for r in rows}
    held = missed = 0
    for i, figs in gate.items():
        for fig, tol in figs.items():
            s = by_id[i].get("sim") if i in by_id else None
            if i not in by_id:
                why = "no such case in the measurements"
            elif s is None:
                why = "not a serving benchmark (no closed-loop `benchmark`)"
            elif s["why"]:
                why = "not simulated: " + s["why"]
            elif not s[fig] or s[fig][2] is None:
                why = "no simulated %s" % fig
            elif abs(s[fig][2]) > 100.0 * tol:
                why = "simulated %s %+.1f%%, tolerance %.0f%%" % (fig, s[fig][2], 100 * tol)
            else:
                held += 1
                continue
            missed += 1
            print("GATE: %s: %s" % (i, why))
    print("speed gate, simulated: %d passed, %d failed" % (held, missed))
    return missed == 0


def miss_cell(r):
    """The simulated TPOT error of a case outside the tolerance, for its row in the misses."""
    s = r.get("sim")
    if s is None:
        return "not a serving benchmark"
    if s["why"]:
        return "not simulated"
    return cells(s["tpot"])[2] or "n/a"


def cells(fig):
    if not fig:
        return ["", "", ""]
    real, pred, e = fig
    return ["%.2f" % real, "n/a" if pred is None else "%.2f" % pred, "n/a" if e is None else "%+.1f%%" % e]


def render(rows, tol):
    """The section of doc/SPEED-VALIDATION.md: the summary and the case-by-case comparison."""
    t = tallies(rows, tol)
    pc = lambda w, n: "%d of %d (%.0f%%)" % (w, n, 100.0 * w / n) if n else "none"  # noqa: E731
    L = ["## Serving benchmarks: the simulated run", "",
         "A serving benchmark at a fixed concurrency (InferenceX, sglang.bench_serving, vllm benchmark_serving, "
         "AIPerf: C requests in flight, a new one sent as one ends) measures a TPOT that is decode with the other "
         "users' prefills mixed into its steps, and a TTFT that includes waiting for and sharing steps with the "
         "others. `kvplan plan` answers it with --output-len (the closed loop: each user at its mean context, the "
         "others' prompts in its steps, doc/MODEL.md); the step alone (every user decoding at once, no prefill) is "
         "the right comparison only for decode-only measurements (llama-bench tg, batched runs, single users). The "
         "check on both is the same benchmark run step by step by `kvplan simulate` (doc/MODEL.md, section 13): the case's deployment, "
         "`--max-concurrency C`, `--request-rate inf`, the source's prompts, its lengths and range (sglang's and "
         "InferenceX's randint(int(L x r), L) given to kvplan as its centre L(1 + r)/2 and ratio (1 - r)/(1 + r)), "
         "and the statistic the source gives (mean). Warm-up requests (InferenceX sends 2 x C before measuring) "
         "are not simulated: the measured run starts, as the simulated one does, with an idle server. A run sends at "
         "most %d requests (InferenceX runs 10 x C, so only its 128-user rows are capped), and 10 x C where the "
         "source gives no count; the case's note says so." % MAX_PROMPTS, "",
         "Complete cases within %.0f%%:" % (100 * tol), "",
         "| figure | the step alone | kvplan plan (closed loop) | serving benchmarks simulated |", "|---|---|---|---|",
         "| decode (time per output token) | %s | %s | %s |" % (pc(*t["decode_step"]), pc(*t["decode_static"]),
                                                             pc(*t["decode"])),
         "| time to first token | %s | %s | %s |" % (pc(*t["ttft_static"]), pc(*t["ttft_static"]), pc(*t["ttft"])), "",
         "The first column is each case's decode step alone (at the closed loop's mean context for a serving "
         "benchmark), the second the plan's answer (for a serving benchmark its closed-loop TPOT); the third counts, for each serving benchmark kvplan simulates, the simulated figure, and the "
         "static one for every other case (decode-only measurements, and the benchmarks of engines the simulator "
         "does not run yet). %d complete cases are serving benchmarks; %d are simulated; of those, the simulated "
         "TPOT is within %.0f%% in %s and the simulated TTFT in %s." % (
             t["benchmarks"], t["simulated"], 100 * tol, pc(*t["sim_tpot"]), pc(*t["sim_ttft"])), "",
         "| case | complete | TPOT measured ms | plan ms | error | simulated ms | error | "
         "TTFT measured ms | static ms | error | simulated ms | error |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    notes = []
    for r in rows:
        s = r.get("sim")
        if s is None:
            continue
        c = r["c"]
        stat = lambda real, pred, e: ["n/a" if real is None else "%.2f" % real,  # noqa: E731
                                      "n/a" if pred is None else "%.2f" % pred,
                                      "n/a" if e is None else "%+.1f%%" % e]
        tp = cells(s["tpot"])[1:] if not s["why"] else ["not simulated", ""]
        tf = cells(s["ttft"])[1:] if not s["why"] else ["not simulated", ""]
        L.append("| %s | %s | %s | %s | %s | %s |" % (
            c["id"], "yes" if c["complete"] else "no", " | ".join(stat(r["dec_ms"], r["pred_dec"], r["err_dec"])),
            " | ".join(tp), " | ".join(stat(r["ttft"], r["pred_ttft"], r["err_ttft"])), " | ".join(tf)))
        if s["why"] or s["note"]:
            notes.append("- `%s`: %s" % (c["id"], "not simulated: " + s["why"] if s["why"] else
                                         "requests sent: " + s["note"]))
    whys = {}
    for n in notes:
        whys.setdefault(n.split(": ", 1)[1], []).append(n.split("`")[1])
    out = [r for r in rows if r["c"]["complete"] and r.get("sim") and r["sim"]["tpot"]
           and r["sim"]["tpot"][2] is not None and abs(r["sim"]["tpot"][2]) > 100.0 * tol]
    L += ["", "Complete serving benchmarks whose simulated TPOT is more than %.0f%% off (plan's error, simulated "
          "error, the recorded reason: `sim_miss_reason`, else `miss_reason`):" % (100 * tol), ""]
    L += ["- `%s`: %+.1f%%, %+.1f%%; %s" % (r["c"]["id"], r["err_dec"], r["sim"]["tpot"][2],
                                          r["c"].get("sim_miss_reason") or r["c"].get("miss_reason")
                                          or "no reason recorded") for r in out] or ["- none"]
    L += ["", "Each run is the case's `kvplan simulate ...` command (below, under the case).", ""]
    for why, ids in whys.items():
        L.append("- %s: %s." % (why[0].upper() + why[1:], ", ".join("`%s`" % i for i in ids)))
    return L + [""]
