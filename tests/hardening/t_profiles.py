#!/usr/bin/python3
"""--dataset NAME: the length profiles compiled in (presets/datasets/), and the
Azure trace format read as it is downloaded.

- kvplan list datasets: each profile's requests and lengths (mean, median,
  p90, max) as computed here from presets/datasets/*.csv, its source and
  license; --format json the same figures.
- simulate --dataset azure-conv-2023: the workload names the profile, counts
  its requests and those the context leaves (computed here), its lengths the
  means of those (computed here); the same seed the same bytes, another seed
  other requests; the requests beyond the context are left out with a note.
- solve and sweep take a profile (named in their heads and solve's JSON),
  refuse a trace file; simulate --disaggregated takes a profile and a trace
  (each request checked against both pools by its line; its arrivals kept).
- A trace in the Azure format (TIMESTAMP,ContextTokens,GeneratedTokens) runs
  at its own arrivals: the rate its mean; a date that is none is named by
  file, line and field.
- Refused with exit 2 and nothing on stdout: a name that is neither a profile
  nor a file, --random-input-len beside a profile, a context no request fits.
Usage: t_profiles.py KVPLAN. Ends with "N passed, N failed"."""
import csv
import json
import os
import subprocess
import sys
import tempfile
from tally import check  # noqa: E402
import tally  # noqa: E402

K = sys.argv[1]
ENV = {"XDG_CONFIG_HOME": "/nonexistent", "PATH": "/usr/bin:/bin"}
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
T = tempfile.mkdtemp(prefix="kvplan-profiles-")


def run(*args):
    return subprocess.run([K, *args], capture_output=True, text=True, env=ENV, timeout=120)


def rows(name):
    with open(os.path.join(ROOT, "presets", "datasets", name + ".csv")) as f:
        lines = [l for l in f if not l.startswith("#")]
    return [(int(r["input_len"]), int(r["output_len"])) for r in csv.DictReader(lines)]


def quantile(v, q):
    s = sorted(v)
    return s[int(q * (len(s) - 1) + 0.5)]


conv, code, kimi = rows("azure-conv-2023"), rows("azure-code-2023"), rows("kimi-conv-2025")

# list datasets: the figures computed here
r = run("list", "datasets", "--format", "json")
listed = {d["name"]: d for d in json.loads(r.stdout)} if r.returncode == 0 else {}
for name, req in (("azure-conv-2023", conv), ("azure-code-2023", code), ("kimi-conv-2025", kimi)):
    d = listed.get(name, {})
    ins, outs = [a for a, _ in req], [b for _, b in req]
    want = {"requests": len(req),
            "input": {"mean": sum(ins) / len(ins), "median": quantile(ins, .5),
                      "p90": quantile(ins, .9), "max": max(ins)},
            "output": {"mean": sum(outs) / len(outs), "median": quantile(outs, .5),
                       "p90": quantile(outs, .9), "max": max(outs)}}
    got = {k: d.get(k) for k in want}
    ok = got["requests"] == want["requests"] and all(
        abs(got[s][k] - want[s][k]) < 1e-6 for s in ("input", "output") for k in want[s]
        if got.get(s))
    source, licence = ("Mooncake", "Apache-2.0") if name.startswith("kimi") else \
        ("AzurePublicDataset", "CC-BY")
    check(ok and source in d.get("source", "") and licence in d.get("license", ""),
          "list datasets %s: %s against %s" % (name, got, want))
# Mooncake's README: 12,031 requests, inputs of 12,035 on average, outputs of 343
check(len(kimi) == 12031 and round(sum(a for a, _ in kimi) / len(kimi)) == 12035 and
      round(sum(b for _, b in kimi) / len(kimi)) == 343, "kimi-conv-2025 as Mooncake's README says")
r = run("list", "datasets")
check(r.returncode == 0 and "azure-conv-2023" in r.stdout and "19366" in r.stdout and
      "Splitwise" in r.stdout, "list datasets as text: %s" % r.stdout[:300])


def sim(*args):
    r = run("simulate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", *args, "--format", "json")
    return r, (json.loads(r.stdout)["result"]["simulation"] if r.returncode == 0 else None)


# the context leaves those of at most 2,048 tokens; the lengths their means
r, a = sim("--dataset", "azure-conv-2023", "--context", "2048", "--num-prompts", "300",
           "--request-rate", "8", "--seed", "5")
fit = [(x, y) for x, y in conv if x + y <= 2048]
w = a["workload"] if a else {}
check(w.get("dataset") == "azure-conv-2023" and w.get("dataset_requests") == len(conv) and
      w.get("dataset_requests_fitting") == len(fit) and w.get("dataset_arrivals") is False,
      "the profile named and counted: %s (%d fit)" % (w, len(fit)))
check(w.get("random_input_len") == round(sum(x for x, _ in fit) / len(fit)) and
      w.get("random_output_len") == round(sum(y for _, y in fit) / len(fit)),
      "its lengths the means of those that fit: %s" % w)
left = len(conv) - len(fit)
check("%s of its 19,366 requests are left out" % format(left, ",") in r.stderr,
      "the note of those left out: %s" % r.stderr)
