#!/usr/bin/python3
"""fit_ttft: the per-request term of `kvplan simulate`'s TTFT (an engine's
request_overhead_s, src/core/policy_*.c), fitted on some serving benchmarks
and checked on the others.

A measured TTFT is the GPU's steps (what the simulator times) plus each
request's work outside them: the HTTP server and tokenization, the hand-off
to the process that schedules the steps, and the first token's way back
through the detokenizer to the client. The term is fixed per request, so it
is fitted where it dominates: prompts of at most SHORT_PROMPT tokens at a
concurrency of at most LOW_LOAD (little prefill compute, little queueing).

The split, fixed by the data alone (no result chooses it): the candidates of
one engine, from tests/data/speed-measurements.json (closed-loop serving
benchmarks) and tests/data/load-measurements.json (concurrency sweeps),
sorted by id, alternate: the first, third, ... are fitted, the others held
out; every case that is no candidate is held out. A run that both files hold
(an InferenceX point is in each) is one candidate, the speed file's. An engine's term is the
median over its fitted cases of measured TTFT - simulated TTFT without the
term (the simulated one less its request_overhead_seconds, which adds to
every request's TTFT alike). The term is fitted for each engine and GPU vendor
apart (the preset's `vendor`): ROCm builds of one engine show a far larger
gap than its CUDA builds at the same loads (SGLang at 4 in flight: 350-550 ms
on MI300X/MI325X/MI355X, 50-140 ms on B200/B300/H200), a mean lifted by a tail
of slow first tokens (p99 1.3-6 s, median near the CUDA runs'), which a term
fitted over both would split between them and fit neither. doc/SPEED-VALIDATION.md and
doc/LOAD-VALIDATION.md report each case's error, fitted and held out apart.

Usage: fit_ttft.py KVPLAN [--check]   prints each engine's fitted term in ms and its
cases; with --check, compares them with the terms the C sources hold (each engine's
request_overhead_s in src/core/policy_<engine>.c, every_engine in src/core/speed_ttft.c,
copied by hand) and exits 1 naming each that differs by more than 0.05 ms or is missing
"""
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SPEED_DATA = os.path.join(REPO, "tests", "data", "speed-measurements.json")
LOAD_DATA = os.path.join(REPO, "tests", "data", "load-measurements.json")
SHORT_PROMPT = 1024   # tokens
LOW_LOAD = 4          # requests in flight
# The engines kvplan simulates, as the two files spell them.
ENGINES = ("vllm", "sglang", "trtllm", "llama.cpp")
GPU_PRESETS = os.path.join(REPO, "presets", "gpus")
MODEL_PRESETS = os.path.join(REPO, "presets", "models")
# Runs of an engine build kvplan does not model, left out of the fit: vLLM's V0
# engine (before 0.8, when V1 became the default), which simulate does not run.
V0_PREFIXES = ("0.5.", "0.6.", "0.7.")


def vendor(gpu):
    """The GPU preset's vendor ("NVIDIA", "AMD", ...), as kvplan reads it."""
    return json.load(open(os.path.join(GPU_PRESETS, gpu + ".json"), encoding="utf-8"))["vendor"]


FINE_EXPERTS = 16  # SPEED_MOE_FINE_EXPERTS, src/core/speed.h


def kind(model):
    """"DeepSeek-class" for a model of DeepSeek-R1's kind, MLA attention with fine-grained
    routed experts (more than 16), the only MoE models the serving benchmarks measured;
    every other model (dense, or a coarser MoE such as Mixtral or Qwen3's) "other"
    (src/core/speed_ttft.c, overhead_kind)."""
    p = json.load(open(os.path.join(MODEL_PRESETS, model + ".json"), encoding="utf-8"))
    moe = p.get("moe") or {}
    fine = (moe.get("experts") or 0) > FINE_EXPERTS
    return "DeepSeek-class" if fine and (p.get("attention") or "").upper() == "MLA" else "other"


def group(engine, gpu, model):
    """What one term is fitted for: the engine on the GPU's vendor, for the model's kind
    ("sglang on NVIDIA, DeepSeek-class"). A DeepSeek prompt's gap is not a dense 8B model's."""
    return "%s on %s, %s" % (engine, vendor(gpu), kind(model))


def old_build(engine, version):
    """An engine build kvplan does not model: vLLM's V0 engine."""
    return engine == "vllm" and any((version or "").startswith(v) for v in V0_PREFIXES)


