#!/usr/bin/python3
"""fit_allreduce: fits a GPU family's all-reduce hop and its MBU together on
its dense decode cases (src/core/speedfamily.c, the last column; the GPU
presets' achievable_mbu).

A tensor-parallel all-reduce of a decode step carries a few kilobytes: its
time is latency, not bandwidth. In the alpha-beta model of a ring all-reduce
over p GPUs the data pass 2 (p - 1) hops, each of a fixed latency alpha;
vLLM's one-shot kernel for small messages (csrc/custom_all_reduce.cuh at
036bb685, cross_device_reduce_1stage after CustomAllreduce::allreduce picks
it under 256 KB at 8 GPUs) signals and reads each of the p - 1 peers, a cost
that grows with p as well. A flat latency a call (kvplan's SPEED_ALLREDUCE_LATENCY_S,
8 us) cannot tell TP 2 from TP 8: a family MBU fitted under it is too low for
one GPU and too high for eight (Hopper: +8% to +17% at TP 1 and 2, -11% at
TP 8 under 0.55 and 8 us).

For each family with dense cases at two TP sizes or more it asks the binary
for each case's parts (plan --format json: step_memory_seconds at the preset's
MBU, step_compute_seconds, step_comm_seconds, step_layers) and searches the
MBU and alpha that minimise the squared log error of the decode time over the
cases it fits on: at each TP size but 4, the case of the lowest concurrency
(the first listed on a tie). The other cases are held out and only checked;
TP 4 is held out whole, the check of the (p - 1) form the other sizes fix.
Cases the source gives as saturated (SATURATED) are left out of both.
Writes doc/SPEED-FIT-ALLREDUCE.md with --out. The figures go into the
presets and src/core/speedfamily.c by hand.

Usage: fit_allreduce.py KVPLAN DATA.json [--out doc/SPEED-FIT-ALLREDUCE.md]
"""
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fit_speed  # noqa: E402
import validate_speed as vs  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(REPO, "src", "core", "speedfamily.c")
FLAT_S = 8e-6  # SPEED_ALLREDUCE_LATENCY_S, src/core/speed.h
HELD_TP = 4
MBU = [0.45 + 0.01 * i for i in range(41)]
HOP_US = [0.25 * i for i in range(41)]
FLAT_US = [1.0 * i for i in range(41)]
SATURATED = {
    "vllm-h100x8-llama31-405b-fp8-128-2048-b64":
        "the source says 8 x H100 saturates near 1,200 tok/s: how many of the 64 decode at once is not reported",
}


def compiled_hops(path=TABLE):
    pat = re.compile(r'\{"([^"]+)",\s*[0-9.e+-]+,\s*[0-9.e+-]+,\s*[0-9.e+-]+,\s*([0-9.e+-]+)\}')
    return {m.group(1): float(m.group(2)) for m in pat.finditer(open(path).read())}


def case_parts(kvplan, c, hops):
    """The step's parts with the latency taken out, or None."""
    r, _ = vs.plan(kvplan, vs.base_args(c) + vs.speed_args(c))
    if r is None or r.get("step_memory_seconds") is None:
        return None
    fam = vs.show(kvplan, "gpu", c["gpu"]).get("family") or ""
    tp = c["tp"]
    ars = 2 * r["step_layers"] if tp > 1 else 0
    hop = hops.get(fam, 0)
    now = hop * 2 * (tp - 1) if hop > 0 else FLAT_S
    return {"family": fam, "tp": tp, "mbu": r["mbu"], "memory": r["step_memory_seconds"],
            "compute": r["step_compute_seconds"], "bytes_s": r["step_comm_seconds"] - ars * now,
            "allreduces": ars, "stages": r.get("stages") or 1,
            "overhead": r.get("step_overhead_seconds") or 0.0}


def predict_ms(p, mbu, lat_us, ring=True):
    """The step, ms, at this MBU with an all-reduce latency of lat_us a hop (ring) or a call."""
    busy = max(p["memory"] * p["mbu"] / mbu, p["compute"])
    each = lat_us * 1e-6 * (2 * (p["tp"] - 1) if ring else 1)
    comm = p["bytes_s"] + p["allreduces"] * each
    return 1e3 * ((busy + comm) * p["stages"] + p["overhead"])


