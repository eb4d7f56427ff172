#!/usr/bin/python3
"""What a calibration records of where it came from, and what plan does with
it (issue 19's review of kvplan calibrate):
- a memory calibration from a log that names no GPU records the GPU it
  assumed (gpu_assumed), says so when saved, and plan on another GPU warns by
  name and does not apply the other GPU's pool; --gpu-memory-utilization still
  applies on top; a file of an older kvplan (no gpu) is applied as before,
  with a note;
- a benchmark that names no GPU, without --gpu: a warning naming the GPU
  assumed; llama-bench's JSON names its own (gpu_info);
- the model is read from the file (Hugging Face id, GGUF file name,
  genai-perf's artifact folder, llama-bench's "llama 8B Q4_0" with its
  parameter count), --model asked for only when nothing matches, the message
  naming what the file said;
- the engine from vllm bench serve's argument dump (backend='vllm'), its
  version only where a line states it;
- the "as: kvplan plan ..." line calibrate prints gives the calibrated step;
- a calibrated figure carries its fit's own band (the residuals saved in the
  file) in text, Markdown and JSON.
Usage: t_calibrate_review.py path/to/kvplan. Ends with "N passed, N failed"."""
import json
import os
import shlex

from optionslib import ROOT, TMP, check, main, run, write

BENCH = os.path.join(ROOT, "tests", "data", "bench")
LOGS = os.path.join(ROOT, "tests", "data", "logs")
SWEEP = [os.path.join(BENCH, "vllm-sweep", n) for n in sorted(os.listdir(os.path.join(BENCH, "vllm-sweep")))]
GENAI_CSV = os.path.join(BENCH, "genai-perf", "meta-llama_Llama-3.1-8B-Instruct-openai-chat-concurrency8",
                         "profile_export_genai_perf.csv")


def load(path):
    with open(path) as f:
        return json.load(f)


def users(args):
    status, out, err = run(["plan", "--model", "llama-3.1-8b", *args, "--format", "json"])
    return (json.loads(out)["result"]["max_users"] if status == 0 else None), err


def test_memory_calibration_records_the_gpu_it_assumed():
    cal = os.path.join(TMP, "mem.json")
    status, out, err = run(["calibrate", os.path.join(LOGS, "vllm-03.log"), "--model", "llama-3.1-8b",
                            "--save", cal])
    check("a log with no GPU saved without --gpu", status == 0 and os.path.exists(cal), out[-400:] + err)
    doc = load(cal) if os.path.exists(cal) else {}
    check("the file records the default GPU, flagged as assumed",
          doc.get("gpu") == "h100-sxm" and doc.get("gpu_assumed") is True, doc)
    check("calibrate says it assumed it and how to record another",
          "log names no GPU: assumed NVIDIA H100" in out and "pass --gpu ID" in out, out[-400:])
    h100, _ = users(["--gpu", "h100-sxm", "--calibration", cal])
    h200, err = users(["--gpu", "h200", "--calibration", cal])
    rule, _ = users(["--gpu", "h200", "--engine", "vllm@0"])
    check("on the H200: a warning naming both GPUs and that the H100 was assumed",
          "calibration from NVIDIA H100 SXM5 80GB (assumed" in err and "H200" in err, err)
    check("on the H200: not the H100's users (its own total applied)",
          h100 is not None and h200 is not None and h200 > 2 * h100, (h100, h200, rule))
    low, _ = users(["--gpu", "h200", "--calibration", cal, "--gpu-memory-utilization", "0.5"])
    check("--gpu-memory-utilization still applies on top (H200)", low is not None and low < h200, (low, h200))
    low, _ = users(["--gpu", "h100-sxm", "--calibration", cal, "--gpu-memory-utilization", "0.7"])
    check("--gpu-memory-utilization still applies on top (its own GPU)", low is not None and low < h100,
          (low, h100))
    status, out, err = run(["plan", "--model", "llama-3.1-8b", "--engine", "sglang", "--calibration", cal])
    check("another engine: warned by name", "calibration with vLLM used on SGLang" in err, err)
    old = dict(doc)
    for k in ("gpu", "gpu_name", "gpu_assumed"):
        old.pop(k, None)
    old_path = write("mem-old.json", json.dumps(old))
    before, err = users(["--gpu", "h200", "--calibration", old_path])
    check("a file of an older kvplan (no gpu): applied as before, with a note",
          before == h100 and "names no GPU (an older kvplan wrote it)" in err, (before, h100, err))


