#!/usr/bin/python3
"""fit_apple: Apple silicon's prefill compute and decode terms, from llama-bench.

Apple publishes no TFLOPS for its GPUs, so kvplan's first-token time on a Mac
rests on a measured rate instead (the GPU preset's `measured_fp16_tflops`,
used in full, no MFU below it: src/core/speed.c compute_dtype). This derives
it from the llama.cpp cases of tests/data/speed-measurements.json whose id
starts `llamacpp-4167-` (ggml-org/llama.cpp discussion #4167: every chip on
one build, 8e672ef):

- a prompt of 512 tokens costs F = 2 x params x 512 + attention (4 x heads x
  head_dim a layer and attended token, over 512 x 513 / 2 attended pairs),
  kvplan's own count (src/core/steptime.c attended_sum); llama.cpp adds no step
  overhead (policy_llamacpp.c), so the rate a chip reaches is F x pp512 / 512;
- the F16 rate of one FIT chip per generation, over its GPU cores, is that
  generation's rate a core (a single die; the Ultra, two dies joined, has its
  own, from the M2 Ultra); every preset is that rate x its cores, the clock
  taken as the fit chip's (Apple publishes no GPU clocks: the measured chips
  of one generation agree within a few percent a core, doc/SPEED-FIT-APPLE.md);
- the other chips' measurements are held out and only checked, and every Q4_0
  case too (kvplan computes Q4_0 weights at the 16-bit rate: the check is how
  far dequantisation slows Metal's prefill).

Decode (tg128, batch 1) on Metal is not the weights' read alone: the Q4_0
cases, a quarter of the F16 bytes, take a fixed few milliseconds more than the
bandwidth gives (4 to 5 ms on every chip for Llama 2 7B's 32 layers). The
family's achievable MBU and a time each layer adds to a step (its kernels'
dispatch, the presets' `layer_overhead_seconds`) are fitted together over a
grid on every complete Apple silicon decode case, minimising the squared log
error of the fitted ones, one case in three held out by tools/fit_speed.py's
hash; the step's bytes come from the binary (`plan --format json`,
step_memory_seconds x the preset's MBU).

With --write it rewrites the presets' fields and doc/SPEED-FIT-APPLE.md; with
--check it writes nothing and exits 1 when a preset or the page differs
(`make cli-test`). Without either it prints the page.

Usage: fit_apple.py KVPLAN DATA.json [--write | --check]
"""
import collections
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fit_speed as fs  # noqa: E402
import pp512  # noqa: E402
import validate_speed as vs  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRESETS = os.path.join(REPO, "presets")
DOC = os.path.join(REPO, "doc", "SPEED-FIT-APPLE.md")
PREFIX = "llamacpp-4167-"
URL = "ggml-org/llama.cpp discussion #4167, build 8e672ef"
PP = 512

# The chip each generation's rate a core is fitted on; the Ultra's apart.
FIT = {"M2": "m2max-30c", "M2 Ultra": "m2ultra-76c", "M3": "m3pro-18c", "M4": "m4max-40c"}
# Every Apple preset: generation, GPU cores, Ultra (two dies), the bin taken
# where a chip comes in more than one, and its measured case where there is one.
APPLE = [
    ("apple-m2-8gb", "M2", 10, False, "the 10-core GPU (the 8-core bin: x 8/10)", "m2-10c"),
    ("apple-m2-16gb", "M2", 10, False, "the 10-core GPU (the 8-core bin: x 8/10)", "m2-10c"),
    ("apple-m2-24gb", "M2", 10, False, "the 10-core GPU", "m2-10c"),
    ("apple-m2-pro", "M2", 16, False, "", "m2pro-16c"),
    ("apple-m2-max", "M2", 30, False, "", "m2max-30c"),
    ("apple-m2-ultra", "M2", 60, True, "the 60-core GPU (apple-m2u-76c: the 76-core)", "m2ultra-60c"),
    ("apple-m2u-76c", "M2", 76, True, "", "m2ultra-76c"),
    ("apple-m3-8gb", "M3", 10, False, "the 10-core GPU (the 8-core bin: x 8/10)", None),
    ("apple-m3-16gb", "M3", 10, False, "the 10-core GPU (the 8-core bin: x 8/10)", None),
    ("apple-m3-24gb", "M3", 10, False, "the 10-core GPU (the 8-core bin: x 8/10)", None),
    ("apple-m3pro-18gb", "M3", 18, False, "the 18-core GPU (the 14-core bin: x 14/18)", "m3pro-18c"),
    ("apple-m3pro-36gb", "M3", 18, False, "", "m3pro-18c"),
    ("apple-m3max-36gb", "M3", 30, False, "", None),
    ("apple-m3-max", "M3", 40, False, "", None),
    ("apple-m3u-256gb", "M3", 60, True, "the 60-core GPU (the 80-core: x 80/60)", None),
    ("apple-m3-ultra", "M3", 80, True, "", None),
    ("apple-m4-16gb", "M4", 10, False, "the 10-core GPU (the 8-core bin: x 8/10)", "m4-10c"),
    ("apple-m4-24gb", "M4", 10, False, "the 10-core GPU", "m4-10c"),
    ("apple-m4-32gb", "M4", 10, False, "the 10-core GPU", "m4-10c"),
    ("apple-m4pro-24gb", "M4", 16, False, "the 16-core GPU (the 20-core bin: x 20/16)", None),
    ("apple-m4pro-48gb", "M4", 20, False, "the 20-core GPU (the 16-core bin: x 16/20)", "m4pro-20c"),
    ("apple-m4-pro", "M4", 20, False, "", "m4pro-20c"),
    ("apple-m4max-36gb", "M4", 32, False, "", None),
    ("apple-m4-max", "M4", 40, False, "", "m4max-40c"),
]