def prompt_of(p):
    """A load point's prompt: its dataset's length, else the run's mean (ShareGPT)."""
    if p.get("input_len"):
        return p["input_len"]
    m = p["metrics"]
    return round(m["total_input_tokens"] / m["completed"]) if m.get("completed") and \
        m.get("total_input_tokens") else None


def candidates():
    """(group, id) of every case the term may be fitted on. A run both files hold (an
    InferenceX point is a closed-loop case of the one and a sweep point of the other: the
    same engine, GPUs, layout, weights, concurrency and mean TTFT) counts once, as the
    speed file's case, so that no run weighs twice in the median."""
    out, seen = [], set()

    def key(engine, gpu, gpus, tp, weights, conc, ttft):
        return (engine, gpu, gpus, tp, weights, conc, round(ttft, 1))
    for c in json.load(open(SPEED_DATA, encoding="utf-8"))["measurements"]:
        b = c.get("benchmark") or {}
        if b.get("kind") == "closed-loop" and c.get("ttft_ms") and c["engine"] in ENGINES and \
                c.get("concurrency") and c["concurrency"] <= LOW_LOAD and \
                0 < c["input_tokens"] <= SHORT_PROMPT and \
                not old_build(c["engine"], c.get("engine_version")):
            seen.add(key(c["engine"], c["gpu"], c["gpus"], c["tp"], c["weight_dtype"],
                         c["concurrency"], c["ttft_ms"]))
            out.append((group(c["engine"], c["gpu"], c["model"]), c["id"]))
    for p in json.load(open(LOAD_DATA, encoding="utf-8"))["points"]:
        m, n = p.get("max_concurrency"), prompt_of(p)
        t = p["metrics"].get("mean_ttft_ms")
        if p["engine"] in ENGINES and m and m <= LOW_LOAD and n and n <= SHORT_PROMPT and t and \
                key(p["engine"], p["gpu"], p["gpus"], p["tp"], p["weight_dtype"], m, t) not in seen:
            out.append((group(p["engine"], p["gpu"], p["model"]), p["id"]))
    return out


def fitted_ids():
    """The ids the term is fitted on: every other candidate of each engine and vendor, by id."""
    by = {}
    for e, i in candidates():
        by.setdefault(e, []).append(i)
    return {i for ids in by.values() for i in sorted(ids)[::2]}


def role(ident):
    return "fitted" if ident in fitted_ids() else "held out"


def section(items, tol, what):
    """The section both documents carry: the term, the split, and split_lines."""
    return ["## TTFT's per-request term: fitted and held-out cases", "",
            "`kvplan simulate` adds each engine's per-request time outside the GPU steps (the engine's "
            "request_overhead_s: HTTP, tokenization, the hand-off to the scheduler's process, detokenization) "
            "to every request's TTFT and end-to-end latency. tools/fit_ttft.py fits it as the median gap "
            "between measured and simulated TTFT over the fitted cases, for each engine, GPU vendor and model "
            "kind apart (ROCm builds show a gap several times the CUDA builds', a mean lifted by a tail of slow "
            "first tokens; a DeepSeek-class model's gap, MLA with fine-grained experts, is not another model's), "
            "an engine with none of a vendor and "
            "kind taking every engine's cases of them pooled (else NVIDIA's of the kind), and vLLM's V0 "
            "engine (before 0.8) left out: of each engine's, vendor's and kind's %s at a prompt of at "
            "most %d tokens and at most %d in flight, sorted by id, every other one (both data files "
            "together, a run that both hold counted once); every other case is held out. The %s below, each with its error:" % (
                "serving benchmarks and load points", SHORT_PROMPT, LOW_LOAD, what)] + split_lines(items, tol) + [""]


def split_lines(items, tol):
    """Markdown for one validation document: items are (id, measured ms, simulated ms), the
    simulated TTFT with the engine's term; each case's error, fitted and held out apart."""
    fit = fitted_ids()
    L = []
    for name, want in (("fitted", True), ("held out", False)):
        rows = [(i, m, p) for i, m, p in items if (i in fit) == want and m and p is not None]
        errs = [100.0 * (p - m) / m for _, m, p in rows]
        within = sum(abs(e) <= 100.0 * tol for e in errs)
        med = "%+.0f%%" % statistics.median(errs) if errs else "n/a"
        L += ["", "%s: %d cases, simulated TTFT within %.0f%% in %d, median error %s." % (
            name[0].upper() + name[1:], len(rows), 100 * tol, within, med), "",
            "| case | measured TTFT ms | simulated ms | error |", "|---|---:|---:|---:|"]
        L += ["| %s | %.1f | %.1f | %+.1f%% |" % (i, m, p, 100.0 * (p - m) / m) for i, m, p in rows]
    return L


