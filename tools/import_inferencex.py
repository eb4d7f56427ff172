#!/usr/bin/python3
"""import_inferencex: InferenceX rows as kvplan speed measurements.

Reads the API snapshot InferenceX-app keeps as a Cypress fixture
(packages/app/cypress/fixtures/api/benchmarks.json) from a git directory at a
commit, and prints, as the measurements of tests/data/speed-measurements.json
(format in doc/FORMATS.md), every row that is a fully specified single-node
run kvplan can plan:

- single node, no disaggregation, no speculative decoding (spec_method none);
- the row names its container image (the engine's version): rows without one
  are left, so the newer builds come first;
- decode_dp_attention false (the validation plans no data-parallel attention);
- an engine kvplan knows (sglang, trt = TensorRT-LLM) or ATOM (planned under
  kvplan's generic rule) and a GPU kvplan has a preset for.

A row whose case id the data file already holds is left (the data keeps the
first row cited). Each case keeps the fixture path, commit and line range, the
run URL, the image and the figures as the row gives them; the KV precision is
what the launch script at the InferenceX commit passes (KV_DTYPE below).

Usage: import_inferencex.py APP_GIT_DIR COMMIT INFERENCEX_GIT_DIR IX_COMMIT DATA.json > new.json
"""
import json
import subprocess
import sys

FIXTURE = "packages/app/cypress/fixtures/api/benchmarks.json"
ENGINE = {"sglang": "sglang", "trt": "trtllm", "atom": "atom"}
GPU = {"b200": "b200", "b300": "b300", "h200": "h200", "mi300x": "mi300x", "mi325x": "mi325x",
       "mi355x": "mi355x"}
FAMILY_NODE = {"b200": "8-GPU HGX node", "b300": "8-GPU HGX node", "h200": "8-GPU HGX node",
               "mi300x": "8-GPU node", "mi325x": "8-GPU node", "mi355x": "8-GPU node"}
# What each launch script (benchmarks/single_node/fixed_seq_len/dsr1_<prec>_<gpu>[_fw].sh)
# passes for the cache: SGLang's --kv-cache-dtype fp8_e4m3, TensorRT-LLM's kv_cache_config
# dtype: fp8, ATOM's --kv_cache_dtype fp8; the H200 SGLang script passes none (auto = bf16).
KV_DTYPE = {("h200", "sglang"): "bf16"}
SCRIPT = {"sglang": "", "trt": "_trt", "atom": "_atom"}
KV_SAY = {"sglang": "--kv-cache-dtype fp8_e4m3", "trt": "kv_cache_config: dtype: fp8",
          "atom": "--kv_cache_dtype fp8"}


def git_show(gitdir, commit, path):
    return subprocess.run(["git", "--git-dir=" + gitdir, "show", "%s:%s" % (commit, path)],
                          capture_output=True, text=True, check=True).stdout


def row_lines(text):
    """The first and last line (1-based) of each top-level object of the array."""
    spans, start = [], None
    for i, line in enumerate(text.split("\n"), 1):
        if line == "  {":
            start = i
        elif line in ("  }", "  },") and start is not None:
            spans.append((start, i))
            start = None
    return spans


# What each SGLang launch script passes for the prefill chunk and the memory fraction, at
# InferenceX 843c6254: H200 32768 and 0.82; MI300X, MI325X 131072 and 0.8; MI355X 196608 and
# 0.8 (fp4 at 8192/1024 above 32 users: 32768); B200 and B300 fp4 16384 and 0.85, fp8 at TP 8
# 32768 and 0.82, at TP 4 8192 and 0.95.
def sglang_args(gpu, prec, tp, isl, osl, conc):
    if gpu == "h200":
        chunk, frac = 32768, 0.82
    elif gpu in ("mi300x", "mi325x"):
        chunk, frac = 131072, 0.8
    elif gpu == "mi355x":
        chunk, frac = (32768 if prec == "fp4" and (isl, osl) == (8192, 1024) and conc > 32 else 196608), 0.8
    elif prec == "fp4":
        chunk, frac = 16384, 0.85
    else:
        chunk, frac = (32768, 0.82) if tp == 8 else (8192, 0.95)
    return "--chunked-prefill-size %d --mem-fraction-static %g" % (chunk, frac)


