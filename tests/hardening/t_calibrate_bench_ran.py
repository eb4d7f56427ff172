#!/usr/bin/python3
"""calibrate on a benchmark fits the run the file describes: llama-bench's
model_type ("llama 8B Q4_0") gives the weight precision and llama.cpp the
engine, a serving benchmark's backend ("vllm") its engine; a GPU the file does
not name is said to be assumed; and a fit that clamps MBU or MFU, or leaves a
residual past 25%, is not saved (exit 2, naming the residual and the likely
cause). Usage: t_calibrate_bench_ran.py path/to/kvplan. Ends with "N passed, N failed"."""
import json
import os

from optionslib import ROOT, TMP, check, main, run

BENCH = os.path.join(ROOT, "tests", "data", "bench")


def calibrate(name, *extra):
    out_path = os.path.join(TMP, name + "".join(extra) + ".json")
    status, out, err = run(["calibrate", os.path.join(BENCH, name), "--model", "llama-3.1-8b", *extra,
                            "--save", out_path])
    doc = None
    if os.path.exists(out_path):
        with open(out_path) as f:
            doc = json.load(f)
    return status, out + err, doc


def test_llama_bench_precision_and_engine():
    status, out, doc = calibrate("llama-bench.json")
    check("llama-bench.json: saved", status == 0 and doc is not None, out[-600:])
    check("fitted for llama.cpp on the file's RTX 4090",
          "Fitted for NVIDIA GeForce RTX 4090, Llama 3.1 8B, llama.cpp" in out, out[-900:])
    # its build_number b5721 is a 2025 build: kvplan's llama.cpp@mla-kv rule (kvplan list engines)
    check("the calibration's engine is llama.cpp, b5721's rule", doc and doc["engine"] == "llama.cpp@mla-kv",
          doc and doc["engine"])
    check("MBU not clamped", "clamped" not in out, out[-900:])
    status, out, _ = run(["plan", "--model", "llama-3.1-8b", "--gpu", "rtx-4090", "--calibration",
                          os.path.join(TMP, "llama-bench.json.json")])
    check("the plan names llama.cpp b5721, not the generic rule", "llama.cpp b5721" in out and
          "generic rule b5721" not in out, out[-900:])
    status, out, doc = calibrate("llama-bench.md", "--gpu", "rtx-4090")
    check("llama-bench.md: Q4_0 and llama.cpp as well", status == 0 and doc and doc["engine"] == "llama.cpp"
          and "clamped" not in out, out[-600:])


def test_serving_backend_is_the_engine():
    status, out, doc = calibrate("vllm-serve.json", "--gpu", "h100-sxm")
    check("vllm-serve.json (backend vllm): the calibration's engine is vllm",
          status == 0 and doc and doc["engine"].startswith("vllm"), doc and doc["engine"])


def test_an_unnamed_gpu_is_said_to_be_assumed():
    status, out, _ = calibrate("vllm-serve.txt")
    check("no GPU in the file, no --gpu: said to be assumed", status == 0 and "GPU is assumed" in out, out[-600:])
    status, out, _ = calibrate("vllm-serve.txt", "--gpu", "h100-sxm")
    check("with --gpu: nothing assumed", status == 0 and "assumed" not in out, out[-600:])
    status, out, _ = calibrate("llama-bench.json")
    check("the file's own GPU: nothing assumed", "assumed" not in out, out[-600:])


def test_a_bad_fit_is_not_saved():
    status, out, doc = calibrate("llama-bench.json", "--weight-dtype", "bf16")
    check("bf16 weights against a Q4_0 run: refused with exit 2", status == 2 and doc is None, (status, out[-400:]))
    check("naming the residual and the likely cause", "residual" in out and "weight precision" in out and
          "not saved" in out, out[-400:])


if __name__ == "__main__":
    main([test_llama_bench_precision_and_engine, test_serving_backend_is_the_engine,
          test_an_unnamed_gpu_is_said_to_be_assumed, test_a_bad_fit_is_not_saved])
