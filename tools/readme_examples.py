#!/usr/bin/env python3
"""Regenerates README.md's example outputs from the real binary, so they cannot
drift: each ```console block whose first line is `$ kvplan ...` gets that
command's output, and the Markdown example after the line naming
`kvplan plan ... --format markdown` gets that output.
Usage: readme_examples.py KVPLAN [--check]  (--check: exit 1 when README differs)."""
import glob
import os
import re
import subprocess
import sys

KVPLAN, CHECK = sys.argv[1], "--check" in sys.argv
README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "README.md")
ENV = dict(os.environ, XDG_CONFIG_HOME="/nonexistent", LC_ALL="C.UTF-8")


def run(cmd):
    args = cmd.split()
    assert args[0] == "kvplan", cmd
    pipe = None
    if "|" in args:
        i = args.index("|")
        args, pipe = args[:i], " ".join(args[i + 1:])
    # a pattern is the files it names, sorted, as the shell would give them
    args = [f for a in args for f in (sorted(glob.glob(a)) if "*" in a else [a])]
    out = subprocess.run([KVPLAN] + args[1:], capture_output=True, text=True, env=ENV).stdout
    if pipe:
        out = subprocess.run(pipe, shell=True, input=out, capture_output=True, text=True).stdout
    return out


text = open(README).read()


def console(m):
    cmd = m.group(1)
    return "```console\n$ %s\n%s```" % (cmd, run(cmd))


new = re.sub(r"```console\n\$ (kvplan [^\n]*)\n.*?```", console, text, flags=re.S)


# the Markdown example: from the line naming its command to "JSON snapshots carry"
m = re.search(r"\(`(kvplan plan [^`]*--format markdown)`\):\n", new)
end = new.find("JSON snapshots carry", m.end()) if m else -1
if m and end > 0:
    new = new[:m.end()] + "\n" + run(m.group(1)).rstrip("\n") + "\n\n" + new[end:]
if CHECK:
    if new != text:
        print("README.md: an example's output differs from the binary's (run tools/readme_examples.py)")
        sys.exit(1)
    print("readme: examples match")
else:
    open(README, "w").write(new)
