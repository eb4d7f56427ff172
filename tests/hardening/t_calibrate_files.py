#!/usr/bin/python3
"""kvplan calibrate on several benchmark outputs at once (issue 19): a sweep
of `vllm bench serve --save-result` runs, one file a --max-concurrency
(tests/data/bench/vllm-sweep: 1, 16 and 64 users), is fitted on as one; every
file's error names that file (exit 2); --save lists every file.

Worked: the files' TPOTs were made as kvplan's memory time at MBU 1 over 0.6
plus 1.0 ms and rounded to 0.01 ms (4.837, 5.476, 7.521 ms -> 9.06, 10.13,
13.54 ms). The least-squares line through the three (speedfit: the time
against the memory time) has slope 6.5605 / 3.9314 = 1.6687, so MBU =
1 / 1.6687 = 0.599, and meets no memory at 10.91 - 1.6687 x 5.9447 = 0.99 ms;
one file alone (64 users) cannot part the overhead from MBU and keeps the
engine's 0.9 ms.
Usage: t_calibrate_files.py path/to/kvplan. Ends with "N passed, N failed"."""
import glob
import json
import os

from optionslib import ROOT, TMP, check, main, run

SWEEP = sorted(glob.glob(os.path.join(ROOT, "tests", "data", "bench", "vllm-sweep", "*.json")))
LOG = os.path.join(ROOT, "tests", "data", "logs", "vllm-03.log")
H100 = ["--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--engine", "vllm"]


def calibrate(files, extra=()):
    save = os.path.join(TMP, "cal-%d.json" % len(os.listdir(TMP)))
    status, out, err = run(["calibrate", *files, *H100, *extra, "--save", save])
    doc = json.load(open(save)) if status == 0 and os.path.exists(save) else None
    return status, out + err, doc, save


def test_three_runs_fit_as_one():
    check("three sweep files", len(SWEEP) == 3, SWEEP)
    status, out, doc, save = calibrate(SWEEP)
    check("calibrate on three files: exit 0", status == 0 and doc, out[-600:])
    if not doc:
        return
    sp = doc["speed"]
    check("MBU 0.599 from the three TPOTs: %.4f" % sp["mbu"], abs(sp["mbu"] - 0.5993) < 0.001,
          sp["mbu_from"])
    check("overhead 0.99 ms from the line through them: %.4f ms" %
          (sp["step_overhead_seconds"] * 1e3), abs(sp["step_overhead_seconds"] - 0.00099) < 2e-5,
          sp["step_overhead_from"])
    check("MBU from 1, 16 and 64 users", "at 1, 16 and 64 users" in sp["mbu_from"],
          sp["mbu_from"])
    check("the calibration lists every file, in order", sp.get("benchmark_files") == SWEEP and
          sp["benchmark_file"] == SWEEP[0], json.dumps(sp)[:600])
    names = [os.path.basename(f) for f in SWEEP]
    check("six points, each named with its file", len(sp["points"]) == 6 and
          all(any(p["figure"].startswith(n + ": ") for n in names) for p in sp["points"]),
          [p["figure"] for p in sp["points"]])
    for n in names:
        check("the output names %s" % n, n in out, out[:800])
    # plan with it gives the 16-user run's TPOT back (10.13 ms; 98.7 tok/s)
    st, o, e = run(["plan", *H100, "--calibration", save, "--concurrency", "16", "--context",
                    "1152", "--avg-context", "1088", "--prompt", "1024", "--format", "json"])
    tps = json.loads(o)["result"]["tokens_per_s_per_user"] if st == 0 else 0
    check("plan --calibration: 16 users at %.1f tok/s, 1 / 10.13 ms" % tps,
          abs(1000 / tps - 10.13) < 0.05 if tps else False, e)


def test_one_file_keeps_the_overhead():
    status, out, doc, _ = calibrate(SWEEP[-1:])
    check("one file: exit 0", status == 0 and doc, out[-400:])
    if doc:
        sp = doc["speed"]
        check("one concurrency keeps the engine's overhead (0.9 ms)",
              abs(sp["step_overhead_seconds"] - 0.0009) < 1e-9, sp["step_overhead_from"])
        check("one file: benchmark_files holds it", sp.get("benchmark_files") == SWEEP[-1:], sp)


def write(name, text):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def test_each_file_named_in_its_error():
    good = open(SWEEP[1]).read()
    bad = write("bad-tpot.json", good.replace('"mean_tpot_ms": 10.13', '"mean_tpot_ms": -3'))
    cut = write("cut.json", good[:200])
    other = write("other-model.json", good.replace("Llama-3.1-8B-Instruct\"", "Llama-3.1-70B-Instruct\""))
    missing = os.path.join(TMP, "none.json")
    for path, words in [(bad, "mean_tpot_ms is -3"), (cut, "JSON ends too early"),
                        (other, "calibrate on the runs of one model at a time"),
                        (LOG, "a startup log is calibrated alone"), (missing, "cannot open")]:
        for files in ([SWEEP[0], path, SWEEP[2]], [path, SWEEP[0]]):
            status, out, doc, save = calibrate(files)
            first = out.strip().splitlines()[-1] if out.strip() else ""
            check("%s among %d files: exit 2, the message names it: %s" %
                  (os.path.basename(path), len(files), first),
                  # a file of another model: the later of the two leads, the other named too
                  status == 2 and (first.startswith("kvplan: " + path) or
                                   (path == other and path in first)) and words in first
                  and not os.path.exists(save))


main([test_three_runs_fit_as_one, test_one_file_keeps_the_overhead,
      test_each_file_named_in_its_error])
