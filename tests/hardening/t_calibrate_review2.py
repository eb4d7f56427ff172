#!/usr/bin/python3
"""A second review of kvplan calibrate and plan --calibration:
- a startup log's launch line gives the layout (SGLang server_args.py and
  vLLM engine/arg_utils.py: --tp/--tp-size/--tensor-parallel-size, --pp,
  --dp, --mem-fraction-static, --context-length/--max-model-len), the model
  (--model, vLLM's model=, a GGUF file name), the engine's version and the
  date; a KV cache that cannot fit the GPU given or assumed is refused at
  calibrate, and a plan whose logged cache passes its GPU does not fit (fits,
  shortfall and the memory table agree);
- a calibrated band is never inside 10% either side (in-sample residuals),
  and on another GPU, model, engine, TP or weight precision it is the public
  cases' band, said so; --mbu on top: basis given, the public cases' band;
- the planner's calibration warning follows the scenario as it changes;
- another engine release or rule, TP or weight precision than the fit's is
  warned by name; llama-bench's build b5721 is llama.cpp's mla-kv rule
  (kvplan list engines);
- the saved "use:" line carries the GPU, the weight precision and layout;
- a fitted MBU or MFU outside what engines reach is warned;
- Ollama's --parallel slots are kept (llm/llama_server.go: -np num_parallel).
Usage: t_calibrate_review2.py path/to/kvplan. Ends with "N passed, N failed"."""
import json
import os
import shlex
import sys
import tempfile

from optionslib import KVPLAN, ROOT, TMP, check, main, run, write

BENCH = os.path.join(ROOT, "tests", "data", "bench")
LOGS = os.path.join(ROOT, "tests", "data", "logs")
SWEEP = [os.path.join(BENCH, "vllm-sweep", n) for n in sorted(os.listdir(os.path.join(BENCH, "vllm-sweep")))]


def load(path):
    with open(path) as f:
        return json.load(f)


def result(args):
    status, out, err = run(["plan", *args, "--format", "json"])
    return (json.loads(out)["result"] if status == 0 else {}), err


def use_line(out):
    for line in out.splitlines():
        if "(use: kvplan plan " in line:
            return shlex.split(line.split("(use: ", 1)[1].rstrip(")"))[1:]
    return None


def test_a_log_gives_its_layout_model_version_and_date():
    sg = os.path.join(LOGS, "sglang-02.log")
    cal = os.path.join(TMP, "sg-h100.json")
    status, out, err = run(["calibrate", sg, "--save", cal])
    check("sglang-02.log on the assumed H100: refused, its 106.62 GiB of KV per GPU named",
          status == 2 and "106.62 GiB" in err and "--gpu" in err and not os.path.exists(cal), (status, err))
    cal = os.path.join(TMP, "sg.json")
    status, out, err = run(["calibrate", sg, "--gpu", "h200", "--save", cal])
    doc = load(cal) if status == 0 else {}
    check("without --model: the launch line's model (--model meta-llama/Llama-3.3-70B-Instruct)",
          doc.get("model") == "llama-3.3-70b" and "preset llama-3.3-70b" in out, (status, err, doc))
    check("its --tp 8 read: the bytes per token match", "matches" in out and "MISMATCH" not in out, out[-900:])
    check("the file records TP 8", doc.get("tp") == 8, doc)
    words = use_line(out)
    check("the use: line plans on 8 H200s", words and "--gpus" in words and words[words.index("--gpus") + 1] == "8"
          and words[words.index("--gpu") + 1] == "h200", words)
    r, err = result(words[1:] + ["--format", "json"] if words else [])
    check("its plan fits, no warning", r.get("fits") is True and "warning" not in err, (r.get("fits"), err))
    launch = ("python3 -m sglang.launch_server --model-path meta-llama/Llama-3.3-70B-Instruct --tp-size 4 "
              "--dp-size 2 --mem-fraction-static 0.85 --context-length 32768\n")
    with open(sg) as f:
        body = f.read().split("\n", 1)[1]
    status, out, err = run(["calibrate", write("sg-dp.log", launch + body), "--gpu", "h200"])
    check("--tp-size 4 --dp-size 2, --mem-fraction-static, --context-length read",
          status in (0, 2) and "tensor parallel size" in out and "data parallel size" in out
          and "mem_fraction_static" in out and "32,768" in out, out[-1200:] + err)
    cal = os.path.join(TMP, "v1.json")
    status, out, err = run(["calibrate", os.path.join(LOGS, "vllm-v1-startup.log"), "--save", cal])
    doc = load(cal) if status == 0 else {}
    check("vLLM V1 log: model from model='meta-llama/Llama-3.1-8B-Instruct'", doc.get("model") == "llama-3.1-8b",
          (status, err))
    check("its version 0.8.5 and date saved as the log states them",
          doc.get("engine_version") == "0.8.5" and doc.get("log_date", "").startswith("05-14"), doc)
    check("0.8.5 is planned by kvplan's vllm@0.13 rule (kvplan list engines)", doc.get("engine") == "vllm@0.13",
          doc.get("engine"))
    _, err = result(["--model", "llama-3.1-8b", "--engine", "vllm", "--calibration", cal])
    check("and planned under the newest: warned naming the release it ran", "calibration with vLLM 0.8.5 used on vLLM 0.21" in err, err)
    status, out, err = run(["calibrate", os.path.join(LOGS, "ollama.log"), "--save", os.path.join(TMP, "x.json")])
    check("Ollama's log names no model (a blob): --model asked for", status == 2 and "--model" in err, err)