def benchmark(r, engine, gpu, prec, tp):
    """The run as a closed-loop benchmark (doc/FORMATS.md `benchmark`): benchmark_lib.sh's
    run_benchmark_serving with the launch script's prompts and the workflow's range."""
    b = {"kind": "closed-loop", "tool": "InferenceX benchmark_serving", "num_prompts": 10 * r["conc"],
         "random_input_len": r["isl"], "random_output_len": r["osl"], "random_range_ratio": 0.8, "range": "sglang",
         "statistic": "mean", "basis": BENCH_BASIS}
    if engine == "sglang":
        b["server_args"] = sglang_args(gpu, prec, tp, r["isl"], r["osl"], r["conc"])
        b["basis"] += ("; --chunked-prefill-size and --mem-fraction-static from the GPU's launch script for this "
                       "TP, precision and lengths")
    return b


BENCH_BASIS = ("InferenceX 843c6254: benchmarks/benchmark_lib.sh run_benchmark_serving "
               "(utils/bench_serving/benchmark_serving.py, --request-rate inf, --ignore-eos, --num-warmups 2 x C, "
               "not measured), benchmarks/single_node/fixed_seq_len/dsr1_*.sh (--num-prompts CONC x 10), "
               ".github/workflows/benchmark-tmpl.yml (RANDOM_RANGE_RATIO 0.8); sample_uniform draws "
               "randint(int(L x 0.8), L)")


def wanted(r):
    return (not r["disagg"] and not r["is_multinode"] and r["spec_method"] == "none" and r["image"]
            and not r["decode_dp_attention"] and r["framework"] in ENGINE and r["hardware"] in GPU
            and r["model"] == "dsr1")


def mean_len(n):
    """The mean of randint(int(n x 0.8), n): InferenceX's --random-range-ratio 0.8."""
    lo = int(n * 0.8)
    return (lo + n) / 2.0


