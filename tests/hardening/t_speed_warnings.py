#!/usr/bin/python3
"""No measured case more than 2x off kvplan's decode without a reason the user
sees: every complete case of tests/data/speed-measurements.json whose measured
time per output token is more than twice kvplan's, or less than half, gets a
plan (as tools/validate_speed.py plans it) whose JSON `warnings` carry one of
the speed model's own warnings, which say the decode is unvalidated or was
measured slower there. The llama.cpp batched-decode warning: llama.cpp on a
Volta GPU with more than one sequence a step says so in JSON, the text report
and the Markdown report; one sequence, an Ampere GPU or another engine do not.
Usage: t_speed_warnings.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import subprocess
import sys

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import validate_speed as vs  # noqa: E402
from tally import check  # noqa: E402
import tally  # noqa: E402

DATA = os.path.join(ROOT, "tests", "data", "speed-measurements.json")
ENV = dict(os.environ, XDG_CONFIG_HOME="/nonexistent")
# the words of the speed model's warnings (src/core/plan_text.c) that give the reason
REASONS = ("kvplan's decode is unvalidated here", "early-2025 builds were")
BATCHED = "several sequences decoding at once on this GPU family"


def plan(args, fmt="json"):
    out = subprocess.run([K, "plan", *args, "--format", fmt], capture_output=True, text=True,
                         timeout=60, env=ENV)
    return out.stdout if out.returncode == 0 else None


def warnings(args):
    text = plan(args)
    return json.loads(text)["result"]["warnings"] if text else None


def far_off_cases():
    """(case, ratio measured / predicted) of the complete cases more than 2x off."""
    out = []
    for c in json.load(open(DATA))["measurements"]:
        m, _ = vs.measured_decode_ms(c)
        if not c["complete"] or m is None:
            continue
        text = plan(vs.base_args(c) + vs.speed_args(c))
        if text is None:
            continue
        pred = json.loads(text)["result"]["decode_step_seconds"] * 1000.0
        if m > 2 * pred or m < pred / 2:
            out.append((c, m / pred))
    return out


far = far_off_cases()
# the data holds such cases (early DeepSeek-R1 builds, llama.cpp's 2023 batched path)
check(len(far) >= 2, "at least two complete cases more than 2x off (found %d)" % len(far))
for c, ratio in far:
    w = warnings(vs.base_args(c) + vs.speed_args(c)) or []
    check(any(r in x for x in w for r in REASONS),
          "%s: measured %.1fx kvplan's time per token, and no warning gives a reason: %s" % (c["id"], ratio, w))

V100 = ["--model", "llama-2-7b", "--gpu", "v100-16gb", "--weight-dtype", "fp16", "--kv-dtype", "fp16",
        "--context", "150", "--prompt", "50"]
LCPP = ["--engine", "llama.cpp"]
for n in (2, 4, 8):
    w = warnings(V100 + LCPP + ["--parallel", str(n), "--concurrency", str(n)]) or []
    check(any(BATCHED in x for x in w), "llama.cpp on V100 at %d sequences: no batched-decode warning" % n)
w = warnings(V100 + LCPP + ["--parallel", "4"]) or []
check(any(BATCHED in x for x in w), "llama.cpp on V100, 4 slots, users as fit: no batched-decode warning")
w = warnings(V100 + LCPP + ["--parallel", "1", "--concurrency", "1"])
check(w is not None and not any(BATCHED in x for x in w), "llama.cpp on V100 at one sequence warns: %s" % w)
A100 = [a if a != "v100-16gb" else "a100-80gb" for a in V100]
w = warnings(A100 + LCPP + ["--parallel", "4", "--concurrency", "4"])
check(w is not None and not any(BATCHED in x for x in w), "llama.cpp on A100 warns of V100's path: %s" % w)
w = warnings(V100 + ["--engine", "vllm", "--concurrency", "4"])
check(w is not None and not any(BATCHED in x for x in w), "vLLM on V100 warns of llama.cpp's path: %s" % w)
for fmt in ("text", "markdown"):
    out = plan(V100 + LCPP + ["--parallel", "4", "--concurrency", "4"], fmt) or ""
    check(BATCHED in out, "the %s report does not show the batched-decode warning" % fmt)

tally.finish()
