#!/usr/bin/python3
"""plan --output-len: the decode of a closed loop (vllm bench serve --max-concurrency C).

- With --prompt P --output-len O each user decodes at P + O/2 tokens and its
  steps carry the others' prompts: JSON `closed_loop` gives the step, what one
  prompt adds, the prompts shared and the TPOT, and tokens_per_s_per_user is
  1 / tpot_seconds; text and Markdown say so ("Others' prompts", "Output").
- A service level is held by the loop's TPOT (with --min-tok-s the users at
  the service level decode at least that fast in the loop).
- Prompt and output longer than --context are refused naming --output-len,
  exit 2; so is a snapshot's output_tokens out of range, naming the field.
- The snapshot keeps it (export, --load: the same figure) and the launch line
  in the JSON's command carries it.
- Measured: the closed loop is what a serving benchmark's TPOT is; on the
  InferenceX case sglang-mi355x8-deepseek-r1-fp8-8192-1024-c32 (26.43 ms) the
  step alone is 30% short and the loop within 20% (doc/SPEED-VALIDATION.md).
Usage: t_output_len.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import subprocess
import sys
import tempfile
from tally import check  # noqa: E402
import tally  # noqa: E402

K = sys.argv[1]
ENV = {"XDG_CONFIG_HOME": "/nonexistent", "PATH": "/usr/bin:/bin"}
BASE = ["--model", "llama-3.1-8b", "--engine", "vllm", "--context", "4096", "--prompt", "2048"]


def run(*args):
    p = subprocess.run([K, *args], capture_output=True, text=True, timeout=60, env=ENV)
    return p.returncode, p.stdout, p.stderr


def plan(*args, fmt="json"):
    rc, out, err = run("plan", *args, "--format", fmt)
    return rc, (json.loads(out) if fmt == "json" and rc == 0 else out), err


# 1. the loop's figures, consistent with each other
rc, doc, err = plan(*BASE, "--concurrency", "32")
check(rc == 0, "step alone: exit %d %s" % (rc, err))
alone = doc["result"]
check("closed_loop" not in alone, "no closed_loop without --output-len")
rc, doc, err = plan(*BASE, "--concurrency", "32", "--output-len", "1024")
check(rc == 0, "loop: exit %d %s" % (rc, err))
r = doc["result"]
loop = r.get("closed_loop") or {}
check(loop.get("output_tokens") == 1024, "output_tokens %s" % loop.get("output_tokens"))
check(loop.get("decode_context_tokens") == 2048 + 512, "mean context %s" % loop.get("decode_context_tokens"))
tpot = loop.get("tpot_seconds") or 0
check(tpot > loop.get("step_seconds", 1e9) > 0, "tpot %s above the step %s" % (tpot, loop.get("step_seconds")))
check(abs(r["tokens_per_s_per_user"] - 1 / tpot) < 1e-9 * r["tokens_per_s_per_user"],
      "tok/s %s = 1/tpot %s" % (r["tokens_per_s_per_user"], 1 / tpot if tpot else None))
gaps = 1023
share = loop["prompts_shared"] * loop["prompt_seconds"] / gaps
check(abs(tpot - (loop["step_seconds"] + share)) < 1e-9, "tpot = step + shared prompts / gaps")
check(0 < loop["prompts_shared"] < 31, "prompts shared %s, below the 31 others" % loop["prompts_shared"])
# the step at the loop's mean context reads less than the step at the full context
check(loop["step_seconds"] < alone["decode_step_seconds"], "mean context's step below the full one's")
check("--output-len 1024" in doc["result"].get("command", "") or
      "--output-len 1024" in json.dumps(doc), "the command carries --output-len")

rc, text, err = plan(*BASE, "--concurrency", "32", "--output-len", "1024", fmt="text")
check(rc == 0 and "Others' prompts" in text and "1,024 tokens a request (--output-len)" in text,
      "text: the loop's row and the Output line")
rc, md, err = plan(*BASE, "--concurrency", "32", "--output-len", "1024", fmt="markdown")
check(rc == 0 and "--output-len" in md, "markdown names --output-len")

# 1b. the planner: an Output control beside Prompt, the speed marked as the loop's
rc, screen, err = run(*BASE, "--concurrency", "32", "--output-len", "1024", "--dump-screen", "-", "--size", "120x30")
check(rc == 0 and "Output" in screen and "1k, loop" in screen and "tok/s each (loop)" in screen,
      "planner: Output control and the loop's speed: %s" % err)
speed = "%.1f tok/s" % r["tokens_per_s_per_user"]
check(speed in screen, "the planner's speed is the plan's: %s" % speed)
rc, screen, err = run(*BASE, "--concurrency", "32", "--dump-screen", "-", "--size", "120x30")
check(rc == 0 and "step alone" in screen and "(loop)" not in screen, "planner without --output-len")

# 2. the service level is the loop's
rc, doc, err = plan(*BASE, "--output-len", "1024", "--min-tok-s", "60")
check(rc == 0, "service level: exit %d %s" % (rc, err))
s = doc["result"]
check(s["concurrency"] == s["users_at_service_level"] > 0, "concurrency %s = users at service level %s"
      % (s["concurrency"], s["users_at_service_level"]))
check(s["tokens_per_s_per_user"] >= 60, "keeps 60 tok/s in the loop: %s" % s["tokens_per_s_per_user"])
rc, doc2, err = plan(*BASE, "--avg-context", "2560", "--min-tok-s", "60")
check(rc == 0 and doc2["result"]["users_at_service_level"] > s["users_at_service_level"],
      "the loop keeps fewer users than the step alone at its mean context (%s, %s)" % (
          s["users_at_service_level"], doc2["result"]["users_at_service_level"] if rc == 0 else None))

# 3. refused: longer than the context, and in a snapshot
rc, out, err = run("plan", *BASE, "--output-len", "3000")
check(rc == 2 and "--output-len" in err and "--context" in err, "too long: exit %d %r" % (rc, err))
rc, out, err = run("plan", "--model", "llama-3.1-8b", "--output-len", "10")
check(rc == 2 and "--output-len" in err, "no --prompt: the prompt is the context, no room: %d %r" % (rc, err))
with tempfile.TemporaryDirectory() as d:
    snap = os.path.join(d, "s.json")
    rc, out, err = run("plan", *BASE, "--concurrency", "32", "--output-len", "1024", "--export", snap)
    check(rc == 0 and os.path.exists(snap), "export: %d %s" % (rc, err))
    rc, doc3, err = plan("--load", snap)
    check(rc == 0 and doc3["result"].get("closed_loop", {}).get("tpot_seconds") == tpot,
          "--load keeps the loop: %s" % err)
    s = json.load(open(snap))
    sc = s.get("scenario", s)
    check(sc.get("output_tokens") == 1024, "the snapshot holds output_tokens")
    sc["output_tokens"] = -5
    bad = os.path.join(d, "bad.json")
    json.dump(s, open(bad, "w"), indent=2)
    rc, out, err = run("plan", "--load", bad)
    check(rc == 2 and "output_tokens" in err and "bad.json" in err, "bad snapshot field: %d %r" % (rc, err))

# 3b. 1 token out has no TPOT; 0 clears a snapshot's; a prefix no shorter than the prompt
rc, out, err = run("plan", *BASE, "--output-len", "1")
check(rc == 2 and "--output-len" in err and "no time per output token" in err, "1 token: %d %r" % (rc, err))
rc, out, err = run("plan", *BASE, "--output-len", "100", "--prefix", "2048")
check(rc == 2 and "--prefix" in err and "--prompt" in err, "prefix = prompt: %d %r" % (rc, err))
with tempfile.TemporaryDirectory() as d:
    snap = os.path.join(d, "s.json")
    run("plan", *BASE, "--output-len", "1024", "--export", snap)
    rc, doc, err = plan("--load", snap, "--output-len", "0")
    check(rc == 0 and "closed_loop" not in doc["result"], "--output-len 0 clears the snapshot's: %s" % err)

# 3c. saturated: 64 users, 2 tokens out: the others' prompts fill every step; the gap is a full
# step's (vLLM's budget of prompt tokens), not all 63 prompts at once, and it says so
rc, doc, err = plan("--model", "llama-3.1-8b", "--engine", "vllm", "--prompt", "1024", "--output-len", "2",
                    "--context", "4096", "--concurrency", "64")
lp = doc["result"]["closed_loop"] if rc == 0 else {}
check(lp.get("saturated") is True and lp["tpot_seconds"] < 0.4, "saturated, a full step: %s" % lp)
# ... and the rest wait for their first token: the queue in it (simulate: TPOT 270 ms, TTFT 1.9 s)
res = doc["result"] if rc == 0 else {}
check(res.get("ttft_queue_seconds", 0) > 0.5 and res["ttft_seconds"] > 1.0,
      "the saturated loop's first token queues: %s s" % res.get("ttft_seconds"))

# 3d. simulate runs the same closed loop step by step: a --max-concurrency client never puts more
# than its cap at the server, so the run settles (it had said "over capacity") and its TPOT is near
# the plan's loop (SGLang, DeepSeek-V3 on 8 x H200, 4,096 in, 1,024 out, 64 in flight)
dsv3 = ["--model", "deepseek-v3", "--gpu", "h200", "--gpus", "8", "--engine", "sglang"]
rc, out, err = run("simulate", *dsv3, "--random-input-len", "4096", "--random-output-len", "1024",
                   "--max-concurrency", "64", "--num-prompts", "320", "--format", "json")
sim = json.loads(out)["result"]["simulation"] if rc == 0 else {}
rc2, doc, err2 = plan(*dsv3, "--prompt", "4096", "--output-len", "1024", "--concurrency", "64", "--context", "5120")
if sim.get("mean_tpot_ms") and rc2 == 0:
    tp = doc["result"]["closed_loop"]["tpot_seconds"] * 1000
    check(abs(tp / sim["mean_tpot_ms"] - 1) < 0.15, "plan's loop %.2f ms, simulate's %.2f ms" % (tp, sim["mean_tpot_ms"]))
else:
    check(False, "simulate under a cap gives latencies: %d %s %s" % (rc, err[-200:], out[-300:]))

# 4. a speed calibration fitted on a serving benchmark's TPOT holds the others' prompts:
# the loop adds none again (tests/data/bench/vllm-sweep: vllm bench serve at 1, 16, 64 users)
import glob  # noqa: E402
sweep = sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "bench",
                                      "vllm-sweep", "*.json")))
with tempfile.TemporaryDirectory() as d:
    cal = os.path.join(d, "cal.json")
    rc, out, err = run("calibrate", *sweep, "--save", cal)
    check(rc == 0, "calibrate the sweep: %d %s" % (rc, err[-300:]))
    shape = ["--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--engine", "vllm", "--context", "1152",
             "--prompt", "1024", "--concurrency", "16", "--calibration", cal]
    rc, doc, err = plan(*shape, "--output-len", "128")
    rc2, doc2, err2 = plan(*shape, "--avg-context", "1088")
    if rc == 0 and rc2 == 0:
        lp = doc["result"]["closed_loop"]
        check(lp["prompts_shared"] == 0 and abs(lp["tpot_seconds"] - doc2["result"]["decode_step_seconds"]) < 1e-12,
              "calibrated on a serving benchmark: the step at the mean context, no prompts again: %s" % lp)
    else:
        check(False, "calibrated plans: %s %s" % (err, err2))
    rc, text, err = plan(*shape, "--output-len", "128", fmt="text")
    check(rc == 0 and "fitted on a serving benchmark's TPOT, which holds them" in text, "the row says why")

# 4b. TensorRT-LLM runs a prompt whole in one step (sim_sched_trtllm.c, microBatchScheduler.cpp: it
# waits while it does not fit): a prompt past max_num_tokens never starts, which plan says
trt = ["--engine", "trtllm", "--model", "llama-3.1-8b", "--context", "32k", "--concurrency", "8"]
rc, doc, err = plan(*trt, "--prompt", "30000", "--output-len", "1000")
check(rc == 0 and doc["result"].get("prompt_never_runs") is True, "30,000 > 8,192: never runs: %s" % err)
rc, text, err = plan(*trt, "--prompt", "30000", fmt="text")
check("so it never starts one" in text, "the first token's row says so")
rc, doc, err = plan(*trt, "--prompt", "4000")
check(rc == 0 and "prompt_never_runs" not in doc["result"], "4,000 tokens run")

# 5. the measured case: the step alone misses, the loop holds
case = ["--model", "deepseek-v3", "--gpu", "mi355x", "--gpus", "8", "--tp", "8", "--weight-dtype", "fp8",
        "--engine", "sglang", "--context", "8295", "--concurrency", "32"]
rc, doc, err = plan(*case, "--prompt", "7373")
rc2, doc2, err2 = plan(*case, "--prompt", "7373", "--output-len", "922")
if rc == 0 and rc2 == 0:
    measured = 26.43e-3  # InferenceX, tests/data/speed-measurements.json
    e_step = doc["result"]["decode_step_seconds"] / measured - 1
    e_loop = doc2["result"]["closed_loop"]["tpot_seconds"] / measured - 1
    check(abs(e_step) > 0.2 and abs(e_loop) <= 0.2, "step alone %+.1f%%, loop %+.1f%%" % (100 * e_step, 100 * e_loop))
else:
    check(False, "measured case: %s %s" % (err, err2))

tally.finish()