def test_an_unnamed_benchmark_gpu_is_a_warning():
    status, out, err = run(["calibrate", os.path.join(BENCH, "llama-bench.md")])
    check("llama-bench.md, no --gpu: a warning naming the GPU assumed",
          status == 0 and "warning: the GPU is assumed: NVIDIA H100 SXM5 80GB" in err, err)
    status, out, err = run(["calibrate", os.path.join(BENCH, "llama-bench.md"), "--gpu", "rtx-4090"])
    check("with --gpu: no warning", status == 0 and "assumed" not in err, err)
    status, out, err = run(["calibrate", os.path.join(BENCH, "llama-bench.json")])
    check("llama-bench.json names its GPU (gpu_info): the RTX 4090, nothing assumed",
          status == 0 and "Fitted for NVIDIA GeForce RTX 4090" in out and "assumed" not in err, out[-600:] + err)
    cal = os.path.join(TMP, "md.json")
    run(["calibrate", os.path.join(BENCH, "llama-bench.md"), "--save", cal])
    check("the speed calibration records the assumption", os.path.exists(cal) and load(cal).get("gpu_assumed") is True,
          os.path.exists(cal) and load(cal))


def test_the_model_is_read_from_the_file():
    for path, want in ((os.path.join(BENCH, "llama-bench.json"), "llama-3.1-8b"),
                       (os.path.join(BENCH, "llama-bench.md"), "llama-3"),
                       (GENAI_CSV, "llama-3.1-8b"),
                       (os.path.join(BENCH, "vllm-serve.txt"), "llama-3.1-8b")):
        cal = os.path.join(TMP, os.path.basename(path) + ".model.json")
        status, out, err = run(["calibrate", path, "--save", cal])
        doc = load(cal) if status == 0 and os.path.exists(cal) else {}
        check("%s without --model: the file's model (%s)" % (os.path.basename(path), want),
              status == 0 and doc.get("model", "").startswith(want) and "preset " in out, (status, err, doc))
    # a GGUF file name alone: its preset and its quantisation
    rows = load(os.path.join(BENCH, "llama-bench.json"))
    for r in rows:
        r.pop("model_type", None)
        r["model_filename"] = "/models/llama-2-7b.Q4_0.gguf"
        r["model_n_params"] = 6738415616
        r.pop("gpu_info", None)
    status, out, err = run(["calibrate", write("gguf-name.json", json.dumps(rows)), "--gpu", "rtx-4090"])
    check("llama-2-7b.Q4_0.gguf: preset llama-2-7b with q4_0 weights",
          status in (0, 2) and "preset llama-2-7b" in out and "weights q4_0" in out, out[-600:] + err)
    status, out, err = run(["calibrate", os.path.join(BENCH, "sglang-bench-serving.jsonl")])
    check("sglang's JSONL names no model: --model asked for, saying so",
          status == 2 and "names no model" in err and "--model" in err, err)
    md = ("| model | size | params | backend | ngl | test | t/s |\n| --- | --: | --: | --- | --: | --: | --: |\n"
          "| qwen9 7B Q4_0 | 3.56 GiB | 6.74 B | CUDA | 99 | tg128 | 100.00 ± 0.10 |\n")
    status, out, err = run(["calibrate", write("unknown.md", md)])
    check("a model no preset matches: the message names what the file said",
          status == 2 and "'qwen9 7B Q4_0'" in err and "--model" in err, err)
    status, out, err = run(["calibrate", os.path.join(BENCH, "sglang-bench-serving.jsonl"), "--model", "llama-3.1-8b"])
    check("--model still wins", status == 0, err)


