#!/usr/bin/python3
"""No word cut silently at the right edge of a box: the planner's screens
(--dump-screen) at 70x22, 80x24 and 100x30, in colour and monochrome (and
with NO_COLOR), for the main screen of several models and engines, help,
versus with three scenarios, compare, explain, the export prompt and
presentation.

A word is cut when it ends at a right edge (the screen's last column, a
column before a box's side, or before a gap of two spaces), does not end in
an ellipsis ("~" in ASCII), and, with the word before it, is not a pair of
words the same screen shows at 200x60 while being the start of one there
("302.42 m" where 200x60 says "302.42 ms", "vLLM 0." for "vLLM 0.20").

Usage: t_screen_cuts.py KVPLAN. Ends with "N passed, N failed"."""
import os
import re
import subprocess
import sys
import tempfile

from launchlib import check, main

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
T = tempfile.mkdtemp(prefix="kvplan-cuts.")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(T, "config"), LC_ALL="C.UTF-8")
ENV.pop("NO_COLOR", None)

SIDES = "\u2502\u2503\u2551\u2510\u2518\u2524|"
MARKS = ("\u2026", "~")
GLYPHS = re.compile("[\u2500-\u259f\u2800-\u28ff]+")  # big digits, bars, rules, plots
VS3 = "b<Down><Down><Right>n<Up><Right>v"
VIEWS = {
    "main": ([], ""),
    "main vllm": (["--engine", "vllm"], ""),
    "main MLA": (["--model", "deepseek-v3"], ""),
    "main MLA vllm 8 GPUs": (["--model", "deepseek-v3", "--gpus", "8", "--engine", "vllm"], ""),
    "main target": (["--engine", "vllm", "--min-tok-s", "50"], ""),
    "main 70b": (["--model", "llama-3.1-70b", "--gpus", "1"], ""),
    "help": ([], "?"),
    "export prompt": ([], "e"),
    "versus of three": (["--engine", "vllm"], VS3),
    "compare": (["--engine", "vllm"], "b<Down><Down><Right>c"),
    "explain": (["--engine", "vllm"], "x"),
    "present": (["--engine", "vllm"], "p"),
}


def screen(size, args, keys, mono=False, no_color=False):
    env = dict(ENV, NO_COLOR="1") if no_color else ENV
    extra = (["--mono"] if mono else []) + (["--keys", keys] if keys else [])
    p = subprocess.run([K, "--dump-screen", "-", "--size", size] + extra + args,
                       capture_output=True, text=True, timeout=60, env=env)
    return p.stdout.split("\n")


def pairs(lines):
    """Every (word before, word) of the screen."""
    out = set()
    for line in lines:
        for part in re.split("[" + SIDES + "]", line):
            words = part.split()
            out.update(zip([""] + words, words))
    return out


def edge_words(lines, width):
    """(row, the word before, the word) of each word that ends at a right edge
    (a box's left side, where an overlay covers the screen under it, is none)."""
    found = []
    lefts = {x for line in lines for x, c in enumerate(line) if c in "\u250c\u2514+"}
    for y, line in enumerate(lines):
        line = line.ljust(width)
        for m in re.finditer(r"[^ " + SIDES + "]+", line):
            end = m.end()
            side = next((x for x in (end, end + 1) if x < width and line[x] in SIDES
                         and line[end:x].strip() == ""), None)  # its padding a space
            at_edge = end >= width - 1 or (side is not None and side not in lefts) or \
                line[end:end + 2] == "  "
            if not at_edge or m.group().endswith(MARKS) or not re.search(r"\w", m.group()):
                continue
            # the word before, in the same box
            before = re.split("[" + SIDES + "]", line[:m.start()])[-1].split()
            found.append((y, before[-1] if before else "", m.group()))
    return found


def cut_words(lines, width, wide):
    starts = {}
    for a, b in wide:
        starts.setdefault(a, set()).add(b)
    cuts = []
    for y, a, b in edge_words(lines, width):
        if (a, b) in wide or not a or GLYPHS.fullmatch(a):
            continue
        # a list that ends a word early ("3.35 TB/s" of "3.35 TB/s, fp8") is no cut
        if any(w.rstrip(",;:") != b and w.startswith(b) for w in starts.get(a, ())):
            cuts.append("row %d: %r %r" % (y, a, b))
    return cuts


def test_no_word_cut_at_an_edge():
    for name, (args, keys) in VIEWS.items():
        for mono, no_color in ((False, False), (True, False), (False, True)):
            wide = pairs(screen("200x60", args, keys, mono, no_color))
            for size in ("70x22", "80x24", "100x30"):
                width = int(size.split("x")[0])
                lines = screen(size, args, keys, mono, no_color)
                tag = "%s %s%s" % (name, size, " mono" if mono else " NO_COLOR" if no_color else "")
                cuts = cut_words(lines, width, wide)
                check(tag + ": no word cut silently", not cuts, "\n".join(cuts + lines))


def test_the_scan_sees_a_cut():
    """The scan itself: a line cut by hand is found, its ellipsis form is not."""
    wide = pairs(["first token 302.42 ms"])
    check("a cut word is found", cut_words(["first token 302.42 m"], 20, wide) != [])
    check("an ellipsis is no silent cut", cut_words(["first token 302.42\u2026"], 19, wide) == [])


main([test_the_scan_sees_a_cut, test_no_word_cut_at_an_edge], T)
