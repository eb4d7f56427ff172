#!/usr/bin/python3
"""validate_speed: kvplan's speed model against public serving measurements.

For each case of tests/data/speed-measurements.json: what the source measured
(time per output token, tokens per second per user and in total, time to first
token); what kvplan predicts for the same configuration (`kvplan plan ...
--concurrency C --prompt P --format json`, result fields decode_step_seconds,
tokens_per_s_per_user, tokens_per_s_total, ttft_seconds, prefill_tokens_per_s)
and the error; and, for reference, the fraction of memory bandwidth (MBU) and
of dense compute (MFU) the measurement implies, computed here from the GPU
preset, the shared GPU reference and kvplan's own byte counts, so the speed
model's defaults can be chosen from data.

Writes doc/SPEED-VALIDATION.md. With --check it writes nothing and prints one
line, `speed: N passed, N failed (...)`: a complete case passes when its decode
error (predicted vs measured time per output token) is within --tolerance
(default 0.20). With --min-passed N the exit status is 1 when fewer than N
cases pass. With --gate GATE.json (the regression guard `make test` uses)
every case the gate names must be complete and within the gate's tolerance
for it, and its decode_share (tools/speed_gate.py: the share of complete cases
within, a serving benchmark counted with its simulated TPOT) must hold; the
exit status is 1 when one does not. Otherwise it is 0 whatever the errors
unless --strict, which fails on any failed case and on any complete case kvplan
gives no prediction for. Cases the binary cannot predict yet (no speed options or fields) are "n/a".

Usage: validate_speed.py KVPLAN DATA.json [--check] [--strict] [--tolerance F] [--min-passed N]
                         [--gate tests/data/speed-gate.json]
                         [--out doc/SPEED-VALIDATION.md] [--gpu-reference gpus.json]
                         [--model-reference models.json]
"""
import json
import math
import os
import statistics
import subprocess
import sys

import fit_ttft
import speed_gate
import pp512
import speed_sim

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_GPU_REFERENCE = os.path.join(REPO, "..", "shared", "reference", "gpus.json")
DEFAULT_MODEL_REFERENCE = os.path.join(REPO, "..", "shared", "reference", "models.json")
DEFAULT_GATE = os.path.join(REPO, "tests", "data", "speed-gate.json")  # the doc says what it counts

# The engine names of the dataset, as kvplan's --engine knows them; None = the generic rule.
ENGINES = {"vllm": "vllm", "sglang": "sglang", "llama.cpp": "llama.cpp", "trtllm": "trtllm", "nim": None, "tgi": None,
           "atom": None}
DEFAULT_MBU, DEFAULT_MFU = 0.70, 0.50  # src/core/speed.h
SPEED_FIELDS = ("decode_step_seconds", "tokens_per_s_per_user", "tokens_per_s_total", "ttft_seconds")


def run(kvplan, args):
    out = subprocess.run([kvplan, *args], capture_output=True, text=True,
                         env=dict(os.environ, XDG_CONFIG_HOME="/nonexistent"))
    return out.returncode, out.stdout, out.stderr.strip()


def show(kvplan, kind, ident):
    rc, out, err = run(kvplan, ["show", kind, ident, "--format", "json"])
    if rc != 0:
        raise RuntimeError("kvplan show %s %s: %s" % (kind, ident, err))
    return json.loads(out)


def base_args(c, loop=False):
    a = ["--model", c["model"], "--gpu", c["gpu"], "--gpus", str(c["gpus"]), "--tp", str(c["tp"]),
         "--weight-dtype", c["weight_dtype"]]
    if c.get("kv_dtype"):
        a += ["--kv-dtype", c["kv_dtype"]]
    engine = ENGINES.get(c["engine"])
    if engine:
        a += ["--engine", engine]
        if engine == "llama.cpp" and c["concurrency"]:
            a += ["--parallel", str(c["concurrency"])]
    ctx = c["input_tokens"] + c["output_tokens"]
    lengths = loop_lengths(c) if loop else None
    if lengths and sum(lengths) > ctx:  # a closed loop's centres rounded up past the lengths
        ctx = sum(lengths)
    a += ["--context", str(ctx)]
    return a


def loop_lengths(c):
    """A closed-loop serving benchmark's mean prompt and output (C requests in flight, a new
    one sent as one ends), or None: the plan's --prompt and --output-len for it."""
    b = c.get("benchmark")
    if not b or b.get("kind") != "closed-loop" or not c.get("concurrency"):
        return None
    inp, _ = speed_sim.centred(b["random_input_len"], b["random_range_ratio"], b["range"])
    out, _ = speed_sim.centred(b["random_output_len"], b["random_range_ratio"], b["range"])
    return inp, out


