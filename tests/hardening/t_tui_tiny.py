#!/usr/bin/python3
"""Every mode of the planner drawn on tiny screens (--dump-screen --size):
no crash and nothing out of bounds (under `make asan` the binary is the ASan
one, which stops at the first bad access), exactly the screen's rows and
columns, and below the smallest screen any mode lays out (presentation's
40x12) the too-small message alone: no box drawn over it, a question being
asked still shown. Usage: t_tui_tiny.py path/to/kvplan.
Ends with "N passed, N failed"."""
import os
import subprocess
import sys
import tempfile

KVPLAN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
# 1M tokens of llama-2-7b on one GPU: a plan with several long warnings
SCENARIO = ["--model", "llama-2-7b", "--context", "1M"]
ENV = dict(os.environ, LC_ALL="C.UTF-8", XDG_CONFIG_HOME=tempfile.mkdtemp(prefix="kvplan-tiny-"))
ENV.pop("NO_COLOR", None)

SIZES = [(1, 1), (2, 2), (9, 24), (20, 5), (39, 12), (40, 11), (40, 12), (70, 22)]
PRESENT_MIN = (40, 12)  # below it in either direction, no mode has room
# each mode's key, in the main screen and in presentation (p), and the
# screens a session of several scenarios adds (n new, b reference)
MODES = ["", "w", "?", "?<PgDn>", "v", "T", "T1", "y", "e", "a", "D", "<Enter>", "<Up><Enter>",
         "nq", "nD", "bnc", "bnv", "nve", "L", "L<Right>"]
# the questions a key sequence leaves asked, shown on the last row whatever the size
QUESTIONS = {"nq": "Quit?", "nD": "Remove"}
KEYS = MODES + ["p" + k for k in MODES]
BOX = set("┌┐└┘")


def dump(cols, rows, keys):
    out = subprocess.run([KVPLAN, *SCENARIO, "--dump-screen", "-", "--size", "%dx%d" % (cols, rows),
                          "--keys", keys], capture_output=True, env=ENV, timeout=60)
    return out.returncode, out.stdout.decode("utf-8", "replace"), out.stderr.decode("utf-8", "replace")


def check(cols, rows, keys):
    """None when the screen is right, else what is wrong with it."""
    rc, text, err = dump(cols, rows, keys)
    if rc != 0 or err:
        return "exit %d: %s" % (rc, err.strip().splitlines()[:3])
    lines = text.split("\n")[:-1]
    if len(lines) != rows:
        return "%d rows, not %d" % (len(lines), rows)
    wide = [line for line in lines if len(line) > cols]
    if wide:
        return "a row wider than %d: %r" % (cols, wide[0])
    if cols >= PRESENT_MIN[0] and rows >= PRESENT_MIN[1]:
        return None
    question = QUESTIONS.get(keys[-2:])
    if question and rows > 1 and not lines[-1].startswith(question[:cols]) and \
            not lines[-1].startswith(question[:cols - 1] + "\u2026"):
        return "the question is not shown:\n%s" % text
    message_row = rows // 2
    # cut short, the message ends in an ellipsis ("E\u2026" in 2 columns)
    shown = ("Enlarge"[:cols], "Enlarge"[:cols - 1] + "\u2026")
    if not (question and message_row == rows - 1) and \
            not any(m in lines[message_row] for m in shown):
        return "no too-small message on row %d:\n%s" % (message_row, text)
    if BOX & set(text):
        return "a box drawn over the too-small message:\n%s" % text
    return None


def main():
    passed = failed = 0
    for cols, rows in SIZES:
        bad = []
        for keys in KEYS:
            why = check(cols, rows, keys)
            if why:
                bad.append("--keys '%s': %s" % (keys, why))
        if bad:
            failed += 1
            print("FAIL %dx%d, %d of %d key sequences:" % (cols, rows, len(bad), len(KEYS)))
            for b in bad[:6]:
                print("    " + b)
        else:
            passed += 1
            print("ok   %dx%d, every mode" % (cols, rows))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
