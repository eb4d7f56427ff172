#!/usr/bin/python3
"""The planner's Load screen (L):
 - its figures are those of `kvplan simulate --format json` run with the
   command line it shows (the TTFT and TPOT percentiles, goodput, the
   queue), for the generic rule's default scenario (simulated on vLLM V1),
   two replicas, and settings changed with the keys (rate, lengths, cap,
   objectives);
 - the same keys give the same screen, byte for byte;
 - on a pseudo-terminal: L opens it, a key answers with a quick run (200
   requests) and the full run (1,000) follows once the keys stop; a rate
   stepped up and back down gives the screen it started from; Esc leaves.
Usage: t_load_screen.py path/to/kvplan. Ends with "N passed, N failed"."""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from ptyterm import PtyTerm  # noqa: E402

KVPLAN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
ENV = dict(os.environ, LC_ALL="C.UTF-8", XDG_CONFIG_HOME=tempfile.mkdtemp(prefix="kvplan-load-"))
ENV.pop("NO_COLOR", None)
passed = failed = 0


def ok(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what)


def dump(args, keys, size="160x40"):
    out = subprocess.run([KVPLAN, *args, "--dump-screen", "-", "--size", size, "--keys", keys],
                         capture_output=True, env=ENV, timeout=120)
    return out.stdout.decode()


def fmt_ms(ms):
    """As the screen writes milliseconds."""
    if ms >= 10000:
        return "%.1f s" % (ms / 1000)
    if ms >= 100:
        return "%.0f ms" % ms
    if ms >= 10:
        return "%.1f ms" % ms
    return "%.2f ms" % ms


def command_of(screen):
    lines = screen.split("\n")
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("kvplan simulate"))
    words = []
    for line in lines[at:at + 3]:
        if not line.strip() or line.strip().startswith("Esc back"):
            break
        words.append(line.strip())
    return " ".join(words)


def expected_lines(sim):
    return [
        "TTFT  p50 %s  p95 %s" % (fmt_ms(sim["median_ttft_ms"]), fmt_ms(sim["p95_ttft_ms"])),
        "TPOT  p50 %s  p95 %s" % (fmt_ms(sim["median_tpot_ms"]), fmt_ms(sim["p95_tpot_ms"])),
        "Goodput %.2f req/s: %.0f%% keep both SLOs" % (sim["request_goodput"],
                                                       100.0 * sim["goodput_share"]),
        "Queue   %.1f waiting (max %d), %.1f running" % (sim["mean_waiting"], sim["max_waiting"],
                                                       sim["mean_running"]),
    ]


CASES = [
    ([], "L"),
    (["--engine", "vllm", "--gpus", "2"], "L<Right><Right><Down><Right>"),
    (["--model", "qwen2.5-7b", "--context", "16k"], "L<S-Right><Down><Down><Left><Down><Right>"),
    ([], "L<Down><Down><Down><Right><Right><Right><Down><Left><Left><Down><Left>"),
    # a length profile (Lengths: random, azure-code-2023, azure-conv-2023), then the cap
    ([], "L<Down><Left><Down><Down><Down><Right><Right>"),
]
for args, keys in CASES:
    screen = dump(args, keys)
    cmd = command_of(screen)
    words = shlex.split(cmd)
    ok(words[:2] == ["kvplan", "simulate"], "%s %s: a command line: %r" % (args, keys, cmd))
    run = subprocess.run([KVPLAN, *words[1:], "--format", "json"], capture_output=True, env=ENV,
                         timeout=120)
    ok(run.returncode == 0, "%s: %s" % (cmd, run.stderr.decode()))
    if run.returncode != 0:
        continue
    sim = json.loads(run.stdout)["result"]["simulation"]
    ok(sim["completed"] == 1000, "%s: 1000 requests" % cmd)
    ok("At %g req/s: 1000 requests, seed 0" % sim["request_rate"] in screen,
       "%s %s: the rate and the requests:\n%s" % (args, keys, screen))
    for line in expected_lines(sim):
        ok(line in screen, "%s %s: %r (simulate's JSON) not on the screen:\n%s"
           % (args, keys, line, screen))
    ok(dump(args, keys) == screen, "%s %s: the same keys, another screen" % (args, keys))

# a rate past capacity: the screen gives no percentiles, as simulate gives none
screen = dump([], "L<S-Right><S-Right>")
words = shlex.split(command_of(screen))
run = subprocess.run([KVPLAN, *words[1:], "--format", "json"], capture_output=True, env=ENV,
                     timeout=120)
sim = json.loads(run.stdout)["result"]["simulation"] if run.returncode == 0 else {}
ok(sim.get("over_capacity") is True, "%s: over capacity" % words)
ok("TTFT  over capacity" in screen and "TPOT  over capacity" in screen
   and "TTFT  p50" not in screen, "over capacity, percentiles shown:\n" + screen)

# the session file keeps the settings (a one-scenario session with them);
# the Markdown report has the Load section, simulate's figures in it
work = tempfile.mkdtemp(prefix="kvplan-load-files-")
keys = "L<Right><Right><Down><Right><Esc>"
subprocess.run([KVPLAN, "--dump-screen", "-", "--keys", keys + "e<Enter>m<Enter>"], cwd=work,
               capture_output=True, env=ENV, timeout=120)