def split(cases):
    """(fitted, held out): the lowest concurrency at each TP size but HELD_TP."""
    first = {}
    for c, p, m in cases:
        tp = p["tp"]
        if tp != HELD_TP and (tp not in first or (c["concurrency"] or 0) < (first[tp][0]["concurrency"] or 0)):
            first[tp] = (c, p, m)
    fit = [x for x in first.values()]
    return fit, [x for x in cases if x not in fit]


def search(fit, ring=True):
    best = None
    for mbu in MBU:
        for us in (HOP_US if ring else FLAT_US):
            loss = sum(math.log(predict_ms(p, mbu, us, ring) / m) ** 2 for _, p, m in fit)
            if best is None or loss < best[0] - 1e-12:
                best = (loss, mbu, us)
    return best[1], best[2]


def family_cases(kvplan, data):
    hops = compiled_hops()
    out = {}
    for c in json.load(open(data))["measurements"]:
        if not c.get("complete") or c["id"] in fit_speed.EXCLUDED or c["id"] in SATURATED:
            continue
        model = vs.show(kvplan, "model", c["model"])
        if (model.get("active_params") or model["params"]) < model["params"]:
            continue  # MoE: its own family terms (tools/fit_speed_family.py)
        m, _ = vs.measured_decode_ms(c)
        p = case_parts(kvplan, c, hops)
        if m is not None and p is not None:
            out.setdefault(p["family"], []).append((c, p, m))
    return {f: cs for f, cs in out.items() if len({p["tp"] for _, p, _ in cs}) >= 2}


def main():
    args = sys.argv[1:]
    out = None
    if "--out" in args:
        i = args.index("--out")
        out = args[i + 1]
        del args[i:i + 2]
    kvplan, data = args[0], args[1]
    L = []
    for fam, cases in sorted(family_cases(kvplan, data).items()):
        fit, held = split(cases)
        mbu, us = search(fit)
        fmbu, fus = search(fit, ring=False)
        L += ["## %s" % fam, "",
              "Ring: MBU %.2f, hop %.2f us (an all-reduce at TP 2: %.1f us, at TP 8: %.1f us). "
              "Flat, for comparison: MBU %.2f, %.2f us a call whatever the ring." % (mbu, us, us * 2, us * 14, fmbu, fus), "",
              "| set | case | TP | measured ms | flat | error | ring | error |",
              "|---|---|---|---|---|---|---|---|"]
        for name, group in (("fit", fit), ("held out", held)):
            for c, p, m in group:
                flat, ring = predict_ms(p, fmbu, fus, False), predict_ms(p, mbu, us)
                L.append("| %s | %s | %d | %.2f | %.2f | %+.1f%% | %.2f | %+.1f%% |" % (
                    name, c["id"], p["tp"], m, flat, 100 * (flat - m) / m, ring, 100 * (ring - m) / m))
        L.append("")
    print("\n".join(L))
    if out:
        head = ["# The all-reduce hop and the MBU, fitted together", "",
                "Generated by `tools/fit_allreduce.py` from `tests/data/speed-measurements.json` (its docstring "
                "gives the model and the split). For each GPU family with dense decode cases at two or more TP sizes: "
                "the MBU and the latency of one hop of a ring all-reduce (2 (p - 1) hops over p GPUs) that minimise "
                "the squared log error of the fitted cases (at each TP size but 4, the lowest concurrency); the "
                "others are held out, TP 4 whole. `flat` is the other form, fitted on the same cases: one latency a "
                "call whatever the ring (kvplan's SPEED_ALLREDUCE_LATENCY_S for the families without a hop). "
                "Left out: " + "; ".join("`%s` (%s)" % kv for kv in SATURATED.items()) + ".", ""]
        with open(out, "w") as f:
            f.write("\n".join(head + L))
    return 0


if __name__ == "__main__":
    sys.exit(main())
