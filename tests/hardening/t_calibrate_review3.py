#!/usr/bin/python3
"""A third review of plan --calibration from a startup log (the memory table
and the fraction the log ran at):
- a log launched with --gpu-memory-utilization 0.8 is planned at 0.8 when no
  fraction is given (vLLM's budget, round(total x 0.8), the launch line and
  the users the log's 46.10 GiB of KV hold), and moves only when one is given
  on top (0.9: +7.92 GiB, vLLM's budget moving with it);
- with a logged KV cache the memory's parts add up: what the log leaves
  outside the KV cache beside the weights is the log's (budget - weights -
  KV), not kvplan's estimate of the activation peak, so no "over by";
- a logged cache that, with the weights, passes the engine's budget on the
  plan's GPU (an H200 log carried to an H100 at another TP) does not fit:
  fits false and a shortfall, as the memory table shows (policy_common.c
  policy_logged_pool).
Usage: t_calibrate_review3.py path/to/kvplan. Ends with "N passed, N failed"."""
import json
import os

from optionslib import ROOT, TMP, check, main, run, write

LOGS = os.path.join(ROOT, "tests", "data", "logs")
LOG08 = """INFO 05-14 10:02:10 [api_server.py:1043] vLLM API server version 0.10.1
$ vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 16384 --gpu-memory-utilization 0.8
INFO 05-14 10:02:31 [gpu_model_runner.py:1329] Model loading took 14.9889 GiB and 6.412 seconds
INFO 05-14 10:02:42 [gpu_worker.py:276] Available KV cache memory: 46.10 GiB
INFO 05-14 10:02:42 [kv_cache_utils.py:634] GPU KV cache size: 377,632 tokens
INFO 05-14 10:02:42 [kv_cache_utils.py:637] Maximum concurrency for 16,384 tokens per request: 23.05x
"""
GIB = 1 << 30


def plan(args):
    status, out, err = run(["plan", *args, "--format", "json"])
    return (json.loads(out) if status == 0 else {}), err


def text(args):
    return run(["plan", *args])


def test_the_logs_fraction_stands_unless_one_is_given():
    log = os.path.join(TMP, "vllm-08.log")
    write(log, LOG08)
    cal = os.path.join(TMP, "v08.json")
    status, out, err = run(["calibrate", log, "--gpu", "h100-sxm", "--save", cal])
    check("calibrated and saved", status == 0 and os.path.exists(cal), (status, err[-400:]))
    base = ["--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--engine", "vllm", "--calibration", cal]
    doc, err = plan(base)
    r = doc.get("result", {})
    # 46.10 GiB of KV at 128 KiB a token over 8,192-token users: 46 (the log's cache, not moved)
    check("no fraction given: the log's 0.8, 46 users on its 46.10 GiB", r.get("max_users") == 46 and
          "becomes" not in err, (r.get("max_users"), err[-300:]))
    status, out, err = text(base)
    check("the launch line runs at the log's 0.80", "--gpu-memory-utilization 0.80" in out, out[-1500:])
    doc, err = plan(base + ["--gpu-memory-utilization", "0.9"])
    r = doc.get("result", {})
    check("0.9 given on top: the cache moves with vLLM's budget (+7.92 GiB), 54 users",
          r.get("max_users") == 54 and "+7.92 GiB" in err, (r.get("max_users"), err[-300:]))


def test_a_logged_cache_leaves_the_logs_own_remainder():
    log = os.path.join(LOGS, "vllm-v1-startup.log")
    cal = os.path.join(TMP, "v1.json")
    status, out, err = run(["calibrate", log, "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--save", cal])
    check("calibrated from vllm-v1-startup.log", status == 0, (status, err[-400:]))
    status, out, err = text(["--model", "llama-3.1-8b", "--calibration", cal])
    check("the memory's parts add up: no 'over by'", status == 0 and "over by" not in out, out[-1200:])
    doc, _ = plan(["--model", "llama-3.1-8b", "--calibration", cal])
    r = doc.get("result", {})
    check("it fits", r.get("fits") is True and r.get("shortfall_bytes_per_gpu") == 0, r.get("fits"))
    pool = r.get("kv_pool_bytes")
    # the log's 442,432 tokens at its bf16 cache (128 KiB a token) are 54.01 GiB: an fp8
    # cache on top holds twice the tokens in the same memory (CLI and planner alike)
    doc, _ = plan(["--model", "llama-3.1-8b", "--calibration", cal, "--kv-dtype", "fp8"])
    f8 = doc.get("result", {})
    check("--kv-dtype fp8 on top: the same memory, twice the users (108)",
          f8.get("kv_pool_bytes") == pool and f8.get("max_users") == 108,
          (pool, f8.get("kv_pool_bytes"), f8.get("max_users")))
    # fp8 weights free 7.48 GiB that vLLM's budget gives the cache
    status, out, err = run(["plan", "--model", "llama-3.1-8b", "--calibration", cal, "--weight-dtype",
                            "fp8", "--format", "json"])
    w8 = json.loads(out)["result"] if status == 0 else {}
    check("--weight-dtype fp8 on top: the cache grows by what the weights free (61 users)",
          w8.get("max_users") == 61 and "--weight-dtype:" in err and "+7.48 GiB" in err,
          (w8.get("max_users"), err[-300:]))