# each request is one of those that fit: none has more than 2,048 tokens
check(a and a["completed"] == 300 and a["total_input_tokens"] + a["total_output_tokens"] <=
      300 * 2048, "300 requests completed, within the context: %s" %
      str(a and (a["completed"], a["total_input_tokens"])))
r2, b = sim("--dataset", "azure-conv-2023", "--context", "2048", "--num-prompts", "300",
            "--request-rate", "8", "--seed", "5")
check(r.stdout == r2.stdout, "the same seed, the same bytes")
_, c = sim("--dataset", "azure-conv-2023", "--context", "2048", "--num-prompts", "300",
           "--request-rate", "8", "--seed", "6")
check(c and c["total_input_tokens"] != a["total_input_tokens"],
      "another seed, other requests: %s" % (c and c["total_input_tokens"]))
# the code profile's prompts are long, its answers short
_, k = sim("--dataset", "azure-code-2023", "--num-prompts", "500", "--request-rate", "2")
check(k and k["total_input_tokens"] / k["completed"] > 1500 and
      k["total_output_tokens"] / k["completed"] < 60,
      "azure-code-2023: long prompts, short answers: %s" %
      str(k and (k["total_input_tokens"] / k["completed"], k["total_output_tokens"] / k["completed"])))

# solve and sweep draw from a profile; a trace file is simulate's
r = run("solve", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--dataset", "azure-conv-2023",
        "--request-rate", "10", "--goodput", "ttft:1000", "--max-gpus", "2", "--format", "json")
j = json.loads(r.stdout) if r.returncode == 0 else {}
check(j.get("dataset") == "azure-conv-2023" and j.get("solved") is True,
      "solve --dataset: %s" % {k: j.get(k) for k in ("dataset", "solved", "random_input_len")})
r = run("solve", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--dataset", "azure-conv-2023",
        "--request-rate", "10", "--goodput", "ttft:1000", "--max-gpus", "2")
check(r.returncode == 0 and "of azure-conv-2023's requests, means" in r.stdout.splitlines()[0],
      "solve's head names the profile: %s" % r.stdout[:200])
r = run("sweep", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--dataset", "azure-code-2023",
        "--vary", "request-rate=1,2", "--num-prompts", "100")
check(r.returncode == 0 and "drawn from azure-code-2023" in r.stdout.splitlines()[0],
      "sweep's head names the profile: %s" % r.stdout[:200])
trace = os.path.join(T, "t.csv")
with open(trace, "w") as f:
    f.write("input_len,output_len\n100,10\n200,20\n")
for cmd in (["solve", "--request-rate", "1", "--goodput", "ttft:1000"],
            ["sweep", "--vary", "request-rate=1,2"]):
    r = run(cmd[0], "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--dataset", trace, *cmd[1:])
    check(r.returncode == 2 and r.stdout == "" and "length profile" in r.stderr,
          "%s refuses a trace file: %d %s" % (cmd[0], r.returncode, r.stderr))
r = run("simulate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--disaggregated",
        "--dataset", "azure-conv-2023", "--request-rate", "5", "--num-prompts", "100")
check(r.returncode == 0 and "drawn from azure-conv-2023" in r.stdout,
      "simulate --disaggregated draws from a profile: %s" % r.stderr)
# a trace on both pools: its requests and arrivals, as one deployment runs them
timed = os.path.join(T, "timed.csv")
with open(timed, "w") as f:
    f.write("input_len,output_len,arrival\n1000,50,0\n2000,40,5\n")
r = run("simulate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--disaggregated",
        "--dataset", timed, "--format", "json")
j = json.loads(r.stdout)["result"]["simulation"] if r.returncode == 0 else {}
check(j.get("completed") == 2 and j.get("total_input_tokens") == 3000 and
      j.get("duration", 0) > 5 and j.get("workload", {}).get("dataset_arrivals") is True and
      j.get("aggregated", {}).get("completed") == 2,
      "simulate --disaggregated runs a trace at its arrivals: %s" %
      {k: j.get(k) for k in ("completed", "total_input_tokens", "duration")})
r = run("simulate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--disaggregated",
        "--dataset", timed, "--context", "1500")
check(r.returncode == 2 and r.stdout == "" and timed + ":3:" in r.stderr,
      "a trace line longer than the context under --disaggregated: %s" % r.stderr)

# the Azure format, as downloaded: its own arrivals, 3 requests over 2 s
az = os.path.join(T, "AzureLLMInferenceTrace_conv.csv")
with open(az, "w") as f:
    f.write("TIMESTAMP,ContextTokens,GeneratedTokens\n"
            "2023-11-16 18:15:46.6805900,374,44\n"
            "2023-11-16 18:15:47.6805900,396,109\n"
            "2023-11-16 18:15:48.6805900,879,28\n")
r, t = sim("--dataset", az)
check(t and t["workload"]["dataset_arrivals"] is True and
      abs(t["workload"]["request_rate"] - 1.5) < 1e-9 and t["completed"] == 3 and
      t["total_input_tokens"] == 374 + 396 + 879,
      "an Azure trace at its own arrivals: %s" % (t and t["workload"]))
