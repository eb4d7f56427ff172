#!/usr/bin/python3
"""calibrate reads each figure of a benchmark's file for the run it belongs to
and refuses the ones no GPU measures: several `vllm bench serve` consoles in
one file (each prints "Maximum request concurrency: N" before its result
block, vllm/benchmarks/serve.py, benchmark()) keep their own concurrencies; a
genai-perf CSV in a folder that does not name its concurrency estimates it by
Little's law from its own Request Throughput and Request Latency rows; a
--save-result figure that is no number, not positive, or faster than the
GPU's peak is refused (exit 2, naming the file, the field or the bound);
llama-bench's Markdown takes its GPU from the "Device 0:" line ggml's CUDA
backend prints ahead of the table (ggml-cuda.cu, ggml_cuda_init).
Usage: t_calibrate_inputs.py path/to/kvplan. Ends with "N passed, N failed"."""
import json
import os
import re

from optionslib import ROOT, TMP, check, main, run, write

BENCH = os.path.join(ROOT, "tests", "data", "bench")
MODEL = ["--model", "llama-3.1-8b"]
H100 = MODEL + ["--gpu", "h100-sxm"]


def read(name):
    with open(os.path.join(BENCH, name)) as f:
        return f.read()


def users(out):
    """The concurrency of each decode figure, in the order printed."""
    return [int(m) for m in re.findall(r"decode, (\d+) users?", out)]


def test_joined_vllm_consoles_keep_their_concurrency():
    one = read("vllm-serve.txt")
    runs = [one.replace("concurrency: 16", "concurrency: %d" % c).replace(
        "concurrency:             16", "concurrency:             %d" % c) for c in (1, 8, 32)]
    path = write("joined.txt", "".join(runs))
    status, out, err = run(["calibrate", path, *H100])
    check("three joined consoles: decode at 1, 8 and 32 users", status == 0 and users(out) == [1, 8, 32],
          (status, users(out), err[-300:]))
    # an older release prints the limit only ahead of the block
    bare = [re.sub(r"\nMaximum request concurrency:\s+\d+\s*\n(Benchmark)", r"\n\1", r) for r in runs]
    path = write("joined-bare.txt", "".join(bare))
    status, out, err = run(["calibrate", path, *H100])
    check("the pre-run line alone: 1, 8 and 32 users", status == 0 and users(out) == [1, 8, 32],
          (status, users(out), err[-300:]))


def test_genai_csv_concurrency_by_littles_law():
    csv = read(os.path.join("genai-perf", "meta-llama_Llama-3.1-8B-Instruct-openai-chat-concurrency8",
                            "profile_export_genai_perf.csv"))
    path = write("profile_export_genai_perf.csv", csv)
    status, out, err = run(["calibrate", path, *H100])
    # 3.28 requests a second x 2.4346 s a request: 8 in flight
    check("no concurrency in the folder's name: 8 users by Little's law",
          status == 0 and "decode, 8 users (estimated by Little's law)" in out, (status, out[-900:], err))
    path = write("with-concurrency.csv", csv + "Concurrency,4\n")
    status, out, err = run(["calibrate", path, *H100])
    check("a Concurrency row is the run's own", status == 0 and "decode, 4 users," in out, (status, out[-900:], err))


def vllm_json(name, **fields):
    doc = json.loads(read("vllm-serve.json"))
    doc.update(fields)
    return write(name, json.dumps(doc))


def refused(path, *words):
    status, out, err = run(["calibrate", path, *H100])
    check("%s: exit 2" % os.path.basename(path), status == 2, (status, out[-300:], err))
    for w in words:
        check("%s: the message has %r" % (os.path.basename(path), w), w in err, err)


def test_invalid_figures_are_refused():
    refused(vllm_json("tpot-word.json", mean_tpot_ms="fast"), "tpot-word.json", "mean_tpot_ms")
    refused(vllm_json("tpot-negative.json", mean_tpot_ms=-3), "tpot-negative.json", "mean_tpot_ms", "-3")
    refused(vllm_json("all-negative.json", mean_tpot_ms=-3, mean_itl_ms=-4), "mean_tpot_ms")
    refused(vllm_json("ttft-zero.json", mean_ttft_ms=0), "mean_ttft_ms")
    # 16 GB of weights over 3.35 TB/s take about 4.8 ms a step
    refused(vllm_json("tpot-fast.json", mean_tpot_ms=0.5, mean_itl_ms=0.5), "tpot-fast.json", "0.500 ms",
            "100% of its peak memory bandwidth (the weights)")
    refused(vllm_json("ttft-fast.json", mean_ttft_ms=2), "ttft-fast.json", "2.000 ms", "peak compute")
    rows = json.loads(read("llama-bench.json"))
    rows[1].pop("avg_ts")
    refused(write("llama-no-ts.json", json.dumps(rows)), "llama-no-ts.json", "avg_ts")
    rows = json.loads(read("llama-bench.json"))
    rows[1]["n_gen"] = "many"
    status, out, err = run(["calibrate", write("llama-n-gen.json", json.dumps(rows)), *MODEL])
    said = err.replace(TMP, "")  # the temporary folder's random name may hold "-1"
    check("llama-bench n_gen no number: exit 2 naming n_gen, no t/s -1",
          status == 2 and "n_gen" in said and "-1" not in said, (status, err))


def test_llama_md_device_line_is_the_gpu():
    head = ("ggml_cuda_init: found 1 CUDA devices:\n"
            "  Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes\n")
    md = read("llama-bench.md")
    status, out, err = run(["calibrate", write("device.md", head + md), *MODEL])
    check("Device 0: fitted for the RTX 4090, saying its preset",
          status == 0 and "Fitted for NVIDIA GeForce RTX 4090" in out and "preset rtx-4090" in out
          and "assumed" not in out + err, (status, out[-600:], err))
    status, out, err = run(["calibrate", write("device-unknown.md", head.replace("4090", "9999") + md), *MODEL])
    check("a device no preset names: assumed, saying so",
          status == 0 and "GPU is assumed" in err and "RTX 9999, which matches no GPU preset" in err,
          (status, out[-600:], err))


if __name__ == "__main__":
    main([test_joined_vllm_consoles_keep_their_concurrency, test_genai_csv_concurrency_by_littles_law,
          test_invalid_figures_are_refused, test_llama_md_device_line_is_the_gpu])
