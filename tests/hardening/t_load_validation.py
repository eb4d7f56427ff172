#!/usr/bin/python3
"""tools/validate_load.py (make validate's doc/LOAD-VALIDATION.md) on the real
binary: the same binary and data give the same bytes; every point of the data
is in the document, simulated with the command shown for it (running that
command gives the figure the table shows) or listed with the reason; the
commands carry the point's configuration; the knee is the rule the document
states; doc/LOAD-VALIDATION.md lists every point of the data.
Usage: t_load_validation.py path/to/kvplan. Ends with "N passed, N failed"."""
import importlib.util
import json
import os
import shlex
import subprocess
import sys

from optionslib import ROOT, TMP, check, main, run

TOOL = os.path.join(ROOT, "tools", "validate_load.py")
DATA = os.path.join(ROOT, "tests", "data", "load-measurements.json")
DOC = os.path.join(ROOT, "doc", "LOAD-VALIDATION.md")
KVPLAN = os.path.abspath(sys.argv[1])

spec = importlib.util.spec_from_file_location("validate_load", TOOL)
vl = importlib.util.module_from_spec(spec)
spec.loader.exec_module(vl)


def generate(name, data=DATA):
    out = os.path.join(TMP, name)
    done = subprocess.run(["/usr/bin/python3", TOOL, KVPLAN, data, "--out", out],
                          capture_output=True, text=True, timeout=600)
    check("validate_load.py %s exits 0" % name, done.returncode == 0, done.stderr)
    with open(out, encoding="utf-8") as f:
        return f.read()


def points():
    with open(DATA, encoding="utf-8") as f:
        return json.load(f)["points"]


def test_same_bytes_twice():
    a, b = generate("a.md"), generate("b.md")
    check("two runs, the same bytes", a == b and len(a) > 1000)


def test_every_point_simulated_or_said_why():
    text = generate("c.md")
    lines = text.splitlines()
    missing, unexplained = [], []
    for p in points():
        mine = [l for l in lines if l.startswith("- `%s`:" % p["id"])]
        if not mine:
            missing.append(p["id"])
            continue
        sweep_says = any(l.startswith("Not simulated:") for l in section(lines, p["sweep"]))
        if "kvplan simulate" not in mine[0] and "no command:" not in mine[0] and not sweep_says:
            unexplained.append(p["id"])
    check("every point is listed", not missing, missing)
    check("every point has its command or the reason", not unexplained, unexplained)
    with open(DOC, encoding="utf-8") as f:
        committed = f.read()
    stale = [p["id"] for p in points() if "`%s`" % p["id"] not in committed]
    check("doc/LOAD-VALIDATION.md lists every point of the data (make validate)", not stale,
          stale)


def section(lines, sweep):
    start = lines.index("### `%s`" % sweep)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("### ")),
               len(lines))
    return lines[start:end]


def test_a_command_gives_the_table_figure():
    """The first simulated point: its command, run by hand, gives the
    predicted mean TTFT and output throughput its row shows."""
    text = generate("d.md").splitlines()
    for p in points():
        args, why = vl.command(p)
        if args is None:
            continue
        status, out, err = run(["simulate", *args, "--format", "json"])
        if status != 0:
            continue
        s = json.loads(out)["result"]["simulation"]
        line = next(l for l in text if l.startswith("- `%s`:" % p["id"]))
        shown = line.split("`kvplan simulate ", 1)[1].rstrip("`")
        check("the command shown is the one run", shlex.split(shown) == args, shown)
        rows = [l for l in section(text, p["sweep"]) if l.startswith("| %s " % vl.load_of(p))]
        cell = "%.1f / %.1f" % (p["metrics"]["mean_ttft_ms"], s["mean_ttft_ms"])
        check("the row shows the run's mean TTFT", rows and cell in rows[0], (cell, rows))
        cell = "%.0f / %.0f" % (p["metrics"]["output_throughput"], s["output_throughput"])
        check("the row shows the run's output throughput", rows and cell in rows[0], cell)
        return
    check("some point is simulated", False)


def test_commands_carry_the_configuration():
    by_id = {p["id"]: p for p in points()}
    p = by_id["ix-sglang059-h200-dsr1-fp8-tp8-1k8k-c16"]
    args, _ = vl.command(p)
    a = " ".join(args)
    check("engine, GPU, layout, model, precision", "--engine sglang --gpu h200 --gpus 8 --tp 8 "
          "--model deepseek-v3 --weight-dtype fp8" in a, a)
    check("the server's scheduling flags", "--max-running-requests 256" in a
          and "--chunked-prefill-size 32768" in a and "--mem-fraction-static 0.82" in a, a)
    check("the workload", "--num-prompts 160 --random-input-len 1024 --random-output-len 8192 "
          "--random-range-ratio 0.8 --max-concurrency 16" in a, a)
    check("the context holds the longest request (ceil(1024 x 1.8) + ceil(8192 x 1.8))",
          "--context %d" % (1844 + 14746) in a, a)
    p = by_id["dstack-vllm063-h100x8-llama31-405b-fp8-tp8-sharegpt-qps16"]
    args, _ = vl.command(p)
    a = " ".join(args)
    check("vLLM 0.6 is its V0 engine", "--engine vllm@0" in a, a)
    check("a rate sweep: --request-rate, no cap", "--request-rate 16" in a
          and "--max-concurrency" not in a, a)
    check("ShareGPT: the run's mean lengths", "--random-input-len 215 --random-output-len 121" in a,
          a)
    args, why = vl.command(by_id["nim180-h100x2-llama33-70b-fp8-tp2-5000-500-c1"])
    check("NIM is not simulated, with the reason", args is None and "NIM" in why, why)


def test_the_knee():
    # 90% of 310 is 279: between loads 2 (200) and 4 (300), at 2 + 79/100 x 2
    kind, x = vl.knee([1, 2, 4, 8], [100, 200, 300, 310])
    check("the knee interpolated", kind == "at" and abs(x - 3.58) < 1e-9, (kind, x))
    check("still rising: not reached", vl.knee([1, 2, 4], [100, 200, 400])[0] == "none")
    check("saturated from the first load: at or below it",
          vl.knee([16, 32, 1000], [1199, 1252, 1248]) == ("below", 16))
    p = [{"p": {"max_concurrency": c, "request_rate": "inf"}} for c in (1, 2, 4, 8)]
    check("below the knee: the loads under it",
          [vl.below_knee(r, ("at", 3.58)) for r in p] == [True, True, False, False])


if __name__ == "__main__":
    main([test_same_bytes_twice, test_every_point_simulated_or_said_why,
          test_a_command_gives_the_table_figure, test_commands_carry_the_configuration,
          test_the_knee])
