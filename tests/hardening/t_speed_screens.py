#!/usr/bin/python3
"""The planner shows speed, throughput, the first token and the costs (a
user-hour, a million output tokens) for every engine and size, its explain pane scrolls (keys, wheel, the marks in
its margin) and says which rows it shows, x opens every row full screen,
and with a service level the count is the users who keep it, on the main
screen, in the presentation and in the Markdown it exports. The real binary
on a pseudo-terminal (tests/e2e/ptyterm.py), every figure against
`kvplan plan --format json`. Usage: t_speed_screens.py path/to/kvplan.
Ends with "N passed, N failed"."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from ptyterm import PtyTerm  # noqa: E402

KVPLAN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
TMP = tempfile.mkdtemp(prefix="kvplan-speed-screens-")
ENV = dict(os.environ, XDG_CONFIG_HOME=TMP)
ENV.pop("NO_COLOR", None)
LAYOUT = ["--gpu", "h100-sxm", "--model", "llama-3.1-70b", "--gpus", "12", "--tp", "4",
          "--context", "32k"]
ENGINES = ["generic", "vllm", "sglang", "llama.cpp", "trtllm"]
passed = failed = 0


def plan(*args):
    out = subprocess.run([KVPLAN, "plan", "--format", "json", *args], capture_output=True,
                         check=True, env=ENV, timeout=30)
    return json.loads(out.stdout)["result"]


def tok_s(v):
    """A speed as the explain rows write it: 965.8 tok/s, 1,234.5 tok/s."""
    return "{:,.1f} tok/s".format(v)


def seconds(v):
    return "%.2f s" % v if v >= 1 else "%.2f ms" % (v * 1e3)


def start(args, cols, rows):
    t = PtyTerm([KVPLAN, *args], cols=cols, rows=rows, env=ENV)
    t.wait_for(r"How the number is computed")
    t.wait_for(r"^\? help  q quit")
    return t


def check(name, fn):
    global passed, failed
    try:
        fn()
        passed += 1
        print("ok   " + name)
    except Exception:  # noqa: BLE001 - report every failure, keep going
        failed += 1
        print("FAIL " + name)
        traceback.print_exc()


def speed_for_every_engine_and_size():
    # 12 H100s as 3 x TP 4: at 200x60 the explain pane had too many rows and
    # the speed ones came last, so no screen showed tok/s or $ at all
    for engine in ENGINES:
        args = LAYOUT + ["--engine", engine]
        r = plan(*args)
        for cols, rows in ((200, 60), (80, 24), (120, 40)):
            t = start(args, cols, rows)
            try:
                text = t.text()
                # where the line is narrow, the band takes the place of "each"
                # and "first token" is said "TTFT"
                speed = tok_s(r["tokens_per_s_per_user"])
                for want in ((speed + " each", speed + " -", speed + " +", speed + " \u00b1"),
                             (tok_s(r["tokens_per_s_total"]) + " in all",),
                             ("first token " + seconds(r["ttft_seconds"]),
                              "TTFT " + seconds(r["ttft_seconds"])),
                             ("$%.4f/user-h" % r["cost_per_user_hour"],),
                             ("$%.4f/M output" % r["cost_per_million_output_tokens"],)):
                    assert any(w in text for w in want), (engine, cols, rows, want, text)
            finally:
                t.kill()


def pane_rows(t):
    """The labels of the explain pane's rows on screen, and its title's range."""
    lines = t.screen.display
    top = next(y for y, line in enumerate(lines) if line.startswith(" How the number"))
    m = re.search(r"rows (\d+)-(\d+) of (\d+)", lines[top])
    assert m, lines[top]
    labels = [line[1:19].strip() for line in lines[top + 1:t.rows - 2] if line[1:19].strip()]
    return top, tuple(int(g) for g in m.groups()), labels


def the_pane_scrolls_with_the_keys_the_wheel_and_its_marks():
    t = start(LAYOUT + ["--engine", "vllm"], 100, 30)
    try:
        top, (first, last, n), labels = pane_rows(t)
        assert first == 1 and n > last, (first, last, n)
        assert labels[0] == "Users" and "\u25b2" not in t.screen.display[top + 1][0]
        t.press("]")
        _, (first2, last2, n2), labels2 = pane_rows(t)
        assert (first2, n2) == (2, n), (first2, n2)
        assert labels2[0] == labels[1], (labels, labels2)
        assert t.screen.display[top + 1][0] == "\u25b2", t.text()  # more above
        t.press("[")
        assert pane_rows(t)[1][0] == 1
        # the wheel over the pane: down one row, then up again; no control changed
        before = t.screen.display[2:top]
        t.press(t.mouse_bytes(65, 30, top + 2))
        assert pane_rows(t)[1][0] == 2, t.text()
        t.press(t.mouse_bytes(64, 30, top + 2))
        assert pane_rows(t)[1][0] == 1, t.text()
        assert t.screen.display[2:top] == before
        # the mark of more rows below, in the margin, scrolls by one too
        bottom = max(y for y in range(top, t.rows) if t.screen.display[y][0] == "\u25bc")
        t.press(t.mouse_bytes(0, 0, bottom))
        t.send(t.mouse_bytes(0, 0, bottom, release=True))
        assert pane_rows(t)[1][0] == 2, t.text()
        # to the end: the last row shown is the last there is, and no mark below
        for _ in range(n + 1):
            t.send("]")
        t.wait_for(r"rows \d+-%d of %d" % (n, n))  # the frames of every key have come
        t.settle(0.1)
        _, (first, last, n3), _ = pane_rows(t)
        assert last == n3 == n, (first, last, n3)
        assert all(line[0] != "\u25bc" for line in t.screen.display[top:t.rows - 2]), t.text()
    finally:
        t.kill()


def x_shows_every_row_with_its_formula_and_scrolls():
    args = LAYOUT + ["--engine", "vllm"]
    r = plan(*args)
    t = start(args, 100, 30)
    try:
        t.press("x")
        m = t.wait_for(r"every explain row: .* lines 1-(\d+) of (\d+)")
        shown, total = int(m.group(1)), int(m.group(2))
        assert shown == 28 and total > shown, (shown, total)
        assert "KV per layer" in t.text()
        t.press(t.cap("knp"))  # PgDn: a page less the line that stays
        t.wait_for(r"lines 28-55 of %d" % total)
        t.press(t.mouse_bytes(65, 40, 10))  # the wheel: three lines
        t.wait_for(r"lines 31-58 of %d" % total)
        t.press(t.cap("kend"))
        t.wait_for(r"lines %d-%d of %d" % (total - 27, total, total))
        text = t.text()
        assert "Engine: vLLM 0.21" in text and "Launch" in text, text
        # beside the speed figures, the spread the measurements saw (core/speedband)
        band = r["speed_band"]
        assert "over %d %s case" % (band["measurements"], band["group"]) in text, text
        assert "= " + "{:,}".format(r["max_users"]) + " all replicas" in text or \
            "First token" in text, text
        t.press(t.cap("khome"))
        t.wait_for(r"lines 1-28 of %d" % total)
        t.press("\x1b")
        t.wait_for(r"How the number is computed")
        t.wait_for(r"^\? help  q quit")
        # a click on the pane's title opens it too
        top, _, _ = pane_rows(t)
        t.press(t.mouse_bytes(0, 5, top))
        t.send(t.mouse_bytes(0, 5, top, release=True))
        t.wait_for(r"every explain row")
        t.send("q")
        assert t.wait_exit() == 0
    finally:
        t.kill()


def a_service_level_leads_every_view_and_the_markdown():
    args = LAYOUT + ["--engine", "vllm", "--min-tok-s", "30"]
    r = plan(*args)
    slo, fit = r["users_at_service_level"], r["max_users"]
    assert 0 < slo < fit, (slo, fit)
    md = os.path.join(TMP, "slo.md")
    t = start(args, 120, 40)
    try:
        text = t.text()
        assert "users at 30 tok/s" in text, text
        assert "%d fit in memory \u00b7 decode binds" % fit in text, text
        # the pane's first row is the count's: the users at the service level
        top, _, labels = pane_rows(t)
        assert labels[0] == "At service level", labels
        assert re.search(r"= %d all replicas" % slo, t.screen.display[top + 1] +
                         t.screen.display[top + 2]), t.text()
        t.press("p")
        t.wait_for(r"at 30 tok/s \u00b7 %d fit in memory \u00b7 decode binds" % fit)
        t.press("p")
        t.wait_for(r"^\? help  q quit")
        t.press("m")
        for _ in range(60):
            t.send("\x7f")
        t.press(md + "\r")
        t.wait_for(r"wrote ")
        with open(md) as f:
            head = f.read().split("\n")[2]
        assert head.startswith("**%d users keep 30 tok/s each (decode binds); %d fit in memory"
                               % (slo, fit)), head
    finally:
        t.kill()


def versus_and_compare_show_each_scenarios_speed_and_cost():
    args = ["--gpu", "h100-sxm", "--model", "llama-3.1-70b", "--gpus", "4", "--context", "32k",
            "--engine", "vllm"]
    a, b = plan(*args), plan(*args, "--kv-dtype", "fp8")
    t = start(args, 120, 40)
    try:
        t.press("b")
        t.press(t.cap("kcud1"))
        t.press(t.cap("kcud1"))  # KV cache
        for _ in range(5):
            t.press(t.cap("kcuf1"))
        t.wait_for(r"KV cache .*fp8")
        t.press("v")
        t.wait_for(r"versus: 2 scenarios")
        text = t.text()
        for r in (a, b):
            assert tok_s(r["tokens_per_s_per_user"]) + " each" in text, text
            assert tok_s(r["tokens_per_s_total"]) + " in all" in text, text
            assert "first token " + seconds(r["ttft_seconds"]) in text, text
            assert "$%.4f/user-h" % r["cost_per_user_hour"] in text, text
            assert "$%.4f/M output" % r["cost_per_million_output_tokens"] in text, text
        t.press("\x1b")
        t.wait_for(r"^\? help  q quit")
        t.press("c")
        t.wait_for(r"Compare: A")
        text = t.text()
        for label in ("Speed per user", "Throughput", "First token", "Cost per user-hour",
                      "Cost per M output"):
            assert re.search(r"^ \u2502 . %s" % re.escape(label), text, re.M), (label, text)
        row = re.search(r"Throughput\s+(\S+ tok/s)\s+(\S+ tok/s)", text)
        assert row and row.groups() == (tok_s(a["tokens_per_s_total"]),
                                        tok_s(b["tokens_per_s_total"])), text
        row = re.search(r"Cost per M output\s+(\S+)\s+(\S+)", text)
        assert row and row.groups() == ("$%.4f" % a["cost_per_million_output_tokens"],
                                        "$%.4f" % b["cost_per_million_output_tokens"]), text
    finally:
        t.kill()


for test in (speed_for_every_engine_and_size, the_pane_scrolls_with_the_keys_the_wheel_and_its_marks,
             x_shows_every_row_with_its_formula_and_scrolls,
             a_service_level_leads_every_view_and_the_markdown,
             versus_and_compare_show_each_scenarios_speed_and_cost):
    check(test.__name__, test)
shutil.rmtree(TMP, True)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
