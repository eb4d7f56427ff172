#!/usr/bin/python3
"""The Load screen's pointer and undo, on a pseudo-terminal (100 x 30):
 - a click on a control's right arrow steps it up, on its left arrow down,
   the wheel steps the control under it; each is what the keys do;
 - a press on a value dragged three columns right steps it three times,
   as three Rights do, and z takes the three steps back one by one;
 - a click in the TTFT chart sets the rate under the pointer (two
   significant figures, the chart's mark under it), a drag sets it where
   the pointer is let go, in either chart;
 - z undoes the screen's changes one at a time back to the screen it
   opened with, then says there is nothing more; Z redoes.
Usage: t_load_mouse.py path/to/kvplan. Ends with "N passed, N failed"."""
import math
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from ptyterm import PtyTerm  # noqa: E402
from tally import check as ok, finish  # noqa: E402

KVPLAN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
ENV = dict(os.environ, LC_ALL="C.UTF-8", XDG_CONFIG_HOME=tempfile.mkdtemp(prefix="kvplan-lm-"))
ENV.pop("NO_COLOR", None)
COLS, ROWS = 100, 30
# the geometry the screen draws at 100 x 30: controls from row 2, the value
# after a 13-column label at column 1; the TTFT chart's plot from column 8,
# 41 columns wide, rows 10 to 23, its axis on row 24 and its end's label below
TOP, VALUE_X, PLOT_X, PLOT_W, AXIS_Y = 2, 14, 8, 41, 24
LABELS = ["Rate", "Lengths", "Input", "Output", "Concurrency", "SLO TTFT", "SLO TPOT"]


def controls(t):
    """Each control's value as its row shows it."""
    out = {}
    for i, name in enumerate(LABELS):
        row = t.screen.display[TOP + i]
        m = re.match(r" (.{13})◂ (.*?) ▸", row)
        out[name] = m.group(2) if m and m.group(1).strip() == name else None
    return out


def body(t):
    return re.sub(r"#\d+\s*$", "", t.text()).rstrip()


def act(t, data, what):
    """Sends input, waits for the frame that answers it and the full run
    after it (a frame that changed nothing has it already); false (a
    failure) when no frame answers."""
    try:
        t.press(data, timeout=4)
        t.wait_for(r"At [0-9.e+-]+ req/s: 1000 requests, seed 0", timeout=60)
        return True
    except AssertionError:
        ok(False, "%s: no frame answers; screen:\n%s" % (what, t.text()))
        return False


def click(t, x, y, what, release_frame=False):
    """A press and its release at x, y; the release of a press that may
    drag (in a chart) answers with a frame too."""
    done = act(t, t.mouse_bytes(0, x, y), what)
    if release_frame:
        return act(t, t.mouse_bytes(0, x, y, release=True), what + ", let go") and done
    t.send(t.mouse_bytes(0, x, y, release=True))
    return done


def arrows(t, row):
    """The columns of a control's left and right arrows."""
    line = t.screen.display[TOP + row]
    return VALUE_X, line.index("▸", VALUE_X)


def number(text):
    return float(text.split()[0])


def two_figures(v):
    unit = 10 ** (math.floor(math.log10(v)) - 1)
    return float("%g" % (math.floor(v / unit + 0.5) * unit))


def rate_at(t, x):
    """The rate the TTFT chart's column x stands for, from its axis label."""
    m = re.search(r"([0-9.e+]+) req/s", t.screen.display[AXIS_Y + 1][PLOT_X:PLOT_X + PLOT_W])
    return (x - PLOT_X) / (PLOT_W - 1) * float(m.group(1)) if m else None


def check_rate_at(t, x, what):
    want, got = rate_at(t, x), number(controls(t)["Rate"])
    ok(want is not None and abs(got - two_figures(want)) <= 0.01 * got,
       "%s: column %d stands for %s req/s, the rate is %s" % (what, x, want, got))
    mark = t.screen.display[AXIS_Y].find("▲", PLOT_X, PLOT_X + PLOT_W)
    ok(abs(mark - x) <= 1, "%s: the chart's mark at %d, clicked at %d" % (what, mark, x))