def test_a_logged_cache_past_the_engines_budget_does_not_fit():
    sg = os.path.join(LOGS, "sglang-02.log")
    cal = os.path.join(TMP, "sg-h200.json")
    status, out, err = run(["calibrate", sg, "--gpu", "h200", "--save", cal])
    check("sglang-02.log calibrated on its H200", status == 0, (status, err[-400:]))
    # the log's --tp 8 over its 8 GPUs: the use line says so, or a plan may pick another layout
    check("the use line carries --tp 8 beside --gpus 8", "--gpus 8 --tp 8" in out, out[-400:])
    # carried to 8 x H100 at TP 4, another GPU and split: the log's difference from kvplan's
    # rule on its own H200 at its TP 8 (-1.59 GiB) is what carries, onto the rule here (the
    # cache per GPU of TP 8's weights had been kept, past TP 4's budget: no fit)
    args = ["--model", "llama-3.3-70b", "--gpus", "8", "--tp", "4", "--calibration", cal]
    doc, err = plan(args)
    r = doc.get("result", {})
    own, _ = plan(["--model", "llama-3.3-70b", "--gpus", "8", "--tp", "4", "--engine", "sglang"])
    n, m = r.get("max_users") or 0, own.get("result", {}).get("max_users") or 0
    check("carried to 8 x H100 at TP 4: the rule there less the log's difference (%s users, the rule %s)"
          % (n, m), r.get("fits") is True and 0 < n <= m and n >= 0.9 * m, (r.get("fits"), n, m))
    check("the warning says the split and what carries",
          "calibration at TP 8 used on TP 4" in err and "only its difference" in err, err[-500:])
    # a logged cache past the engine's budget does not fit, and says so (--kv-memory on top)
    args = ["--model", "llama-3.3-70b", "--gpus", "8", "--tp", "8", "--gpu", "h200", "--calibration", cal,
            "--kv-memory", "200GiB"]
    doc, err = plan(args)
    r = doc.get("result", {})
    check("200 GiB on an H200: no fit, a shortfall", r.get("fits") is False and
          (r.get("shortfall_bytes_per_gpu") or 0) > 10 * GIB and r.get("max_users") == 0,
          (r.get("fits"), r.get("shortfall_bytes_per_gpu"), r.get("max_users")))
    status, out, err = text(args)
    check("the headline says the engine's budget is passed",
          "DOES NOT FIT" in out and "the engine's budget" in out, out[:600])


def test_a_summary_figure_that_is_no_number_is_refused():
    with open(os.path.join(ROOT, "tests", "data", "bench", "vllm-serve.txt")) as f:
        good = f.read()
    for bad, shown in (("abc", "'abc'"), ("-10.21", "'-10.21'")):
        lines = [("Mean TPOT (ms):                          " + bad) if l.startswith("Mean TPOT (ms):") else l
                 for l in good.splitlines()]
        path = os.path.join(TMP, "bad-tpot.txt")
        write(path, "\n".join(lines) + "\n")
        n = next(i for i, l in enumerate(lines, 1) if l.startswith("Mean TPOT (ms):"))
        status, out, err = run(["calibrate", path, "--model", "llama-3.1-8b"])
        check("Mean TPOT (ms): %s: exit 2 naming the file, line and field" % bad,
              status == 2 and ("bad-tpot.txt:%d: Mean TPOT (ms) %s" % (n, shown)) in err, (status, err[-300:]))
    status, out, err = run(["calibrate", os.path.join(ROOT, "tests", "data", "bench", "vllm-serve.txt"),
                            "--model", "llama-3.1-8b"])
    check("the sample itself still reads", status == 0, err[-300:])
    # --save-result JSON: max_concurrency null (no limit) or a whole number of 1 or more
    with open(os.path.join(ROOT, "tests", "data", "bench", "vllm-serve.json")) as f:
        doc = json.load(f)
    for bad in (-3, "eight", 2.5):
        doc["max_concurrency"] = bad
        path = os.path.join(TMP, "bad-conc.json")
        write(path, json.dumps(doc))
        status, out, err = run(["calibrate", path, "--model", "llama-3.1-8b"])
        check("max_concurrency %r: exit 2 naming the file and field" % (bad,),
              status == 2 and "bad-conc.json:1: max_concurrency is not a number of requests" in err,
              (status, err[-300:]))


if __name__ == "__main__":
    main([test_the_logs_fraction_stands_unless_one_is_given, test_a_logged_cache_leaves_the_logs_own_remainder,
          test_a_logged_cache_past_the_engines_budget_does_not_fit,
          test_a_summary_figure_that_is_no_number_is_refused])
