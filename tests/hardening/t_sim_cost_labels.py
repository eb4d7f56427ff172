#!/usr/bin/python3
"""simulate holds two costs a million output tokens under one name: result's is the
static plan's, result.simulation's the simulated run's. The text prints both, each
labelled: the Cost line is the run's, the line under it the static plan's.
Usage: t_sim_cost_labels.py KVPLAN. Ends with "N passed, N failed"."""
import json
import subprocess
import sys
from tally import check  # noqa: E402
import tally  # noqa: E402

K = sys.argv[1]
ENV = {"XDG_CONFIG_HOME": "/nonexistent", "PATH": "/usr/bin:/bin"}
ARGS = ["simulate", "--model", "llama-3.1-8b", "--request-rate", "2", "--num-prompts", "100"]


def run(*extra):
    p = subprocess.run([K, *ARGS, *extra], capture_output=True, text=True, timeout=60, env=ENV)
    return p.returncode, p.stdout


rc, out = run("--format", "json")
check(rc == 0, "json: exit %d" % rc)
r = json.loads(out)["result"]
static, ran = r["cost_per_million_output_tokens"], r["simulation"]["cost_per_million_output_tokens"]
check(static > 0 and ran > 0 and abs(static - ran) > 1e-4, "two costs: %s, %s" % (static, ran))
rc, text = run()
lines = text.splitlines()
cost = [i for i, line in enumerate(lines) if line.startswith("Cost ")]
check(len(cost) == 1, "one Cost line: %s" % cost)
if cost:
    i = cost[0]
    check("$%.4f per 1M output tokens" % ran in lines[i] and "this run's throughput" in lines[i],
          "the Cost line is not the run's: %r" % lines[i])
    nxt = lines[i + 1] if i + 1 < len(lines) else ""
    words = "static plan (not this run): $%.4f per 1M output tokens at %d users" % (
        static, r["concurrency"])
    check(words in nxt, "the static plan's cost not labelled under it: %r" % nxt)
tally.finish()
