#!/usr/bin/python3
"""The planner on a pty under signals: Ctrl-Z in the middle of a storm of
resizes, a real stop and resume under job control, and faults that must
leave the terminal as it was and still die by their signal.
Usage: t_tui_signals.py path/to/kvplan. Ends with "N passed, N failed"."""
import fcntl
import os
import re
import resource
import select
import signal
import struct
import sys
import tempfile
import termios
import time
import traceback

import pyte

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from ptyterm import PtyTerm  # noqa: E402

KVPLAN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
SCENARIO = ["--gpu", "a100-80gb", "--model", "llama-2-7b", "--context", "4k"]
ENV = dict(os.environ, XDG_CONFIG_HOME=tempfile.mkdtemp(prefix="kvplan-sig-"))
ENV.pop("NO_COLOR", None)
# Under a sanitizer its own report would answer a fault (exit 1): the
# planner's handler hands the signal on to whatever was there, so let that
# be the default action.
for tool in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
    ENV[tool] = ":".join(o for o in [os.environ.get(tool, ""), "handle_segv=0:handle_sigbus=0"
                                     ":handle_sigfpe=0:handle_sigill=0:handle_abort=0"] if o)
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core files from the faults

ALT_LEAVE, ALT_ENTER = b"\x1b[?1049l", b"\x1b[?1049h"
MOUSE_OFF = [b"\x1b[?1000l", b"\x1b[?1002l", b"\x1b[?1006l"]
# the alternate screen and the mouse modes the planner turns on
MODES = {1049: "alternate screen", 1000: "mouse buttons", 1002: "mouse motion",
         1006: "SGR mouse reports"}
CTRL_Z = b"\x1a"

# A shell's part, done by a small parent: the planner in its own process
# group, in the foreground of the pty, with its parent in the same session,
# so that its group is not orphaned and a Ctrl-Z really stops it (in the
# orphaned group pty.fork makes, the kernel discards the stop).
JOB_CONTROL = """
import os, signal, sys
pid = os.fork()
if pid == 0:
    os.setpgid(0, 0)
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    os.tcsetpgrp(0, os.getpid())
    for s in (signal.SIGTTOU, signal.SIGPIPE):
        signal.signal(s, signal.SIG_DFL)
    os.execv(sys.argv[1], sys.argv[1:])
while True:
    _, status = os.waitpid(pid, os.WUNTRACED)
    if not os.WIFSTOPPED(status):
        break
sys.exit(os.waitstatus_to_exitcode(status) % 256)
"""


class JobTerm(PtyTerm):
    """A PtyTerm whose child is the job-control parent: waits for input are the planner's."""
    planner = None

    def wait_blocked(self, timeout=5.0):
        parent, self.pid = self.pid, self.planner
        try:
            super().wait_blocked(timeout)
        finally:
            self.pid = parent


def start_job():
    """The planner as a foreground job; returns (term, the planner's pid)."""
    t = JobTerm(["/usr/bin/python3", "-c", JOB_CONTROL, KVPLAN, *SCENARIO], env=ENV)
    t.wait_for(r"^\? help  q quit")
    with open("/proc/%d/task/%d/children" % (t.pid, t.pid)) as f:
        t.planner = int(f.read().split()[0])
    return t, t.planner