def load(path):
    return json.load(open(path), object_pairs_hook=collections.OrderedDict)


def prompt_flops(model):
    """kvplan's count for one 512-token prompt alone (dense model, MHA or GQA)."""
    gemm = 2.0 * model["params"] * PP
    attn = 4.0 * model["num_attention_heads"] * model["head_dim"] * model["num_layers"]
    return gemm + attn * PP * (PP + 1) / 2.0


def cases(data):
    out = {}
    for c in load(data)["measurements"]:
        if c["id"].startswith(PREFIX) and c.get("prefill_tokens_per_s"):
            tag, dt = c["id"][len(PREFIX):].split("-llama2-7b-")[0], c["weight_dtype"]
            cores = int(c["gpu_in_source"].split(", ")[1].split("-core")[0])
            out[(tag, dt)] = dict(c=c, cores=cores, chip=c["gpu_in_source"].split(",")[0])
    return out


def rates(data, layer):
    """The fit: TFLOPS a GPU core by generation (and the M2 Ultra's), with their cases. The
    prompt's time less its layers' dispatch (layer seconds each) is the compute's."""
    model = load(os.path.join(PRESETS, "models", "llama-2-7b.json"))
    flops = prompt_flops(model)
    cs = cases(data)
    for k in cs:
        seconds = PP / cs[k]["c"]["prefill_tokens_per_s"] - model["num_layers"] * layer
        cs[k]["tflops"] = flops / seconds / 1e12
    per = {g: cs[(tag, "fp16")]["tflops"] / cs[(tag, "fp16")]["cores"] for g, tag in FIT.items()}
    per["ultra"] = per["M2 Ultra"] / per["M2"]  # two dies against one, measured on M2
    return flops, cs, per


def per_core(per, gen, ultra):
    if not ultra:
        return per[gen]
    return per[gen + " Ultra"] if gen + " Ultra" in per else per[gen] * per["ultra"]


def figure(per, gen, cores, ultra):
    return round(per_core(per, gen, ultra) * cores, 3)


def basis(flops, cs, per, row):
    pid, gen, cores, ultra, binw, tag = row
    fit = FIT[gen + " Ultra"] if ultra and gen + " Ultra" in FIT else FIT[gen]
    f = cs[(fit, "fp16")]
    src = "llama.cpp pp512 of Llama 2 7B F16 on the %s %d-core GPU, %.2f tok/s (%s)" % (
        f["chip"], f["cores"], f["c"]["prefill_tokens_per_s"], URL)
    rate = per_core(per, gen, ultra)
    if tag == fit:
        return ("derived from measurement, not an Apple figure (Apple publishes none): %s = "
                "%.2f TFLOP a prompt (2 x %.2f B params x 512 + attention) over 512 / %.2f s "
                "less 32 layers' dispatch = %.2f TFLOPS, %.4f a GPU core; tools/fit_apple.py" % (
                    src, flops / 1e12, 6.738415616, f["c"]["prefill_tokens_per_s"], f["tflops"],
                    rate))
    dies = ""
    if ultra and gen + " Ultra" not in FIT:
        dies = " x %.3f, the M2 Ultra's rate a core over the M2 Max's (two dies)" % per["ultra"]
    head = ("scaled from a measurement, not an Apple figure" if tag else
            "scaled, no measurement of this chip, not an Apple figure")
    text = ("%s: %.4f TFLOPS a GPU core (%s) x %d cores%s%s, the clock taken as the %s's "
            "(Apple publishes none)" % (head, per[gen] if dies else rate, src, cores, dies,
                                        " (%s)" % binw if binw else "", f["chip"]))
    if tag:
        own = cs[(tag, "fp16")]
        err = 100.0 * (figure(per, gen, cores, ultra) / (own["tflops"] * cores / own["cores"]) - 1)
        text += "; this chip's own pp512 (%.2f tok/s) is held out and checks it: %+.1f%%" % (
            own["c"]["prefill_tokens_per_s"], err)
    return text


