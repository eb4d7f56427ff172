#!/usr/bin/python3
"""End-to-end tests of the real kvplan binary on a pseudo-terminal, read
through the pyte terminal emulator. Usage: test_tui.py path/to/kvplan.
Prints one line per test and ends with "N passed, N failed"."""
import atexit
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import termios

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ptyterm import PtyTerm, run_tests  # noqa: E402

KVPLAN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
SCENARIO = ["--gpu", "a100-80gb", "--model", "llama-2-7b", "--context", "4k"]
TMP = tempfile.mkdtemp(prefix="kvplan-e2e-")
atexit.register(shutil.rmtree, TMP, True)
ENV = dict(os.environ, XDG_CONFIG_HOME=TMP, XDG_STATE_HOME=os.path.join(TMP, "state"))
ENV.pop("NO_COLOR", None)


def plan(*args):
    out = subprocess.run([KVPLAN, "plan", "--format", "json", *args], capture_output=True,
                         check=True, env=ENV)
    return json.loads(out.stdout)


def users_on_screen(t):
    """The user count from the explain pane's first line: '... = floor(29.72) = 29'."""
    m = t.wait_for(r"floor\([0-9.]+\)\s*=\s*([0-9,]+)")
    return int(m.group(1).replace(",", ""))


def control_value(t, label):
    """The value shown after a control's slider track."""
    m = re.search(r"^ %s\s+\S+\s+(\S+)" % re.escape(label), t.text(), re.M)
    assert m, t.text()
    return m.group(1)


def control_row(t, label):
    for y, line in enumerate(t.screen.display):
        if line.startswith(" " + label):
            return y, line
    raise AssertionError("no %s control on screen:\n%s" % (label, t.text()))


def start(*extra, cols=100, rows=30, scenario=SCENARIO):
    t = PtyTerm([KVPLAN, *scenario, *extra], cols=cols, rows=rows, env=ENV)
    # the key bar is the last row curses sends: once it is there, the frame is whole
    t.wait_for(r"How the number is computed")
    t.wait_for(r"^\? help  q quit")
    return t


def test_opens_on_the_scenario_and_shows_what_plan_computes():
    t = start()
    try:
        assert users_on_screen(t) == plan(*SCENARIO)["result"]["max_users"] == 29
        assert "Llama 2 7B on 1 x NVIDIA A100 SXM4 80GB" in t.text()
    finally:
        t.kill()


def test_mono_and_ascii_hold_in_the_live_planner():
    # --mono: no colour at all (SGR 30-37, 90-97, 38;5); --ascii: no box or arrow glyphs
    t = PtyTerm([KVPLAN, *SCENARIO, "--mono", "--ascii"], cols=100, rows=30, env=ENV)
    try:
        t.wait_for(r"How the number is computed")
        raw = bytes(t.raw)
        # each SGR's parameters (a cursor move such as ESC [30;1H is no colour)
        for sgr in re.findall(rb"\x1b\[([0-9;]*)m", raw):
            params = sgr.split(b";")
            colours = [p for p in params if re.fullmatch(rb"3[0-7]|9[0-7]", p)]
            assert not colours and b"38" not in params, (sgr, raw[-400:])
        assert "\u25c2".encode() not in raw and "\u2588".encode() not in raw, raw[-400:]
        assert "< NVIDIA A100 SXM4 80GB >" in t.text(), t.text()
    finally:
        t.kill()


def test_right_arrow_doubles_the_context_and_users_follow_plan():
    t = start()
    try:
        t.press(t.cap("kcuf1"))
        t.wait_for(r"at 8k tokens")
        want = plan(*SCENARIO[:-1], "8k")["result"]["max_users"]
        assert users_on_screen(t) == want == 14, t.text()
        t.press(t.cap("kcub1"))
        assert users_on_screen(t) == 29
    finally:
        t.kill()


