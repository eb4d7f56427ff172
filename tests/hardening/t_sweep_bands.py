#!/usr/bin/python3
"""sweep's cost per user-hour and speed bands (issue 19): every planned row,
in CSV, Markdown, JSON and the table, carries cost_per_user_hour,
tokens_per_s_per_user_low/high and ttft_seconds_low/high, each equal to what
`plan --format json` gives for that row's scenario; null (empty, n/a) where
no user fits. Worked: Llama 3.1 8B on one H100 at 8k, $2.69/h over 56 users =
$0.0480357 a user-hour; with --min-tok-s 50 over the 21 that keep it,
$0.128095.

Usage: t_sweep_bands.py KVPLAN. Ends with "N passed, N failed"."""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

from launchlib import check, main

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
T = tempfile.mkdtemp(prefix="kvplan-sweepbands.")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(T, "config"),
           XDG_STATE_HOME=os.path.join(T, "state"))
KEYS = ["cost_per_user_hour", "tokens_per_s_per_user_low", "tokens_per_s_per_user_high",
        "ttft_seconds_low", "ttft_seconds_high"]


def run(*args):
    p = subprocess.run([K, *args], capture_output=True, text=True, timeout=120, env=ENV)
    return p.returncode, p.stdout


def plan(*args):
    rc, out = run("plan", "--format", "json", *args)
    return json.loads(out)["result"] if rc == 0 else {}


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= 1e-9 * max(abs(b), 1e-12)


def test_worked_cost_per_user_hour():
    for extra, users in [([], 56), (["--min-tok-s", "50"], 21)]:
        rc, out = run("sweep", "--vary", "context=8k..8k", "--format", "json", *extra)
        rows = json.loads(out) if rc == 0 else []
        r = rows[0] if rows else {}
        here = r.get("users_at_service_level", r.get("max_users"))
        check("8k%s: %s users" % (" at 50 tok/s" if extra else "", users), here == users, r)
        check("8k: $2.69/h over %d users = %.6f a user-hour" % (users, 2.69 / users),
              close(r.get("cost_per_user_hour"), 2.69 / users), r.get("cost_per_user_hour"))


def test_rows_equal_the_plan():
    # the 70B on 1..4 GPUs: no user fits on one, the rows after do
    for extra in ([], ["--min-tok-s", "20"]):
        base = ["--model", "llama-3.1-70b", "--context", "16k"] + extra
        rc, out = run("sweep", "--vary", "gpus=1..4", "--format", "json", *base)
        rows = json.loads(out) if rc == 0 else []
        check("sweep json rows", len(rows) == 4, out[:300])
        for r in rows:
            p = plan(*base, "--gpus", str(r["gpus"]))
            if p.get("max_users", 0) == 0:
                p = dict(p, **{k: None for k in KEYS})
            differ = ["%s: sweep %s, plan %s" % (k, r.get(k, "missing"), p.get(k)) for k in KEYS
                      if not close(r.get(k), p.get(k))]
            check("gpus=%s%s: the row's costs and bands are plan's" %
                  (r["gpus"], " with a target" if extra else ""), not differ, "; ".join(differ))
        rc, out = run("sweep", "--vary", "gpus=1..4", "--format", "csv", *base)
        rows = list(csv.DictReader(io.StringIO(out)))
        for r in rows:
            p = plan(*base, "--gpus", r["gpus"])
            for k in KEYS:
                want = p.get(k) if p.get("max_users", 0) else None
                got = float(r[k]) if r.get(k) else None
                check("csv gpus=%s %s: %s is plan's %s" % (r["gpus"], k, got, want),
                      (got is None and want is None) or
                      (got is not None and want is not None and abs(got - want) <= 1e-5 * want))
        rc, out = run("sweep", "--vary", "gpus=1..4", "--format", "markdown", *base)
        head = out.splitlines()[0] if out else ""
        check("markdown: the columns named", all("| %s |" % k in head for k in KEYS), head)
        body = out.splitlines()[2] if len(out.splitlines()) > 2 else ""
        check("markdown: n/a where no user fits (1 GPU)", body.rstrip().endswith(
            "| n/a | n/a | n/a | n/a | n/a |"), body)


def test_table_columns():
    rc, out = run("sweep", "--vary", "context=8k..16k")
    lines = out.splitlines()
    head = next((l for l in lines if l.startswith("VALUE")), "")
    for name in ["$/USER-H", "TOK/S BAND", "TTFT BAND"]:
        check("table: a %s column" % name, name in head, head)
    for ctx, label in [(8192, "8k"), (16384, "16k")]:
        p = plan("--context", str(ctx))
        row = next((l for l in lines if l.startswith(label + " ")), "")
        want = ["%.4f" % p["cost_per_user_hour"],
                "%.1f-%.1f" % (p["tokens_per_s_per_user_low"], p["tokens_per_s_per_user_high"]),
                "%.3f-%.3f s" % (p["ttft_seconds_low"], p["ttft_seconds_high"])]
        check("table %s: %s" % (label, want), all(w in row for w in want), row)


main([test_worked_cost_per_user_hour, test_rows_equal_the_plan, test_table_columns], T)
