"""Labels that look alike are one name, and invisible ones are no name:
refused alike by the loader (a hand-edited session), the planner's a
prompt, and what the planner can export. Unicode spaces trim and compare as
spaces, full-width ASCII as ASCII; invisible format characters and a
leading combining mark are refused, the message naming the character.

Usage: t_review_labels.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import re
import subprocess
import sys
import tempfile

from launchlib import check, main

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
T = tempfile.mkdtemp(prefix="kvplan-review-labels.")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(T, "config"), LC_ALL="C.UTF-8")
ENV.pop("NO_COLOR", None)

# (the second label beside "fp8", what the refusal must say)
ALIKE = {
    "no-break space after": ("fp8\u00a0", "names two scenarios"),
    "ideographic space before": ("\u3000fp8", "names two scenarios"),
    "full-width": ("\uff46\uff50\uff18", "names two scenarios"),
    "full-width capitals": ("\uff26\uff30\uff18", "names two scenarios"),
    "zero-width space": ("fp8\u200b", "U+200B"),
    "soft hyphen only": ("\u00ad", "U+00AD"),
    "zero-width joiner inside": ("f\u200dp8", "U+200D"),
    "byte order mark": ("\ufeffB", "U+FEFF"),
    "only no-break spaces": ("\u00a0\u00a0", "empty"),
    "a combining mark first": ("\u0301B", "U+0301"),
    "a combining mark after a space": ("\u2002\u20d7B", "U+20D7"),
}
DISTINCT = {"fp8 x": "fp8 x", "e-acute inside": "fp\u00e98", "a combining mark after": "B\u0301"}


def run(args):
    return subprocess.run([K] + args, capture_output=True, text=True, env=ENV, cwd=T, timeout=60)


def planner(keys, *args):
    screen = os.path.join(T, "screen.txt")
    p = run(["--dump-screen", screen, "--size", "120x30", "--keys", keys, *args])
    with open(screen, encoding="utf-8") as f:
        return f.read() + p.stderr


def session(labels):
    """A session of len(labels) scenarios with those labels."""
    planner("n" * (len(labels) - 1) + "ebase.json<Enter>")
    with open(os.path.join(T, "base.json"), encoding="utf-8") as f:
        doc = json.load(f)
    for entry, label in zip(doc["session"]["scenarios"], labels):
        entry["label"] = label
    name = os.path.join(T, "labels.json")
    with open(name, "w", encoding="utf-8") as f:
        json.dump(doc, f)  # \u escapes: the bytes are exactly these characters
    return name


def loader():
    for what, (label, why) in ALIKE.items():
        f = session(["fp8", label])
        p = run(["plan", "--load", f])
        check("load %s: refused" % what, p.returncode == 2, "exit %d %s" % (p.returncode, p.stdout[:80]))
        check("load %s: says why" % what, f in p.stderr and "label" in p.stderr and why in p.stderr,
              p.stderr)
        p = run(["--dump-screen", os.path.join(T, "s.txt"), "--load", f])
        check("the planner: %s refused" % what, p.returncode == 2 and why in p.stderr, p.stderr)
    for what, label in DISTINCT.items():
        p = run(["plan", "--load", session(["fp8", label])])
        check("load %s: a name of its own" % what, p.returncode == 0, p.stderr)
    p = run(["plan", "--load", session(["fp8", "B"]), "--scenario", "\uff22\u00a0"])
    check("--scenario: the full-width B with a space names B", p.returncode == 0, p.stderr)


def editor():
    """The a prompt refuses what the loader refuses, with the same words."""
    for what, (label, why) in ALIKE.items():
        screen = planner("afp8<Enter>na%s<Enter>" % label)
        check("a %s: refused" % what, why.replace("names two scenarios", "already names scenario 1")
              in screen, screen[-400:])
        check("a %s: the label kept" % what, "scenario 2 is" not in screen, screen[-400:])
    screen = planner("a\u00a0fp8\u3000<Enter>")
    check("a: the Unicode spaces around are trimmed",
          re.search(r"^ ?scenario 1 is fp8 *$", screen, re.M), screen[-400:])


def file_names():
    """A label taken from a file's name is one a label may be: an invisible
    name becomes A, so the session exports and loads back."""
    with open(session(["A", "B"]), encoding="utf-8") as f:
        doc = json.load(f)
    doc.pop("session")
    odd = os.path.join(T, "\u00ad.json")
    with open(odd, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    out = os.path.join(T, "odd-out.json")
    screen = planner("o%s<Enter>ne%s<Enter>" % (odd, out))
    p = run(["plan", "--load", out])
    check("a file named U+00AD: opened, exported, loads back", p.returncode == 0,
          screen[-300:] + p.stderr)


main((loader, editor, file_names), T)