VENDORS, KINDS = ("NVIDIA", "AMD"), ("other", "DeepSeek-class")
PAIR = r"\{\{\s*([-0-9.e]+)\s*,\s*([-0-9.e]+)\s*\},\s*\{\s*([-0-9.e]+)\s*,\s*([-0-9.e]+)\s*\}\}"


def c_terms():
    """{group: ms} of the terms the C sources hold, non-zero ones: each engine's
    request_overhead_s[vendor][kind] and every_engine's ("every engine on ...")."""
    src = os.path.join(REPO, "src", "core")
    out = {}

    def put(prefix, m):
        v = [float(x) for x in m.groups()]
        for i, vend in enumerate(VENDORS):
            for j, k in enumerate(KINDS):
                if v[2 * i + j] > 0:
                    out["%s on %s, %s" % (prefix, vend, k)] = 1000.0 * v[2 * i + j]
    for e in ENGINES:
        path = os.path.join(src, "policy_%s.c" % e.replace(".", ""))
        m = re.search(r"\.request_overhead_s\s*=\s*" + PAIR, open(path, encoding="utf-8").read())
        if m:
            put(e, m)
    m = re.search(r"every_engine\[2\]\[2\]\s*=\s*" + PAIR,
                  open(os.path.join(src, "speed_ttft.c"), encoding="utf-8").read())
    if m:
        put("every engine", m)
    return out


def check(fitted):
    """Whether the C sources hold the fitted terms: prints each that differs or is missing."""
    held, bad = c_terms(), 0
    for g in sorted(set(held) | set(fitted)):
        if g not in fitted:
            print("fit_ttft: %s: the C source holds %.1f ms, the fit gives none" % (g, held[g]))
        elif g not in held:
            print("fit_ttft: %s: fitted %.1f ms, the C source holds none" % (g, fitted[g]))
        elif abs(held[g] - fitted[g]) > 0.05:
            print("fit_ttft: %s: fitted %.1f ms, the C source holds %.1f ms" % (g, fitted[g], held[g]))
        else:
            continue
        bad += 1
    print("fit_ttft: %d terms, %d as the C sources hold them" % (len(fitted), len(fitted) - bad))
    return 1 if bad else 0


def main():
    checking = "--check" in sys.argv[2:]
    if len(sys.argv) != 2 + checking:
        sys.stderr.write(__doc__)
        return 2
    sys.path.insert(0, HERE)
    import speed_sim
    import validate_load
    import validate_speed
    kvplan, fit, gaps = sys.argv[1], fitted_ids(), {}
    for c in json.load(open(SPEED_DATA, encoding="utf-8"))["measurements"]:
        if c["id"] in fit:
            r = speed_sim.run_case(kvplan, c, validate_speed.base_args(c))
            if r and r["ttft"] and r["ttft"][1] is not None:
                gaps.setdefault(group(c["engine"], c["gpu"], c["model"]), []).append(
                    (c["id"], r["ttft"][0] - r["ttft"][1] + r["overhead_ms"]))
    for p in json.load(open(LOAD_DATA, encoding="utf-8"))["points"]:
        if p["id"] in fit:
            args, _ = validate_load.command(p)
            sim, _ = validate_load.simulate(kvplan, args) if args else (None, None)
            if sim:
                gap = p["metrics"]["mean_ttft_ms"] - sim["mean_ttft_ms"] + 1000.0 * sim["request_overhead_seconds"]
                gaps.setdefault(group(p["engine"], p["gpu"], p["model"]), []).append((p["id"], gap))
    fitted = {}
    for e, g in sorted(gaps.items()):
        fitted[e] = round(statistics.median(x for _, x in g), 1)
        if not checking:
            print("%s: %.1f ms (median of %d: %s)" % (e, statistics.median(x for _, x in g), len(g),
                                                      ", ".join("%s %.0f" % x for x in g)))
    # every engine's cases of a vendor and kind: the term an engine with none of its own takes
    pooled = {}
    for e, g in gaps.items():
        pooled.setdefault(e.split(" on ", 1)[1], []).extend(g)
    for v, g in sorted(pooled.items()):
        fitted["every engine on " + v] = round(statistics.median(x for _, x in g), 1)
        if not checking:
            print("every engine on %s: %.1f ms (median of %d)" % (v, statistics.median(x for _, x in g), len(g)))
    return check(fitted) if checking else 0


if __name__ == "__main__":
    sys.exit(main())