def test_a_logged_pool_past_the_gpu_does_not_fit():
    cal = os.path.join(TMP, "sg.json")
    if not os.path.exists(cal):
        run(["calibrate", os.path.join(LOGS, "sglang-02.log"), "--gpu", "h200", "--save", cal])
    doc = load(cal)
    for k in ("gpu", "gpu_name", "gpu_assumed"):  # as an older kvplan saved it: applied on the plan's GPU
        doc.pop(k, None)
    path = write("sg-nogpu.json", json.dumps(doc))
    r, err = result(["--model", "llama-3.3-70b", "--gpus", "8", "--calibration", path])
    check("106.62 GiB of KV per GPU on H100s: fits false", r.get("fits") is False, r.get("fits"))
    check("the shortfall is the excess over the GPU", (r.get("shortfall_bytes_per_gpu") or 0) > 40 * 2**30,
          r.get("shortfall_bytes_per_gpu"))
    check("no users", r.get("max_users") == 0, r.get("max_users"))
    status, out, err = run(["plan", "--model", "llama-3.3-70b", "--gpus", "8", "--calibration", path])
    check("text: DOES NOT FIT, naming the KV cache given", "DOES NOT FIT" in out and "106.62 GiB" in out
          and "users fit" not in out.split("\n")[2], out[:600])
    r, _ = result(["--model", "llama-3.1-8b", "--engine", "vllm", "--kv-memory", "90GiB"])
    check("--kv-memory past an H100: fits false as well", r.get("fits") is False and r.get("shortfall_bytes_per_gpu"),
          (r.get("fits"), r.get("shortfall_bytes_per_gpu")))
    r, _ = result(["--model", "llama-3.1-8b", "--engine", "vllm", "--kv-memory", "40GiB"])
    check("--kv-memory that fits: still fits", r.get("fits") is True and r.get("max_users", 0) > 0, r.get("fits"))


def sweep(name, *extra):
    cal = os.path.join(TMP, name)
    status, out, err = run(["calibrate", *SWEEP, *extra, "--save", cal])
    return cal, status, out, err