def test_dragging_the_context_knob_moves_it_continuously():
    t = start()
    try:
        y, line = control_row(t, "Context")
        knob = line.index("\u25cf")
        end = line.index(" ", knob + 1) - 1  # last cell of the track
        t.press(t.mouse_bytes(0, knob, y))          # press on the knob
        values = []
        for x in range(knob + 1, end + 1, 3):
            t.press(t.mouse_bytes(32, x, y))        # motion with the button held (mode 1002)
            values.append(control_value(t, "Context"))
        t.press(t.mouse_bytes(0, end, y, release=True))
        t.wait_for(r"at 1M tokens")
        assert len(set(values)) >= 3, values   # it moved while dragging, not only on release
        assert users_on_screen(t) == plan(*SCENARIO[:-1], "1M")["result"]["max_users"]
    finally:
        t.kill()


def chart_ticks(t):
    """The chart's context axis: its row and the column of each tick label."""
    for y, line in enumerate(t.screen.display):
        m = re.search(r"1k +4k +16k +64k +256k +1M", line)
        if m:
            return y, {k: line.index(k, m.start()) for k in ("1k", "4k", "16k", "64k", "256k")}
    raise AssertionError("no chart axis on screen:\n%s" % t.text())


# a model whose longest context (128k) leaves the chart's clicks room
LONG = ["--gpu", "a100-80gb", "--model", "llama-3.1-8b", "--context", "4k"]


def test_a_click_in_the_chart_sets_the_context_under_it():
    # the column of the 64k tick, one row above the axis: the Context slider's
    # 64k step, the plan of --context 64k, and z takes it back as it would the slider's
    t = start(cols=120, rows=40, scenario=LONG)
    try:
        y, at = chart_ticks(t)
        t.press(t.mouse_bytes(0, at["64k"], y - 1))
        t.press(t.mouse_bytes(0, at["64k"], y - 1, release=True))
        t.wait_for(r"at 64k tokens")
        assert control_value(t, "Context") == "64k", t.text()
        assert users_on_screen(t) == plan(*LONG[:-1], "64k")["result"]["max_users"]
        t.press("z")
        t.wait_for(r"at 4k tokens")
        assert control_value(t, "Context") == "4k", t.text()
    finally:
        t.kill()


def test_a_click_past_the_models_longest_context_holds_at_it():
    # Llama 2 7B takes 4k tokens: a click at 64k sets 4k and says why
    t = start(cols=120, rows=40)
    try:
        y, at = chart_ticks(t)
        t.press(t.mouse_bytes(0, at["1k"], y - 1))
        t.press(t.mouse_bytes(0, at["1k"], y - 1, release=True))
        t.wait_for(r"at 1k tokens")
        t.press(t.mouse_bytes(0, at["64k"], y - 1))
        t.press(t.mouse_bytes(0, at["64k"], y - 1, release=True))
        t.wait_for(r"Context held at 4k, the model's longest")
        assert control_value(t, "Context") == "4k", t.text()
        assert "at 4k tokens" in t.text(), t.text()
    finally:
        t.kill()


def test_dragging_in_the_chart_moves_the_context_and_holds_at_the_end():
    t = start(cols=120, rows=40, scenario=LONG)
    try:
        y, at = chart_ticks(t)
        t.press(t.mouse_bytes(0, at["4k"], y - 1))
        t.wait_for(r"at 4k tokens")
        t.press(t.mouse_bytes(32, at["64k"], y - 1))
        t.wait_for(r"at 64k tokens")
        # past the model's longest context (128k) and the plot's right end,
        # off its rows: held at 128k, as plan computes it
        t.press(t.mouse_bytes(32, 119, 2))
        t.press(t.mouse_bytes(0, 119, 2, release=True))
        t.wait_for(r"at 128k tokens")
        t.wait_for(r"Context held at 128k, the model's longest")
        assert users_on_screen(t) == plan(*LONG[:-1], "128k")["result"]["max_users"]
    finally:
        t.kill()