def speed_args(c, loop=False):
    """The prompt and the users decoding at once; a null concurrency (the engine chose it,
    an offline maximum-throughput run) leaves kvplan's own default: all the users that fit.
    A closed-loop serving benchmark gives its mean lengths, --output-len among them: the
    plan's decode is then the loop's TPOT (each user at its mean context, its steps carrying
    the others' prompts), the figure such a benchmark measures. Without `loop` (the fits and
    the bands, tools/fit_*.py, gen_speed_bands.py) the step alone, as they were fitted: a
    closed-loop figure carries the step's band, inside which its own errors fall."""
    a = []
    loop = loop and loop_lengths(c)
    if loop:
        a += ["--prompt", str(loop[0]), "--output-len", str(loop[1])]
    elif c["input_tokens"] > 0:
        a += ["--prompt", str(c["input_tokens"])]
    return a + (["--concurrency", str(c["concurrency"])] if c["concurrency"] else [])


def plan(kvplan, args):
    rc, out, err = run(kvplan, ["plan", *args, "--format", "json"])
    return (json.loads(out)["result"], None) if rc == 0 else (None, err)


def pct(pred, real):
    return 100.0 * (pred - real) / real if (pred is not None and real) else None


def fmt(v, f="%.2f"):
    return "n/a" if v is None else f % v


def fpct(v):
    return "n/a" if v is None else "%+.1f%%" % v


def measured_decode_ms(c):
    """The measured time per output token and where it comes from."""
    if c.get("tpot_ms"):
        return c["tpot_ms"], "TPOT" + (" (derived)" if c.get("derived") else "")
    if c.get("itl_ms"):
        return c["itl_ms"], "ITL"
    if c.get("tokens_per_s_per_user"):
        return 1000.0 / c["tokens_per_s_per_user"], "1/(tok/s/user)"
    if c.get("e2e_latency_ms"):
        return c["e2e_latency_ms"] / c["output_tokens"], "e2e/out (upper bound)"
    if c.get("tokens_per_s_total") and c.get("concurrency"):
        return 1000.0 * c["concurrency"] / c["tokens_per_s_total"], "C/(total tok/s)"
    return None, None


def measured_per_user(c, decode_ms):
    if c.get("tokens_per_s_per_user"):
        return c["tokens_per_s_per_user"]
    return 1000.0 / decode_ms if decode_ms else None


def gpu_reference(path):
    try:
        return {g["name"]: g for g in json.load(open(path))}
    except (OSError, ValueError):
        return {}


def model_reference(path):
    """MoE facts (experts, experts per token) by model name, from the shared reference."""
    try:
        return {m["name"]: m.get("moe") for m in json.load(open(path)) if m.get("moe")}
    except (OSError, ValueError):
        return {}


def moe_weight_fraction(model, moe, n):
    """Fraction of the weights one decode step of n users reads: the non-expert part and the
    expected distinct routed experts E x (1 - (1 - k/E)^n), the experts' size recovered from
    params = shared + E x e and active = shared + k x e. None when the model is dense or unknown."""
    params, active = model["params"], model.get("active_params") or model["params"]
    if active >= params or not moe:
        return None
    E, k = moe.get("num_experts"), moe.get("experts_per_token")
    if not E or not k or E <= k:
        return None
    e = (params - active) / float(E - k)
    shared = params - E * e
    touched = E * (1.0 - (1.0 - float(k) / E) ** max(n, 1))
    return (shared + touched * e) / params


def family(gpu, gpu_id):
    """The GPU preset's family (doc/FORMATS.md), as kvplan keeps its speed bands; the preset id
    where it has none."""
    return gpu.get("family") or gpu_id


def implied_fractions(c, facts, gpu, model, ref, decode_ms, moe=None):
    """MBU and MFU the measured decode speed implies, and prefill MFU where a prompt time is known."""
    out = {"step_bytes_per_gpu": None, "mbu": None, "mfu": None, "prefill_mfu": None, "peak_tflops": None,
           "moe_fraction": None}
    n, tp = c["concurrency"] or 1, c["tp"]
    avg_ctx = c["input_tokens"] + c["output_tokens"] / 2.0
    weights = facts["weights_bytes_per_gpu"]
    frac = moe_weight_fraction(model, moe, n)
    if frac is not None:
        out["moe_fraction"] = frac
        weights *= frac
    kv = n * avg_ctx * facts["kv_bytes_per_token_per_gpu"]
    step_bytes = weights + kv
    out["step_bytes_per_gpu"] = step_bytes
    out["kv_share"] = kv / step_bytes
    bw = gpu.get("bandwidth_bytes_per_s") or 0
    out["floor_ms"] = 1000.0 * step_bytes / bw if bw else None
    if decode_ms and bw:
        out["mbu"] = step_bytes / (decode_ms / 1000.0 * bw)
    r = ref.get(gpu["name"]) or {}
    peak = r.get("dense_fp8_tflops") if c["weight_dtype"] == "fp8" and r.get("dense_fp8_tflops") else r.get("dense_fp16_bf16_tflops")
    if not peak:
        return out
    out["peak_tflops"] = peak
    active = model.get("active_params") or model["params"]
    layers, heads, hd = model["num_layers"], model["num_attention_heads"], model.get("head_dim") or 128
    if decode_ms:
        flops = (2.0 * active * n + 4.0 * layers * heads * hd * avg_ctx * n) / tp
        out["mfu"] = flops / (decode_ms / 1000.0 * peak * 1e12)
    # prefill: a measured time to first token at one user, or a prefill rate (llama-bench pp512)
    p, seconds = None, None
    if c.get("ttft_ms") and c["input_tokens"] > 0 and n == 1:
        p, seconds = c["input_tokens"], c["ttft_ms"] / 1000.0
    elif c.get("prefill_tokens_per_s"):
        p = 512
        seconds = p / c["prefill_tokens_per_s"]
    if p:
        flops = (2.0 * active * p + 2.0 * layers * heads * hd * p * p) / tp
        out["prefill_mfu"] = flops / (seconds * peak * 1e12)
    return out


