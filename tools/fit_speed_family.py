#!/usr/bin/python3
"""fit_speed_family: fits each GPU family's own step-time terms (src/core/speedfamily.c).

The dense decode measurements behind a family's MBU (its GPU presets'
achievable_mbu) do not show three parts of a DeepSeek-R1 step, whose kernels
reach other fractions of the GPU:

- MLA decode's attention over the latent cache: absorbed MLA computes a few
  query heads a GPU under tensor parallelism (16 of DeepSeek's 128 at TP 8)
  against every latent token, and the kernel (FlashMLA, the aiter MLA decode
  on CDNA) reaches a share of the family's MBU reading the cache
  (mla_decode_reach; 1 = as the weights are read);
- the grouped GEMMs that read the routed experts stream large contiguous slabs
  and reach their own fraction of peak bandwidth (expert_mbu; none = the
  family's MBU);
- the kernels a fine-grained MoE layer adds (routing, top-k, the grouped GEMM's
  launch and gather), whose time is a family's own (moe_layer_us).

For each complete decode case it asks the binary for the step's parts (plan
--format json at the case's lengths; the weights a batch of C reads from the
same plan at a context of 2 tokens, the dense and expert parts from C = 1 and
C = 64) and, for a serving benchmark, the simulated TPOT (`kvplan simulate`,
tools/speed_sim.py). A candidate's prediction is that figure less the memory
and MoE time under the table compiled in (read from src/core/speedfamily.c)
plus the same under the candidate: the simulated prefills mixed into the
decode steps stay as the binary gives them. It searches each family's three
terms over a grid by coordinate descent, minimising the squared log error of
the fitted cases (every model weighing as one), one case in three held out by
the hash tools/fit_speed.py uses, and the cases fit_speed.EXCLUDED leaves out
left out here too. Prints the terms and each case's error before (no family
terms) and after; with --out writes them as Markdown (doc/SPEED-FIT-FAMILY.md).
The figures go into src/core/speedfamily.c by hand.

Usage: fit_speed_family.py KVPLAN DATA.json [--out doc/SPEED-FIT-FAMILY.md]
"""
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fit_speed  # noqa: E402
import speed_sim  # noqa: E402
import validate_speed as vs  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(REPO, "src", "core", "speedfamily.c")
DEFAULT_MOE_LAYER_US = 78.8793  # SPEED_MOE_LAYER_OVERHEAD_S, src/core/speed.h
FAMILIES = ["Hopper", "Blackwell", "Blackwell Ultra", "CDNA 3", "CDNA 4"]
GRID = {"mla_decode_reach": [1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.25, 0.2, 0.15, 0.1],
        "expert_mbu": [0, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85],
        # a MoE layer's time: the grid of 0 to 120 us in steps of 7.5 that the
        # terms were first fitted on a layer of DeepSeek's 61, as a time per
        # MoE layer of its 58 (x 61/58), so that the fitted terms stand
        "moe_layer_us": [round(7.5 * i * 61 / 58, 4) for i in range(17)]}
NONE = {"mla_decode_reach": 1.0, "expert_mbu": 0, "moe_layer_us": DEFAULT_MOE_LAYER_US}


def compiled_table(path=TABLE):
    """The family rows of src/core/speedfamily.c: {family: terms}."""
    rows = {}
    pat = re.compile(r'\{"([^"]+)",\s*([0-9.e+-]+),\s*([0-9.e+-]+),\s*([0-9.e+-]+)(?:,\s*[0-9.e+-]+)?\}')
    for m in pat.finditer(open(path).read()):
        rows[m.group(1)] = {"mla_decode_reach": float(m.group(2)), "expert_mbu": float(m.group(3)),
                            "moe_layer_us": float(m.group(4)) * 1e6}
    return rows


def share(experts, k, n):
    return 1.0 - (1.0 - float(k) / experts) ** n if experts else 1.0


def case_parts(kvplan, c, model):
    """The parts of case c's step the family terms act on, or None."""
    base = vs.base_args(c)
    res, _ = vs.plan(kvplan, base + vs.speed_args(c))
    if res is None or res.get("decode_step_bytes_per_gpu") is None:
        return None
    gpu = vs.show(kvplan, "gpu", c["gpu"])
    i = base.index("--context")
    tiny = base[:i] + base[i + 2:] + ["--context", "2", "--prompt", "1"]
    n = c["concurrency"] or res["concurrency"]

    def weights(users):
        r, _ = vs.plan(kvplan, tiny + ["--concurrency", str(users)])
        return r["decode_step_bytes_per_gpu"] if r else None
    read = weights(n)
    moe = model.get("moe") or {}
    E, k = moe.get("experts", 0), moe.get("experts_per_token", 0)
    dense, expert = read, 0.0
    if E and read is not None:
        w1, w64 = weights(1), weights(64)
        per = (w64 - w1) / (share(E, k, 64) - share(E, k, 1))
        dense = w1 - share(E, k, 1) * per
        expert = read - dense
    kv = res["decode_step_bytes_per_gpu"] - read
    sim = speed_sim.run_case(kvplan, c, base)
    simulated = sim["tpot"][1] if sim and sim.get("tpot") and sim["tpot"][1] is not None else None
    if simulated is not None:  # the simulated steps' contexts: the mean over a reply
        kv *= (c["input_tokens"] + c["output_tokens"] / 2.0) / max(res["avg_context_tokens"], 1)
    return {"family": gpu.get("family") or "", "mla": (model.get("attention") or "").lower() == "mla",
            "bw": gpu["bandwidth_bytes_per_s"], "mbu": res["mbu"], "dense": dense,
            "expert": expert, "kv": kv, "compute": res["step_compute_seconds"],
            "moe_layers": res.get("step_moe_layers") or 0, "stages": res.get("stages") or 1,
            "figure_ms": simulated if simulated is not None else res["decode_step_seconds"] * 1e3}


