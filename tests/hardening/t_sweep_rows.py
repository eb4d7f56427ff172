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
NONE_WITHOUT_USERS = ["tokens_per_s_per_user", "tokens_per_s_total", "ttft_seconds"]


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
            if result["max_users"] == 0:  # no speed and no first token where no user fits
                result.update({f: None for f in NONE_WITHOUT_USERS})
            differ = ["%s: sweep %s, plan %s" % (f, row[f], as_csv(result.get(f)))
                      for f in FIELDS if row[f] != as_csv(result.get(f))]
            check(name, not differ, "; ".join(differ) + " (" + " ".join(args) + ")")


def table_rows(text):
    """The text table's rows: VALUE -> its cells, and the header's names."""
    lines = text.splitlines()
    head = next(i for i, l in enumerate(lines) if l.startswith("VALUE"))
    rows = {}
    for line in lines[head + 1:]:
        if not line or line[0] in "!*":
            continue
        cells = line.split()
        # the last five: $/1M OUT, $/1M IN, $/USER-H (t_costs_everywhere.py), TOK/S BAND and
        # TTFT BAND ("0.166-1.899 s", or n/a; t_sweep_bands.py)
        cells = (cells[:-2] if cells[-1] == "s" else cells[:-1])[:-4]
        if cells[-1] == "s":  # the TTFT's unit
            cells = cells[:-2] + [cells[-2] + " s"]
        rows[cells[0]] = cells
    return rows


def test_rows_without_users():
    """a row where no user fits shows no speed and no TTFT: n/a in the
    table, empty in CSV, null in JSON; TOK/S TOTAL grouped in the table as
    the other counts are"""
    base = ["sweep", "--vary", "gpus=1..8", "--model", "llama-3.1-70b", "--context", "16k"]
    text = run(base).stdout
    rows = list(csv.DictReader(io.StringIO(run(base + ["--format", "csv"]).stdout)))
    doc = json.loads(run(base + ["--format", "json"]).stdout)
    table = table_rows(text)
    none = [r for r in rows if r["max_users"] == "0"]
    some = [r for r in rows if r["max_users"] != "0"]
    check("a row without users and rows with", none and some, str(len(rows)))
    for r in none:
        cells = table.get(r["value"], [])
        check("no users, row %s: the table's speeds and TTFT n/a" % r["value"],
              cells[-3:] == ["n/a"] * 3, str(cells))
        check("no users, row %s: empty in CSV" % r["value"],
              all(r[f] == "" for f in NONE_WITHOUT_USERS), str(r))
        j = [x for x in doc if x["value"] == r["value"]]
        check("no users, row %s: null in JSON" % r["value"],
              len(j) == 1 and all(j[0][f] is None for f in NONE_WITHOUT_USERS), str(j))
    big = [r for r in some if float(r["tokens_per_s_total"]) >= 1000]
    check("a row of a thousand tokens a second or more", big, str(rows))
    for r in some:
        want = "{:,}".format(round(float(r["tokens_per_s_total"])))
        cells = table.get(r["value"], [])
        check("row %s: TOK/S TOTAL %s in the table" % (r["value"], want),
              len(cells) >= 3 and cells[-2] == want, str(cells))
        check("row %s: not grouped in CSV" % r["value"], "," not in r["tokens_per_s_total"])


main([test_rows_are_their_plans, test_rows_without_users], TMP)
