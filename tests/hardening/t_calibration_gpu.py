#!/usr/bin/python3
"""A memory calibration used on another GPU than the one its log ran on: no
absolute bytes carry over. A logged KV cache size keeps only its difference
from kvplan's rule on the logged GPU (the non-KV memory the log implies), so
the plan lands near the engine rule's on the new GPU, never at the old GPU's
pool, and never below nothing when the memory fraction is lowered; a logged
CUDA total gives way to the new GPU's. The mismatch is one of the plan's
warnings (text report and JSON result.warnings), not standard error only.
Usage: t_calibration_gpu.py path/to/kvplan. Ends with "N passed, N failed"."""
import json
import os

from optionslib import ROOT, TMP, check, main, run

LOGS = os.path.join(ROOT, "tests", "data", "logs")
# a minimal vLLM V1 startup: the cache's bytes and tokens, nothing else
V1_LOG = ("INFO 05-14 10:02:14 [api_server.py:1043] vLLM API server version 0.8.5\n"
          "INFO 05-14 10:02:40 [gpu_worker.py:227] Available KV cache memory: 54.12 GiB\n"
          "INFO 05-14 10:02:42 [kv_cache_utils.py:634] GPU KV cache size: 443,344 tokens\n")
PLAN = ["plan", "--engine", "vllm", "--model", "llama-3.1-8b"]


def calibration():
    log = os.path.join(TMP, "v1-min.log")
    with open(log, "w") as f:
        f.write(V1_LOG)
    cal = os.path.join(TMP, "v1-min.cal.json")
    status, out, err = run(["calibrate", log, "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--save", cal])
    check("the minimal V1 log calibrates", status == 0 and os.path.exists(cal), out + err)
    return cal


def result(args):
    status, out, err = run(PLAN + args + ["--format", "json"])
    return status, (json.loads(out)["result"] if status == 0 else None), err


def test_cache_size_keeps_only_its_difference_from_the_rule():
    cal = calibration()
    _, plain, _ = result(["--gpu", "h200"])
    status, r, err = result(["--gpu", "h200", "--calibration", cal])
    users, rule = (r or {}).get("max_users", 0), (plain or {}).get("max_users", 0)
    check("H200 with the H100's calibration: near the rule's users, not the H100's",
          status == 0 and rule > 100 and abs(users - rule) <= 2, (users, rule, err))
    _, same, _ = result(["--gpu", "h100-sxm", "--calibration", cal])
    check("on its own GPU the logged cache still rules", same and same["max_users"] == 54, same)
    status, r, err = result(["--gpu", "h200", "--calibration", cal, "--gpu-memory-utilization", "0.5"])
    _, plain, _ = result(["--gpu", "h200", "--gpu-memory-utilization", "0.5"])
    check("at a lower fraction on the H200: a pool, near the rule's",
          status == 0 and r["max_users"] > 40 and abs(r["max_users"] - plain["max_users"]) <= 2,
          (r and r["max_users"], plain and plain["max_users"], err))


def test_the_mismatch_is_a_plan_warning():
    cal = calibration()
    status, r, err = result(["--gpu", "h200", "--calibration", cal])
    warned = [w for w in (r or {}).get("warnings", []) if "calibration from NVIDIA H100" in w]
    check("JSON result.warnings holds the mismatch", status == 0 and len(warned) == 1, r and r["warnings"])
    check("and says what was applied", warned and "difference from kvplan's rule" in warned[0], warned)
    status, out, err = run(PLAN + ["--gpu", "h200", "--calibration", cal])
    check("the text report lists it under Warnings", status == 0 and "Warnings" in out and
          "  ! calibration from NVIDIA H100 SXM5 80GB used on NVIDIA H200 SXM 141GB" in out, out[-800:])
    status, r, err = result(["--gpu", "h100-sxm", "--calibration", cal])
    # (its log states vLLM 0.8.5, kvplan's 0.13 rule: under --engine vllm that is warned, not the GPU)
    check("its own GPU: no calibration warning of the GPU",
          status == 0 and not any("calibration from" in w for w in r["warnings"]), r and r["warnings"])


def test_a_logged_total_gives_way_to_the_gpus_own():
    mem = os.path.join(TMP, "a100-memory.json")
    status, out, err = run(["calibrate", os.path.join(LOGS, "vllm-03.log"), "--model", "llama-3-8b",
                            "--gpu", "a100-40gb", "--save", mem])
    check("the V0 log calibrates", status == 0, out + err)
    base = ["plan", "--model", "llama-3-8b", "--engine", "vllm", "--gpu", "h100-sxm", "--format", "json"]
    status, out, err = run(base + ["--calibration", mem])
    r = json.loads(out)["result"] if status == 0 else {}
    status, out2, _ = run(base)
    plain = json.loads(out2)["result"] if status == 0 else {}
    check("H100 with an A100 40GB total: the H100's pool, not a 40 GB one",
          r.get("max_users", 0) > 0.8 * plain.get("max_users", 1), (r.get("max_users"), plain.get("max_users")))
    check("and says the non-KV memory alone is applied",
          any("only its non-KV memory" in w for w in r.get("warnings", [])), r.get("warnings"))


if __name__ == "__main__":
    main([test_cache_size_keeps_only_its_difference_from_the_rule, test_the_mismatch_is_a_plan_warning,
          test_a_logged_total_gives_way_to_the_gpus_own])