# across midnight and a month's end: 2023-11-30 23:59:59.5 to 2023-12-01 00:00:00.5
with open(az, "w") as f:
    f.write("TIMESTAMP,ContextTokens,GeneratedTokens\n"
            "2023-11-30 23:59:59.5,100,10\n2023-12-01T00:00:00.5Z,100,10\n")
r, t = sim("--dataset", az)
check(t and abs(t["workload"]["request_rate"] - 2.0) < 1e-9,
      "a date across midnight: %s" % (t and t["workload"]["request_rate"]))
with open(az, "w") as f:
    f.write("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,374,44\n"
            "2023-13-16 18:15:47,396,109\n")
r, _ = sim("--dataset", az)
check(r.returncode == 2 and r.stdout == "" and az + ":3: arrival:" in r.stderr,
      "a month 13 named by file, line and field: %s" % r.stderr)

# Mooncake's JSONL as released (FAST25-release/README.md): input_length, output_length,
# hash_ids, the timestamp in milliseconds: 3 requests over 3 s
mc = os.path.join(T, "conversation_trace.jsonl")
with open(mc, "w") as f:
    f.write('{"timestamp": 0, "input_length": 6758, "output_length": 50, "hash_ids": [0, 1]}\n'
            '{"timestamp": 1500, "input_length": 7322, "output_length": 40, "hash_ids": [0, 2]}\n'
            '{"timestamp": 3000, "input_length": 900, "output_length": 30, "hash_ids": []}\n')
r, t = sim("--dataset", mc, "--context", "16k")
check(t and t["workload"]["dataset_arrivals"] is True and
      abs(t["workload"]["request_rate"] - 1.0) < 1e-9 and t["total_input_tokens"] == 14980 and
      "2 requests name a prefix_id" in r.stderr,
      "a Mooncake trace: milliseconds, its lengths, its shared blocks counted: %s %s" %
      (t and t["workload"], r.stderr))

# dates that are none (2023 no leap year, November of 30 days, a 60th second) and a
# trace mixing seconds and dates, named by file and line; a UTF-8 byte order mark and
# quoted header fields read; a JSON array said to be one
for lines, bad in ((["2023-02-28 23:59:59", "2023-02-29 00:00:01"], ":3: arrival:"),
                   (["2023-11-16 18:15:46", "2023-11-31 18:15:50"], ":3: arrival:"),
                   (["2023-11-16 18:15:46", "2023-11-16 18:15:60.5"], ":3: arrival:"),
                   (["0", "2023-11-16 00:00:01"], ":3: arrival: a date and time where line 2 "
                    "gave seconds")):
    with open(az, "w") as f:
        f.write("TIMESTAMP,ContextTokens,GeneratedTokens\n" +
                "".join("%s,100,10\n" % t for t in lines))
    r, _ = sim("--dataset", az)
    check(r.returncode == 2 and r.stdout == "" and az + bad in r.stderr,
          "%s refused by line: %s" % (lines, r.stderr))
with open(az, "w") as f:
    f.write("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,100,10\n"
            "2023-11-16 18:15:50,100,10\n2023-11-16 18:15:48.5,100,10\n")
r, _ = sim("--dataset", az)
check(r.returncode == 2 and "2.500 s after line 2's, before the line above's 4.000 s" in r.stderr,
      "dates out of order said from the first: %s" % r.stderr)
with open(az, "w", encoding="utf-8-sig") as f:
    f.write('"input_len","output_len"\n100,10\n"200",20\n')
r, t = sim("--dataset", az)
check(t and t["completed"] == 2 and t["total_input_tokens"] == 300,
      "a byte order mark and quoted fields: %s" % r.stderr)
with open(az, "w") as f:
    f.write('[{"input_len": 100, "output_len": 10}]\n')
r, _ = sim("--dataset", az)
check(r.returncode == 2 and "a JSON array" in r.stderr, "a JSON array: %s" % r.stderr)
# --burstiness shapes --request-rate's gaps: refused without one (a burst, a trace's times)
for args in (["--burstiness", "0.5"], ["--burstiness", "0.5", "--dataset", timed]):
    r, _ = sim(*args)
    check(r.returncode == 2 and "--burstiness" in r.stderr and "give --request-rate" in r.stderr,
          "%s refused: %s" % (args, r.stderr))

# refused
for args, want in ((["--dataset", "azure-conv"], "nor a length profile (azure-code-2023, "
                    "azure-conv-2023, kimi-conv-2025"),
                   (["--dataset", "azure-conv-2023", "--random-input-len", "500"],
                    "--random-input-len: the length profile azure-conv-2023"),
                   (["--dataset", "azure-code-2023", "--context", "8"],
                    "none of its 8,819 requests fits the context")):
    r, _ = sim(*args)
    check(r.returncode == 2 and r.stdout == "" and want in r.stderr,
          "%s refused: %d %s" % (" ".join(args), r.returncode, r.stderr))

tally.finish()
