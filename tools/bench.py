#!/usr/bin/python3
"""bench: kvplan's speed and memory figures, measured on the real binary.

Instructions come from valgrind --tool=callgrind (repeatable on a noisy
machine); terminal bytes are counted on a pseudo-terminal; wall-clock
figures are medians of repeated runs and are reported, never asserted.
Writes bench/results.json and prints a table; with --compare BASELINE it
flags every deterministic figure that got more than 10% worse.

Usage: bench.py KVPLAN [--out bench/results.json] [--compare bench/baseline.json]
"""
import atexit
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
from ptyterm import PtyTerm  # noqa: E402

KVPLAN = os.path.abspath(sys.argv[1])
MAXRSS = os.path.join(os.path.dirname(KVPLAN), "tools", "maxrss")
TMP = tempfile.mkdtemp(prefix="kvplan-bench-")
atexit.register(shutil.rmtree, TMP, True)
ENV = dict(os.environ, XDG_CONFIG_HOME=TMP, LC_ALL="C.UTF-8")
ENV.pop("NO_COLOR", None)
SCENARIO = ["--gpu", "a100-80gb", "--model", "llama-2-7b", "--context", "4k"]


def callgrind(argv, env=None):
    """Total instructions of a whole run."""
    out = os.path.join(TMP, "cg.out")
    subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, *argv],
                   capture_output=True, env=env or ENV, check=True, stdin=subprocess.DEVNULL)
    with open(out) as f:
        for line in f:
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    raise RuntimeError("no callgrind summary")


def tui_instructions(keys, cols, rows):
    """Instructions of the real planner on a pty: start, press keys, quit."""
    out = os.path.join(TMP, "cg-tui.out")
    t = PtyTerm(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, KVPLAN,
                 *SCENARIO], cols=cols, rows=rows, env=ENV)
    try:
        t.wait_for(r"How the number", timeout=60)
        for k in keys:
            t.press(k, timeout=60)
        t.send("q")
        t.wait_exit(timeout=60)
    finally:
        t.kill()
    with open(out) as f:
        for line in f:
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    raise RuntimeError("no callgrind summary")


def per_step(keys_for, cols=80, rows=24, n1=4, n2=24):
    """(instructions of n2 steps - of n1 steps) / (n2 - n1): the cost of one step."""
    a = tui_instructions(keys_for(n1), cols, rows)
    b = tui_instructions(keys_for(n2), cols, rows)
    return (b - a) // (n2 - n1)


def bytes_per_key(keys, cols, rows):
    """Median bytes the planner writes to the terminal for each key."""
    env = dict(ENV)
    t = PtyTerm([KVPLAN, *SCENARIO], cols=cols, rows=rows, env=env)
    sizes = []
    try:
        t.wait_for(r"How the number")
        for k in keys:
            before = len(t.raw)
            t.press(k)
            while t.pump(0.03):
                pass
            sizes.append(len(t.raw) - before)
        t.send("q")
        t.wait_exit()
    finally:
        t.kill()
    return int(statistics.median(sizes))


# A key of the Load screen is answered in 50 ms: at the 2 billion instructions
# a second the planner's dumps run at on this machine, 100 million.
LOAD_KEY_BUDGET = 100_000_000


def dump_instructions(keys):
    return callgrind([KVPLAN, "--dump-screen", os.path.join(TMP, "load.screen"), "--size", "80x24",
                      *SCENARIO, "--keys", keys])


def load_key(prefix, n1=2, n2=6):
    """A key of the Load screen (Right and Left in turn after prefix): the
    instructions of n2 keys less those of n1, over n2 - n1; both dumps end
    on the same settings with the same one full run."""
    keys = lambda n: prefix + "".join("<Right>" if i % 2 == 0 else "<Left>" for i in range(n))  # noqa: E731
    return (dump_instructions(keys(n2)) - dump_instructions(keys(n1))) // (n2 - n1)


def peak_rss_kib(argv, tui=False):
    """Peak resident memory. The planner's is read from /proc (VmHWM) once its
    first frame is up; a command's from tools/maxrss, a small parent whose own
    memory stays out of the child's high-water mark."""
    if tui:
        t = PtyTerm([KVPLAN, *argv], cols=160, rows=48, env=ENV)
        try:
            t.wait_for(r"How the number")
            t.wait_blocked()
            with open("/proc/%d/status" % t.pid) as f:
                hwm = int(re.search(r"VmHWM:\s+(\d+)", f.read()).group(1))
            t.send("q")
            t.wait_exit()
        finally:
            t.kill()
        return hwm
    out = subprocess.run([MAXRSS, KVPLAN, *argv], capture_output=True, text=True, env=ENV)
    return int(out.stderr.strip().splitlines()[-1])


