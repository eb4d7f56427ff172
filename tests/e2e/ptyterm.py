"""ptyterm: run a program on a pseudo-terminal and read its screen with pyte.

Waits are on the program's output (select on the pty master), never sleeps:
each wait re-reads the emulated screen after every chunk of output.
Needs Debian's python3-pyte, run with /usr/bin/python3.
"""
import base64
import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import termios
import time
import traceback

import pyte


def run_tests(tests, label=None):
    """Runs each (name, function), one line each, then "[label: ]N passed,
    N failed"; returns the exit status."""
    passed = failed = 0
    for name, fn in tests:
        try:
            fn()
            passed += 1
            print("ok   %s" % name)
        except Exception:  # noqa: BLE001 - report every failure, keep going
            failed += 1
            print("FAIL %s" % name)
            traceback.print_exc()
    print("%s%d passed, %d failed" % (label + ": " if label else "", passed, failed))
    return 1 if failed else 0


class PtyTerm:
    def __init__(self, argv, cols=100, rows=30, env=None, term="xterm-256color"):
        self.cols, self.rows, self.term = cols, rows, term
        environ = dict(os.environ if env is None else env)
        if env is None:
            environ.pop("NO_COLOR", None)
        environ.update({"TERM": term, "LC_ALL": "C.UTF-8", "KVPLAN_FRAME_COUNTER": "1"})
        environ.pop("TMUX", None)
        pid, fd = pty.fork()
        if pid == 0:
            # size the terminal before exec, so the first frame has the right size
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
            os.execvpe(argv[0], argv, environ)
        self.pid, self.fd = pid, fd
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        self.eof = False
        self.status = None
        self._caps = {}

    # input
    def cap(self, name):
        """A key's bytes from terminfo (kcuf1 = Right ...), as this TERM sends them."""
        if name not in self._caps:
            out = subprocess.run(["tput", "-T", self.term, name], capture_output=True, check=True)
            self._caps[name] = out.stdout
        return self._caps[name]

    def send(self, data):
        os.write(self.fd, data.encode() if isinstance(data, str) else data)

    @staticmethod
    def mouse_bytes(button, x, y, release=False):
        """An SGR (1006) mouse report at 0-based cell x, y; button 32 = drag with button 1."""
        return "\x1b[<%d;%d;%d%s" % (button, x + 1, y + 1, "m" if release else "M")

    def mouse(self, button, x, y, release=False):
        self.send(self.mouse_bytes(button, x, y, release))

    # output
    def pump(self, timeout):
        if self.eof:
            return False
        ready, _, _ = select.select([self.fd], [], [], max(0.0, timeout))
        if not ready:
            return False
        try:
            data = os.read(self.fd, 65536)
        except OSError:
            data = b""
        if not data:
            self.eof = True
            return False
        self.raw += data
        self.stream.feed(data)
        return True

    def text(self):
        return "\n".join(line.rstrip() for line in self.screen.display)

    def wait_for(self, pattern, timeout=10.0):
        rx = re.compile(pattern, re.M)
        end = time.monotonic() + timeout
        while True:
            m = rx.search(self.text())
            if m:
                return m
            left = end - time.monotonic()
            if left <= 0 or (not self.pump(left) and self.eof):
                raise AssertionError("/%s/ never appeared; screen:\n%s" % (pattern, self.text()))

    def wait_raw(self, needle, start=0, timeout=10.0):
        """Until the bytes `needle` were written after offset `start`."""
        end = time.monotonic() + timeout
        while needle not in bytes(self.raw[start:]):
            left = end - time.monotonic()
            if left <= 0 or (not self.pump(left) and self.eof):
                raise AssertionError("%r never written" % needle)

    def osc52(self, start=0, timeout=10.0):
        """The text of the first OSC 52 clipboard sequence written after
        offset `start`, once it has arrived whole (it follows the frame that
        says it was sent)."""
        self.wait_raw(b"\x1b]52;c;", start, timeout)
        begin = bytes(self.raw).index(b"\x1b]52;c;", start)
        self.wait_raw(b"\x07", begin, timeout)
        m = re.match(rb"\x1b\]52;c;([A-Za-z0-9+/=]*)\x07", bytes(self.raw[begin:]))
        if not m:
            raise AssertionError("not an OSC 52 sequence: %r" % bytes(self.raw[begin:begin + 80]))
        return base64.b64decode(m.group(1)).decode()

    def settle(self, quiet=0.3, timeout=20.0):
        """Until the program has written nothing for `quiet` seconds."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if not self.pump(quiet):
                return
        raise AssertionError("never quiet")

    def frame(self):
        m = re.search(r"#(\d+)\s*$", self.screen.display[-1])
        return int(m.group(1)) if m else 0

    def press(self, data, timeout=10.0):
        """Sends input and waits for the frame that answers it."""
        want = self.frame() + 1
        self.send(data)
        end = time.monotonic() + timeout
        while self.frame() < want:
            if not self.pump(end - time.monotonic()):
                raise AssertionError("no frame after %r; screen:\n%s" % (data, self.text()))

    def wait_blocked(self, timeout=5.0):
        """Until the program sleeps in read/poll: a resize then lands between frames."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                with open("/proc/%d/syscall" % self.pid) as f:
                    if f.read().split()[0] in ("0", "7", "23", "270", "271"):
                        return
            except (OSError, IndexError):
                return
            self.pump(0.005)

    def resize(self, cols, rows):
        self.wait_blocked()
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        os.kill(self.pid, signal.SIGWINCH)
        self.cols, self.rows = cols, rows
        self.screen.resize(rows, cols)

    def wait_exit(self, timeout=10.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.pump(0.05)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                while self.pump(0.01):
                    pass
                self.status = os.waitstatus_to_exitcode(status)
                return self.status
        raise AssertionError("the program did not exit")

    def kill(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
