#!/usr/bin/python3
"""The planner's users-against-context chart read off the screen
(--dump-screen) at the sizes people use, in colour and in monochrome:

- a chart, or where it has no room (80x24, 100x30) one row of it: the users
  at the context ticks, each what `plan` says there;
- the users axis's labels increase upwards, none twice, 1 at the foot and
  the peak at the top, and each agrees with the mark of the context now
  (labels above it count more users than it, those below fewer);
- the mark sits at the current context with the plan's users, past the
  model's longest context too, and a rule marks that longest context;
- the memory bar gives each segment the legend lists a cell of its own
  (a draft of 589 MiB and a prefix of 176 MiB beside tens of GiB);
- the versus view's chart labels its users axis.

Usage: t_chart_axes.py KVPLAN. Ends with "N passed, N failed"."""
import json
import math
import os
import re
import subprocess
import sys
import tempfile

from chartcases import CASES as BASE_CASES
from launchlib import check, main

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
T = tempfile.mkdtemp(prefix="kvplan-axes.")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(T, "config"), LC_ALL="C.UTF-8")
ENV.pop("NO_COLOR", None)

CASES = dict(BASE_CASES, **{
    "70b on 2 GPUs": ["--model", "llama-3.1-70b", "--gpus", "2", "--context", "32k"],
    "70b on 1 GPU": ["--model", "llama-3.1-70b", "--gpus", "1"]})
SIZES = ("70x22", "80x24", "100x30", "120x40", "160x48", "200x60")
LABEL = re.compile(r"([0-9][0-9,]*[MGTPE]?)\u2524")
MARK = "\u25cf"


def screen(size, args, mono=False, keys=""):
    extra = (["--mono"] if mono else []) + (["--keys", keys] if keys else [])
    p = subprocess.run([K, "--dump-screen", "-", "--size", size] + extra + args,
                       capture_output=True, text=True, timeout=60, env=ENV)
    return p.stdout.split("\n")


PLANS = {}


def plan(args, context=None):
    key = (tuple(args), context)
    if key not in PLANS:
        extra = ["--context", str(context)] if context else []
        p = subprocess.run([K, "plan", "--format", "json"] + args + extra, capture_output=True,
                           text=True, timeout=60, env=ENV)
        j = json.loads(p.stdout) if p.returncode == 0 else None
        PLANS[key] = dict(j["result"], max_context=j["scenario"]["model"]["max_context_tokens"]) \
            if j else None
    return PLANS[key]