def wall_median(argv, runs=30):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([KVPLAN, *argv], stdout=subprocess.DEVNULL, env=ENV, check=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    probe = PtyTerm([KVPLAN, "--version"], env=ENV)
    kcuf1, kcub1 = probe.cap("kcuf1"), probe.cap("kcub1")
    probe.wait_exit()
    # a slider step: Right and Left alternately on the context (8k <-> 16k)
    steps = lambda n: [kcuf1 if i % 2 == 0 else kcub1 for i in range(n)]
    redraws = lambda n: ["\x0c"] * n  # Ctrl-L: clear and repaint everything
    r = {}
    r["startup_instructions"] = callgrind([KVPLAN, "--dump-screen", "-", "--size", "80x24",
                                           *SCENARIO])
    r["plan_json_instructions"] = callgrind([KVPLAN, "plan", "--format", "json", *SCENARIO])
    r["step_instructions_80x24"] = per_step(steps)
    r["step_instructions_120x40"] = per_step(steps, 120, 40)
    r["redraw_instructions_80x24"] = per_step(redraws)
    r["redraw_instructions_160x48"] = per_step(redraws, 160, 48)
    r["step_bytes_80x24"] = bytes_per_key(steps(40), 80, 24)
    r["step_bytes_120x40"] = bytes_per_key(steps(40), 120, 40)
    r["step_bytes_160x48"] = bytes_per_key(steps(40), 160, 48)
    r["redraw_bytes_80x24"] = bytes_per_key(redraws(10), 80, 24)
    r["redraw_bytes_160x48"] = bytes_per_key(redraws(10), 160, 48)
    r["plan_json_wall_ms"] = round(wall_median(["plan", "--format", "json", *SCENARIO]) * 1000, 2)
    grid = ["sweep", "--vary", "gpu=all", "--vary", "model=all", "--vary", "context=1k..1M:64",
            "--format", "csv", "--max-rows", "1000000"]
    rows = subprocess.run([KVPLAN, *grid], capture_output=True, text=True, env=ENV).stdout.count("\n") - 1
    t = wall_median(grid, runs=5)
    r["sweep_scenarios"] = rows
    r["sweep_scenarios_per_s"] = int(rows / t)
    # the step-time function on a 64-request batch: (2N calls - N calls) / N
    steptime = os.path.join(os.path.dirname(KVPLAN), "tools", "bench_steptime")
    r["steptime_instructions_per_call"] = round(
        (callgrind([steptime, "20000"]) - callgrind([steptime, "10000"])) / 10000)
    r["steptime_ns_per_call"] = min(
        float(subprocess.run([steptime, "200000"], capture_output=True, text=True).stdout.split()[2])
        for _ in range(5))
    # the serving simulator: 10,000 requests of 1,024 + 128 tokens at 16 a second
    # (Llama 3.1 8B on an H100 under vLLM); an event is a step, a request sent or a token
    sim = ["simulate", "--num-prompts", "10000", "--request-rate", "16", "--format", "json"]
    r["simulate_instructions"] = callgrind([KVPLAN, *sim])
    done = json.loads(subprocess.run([KVPLAN, *sim], capture_output=True, text=True, env=ENV,
                                     check=True).stdout)["result"]["simulation"]
    events = done["steps"] + done["completed"] + done["total_output_tokens"]
    t = wall_median(sim, runs=10)
    r["simulate_events"] = events
    r["simulate_wall_ms"] = round(t * 1000, 2)
    r["simulate_events_per_s"] = int(events / t)
    r["peak_rss_simulate_kib"] = peak_rss_kib(sim)
    # ... and the same under each other engine's scheduler
    for engine in ("sglang", "llamacpp", "trtllm"):
        r["simulate_%s_instructions" % engine] = callgrind([KVPLAN, *sim, "--engine", engine])
        r["simulate_%s_wall_ms" % engine] = round(wall_median(sim + ["--engine", engine],
                                                              runs=10) * 1000, 2)
    # the Load screen: a key of the rate (the rate's quick run), of a length
    # (the sweep's quick runs too), and the full run once the keys stop
    r["load_rate_key_instructions"] = load_key("L")
    r["load_length_key_instructions"] = load_key("L<Down>")
    r["load_full_run_instructions"] = (dump_instructions("L") - dump_instructions("")
                                       - r["load_length_key_instructions"])
    r["peak_rss_plan_kib"] = peak_rss_kib(["plan", "--format", "json", *SCENARIO])
    r["peak_rss_tui_kib"] = peak_rss_kib(SCENARIO, tui=True)

    labels = [
        ("startup_instructions", "instructions to the first complete frame (80x24, full catalogue)"),
        ("plan_json_instructions", "instructions of kvplan plan --format json"),
        ("step_instructions_80x24", "instructions per slider step (80x24)"),
        ("step_instructions_120x40", "instructions per slider step (120x40)"),
        ("redraw_instructions_80x24", "instructions per full redraw, 80x24"),
        ("redraw_instructions_160x48", "instructions per full redraw, 160x48"),
        ("step_bytes_80x24", "bytes to the terminal per slider step, 80x24 (median)"),
        ("step_bytes_120x40", "bytes to the terminal per slider step, 120x40 (median)"),
        ("step_bytes_160x48", "bytes to the terminal per slider step, 160x48 (median)"),
        ("redraw_bytes_80x24", "bytes per full redraw, 80x24"),
        ("redraw_bytes_160x48", "bytes per full redraw, 160x48"),
        ("plan_json_wall_ms", "plan --format json, whole process, median ms"),
        ("sweep_scenarios_per_s", "sweep throughput, scenarios/s (all GPUs x models x 64 contexts)"),
        ("steptime_instructions_per_call", "instructions per step-time call, 64 requests"),
        ("steptime_ns_per_call", "step-time call, 64 requests, ns (fastest of 5, reported)"),
        ("simulate_instructions", "instructions of simulate, 10,000 requests (whole process)"),
        ("simulate_wall_ms", "simulate, 10,000 requests, whole process, median ms"),
        ("simulate_events_per_s", "simulate events (steps, requests, tokens) a second"),
        ("peak_rss_simulate_kib", "peak resident memory of simulate, 10,000 requests, KiB"),
        ("simulate_sglang_instructions", "instructions of simulate --engine sglang, 10,000 requests"),
        ("simulate_sglang_wall_ms", "simulate --engine sglang, 10,000 requests, median ms"),
        ("simulate_llamacpp_instructions", "instructions of simulate --engine llamacpp, 10,000 requests"),
        ("simulate_llamacpp_wall_ms", "simulate --engine llamacpp, 10,000 requests, median ms"),
        ("simulate_trtllm_instructions", "instructions of simulate --engine trtllm, 10,000 requests"),
        ("simulate_trtllm_wall_ms", "simulate --engine trtllm, 10,000 requests, median ms"),
        ("load_rate_key_instructions", "instructions per Load screen rate key (80x24)"),
        ("load_length_key_instructions", "instructions per Load screen length key (80x24)"),
        ("load_full_run_instructions", "instructions of the Load screen's full run"),
        ("peak_rss_plan_kib", "peak resident memory of plan, KiB"),
        ("peak_rss_tui_kib", "peak resident memory of the planner at 160x48, KiB"),
    ]
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else "bench/results.json"
    with open(out + ".tmp", "w") as f:
        json.dump(r, f, indent=2)
        f.write("\n")
    os.replace(out + ".tmp", out)
    base = None
    if "--compare" in sys.argv:
        path = sys.argv[sys.argv.index("--compare") + 1]
        if os.path.exists(path):
            base = json.load(open(path))
    worse = []
    print("%-66s %14s %14s" % ("figure", "now", "baseline"))
    for key, label in labels:
        b = base.get(key) if base else None
        flag = ""
        deterministic = "instructions" in key or "bytes" in key
        if b and deterministic and r[key] > b * 1.10:
            flag = "  WORSE"
            worse.append(key)
        print("%-66s %14s %14s%s" % (label, r[key], b if b is not None else "-", flag))
    print("wrote %s" % out)
    slow = [k for k in ("load_rate_key_instructions", "load_length_key_instructions")
            if r[k] > LOAD_KEY_BUDGET]
    if slow:
        print("bench: a Load screen key over %d instructions (50 ms): %s" % (LOAD_KEY_BUDGET,
                                                                          ", ".join(slow)))
        return 1
    if worse:
        print("bench: %d figures more than 10%% worse than the baseline: %s" % (len(worse), ", ".join(worse)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
