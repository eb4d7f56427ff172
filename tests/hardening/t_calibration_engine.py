#!/usr/bin/python3
"""A memory calibration used under another engine: the log's KV cache and its
memory outside the cache are that engine's budget, not this one's, so they
are not applied (the plan is this engine's own rule) and the warning says
so; the same engine keeps them. A vLLM startup log (tests/data/logs/vllm-v1-startup.log)
used under SGLang gave "DOES NOT FIT" where SGLang's own rule fits 12 users.
Usage: t_calibration_engine.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import subprocess
import sys
import tempfile
from tally import check  # noqa: E402
import tally  # noqa: E402

K = sys.argv[1]
ENV = {"XDG_CONFIG_HOME": "/nonexistent", "PATH": "/usr/bin:/bin"}
LOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "logs", "vllm-v1-startup.log")


def run(*args):
    p = subprocess.run([K, *args], capture_output=True, text=True, timeout=60, env=ENV)
    return p.returncode, p.stdout, p.stderr


def users(*args):
    rc, out, err = run("plan", *args, "--format", "json")
    return (json.loads(out)["result"]["max_users"] if rc == 0 else None), err


with tempfile.TemporaryDirectory() as d:
    cal = os.path.join(d, "v.cal")
    rc, out, err = run("calibrate", LOG, "--save", cal)
    check(rc == 0, "calibrate the vLLM log: %d %s" % (rc, err[-300:]))
    plan = ["--model", "llama-3.1-8b", "--context", "32k"]
    own, _ = users(*plan, "--engine", "sglang")
    got, err = users(*plan, "--engine", "sglang", "--calibration", cal)
    check(got == own and got and got > 0, "SGLang with a vLLM calibration: %s users, its own rule %s" % (got, own))
    check("is not applied: planned from SGLang's own rule" in err and "vLLM" in err,
          "the warning says the log's cache is not applied: %r" % err[-400:])
    rc, out, err = run("plan", *plan, "--engine", "sglang", "--calibration", cal)
    check(rc == 0 and "DOES NOT FIT" not in out, "no false 'does not fit'")
    # under vLLM the logged cache stays the plan's
    rc, out, err = run("plan", *plan, "--engine", "vllm", "--calibration", cal, "--format", "json")
    check(rc == 0 and "not applied" not in err, "vLLM keeps the log's figures: %r" % err[-300:])
    # solve and sweep rows on another GPU move the logged cache as plan does on that GPU
    # (issue 19: an H100 log on an H200 had given 13 users, not 27)
    want = {}
    for g in ("h200", "b200", "mi300x"):
        want[g], _ = users("--gpu", g, "--engine", "vllm", "--model", "llama-3.1-8b", "--context", "32k",
                           "--calibration", cal)
    rc, out, err = run("sweep", "--vary", "gpu=all", "--engine", "vllm", "--model", "llama-3.1-8b",
                       "--context", "32k", "--calibration", cal, "--format", "json")
    rows = {r["gpu"]: r["max_users"] for r in json.loads(out)} if rc == 0 else {}
    check(all(rows.get(g) == n for g, n in want.items()) and want["h200"] > 20,
          "sweep's rows are plan's on each GPU: %s against %s" % ({g: rows.get(g) for g in want}, want))
    # another split (the log's TP 1 at 2 GPUs): its difference from the rule carries, not its
    # bytes of TP 1 (13 users had been the answer at 2 GPUs, as at 1); sweep's rows the same
    for extra in (["--gpus", "2"], ["--gpus", "2", "--tp", "2"], ["--gpus", "4"]):
        cal_n, err2 = users("--engine", "vllm", "--model", "llama-3.1-8b", "--context", "32k", "--calibration", cal,
                            *extra)
        own_n, _ = users("--engine", "vllm", "--model", "llama-3.1-8b", "--context", "32k", *extra)
        check(cal_n and own_n and 0.9 * own_n <= cal_n <= own_n, "%s: %s users, the rule %s" % (extra, cal_n, own_n))
    rc, out, err = run("sweep", "--vary", "gpus=1..4", "--engine", "vllm", "--model", "llama-3.1-8b",
                       "--context", "32k", "--calibration", cal, "--format", "json")
    rows = [r["max_users"] for r in json.loads(out)] if rc == 0 else []
    want = [users("--engine", "vllm", "--model", "llama-3.1-8b", "--context", "32k", "--calibration", cal,
                  "--gpus", str(g))[0] for g in (1, 2, 3, 4)]
    check(rows == want, "sweep --vary gpus: %s, plan %s" % (rows, want))
    rc, out, err = run("solve", "--users", "20", "--gpu", "h200", "--engine", "vllm", "--model", "llama-3.1-8b",
                       "--context", "32k", "--calibration", cal, "--format", "json")
    doc = json.loads(out) if rc == 0 else {}
    rows = doc.get("rows") or doc.get("result", {}).get("rows") or []
    check(rc == 0 and rows and rows[0].get("gpus") == 1, "solve: one H200 holds 20: %s" % (rows[:1] or out[:300]))

# solve and sweep rows on another GPU than the calibration's say so, by name, as plan does;
# past three GPUs, how many more
SWEEP = sorted(os.path.join(os.path.dirname(LOG), "..", "bench", "vllm-sweep", f)
               for f in os.listdir(os.path.join(os.path.dirname(LOG), "..", "bench", "vllm-sweep")))
with tempfile.TemporaryDirectory() as d:
    cal = os.path.join(d, "s.cal")
    rc, out, err = run("calibrate", *SWEEP, "--save", cal)
    check(rc == 0, "calibrate the sweep: %s" % err[-200:])
    rc, out, err = run("solve", "--users", "50", "--model", "llama-3.1-8b", "--engine", "vllm", "--gpu", "h200",
                       "--calibration", cal)
    check(rc == 0 and "used on NVIDIA H200" in err and "the rows of NVIDIA H200" in err,
          "solve's H200 row warns: %r" % err[-300:])
    rc, out, err = run("sweep", "--vary", "gpu=all", "--model", "llama-3.1-8b", "--engine", "vllm",
                       "--calibration", cal)
    check(rc == 0 and err.count("kvplan: warning: calibration from") == 3 and "more GPUs than its own" in err,
          "sweep over every GPU: three named, the rest counted: %r" % err[-300:])
    # a calibrated figure whose band is the public cases' says so in JSON
    rc, out, err = run("plan", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--engine", "vllm", "--context",
                       "32k", "--calibration", cal, "--format", "json")
    r = json.loads(out)["result"] if rc == 0 else {}
    check(r.get("ttft_basis") == "calibrated" and r.get("ttft_band", {}).get("public_band") is True,
          "the first token's band at 32k is the public one: %s" % r.get("ttft_band"))
    rc, out, err = run("sweep", "--vary", "context=1k..8k", "--model", "llama-3.1-8b", "--engine", "vllm",
                       "--calibration", cal)
    check(rc == 0 and "warning" not in err, "its own GPU: no warning: %r" % err[-200:])

# the planner's versus says so on a card whose plan warns of its calibration
with tempfile.TemporaryDirectory() as d:
    cal = os.path.join(d, "m.cal")
    run("calibrate", LOG, "--save", cal)
    # A at the log's own release (0.8.5) and GPU warns of nothing; B on the next GPU does
    rc, screen, err = run("--model", "llama-3.1-8b", "--engine", "vllm@0.8.5", "--context", "32k",
                          "--calibration", cal, "--dump-screen", "-", "--size", "120x40",
                          "--keys", "n<Up><Up><Up><Up><Up><Right>v")
    check(rc == 0 and screen.count("calibration warned") == 1, "versus: B (another GPU) marked, A not: %s" % screen[:400])
tally.finish()
