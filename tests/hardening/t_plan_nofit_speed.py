#!/usr/bin/python3
"""plan --format json where no user fits: no speed figure at all, the first
token's neither (null, as doc/FORMATS.md says of the service level's figures
where no user fits), as the text report shows no First token row; with
--concurrency the figures are those of that many users decoding at once, in
JSON as in the text report; where users fit, the figures are numbers.

Usage: t_plan_nofit_speed.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import subprocess
import sys
import tempfile

from tally import check, finish

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
ENV = dict(os.environ, XDG_CONFIG_HOME=tempfile.mkdtemp(prefix="kvplan-nofit."))
SPEED = ["decode_tokens_per_s_per_user", "decode_step_seconds", "tokens_per_s_per_user",
         "tokens_per_s_total", "ttft_seconds", "prefill_tokens_per_s",
         "tokens_per_s_per_user_low", "tokens_per_s_per_user_high", "tokens_per_s_total_low",
         "tokens_per_s_total_high", "ttft_seconds_low", "ttft_seconds_high",
         "step_memory_seconds", "step_compute_seconds"]


def text(args):
    p = subprocess.run([K, "plan"] + args, capture_output=True, text=True, timeout=60, env=ENV)
    return p.stdout


def result(args):
    p = subprocess.run([K, "plan", "--format", "json"] + args, capture_output=True, text=True,
                       timeout=60, env=ENV)
    check(p.returncode == 0, "%s: exit %d %s" % (args, p.returncode, p.stderr))
    return json.loads(p.stdout)["result"] if p.returncode == 0 else {}


NOFIT = [["--model", "llama-3.1-70b", "--gpus", "1"],
         ["--model", "llama-3.1-70b", "--gpus", "1", "--engine", "vllm"],
         ["--model", "llama-3.1-8b", "--gpu", "l4", "--context", "1m"],
         ["--model", "llama-3.1-8b", "--gpu", "l4", "--context", "1m", "--max-ttft", "2"]]
for args in NOFIT:
    r = result(args)
    check(r.get("max_users") == 0, "%s: no user fits (max_users %s)" % (args, r.get("max_users")))
    for k in SPEED:
        check(k in r and r[k] is None, "%s: %s null where no user fits, not %r" % (args, k, r.get(k)))
    check("First token" not in text(args), "%s: no First token row in the text report" % args)

# users decoding at once asked for: their figures, in JSON as in the text
args = ["--model", "llama-3.1-70b", "--gpus", "1", "--concurrency", "4"]
r = result(args)
check(r.get("max_users") == 0, "%s: no user fits" % args)
for k in ["tokens_per_s_per_user", "ttft_seconds", "decode_step_seconds"]:
    check(isinstance(r.get(k), float) and r[k] > 0, "%s: %s at 4 users: %r" % (args, k, r.get(k)))
check("First token" in text(args), "%s: the text report's First token row" % args)

r = result(["--model", "llama-3.1-8b", "--context", "8k"])
check(r.get("max_users", 0) > 0, "llama-3.1-8b at 8k fits")
for k in ["tokens_per_s_per_user", "ttft_seconds", "prefill_tokens_per_s", "decode_step_seconds"]:
    check(isinstance(r.get(k), float) and r[k] > 0, "a plan that fits has %s: %r" % (k, r.get(k)))
finish()