def test_clicking_a_control_focuses_it_and_the_wheel_steps_it():
    t = start()
    try:
        y, line = control_row(t, "Headroom")
        t.mouse(0, 3, y)
        t.mouse(0, 3, y, release=True)
        t.mouse(64, 3, y)  # wheel up
        m = t.wait_for(r"Headroom .* 11%")
        assert m
        assert users_on_screen(t) == plan(*SCENARIO, "--headroom", "11")["result"]["max_users"]
    finally:
        t.kill()


def test_the_controls_scroll_when_they_outnumber_the_rows():
    # vLLM's knobs, the draft and the host tier: more controls than 80x24 has rows
    t = start("--engine", "vllm", cols=80, rows=24)
    try:
        assert "\u25bc" in t.text() and "Host KV" not in t.text()
        for _ in range(6):
            t.press(t.cap("kcuu1"))  # up from Context (past Stages) wraps to the last control
        t.wait_for(r"Host KV")
        assert "\u25b2" in t.text()
        # a click on a scrolled row reaches the control drawn there, and the wheel steps it
        y, _ = control_row(t, "Host KV")
        t.mouse(0, 3, y)
        t.mouse(0, 3, y, release=True)
        t.mouse(64, 3, y)  # wheel up: the next size
        t.wait_for(r"Host KV .* 16 GiB/GPU")
        assert plan(*SCENARIO, "--engine", "vllm", "--host-kv", "16GiB")["result"]["host_tier"]
    finally:
        t.kill()


def control_rows(t):
    """(y, label, rest of the row) of each control row on screen, in order."""
    rows = []
    for y, line in enumerate(t.screen.display[2:], start=2):
        if line.startswith(" How the number"):
            break
        if line[1] != " ":  # the label fills LABEL_W (11) columns after the margin
            rows.append((y, line[1:12].strip(), re.split(r"\s{3,}", line[13:])[0]))
    return rows


def test_a_click_on_a_scrolled_list_leaves_it_under_the_pointer():
    # Llama 3.1 8B under vLLM: more controls than rows, and a Draft list with
    # Llama 3.2 1B in it, so the wheel steps whichever control is last shown
    for cols, rows in ((80, 24), (70, 22)):
        t = PtyTerm([KVPLAN, "--gpu", "a100-80gb", "--model", "llama-3.1-8b", "--context", "4k",
                     "--engine", "vllm"], cols=cols, rows=rows, env=ENV)
        try:
            t.wait_for(r"How the number is computed")
            t.wait_for(r"^\? help  q quit")
            shown = control_rows(t)
            y, label, value = shown[-1]
            assert t.screen.display[y][0] == "\u25bc", t.text()
            t.press(t.mouse_bytes(0, 3, y))
            t.send(t.mouse_bytes(0, 3, y, release=True))
            assert control_rows(t) == shown, (cols, t.text())  # the list stayed put
            t.press(t.mouse_bytes(64, 3, y))  # wheel up over the clicked row
            after = control_rows(t)
            assert after[-1][1] == label and after[-1][2] != value, (cols, label, t.text())
            assert [r[1] for r in after] == [r[1] for r in shown], (cols, t.text())
            # the margin's mark scrolls the list by one row; the wheel over it too
            t.press(t.mouse_bytes(0, 0, y))
            t.send(t.mouse_bytes(0, 0, y, release=True))
            moved = control_rows(t)
            assert [r[1] for r in moved] == [r[1] for r in shown[1:]] + [moved[-1][1]], t.text()
            assert t.screen.display[shown[0][0]][0] == "\u25b2", t.text()
            before = [r[2] for r in moved]
            t.press(t.mouse_bytes(64, 0, shown[0][0]))  # wheel up over the top mark
            back = control_rows(t)
            assert [r[1] for r in back] == [r[1] for r in shown], (cols, t.text())
            assert [r[2] for r in back][1:] == before[:-1], (before, back, t.text())  # no value changed
        finally:
            t.kill()


