"""Preset directories load in time linear in their files, and one too big
is refused by name. The scaling is measured by CPU time of one size against
four times that size, so a slow or loaded machine changes both alike: files
that load linearly cost about 4 times as much, a quadratic load about 16.
Usage: t_bounds_presets.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from boundscheck import Checks  # noqa: E402

K = os.path.abspath(sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))
TMP = tempfile.mkdtemp(prefix="kvplan-presets-")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(TMP, "config"))
CAP = 20000  # CATALOG_MAX_ENTRIES in src/io/catalog.h
CHECKS = Checks()
check = CHECKS.check


def presets(name, n):
    """A directory of n model presets, ids gen-000000 up."""
    d = os.path.join(TMP, name)
    os.mkdir(d)
    with open(os.path.join(HERE, "..", "..", "presets", "models", "llama-3.2-1b.json")) as f:
        model = json.load(f)
    model["id"], model["name"] = "@ID@", "@NAME@"
    text = json.dumps(model)
    for i in range(n):
        with open(os.path.join(d, "m%06d.json" % i), "w") as f:
            f.write(text.replace("@ID@", "gen-%06d" % i).replace("@NAME@", "Generated %d" % i))
    return d


def run(*args):
    """(exit status, output, CPU seconds in user mode) of kvplan ARGS."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    try:
        p = subprocess.run([K, *args], capture_output=True, text=True, env=ENV, timeout=60,
                           errors="replace")
        out = p.stdout + p.stderr
        st = p.returncode
    except subprocess.TimeoutExpired:
        st, out = "timeout", ""
    return st, out, resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before


try:
    small, large = presets("small", 4000), presets("large", 16000)
    # the CPU of three runs each, summed: one run of the small set takes a
    # few hundredths of a second, near the clock's tick, and a tick more or
    # less moved the ratio by half
    runs = [run("plan", "--presets", small, "--model", "gen-003999") for _ in range(3)]
    st, out, _ = runs[0]
    t_small = sum(r[2] for r in runs)
    check(st == 0 and "Generated 3999" in out, "4,000 presets: %s %s" % (st, out[:300]))
    runs = [run("plan", "--presets", large, "--model", "gen-015999") for _ in range(3)]
    st, out, _ = runs[0]
    t_large = sum(r[2] for r in runs)
    check(st == 0 and "Generated 15999" in out, "16,000 presets: %s %s" % (st, out[:300]))
    # linear: about 4 times; quadratic: about 16 (the old load took 13 times)
    ratio = t_large / max(t_small, 0.01)
    print("CPU in user mode, three runs: %.2f s for 4,000 presets, %.2f s for 16,000" % (t_small, t_large))
    check(ratio < 8, "16,000 presets took %.1f times the CPU of 4,000 (%.2f s, %.2f s)"
          % (ratio, t_large, t_small))

    # one name past the cap (the 16,000 presets and other files): refused,
    # naming the directory, before any is read
    for i in range(CAP + 1 - 16000):
        os.close(os.open(os.path.join(large, "x%06d" % i), os.O_CREAT | os.O_WRONLY, 0o644))
    st, out, _ = run("plan", "--presets", large)
    check(st == 2 and "--presets: %s: more than 20000 files and directories" % large in out,
          "20,001 files: %s %s" % (st, out[:300]))
finally:
    shutil.rmtree(TMP, True)

CHECKS.finish()
