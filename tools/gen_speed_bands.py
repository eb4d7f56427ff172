#!/usr/bin/python3
"""gen_speed_bands: the spread kvplan's speed figures showed on the public measurements.

For every complete case of tests/data/speed-measurements.json that
tools/fit_speed.py fits on or holds out (not its EXCLUDED ones: early builds
and kernel paths the model does not follow, which the plan warns of), this asks
the binary for its prediction (`kvplan plan ... --format json`, as
tools/validate_speed.py plans each case) and takes two ratios:

- decode: measured / predicted speed per user, the predicted time per output
  token (decode_step_seconds) over the measured one (validate_speed's
  measured_decode_ms);
- first token: measured / predicted time to the first token (ttft_seconds), for
  the cases measured at one user only: kvplan's first token is then one prompt
  alone plus the engine's per-request term, and a first token measured among
  other users includes their prefill and the queue, which only the simulator
  follows; and llama-bench's pp512 (a llama.cpp case's prefill_tokens_per_s with
  no prompt of its own), as 512 / the rate against kvplan's first token of a
  512-token prompt.

The cases group by kind (a dense model or MoE, by `kvplan show model`: active
parameters below the total), GPU family (the GPU preset's `family`, as `kvplan
show gpu` gives it) and engine (the engine kvplan planned the case with: vllm,
sglang, llama.cpp, trtllm; NIM and TGI, planned under the generic rule, count in
their family only), by kind and family over every engine, and by kind over
every family and engine ("" family). Each group keeps its cases, how many were
held out, and its band: the smallest and largest ratio, each taken with 1 (the
prediction itself), so that a band always holds its figure (rounded to 4
decimals). kvplan shows a group's band when it holds at least 3 cases
(SPEEDBAND_MIN_CASES, src/core/speedband.h), else the wider group's.

Writes src/core/speedband_table.c (the table the binary carries) and
doc/SPEED-BANDS.md (every group and every case). With --check it writes nothing
and exits 1, saying what differs, when either file is not what the data and
the binary give now (`make check-bands`, part of `make test`).

Usage: gen_speed_bands.py KVPLAN DATA.json [--check] [--table FILE.c] [--doc FILE.md]
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fit_speed as fs  # noqa: E402
import pp512  # noqa: E402
import validate_speed as vs  # noqa: E402

REPO = vs.REPO
TABLE = os.path.join(REPO, "src", "core", "speedband_table.c")
DOC = os.path.join(REPO, "doc", "SPEED-BANDS.md")
MIN_CASES = 3  # SPEEDBAND_MIN_CASES in src/core/speedband.h
# The engines kvplan plans a case under, by the dataset's name (validate_speed.ENGINES),
# and their titles as the reports write them (the engine descriptors' `title`).
TITLES = {"vllm": "vLLM", "sglang": "SGLang", "llama.cpp": "llama.cpp", "trtllm": "TensorRT-LLM"}
# The engines of a group's cases as the text names them when a band is borrowed
# from other engines: the kvplan titles, and the dataset's own engines
# planned under the generic rule.
CASE_TITLES = dict(TITLES, nim="NIM", tgi="TGI", atom="ATOM")


def family_of(kvplan, gpus, gpu_id):
    if gpu_id not in gpus:
        gpus[gpu_id] = vs.show(kvplan, "gpu", gpu_id).get("family") or ""
    return gpus[gpu_id]


def moe_of(kvplan, models, model_id):
    """A mixture of experts: fewer active parameters than the total (as validate_speed)."""
    if model_id not in models:
        m = vs.show(kvplan, "model", model_id)
        models[model_id] = (m.get("active_params") or m["params"]) < m["params"]
    return models[model_id]


PP_TOKENS = pp512.PP_TOKENS  # llama-bench's default prompt test, pp512
# First-token ratios left out of the bands (their decode stays in), with the reason.
OLD_METAL = ("an August 2023 build (before llama.cpp PR #2917): its pp512 on M2 Ultra, 630 tok/s, is "
             "half what ggml-org/llama.cpp discussion #4167's build 8e672ef (2023-11-21) reaches on "
             "the same chip (Q4_0: 1,014 tok/s on 60 GPU cores, 1,238 on 76), which kvplan's Apple "
             "prefill rate is fitted on (tools/fit_apple.py)")
VLLM_V0 = ("vLLM 0.6.3, its V0 engine, on ROCm 6.1 (October 2024): kvplan's first token follows "
           "the V1 engine and its kernels (`kvplan simulate` does not run V0 either, "
           "doc/LOAD-VALIDATION.md); this build's first token took 3x (80 tokens) and 6x (10,000 "
           "tokens: 12.3 s of 405B at TP 8, 6% of MI300X's dense peak) what V1's reading and "
           "compute take")
TTFT_LEFT_OUT = {"llamacpp-m2ultra-llama7b-q8_0-tg128": OLD_METAL,
                 "llamacpp-m2ultra-llama7b-q4_0-tg128": OLD_METAL,
                 "vllm-mi300x8-llama31-405b-in80-c1": VLLM_V0,
                 "vllm-mi300x8-llama31-405b-in10000-c1": VLLM_V0}


def ttft_ratio(kvplan, c, res):
    """Measured / predicted first token: a time measured at one user, or llama-bench pp512."""
    if c.get("ttft_ms") and c["concurrency"] == 1 and res.get("ttft_seconds"):
        return round(c["ttft_ms"] / (res["ttft_seconds"] * 1000.0), 4)
    if c["engine"] == "llama.cpp" and c.get("prefill_tokens_per_s") and c["input_tokens"] == 0:
        pp, err = pp512.plan_of(kvplan, c)
        if pp is None:
            raise SystemExit("%s: kvplan gives no pp%d prediction: %s" % (c["id"], PP_TOKENS, err))
        if pp.get("ttft_seconds"):
            return round(PP_TOKENS / c["prefill_tokens_per_s"] / pp["ttft_seconds"], 4)
    return None


def ratios(kvplan, data):
    """Each case's (case, family, engine, kind, held out, left out, decode ratio, first-token
    ratio or None)."""
    out, gpus, models = [], {}, {}
    doc = json.load(open(data))
    if doc.get("format") != "kvplan-speed-measurements" or doc.get("format_version") != 1:
        raise SystemExit("%s: not a kvplan-speed-measurements file, version 1" % data)
    for c in doc["measurements"]:
        if not c.get("complete"):
            continue
        measured, _ = vs.measured_decode_ms(c)
        res, err = vs.plan(kvplan, vs.base_args(c) + vs.speed_args(c))
        if res is None:
            raise SystemExit("%s: kvplan gives no prediction: %s" % (c["id"], err))
        step = res.get("decode_step_seconds")
        if measured is None or not step:
            continue
        family = family_of(kvplan, gpus, c["gpu"])
        if not family:
            raise SystemExit("%s: GPU preset %s has no family" % (c["id"], c["gpu"]))
        left = c["id"] in fs.EXCLUDED
        out.append(dict(c=c, family=family, engine=vs.ENGINES.get(c["engine"]) or "",
                        moe=moe_of(kvplan, models, c["model"]),
                        held=fs.held_out(c["id"]) and not left, left=left,
                        decode=round(step * 1000.0 / measured, 4),
                        ttft=None if left or c["id"] in TTFT_LEFT_OUT
                        else ttft_ratio(kvplan, c, res)))
    return out


def spread(rows, key):
    """A group's cases and band: the least and most ratio, each with 1 (the figure itself)."""
    v = [r[key] for r in rows if r[key] is not None]
    engines = sorted({CASE_TITLES.get(r["c"]["engine"], r["c"]["engine"])
                      for r in rows if r[key] is not None}, key=str.lower)
    return {"cases": len(v), "held_out": sum(1 for r in rows if r[key] is not None and r["held"]),
            "low": min(v + [1.0]), "high": max(v + [1.0]), "engines": ", ".join(engines),
            "models": ", ".join(sorted({r["c"]["model"] for r in rows if r[key] is not None}))}