def test_clicking_a_key_in_the_bottom_bar_runs_it():
    t = start()
    try:
        row = t.rows - 1
        x = t.screen.display[row].index("? help")
        t.press(t.mouse_bytes(0, x + 2, row))
        t.send(t.mouse_bytes(0, x + 2, row, release=True))
        t.wait_for(r"any key closes this help")
        t.press("x")
        t.wait_for(r"How the number is computed")
        assert "Any key closes" not in t.text()
    finally:
        t.kill()


def test_a_click_on_the_last_row_runs_a_key_only_where_the_key_bar_is_drawn():
    """The presentation has no key bar, nor has a screen too small for the
    main one: a click on their last row where "q quit" is on the main screen
    runs no key (it quit the planner)."""
    t = start()
    try:
        row = t.rows - 1
        x = t.screen.display[row].index("q quit") + 2
        t.press("p")
        t.wait_for(r"at 4k tokens each on 1 x NVIDIA A100 SXM4 80GB")
        t.send(t.mouse_bytes(0, x, row))
        t.send(t.mouse_bytes(0, x, row, release=True))
        t.press("p")  # the next frame: the main screen, the planner still up
        t.wait_for(r"^\? help  q quit")
        t.resize(50, 15)
        t.wait_for(r"Enlarge the terminal to 70x22")
        t.send(t.mouse_bytes(0, x, 14))
        t.send(t.mouse_bytes(0, x, 14, release=True))
        t.press("\x0c")  # Ctrl-L: a frame after the click
        t.resize(100, 30)
        t.wait_for(r"How the number is computed")
        assert os.waitpid(t.pid, os.WNOHANG)[0] == 0  # still running
    finally:
        t.kill()


def test_resize_redraws_and_too_small_says_so():
    t = start()
    try:
        t.resize(160, 48)
        t.wait_for(r"Users \(log scale\) against context")
        t.resize(50, 15)
        t.wait_for(r"Enlarge the terminal to 70x22")
        t.resize(80, 24)
        t.wait_for(r"How the number is computed")
        assert users_on_screen(t) == 29
    finally:
        t.kill()


def test_export_writes_the_same_bytes_as_plan_json():
    path = os.path.join(TMP, "export.json")
    t = start()
    try:
        t.press(t.cap("kcuf1"))  # 8k
        t.press("e")
        t.wait_for(r"Export to: kvplan-llama-2-7b-a100-80gb-8k.json")
        for _ in range(60):
            t.send("\x7f")
        t.press(path + "\r")
        t.wait_for(r"wrote ")
        with open(path, "rb") as f:
            written = f.read()
        want = subprocess.run([KVPLAN, "plan", "--format", "json", *SCENARIO[:-1], "8k"],
                              capture_output=True, check=True, env=ENV).stdout
        assert written == want
        # a second export asks before overwriting; n keeps the file
        t.press(t.cap("kcuf1"))
        t.press("e")
        for _ in range(60):
            t.send("\x7f")
        t.press(path + "\r")
        t.wait_for(r"exists. Overwrite it\?")
        t.press("n")
        with open(path, "rb") as f:
            assert f.read() == want
    finally:
        t.kill()


def test_open_shows_errors_without_leaving():
    bad = os.path.join(TMP, "bad.json")
    with open(bad, "w") as f:
        f.write('{"format": "kvplan-scenario", "format_version": 9}\n')
    t = start()
    try:
        t.press("o")
        t.press(bad + "\r")
        t.wait_for(r"format_version: 9 is not supported")
        assert users_on_screen(t) == 29
    finally:
        t.kill()


