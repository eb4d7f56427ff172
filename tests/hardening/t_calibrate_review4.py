#!/usr/bin/python3
"""A fourth review of kvplan calibrate and plan --calibration (issue 19):
- a llama.cpp / Ollama log's KV size is of the log's own -c and -np, not a
  cap on the plan: llama.cpp sizes its cache from n_ctx (src/llama-context.cpp
  sets n_ctx_seq from -c over -np; the llama_kv_cache constructor,
  src/llama-kv-cache.cpp, makes each layer's K and V tensors of kv_size
  cells), so the plan's own --context and --parallel size the cache; a log
  whose bytes per cell differ from the plan's rule is said;
- a log's own CUDA-visible total (vllm-03.log: 39.50 GiB) is set against the
  GPU preset assumed or given, at calibrate and at plan, naming both;
- a truncated or broken JSON file is said to be invalid JSON naming file,
  line and column (cJSON's stop), exit 2, not "no engine recognised";
- a TGI log's calibration is refused honestly (exit 2): kvplan has no TGI
  profile and the generic rule takes no logged cache, so the file had been
  saved and then silently ignored; one saved before is refused by plan;
- a benchmark that states no version is "version unknown", never the
  newest rule's release ("vLLM 0.21"), and a calibration is named by the
  release it ran ("llama.cpp b5721"), not by kvplan's rule for it;
- a memory calibration is shown: a "Calibration" line in text and Markdown,
  a "calibration" object in JSON (file, kind, the log, GPU, model, engine),
  and the KV pool's explain row names the file, not "(--kv-memory)" (the
  planner's y copy: tests/unit/test_planner_calibration.c);
- a calibrated band holds for the users and prompts its fit's points were
  measured at: the vllm-sweep's first token was fitted at 1 user with
  1,024-token prompts (its own TTFT at 64 users is -36% off the plan's), so
  a plan at other users or prompts takes the public cases' band, the band
  text and the plan's warning saying so (a snapshot too).
Usage: t_calibrate_review4.py path/to/kvplan. Ends with "N passed, N failed"."""
import json
import os

from optionslib import ROOT, TMP, check, main, run, write

LOGS = os.path.join(ROOT, "tests", "data", "logs")
GIB = 1 << 30


def plan(args):
    status, out, err = run(["plan", *args, "--format", "json"])
    return (json.loads(out) if status == 0 else {}), err


def ollama_calibration():
    cal = os.path.join(TMP, "ollama.json")
    status, out, err = run(["calibrate", os.path.join(LOGS, "ollama.log"), "--model", "llama-3.1-8b",
                            "--gpu", "h100-sxm", "--save", cal])
    check("ollama.log saved", status == 0 and os.path.exists(cal), err[-300:])
    return cal


def test_a_llamacpp_logs_cache_follows_the_plans_context_and_slots():
    cal = ollama_calibration()
    # the log: 16,384 cells, 2 slots, 2.00 GiB (128 KiB a cell)
    doc, err = plan(["--calibration", cal])
    r = doc.get("result", {})
    check("as the log ran: 2 slots of 8,192, a 2.00 GiB cache", r.get("max_users") == 2 and
          r.get("kv_used_bytes_per_gpu") == 2 * GIB, (r.get("max_users"), r.get("kv_used_bytes_per_gpu")))
    doc, err = plan(["--calibration", cal, "--context", "32768", "--parallel", "4"])
    r = doc.get("result", {})
    # 131,072 cells x 128 KiB = 16 GiB, which an H100 holds beside 15 GiB of weights
    check("--context 32768 --parallel 4: 4 slots, a 16 GiB cache (the log's 2 GiB no cap)",
          r.get("fits") is True and r.get("max_users") == 4 and
          r.get("kv_used_bytes_per_gpu") == 16 * GIB,
          (r.get("fits"), r.get("max_users"), r.get("kv_used_bytes_per_gpu"), err[-300:]))
    check("the plan's pool is the budget's, not the log's cache",
          r.get("kv_pool_bytes_per_gpu", 0) > 16 * GIB, r.get("kv_pool_bytes_per_gpu"))
    doc, err = plan(["--calibration", cal, "--parallel", "1"])
    r = doc.get("result", {})
    check("--parallel 1: a 1 GiB cache, not the log's 2 GiB", r.get("max_users") == 1 and
          r.get("kv_used_bytes_per_gpu") == GIB, (r.get("max_users"), r.get("kv_used_bytes_per_gpu")))
    check("the log's cells match the rule: no warning", "warning" not in err, err[-300:])


