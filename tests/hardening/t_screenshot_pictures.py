#!/usr/bin/python3
"""make screenshots writes its SVG pictures anew on every run: the versus
picture comes from g in the planner, which asks before it replaces a file,
so a picture left by an earlier run must not stay as it was.

Usage: t_screenshot_pictures.py KVPLAN. Ends with "N passed, N failed"."""
import contextlib
import io
import os
import sys
import tempfile

from tally import check, finish

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import screenshots  # noqa: E402

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
T = tempfile.mkdtemp(prefix="kvplan-shots.")
STALE = "stale picture of an earlier run\n"

for name, _ in screenshots.PICTURES:
    with open(os.path.join(T, name + ".svg"), "w") as f:
        f.write(STALE)
with contextlib.redirect_stdout(io.StringIO()):
    screenshots.pictures(K, T)
for name, _ in screenshots.PICTURES:
    with open(os.path.join(T, name + ".svg")) as f:
        text = f.read()
    check(text != STALE and "<svg" in text, "%s.svg written again over an earlier one" % name)
    os.remove(os.path.join(T, name + ".svg"))
os.rmdir(T)
finish()