def test_a_failed_export_keeps_the_planner_up():
    t = start()
    try:
        t.press("e")
        for _ in range(60):
            t.send("\x7f")
        t.press("/dev/full\r")  # refused before any question: it is no file to replace
        t.wait_for(r"/dev/full is a terminal or device, not a file")
        t.press("e")
        for _ in range(60):
            t.send("\x7f")
        t.press("/nonexistent/dir/x.json\r")
        t.wait_for(r"cannot create a file in its directory")
        # the backspaces' frames may still be arriving: let them all land, so the
        # next frame is the one that answers Right
        t.settle()
        t.wait_blocked()
        t.press(t.cap("kcuf1"))
        t.wait_for(r"at 8k tokens")
        assert users_on_screen(t) == 14
    finally:
        t.kill()


def test_a_resize_storm_leaves_a_correct_screen():
    t = start()
    try:
        sizes = [(40 + (i * 37) % 160, 10 + (i * 17) % 50) for i in range(300)]
        for cols, rows in sizes:
            fcntl_resize(t, cols, rows)
        fcntl_resize(t, 100, 30)
        # the storm's queued resizes are drawn one by one: wait until they are all done.
        # Frames drawn for an older size may land on the emulator after it changed
        # size (a real terminal has the same race); Ctrl-L repaints, as a user would.
        t.wait_blocked()
        t.settle()
        t.press("\x0c")
        t.settle()
        t.wait_blocked()
        t.press(t.cap("kcuf1"))  # no resize is pending now: the next frame answers the key
        t.wait_for(r"at 8k tokens")
        got = users_on_screen(t)
        assert got == 14, (got, t.text())
        assert t.screen.display[0].startswith(" kvplan")
    finally:
        t.kill()


def fcntl_resize(t, cols, rows):
    """A resize without waiting for the program: the storm must not break it."""
    import fcntl as _f
    import struct as _s
    import termios as _t
    t.cols, t.rows = cols, rows
    t.screen.resize(rows, cols)  # the terminal changes size first, then signals
    _f.ioctl(t.fd, _t.TIOCSWINSZ, _s.pack("HHHH", rows, cols, 0, 0))
    os.kill(t.pid, signal.SIGWINCH)
    t.pump(0)


def test_a_10x3_terminal_asks_for_more_room():
    t = PtyTerm([KVPLAN, *SCENARIO], cols=10, rows=3, env=ENV)
    try:
        t.wait_for(r"Enlarge")
        t.send("q")
        assert t.wait_exit() == 0
    finally:
        t.kill()


def test_term_unset_prints_the_plan():
    env = {k: v for k, v in ENV.items() if k != "TERM"}
    out = subprocess.run(["env", "-u", "TERM", KVPLAN, *SCENARIO], capture_output=True, text=True,
                         env=env, stdin=subprocess.DEVNULL)
    assert out.returncode == 0
    assert "printing the plan instead" in out.stderr and "29 users fit" in out.stdout


def test_a_closed_terminal_ends_the_planner():
    t = start()
    t.wait_blocked()
    os.close(t.fd)  # the terminal goes away: SIGHUP and end of input
    _, status = os.waitpid(t.pid, 0)
    assert os.WIFEXITED(status), status  # it exited, it did not crash or hang
    t.eof = True


def test_quit_restores_the_terminal():
    t = start()
    t.send("q")
    assert t.wait_exit() == 0
    tail = bytes(t.raw[-200:])
    assert b"\x1b[?1002l" in tail, tail      # motion reporting off
    assert b"\x1b[?1049l" in tail, tail      # back to the normal screen


def test_every_ending_signal_restores_the_terminal():
    # Ctrl-\ (SIGQUIT), SIGUSR1 and SIGALRM left the terminal raw, on the
    # alternate screen, with mouse reporting on; the status is 128 + the signal.
    # (SIGPIPE is handled too, but python starts its children with it ignored.)
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGUSR1,
                signal.SIGUSR2, signal.SIGALRM):
        t = start()
        t.wait_blocked()
        mark = len(t.raw)
        os.kill(t.pid, sig)
        assert t.wait_exit() == 128 + sig, (sig, t.status)
        tail = bytes(t.raw[mark:])
        assert b"\x1b[?1049l" in tail, (sig, tail)   # the normal screen back
        assert b"\x1b[?1002l" in tail and b"\x1b[?1000l" in tail, (sig, tail)  # no mouse
        attrs = termios.tcgetattr(t.fd)
        assert attrs[3] & termios.ICANON and attrs[3] & termios.ECHO, (sig, attrs)


