#!/usr/bin/python3
"""Every row of a sweep is the plan of its scenario: sampled rows of CSV
sweeps (each axis innermost and outermost, a prefix and an average context
that small contexts drop, several formats of number) are planned again one
by one with `kvplan plan --format json`, and the row's figures must be the
plan's, numbers formatted as the CSV formats them (%.6g).
Usage: t_sweep_rows.py path/to/kvplan. Ends with "N passed, N failed"."""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

from launchlib import check, main

KVPLAN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
TMP = tempfile.mkdtemp(prefix="kvplan-sweep-")
ENV = dict(os.environ, XDG_CONFIG_HOME=TMP)


def run(args):
    return subprocess.run([KVPLAN, *args], capture_output=True, text=True, env=ENV, timeout=60)


def tokens(text):
    """A value of --prefix/--avg-context as the sweep's base holds it."""
    units = {"k": 1024, "M": 1024 * 1024}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


# (the sweep's options, the options of the base scenario that rows keep)
SWEEPS = [
    (["--vary", "model=all", "--vary", "context=2k..32k"], ["--prefix", "4k", "--avg-context", "6k"]),
    (["--vary", "context=1k..64k:5", "--vary", "model=all"], ["--prefix", "2k", "--avg-context", "12k", "--gpu", "h200",
                                                    "--context", "64k"]),
    (["--vary", "gpus=1..4", "--vary", "gpu=all"], ["--model", "llama-3.1-70b", "--context", "16k"]),
    (["--vary", "concurrency=1..64", "--vary", "kv-dtype=all"], ["--engine", "vllm", "--model", "llama-3.1-8b"]),
]
FIELDS = ["fits", "max_users", "max_users_paged", "user_bytes_per_gpu", "kv_pool_bytes", "kv_tokens",
          "concurrency", "tokens_per_s_per_user", "tokens_per_s_total", "ttft_seconds"]


def as_csv(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    return "%.6g" % v


def row_args(row, base):
    """The plan options of one row: its GPU, model, layout and context, and
    the base's prefix (held to the context less one token where it reaches
    it) and average where the row's context keeps it."""
    args = ["--gpu", row["gpu"], "--model", row["model"], "--gpus", row["gpus"],
            "--context", row["context_tokens"], "--kv-dtype", row["kv_dtype"]]
    ctx = int(row["context_tokens"])
    i = 0
    while i < len(base):
        opt, val = base[i], base[i + 1]
        i += 2
        if opt in ("--gpu", "--model", "--context"):
            continue
        if opt == "--prefix" and tokens(val) >= ctx:
            val = str(ctx - 1)  # held to the context less one token (doc/MODEL.md, section 4)
        if opt == "--avg-context" and tokens(val) >= ctx:
            continue  # the sweep drops an average its context does not exceed
        args += [opt, val]
    return args


def test_rows_are_their_plans():
    for sweep, base in SWEEPS:
        out = run(["sweep", *sweep, *base, "--format", "csv"])
        check(" ".join(sweep) + ": runs", out.returncode == 0, out.stderr.strip())
        rows = list(csv.DictReader(io.StringIO(out.stdout)))
        check(" ".join(sweep) + ": has rows", len(rows) > 4, str(len(rows)))
        concurrency_axis = any(a.startswith("concurrency=") for a in sweep)
        step = max(1, len(rows) // 9)
        for row in rows[::step] + rows[-2:]:
            args = row_args(row, base)
            if concurrency_axis:
                args += ["--concurrency", row["concurrency"]]
            plan = run(["plan", "--format", "json", *args])
            name = "%s: row %s" % (" ".join(sweep), row["value"])
            if plan.returncode != 0:
                check(name, False, "plan refused it: " + plan.stderr.strip())
                continue
            result = json.loads(plan.stdout)["result"]
            differ = ["%s: sweep %s, plan %s" % (f, row[f], as_csv(result.get(f)))
                      for f in FIELDS if row[f] != as_csv(result.get(f))]
            check(name, not differ, "; ".join(differ) + " (" + " ".join(args) + ")")


main([test_rows_are_their_plans], TMP)