def groups(rows):
    """{(family or "", engine or "", moe): rows} of the cases not left out, sorted."""
    g = {}
    for r in rows:
        if r["left"]:
            continue
        k = r["moe"]
        g.setdefault(("", "", k), []).append(r)
        g.setdefault((r["family"], "", k), []).append(r)
        if r["engine"]:
            g.setdefault((r["family"], r["engine"], k), []).append(r)
    return dict(sorted(g.items()))


def c_string(s):
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"')


def table_source(data_name, g):
    L = ["/* Generated by tools/gen_speed_bands.py from %s" % data_name,
         " * and the binary's own predictions: do not edit. `make check-bands` fails",
         " * when it is stale; `make bands` writes it again after a change to the data",
         " * or the speed model. Per kind (dense or MoE), GPU family (\"\": every",
         " * family) and engine (\"\": every engine), over the cases not left out of",
         " * the fit: the cases, those held out of it, and the band of the decode speed",
         " * and of the first token, the least and the most measured/predicted ratio",
         " * each taken with 1, and the engines and models of its cases",
         " * (doc/SPEED-BANDS.md). */",
         '#include "speedband.h"', "",
         "const struct speedband_entry speedband_table[] = {"]
    for (family, engine, moe), rows in g.items():
        d, t = spread(rows, "decode"), spread(rows, "ttft")
        L.append("    {%s, %s, %s, {%d, %d, %.4f, %.4f, %s, %s}, {%d, %d, %.4f, %.4f, %s, %s}}," % (
            c_string(family), c_string(engine), "true" if moe else "false", d["cases"],
            d["held_out"], d["low"], d["high"], c_string(d["engines"]), c_string(d["models"]),
            t["cases"], t["held_out"], t["low"], t["high"], c_string(t["engines"]),
            c_string(t["models"])))
    L += ["};", "const size_t speedband_table_count = sizeof speedband_table / sizeof speedband_table[0];"]
    return "\n".join(L) + "\n"