def test_a_calibrated_band_is_never_falsely_tight():
    cal, status, out, err = sweep("s-h100.json", "--gpu", "h100-sxm")
    r, _ = result(["--model", "llama-3.1-8b", "--calibration", cal])
    tps, lo, hi = r.get("tokens_per_s_per_user"), r.get("tokens_per_s_per_user_low"), r.get("tokens_per_s_per_user_high")
    check("its own GPU: calibrated, at least 10% either side", r.get("speed_basis") == "calibrated" and lo and hi
          and lo <= 0.9 * tps * (1 + 1e-9) and hi >= 1.1 * tps * (1 - 1e-9), (lo, tps, hi))
    status, text, _ = run(["plan", "--model", "llama-3.1-8b", "--calibration", cal])
    check("text says why: in-sample residuals", "in-sample residuals understate the error" in text, text[-900:])
    # on another GPU: the public cases' band, as the plan without the calibration has it
    r, err = result(["--model", "llama-3.1-8b", "--gpu", "h200", "--calibration", cal])
    plain, _ = result(["--model", "llama-3.1-8b", "--gpu", "h200", "--engine", "vllm"])
    ratio = lambda x, k: x.get(k) / x.get("tokens_per_s_per_user") if x.get(k) else None
    check("another GPU: warned", "calibration from NVIDIA H100" in err, err)
    check("another GPU: the public cases' band (the plan's without calibration)",
          ratio(r, "tokens_per_s_per_user_low") is not None and
          abs(ratio(r, "tokens_per_s_per_user_low") - ratio(plain, "tokens_per_s_per_user_low")) < 1e-9 and
          abs(ratio(r, "tokens_per_s_per_user_high") - ratio(plain, "tokens_per_s_per_user_high")) < 1e-9,
          (ratio(r, "tokens_per_s_per_user_low"), ratio(plain, "tokens_per_s_per_user_low")))
    status, text, _ = run(["plan", "--model", "llama-3.1-8b", "--gpu", "h200", "--calibration", cal])
    check("text says why", "calibrated on another GPU" in text and "public cases' band" in text, text[-900:])
    r, _ = result(["--model", "llama-3.1-8b", "--tp", "2", "--gpus", "2", "--calibration", cal])
    band = r.get("speed_band") or {}
    check("another TP: the public cases' band too", band.get("basis") == "calibrated" and
          band.get("group") == "dense Hopper/vLLM" and band.get("low_ratio") is not None, band)
    r, _ = result(["--model", "llama-3.1-8b", "--calibration", cal])
    band = r.get("speed_band") or {}
    check("its own setup: the calibration's own fit", band.get("group") == "the calibration's own fit", band)


def test_mbu_on_top_is_given_with_the_public_band():
    cal, status, out, err = sweep("s-mbu.json", "--gpu", "h100-sxm")
    r, _ = result(["--model", "llama-3.1-8b", "--engine", "vllm", "--calibration", cal, "--mbu", "0.8"])
    check("--mbu on top: basis given, a band", r.get("speed_basis") == "given" and
          r.get("tokens_per_s_per_user_low") is not None and r.get("tokens_per_s_per_user_high") is not None,
          (r.get("speed_basis"), r.get("tokens_per_s_per_user_low")))
    status, text, _ = run(["plan", "--model", "llama-3.1-8b", "--engine", "vllm", "--calibration", cal, "--mbu", "0.8"])
    check("text: the option replaced part of the fit, not an older file",
          "replaced part of the calibration's fit" in text and "older kvplan" not in text, text[-900:])
    r2, _ = result(["--model", "llama-3.1-8b", "--engine", "vllm", "--calibration", cal, "--step-overhead", "0.001"])
    check("--step-overhead on top: the same", r2.get("speed_basis") == "given" and
          r2.get("tokens_per_s_per_user_low") is not None, r2.get("speed_basis"))