def test_a_llamacpp_log_of_other_cells_is_said():
    cal = ollama_calibration()
    with open(cal) as f:
        doc = json.load(f)
    check("the file keeps the log's cache types", doc.get("cache_type_k") == "fp16" and
          doc.get("cache_type_v") == "fp16", doc)
    # checked at the log's own types (f16): another --kv-dtype for the plan is no mismatch
    _, err = plan(["--calibration", cal, "--kv-dtype", "q8_0"])
    check("--kv-dtype q8_0 on an f16 log: no warning (the rule sizes the q8_0 cache)",
          "B a cell" not in err, err[-400:])
    doc["figures"]["KV cache memory"] = 3 * GIB
    odd = write("ollama-odd.json", json.dumps(doc))
    _, err = plan(["--calibration", odd])
    check("a log whose bytes a cell are not the rule's: both named",
          "196608 B a cell" in err and "131072 B a cell" in err and "the log's cache types" in err, err[-400:])


def test_a_logs_own_gpu_total_is_set_against_the_presets():
    log = os.path.join(LOGS, "vllm-03.log")
    cal = os.path.join(TMP, "v03.json")
    status, out, err = run(["calibrate", log, "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--save", cal])
    check("calibrate on h100-sxm: the log's 39.50 GiB against the preset's 79.22 GiB",
          status == 0 and "vllm-03.log:1:" in err and "39.50 GiB" in err and "79.22 GiB" in err and
          "h100-sxm" in err, (status, err[-400:]))
    doc, err = plan(["--calibration", cal, "--model", "llama-3.1-8b", "--gpu", "h100-sxm"])
    check("plan on h100-sxm: warned naming both", "warning" in err and "39.50 GiB" in err and
          "79.22 GiB" in err, err[-400:])
    cal40 = os.path.join(TMP, "v03-40.json")
    status, out, err = run(["calibrate", log, "--model", "llama-3.1-8b", "--gpu", "a100-40gb", "--save", cal40])
    check("calibrate on a100-40gb: no such warning", status == 0 and "CUDA-visible GPU memory is" not in err,
          err[-400:])
    doc, err = plan(["--calibration", cal40, "--model", "llama-3.1-8b", "--gpu", "a100-40gb"])
    check("plan on a100-40gb: no such warning", "CUDA-visible GPU memory is" not in err, err[-400:])