def band_cell(s):
    if s["cases"] < MIN_CASES:
        return "too few (%d case%s)" % (s["cases"], "" if s["cases"] == 1 else "s")
    return "x%.4f to x%.4f (%+.0f%% to %+.0f%%)" % (s["low"], s["high"], 100 * (s["low"] - 1),
                                                    100 * (s["high"] - 1))


def group_rows(g):
    """The table's rows, a group each: its kind, family, engine and both bands."""
    L = []
    for (family, engine, moe), rs in g.items():
        d, t = spread(rs, "decode"), spread(rs, "ttft")
        L.append("| %s | %s | %s | %d (%d) | %s | %d (%d) | %s | %s |" % (
            "MoE" if moe else "dense", family or "every family",
            TITLES.get(engine, engine) if engine else "every engine", d["cases"], d["held_out"],
            band_cell(d), t["cases"], t["held_out"], band_cell(t), d["engines"] or "none"))
    return L


def doc_text(data_name, g, rows):
    L = ["# The measured spread of the speed figures", "",
         "Generated by `tools/gen_speed_bands.py` from `%s` and kvplan's own predictions "
         "(`make bands`; `make check-bands` fails when this or `src/core/speedband_table.c` is stale). "
         "Every complete case fitted on or held out (doc/SPEED-FIT.md); the cases the fit leaves out, "
         "early engine builds and kernel paths the model does not follow, are listed but in no band "
         "(the plan warns of them instead). The cases group by kind (a dense model or MoE), GPU family "
         "(the preset's `family`) and engine, by kind and family over every engine, and by kind over "
         "every family. A ratio is measured / predicted: for decode, the speed per user (kvplan's time "
         "per output token over the measured one, the decode step alone as the fits take it: a plan's "
         "closed-loop figure, `--output-len`, carries the same band, and its own errors on the serving "
         "benchmarks, doc/SPEED-VALIDATION.md, span about as much or less: the every-family MoE group 0.46 to 1.13 against the step's 0.47 to 1.31); for the first token, the time (cases measured at one "
         "user, and llama-bench's pp512 as 512 / its prefill rate against kvplan's first token of a "
         "512-token prompt). A group's band is the least and the most ratio, each taken with 1, so that "
         "the figure times the band always holds the figure; kvplan shows the band of the narrowest "
         "group of its kind with at least %d cases (the pair's, else the family's, else every family's, "
         "stated as such), and with fewer a stated band of -50%% to +100%%. A band taken from a group "
         "over every engine names the engines of its cases, and the plan's own engine when none of them "
         "is it (\"over 8 dense Hopper cases, under NIM and vLLM; none under llama.cpp\"): a borrowed "
         "band. A group's band also names the models of its cases when the plan's model is none of them, "
         "dense or MoE (\"; measured on deepseek-v3, mixtral-8x7b\", \"; measured on llama-2-7b\"): a "
         "model's speed is its own (an expert layer's, a dense model's bytes and kernels). NIM, TGI "
         "and ATOM cases are planned under the generic rule and count in their family only." % (data_name, MIN_CASES), "",
         "| kind | family | engine | decode cases (held out) | decode band | first-token cases (held out) | first-token band | engines of the cases |",
         "|---|---|---|---|---|---|---|---|"]
    L += group_rows(g)
    L += ["", "| case | kind | family | engine | set | decode ratio | first-token ratio |",
          "|---|---|---|---|---|---|---|"]
    for r in rows:
        L.append("| %s | %s | %s | %s | %s | %.4f | %s |" % (
            r["c"]["id"], "MoE" if r["moe"] else "dense", r["family"], r["c"]["engine"],
            "left out" if r["left"] else "held out" if r["held"] else "fit",
            r["decode"], "" if r["ttft"] is None else "%.4f" % r["ttft"]))
    L += ["", "First-token ratios left out of every band (their decode stays in):", ""]
    L += ["- `%s`: %s" % kv for kv in sorted(TTFT_LEFT_OUT.items())]
    return "\n".join(L) + "\n"