def test_versions_tp_and_weights_are_warned():
    cal, status, out, err = sweep("s-010.json", "--gpu", "h100-sxm", "--engine-version", "0.10")
    doc = load(cal) if status == 0 else {}
    check("--engine-version 0.10: the fit runs vLLM's 0.13 rule", doc.get("engine") == "vllm@0.13"
          and "vLLM 0.10 runs kvplan's rule vllm@0.13" in out, (doc.get("engine"), out[-600:]))
    for engine in ("vllm", "vllm@0.17", "vllm@0.20.1"):
        _, err = result(["--model", "llama-3.1-8b", "--engine", engine, "--calibration", cal])
        check("planned under %s: warned naming the release it ran" % engine, "calibration with vLLM 0.10 used on vLLM" in err, err)
    _, err = result(["--model", "llama-3.1-8b", "--calibration", cal])
    check("planned under its own rule: no warning", "warning" not in err, err)
    _, err = result(["--model", "llama-3.1-8b", "--engine", "vllm@0.11", "--calibration", cal])
    check("another release of the same rule: warned by release", "vLLM 0.10 used on vLLM 0.11" in err, err)
    lb = os.path.join(TMP, "lb.json")
    status, out, err = run(["calibrate", os.path.join(BENCH, "llama-bench.json"), "--save", lb])
    check("llama-bench b5721: llama.cpp@mla-kv", status == 0 and load(lb)["engine"] == "llama.cpp@mla-kv",
          status == 0 and load(lb)["engine"])
    _, err = result(["--model", "llama-3.1-8b", "--gpu", "rtx-4090", "--weight-dtype", "q4_0", "--engine",
                     "llama.cpp", "--calibration", lb])
    check("planned as the newest llama.cpp: warned naming the build it ran",
          "calibration with llama.cpp b5721 used on llama.cpp 2026 builds" in err, err)
    cal, status, out, err = sweep("s-tp2.json", "--gpu", "h200", "--gpus", "2", "--tp", "2", "--weight-dtype", "fp8")
    check("the TP 2 fp8 fit saved", status == 0, err[-400:])
    _, err = result(["--model", "llama-3.1-8b", "--gpu", "h200", "--calibration", cal])
    check("used at TP 1: warned by name", "calibration at TP 2 used on TP 1" in err, err)
    check("used with bf16 weights: warned by name", "calibration with fp8 used on weights as released" in err, err)
    _, err = result(["--model", "llama-3.1-8b", "--gpu", "h200", "--gpus", "2", "--tp", "2", "--weight-dtype",
                     "fp8", "--calibration", cal])
    check("used as fitted: no warning", "calibration" not in err, err)


def test_the_use_line_carries_every_option_of_the_fit():
    lb = os.path.join(TMP, "lb-use.json")
    status, out, err = run(["calibrate", os.path.join(BENCH, "llama-bench.json"), "--save", lb])
    words = use_line(out)
    check("llama-bench.json: the use: line has --gpu rtx-4090 and --weight-dtype q4_0",
          words and words[words.index("--gpu") + 1] == "rtx-4090" and
          words[words.index("--weight-dtype") + 1] == "q4_0", words)
    status, pout, perr = run(words[1:] if words else ["plan"])
    check("and runs with no warning", status == 0 and "warning" not in perr, perr)
    status, out, err = run(["calibrate", os.path.join(LOGS, "vllm-03.log"), "--model", "llama-3.1-8b",
                            "--save", os.path.join(TMP, "m3.json")])
    words = use_line(out)
    check("a memory calibration's line names the GPU assumed", words and "--gpu" in words
          and words[words.index("--gpu") + 1] == "h100-sxm", words)
    status, out, err = run(["calibrate", os.path.join(LOGS, "llamacpp-new.log"), "--save", os.path.join(TMP, "ln.json")])
    words = use_line(out)
    check("llamacpp-new.log: its model and weights from Meta-Llama-3.1-8B-Instruct-Q8_0.gguf",
          status == 0 and words and words[words.index("--model") + 1] == "llama-3.1-8b"
          and "--weight-dtype" in words and words[words.index("--weight-dtype") + 1] == "q8_0", (words, err))