def busy(p, t):
    """The memory-or-compute time of a stage and its MoE kernels under terms t, seconds."""
    bw = p["bw"] * p["mbu"]
    reach = t["mla_decode_reach"] if p["mla"] else 1.0
    e_bw = p["bw"] * t["expert_mbu"] if t["expert_mbu"] > 0 else bw
    mem = p["dense"] / bw + p["expert"] / e_bw + p["kv"] / (bw * reach)
    return max(mem, p["compute"]) + p["moe_layers"] * t["moe_layer_us"] * 1e-6


def predict_ms(p, terms, compiled):
    now = compiled.get(p["family"], NONE)
    t = terms.get(p["family"], NONE)
    return p["figure_ms"] + 1e3 * p["stages"] * (busy(p, t) - busy(p, now))


def loss(cases, terms, compiled):
    per_model = {}
    for c, _, _ in cases:
        per_model[c["model"]] = per_model.get(c["model"], 0) + 1
    return sum(math.log(predict_ms(p, terms, compiled) / m) ** 2 / per_model[c["model"]]
               for c, p, m in cases)


def search(cases, compiled):
    """Coordinate descent from no family terms, each family's terms over the grid."""
    terms = {f: dict(NONE) for f in FAMILIES}
    best = loss(cases, terms, compiled)
    for _ in range(12):
        moved = False
        for f in FAMILIES:
            for key, values in GRID.items():
                for v in values:
                    t = dict(terms, **{f: dict(terms[f], **{key: v})})
                    x = loss(cases, t, compiled)
                    if x < best - 1e-12:
                        best, terms, moved = x, t, True
        if not moved:
            break
    return terms


def main():
    kvplan, data, out = fit_speed.arguments(sys.argv[1:])
    compiled = compiled_table()
    models, fit, check = {}, [], []
    for c in json.load(open(data))["measurements"]:
        if not c.get("complete") or c["id"] in fit_speed.EXCLUDED:
            continue
        m, _ = vs.measured_decode_ms(c)
        if m is None:
            continue
        models.setdefault(c["model"], vs.show(kvplan, "model", c["model"]))
        p = case_parts(kvplan, c, models[c["model"]])
        if p is not None:
            (check if fit_speed.held_out(c["id"]) else fit).append((c, p, m))
    terms = search(fit, compiled)
    lines, rows = [], []
    for group, name in ((fit, "fit"), (check, "held out")):
        before = after = 0
        for c, p, m in group:
            b = 100.0 * (predict_ms(p, {}, compiled) - m) / m
            a = 100.0 * (predict_ms(p, terms, compiled) - m) / m
            before += abs(b) <= 20
            after += abs(a) <= 20
            rows.append((name, c["id"], p["family"], m, b, a))
        lines.append("%s: %d cases, within 20%%: %d without the family terms, %d with them"
                     % (name, len(group), before, after))
    print("\n".join(lines))
    for f in FAMILIES:
        print("%-16s %s" % (f, ", ".join("%s %g" % kv for kv in terms[f].items())))
    for r in rows:
        print("%-9s %-50s %-16s measured %7.2f ms  %+6.1f%% -> %+6.1f%%" % r)
    if out:
        write(out, terms, lines, rows)
    return 0


def write(path, terms, lines, rows):
    L = ["# The step-time fit by GPU family", "",
         "Generated by `tools/fit_speed_family.py` from `tests/data/speed-measurements.json`: each "
         "GPU family's MLA decode reach (the share of its MBU MLA's decode attention reaches reading "
         "the latent cache), the fraction of peak bandwidth its grouped expert GEMMs reach, and a "
         "fine-grained MoE layer's own kernel time (src/core/speedfamily.c), minimising the squared "
         "log error of the decode time (each model weighing as one) over the complete cases fitted "
         "on; one case in three (the hash of tools/fit_speed.py) is held out and only checked, and "
         "the cases tools/fit_speed.py leaves out are left out here too. A serving benchmark's "
         "figure is its simulated TPOT.", "",
         "| family | MLA decode reach | expert MBU | MoE layer us |", "|---|---|---|---|"]
    for f in FAMILIES:
        t = terms[f]
        L.append("| %s | %g | %s | %g |" % (f, t["mla_decode_reach"],
                                           "%g" % t["expert_mbu"] if t["expert_mbu"] else "the family's",
                                           t["moe_layer_us"]))
    L += ["", *["- " + x for x in lines], "",
          "| set | case | family | measured ms/token | error without | error with |",
          "|---|---|---|---|---|---|"]
    L += ["| %s | %s | %s | %.2f | %+.1f%% | %+.1f%% |" % r for r in rows]
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.exit(0)
