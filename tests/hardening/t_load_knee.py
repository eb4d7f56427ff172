#!/usr/bin/python3
"""The knee in doc/LOAD-VALIDATION.md (make validate): the data holds at
least two simulated sweeps whose measured throughput passes its knee (the
summary counts them, and each such sweep says where its knee is, measured
and predicted); each knee the document prints is the rule it states,
recomputed here from the sweep's table (measured and predicted output
tok/s at each load), and the error printed is that of the two loads.
Usage: t_load_knee.py path/to/kvplan. Ends with "N passed, N failed"."""
import os
import re

from optionslib import ROOT, check, main

DOC = os.path.join(ROOT, "doc", "LOAD-VALIDATION.md")
SHARE = 0.90  # the document's rule: 90% of the sweep's most


def text():
    with open(DOC, encoding="utf-8") as f:
        return f.read()


def knee(loads, tputs):
    """The lowest load reaching SHARE of max(tputs), interpolated; None when
    the first or only the last point reaches it."""
    goal = SHARE * max(tputs)
    k = next(i for i, t in enumerate(tputs) if t >= goal)
    if k == 0 or k == len(tputs) - 1:
        return None
    x0, x1, t0, t1 = loads[k - 1], loads[k], tputs[k - 1], tputs[k]
    return x0 + (goal - t0) / (t1 - t0) * (x1 - x0)


def sweeps(doc):
    """(name, knee line, [(load, measured tok/s, predicted tok/s)]) of each
    sweep whose knee is located both ways."""
    out = []
    for part in doc.split("\n### `")[1:]:
        name = part.split("`", 1)[0]
        m = re.search(r"^Knee: measured ([0-9.]+) (in flight|req/s); predicted ([0-9.]+) \2 "
                      r"\(([+-][0-9]+)%\)\.$", part, re.M)
        if not m:
            continue
        rows = []
        for row in re.findall(r"^\| ([0-9.]+) (?:in flight|req/s) \|(.*)$", part, re.M):
            cells = [c.strip() for c in row[1].split("|")]
            tput = re.match(r"([0-9.]+) / ([0-9.]+)", cells[2])
            rows.append((float(row[0]), float(tput.group(1)), float(tput.group(2))))
        out.append((name, m, rows))
    return out


def test_sweeps_past_the_knee():
    doc = text()
    m = re.search(r"measured and predicted both located in (\d+), the predicted load within "
                  r"25% of the measured in (\d+)", doc)
    located = int(m.group(1)) if m else 0
    check("at least two simulated sweeps reach a knee, measured and predicted (%d)" % located,
          located >= 2)
    check("the summary's count is the sweeps that say so", m is not None and
          located == len(sweeps(doc)), (located, [s[0] for s in sweeps(doc)]))


def test_each_knee_is_the_rule():
    for name, m, rows in sweeps(text()):
        loads = [r[0] for r in rows]
        meas, pred = knee(loads, [r[1] for r in rows]), knee(loads, [r[2] for r in rows])
        shown_m, shown_p = float(m.group(1)), float(m.group(3))
        # the table rounds throughputs to whole tokens a second: 2% slack
        check("%s: measured knee %g is the rule's %s" % (name, shown_m, meas),
              meas is not None and abs(meas - shown_m) <= 0.02 * shown_m + 0.5)
        check("%s: predicted knee %g is the rule's %s" % (name, shown_p, pred),
              pred is not None and abs(pred - shown_p) <= 0.02 * shown_p + 0.5)
        error = round(100 * (shown_p - shown_m) / shown_m)
        check("%s: the knee's error %s%% is that of the two loads (%d%%)"
              % (name, m.group(4), error), abs(error - int(m.group(4))) <= 1)


if __name__ == "__main__":
    main([test_sweeps_past_the_knee, test_each_knee_is_the_rule])