def test_implausible_fits_are_warned():
    status, out, err = run(["calibrate", *SWEEP, "--gpu", "h200", "--gpus", "2", "--tp", "2", "--weight-dtype", "fp8"])
    check("the sweep as TP 2 fp8 on H200s: the low MBU warned, with its likely causes",
          "warning: the fitted MBU" in err and "outside 0.30 to 0.95" in err and "fewer GPUs" in err, err)
    check("and the low MFU", "warning: the fitted MFU" in err, err)
    status, out, err = run(["calibrate", os.path.join(BENCH, "llama-bench.md")])
    check("llama-bench.md on the assumed H100: warned, the GPU said to be assumed",
          "warning: the fitted MBU" in err and "assumed" in err, err)
    status, out, err = run(["calibrate", *SWEEP, "--gpu", "h100-sxm"])
    check("the sweep on its H100: no such warning", "fitted MBU" not in err and "fitted MFU" not in err, err)


def test_ollama_keeps_its_slots():
    cal = os.path.join(TMP, "ol.json")
    status, out, err = run(["calibrate", os.path.join(LOGS, "ollama.log"), "--model", "llama-3.1-8b", "--save", cal])
    check("ollama.log saved", status == 0, err)
    r, err = result(["--model", "llama-3.1-8b", "--calibration", cal])
    check("its --parallel 2: 2 users fit", r.get("max_users") == 2, (r.get("max_users"), err))
    status, out, _ = run(["plan", "--model", "llama-3.1-8b", "--calibration", cal])
    check("text: not 'OLLAMA_NUM_PARALLEL unset'", "OLLAMA_NUM_PARALLEL unset" not in out, out[:400])
    r, _ = result(["--model", "llama-3.1-8b", "--calibration", cal, "--parallel", "1"])
    check("--parallel on top wins", r.get("max_users") == 1, r.get("max_users"))


def planner_warning(start_gpu, cal, to_gpu):
    """The planner started on start_gpu with cal, its GPU changed to to_gpu:
    (the main screen's text, the warnings screen's text)."""
    sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
    from ptyterm import PtyTerm
    env = dict(os.environ, XDG_CONFIG_HOME=tempfile.mkdtemp(prefix="kvplan-cal-tui-"))
    env.pop("NO_COLOR", None)
    t = PtyTerm([KVPLAN, "--model", "llama-3.1-8b", "--gpu", start_gpu, "--calibration", cal],
                cols=160, rows=45, env=env)
    try:
        t.wait_for(r"q quit")
        t.settle()
        before = t.text()
        for _ in range(5):  # Context, Model, Stages, TP, GPUs, GPU
            t.press(t.cap("kcuu1"))
        t.settle()
        t.press("\r")
        t.settle()
        t.press(to_gpu)
        t.settle()
        t.press("\r")
        t.settle()
        main_text = t.text()
        t.press("w")
        t.settle()
        return before, main_text, t.text()
    finally:
        t.kill()


def test_the_planner_warning_follows_the_scenario():
    cal, status, out, err = sweep("s-h200.json", "--gpu", "h200")
    before, after, warnings = planner_warning("h100-sxm", cal, "h200")
    check("started on the H100: warned", "calibration from NVIDIA H200" in before
          and "used on NVIDIA H100" in before, before[-600:])
    check("changed to the H200: the plan is the H200's", "on 1 x NVIDIA H200" in after, after[:300])
    check("changed to the H200: no calibration warning", "used on NVIDIA H100" not in after, after[-600:])
    check("nor on the warnings screen", "used on NVIDIA H100" not in warnings, warnings)
    before, after, warnings = planner_warning("h200", cal, "h100-sxm")
    check("started on its H200: no warning", "calibration from" not in before, before[-600:])
    check("changed to the H100: warned naming it", "used on NVIDIA H100" in after or "used on NVIDIA H100" in warnings,
          after[-600:] + warnings)


if __name__ == "__main__":
    main([test_a_log_gives_its_layout_model_version_and_date, test_a_logged_pool_past_the_gpu_does_not_fit,
          test_a_calibrated_band_is_never_falsely_tight, test_mbu_on_top_is_given_with_the_public_band,
          test_versions_tp_and_weights_are_warned, test_the_use_line_carries_every_option_of_the_fit,
          test_implausible_fits_are_warned, test_ollama_keeps_its_slots,
          test_the_planner_warning_follows_the_scenario])