def page(kvplan, flops, cs, per):
    L = ["# Apple silicon prefill: the fit", "",
         "Generated by `tools/fit_apple.py build/kvplan tests/data/speed-measurements.json --write`; "
         "the rule is in doc/MODEL.md (\"Apple silicon's compute\"). Apple publishes no TFLOPS for "
         "its GPUs: each Apple preset's `measured_fp16_tflops` is the FP16 matrix rate llama.cpp's "
         "Metal prefill reaches, from llama-bench pp512 on Llama 2 7B (%s), %.3f TFLOP a prompt "
         "as kvplan counts it. One chip a generation is fitted; the others are held out." % (
             URL, flops / 1e12), "",
         "| case | chip | GPU cores | dtype | pp512 tok/s | TFLOPS reached | a core | role | "
         "kvplan tok/s | error |", "|---|---|---|---|---|---|---|---|---|---|"]
    for (tag, dt), c in sorted(cs.items(), key=lambda kv: (kv[1]["c"]["id"])):
        gen = c["chip"].split()[0]
        ultra = "Ultra" in c["chip"]
        pp, err = pp512.plan_of(kvplan, c["c"])
        if pp is None or not pp.get("prefill_tokens_per_s"):
            raise SystemExit("%s: kvplan gives no pp512 rate: %s" % (c["c"]["id"], err))
        pred = pp["prefill_tokens_per_s"]
        role = "fit" if FIT.get(gen + (" Ultra" if ultra else "")) == tag and dt == "fp16" \
            else "held out"
        L.append("| %s | %s | %d | %s | %.2f | %.2f | %.4f | %s | %.1f | %+.1f%% |" % (
            c["c"]["id"], c["chip"], c["cores"], dt, c["c"]["prefill_tokens_per_s"], c["tflops"],
            c["tflops"] / c["cores"], role, pred, 100.0 * (pred / c["c"]["prefill_tokens_per_s"] - 1)))
    L += ["", "Error: kvplan's pp512 rate (`plan --prompt 512`: the preset's figure, compute binding at "
          "512 tokens on every chip, and each layer's dispatch) against the measured one. Q4_0 weights are computed at the 16-bit rate, as "
          "on every GPU (src/core/speed.c compute_dtype): Metal dequantises them in its matrix "
          "kernels, and the Q4_0 rows show what that costs on each generation.", "",
          "| preset | generation | GPU cores | measured_fp16_tflops | basis |", "|---|---|---|---|---|"]
    for row in APPLE:
        L.append("| %s | %s | %d%s | %.3f | %s |" % (
            row[0], row[1], row[2], " (Ultra)" if row[3] else "", figure(per, row[1], row[2], row[3]),
            "measured" if row[5] and row[5] == (FIT[row[1] + " Ultra"] if row[3] and row[1] + " Ultra"
                                                in FIT else FIT[row[1]])
            else "scaled, held-out check" if row[5] else "scaled"))
    return "\n".join(L) + "\n"


MBU_GRID = [x / 100.0 for x in range(50, 101)]
LAYER_GRID = [x * 2e-6 for x in range(0, 151)]  # 0 to 300 us a layer
FAMILY = "Apple silicon"


def decode_cases(kvplan, data):
    """Every complete Apple silicon decode case: (case, measured s, bytes s at MBU 1, compute s,
    layers a token passes, held out)."""
    out = []
    for c in load(data)["measurements"]:
        if not c.get("complete") or not c["gpu"].startswith("apple-"):
            continue
        measured, _ = vs.measured_decode_ms(c)
        r, err = vs.plan(kvplan, vs.base_args(c) + vs.speed_args(c))
        if measured is None or r is None:
            continue
        mbu = vs.show(kvplan, "gpu", c["gpu"])["achievable_mbu"]
        out.append((c, measured / 1000.0, r["step_memory_seconds"] * mbu,
                    r["step_compute_seconds"] or 0, r["step_layers"] * max(r["stages"], 1),
                    fs.held_out(c["id"])))
    return out


