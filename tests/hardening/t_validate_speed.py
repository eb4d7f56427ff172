#!/usr/bin/python3
"""tools/validate_speed.py on a small data set: a case whose concurrency the
engine chose (null) must not make the report say the binary gives no speed
prediction, while a binary whose JSON has no speed fields must; the report
summarises the decode errors by GPU family and by engine, and lists every
complete case outside the tolerance with its recorded reason (miss_reason).
Usage: t_validate_speed.py path/to/kvplan. Ends with "N passed, N failed"."""
import atexit
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from tally import check  # noqa: E402
import tally  # noqa: E402

KVPLAN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCRIPT = os.path.join(ROOT, "tools", "validate_speed.py")
DATA = os.path.join(ROOT, "tests", "data", "speed-measurements.json")
TMP = tempfile.mkdtemp(prefix="kvplan-vs-")
atexit.register(shutil.rmtree, TMP, True)
STALE = "gives no speed prediction yet"


def cases(*ids):
    doc = json.load(open(DATA))
    by_id = {c["id"]: c for c in doc["measurements"]}
    doc["measurements"] = [by_id[i] for i in ids]
    path = os.path.join(TMP, "data.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def report(binary, data, *extra):
    out = os.path.join(TMP, "report.md")
    if os.path.exists(out):
        os.remove(out)
    run = subprocess.run(["/usr/bin/python3", SCRIPT, binary, data, "--out", out,
                          "--gpu-reference", os.path.join(TMP, "none.json"),
                          "--model-reference", os.path.join(TMP, "none.json"), *extra],
                         capture_output=True, text=True, timeout=120)
    text = open(out).read() if os.path.exists(out) else ""
    return run, text


def row(text, case_id):
    """The case's cells in the decode table (its first table)."""
    line = next((l for l in text.splitlines() if l.startswith("| %s |" % case_id)), "")
    return [c.strip() for c in line.split("|")[1:-1]]


def speedless_kvplan():
    """A kvplan whose plan JSON lacks the speed fields, as a binary before the speed model."""
    path = os.path.join(TMP, "old-kvplan")
    with open(path, "w") as f:
        f.write("#!/usr/bin/python3\nimport json, subprocess, sys\n"
                "r = subprocess.run([%r] + sys.argv[1:], capture_output=True, text=True)\n"
                "out = r.stdout\n"
                "if r.returncode == 0 and sys.argv[1:2] == ['plan'] and '--format' in sys.argv:\n"
                "    d = json.loads(out)\n"
                "    for k in ('decode_step_seconds', 'tokens_per_s_per_user', 'tokens_per_s_total', 'ttft_seconds'):\n"
                "        d['result'].pop(k, None)\n"
                "    out = json.dumps(d)\n"
                "sys.stdout.write(out); sys.stderr.write(r.stderr); sys.exit(r.returncode)\n" % KVPLAN)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


DENSE, CHOSEN = "llamacpp-4090-codellama7b-f16-tg128", "trtllm-h100-llama31-8b-fp8-128-128-max"
data = cases(DENSE, CHOSEN)

# 1. a null concurrency (an offline maximum-throughput run) is that case's matter, not the binary's
run, text = report(KVPLAN, data)
check(run.returncode == 0, "report exits 0: " + run.stderr[-300:])
check(STALE not in text, "a case without a concurrency does not make the report claim the binary has no speed model")
dense = row(text, DENSE)
check(len(dense) == 12 and dense[9] != "n/a" and dense[10] != "n/a", "the complete case has a prediction: %s" % dense)
check("speed: 1 passed, 0 failed**" in text or "speed: 0 passed, 1 failed**" in text,
      "the result line counts the one complete case, no n/a")
chosen = row(text, CHOSEN)
check(len(chosen) == 12 and chosen[7] == "n/a" and chosen[10] == "n/a",
      "the case without a measured decode has no decode error: %s" % chosen)

# 2. the per-family and per-engine error summary
summary = text.split("## Decode error by GPU family and by engine", 1)
check(len(summary) == 2, "the report has the error summary section")
body = summary[1].split("\n## ", 1)[0] if len(summary) == 2 else ""
check("| llama.cpp | 1 |" in body, "the engine table counts the llama.cpp case")
check("| Ada Lovelace | 1 |" in body, "the family table counts the case under its preset's family (no reference needed)")
check("trtllm" not in body, "an incomplete case is not summarised")

# 3. --check agrees
run = subprocess.run(["/usr/bin/python3", SCRIPT, KVPLAN, data, "--check"], capture_output=True, text=True, timeout=120)
check(run.returncode == 0 and "n/a" not in run.stdout, "--check: no n/a for a null-concurrency case: " + run.stdout.strip())

# 4. a binary without speed fields still reads as one
run, text = report(speedless_kvplan(), data)
check(run.returncode == 0, "report with the old binary exits 0: " + run.stderr[-300:])
check(STALE in text, "a binary whose JSON has no speed fields is said to give no speed prediction")
check("(1 n/a: kvplan gives no speed prediction yet)" in text, "the complete case is n/a for that binary")

# 5. every complete case outside the tolerance is listed with its recorded reason, or says it has none
doc = json.load(open(DATA))
by_id = {c["id"]: c for c in doc["measurements"]}
MISS = "llamacpp-v100-openllama7b-f16-b8"  # llama.cpp's 2023 batched path: far outside 20%
plain = dict(by_id[MISS], id=MISS + "-plain")
plain.pop("miss_reason", None)
doc["measurements"] = [by_id[DENSE], by_id[MISS], plain]
path = os.path.join(TMP, "misses.json")
with open(path, "w") as f:
    json.dump(doc, f)
run, text = report(KVPLAN, path)
section = text.split("## Cases outside the tolerance", 1)
body = section[1].split("\n## ", 1)[0] if len(section) == 2 else ""
check(len(section) == 2, "the report has the section of cases outside the tolerance")
line = next((l for l in body.splitlines() if l.startswith("| %s |" % MISS)), "")
check(by_id[MISS].get("miss_reason") and by_id[MISS]["miss_reason"] in line,
      "the failing case is listed with its miss_reason: %r" % line)
line = next((l for l in body.splitlines() if l.startswith("| %s |" % plain["id"])), "")
check(line.endswith("| no reason recorded |"), "a failing case without a reason says so: %r" % line)
check("| %s |" % DENSE not in body, "a passing case is not listed among the misses")

tally.finish()