def case(r, span, app_commit, ix_commit):
    m = r["metrics"]
    tp, ep = r["decode_tp"], r["decode_ep"]
    engine, gpu = ENGINE[r["framework"]], GPU[r["hardware"]]
    prec = r["precision"]
    kv = KV_DTYPE.get((r["hardware"], r["framework"]), "fp8")
    isl, osl = mean_len(r["isl"]), mean_len(r["osl"])
    script = "benchmarks/single_node/fixed_seq_len/dsr1_%s_%s%s.sh" % (prec, r["hardware"], SCRIPT[r["framework"]])
    kv_note = ("the launch script (%s) passes no --kv-cache-dtype, so SGLang's auto = the checkpoint's bf16" % script
               if kv == "bf16" else "the launch script (%s) passes %s" % (script, KV_SAY[r["framework"]]))
    experts = ("experts spread by expert parallelism EP %d inside the TP group" % ep if ep > 1
               else "experts tensor-parallel across the %d GPUs (EP 1)" % tp)
    generic = " ATOM (AMD's inference engine) is planned under kvplan's generic rule." if engine == "atom" else ""
    return {
        # as the data names its cases: h200x8, mi300x8 (no second x)
        "id": "%s-%s%s%d-deepseek-r1-%s-%d-%d-c%d" % (engine, gpu, "" if gpu.endswith("x") else "x", tp, prec,
                                                     r["isl"], r["osl"], r["conc"]),
        "engine": engine,
        "engine_version": r["image"],
        "gpu": gpu,
        "gpu_in_source": "%s (InferenceX \"%s\", %s)" % (r["hardware"].upper(), r["hardware"], FAMILY_NODE[r["hardware"]]),
        "gpus": tp,
        "tp": tp,
        "ep": ep,
        "model": "deepseek-v3",
        "model_in_source": "DeepSeek-R1-0528 at %s (InferenceX \"dsr1\")" % prec,
        "weight_dtype": prec,
        "kv_dtype": kv,
        "input_tokens": int(round(isl)),
        "output_tokens": int(round(osl)),
        "concurrency": r["conc"],
        "tpot_ms": round(1000.0 * m["mean_tpot"], 2),
        "itl_ms": None,
        "tokens_per_s_per_user": None,
        "tokens_per_s_total": round(m["output_tput_per_gpu"] * tp, 1),
        "ttft_ms": round(1000.0 * m["mean_ttft"], 1),
        "prefill_tokens_per_s": None,
        "e2e_latency_ms": round(1000.0 * m["mean_e2el"], 0),
        "derived": ("input/output lengths are the means of the benchmark's uniform draw: InferenceX runs "
                    "bench_serving random with --random-range-ratio 0.8 (RANDOM_RANGE_RATIO in "
                    ".github/workflows/benchmark-tmpl.yml), so each request takes randint(%d, %d) input and "
                    "randint(%d, %d) output tokens (--ignore-eos), mean %.1f and %.1f; tpot_ms = 1000 x mean_tpot, "
                    "ttft_ms = 1000 x mean_ttft, e2e_latency_ms = 1000 x mean_e2el, tokens_per_s_total = "
                    "output_tput_per_gpu x %d GPUs" % (int(r["isl"] * 0.8), r["isl"], int(r["osl"] * 0.8), r["osl"],
                                                      isl, osl, tp)),
        "complete": True,
        "why_incomplete": None,
        "notes": ("One InferenceX nightly row (single node, no disaggregation, no MTP; decode_dp_attention false; "
                  "--max-concurrency %d with %d prompts, so TPOT includes the other requests' prefills). KV precision: "
                  "%s (the script at InferenceX commit %s). The run uses %d GPUs, %s. DeepSeek-R1-0528 has the "
                  "DeepSeek-V3 architecture (kvplan deepseek-v3).%s Rows of the API snapshot are read as given; the "
                  "run URL holds the raw result." % (r["conc"], 10 * r["conc"], kv_note, ix_commit[:8], tp, experts, generic)),
        "source": ("SemiAnalysis InferenceX, API snapshot captured into InferenceX-app Cypress fixtures (commit %s); "
                   "run %s" % (app_commit[:8], r["run_url"])),
        "url": "https://github.com/vngcloud/InferenceX-app/blob/%s/%s#L%d-L%d" % (app_commit, FIXTURE, span[0], span[1]),
        "date": r["date"],
        "quote": ("\"decode_tp\": %d, \"decode_ep\": %d, ... \"isl\": %d, \"osl\": %d, \"conc\": %d, \"image\": \"%s\", "
                  "... \"mean_tpot\": %.6f, \"mean_ttft\": %.4f" % (tp, ep, r["isl"], r["osl"], r["conc"], r["image"],
                                                                    m["mean_tpot"], m["mean_ttft"])),
        "benchmark": benchmark(r, engine, gpu, prec, tp),
    }


def main():
    if len(sys.argv) != 6:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    app, app_commit, ix, ix_commit, data = sys.argv[1:]
    app_commit = subprocess.run(["git", "--git-dir=" + app, "rev-parse", app_commit],
                                capture_output=True, text=True, check=True).stdout.strip()
    ix_commit = subprocess.run(["git", "--git-dir=" + ix, "rev-parse", ix_commit],
                               capture_output=True, text=True, check=True).stdout.strip()
    text = git_show(app, app_commit, FIXTURE)
    rows, spans = json.loads(text), row_lines(text)
    if len(rows) != len(spans):
        print("%s: %d rows but %d objects found by line" % (FIXTURE, len(rows), len(spans)), file=sys.stderr)
        return 1
    have = {c["id"] for c in json.load(open(data))["measurements"]}
    out = []
    for r, span in zip(rows, spans):
        if not wanted(r):
            continue
        c = case(r, span, app_commit, ix_commit)
        if c["id"] in have:
            continue
        have.add(c["id"])
        out.append(c)
    json.dump(out, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
