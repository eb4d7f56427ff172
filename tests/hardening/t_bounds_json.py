"""Every JSON file kvplan reads (snapshot, preset, calibration, Hugging Face
config) is refused before parsing when it holds more values than any real
one: a 14 MB snapshot of one 7M-element array cost 7 s and 564 MB of tree.
Usage: t_bounds_json.py KVPLAN. Ends with "N passed, N failed"."""
import os
import shutil
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from boundscheck import Checks  # noqa: E402

K = os.path.abspath(sys.argv[1])
TMP = tempfile.mkdtemp(prefix="kvplan-json-")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(TMP, "config"))
CHECKS = Checks()
check = CHECKS.check


def run(*args):
    """(exit status, output, peak resident KiB) of kvplan ARGS, killed after 60 s."""
    out_path = os.path.join(TMP, "out")
    with open(out_path, "w") as out:
        p = subprocess.Popen([K, *args], stdout=out, stderr=out, env=ENV,
                             stdin=subprocess.DEVNULL)
    timer = threading.Timer(60, p.kill)  # a safety net, not a measure
    timer.start()
    _, status, usage = os.wait4(p.pid, 0)  # reaps it with its own peak memory
    timer.cancel()
    p.returncode = status  # reaped here: Popen must not wait again
    st = os.waitstatus_to_exitcode(status)
    with open(out_path, errors="replace") as f:
        return st, f.read(), usage.ru_maxrss


def write(name, head, count, tail):
    """A file of head, then count zeros in an array, then tail."""
    path = os.path.join(TMP, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(head + "[" + ",".join(["0"] * count) + "]" + tail)
    return path


try:
    snap = write("big.json", '{"format": "kvplan-scenario", "format_version": 1,\n "scenario": '
                 '{"x": ', 7000000, "}}\n")
    st, out, rss = run("plan", "--load", snap)
    # refused where the count passes 100,000, on line 2: "x": [ starts at column 15
    check(st == 2 and "%s:2:" % snap in out and "more than 100000 values" in out,
          "7M-element snapshot: %s %s" % (st, out[:300]))
    # the text (14 MB) is read whole; a tree of it took 564 MB
    check(rss < 80 * 1024, "7M-element snapshot: peak %d KiB" % rss)

    cases = [
        ("preset", write("presets/m.json", '{"format": "kvplan-model", "x": ', 200000, "}"),
         lambda p: ("plan", "--presets", os.path.dirname(p))),
        ("calibration", write("cal.json", '{"format": "kvplan-calibration", "x": ', 200000, "}"),
         lambda p: ("plan", "--calibration", p)),
        ("Hugging Face config", write("config.json", '{"model_type": "llama", "x": ', 200000,
                                      "}"), lambda p: ("import-hf", p)),
        ("session", write("session.json", '{"format": "kvplan-session", "scenarios": ', 200000,
                          "}"), lambda p: ("plan", "--load", p)),
    ]
    for what, path, argv in cases:
        st, out, _ = run(*argv(path))
        check(st == 2 and "%s:1:" % path in out and "more than 100000 values" in out,
              "%s of 200,000 values: %s %s" % (what, st, out[:300]))
finally:
    shutil.rmtree(TMP, True)

CHECKS.finish()
