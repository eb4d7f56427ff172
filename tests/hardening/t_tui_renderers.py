#!/usr/bin/python3
"""The planner's two renderers on a pseudo-terminal (pyte): the frames kvplan
writes itself (the default) and curses' refresh (KVPLAN_RENDERER=curses)
leave the same screen, cell by cell (character, colours, bold, reverse,
underline), after every key of a sequence with steps, modes, a label of
two-column characters, Ctrl-L and resizes, on several terminal types (one
without colours) and with NO_COLOR. And between frames curses writes
nothing: a frame's last bytes are the frame counter's.
Usage: t_tui_renderers.py path/to/kvplan.
Ends with "N passed, N failed"."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from ptyterm import PtyTerm, run_tests  # noqa: E402
import pyte  # noqa: E402

KVPLAN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
SCENARIO = ["--gpu", "a100-80gb", "--model", "llama-2-7b", "--context", "8k"]
BASE_ENV = dict(os.environ, LC_ALL="C.UTF-8", XDG_CONFIG_HOME=tempfile.mkdtemp(prefix="kvplan-rend-"))
BASE_ENV.pop("NO_COLOR", None)
BASE_ENV.pop("KVPLAN_RENDERER", None)

# (what, key) in order; ("resize", (cols, rows)) resizes the terminal
SEQUENCE = [("key", "l"), ("key", "l"), ("key", "\t"), ("key", "l"), ("key", "h"),
            ("key", "\t"), ("key", "\t"), ("key", "l"), ("key", "u"), ("key", "p"),
            ("key", "\x1b"), ("key", "?"), ("key", "\x1b"), ("key", "w"), ("key", "\x1b"),
            ("key", "a"), ("type", "\u6a21\u578bA\u6a21"), ("key", "\r"), ("key", "\x0c"),
            ("resize", (90, 28)), ("key", "l"), ("key", "x"), ("key", "\x1b"),
            ("resize", (120, 40)), ("key", "h"), ("key", "z"), ("key", "h")]
TERMS = [("xterm-256color", False), ("xterm-256color", True), ("xterm", False),
         ("screen", False), ("tmux-256color", False), ("linux", False), ("xterm-mono", False)]
# vt100's strings ask for padding, which only curses makes: curses draws there
FALLBACK = "vt100"


class Screen(pyte.Screen):
    """pyte's screen, but a bright colour (SGR 90-97) is only a colour: pyte
    also turns bold on with it and leaves it on after the next colour, so
    its bold would say in what order the attributes were set, which real
    terminals do not show."""

    def select_graphic_rendition(self, *attrs, **kw):
        bold = self.cursor.attrs.bold
        for a in attrs or (0,):
            bold = True if a == 1 else False if a in (0, 22) else bold
        super().select_graphic_rendition(*attrs, **kw)
        self.cursor.attrs = self.cursor.attrs._replace(bold=bold)


def cells(t):
    return [[(c.data, c.fg, c.bg, c.bold, c.reverse, c.underscore)
             for c in (t.screen.buffer[y][x] for x in range(t.cols))] for y in range(t.rows)]


def run(term, mono, renderer):
    """The screen after each step of SEQUENCE, and each frame's last bytes."""
    env = dict(BASE_ENV)
    if mono:
        env["NO_COLOR"] = "1"
    if renderer:
        env["KVPLAN_RENDERER"] = renderer
    t = PtyTerm([KVPLAN, *SCENARIO], cols=100, rows=30, env=env, term=term)
    t.screen = Screen(t.cols, t.rows)
    t.stream = pyte.ByteStream(t.screen)
    screens, ends = [], []
    try:
        t.wait_for(r"How the number")
        for what, arg in SEQUENCE:
            if what == "resize":
                frame = t.frame()
                t.resize(*arg)
                while t.frame() <= frame:  # the resize's repaint
                    assert t.pump(10), "no frame after the resize"
            elif what == "type":
                t.send(arg)
                t.wait_for(arg)
            else:
                t.press(arg)
            t.wait_blocked()
            while t.pump(0.01):
                pass
            screens.append(cells(t))
            ends.append(bytes(t.raw[-16:]))
        t.send("q")
        t.wait_exit()
    finally:
        t.kill()
    return screens, ends, bytes(t.raw)


def first_difference(a, b):
    for i, (sa, sb) in enumerate(zip(a, b)):
        for y, (ra, rb) in enumerate(zip(sa, sb)):
            for x, (ca, cb) in enumerate(zip(ra, rb)):
                if ca != cb:
                    row = "".join(c[0] for c in ra), "".join(c[0] for c in rb)
                    return "after step %d %r, cell (%d, %d): %r vs %r\n%s\n%s" % (
                        i, SEQUENCE[i], y, x, ca, cb, row[0], row[1])
    return None


def test_the_same_screens(term, mono):
    direct, _, raw_direct = run(term, mono, None)
    curses, _, raw_curses = run(term, mono, "curses")
    assert len(direct) == len(curses) == len(SEQUENCE)
    if term == FALLBACK:
        assert raw_direct == raw_curses, "%s: not curses' bytes" % term
    else:
        assert raw_direct != raw_curses, "both runs wrote the same bytes: one renderer ran twice"
    diff = first_difference(direct, curses)
    assert diff is None, diff


def test_nothing_after_the_frame():
    # the counter "#N" is the frame's last change; curses' refresh after it
    # (getch's of a touched stdscr, or its closing attribute reset) would follow
    _, ends, _ = run("xterm-256color", False, None)
    for i, (end, (what, arg)) in enumerate(zip(ends, SEQUENCE)):
        assert end[-1:].isdigit(), "step %d %r ends with %r" % (i, (what, arg), end)


def main():
    tests = [("same screens %s%s" % (term, " NO_COLOR" if mono else ""),
              lambda term=term, mono=mono: test_the_same_screens(term, mono))
             for term, mono in TERMS + [(FALLBACK, False)]]
    tests.append(("nothing after the frame", test_nothing_after_the_frame))
    return run_tests(tests)


if __name__ == "__main__":
    sys.exit(main())