def decode_predict(row, mbu, layer):
    _, _, mem1, comp, layers, _ = row
    return max(mem1 / mbu, comp) + layers * layer


def decode_fit(rows):
    best = None
    for m in MBU_GRID:
        for t in LAYER_GRID:
            loss = sum(math.log(decode_predict(r, m, t) / r[1]) ** 2 for r in rows if not r[5])
            if best is None or loss < best[0] - 1e-12:
                best = (loss, m, round(t, 7))
    return best[1], best[2]


def decode_page(rows, mbu, layer):
    fit = [r for r in rows if not r[5]]
    L = ["", "## Decode: MBU and each layer's time", "",
         "Every complete Apple silicon decode case (llama-bench tg128, one user): kvplan's step is "
         "the bytes over bandwidth x MBU, plus the layers a token passes x the time each adds. "
         "Fitted on %d cases, %d held out: MBU %.2f, %.0f us a layer (%.2f ms a token for "
         "Llama 2 7B's 32 layers)." % (len(fit), len(rows) - len(fit), mbu, layer * 1e6,
                                       32 * layer * 1e3), "",
         "| case | GPU | dtype | measured ms | bytes at MBU 1, ms | kvplan ms | error | set |",
         "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        p = decode_predict(r, mbu, layer)
        L.append("| %s | %s | %s | %.2f | %.2f | %.2f | %+.1f%% | %s |" % (
            r[0]["id"], r[0]["gpu"], r[0]["weight_dtype"], r[1] * 1e3, r[2] * 1e3, p * 1e3,
            100.0 * (p / r[1] - 1), "held out" if r[5] else "fit"))
    within = sum(1 for r in rows if abs(decode_predict(r, mbu, layer) / r[1] - 1) <= 0.2)
    L += ["", "%d of %d within 20%%." % (within, len(rows))]
    return L, within


def decode_fields(rows, mbu, layer, within):
    return {"achievable_mbu": mbu,
            "achievable_mbu_basis": "%s: fitted with %.0f us a layer to %d llama.cpp decode "
                                    "measurements, M2 to M4 (%d held out), doc/SPEED-FIT-APPLE.md"
                                    % (FAMILY, layer * 1e6, len(rows),
                                       sum(1 for r in rows if r[5])),
            "layer_overhead_seconds": layer,
            "layer_overhead_basis": "%s under llama.cpp: fitted with MBU %.2f on %d llama-bench "
                                    "tg128 cases (%d of them within 20%%), doc/SPEED-FIT-APPLE.md"
                                    % (FAMILY, mbu, len(rows), within)}


def main():
    argv = sys.argv[1:]
    if not argv or argv[0].startswith("-"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    kvplan, data = argv[0], argv[1]
    rows = decode_cases(kvplan, data)
    mbu, layer = decode_fit(rows)
    flops, cs, per = rates(data, layer)
    dl, within = decode_page(rows, mbu, layer)
    text = page(kvplan, flops, cs, per).rstrip("\n") + "\n" + "\n".join(dl) + "\n"
    write, check = "--write" in argv, "--check" in argv
    differs = []
    for row in APPLE:
        path = os.path.join(PRESETS, "gpus", row[0] + ".json")
        g = load(path)
        want = {"measured_fp16_tflops": figure(per, row[1], row[2], row[3]),
                "measured_fp16_tflops_basis": basis(flops, cs, per, row)}
        want.update(decode_fields(rows, mbu, layer, within))
        if all(g.get(k) == v for k, v in want.items()):
            continue
        differs.append(path)
        if write:
            g.update(want)
            g.move_to_end("source")
            open(path, "w").write(json.dumps(g, indent=2) + "\n")
    if not os.path.exists(DOC) or open(DOC).read() != text:
        differs.append(DOC)
        if write:
            open(DOC, "w").write(text)
    if check:
        for p in differs:
            print("fit_apple: %s is not what the measurements give (run "
                  "tools/fit_apple.py %s %s --write)" % (os.path.relpath(p, REPO), kvplan, data))
        return 1 if differs else 0
    if not write:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