def test_a_signal_with_the_first_byte_of_output_restores_the_terminal():
    # SIGHUP just after the first byte broke the terminal 14 times in 20,
    # because the handler was installed after the terminal was switched
    for _ in range(5):
        t = PtyTerm([KVPLAN, *SCENARIO], cols=100, rows=30, env=ENV)
        while not t.raw:
            t.pump(0.01)
        os.kill(t.pid, signal.SIGHUP)
        status = t.wait_exit()
        if b"\x1b[?1049h" in bytes(t.raw):
            assert status == 128 + signal.SIGHUP, status
            assert bytes(t.raw).rfind(b"\x1b[?1049l") > bytes(t.raw).rfind(b"\x1b[?1049h")
        attrs = termios.tcgetattr(t.fd)
        assert attrs[3] & termios.ICANON and attrs[3] & termios.ECHO, attrs


def test_a_huge_columns_or_lines_is_capped():
    # COLUMNS=30000 LINES=30000 grew to 24 GB; COLUMNS=99999999 aborted
    for env in ({"COLUMNS": "30000", "LINES": "30000"}, {"COLUMNS": "99999999"}):
        t = PtyTerm([KVPLAN, *SCENARIO], cols=100, rows=30, env=dict(ENV, **env))
        try:
            # the pane is 100x30 while the planner draws 1000x500: look at the bytes
            t.wait_raw(b"How the number is computed", timeout=20)
            t.send("q")
            assert t.wait_exit(timeout=20) == 0
        finally:
            t.kill()


def test_a_window_grown_past_the_cap_is_drawn_at_the_cap():
    # the planner allocated whatever size the terminal reported; a
    # window grown past 1000x500 is drawn as 1000x500
    t = start()
    try:
        t.resize(1200, 600)
        t.wait_for(r"^\? help  q quit")
        t.settle()
        rows = [y for y, line in enumerate(t.screen.display) if line.strip()]
        widest = max(len(line.rstrip()) for line in t.screen.display)
        assert rows[-1] == 499 and widest <= 1000, (rows[-1], widest)
        t.send("q")
        assert t.wait_exit() == 0
    finally:
        t.kill()


def test_a_signal_mid_export_leaves_no_file_and_restores_the_terminal():
    # a SIGTERM during the planner's export (here from inside fsync,
    # through tests/fault) removes the temporary file, then restores the terminal
    lib = os.path.join(TMP, "signal_in_fsync.so")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fault",
                       "signal_in_fsync.c")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", lib, src, "-ldl"], check=True)
    out = os.path.join(TMP, "sig-export")
    os.mkdir(out)
    env = dict(ENV, LD_PRELOAD=lib, KVPLAN_FAULT_SIGNAL=str(int(signal.SIGTERM)),
               ASAN_OPTIONS="verify_asan_link_order=0")
    t = PtyTerm([KVPLAN, *SCENARIO], cols=100, rows=30, env=env)
    try:
        t.wait_for(r"^\? help  q quit")
        t.press("e")
        for _ in range(60):
            t.send("\x7f")
        mark = len(t.raw)
        t.send(os.path.join(out, "x.json") + "\r")
        assert t.wait_exit() == 128 + signal.SIGTERM, t.status
        assert os.listdir(out) == [], os.listdir(out)
        assert b"\x1b[?1049l" in bytes(t.raw[mark:])
        attrs = termios.tcgetattr(t.fd)
        assert attrs[3] & termios.ICANON and attrs[3] & termios.ECHO, attrs
    finally:
        t.kill()
        shutil.rmtree(out, True)