def test_invalid_json_is_said_as_such():
    with open(os.path.join(ROOT, "tests", "data", "bench", "vllm-serve.json")) as f:
        text = f.read()
    cut = write("cut.json", text[: len(text) // 2])
    status, out, err = run(["calibrate", cut, "--model", "llama-3.1-8b"])
    check("a truncated --save-result: exit 2, 'JSON ends too early' at its line and column",
          status == 2 and "cut.json:" in err and "ends too early" in err and
          "no engine recognised" not in err, (status, err[-300:]))
    bad = write("bad.json", '{"backend": "vllm",\n "completed": x}\n')
    status, out, err = run(["calibrate", bad, "--model", "llama-3.1-8b"])
    check("a broken object: exit 2, bad.json:2:15: not valid JSON", status == 2 and
          "bad.json:2:15: not valid JSON" in err, (status, err[-300:]))
    with open(os.path.join(ROOT, "tests", "data", "bench", "llama-bench.json")) as f:
        text = f.read()
    arr = write("arr.json", text[:300])
    status, out, err = run(["calibrate", arr, "--model", "llama-3.1-8b"])
    check("a truncated llama-bench array: exit 2, invalid JSON with line:column",
          status == 2 and "arr.json:10:6: not valid JSON" in err and "truncated" in err,
          (status, err[-300:]))


def test_a_tgi_calibration_is_refused_not_ignored():
    log = os.path.join(LOGS, "tgi-01.log")
    cal = os.path.join(TMP, "tgi.json")
    status, out, err = run(["calibrate", log, "--model", "llama-2-70b", "--gpu", "a100-80gb", "--tp", "4",
                            "--save", cal])
    check("calibrate --save of a TGI log: exit 2, nothing written, saying why",
          status == 2 and not os.path.exists(cal) and "no TGI profile" in err, (status, err[-300:]))
    status, out, err = run(["calibrate", log, "--model", "llama-2-70b", "--gpu", "a100-80gb", "--tp", "4"])
    check("without --save it still compares", status == 0 and "KV tokens: predicted" in out, out[-300:])
    old = write("tgi-old.json", json.dumps({
        "format": "kvplan-calibration", "format_version": 1, "engine": "generic", "log_engine": "TGI",
        "log": "tgi-01.log", "model": "llama-2-70b", "gpu": "a100-80gb", "gpu_name": "NVIDIA A100 SXM4 80GB",
        "tp": 4, "weight_dtype": "auto", "figures": {"KV cache tokens": 406560}}, indent=1))
    status, out, err = run(["plan", "--calibration", old, "--model", "llama-2-70b", "--gpu", "a100-80gb",
                            "--gpus", "4"])
    check("plan --calibration of a TGI file saved before: exit 2 naming file, line and field",
          status == 2 and out == "" and "tgi-old.json:" in err and "engine:" in err and
          "TGI" in err, (status, err[-300:]))


def test_a_benchmark_of_no_version_is_version_unknown():
    bench = os.path.join(ROOT, "tests", "data", "bench")
    cal = os.path.join(TMP, "vs.json")
    status, out, err = run(["calibrate", os.path.join(bench, "vllm-serve.txt"), "--model", "llama-3.1-8b",
                            "--save", cal])
    check("calibrate: 'vLLM, version unknown', the rule said as kvplan's",
          status == 0 and "Llama 3.1 8B, vLLM, version unknown (planned by kvplan's" in out, out[-1500:])
    status, out, err = run(["plan", "--calibration", cal, "--engine", "vllm@0.13"])
    check("plan under another rule: 'calibration with vLLM, version unknown used on vLLM 0.13'",
          "calibration with vLLM, version unknown used on vLLM 0.13" in err and
          "with vLLM 0.21" not in err, err[-400:])
    check("the plan's calibration line says version unknown", "vLLM, version unknown" in out and
          "vLLM 0.21, 20" not in out, out[-2000:])
    lb = os.path.join(TMP, "lb.json")
    status, out, err = run(["calibrate", os.path.join(bench, "llama-bench.json"), "--save", lb])
    check("llama-bench b5721: fitted for llama.cpp b5721", status == 0 and "llama.cpp b5721" in out and
          "llama.cpp@mla-kv\n" not in out, out[-1500:])
    status, out, err = run(["plan", "--calibration", lb, "--model", "llama-3.1-8b", "--gpu", "rtx-4090",
                            "--weight-dtype", "q4_0", "--engine", "llama.cpp"])
    check("plan under the newest llama.cpp: the calibration named by its build",
          "calibration with llama.cpp b5721 used on" in err and "2025 builds used" not in err, err[-400:])


LOG08 = """INFO 05-14 10:02:10 [api_server.py:1043] vLLM API server version 0.10.1
$ vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 16384 --gpu-memory-utilization 0.8
INFO 05-14 10:02:31 [gpu_model_runner.py:1329] Model loading took 14.9889 GiB and 6.412 seconds
INFO 05-14 10:02:42 [gpu_worker.py:276] Available KV cache memory: 46.10 GiB
INFO 05-14 10:02:42 [kv_cache_utils.py:634] GPU KV cache size: 377,632 tokens
"""


def test_a_memory_calibration_is_shown():
    log = write("vllm-08.log", LOG08)
    cal = os.path.join(TMP, "v08.json")
    status, out, err = run(["calibrate", log, "--gpu", "h100-sxm", "--save", cal])
    check("saved", status == 0, err[-300:])
    base = ["plan", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--calibration", cal]
    status, out, err = run(base)
    line = [l for l in out.splitlines() if l.strip().startswith("Calibration")]
    check("text: a Calibration line naming the file, the log, its engine, GPU, model and release",
          len(line) == 1 and cal in line[0] and "vllm-08.log" in line[0] and "vLLM V1" in line[0] and
          "NVIDIA H100 SXM5 80GB" in line[0] and "llama-3.1-8b" in line[0] and "vLLM 0.10.1" in line[0],
          line or out[:1500])
    check("the KV pool row names the calibration, not --kv-memory",
          "the KV cache memory the log gave (--calibration %s)" % cal in out and "(--kv-memory)" not in out,
          out[-3000:])
    status, out, err = run(base + ["--format", "markdown"])
    check("Markdown: a Calibration row", "| Calibration | memory from " in out and "v08.json" in out, out[:1500])
    doc, err = plan(base[1:])
    c = doc.get("calibration", {})
    check("JSON: the calibration object", c.get("file") == cal and c.get("kind") == "memory" and
          c.get("gpu") == "h100-sxm" and c.get("model") == "llama-3.1-8b" and c.get("engine_version") == "0.10.1"
          and c.get("log_engine") == "vLLM V1" and c.get("applied") == "kv_cache_size", c)
    doc, err = plan(["--model", "llama-3.1-8b", "--kv-memory", "40GiB", "--engine", "vllm"])
    check("without a calibration: no calibration object, the row says --kv-memory",
          "calibration" not in doc and any(e.get("formula", "").endswith("(--kv-memory)")
                                           for e in doc.get("result", {}).get("explain", [])), list(doc))


def test_a_calibrated_band_holds_at_its_fits_shape_only():
    sweep_dir = os.path.join(ROOT, "tests", "data", "bench", "vllm-sweep")
    sweep = [os.path.join(sweep_dir, n) for n in sorted(os.listdir(sweep_dir))]
    cal = os.path.join(TMP, "sweep.json")
    status, out, err = run(["calibrate", *sweep, "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--save", cal])
    check("the sweep saved", status == 0, err[-300:])
    base = ["--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--calibration", cal]
    doc, err = plan(base + ["--concurrency", "1", "--prompt", "1024"])
    r = doc.get("result", {})
    check("at the fit's 1 user and 1,024-token prompt: the first token's own stated +/-10%",
          r.get("ttft_band", {}).get("group") == "the calibration's own fit" and r.get("ttft_seconds_low") and
          abs(r["ttft_seconds_low"] / r["ttft_seconds"] - 0.9) < 1e-9, r.get("ttft_band"))
    doc, err = plan(base + ["--concurrency", "64", "--prompt", "1024"])
    r = doc.get("result", {})
    low, high = r.get("ttft_seconds_low") or 0, r.get("ttft_seconds_high") or 0
    check("at 64 users: the public cases' band, wider than +/-10%",
          r.get("ttft_band", {}).get("group") != "the calibration's own fit" and r.get("ttft_seconds") and
          (low / r["ttft_seconds"] < 0.9 or high / r["ttft_seconds"] > 1.1), (r.get("ttft_band"), low, high))
    check("the decode band at 64 users (within the fit's 1 to 64) stays the fit's own",
          r.get("speed_band", {}).get("group") == "the calibration's own fit", r.get("speed_band"))
    warnings = " ".join(w.get("text", "") if isinstance(w, dict) else str(w) for w in r.get("warnings", []))
    check("the plan's warning says why", "first token fitted at 1 user a server with 1,024-token prompts, "
          "used at 64 users" in warnings, warnings[-500:])
    status, out, err = run(["plan", *base, "--concurrency", "64", "--prompt", "1024"])
    check("the band text names users or prompt", "weight precision, users or prompt than this plan's" in out,
          out[-1500:])
    doc, err = plan(base + ["--concurrency", "200", "--prompt", "1024"])
    r = doc.get("result", {})
    check("at 200 users, past the decode points' 64: the decode band is the public one too",
          r.get("speed_band", {}).get("group") != "the calibration's own fit", r.get("speed_band"))
    snap = os.path.join(TMP, "shape-snap.json")
    run(["plan", *base, "--concurrency", "64", "--prompt", "1024", "--export", snap])
    doc, err = plan(["--load", snap])
    r = doc.get("result", {})
    check("a snapshot keeps where the band holds: the public band at 64 users",
          r.get("ttft_band", {}).get("group") != "the calibration's own fit", (r.get("ttft_band"), err[-300:]))
    doc, err = plan(["--load", snap, "--concurrency", "1"])
    r = doc.get("result", {})
    check("and the fit's own at 1 user", r.get("ttft_band", {}).get("group") == "the calibration's own fit",
          (r.get("ttft_band"), err[-300:]))


if __name__ == "__main__":
    main([test_a_llamacpp_logs_cache_follows_the_plans_context_and_slots,
          test_a_llamacpp_log_of_other_cells_is_said, test_a_logs_own_gpu_total_is_set_against_the_presets,
          test_invalid_json_is_said_as_such, test_a_tgi_calibration_is_refused_not_ignored,
          test_a_benchmark_of_no_version_is_version_unknown, test_a_memory_calibration_is_shown,
          test_a_calibrated_band_holds_at_its_fits_shape_only])