def count(label):
    n = label.replace(",", "")
    scale = {"M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18}
    return int(n[:-1]) * scale[n[-1]] if n[-1] in scale else int(n)


def tokens(t):
    return int(t[:-1]) * (1024 if t[-1] == "k" else 1 << 20) if t[-1] in "kM" else int(t)


def find_chart(lines):
    """The chart's title row, the context axis's row and the plot's rows'
    labels: [(row, column of the rule, label or None)]."""
    top = next((y for y, l in enumerate(lines) if re.search(r"Users \(log|Users by context,", l)),
               -1)
    if top < 0:
        return None
    axis = next((y for y in range(top + 1, len(lines))
                 if re.search(r"1k +4k +16k +64k +256k +1M", lines[y])), -1)
    rows = []
    for y in range(top + 1, axis):
        m = LABEL.search(lines[y])
        rule = m.end() - 1 if m else None
        if rule is None:
            rule = next((x for x in range(len(lines[y])) if lines[y][x] == "\u2502"), None)
        rows.append((y, rule, m.group(1) if m else None))
    return top, axis, rows


def check_chart(tag, lines, args, c):
    top, axis, rows = c
    labels = [(y, count(l)) for y, _, l in rows if l]
    values = [v for _, v in labels]
    check(tag + ": users labels increase upwards, none twice",
          values == sorted(values, reverse=True) and len(set(values)) == len(values), values)
    check(tag + ": 1 at the foot", labels and labels[-1] == (rows[-1][0], 1), labels)
    m = re.search(r"peak ([0-9,]+)", lines[top])
    if m and count(m.group(1)) >= 10:
        check(tag + ": the peak at the top", labels and labels[0] == (rows[0][0], count(m.group(1))),
              "%s %s" % (m.group(1), labels))
    r = plan(args)
    users = r["users_at_service_level"] if "--min-tok-s" in args else r["max_users"]
    mark = MARK if users else "\u00d7"  # a cross at the foot when none fit
    marks = [(y, lines[y].index(mark, rule + 1)) for y, rule, _ in rows
             if rule is not None and mark in lines[y][rule + 1:]]
    check(tag + ": the context now marked once", len(marks) == 1, marks)
    if len(marks) != 1:
        return
    above = [v for y, v in labels if y < marks[0][0]]
    below = [v for y, v in labels if y > marks[0][0]]
    check(tag + ": the labels agree with the mark's %d users" % users,
          all(v > users for v in above) and all(v < users for v in below),
          "%s %s" % (above, below))
    # the mark's column is the context now's on the axis (log2 between its ticks)
    ticks = {t: lines[axis].index(t) for t in ("1k", "4k", "16k", "64k", "256k")}
    ctx = r["context_tokens"]
    want = ticks["1k"] + (ticks["256k"] - ticks["1k"]) * math.log2(ctx / 1024) / 8
    check(tag + ": the mark at the context now", abs(marks[0][1] - want) <= 1.5,
          "%d %.1f" % (marks[0][1], want))
    if r["max_context"] < 1 << 20:
        check(tag + ": the model's longest context marked",
              any("\u250amax " in l for l in lines[top:axis]), "\n".join(lines[top:axis + 1]))


def check_line(tag, lines, args):
    """One row of the chart where it has no room: its items are the plan's."""
    if plan(args, 1024)["max_users"] == 0:  # none at the least context: none at any
        check(tag + ": none fit, said in one row",
              any("No user fits at any context" in l for l in lines), "\n".join(lines))
        return
    row = next((l for l in lines if re.search(
        r"(Users( by context:)?|Users at the service level by context:|At level) "
        r"[\u25cf@]?[0-9.]+[kM][: ][0-9]", l)), None)
    check(tag + ": one row of the chart", row is not None, "\n".join(lines))
    if row is None:
        return
    need = re.search(r"chart (?:at|needs) ([0-9]+) rows", row)
    if need:  # as many rows as it says, and the chart shows
        cols = int(tag.split()[-2 if tag.endswith("mono") else -1].split("x")[0])
        taller = screen("%dx%s" % (cols, need.group(1)), args)
        check(tag + ": the chart at the %s rows it says" % need.group(1),
              find_chart(taller) is not None, "\n".join(taller))
    slo = "--min-tok-s" in args or "--max-ttft" in args
    head = row.index("At level" if "At level" in row else "Users")
    items = re.findall(r"([\u25cf@]?)([0-9.]+[kM])[: ]([0-9,]+)", row[head:])
    check(tag + ": users at three contexts at least", len(items) >= 3, row)
    # the current context among them, marked, with the users the plan counts there
    check(tag + ": the context now marked once", [m for m, _, _ in items].count("") ==
          len(items) - 1, row)
    # one kind of count on the row: with a target, those who keep it at
    # every context (sweep's AT LEVEL), not memory counts beside it
    check(tag + ": the row says which count", ("level" in row) == slo, row)
    for mark, ctx, users in items[-2:] + [i for i in items[:-2] if i[0]]:
        r = plan(args, tokens(ctx))
        want = r and (r["users_at_service_level"] if slo else r["max_users"])
        check("%s: %s users at %s as plan" % (tag, users, ctx),
              r is not None and want == count(users), row)


def test_charts():
    for name, args in CASES.items():
        for size in SIZES:
            for mono in (False, True):
                tag = "%s %s%s" % (name, size, " mono" if mono else "")
                lines = screen(size, args, mono)
                c = find_chart(lines)
                if c:
                    check_chart(tag, lines, args, c)
                elif size != "70x22":
                    check_line(tag, lines, args)


def bar_runs(lines):
    """The runs of one glyph in the main screen's memory bar (monochrome:
    each segment its own glyph), and the legend's items."""
    for y, line in enumerate(lines):
        m = re.search(r"Memory of each GPU|Each GPU", line)
        if m:
            bar = lines[y + 1][m.start():].rstrip()
            return [g for g, _ in re.findall(r"((.)\2*)", bar)], lines[y + 2:y + 7], m.start()
    return None, None, None


def test_small_segments_have_a_cell():
    args = CASES["70b prefix draft"]
    for size in ("70x22", "80x24", "120x40", "160x48"):
        runs, legend, x = bar_runs(screen(size, args, True))
        glyphs = [r[0] for r in runs or []]
        keys = [k for l in legend or [] for k in re.findall(r"(\S)\1 [a-z]", l[x:])]
        check("%s: every segment the legend lists has a cell in the bar" % size,
              keys and all(k in glyphs for k in keys), "%s %s" % (keys, runs))
        lines = screen(size, args, True, keys="p")
        bar = next((l for l in lines if re.match(r"^ [\u2593\u259a\u2590\u2592\u2588\u2591]{20}", l)),
                   "")
        legend = lines[lines.index(bar) + 1:lines.index(bar) + 4] if bar else []
        keys = [k for l in legend for k in re.findall(r"(\S)\1 [a-z]", l)]
        check("%s: the presentation's bar too" % size,
              keys and all(k in bar for k in keys), "%s %s" % (keys, bar))


def test_versus_labels_its_users_axis():
    keys = "b<Down><Down><Right><Right><Right><Right>n<Up><PgUp>v"
    args = ["--gpu", "h100-sxm", "--model", "llama-3.1-70b", "--gpus", "2", "--context", "32k"]
    for size in ("70x22", "80x24", "120x40", "160x48"):
        lines = screen(size, args, keys=keys)
        labels = [count(m.group(1)) for l in lines for m in [LABEL.search(l)] if m]
        check(size + ": versus labels 1 and its peak", len(labels) >= 2 and labels[-1] == 1 and
              labels == sorted(labels, reverse=True), labels)


main([test_charts, test_small_segments_have_a_cell, test_versus_labels_its_users_axis], T)