def test_engine_and_version_from_the_file():
    cal = os.path.join(TMP, "vtxt.json")
    status, out, err = run(["calibrate", os.path.join(BENCH, "vllm-serve.txt"), "--save", cal])
    doc = load(cal) if os.path.exists(cal) else {}
    check("vllm-serve.txt: backend='vllm' of its argument dump is the engine",
          status == 0 and doc.get("engine", "").startswith("vllm"), doc.get("engine"))
    check("no version line: engine_version absent, not guessed", "engine_version" not in doc.get("speed", {}), doc)
    with open(os.path.join(BENCH, "vllm-serve.txt")) as f:
        text = f.read()
    line = "INFO 06-02 10:14:50 [api_server.py:1043] vLLM API server version 0.10.1\n"
    status, out, err = run(["calibrate", write("vllm-version.txt", line + text), "--save", cal])
    doc = load(cal) if status == 0 else {}
    check("a version line: saved as engine_version", doc.get("speed", {}).get("engine_version") == "0.10.1", doc)
    status, out, err = run(["calibrate", os.path.join(BENCH, "llama-bench.json"), "--save", cal])
    doc = load(cal) if status == 0 else {}
    check("llama-bench: build_number and build_commit", doc.get("speed", {}).get("engine_version") == "b5721 (3f1ae2e3)",
          doc.get("speed"))


def plan_line(out):
    """The words of the line calibrate prints after "as: "."""
    for line in out.splitlines():
        if "as: kvplan plan " in line:
            return shlex.split(line.split("as: ", 1)[1])[1:]
    return None


def test_the_printed_plan_line_gives_the_calibrated_step():
    cases = [[os.path.join(BENCH, "llama-bench.json")], [os.path.join(BENCH, "llama-bench.md")],
             [os.path.join(BENCH, "vllm-serve.txt")], [os.path.join(BENCH, "vllm-serve.json")],
             [os.path.join(BENCH, "sglang-bench-serving.txt")], [GENAI_CSV], SWEEP]
    for files in cases:
        name = os.path.basename(files[0])
        cal = os.path.join(TMP, name + ".line.json")
        status, out, err = run(["calibrate", *files, "--save", cal])
        words = plan_line(out)
        if status != 0 or words is None or not os.path.exists(cal):
            check("%s: calibrated, with a plan line" % name, False, (status, out[-400:], err))
            continue
        decode = [p for p in load(cal)["speed"]["points"] if p["kind"] == "decode"]
        at = decode[0]  # the decode figure at the most users, the last of a tie (as calibrate picks it)
        for p in decode:
            at = p if p["concurrency"] >= at["concurrency"] else at
        after = at["predicted_seconds"]
        status, pout, perr = run(words + ["--format", "json"])
        step = json.loads(pout)["result"]["decode_step_seconds"] if status == 0 else None
        check("%s: the printed line's step is the calibrated 'after' (%.4f ms)" % (name, after * 1e3),
              step is not None and abs(step - after) <= 0.005 * after, (step, after, words, perr[-300:]))
        for flag in ("--gpu", "--engine"):
            check("%s: the line has %s" % (name, flag), flag in words, words)
        if name.startswith("llama-bench"):
            check("%s: the line has --weight-dtype q4_0" % name,
                  "--weight-dtype" in words and words[words.index("--weight-dtype") + 1] == "q4_0", words)