def test_open_refuses_a_fifo_without_freezing():
    # a FIFO at the open prompt froze the planner (q ignored)
    fifo = os.path.join(TMP, "fifo.json")
    os.mkfifo(fifo)
    t = start()
    try:
        t.press("o")
        t.press(fifo + "\r")
        t.wait_for(r"is a FIFO, not a regular file")
        t.send("q")
        assert t.wait_exit() == 0
    finally:
        t.kill()
        os.unlink(fifo)


def test_suspend_and_resume_redraw():
    t = start()
    try:
        t.wait_blocked()
        mark = len(t.raw)
        os.kill(t.pid, signal.SIGTSTP)
        t.wait_raw(b"\x1b[?1049l", mark)  # left the alternate screen
        left = bytes(t.raw).index(b"\x1b[?1049l", mark)
        os.kill(t.pid, signal.SIGCONT)
        t.wait_raw(b"\x1b[?1049h", left)  # and came back to it
        # the repaint on resume may still be arriving: let it land, so the
        # next frame is the one that answers Right
        t.settle()
        t.wait_blocked()
        t.press(t.cap("kcuf1"))
        t.wait_for(r"at 8k tokens")
        assert users_on_screen(t) == 14
        assert b"\x1b[?1002h" in bytes(t.raw[left:])  # motion reporting is back
    finally:
        t.kill()


def test_picker_filters_by_typing():
    t = start()
    try:
        t.press(t.cap("kcuu1"))  # focus Model
        t.press("\r")
        t.wait_for(r"Model: type to filter")
        for c in "deepseek-v3":
            t.press(c)
        t.press("\r")
        t.wait_for(r"DeepSeek-V3 / R1 on 1 x")
    finally:
        t.kill()


def test_without_a_terminal_it_prints_the_plan():
    out = subprocess.run([KVPLAN, *SCENARIO], capture_output=True, stdin=subprocess.DEVNULL,
                         env=ENV, text=True)
    assert out.returncode == 0
    assert "printing the plan instead" in out.stderr
    assert "29 users fit at 4,096 tokens" in out.stdout
    env = dict(ENV, TERM="dumb")
    t = PtyTerm([KVPLAN, *SCENARIO], env=env, term="dumb")
    t.wait_exit()
    raw = bytes(t.raw).decode("utf-8", "replace")
    assert "TERM=dumb" in raw and "29 users fit" in raw, raw[:500]


def test_three_replicas_under_each_engine_show_one_answer_everywhere():
    """12 H100s as three replicas of TP 4: under every profile the big count,
    the explain pane's total, the chart's marker and `plan --format json`
    agree, and the engine's knobs replace the dimmed Headroom."""
    layout = ["--gpu", "h100-sxm", "--model", "llama-3.1-70b", "--gpus", "12", "--tp", "4",
              "--context", "32k"]
    for engine in ["generic", "vllm", "sglang", "llama.cpp", "trtllm"]:
        args = layout + ["--engine", engine]
        want = plan(*args)["result"]
        t = PtyTerm([KVPLAN, *args], cols=160, rows=48, env=ENV)
        try:
            t.wait_for(r"^\? help  q quit")
            text = t.text()
            n = "{:,}".format(want["max_users"])
            assert ("(3 x 4 GPUs, layers split)" if engine == "llama.cpp" else "(3 x TP 4)") in text, text
            # llama.cpp splits each replica's layers over its GPUs, not tensors
            split = "layers split over 4 GPUs" if engine == "llama.cpp" else "TP 4"
            sep = ", " if engine == "llama.cpp" else " x "
            each = "{:,}".format(want["users_per_replica"])
            assert "3 replicas%s%s: %s users each" % (sep, split, each) in text, text
            assert re.search(r"= %s all replicas" % re.escape(n), text), text
            assert "32k now: %s users" % n in text, text
            if engine == "generic":
                assert re.search(r"^ Headroom\s+\S+\s+10%", text, re.M), text
            else:
                assert not re.search(r"^ Headroom ", text, re.M), text
                assert "generic rule (10% headroom): " in text, text
            if engine == "llama.cpp":
                assert "-np %d" % want["users_per_replica"] in text, text
        finally:
            t.kill()


