#!/usr/bin/python3
"""tools/validate_speed.py's serving benchmarks (tools/speed_sim.py): a closed-loop
case is run as `kvplan simulate` with the source's concurrency, prompts (capped)
and range (sglang's randint(int(L r), L) as kvplan's centre and ratio); a binary
that refuses to simulate is reported with its own message, whichever engine;
the gate's simulated cases hold their tolerance and a malformed one is refused.
Usage: t_speed_sim.py path/to/kvplan. Ends with "N passed, N failed"."""
import atexit
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

KVPLAN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import speed_sim  # noqa: E402
import validate_speed  # noqa: E402
from tally import check  # noqa: E402
import tally  # noqa: E402

SCRIPT = os.path.join(ROOT, "tools", "validate_speed.py")
DATA = os.path.join(ROOT, "tests", "data", "speed-measurements.json")
TMP = tempfile.mkdtemp(prefix="kvplan-ss-")
atexit.register(shutil.rmtree, TMP, True)


def write(name, obj):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        json.dump(obj, f)
    return path


BY_ID = {c["id"]: c for c in json.load(open(DATA))["measurements"]}
VLLM, BIG = "vllm-h200x8-deepseek-r1-fp8-3200-800-c4", "atom-mi355x4-deepseek-r1-fp4-8192-1024-c128"


def run(binary, ids, gate=None):
    doc = json.load(open(DATA))
    doc["measurements"] = [BY_ID[i] for i in ids]
    extra = ["--check", "--gate", gate] if gate else ["--out", os.path.join(TMP, "r.md")]
    r = subprocess.run(["/usr/bin/python3", SCRIPT, binary, write("d.json", doc), *extra,
                        "--gpu-reference", "/nonexistent", "--model-reference", "/nonexistent"],
                       capture_output=True, text=True, timeout=120)
    text = open(os.path.join(TMP, "r.md")).read() if not gate and r.returncode == 0 else ""
    return r, text


# the range: InferenceX's randint(819, 1024) for 1024 and 0.8; sglang's ratio 1 is fixed lengths
centre, ratio = speed_sim.centred(1024, 0.8, "sglang")
check(centre == 922 and abs(ratio - 0.2 / 1.8) < 1e-3, "sglang range 1024 x 0.8: %r %r" % (centre, ratio))
for top in (1024, 8192):
    centre, ratio = speed_sim.centred(top, 0.8, "sglang")
    check(math.ceil(centre * (1 + ratio)) == top and math.floor(centre * (1 - ratio)) >= int(top * 0.8),
          "sglang range %d x 0.8 stays within [int(0.8 L), L]: %r %r" % (top, centre, ratio))
check(speed_sim.centred(3200, 1.0, "sglang") == (3200, 0.0), "sglang ratio 1 is fixed lengths")
check(speed_sim.centred(80, 0.0, "vllm") == (80, 0.0), "vllm's range is kvplan's")

# the command: the concurrency, the source's prompts or the cap with a note
c = BY_ID[VLLM]
args, note = speed_sim.command(c, validate_speed.base_args(c))
check(args[args.index("--max-concurrency") + 1] == "4" and args[args.index("--num-prompts") + 1] == "500"
      and note is None and "--random-range-ratio" not in args, "dstack command: %r %r" % (args, note))
c = BY_ID[BIG]
args, note = speed_sim.command(c, validate_speed.base_args(c))
check(args[args.index("--num-prompts") + 1] == str(speed_sim.MAX_PROMPTS) and "capped" in (note or "")
      and args[args.index("--random-input-len") + 1] == "7373", "capped command: %r %r" % (args, note))
check(speed_sim.command(BY_ID["llamacpp-4090-codellama7b-f16-tg128"], []) == (None, None),
      "a decode-only case is no serving benchmark")

# a binary that simulates nothing: the report says so with its message
fake = os.path.join(TMP, "kvplan")
with open(fake, "w") as f:
    f.write('#!/bin/sh\nif [ "$1" = simulate ]; then echo "kvplan: no simulator in this build" >&2; exit 2; fi\n'
            'exec "%s" "$@"\n' % KVPLAN)
os.chmod(fake, 0o755)
r, text = run(fake, [VLLM])
check(r.returncode == 0 and "not simulated: no simulator in this build" in text.lower(),
      "refusal reported with the binary's message: %s" % r.stderr[-300:])
r, text = run(KVPLAN, [VLLM])
rowline = next((l for l in text.splitlines() if l.startswith("| %s | yes | 25.73" % VLLM)), "")
check(rowline.count("%") == 4 and "not simulated" not in rowline, "simulated row: %r" % rowline)
check("kvplan simulate --model" in text and "serving benchmarks simulated" in text, "command and summary shown")

# the gate's simulated cases
g = {"format": "kvplan-speed-gate", "format_version": 1, "cases": [],
     "simulated_cases": [{"id": VLLM, "figure": "tpot", "tolerance": 0.0001}]}
r, _ = run(KVPLAN, [VLLM], write("g.json", g))
check(r.returncode == 1 and "GATE: %s: simulated tpot" % VLLM in r.stdout
      and "speed gate, simulated: 0 passed, 1 failed" in r.stdout, "tight gate fails: %s" % r.stdout[-300:])
g["simulated_cases"][0]["tolerance"] = 5
r, _ = run(KVPLAN, [VLLM], write("g.json", g))
check(r.returncode == 0 and "speed gate, simulated: 1 passed, 0 failed" in r.stdout, "loose gate holds")
g["simulated_cases"][0]["figure"] = "itl"
r, _ = run(KVPLAN, [VLLM], write("g.json", g))
check(r.returncode == 2 and "simulated_cases[0]" in r.stderr, "malformed gate refused: %s" % r.stderr)

# the decode share (issue 19's aim, tools/speed_gate.py): a serving benchmark counts with its simulated
# TPOT, so the ATOM row (static -53%, simulated within 20%) is within and the llama-bench row (static
# +9%) too; the early vLLM build (-57% both ways) is not: 2 of 3, 66.7%
TG = "llamacpp-4090-codellama7b-f16-tg128"
g = {"format": "kvplan-speed-gate", "format_version": 1, "cases": [],
     "decode_share": {"tolerance": 0.2, "at_least": 0.6, "cases": [BIG, TG]}}
r, _ = run(KVPLAN, [VLLM, BIG, TG], write("g.json", g))
check(r.returncode == 0 and "2 of 3 complete cases within 20% (66.7%, at least 60%); 2 named, 0 missed" in r.stdout,
      "the share counts the simulated TPOT: %s" % r.stdout[-400:])
g["decode_share"]["at_least"] = 0.7
r, _ = run(KVPLAN, [VLLM, BIG, TG], write("g.json", g))
check(r.returncode == 1 and "(66.7%, at least 70%)" in r.stdout, "a share below the aim fails: %s" % r.stdout[-300:])
g["decode_share"].update(at_least=0.6, cases=[VLLM, TG])
r, _ = run(KVPLAN, [VLLM, BIG, TG], write("g.json", g))
check(r.returncode == 1 and "GATE: %s: decode -5" % VLLM in r.stdout and "2 named, 1 missed" in r.stdout,
      "a named case out of the tolerance fails: %s" % r.stdout[-300:])
g["decode_share"]["at_least"] = 2
r, _ = run(KVPLAN, [VLLM], write("g.json", g))
check(r.returncode == 2 and "decode_share" in r.stderr, "malformed share refused: %s" % r.stderr)

tally.finish()