files = sorted(os.listdir(work))
ok(len(files) == 2, "a session and a report: %s" % files)
if len(files) == 2:
    session = os.path.join(work, files[0])
    saved = json.load(open(session))["session"]["scenarios"][0].get("load", {})
    shown = dump([], keys[:-len("<Esc>")])  # the Load screen as it was exported
    rate = re.search(r"Rate +. ([0-9.]+) req/s", shown)
    # <Down><Right>: Lengths from random to the first length profile, kept by name
    ok(rate is not None and saved.get("request_rate") == float(rate.group(1)) and
       saved.get("dataset") == "azure-code-2023" and "◂ azure-code-2023 ▸" in shown and
       re.search(r"Input +mean [0-9]+", shown) is not None,
       "the settings in the session: %s, on the screen:\n%s" % (saved, shown))
    again = dump(["--load", session], "L")
    ok(again == shown, "loaded back, the same screen:\n" + again)
    ok(dump(["--load", session], "L") == again, "loaded twice, the same screen")
    # a profile that is none: named by file and field, exit 2
    doc = json.load(open(session))
    doc["session"]["scenarios"][0]["load"]["dataset"] = "sharegpt"
    bad = os.path.join(work, "bad.json")
    json.dump(doc, open(bad, "w"))
    run = subprocess.run([KVPLAN, "--load", bad, "--dump-screen", "-"], capture_output=True,
                         env=ENV, timeout=60)
    err = run.stderr.decode()
    ok(run.returncode == 2 and bad in err and "load.dataset" in err and "sharegpt" in err,
       "an unknown profile in a session: %d %s" % (run.returncode, err))
    report = open(os.path.join(work, files[1])).read()
    cmd = re.search(r"Simulated as `([^`]*)`", report)
    ok(cmd is not None, "the report's Load section:\n" + report[-2000:])
    if cmd:
        run = subprocess.run([KVPLAN, *shlex.split(cmd.group(1))[1:], "--format", "json"],
                             capture_output=True, env=ENV, timeout=120)
        sim = json.loads(run.stdout)["result"]["simulation"]
        row = "| TTFT | %.2f | %.2f" % (sim["median_ttft_ms"], sim["p95_ttft_ms"])
        ok(row in report, "%r (simulate's) not in the report" % row)
        # the spread over public runs, as simulate gives it (core/loadband.h), and the
        # engine's own scheduler named (not vLLM's for every engine)
        spread = "mean TTFT %s; mean TPOT %s." % (sim["measured_spread"]["ttft"]["text"],
                                                  sim["measured_spread"]["tpot"]["text"])
        ok(spread in report, "%r (simulate's) not in the report:\n%s" % (spread, report[-1500:]))
        ok("'s scheduler, seed" in report, "the report names the scheduler:\n" + report[-1500:])

# with a profile, Input and Output are its means: a step says so
screen = dump([], "L<Down><Right><Down><Right>")
ok("azure-code-2023 gives each request's lengths" in screen and
   re.search(r"Input +mean [0-9]+", screen) is not None,
   "Input stepped under a profile:\n" + screen)

# an export without the Load screen is the plain snapshot as before, and a
# file without settings (older ones) opens the screen at the defaults
plain = tempfile.mkdtemp(prefix="kvplan-load-plain-")
subprocess.run([KVPLAN, "--dump-screen", "-", "--keys", "e<Enter>"], cwd=plain,
               capture_output=True, env=ENV, timeout=60)
names = os.listdir(plain)
ok(len(names) == 1 and "session" not in json.load(open(os.path.join(plain, names[0]))),
   "a plain snapshot without the Load screen: %s" % names)
if names:
    ok(dump(["--load", os.path.join(plain, names[0])], "L") == dump([], "L"),
       "a file without settings: the defaults")

# a plan simulate refuses (vLLM's V0 engine; llama.cpp's slots are simulated
# now): the screen says why
screen = dump(["--engine", "vllm@0"], "L")
ok("simulate models vLLM V1's scheduler" in screen, "vllm@0 refused:\n" + screen)
screen = dump(["--engine", "llama.cpp"], "L")
ok("TTFT" in screen and "refuse" not in screen, "llama.cpp's slots simulated:\n" + screen)

def full_run(t, pattern):
    """Until the frame after the one that answered a key, the full run's
    (the frame counter comes last in a frame: that frame has arrived whole)."""
    want = t.frame() + 1
    while t.frame() < want:
        if not t.pump(30):
            raise AssertionError("no full run; screen:\n" + t.text())
    t.wait_for(pattern)


# live, on a pseudo-terminal
t = PtyTerm([KVPLAN], cols=100, rows=30, env=ENV)
try:
    t.wait_for(r"\? help")
    t.press("L")
    full_run(t, r"At [0-9.]+ req/s: 1000 requests")
    before = t.text()
    r0 = float(re.search(r"At ([0-9.]+) req/s", before).group(1))
    t.press(t.cap("kcuf1"))  # Right: the rate one step up, a quick run at once
    m = re.search(r"At ([0-9.]+) req/s: 200 requests \(quick\)", t.text())
    ok(m is not None and float(m.group(1)) > r0, "a step answers with a quick run:\n" + t.text())
    full_run(t, r"At [0-9.]+ req/s: 1000 requests")
    ok(m is not None and ("At %s req/s: 1000" % m.group(1)) in t.text(),
       "the full run at the new rate:\n" + t.text())
    t.press(t.cap("kcub1"))
    full_run(t, r"At %g req/s: 1000 requests" % r0)
    strip = lambda s: re.sub(r"#\d+\s*$", "", s)  # noqa: E731
    ok(strip(t.text()) == strip(before), "up and back down, another screen:\n%s\n---\n%s"
       % (before, t.text()))
    t.press("\x1b")
    t.wait_for(r"Enter edit")
    ok("Load  " not in t.text(), "Esc goes back to the main screen")
    t.send("q")
    t.wait_exit()
    ok(True, "the planner quits")
finally:
    t.kill()

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