def test_a_meeting_keeps_scenarios_side_by_side_and_shares_them():
    """b keeps the reference and edits a copy; n adds a third; v shows them
    side by side; m writes the versus table; e the whole session, which the
    command line reads back by label; y sends the command line by OSC 52."""
    md = os.path.join(TMP, "meeting.md")
    session = os.path.join(TMP, "meeting.json")
    t = PtyTerm([KVPLAN, "--gpu", "h100-sxm", "--model", "llama-3.1-70b", "--gpus", "2",
                 "--context", "32k"], cols=120, rows=40, env=ENV)
    try:
        t.wait_for(r"^\? help  q quit")
        t.press("b")
        t.wait_for(r"A is the reference")
        t.press(t.cap("kcud1"))
        t.press(t.cap("kcud1"))  # KV cache
        for _ in range(5):
            t.press(t.cap("kcuf1"))  # to fp8
        t.press("a")
        for _ in range(10):
            t.send("\x7f")
        t.press("fp8\r")
        t.wait_for(r"\[2 fp8\]")  # the current tab, bracketed
        t.press("v")
        t.wait_for(r"versus: 2 scenarios against A")
        assert re.search(r"\+\d+% against A", t.text()), t.text()
        t.press("m")
        for _ in range(60):
            t.send("\x7f")
        t.press(md + "\r")
        t.wait_for(r"wrote .*meeting.md")
        with open(md) as f:
            table = f.read()
        assert "| | A (reference) | fp8 |" in table, table
        assert "| **Users** |" in table and "| KV cache | bf16 | fp8 |" in table, table
        t.press("\x1b")
        t.wait_for(r"^\? help  q quit")
        t.press("e")
        for _ in range(60):
            t.send("\x7f")
        t.press(session + "\r")
        t.wait_for(r"every scenario of the session")
        want = plan("--load", session, "--scenario", "FP8")["result"]["max_users"]
        assert want == plan("--gpu", "h100-sxm", "--model", "llama-3.1-70b", "--gpus", "2",
                            "--context", "32k", "--kv-dtype", "fp8")["result"]["max_users"]
        before = len(t.raw)
        t.press("y")
        t.wait_for(r"Copied to the clipboard")
        line = t.osc52(before)
        assert line.startswith("kvplan plan --gpu h100-sxm --model llama-3.1-70b --gpus 2"), line
        assert "--kv-dtype fp8" in line, line
    finally:
        t.kill()


def test_q_asks_before_losing_an_unexported_session():
    """bn<Right> makes a session of three scenarios: q asks (any key but y
    stays), e exports it, and then q quits at once; y then q from the
    Copied box asks too. A single unchanged scenario quits at once (above)."""
    session = os.path.join(TMP, "asked.json")
    t = start()
    try:
        t.press("b")
        t.press("n")
        t.press(t.cap("kcuf1"))
        t.press("y")
        t.wait_for(r"Copied to the clipboard")
        t.press("q")  # closes the box and acts: asks
        t.wait_for(r"Quit\? 3 scenarios not exported: y quits, e exports, N stays\. \(y/e/N\)")
        t.press("n")
        t.wait_for(r"not quitting: e exports the session")
        assert os.waitpid(t.pid, os.WNOHANG)[0] == 0  # still running
        t.press("e")
        for _ in range(60):
            t.send("\x7f")
        t.press(session + "\r")
        t.wait_for(r"every scenario of the session")
        t.send("q")
        assert t.wait_exit() == 0
    finally:
        t.kill()


def main():
    return run_tests([(name, fn) for name, fn in globals().items() if name.startswith("test_")], "e2e")


if __name__ == "__main__":
    sys.exit(main())
