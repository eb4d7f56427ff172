#!/usr/bin/python3
"""A stranger's review of speed and cost on every screen (issue 19).

- One cost, one print: $1.05 an hour over 56 users is 0.01875, a double
  just under it; the screen printed the plan's double ($0.0187) and the
  text its explain row's long double ($0.0188). Every figure now prints
  from the plan's double (price.c, explain_row_end_as).
- The versus cards at 80x24 with four cards kept neither the throughput,
  the spreads nor the price of a million output tokens; each figure keeps
  its spread and none goes.
- The main screen's first-token band at 80x24 when the speed column is
  narrow (a five-digit count): it was left out.

Usage: t_speed_cost_review.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import re
import subprocess
import sys
import tempfile

from launchlib import check, main

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
T = tempfile.mkdtemp(prefix="kvplan-speedcost.")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(T, "config"),
           XDG_STATE_HOME=os.path.join(T, "state"), LC_ALL="C.UTF-8")
ENV.pop("NO_COLOR", None)


def run(args, env=None):
    p = subprocess.run([K] + args, capture_output=True, text=True, timeout=60, env=env or ENV)
    return p.stdout


def screen(size, args, keys="", mono=False, env=None):
    extra = (["--keys", keys] if keys else []) + (["--mono"] if mono else [])
    return run(["--dump-screen", "-", "--size", size] + extra + args, env).split("\n--- attr")[0]


def text_costs(args):
    """The three costs as `kvplan plan` writes them: {label: "$0.0187"}."""
    out = run(["plan"] + args).split("\n")
    got = {}
    for i, line in enumerate(out):
        for label in ("Cost per user-hour", "Cost per 1M output", "Cost per 1M input"):
            if line.strip().startswith(label):
                for l2 in out[i:i + 3]:
                    m = re.search(r"= (\$[0-9.]+)", l2)
                    if m:
                        got[label] = m.group(1)
                        break
    return got


# (args, why): each a cost at a decimal tie, where a double and a long
# double round apart
TIES = [
    (["--price", "1.05"], "user-hour $1.05 / 56 users = 0.01875"),
    (["--price", "1.17", "--concurrency", "72"], "user-hour $1.17 / 72 users = 0.01625"),
]


def test_one_cost_one_print():
    for args, why in TIES:
        t = text_costs(args)
        check("%s: the text gives the costs" % why, len(t) == 3, repr(t))
        s = screen("120x40", args)
        for label, short in (("Cost per user-hour", "/user-h"), ("Cost per 1M output", "/M output")):
            if label not in t:
                continue
            check("%s: %s on the screen as in the text (%s)" % (why, label, t[label]),
                  (t[label] + short) in s, s)
        j = json.loads(run(["plan", "--format", "json"] + args))["result"]
        check("%s: the JSON's user-hour rounds to the text's" % why,
              "$%.4f" % j["cost_per_user_hour"] == t.get("Cost per user-hour"),
              "%r %r" % (j["cost_per_user_hour"], t))


if __name__ == "__main__":
    main([v for k, v in sorted(globals().items()) if k.startswith("test_")], T)
