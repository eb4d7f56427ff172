"""The planner's exports (e for the session, m for Markdown) never write
over its own screen, never into anything but a regular file, and never
under a name of only spaces; a refused export is no save, so q still asks.
Driven through --dump-screen --keys, and on a real pseudo-terminal for the
terminal's own device.

Usage: t_review_export.py KVPLAN. Ends with "N passed, N failed"."""
import os
import subprocess
import sys
import tempfile

from launchlib import check, main

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from ptyterm import PtyTerm  # noqa: E402

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
T = tempfile.mkdtemp(prefix="kvplan-review-export.")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(T, "config"), LC_ALL="C.UTF-8")
ENV.pop("NO_COLOR", None)
QUIT = "Quit? 2 scenarios not exported"


def planner(keys):
    """(exit status, what the planner wrote to standard output, its screen)."""
    screen = os.path.join(T, "screen.txt")
    p = subprocess.run([K, "--dump-screen", screen, "--keys", keys], capture_output=True,
                       text=True, env=ENV, cwd=T, timeout=60)
    with open(screen, encoding="utf-8") as f:
        return p.returncode, p.stdout, f.read()


def the_screen():
    """-, /dev/stdout, /dev/stderr and /dev/tty are the planner's screen:
    refused with e and with m, and q then still asks."""
    for name in ("-", "/dev/stdout", "/dev/stderr", "/dev/tty"):
        for key, what in (("e", "JSON"), ("m", "Markdown")):
            rc, out, screen = planner("n%s%s<Enter>q" % (key, name))
            case = "%s export to %s" % (what, name)
            check(case + ": nothing written over the screen",
                  rc == 0 and out == "" and "wrote" not in screen, out[:200] + screen[-300:])
            check(case + ": refused, said", "%s is the planner's own screen" % name in screen,
                  screen[-300:])
            check(case + ": no save: q asks", QUIT in screen, screen[-300:])


def not_a_file():
    """A FIFO or a device is refused before the overwrite question; a name
    of only spaces is refused and nothing of that name is made."""
    fifo = os.path.join(T, "fifo")
    os.mkfifo(fifo)
    for name in (fifo, "/dev/full", "/dev/null"):
        rc, out, screen = planner("ne%s<Enter>" % name)
        check("%s: refused without asking" % name, "Overwrite" not in screen and
              ("not a regular file" in screen or "not a file" in screen), screen[-300:])
    rc, out, screen = planner("ne   <Enter>q")
    check("a name of spaces: refused", "is only spaces: name a file" in screen, screen[-300:])
    check("a name of spaces: no file made", not os.path.exists(os.path.join(T, "   ")),
          os.listdir(T))
    check("a name of spaces: no save: q asks", QUIT in screen, screen[-300:])
    rc, out, screen = planner("nm\u00a0\u3000<Enter>")
    check("a name of Unicode spaces: refused", "is only spaces" in screen, screen[-300:])


def the_terminal():
    """On a real terminal: the pty the planner draws on, by its own name."""
    t = PtyTerm([K], cols=100, rows=30, env=ENV)
    try:
        t.wait_for(r"q quit")
        tty = os.readlink("/proc/%d/fd/0" % t.pid)
        t.press("n")
        t.press("e")
        t.press("\x15")  # Ctrl-U: the prefilled name cleared
        t.press(tty + "\r")
        t.wait_for(r"is a terminal or device, not a file")
        check("the terminal by name: refused without asking", "Overwrite" not in t.text(),
              t.text()[-400:])
        t.press("q")
        t.wait_for("Quit\\? 2 scenarios not exported")
        t.send("y")  # quits: no frame answers it
        check("then quits", t.wait_exit() == 0)
    except AssertionError as e:
        check("the terminal by name", False, str(e)[-600:])
    finally:
        t.kill()


main((the_screen, not_a_file, the_terminal), T)