def test_a_calibrated_figure_carries_its_fit_band():
    cal = os.path.join(TMP, "sweep-band.json")
    status, out, err = run(["calibrate", *SWEEP, "--gpu", "h100-sxm", "--save", cal])
    doc = load(cal) if status == 0 else {}
    band = doc.get("speed", {}).get("band", {})
    check("the file holds the decode residuals of its 3 points",
          band.get("decode", {}).get("points") == 3 and not band["decode"].get("stated")
          and band["decode"]["residual_min"] <= band["decode"]["residual_max"], band)
    check("the one first token: a stated band, said to be", band.get("first_token", {}).get("stated") is True, band)
    # at the fit's own users and prompts: the first token was fitted at 1 user with 1,024 tokens
    shape = ["--concurrency", "1", "--prompt", "1024"]
    status, pout, _ = run(["plan", "--model", "llama-3.1-8b", "--calibration", cal, *shape, "--format", "json"])
    r = json.loads(pout)["result"] if status == 0 else {}
    lo, hi, tps = r.get("tokens_per_s_per_user_low"), r.get("tokens_per_s_per_user_high"), r.get("tokens_per_s_per_user")
    check("JSON: speed_basis calibrated, low and high round the figure",
          r.get("speed_basis") == "calibrated" and lo is not None and hi is not None and lo <= tps <= hi, r and
          (r.get("speed_basis"), lo, tps, hi))
    # the band is the residuals': decode tok/s = 1 / step, so low = 1 / (1 + max residual),
    # never inside 10% either side (in-sample residuals understate the error)
    want_lo = tps * min(1 / (1 + max(band["decode"]["residual_max"], 0)), 0.9) if band.get("decode") else None
    check("JSON: the decode band is the fit's residuals", want_lo and abs(lo - want_lo) < 1e-6 * tps, (lo, want_lo))
    tl, th = r.get("ttft_seconds_low"), r.get("ttft_seconds_high")
    check("JSON: the first token's stated band, +/-10%", tl and th and abs(tl / r["ttft_seconds"] - 0.9) < 1e-9
          and abs(th / r["ttft_seconds"] - 1.1) < 1e-9, (tl, th, r.get("ttft_seconds")))
    status, text, _ = run(["plan", "--model", "llama-3.1-8b", "--calibration", cal, *shape])
    check("text: the band beside the figure", "(calibrated, " in text and "over the fit's 3 measured points" in text,
          text[-800:])
    status, md, _ = run(["plan", "--model", "llama-3.1-8b", "--calibration", cal, *shape, "--format", "markdown"])
    check("Markdown: the band too", "over the fit's 3 measured points" in md and "a stated band" in md, md[-800:])
    snap = os.path.join(TMP, "band-snapshot.json")
    run(["plan", "--model", "llama-3.1-8b", "--calibration", cal, *shape, "--export", snap])
    status, pout, err = run(["plan", "--load", snap, "--format", "json"])
    again = json.loads(pout)["result"] if status == 0 else {}
    check("a snapshot keeps the band", again.get("tokens_per_s_per_user_low") == lo, (again.get("tokens_per_s_per_user_low"), lo, err))
    old = dict(doc)
    old["speed"] = {k: v for k, v in doc["speed"].items() if k != "band"}
    path = write("sweep-old.json", json.dumps(old))
    status, pout, _ = run(["plan", "--model", "llama-3.1-8b", "--calibration", path, "--format", "json"])
    r = json.loads(pout)["result"] if status == 0 else {}
    check("an older file (no band): read, low and high null as before",
          status == 0 and r.get("tokens_per_s_per_user_low") is None and r.get("speed_basis") == "calibrated", r and
          r.get("tokens_per_s_per_user_low"))
    status, text, _ = run(["plan", "--model", "llama-3.1-8b", "--calibration", path])
    check("and says why there is no band", "no band: its file holds no residuals" in text, text[-600:])
    bad = dict(doc)
    bad["speed"] = dict(doc["speed"], band={"decode": {"points": 2, "residual_min": 0.2, "residual_max": 0.1}})
    status, _, err = run(["plan", "--model", "llama-3.1-8b", "--calibration", write("bad-band.json", json.dumps(bad))])
    check("a band whose min passes its max: refused naming the field", status == 2 and "residual_min" in err, err)


if __name__ == "__main__":
    main([test_memory_calibration_records_the_gpu_it_assumed, test_an_unnamed_benchmark_gpu_is_a_warning,
          test_the_model_is_read_from_the_file, test_engine_and_version_from_the_file,
          test_the_printed_plan_line_gives_the_calibrated_step, test_a_calibrated_figure_carries_its_fit_band])
