#!/usr/bin/python3
"""The open prompt (o): Tab completes the path typed as a shell does (the
common prefix, a directory with its '/', the matches listed when several
share no more); the files opened or exported last are kept, newest first,
at most 10, in $XDG_STATE_HOME/kvplan/recent (else
~/.local/state/kvplan/recent), written atomically, and Up and Down go
through them in the prompt; z after o brings back the scenarios o replaced,
Z opens the file's again.

Usage: t_open_prompt.py KVPLAN. Ends with "N passed, N failed"."""
import os
import shutil
import subprocess
import sys
import tempfile

from tally import check, finish

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
T = tempfile.mkdtemp(prefix="kvplan-open.")
STATE = os.path.join(T, "state")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(T, "config"), XDG_STATE_HOME=STATE,
           LC_ALL="C.UTF-8", HOME=os.path.join(T, "home"))
ENV.pop("NO_COLOR", None)
RECENT = os.path.join(STATE, "kvplan", "recent")


def screen(keys, *args, cols=120):
    out = os.path.join(T, "screen.txt")
    p = subprocess.run([K, "--dump-screen", out, "--size", "%dx30" % cols, "--keys", keys] + list(args),
                       capture_output=True, text=True, env=ENV, cwd=T, timeout=60)
    check(p.returncode == 0, "%s: exit %d %s" % (keys, p.returncode, p.stderr))
    with open(out, encoding="utf-8") as f:
        return f.read().splitlines()


def prompt(lines):
    return next((l for l in lines if l.startswith("Open snapshot: ")), "")


def recent():
    if not os.path.exists(RECENT):
        return []
    with open(RECENT) as f:
        return f.read().splitlines()


os.makedirs(os.path.join(T, "s", "deep"))
os.makedirs(ENV["HOME"])
plan = subprocess.run([K, "plan", "--format", "json", "--model", "llama-3.1-8b"],
                      capture_output=True, text=True, env=ENV, timeout=60).stdout
for name in ["s/alpha.json", "s/alpine.json", "s/deep/beta.json", "s/.hidden.json"]:
    with open(os.path.join(T, name), "w") as f:
        f.write(plan)

# Tab: the common prefix, the matches listed; a lone directory gets its '/'
lines = screen("os/a<Tab>")
check(prompt(lines).startswith("Open snapshot: s/alp_"), "s/a completes to s/alp: %r" % prompt(lines))
check(any("2 match: alpha.json  alpine.json" in l for l in lines), "the two matches listed")
check(not any(".hidden" in l for l in lines), "a hidden file is no match for a name without a dot")
check(prompt(screen("os/d<Tab>")).startswith("Open snapshot: s/deep/_"), "a directory gets its /")
check(prompt(screen("os/d<Tab><Tab>")).startswith("Open snapshot: s/deep/beta.json_"),
      "a lone file completes whole")
check(prompt(screen("os/<Tab>")).startswith("Open snapshot: s/_"), "no common prefix: as typed")
check(any("no file begins with 'z'" in l for l in screen("os/z<Tab>")), "no match is said")
shutil.copy(os.path.join(T, "s", "alpha.json"), os.path.join(ENV["HOME"], "mine.json"))
check(prompt(screen("o~/m<Tab>")).startswith("Open snapshot: %s/mine.json_" % ENV["HOME"]),
      "~/ is the home directory")
lines = screen("os/deep/b<Tab><Enter>")
check(any("opened s/deep/beta.json: 1 scenario" in l for l in lines), "the completed path opens")

# the recent files: absolute, newest first, once each, ten at most
check(recent() == [os.path.join(T, "s/deep/beta.json")], "the opened file is kept: %r" % recent())
screen("os/alpha.json<Enter>")
check(recent() == [os.path.join(T, "s/alpha.json"), os.path.join(T, "s/deep/beta.json")],
      "newest first: %r" % recent())
screen("os/deep/beta.json<Enter>")
check(recent() == [os.path.join(T, "s/deep/beta.json"), os.path.join(T, "s/alpha.json")],
      "opened again, it moves up and is kept once: %r" % recent())
screen("eexported.json<Enter>")
check(recent()[:1] == [os.path.join(T, "exported.json")], "an exported session is offered too")
for i in range(12):
    shutil.copy(os.path.join(T, "s", "alpha.json"), os.path.join(T, "s", "n%02d.json" % i))
    screen("os/n%02d.json<Enter>" % i)
r = recent() + [""] * 10
check(len(recent()) == 10 and r[0].endswith("/s/n11.json") and r[9].endswith("/s/n02.json"),
      "ten at most, the oldest dropped: %r" % r)
check(os.path.isdir(os.path.dirname(RECENT))
      and sorted(os.listdir(os.path.dirname(RECENT))) == ["recent"], "written by rename: no temporary")

# Up and Down in the prompt
lines = screen("o<Up>")
check(prompt(lines).startswith("Open snapshot: %s_" % r[0]), "Up: the newest: %r" % prompt(lines))
check(any("recent file 1 of 10" in l for l in lines), "which of them is said")
check(prompt(screen("o<Up><Up><Up>")).startswith("Open snapshot: %s_" % r[2]), "Up again: older")
check(prompt(screen("os/x<Up><Up><Down>")).startswith("Open snapshot: %s_" % r[0]), "Down: newer")
check(prompt(screen("os/x<Up><Down>")).startswith("Open snapshot: s/x_"), "Down at the end: as typed")
check(any("opened %s" % r[0] in l for l in screen("o<Up><Enter>")), "Enter opens the recent file")
check("Up: recent files" in prompt(screen("o")), "the prompt says Up offers them")
if os.path.exists(RECENT):
    os.remove(RECENT)
lines = screen("o<Up>")
check(any("no recent files yet" in l for l in lines), "none yet is said")
check("Up: recent" not in prompt(lines), "and not offered")

# z after o: the scenarios o replaced, then Z the file's again
args = ["--model", "llama-3.1-70b", "--context", "32k"]
title = lambda lines: lines[0]
check("Llama 3.1 70B" in title(screen("<Right>os/alpha.json<Enter>z", *args)),
      "z after o: the 70B back")
lines = screen("<Right>os/alpha.json<Enter>z", *args)
check("at 64k" in title(lines), "with the change made before o: %r" % title(lines))
check(any("back to the 1 scenario before s/alpha.json was opened" in l for l in lines), "z says so")
check("at 32k" in title(screen("<Right>os/alpha.json<Enter>zz", *args)),
      "its own history is kept: z again undoes the change")
check("Llama 3.1 8B" in title(screen("<Right>os/alpha.json<Enter>zZ", *args)), "Z opens it again")
lines = screen("<Right>os/alpha.json<Enter>z<Right>Z", *args)
check("Llama 3.1 70B" in title(lines) and any("nothing to redo" in l for l in lines),
      "a change after z: nothing to redo")
shutil.rmtree(T)
finish()