def state(pid):
    """The process's state letter (R, S, T stopped, Z dead), or None once reaped."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def wait_state(t, pid, letters, timeout=5.0):
    end = time.monotonic() + timeout
    while state(pid) not in letters:
        if time.monotonic() > end:
            raise AssertionError("planner state %s, not %s" % (state(pid), letters))
        t.pump(0.005)


def set_size(t, cols, rows):
    fcntl.ioctl(t.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def modes_left_on(raw):
    """The private modes of MODES still set once the terminal has read `raw`
    (ncurses joins them: ESC [ ? 1006 ; 1000 l)."""
    on = set()
    for m in re.finditer(rb"\x1b\[\?([0-9;]+)([hl])", raw):
        for mode in m.group(1).split(b";"):
            if mode and int(mode) in MODES:
                (on.add if m.group(2) == b"h" else on.discard)(int(mode))
    return sorted(MODES[m] for m in on)


def assert_left_terminal(raw):
    """Nothing the planner set is still on: the normal screen, no mouse reporting."""
    assert modes_left_on(raw) == [], (modes_left_on(raw), raw[-300:])


def read_raw(t, timeout):
    """Output kept as bytes, not fed to the emulator: each Ctrl-Z makes the
    tty discard pending output (no NOFLSH), cutting escape sequences that
    pyte then misreads; the screen is read afresh after the storm."""
    ready, _, _ = select.select([t.fd], [], [], timeout)
    try:
        data = os.read(t.fd, 65536) if ready else b""
    except OSError:
        data = b""
    t.raw += data
    return bool(data)


def fresh_screen(t):
    t.screen = pyte.Screen(t.cols, t.rows)
    t.stream = pyte.ByteStream(t.screen)


def continue_until_running(t, pid, timeout=5.0):
    """SIGCONT as long as it stops: a Ctrl-Z of the storm may still be on its way."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if state(pid) == "T":
            os.kill(pid, signal.SIGCONT)
        if not read_raw(t, 0.2) and state(pid) != "T":
            return
    raise AssertionError("planner still stopped or busy: state %s" % state(pid))


def test_ctrl_z_stops_at_once_and_resumes_repainted():
    t, pid = start_job()
    try:
        t.wait_blocked()
        mark = len(t.raw)
        t.send(CTRL_Z)
        wait_state(t, pid, "T")  # really stopped, by the default action
        t.settle(0.1)
        assert ALT_LEAVE in bytes(t.raw[mark:])
        assert_left_terminal(bytes(t.raw))
        resumed = len(t.raw)
        os.kill(pid, signal.SIGCONT)
        t.wait_raw(ALT_ENTER, resumed)
        t.wait_raw(b"\x1b[?1002h", resumed)  # motion reporting, after ncurses' 1000
        t.press("l")  # and it answers keys again
        t.send("q")
        assert t.wait_exit() == 0, t.status
    finally:
        t.kill()
        if state(pid):
            os.kill(pid, signal.SIGKILL)


def storm_then_quit(t, pid, rounds, seconds):
    """A resize and a Ctrl-Z per round, as fast as the planner answers (at
    most 2 ms apart), with a SIGCONT whenever it stopped; then it must still
    run, repaint, ask before losing its two scenarios and leave the terminal
    as it was. Bounded by `rounds` and by `seconds`."""
    t.press("n")  # a second scenario: quitting must now ask
    end, done = time.monotonic() + seconds, 0
    while done < rounds and time.monotonic() < end:
        set_size(t, *((100, 30) if done % 2 else (90, 27)))
        os.kill(pid, signal.SIGWINCH)
        t.send(CTRL_Z)
        read_raw(t, 0.002)
        assert state(pid) not in (None, "Z"), "planner died after %d rounds" % done
        if state(pid) == "T":
            os.kill(pid, signal.SIGCONT)
        done += 1
    continue_until_running(t, pid)
    assert state(pid) not in (None, "Z", "T"), "planner state %s" % state(pid)
    # a size the storm never used, then the terminal's own: a whole new frame
    set_size(t, 80, 24)
    os.kill(pid, signal.SIGWINCH)
    while read_raw(t, 0.1):
        pass
    fresh_screen(t)
    t.resize(100, 30)
    t.wait_for(r"^\? help  q quit")
    t.press("q")
    t.wait_for(r"Quit\? 2 scenarios not exported")
    t.send("y")
    assert t.wait_exit() == 0, t.status
    assert_left_terminal(bytes(t.raw))


def test_ctrl_z_during_a_storm_of_resizes_neither_crashes_nor_loses_the_session():
    """ncurses' own stop handler repainted from inside the resize the signal
    landed in and corrupted the heap, mostly within some hundreds of rounds
    (a crash, "corrupted double-linked list", or a silent exit). On pty.fork's orphaned
    process group the kernel discards the stop itself, so every Ctrl-Z runs
    the whole suspend and resume at full speed."""
    t = PtyTerm([KVPLAN, *SCENARIO], env=ENV)
    try:
        t.wait_for(r"^\? help  q quit")
        storm_then_quit(t, t.pid, 4000, 3.5)
    finally:
        t.kill()


def test_ctrl_z_storm_as_a_job_stops_and_resumes_each_time():
    t, pid = start_job()
    try:
        storm_then_quit(t, pid, 150, 2.0)
    finally:
        t.kill()
        if state(pid):
            os.kill(pid, signal.SIGKILL)


def dies_by(sig):
    t = PtyTerm([KVPLAN, *SCENARIO], env=ENV)
    try:
        t.wait_for(r"^\? help  q quit")
        t.wait_blocked()
        mark = len(t.raw)
        os.kill(t.pid, sig)
        status = t.wait_exit()
        assert status == -sig, "exit %s, not by signal %d" % (status, sig)
        after = bytes(t.raw[mark:])
        for seq in [ALT_LEAVE, *MOUSE_OFF]:
            assert seq in after, (seq, after)
        assert_left_terminal(bytes(t.raw))
        attrs = termios.tcgetattr(t.fd)
        assert attrs[3] & termios.ICANON and attrs[3] & termios.ECHO, attrs
    finally:
        t.kill()


def test_sigsegv_restores_the_terminal_and_dies_by_it():
    dies_by(signal.SIGSEGV)


def test_sigabrt_restores_the_terminal_and_dies_by_it():
    dies_by(signal.SIGABRT)


def test_sigbus_sigfpe_sigill_restore_the_terminal_and_die_by_them():
    for sig in (signal.SIGBUS, signal.SIGFPE, signal.SIGILL):
        dies_by(sig)


def main():
    tests = [(n, f) for n, f in sorted(globals().items()) if n.startswith("test_")]
    passed = failed = 0
    for name, fn in tests:
        try:
            fn()
            passed += 1
            print("ok  ", name)
        except Exception:
            failed += 1
            print("FAIL", name)
            traceback.print_exc()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