def write_stale(want, check):
    """The paths of {path: text} whose file is not that text; each written (through a
    temporary file, so a failed write leaves the old one) unless check."""
    stale = []
    for path, text in want.items():
        try:
            have = open(path, encoding="utf-8").read()
        except OSError:
            have = None
        if have != text:
            stale.append(path)
            if not check:
                with open(path + ".tmp", "w", encoding="utf-8") as f:
                    f.write(text)
                os.replace(path + ".tmp", path)
    return stale


def main():
    args = sys.argv[1:]
    if len(args) < 2 or args[0].startswith("-"):
        print(__doc__.strip(), file=sys.stderr)
        return 2

    def opt(name, default):
        if name not in args:
            return default
        i = args.index(name)
        v = args[i + 1]
        del args[i:i + 2]
        return v
    table, doc = opt("--table", TABLE), opt("--doc", DOC)
    check = "--check" in args
    kvplan, data = args[0], args[1]
    name = os.path.relpath(os.path.abspath(data), REPO) if os.path.abspath(data).startswith(REPO) else data
    rows = ratios(kvplan, data)
    g = groups(rows)
    stale = write_stale({table: table_source(name, g), doc: doc_text(name, g, rows)}, check)
    if check:
        for path in stale:
            print("speed bands: %s is not what %s and %s give now: run `make bands`" % (
                os.path.relpath(path, REPO) if path.startswith(REPO) else path, name, kvplan))
        print("speed bands: %d groups from %d cases%s" % (len(g), len(rows), ", stale" if stale else ", up to date"))
        return 1 if stale else 0
    print("speed bands: %d groups from %d cases; %s" % (
        len(g), len(rows), "wrote " + ", ".join(stale) if stale else "nothing changed"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
