#!/usr/bin/python3
"""The planner's memory legend and its users-against-context chart, read off
the screen (--dump-screen) for scenarios a user found wanting:

- the legend lists every segment the plan has (the text report's rows with
  bytes), at 70x22, 80x24, 120x40 and 160x48, on the main screen and in the
  presentation, abbreviated or wrapped but never one left out;
- the chart's users axis labels 1 and 10 (a log scale), its curve reaches
  the current context's column (no empty column where a user fits) and the
  mark of the context now sits on it.

Usage: t_screen_chart_legend.py KVPLAN. Ends with "N passed, N failed"."""
import os
import re
import subprocess
import sys
import tempfile

from chartcases import CASES
from launchlib import check, main

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
T = tempfile.mkdtemp(prefix="kvplan-chart.")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(T, "config"), LC_ALL="C.UTF-8")

SIZE = re.compile(r"\d[\d,.]*(?: [KMGTP]?i?B|[BKMGTP])(?![A-Za-z])")
BRAILLE = re.compile("[\u2801-\u28ff\u25cf]")


def screen(size, args, keys="", mono=False):
    extra = ["--keys", keys] if keys else []
    p = subprocess.run([K, "--dump-screen", "-", "--size", size] + (["--mono"] if mono else []) +
                       extra + args, capture_output=True, text=True, timeout=60, env=ENV)
    return p.stdout.split("\n")


def segments(args):
    """The text report's memory rows with bytes."""
    p = subprocess.run([K, "plan"] + args, capture_output=True, text=True, timeout=60, env=ENV)
    rows = re.findall(r"^  (.+?) +([0-9,.]+ [KMGTP]?i?B) +[0-9.]+ %$", p.stdout, re.M)
    return [r for r in rows if r[1] != "0 B"]


def legend_items(lines, present):
    """The sizes the legend shows, in the bar's columns under it."""
    for y, line in enumerate(lines):
        m = re.search(r"Memory of each", line)
        if m and not present:
            x, rows = m.start(), lines[y + 2:y + 7]
            return sum(len(SIZE.findall(r[x:])) for r in rows)
        if present and re.match(r"^ [\u2588#=:.\u00b7\u2592\u2591\u2593%*+~-]{20,}", line):
            rows = []
            for r in lines[y + 1:]:
                if not r.strip():
                    break
                rows.append(r)
            return sum(len(SIZE.findall(r)) for r in rows)
    return -1


def test_legends():
    for name, args in CASES.items():
        want = len(segments(args))
        for size in ("70x22", "80x24", "120x40", "160x48"):
            for mono in (False, True):
                tag = "%s %s%s" % (name, size, " mono" if mono else "")
                got = legend_items(screen(size, args, mono=mono), False)
                check(tag + ": the legend lists every segment", got == want,
                      "%d of %d" % (got, want))
                got = legend_items(screen(size, args, keys="p", mono=mono), True)
                check(tag + ": the presentation's legend lists every segment", got == want,
                      "%d of %d" % (got, want))


def chart(lines):
    """The chart's rows (title to the context ticks) and the plot's first column."""
    top = next((y for y, l in enumerate(lines) if "Users (log" in l or "Users by context" in l),
               -1)
    if top < 0:
        return None
    axis = next(y for y in range(top + 1, len(lines)) if re.search(r"1k +4k +16k", lines[y]))
    x0 = lines[axis].index("1k")
    return lines[top:axis + 2], top, axis, x0


def test_charts():
    for name, args in CASES.items():
        for size in ("120x40", "160x48"):
            lines = screen(size, args)
            c = chart(lines)
            check("%s %s: a chart" % (name, size), c is not None)
            if c is None:
                continue
            rows, top, axis, x0 = c
            plot = [l for l in lines[top + 1:axis]]
            labels = [re.match(r"^ *([0-9,]+)[\u2524+]", l[x0 - 8:x0 + 1] if x0 >= 8 else l)
                      for l in plot]
            shown = [m.group(1) for m in labels if m]
            check("%s %s: users ticks 1 and 10" % (name, size), "1" in shown and "10" in shown,
                  shown)
            mark = [(y, l.index("\u25cf", x0)) for y, l in enumerate(plot) if "\u25cf" in l[x0:]]
            check("%s %s: the context now marked on the plot" % (name, size), len(mark) == 1, mark)
            if not mark:
                continue
            mx = mark[0][1]
            # a context past the model's longest (the "max 128k" rule): the
            # curve stops at the rule, the mark stands past it, and the
            # caption says so (t_screen_titles.py)
            rule = [l.index("\u250a", x0) for l in plot if "\u250a" in l[x0:]]
            past = bool(rule) and mx > rule[0]
            end = rule[0] if past else mx
            cols = [any(BRAILLE.match(l[x:x + 1] or " ") for l in plot) for x in range(x0, end + 1)]
            first = cols.index(True) if True in cols else len(cols)
            check("%s %s: no empty column up to the context now (or the longest)" % (name, size),
                  all(cols[first:]) and first < len(cols),
                  "".join("x" if c else "." for c in cols))
            if past:
                check("%s %s: the caption says the context is past the max" % (name, size),
                      any("(past max " in l for l in lines[axis:axis + 2]), lines[axis + 1])
                continue
            near = [l[mx - 1:mx + 2] for l in plot[max(mark[0][0] - 1, 0):mark[0][0] + 2]]
            check("%s %s: the mark on the curve" % (name, size),
                  any(BRAILLE.match(ch) for part in near for ch in part if ch != "\u25cf"), near)


main([test_legends, test_charts], T)