t = PtyTerm([KVPLAN], cols=COLS, rows=ROWS, env=ENV)
try:
    t.wait_for(r"\? help")
    t.press("L")
    t.wait_for(r"At [0-9.e+-]+ req/s: 1000 requests, seed 0", timeout=60)
    start, opened = controls(t), body(t)
    ok(all(start.values()), "the controls' rows: %s" % start)
    changes = 0

    left, right = arrows(t, 0)
    if click(t, right, TOP, "the rate's right arrow"):
        changes += 1
    ok(number(controls(t)["Rate"]) > number(start["Rate"]),
       "the rate's right arrow steps it up: %s -> %s" % (start["Rate"], controls(t)["Rate"]))
    left, right = arrows(t, 2)
    if click(t, left, TOP + 2, "the input's left arrow"):
        changes += 1
    ok(number(controls(t)["Input"]) < number(start["Input"]),
       "the input's left arrow steps it down: %s -> %s" % (start["Input"], controls(t)["Input"]))
    if act(t, t.mouse_bytes(64, VALUE_X + 3, TOP + 3), "the wheel up on the output"):
        changes += 1
    ok(number(controls(t)["Output"]) > number(start["Output"]),
       "the wheel up steps the output up: %s -> %s" % (start["Output"], controls(t)["Output"]))

    # a drag of the SLO TTFT's value, three columns right: three steps
    before = controls(t)
    x = VALUE_X + 3
    act(t, t.mouse_bytes(0, x, TOP + 5), "a press on the SLO TTFT's value")
    if act(t, t.mouse_bytes(32, x + 3, TOP + 5), "a drag of the SLO TTFT"):
        changes += 3
    act(t, t.mouse_bytes(0, x + 3, TOP + 5, release=True), "the SLO TTFT let go")
    dragged = controls(t)
    ok(number(dragged["SLO TTFT"]) > number(before["SLO TTFT"]),
       "the drag right steps the SLO TTFT up: %s -> %s" % (before["SLO TTFT"], dragged))
    for i in range(3):
        act(t, "z", "z")
    ok(controls(t) == before, "z three times after a three-step drag: %s, was %s"
       % (controls(t), before))
    for i in range(3):
        act(t, t.cap("kcuf1"), "Right")  # the focus is the SLO TTFT, as the drag put it
    ok(controls(t) == dragged, "three Rights: %s, the drag gave %s" % (controls(t), dragged))

    # the chart: a click sets the rate under the pointer, a drag where it is let go
    x = PLOT_X + 10
    if click(t, x, AXIS_Y - 4, "a click in the TTFT chart", release_frame=True):
        changes += 1
    check_rate_at(t, x, "a click in the chart")
    x2 = PLOT_X + 30
    act(t, t.mouse_bytes(0, PLOT_X + 20, AXIS_Y - 2), "a press in the chart")
    act(t, t.mouse_bytes(32, x2 - 5, 3), "a drag over the chart")  # the pointer off the plot
    act(t, t.mouse_bytes(0, x2, 3, release=True), "a drag let go")
    changes += 3
    check_rate_at(t, x2, "a drag in the chart")
    last = controls(t)

    # undo: back to the screen it opened with, one change at a time
    for i in range(changes):
        act(t, "z", "z")
    ok(controls(t) == start, "z %d times: %s, opened with %s" % (changes, controls(t), start))
    ok(body(t) == opened, "z back to the start, another screen:\n%s\n---\n%s"
       % (opened, body(t)))
    act(t, "z", "z past the start")
    ok("nothing to undo on the Load screen" in t.text(), "z past the start:\n" + t.text())
    for i in range(changes):
        act(t, "Z", "Z")
    ok(controls(t) == last, "Z %d times: %s, the last was %s" % (changes, controls(t), last))
    t.send("q")
    t.wait_exit()
finally:
    t.kill()

finish()
