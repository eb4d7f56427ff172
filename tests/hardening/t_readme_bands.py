#!/usr/bin/python3
"""The speed bands and validation counts the README quotes are the ones kvplan gives:
- every band example in backticks in README.md and doc/MODEL.md ("24.3 tok/s (-38% to
  +8% over 5 dense Hopper/vLLM cases)", the planner's "23.7 tok/s each -38%/+17%") is
  printed by `kvplan plan --engine vllm` / `kvplan plan` or drawn on the default golden
  screen;
- README's "N of the M complete cases are within 20%" is the count of doc/SPEED-VALIDATION.md's
  gate section ("Counted that way N of M"), and its "K with the static step alone" is the
  doc's "speed: K passed, F failed" (M = K + F).
Usage: t_readme_bands.py KVPLAN (run from the repository or tests/hardening).
Ends with "N passed, N failed"."""
import os
import re
import subprocess
import sys
from tally import check  # noqa: E402
import tally  # noqa: E402

K = os.path.abspath(sys.argv[1])
ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
ENV = {"XDG_CONFIG_HOME": "/nonexistent", "PATH": "/usr/bin:/bin"}


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def plan(*args):
    p = subprocess.run([K, "plan", "--model", "llama-3.1-8b", *args], capture_output=True,
                       text=True, timeout=30, env=ENV)
    return p.stdout


seen = plan() + plan("--engine", "vllm") + read("tests/golden/screens/default-160x48.screen")
BAND = re.compile(r"`([0-9.]+ tok/s (?:\(-\d+% to \+\d+% over [^`]*\)|each -\d+%/\+\d+%))`")
for doc in ("README.md", "doc/MODEL.md", "doc/kvplan.1"):
    text = read(doc)
    flat = re.sub(r"\s*\n\s*", " ", text)
    for m in BAND.finditer(flat):
        check(m.group(1) in seen, "%s quotes %r, which kvplan no longer gives" % (doc, m.group(1)))
    check(not re.search(r"over \d+ \S+/\S+ measurements", flat),
          "%s keeps a band in the old words (over N FAMILY/ENGINE measurements)" % doc)
count = re.search(r"(\d+) of the (\d+) complete cases are within 20%",
                  re.sub(r"\s*\n\s*", " ", read("README.md")))
# the count is the gate's (the plan's figure, a serving benchmark's its closed loop with
# --output-len, tools/speed_gate.py), and the one beside it the decode step alone's
share = re.search(r"Counted that way (\d+) of (\d+) ", read("doc/SPEED-VALIDATION.md"))
static = re.search(r"(\d+) with the decode step alone", re.sub(r"\s*\n\s*", " ", read("README.md")))
alone = re.search(r"the step alone (\d+)/(\d+)", read("doc/SPEED-VALIDATION.md"))
res = re.search(r"speed: (\d+) passed, (\d+) failed", read("doc/SPEED-VALIDATION.md"))
check(count and share and static and res and alone, "the counts are found: %s %s %s %s %s" % (
    count, share, static, res, alone))
if count and share and static and res:
    check(count.groups() == share.groups(), "README says %s of %s, doc/SPEED-VALIDATION.md's gate %s of %s"
          % (count.group(1), count.group(2), share.group(1), share.group(2)))
    check(static.group(1) == alone.group(1) and count.group(1) == res.group(1) and
          int(count.group(2)) == int(res.group(1)) + int(res.group(2)),
          "README's step-alone count %s against the doc's %s; its count %s, doc/SPEED-VALIDATION.md %s "
          "passed, %s failed" % (static.group(1), alone.group(1), count.group(1), res.group(1), res.group(2)))
# the held-out count beside it is the doc's (tools/speed_gate.py render)
held = re.search(r"of the (\d+) cases the fits held out and only checked, (\d+) are within",
                 re.sub(r"\s*\n\s*", " ", read("README.md")))
held_doc = re.search(r"the held-out ones in (\d+) of (\d+)", read("doc/SPEED-VALIDATION.md"))
check(held and held_doc and held.groups() == held_doc.groups()[::-1],
      "README's held-out count %s, the doc's %s" % (held and held.groups(), held_doc and held_doc.groups()))
tally.finish()