def summary(values):
    v = [x for x in values if x is not None]
    if not v:
        return "n/a", "n/a", 0
    return statistics.median(v), (min(v), max(v)), len(v)


def ttft_items(rows):
    """(id, measured, simulated) TTFT ms of the complete simulated serving benchmarks of the
    engines whose term tools/fit_ttft.py fits."""
    return [(r["c"]["id"], r["sim"]["ttft"][0], r["sim"]["ttft"][1]) for r in rows
            if r["c"]["complete"] and r["c"]["engine"] in fit_ttft.ENGINES and r.get("sim")
            and not r["sim"]["why"] and r["sim"]["ttft"]]


def main():
    argv = sys.argv[1:]
    if len(argv) < 2 or argv[0].startswith("-"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    kvplan, data = argv[0], argv[1]

    def opt(name, default):
        return argv[argv.index(name) + 1] if name in argv else default
    check, strict = "--check" in argv, "--strict" in argv
    min_passed = int(opt("--min-passed", "0"))
    gate, sim_gate = speed_gate.read_cases(opt("--gate", None)), speed_sim.read_gate(opt("--gate", None))
    share = speed_gate.read(opt("--gate", DEFAULT_GATE))
    if gate is None or sim_gate is None or share is None:
        return 2
    tol = float(opt("--tolerance", "0.20"))
    out_path = opt("--out", os.path.join(REPO, "doc", "SPEED-VALIDATION.md"))
    ref = gpu_reference(opt("--gpu-reference", DEFAULT_GPU_REFERENCE))
    moes = model_reference(opt("--model-reference", DEFAULT_MODEL_REFERENCE))
    doc = json.load(open(data))
    if doc.get("format") != "kvplan-speed-measurements" or doc.get("format_version") != 1:
        print("%s: not a kvplan-speed-measurements file, version 1" % data, file=sys.stderr)
        return 2

    rows, passed, failed, na, no_pred = [], [], [], [], {}
    gpus, models = {}, {}
    for c in doc["measurements"]:
        gpus.setdefault(c["gpu"], show(kvplan, "gpu", c["gpu"]))
        models.setdefault(c["model"], show(kvplan, "model", c["model"]))
        gpu, model = gpus[c["gpu"]], models[c["model"]]
        args = base_args(c)
        facts, err = plan(kvplan, args)
        if facts is None:
            raise RuntimeError("%s: kvplan plan %s: %s" % (c["id"], " ".join(args), err))
        res, err = plan(kvplan, base_args(c, loop=True) + speed_args(c, loop=True))
        if res is None:
            no_pred[c["id"]] = err
            res = {}
        elif not all(k in res for k in SPEED_FIELDS):
            no_pred[c["id"]] = "the JSON result has no %s" % ", ".join(k for k in SPEED_FIELDS if k not in res)
        dec_ms, dec_src = measured_decode_ms(c)
        pred_dec = (res.get("closed_loop") or {}).get("tpot_seconds", res.get("decode_step_seconds"))
        pred_dec = pred_dec * 1000.0 if pred_dec is not None else None
        per_user = measured_per_user(c, dec_ms)
        pp, _ = pp512.plan_of(kvplan, c)
        pred_prefill = (pp or {}).get("prefill_tokens_per_s") if pp else res.get("prefill_tokens_per_s")
        pred_ttft = res.get("ttft_seconds")
        pred_ttft = pred_ttft * 1000.0 if pred_ttft is not None else None
        moe_model = (model.get("active_params") or model["params"]) < model["params"]
        arch = family(gpu, c["gpu"])
        row = dict(gpu=gpu, c=c, arch=arch, moe=moe_model, fam=arch + (", MoE" if moe_model else ""), args=base_args(c, loop=True) + speed_args(c, loop=True),
                   dec_ms=dec_ms, dec_src=dec_src, pred_dec=pred_dec, err_dec=pct(pred_dec, dec_ms),
                   per_user=per_user, pred_user=res.get("tokens_per_s_per_user"),
                   total=c.get("tokens_per_s_total"), pred_total=res.get("tokens_per_s_total"),
                   ttft=c.get("ttft_ms"), pred_ttft=pred_ttft,
                   prefill=c.get("prefill_tokens_per_s"), pred_prefill=pred_prefill,
                   binding=res.get("binding_limit"),
                   kv_dtype=facts.get("kv_dtype"), **implied_fractions(c, facts, gpu, model, ref, dec_ms, moes.get(model["name"])))
        step = res.get("decode_step_seconds")
        row["err_step"] = pct(step * 1000.0 if step is not None else None, dec_ms)
        row["err_user"] = pct(row["pred_user"], per_user)
        row["err_total"] = pct(row["pred_total"], row["total"])
        row["err_ttft"] = pct(pred_ttft, row["ttft"])
        row["err_prefill"] = pct(row["pred_prefill"], row["prefill"])
        row["sim"] = speed_sim.run_case(kvplan, c, args)
        rows.append(row)
        if c["complete"] and dec_ms is not None:
            if row["err_dec"] is None:
                na.append(c["id"])
            elif abs(row["err_dec"]) <= 100.0 * tol:
                passed.append(c["id"])
            else:
                failed.append(c["id"])

    # the binary lacks a speed model only when no case got a prediction; one case kvplan
    # refuses (its own options) is that case's matter, listed in the report
    reasons = set(no_pred.values())
    lacking = reasons.pop() if rows and len(no_pred) == len(rows) and len(reasons) == 1 else None
    note = ""
    if na:
        note = " (%d n/a: %s)" % (len(na), "kvplan gives no speed prediction yet" if lacking else "no prediction")
    line = "speed: %d passed, %d failed%s" % (len(passed), len(failed), note)
    if check:
        for i in failed:
            r = next(r for r in rows if r["c"]["id"] == i)
            print("FAIL: %s: decode %.2f ms predicted vs %.2f ms measured (%+.1f%%, tolerance %.0f%%)" %
                  (i, r["pred_dec"], r["dec_ms"], r["err_dec"], 100 * tol))
        print(line)
        print(speed_sim.line(speed_sim.tallies(rows, tol)))
        held = [speed_gate.check_cases(gate, rows) if gate else True, speed_sim.check_gate(sim_gate, rows) if sim_gate else True,
                speed_gate.check(share, rows) if share and "--gate" in argv else True]
        if not all(held):
            return 1
        if len(passed) < min_passed:
            print("validate_speed: %d cases pass, fewer than --min-passed %d" % (len(passed), min_passed),
                  file=sys.stderr)
            return 1
        return 1 if strict and (failed or na) else 0

    text = render(rows, tol, (lacking, no_pred, share), line, os.path.relpath(data, REPO) if data.startswith(REPO) else data)
    with open(out_path + ".tmp", "w") as f:
        f.write(text)
    os.replace(out_path + ".tmp", out_path)
    print("wrote %s (%d cases, %d complete); %s" % (out_path, len(rows), sum(r["c"]["complete"] for r in rows), line))
    return 1 if strict and (failed or na) else 0


def spread_cells(errors):
    """Median, median of the absolute error, min to max and the middle half of a list of % errors."""
    e = sorted(errors)
    half = statistics.quantiles(e, n=4, method="inclusive") if len(e) > 1 else [e[0], e[0], e[0]]
    return ["%+.1f%%" % statistics.median(e), "%.1f%%" % statistics.median(abs(x) for x in e),
            "%+.1f%% to %+.1f%%" % (e[0], e[-1]), "%+.1f%% to %+.1f%%" % (half[0], half[2])]


def error_summary(rows, tol):
    """The decode errors of the complete, predicted cases by GPU family and by engine."""
    done = [r for r in rows if r["c"]["complete"] and r["err_dec"] is not None]
    L = ["", "## Decode error by GPU family and by engine", "",
         "Complete cases with a prediction; error = (kvplan - measured) / measured of the time per output token. "
         "`within` counts the cases within the %.0f%% tolerance; spread is the smallest to the largest error, the middle "
         "half the 25th to the 75th percentile. Families are the GPU presets' `family` (doc/FORMATS.md), "
         "as kvplan keeps its speed bands (doc/SPEED-BANDS.md). `MoE` counts the mixture-of-experts cases among them and `dense median` is "
         "the median error of the others: most of the large errors are MoE (see the warning below)." % (100 * tol), ""]
    for title, key in (("GPU family", "arch"), ("engine", None)):
        L += ["| %s | cases | MoE | within %.0f%% | median error | median abs error | spread | middle half | dense median |"
              % (title, 100 * tol), "|---|---|---|---|---|---|---|---|---|"]
        groups = {}
        for r in done:
            groups.setdefault(r[key] if key else r["c"]["engine"], []).append(r)
        for name in sorted(groups):
            rs = groups[name]
            dense = [r["err_dec"] for r in rs if not r["moe"]]
            L.append("| %s | %d | %d | %d | %s | %s |" % (
                name, len(rs), sum(r["moe"] for r in rs), sum(abs(r["err_dec"]) <= 100.0 * tol for r in rs),
                " | ".join(spread_cells([r["err_dec"] for r in rs])),
                "%+.1f%%" % statistics.median(dense) if dense else "n/a"))
        L.append("")
    return L[:-1]


def misses(rows, tol):
    """Each complete case outside the tolerance, worst first, with the reason its
    `miss_reason` records (or that none is recorded)."""
    out = [r for r in rows if r["c"]["complete"] and r["err_dec"] is not None and abs(r["err_dec"]) > 100.0 * tol]
    L = ["## Cases outside the tolerance", "",
         "Every complete case more than %.0f%% off, the furthest first, and what the data record as the reason "
         "(`miss_reason`). A case more than 2x off carries a warning on its plan that says why "
         "(tests/hardening/t_speed_warnings.py holds that)." % (100 * tol), "",
         "| case | measured ms | kvplan ms | error | simulated error | reason |", "|---|---|---|---|---|---|"]
    for r in sorted(out, key=lambda r: -abs(math.log(r["pred_dec"] / r["dec_ms"]))):
        L.append("| %s | %.2f | %.2f | %+.1f%% | %s | %s |" % (
            r["c"]["id"], r["dec_ms"], r["pred_dec"], r["err_dec"], speed_sim.miss_cell(r),
            r["c"].get("miss_reason") or "no reason recorded"))
    return L + [""]


def render(rows, tol, predictions, line, data_name):
    lacking, no_pred, share = predictions
    L = ["# Speed validation against public measurements", "",
         "Generated by `tools/validate_speed.py` from `%s` (each case with its public source, "
         "format in doc/FORMATS.md). For every case: what the source measured, what kvplan predicts for "
         "the same configuration (`kvplan plan ... --concurrency C --prompt P --format json`), and the error "
         "(kvplan - measured) / measured. A complete case passes when its decode error is within %.0f%%." %
         (data_name, 100 * tol), "",
         "Result: **%s**; %s." % (line, speed_sim.line(speed_sim.tallies(rows, tol))), ""] + speed_gate.render(rows, tol, share)
    if lacking:
        L += ["The binary used gives no speed prediction yet (%s), so every prediction reads n/a; "
              "the measured side and the implied fractions below do not depend on it." % lacking.replace("\n", " "), ""]
    elif no_pred:
        L += ["kvplan gave no prediction for %d case%s: %s." % (len(no_pred), "" if len(no_pred) == 1 else "s", "; ".join(
            "`%s` (%s)" % (i, why.replace("\n", " ")) for i, why in no_pred.items())), ""]
    L += ["## Decode: time per output token", "",
          "Measured decode is the source's TPOT or ITL where it gives one; otherwise 1 / per-user tokens/s "
          "(llama-bench tg), or end-to-end latency / output tokens (an upper bound, vLLM's latency test), or "
          "concurrency / total output tokens/s (a lower bound on speed: it includes prefill time). "
          "Cases marked `no` are incomplete (reason at the end) and do not count.", "",
          "| case | complete | GPU | model | weights/KV | in/out | C | measured ms/token | from | kvplan ms | error | binds |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        c = r["c"]
        L.append("| %s | %s | %d x %s (TP %d%s) | %s | %s/%s | %d/%d | %d | %s | %s | %s | %s | %s |" % (
            c["id"], "yes" if c["complete"] else "no", c["gpus"], c["gpu"], c["tp"],
            ", EP %d" % c["ep"] if c.get("ep", 1) > 1 else "", c["model"], c["weight_dtype"],
            c.get("kv_dtype") or ("%s?" % r["kv_dtype"]), c["input_tokens"], c["output_tokens"], c["concurrency"] or 0,
            fmt(r["dec_ms"]), r["dec_src"] or "", fmt(r["pred_dec"]), fpct(r["err_dec"]), r["binding"] or "n/a"))
    L += ["", "`KV?` = the source does not state the cache precision; kvplan's default (shown) was used.", "",
          "## Throughput and time to first token", "",
          "| case | tok/s/user measured | kvplan | error | total tok/s measured | kvplan | error | TTFT ms measured | kvplan | error | prefill tok/s measured | kvplan | error |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["c"]["id"], fmt(r["per_user"], "%.1f"), fmt(r["pred_user"], "%.1f"), fpct(r["err_user"]),
            fmt(r["total"], "%.0f"), fmt(r["pred_total"], "%.0f"), fpct(r["err_total"]),
            fmt(r["ttft"], "%.1f"), fmt(r["pred_ttft"], "%.1f"), fpct(r["err_ttft"]),
            fmt(r["prefill"], "%.0f"), fmt(r["pred_prefill"], "%.0f"), fpct(r["err_prefill"])))
    L += ["", "Measured tok/s/user is the source's figure or 1000 / measured ms per token. kvplan's static TTFT "
          "is the prompt's prefill, the engine's per-request term and, above 1 user, half their decode "
          "step (the step in progress on arrival); a measured TTFT at concurrency above 1 also holds the "
          "queue behind other prompts and their prefill, which only the simulated run below follows. "
          "A llama-bench case's "
          "kvplan prefill tok/s is its rate for llama-bench's pp512, one 512-token prompt alone; on Apple "
          "silicon it rests on the preset's measured_fp16_tflops (fitted on one chip a generation, the "
          "other chips and every Q4_0 case held out: doc/SPEED-FIT-APPLE.md).", "",
          ] + speed_sim.render(rows, tol) + fit_ttft.section(ttft_items(rows), tol, "complete simulated "
                                                             "serving benchmarks of the engines kvplan simulates") + [
          "## What the measurements imply: bandwidth and compute fractions", "",
          "Independent of kvplan's speed model. Per GPU and decode step: bytes read = weights on the GPU (kvplan's "
          "`weights_bytes_per_gpu` for the case's precision) + C x average context (input + output/2) x KV bytes per "
          "token per GPU (kvplan's `kv_bytes_per_token_per_gpu`); MBU = bytes / (measured time per token x the preset's "
          "`bandwidth_bytes_per_s`). FLOPs per step = (2 x active params x C + 4 x layers x heads x head_dim x context x C) / TP; "
          "MFU = FLOPs / (time per token x dense peak from `../shared/reference/gpus.json`: FP8 for fp8 weights, else BF16/FP16). "
          "Prefill MFU uses (2 x active params x P + 2 x layers x heads x head_dim x P^2) / TP over the time to first token at "
          "one user, or over 512 / the prefill rate for llama-bench pp512. MoE: the weights read are the non-expert part plus "
          "the expected distinct routed experts of C users, E x (1 - (1 - k/E)^C) per layer (E, k from "
          "`../shared/reference/models.json`), the expert size recovered from params and active params; the share of the "
          "weights this is appears as `MoE read`. Expert parallelism and attention data parallelism are not modelled.", "",
          "`floor` is the time per token at 100% of the preset's bandwidth; measured minus floor is what a fraction alone "
          "must absorb (launch gaps, all-reduces, routing).", "",
          "| case | family | bytes/step/GPU | KV share | MoE read | floor ms | measured ms | MBU | MFU (decode) | MFU (prefill) | peak TFLOPS |",
          "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        L.append("| %s | %s | %.2f GB | %.0f%% | %s | %s | %s | %s | %s | %s | %s |" % (
            r["c"]["id"], r["fam"], r["step_bytes_per_gpu"] / 1e9, 100 * r["kv_share"],
            "" if r["moe_fraction"] is None else "%.0f%%" % (100 * r["moe_fraction"]),
            fmt(r["floor_ms"]), fmt(r["dec_ms"]),
            fmt(r["mbu"] and 100 * r["mbu"], "%.0f%%"), fmt(r["mfu"] and 100 * r["mfu"], "%.1f%%"),
            fmt(r["prefill_mfu"] and 100 * r["prefill_mfu"], "%.0f%%"), fmt(r["peak_tflops"], "%.0f")))
    L += ["", "## Per GPU family", "",
          "Complete cases only (and, for MBU, only measurements that are a real decode time: not derived from total "
          "throughput). Spread is min to max; the count of cases is in brackets. The vLLM latency cases (H200 from vLLM's CI, "
          "MI300X from AMD's results page) give an upper bound on the time per token (it includes prefill), so their MBU "
          "is a lower bound.", "",
          "| family | cases | engines | decode error median | error spread | MBU median | MBU spread | MBU at 1 user | MBU above 1 user | decode MFU median | prefill MFU median |",
          "|---|---|---|---|---|---|---|---|---|---|---|"]
    fams = sorted({r["fam"] for r in rows})
    for fam in fams:
        rs = [r for r in rows if r["fam"] == fam and r["c"]["complete"]]
        if not rs:
            continue
        e_med, e_spread, _ = summary([r["err_dec"] for r in rs])
        m_med, m_spread, _ = summary([r["mbu"] for r in rs if r["dec_src"] and not r["dec_src"].startswith("C/")])
        f_med, _, _ = summary([r["mfu"] for r in rs])
        p_med, _, _ = summary([r["prefill_mfu"] for r in rs])
        real = [r for r in rs if r["dec_src"] and not r["dec_src"].startswith("C/")]
        one, _, n1 = summary([r["mbu"] for r in real if r["c"]["concurrency"] == 1])
        many, _, n2 = summary([r["mbu"] for r in real if (r["c"]["concurrency"] or 0) > 1])
        L.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            fam, len(rs), ", ".join(sorted({r["c"]["engine"] for r in rs})), fpct(e_med if e_med != "n/a" else None),
            "n/a" if e_spread == "n/a" else "%+.1f%% to %+.1f%%" % e_spread,
            "n/a" if m_med == "n/a" else "%.0f%%" % (100 * m_med),
            "n/a" if m_spread == "n/a" else "%.0f%% to %.0f%%" % (100 * m_spread[0], 100 * m_spread[1]),
            "n/a" if one == "n/a" else "%.0f%% (%d)" % (100 * one, n1),
            "n/a" if many == "n/a" else "%.0f%% (%d)" % (100 * many, n2),
            "n/a" if f_med == "n/a" else "%.1f%%" % (100 * f_med),
            "n/a" if p_med == "n/a" else "%.0f%%" % (100 * p_med)))
    L += error_summary(rows, tol)
    L += ["", "## The fractions kvplan uses", "",
          "kvplan's decode model has one achievable bandwidth fraction (MBU) per GPU family, kept in the GPU "
          "preset as `achievable_mbu` with its basis, and %.2f for families without measurements (`--mbu` overrides "
          "both). Each family's value is the one that puts the most of its complete dense cases within the tolerance "
          "(a scan of candidate values; Hopper's fitted with its all-reduce hop, doc/SPEED-FIT-ALLREDUCE.md), not a "
          "median: the medians above mix batch-1 runs with saturated ones and MoE. "
          "Apple silicon's is fitted with a time a layer instead (tools/fit_apple.py, doc/SPEED-FIT-APPLE.md). "
          "Compute (MFU, prefill) stays at %.2f: the prefill medians above are too few and too spread to "
          "split by family; Apple silicon, with no vendor peak, computes at its measured prefill rate in full."
          % (DEFAULT_MBU, DEFAULT_MFU), "",
          "| GPU preset | achievable_mbu | basis |", "|---|---|---|"]
    for gid, g in sorted({r["c"]["gpu"]: r["gpu"] for r in rows}.items()):
        L.append("| %s | %s | %s |" % (gid, "%.2f" % g["achievable_mbu"] if g.get("achievable_mbu") else
                                       "default %.2f" % DEFAULT_MBU, g.get("achievable_mbu_basis", "")))
    L += ["", "Fine-grained MoE (more than 16 routed experts): a step adds a fixed time for each such layer "
          "(routing, top-k, the grouped GEMM over small expert slices) and every step a fixed overhead, both "
          "fitted by tools/fit_speed.py (doc/SPEED-FIT.md, each case's error, fitted and held out). The "
          "DeepSeek-R1 cases of early-2025 engine builds (vLLM 0.7, SGLang 0.4, TensorRT-LLM 0.17) stay far "
          "off: 2026 builds of the same engines decode it 2 to 6 times faster, and the fit leaves them out. "
          "kvplan warns on such plans (\"fine-grained MoE: its speed rests on a fit ...\"), naming the "
          "early builds. Mixtral (8 experts) takes no MoE term.", ""]
    L += ["", "## Where the model is expected to be weak", "",
          "- **Small batches on large GPUs.** At one to a few users a step reads the weights once and does almost no "
          "arithmetic, so the time is bytes over bandwidth, but real engines reach only part of the peak at batch 1: "
          "kernel launch gaps, sampling, the CPU scheduler between steps, and for TP the all-reduce latency (two per layer) "
          "that does not shrink with the batch. The implied MBU at batch 1 is the number to calibrate, per family; a "
          "single default across consumer cards (llama.cpp) and TP-sharded datacenter parts will miss one of them.",
          "- **MoE at small batches.** DeepSeek-R1 on 8 GPUs decodes 4-8 users in 25-56 ms per token although the "
          "experts those users touch (14-24% of the weights) take 3-5 ms to read at full bandwidth: the implied MBU is "
          "5-15%, against 38-60% for dense models on the same GPUs. Routing, expert GEMMs at tiny per-expert batches, "
          "MLA and the per-layer collectives dominate. A bandwidth fraction fitted to dense models will be several times "
          "too optimistic here; a per-step fixed time (per layer) or a separate MoE fraction is needed, hence the "
          "separate `MoE` rows per family.",
          "- **Wide tensor parallelism.** Llama 3.1 405B on 8 GPUs implies 22-44% of bandwidth where one or two GPUs "
          "reach 50-80%: each GPU reads only 50-100 GB per step, so the two all-reduces per layer (126 layers) and launch "
          "gaps are a large share of a 30-50 ms step. The all-reduce's latency grows with the ring (2 (p - 1) hops): "
          "Hopper's hop, fitted with its MBU at TP 1, 2 and 8, holds its TP 2, 4 and 8 cases within 6% "
          "(doc/SPEED-FIT-ALLREDUCE.md); CDNA 3, all at TP 8, keeps a flat 8 us.",
          "- **Software, not silicon.** The same 8 x MI300X run 405B at 33 ms per token with AMD's FP8 checkpoint and at "
          "136 ms with Meta's in eager mode (kept as an incomplete case); H200 runs DeepSeek-R1 at 26 ms with vLLM and 55 ms "
          "with TensorRT-LLM (EP 4). Per-engine defaults may be needed as much as per-family ones.",
          "- **Kernel paths that change with the batch.** llama.cpp on V100 decodes 2 sequences slower than 1 in the "
          "batched-bench case: a kernel switch, not bandwidth. A bytes-over-bandwidth model cannot see that; kvplan "
          "warns when llama.cpp decodes more than one sequence on a Volta GPU (\"several sequences decoding at once "
          "on this GPU family ...\").",
          "- **Other users' prefills in TPOT.** A serving benchmark at a fixed concurrency starts a new request "
          "whenever one ends, so each request's TPOT includes the prefill steps of the others' prompts. With "
          "8,192-token prompts kvplan's step falls 11-49% short of most InferenceX rows on MI300X, MI325X and "
          "MI355X (SGLang there prefills a whole prompt in one step: --chunked-prefill-size 131072) and 24-25% "
          "short on B200 at 16 and 64 users; kvplan's static decode is the step alone; `kvplan simulate` runs the benchmark "
          "with the prefills in its steps (\"Serving benchmarks: the simulated run\" above), and its TPOT "
          "and first token rest on kvplan's prefill time, up to 9 times too short for DeepSeek-R1 (doc/SPEED-BANDS.md).",
          "- **Engine builds.** The same MI300X and MI325X decode DeepSeek-R1 at 4-8 users in 25-27 ms with "
          "SGLang v0.5.9 (1,024 in, 8,192 out) and in 14-17 ms with v0.5.12 (1,024 in, 1,024 out); kvplan plans "
          "no engine version, so the older build stays 27-47% off.",
          "- **Prefill at short prompts.** A 32- or 50-token prompt takes a few milliseconds of arithmetic but is "
          "dominated by reading the weights once and fixed overheads; a FLOPs-over-peak prefill time will be far too "
          "small there. At long prompts (5,000 tokens) prefill is compute-bound and the FLOPs model is on firmer ground.",
          "- **Saturation and queueing.** Measured TTFT at high concurrency includes time waiting for a batch slot "
          "(NIM at 100 users: 8 s); kvplan's static TTFT adds only the wait for one decode step in progress, not that queue: the simulated run is the comparison there.",
          "- **Unstated KV precision.** Where the source does not state it, kvplan's default cache precision is used; "
          "at high concurrency that alone moves the prediction by more than the tolerance, which is why those cases are "
          "marked incomplete.", ""]
    L += misses(rows, tol) + ["## Incomplete cases", ""]
    for r in rows:
        if not r["c"]["complete"]:
            L.append("- `%s`: %s." % (r["c"]["id"], r["c"]["why_incomplete"]))
    L += ["", "## Sources", ""]
    seen = []
    for r in rows:
        c = r["c"]
        if c["url"] in seen:
            continue
        seen.append(c["url"])
        L.append("- %s, %s (%s): %s" % (c["source"], c["date"], c["engine"] + " " + c["engine_version"], c["url"]))
    L += ["", "## Cases in detail", ""]
    for r in rows:
        c = r["c"]
        L += ["### %s" % c["id"], "",
              "%s. %s in the source: %s on %s." % (c["source"], c["engine"], c["model_in_source"], c["gpu_in_source"]),
              "", "> " + c["quote"], "",
              "kvplan: `kvplan plan %s`" % " ".join(r["args"]), ""]
        if r["sim"]:
            L += ["Simulated: `kvplan simulate %s`" % " ".join(r["sim"]["args"]), ""]
        if c.get("derived"):
            L += ["Derived: " + c["derived"] + ".", ""]
        if c.get("notes"):
            L += ["Note: " + c["notes"], ""]
    return "\n".join(L) + "\n"


if __name__ == "__main__":
    sys.exit(main())
