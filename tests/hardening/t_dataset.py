#!/usr/bin/python3
"""simulate --dataset FILE: a request trace (io/trace.h) in place of the random dataset.

- A trace of N lines of the same lengths, re-timed by --request-rate, runs the
  very requests --random-input-len/--random-output-len with range 0 make at the
  same seed: the same result, key for key (the trace's lengths, the generator's
  arrivals, as vllm bench serve samples a dataset and times it by its rate).
- A trace's own arrivals are sent as given (the first at 0), and its mean rate
  reported; a request arriving later starts later.
- CSV (a header, any order, the aliases) and JSONL give the same run.
- Bad lines are named by file, line and field, exit 2, nothing on stdout: a
  length that is not a whole number, an unknown column, arrivals out of order,
  a request longer than the context, a missing key, more fields than the header,
  an empty file; --random-input-len beside a trace; --num-prompts past its lines.
Usage: t_dataset.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import subprocess
import sys
import tempfile
from tally import check  # noqa: E402
import tally  # noqa: E402

K = sys.argv[1]
ENV = {"XDG_CONFIG_HOME": "/nonexistent", "PATH": "/usr/bin:/bin"}
T = tempfile.mkdtemp(prefix="kvplan-dataset-")


def write(name, text):
    p = os.path.join(T, name)
    with open(p, "w") as f:
        f.write(text)
    return p


def sim(*args):
    r = subprocess.run([K, "simulate", "--model", "llama-3.1-8b", *args, "--format", "json"],
                       capture_output=True, text=True, env=ENV, timeout=60)
    return r, (json.loads(r.stdout)["result"]["simulation"] if r.returncode == 0 else None)


KEYS = ("completed", "duration", "mean_ttft_ms", "p99_ttft_ms", "mean_tpot_ms", "p95_itl_ms",
        "mean_e2el_ms", "output_throughput", "max_running", "steps")

# the same requests: 200 lines of 1,500 + 300 against range 0 at the same seed and rate
same = write("same.csv", "input_len,output_len\n" + "1500,300\n" * 200)
_, a = sim("--dataset", same, "--request-rate", "6", "--seed", "3")
_, b = sim("--random-input-len", "1500", "--random-output-len", "300", "--num-prompts", "200",
           "--request-rate", "6", "--seed", "3")
check(a is not None and b is not None and all(a[k] == b[k] for k in KEYS),
      "a uniform trace re-timed is the random dataset's run: %s" %
      ({k: (a[k], b[k]) for k in KEYS if a and b and a[k] != b[k]}))
check(a and a["workload"]["dataset"] == same and a["workload"]["dataset_arrivals"] is False,
      "the trace named, its arrivals not sent: %s" % (a and a["workload"]))

# its own arrivals: 3 requests at 0, 10 and 20 s; the run lasts past 20 s
timed = write("timed.csv", "arrival,output_len,input_len\n0,50,500\n10,50,500\n20,50,500\n")
r, t = sim("--dataset", timed)
check(t is not None and t["duration"] > 20 and t["workload"]["dataset_arrivals"] is True and
      t["max_running"] == 1, "the trace's arrivals sent: %s" % str(t and (t["duration"], t["max_running"])))
check(t is not None and abs(t["request_rate"] - 3 / 20.0) < 1e-9,
      "its mean rate reported: %s" % (t and t["request_rate"]))
# an origin other than 0 is the same run
shifted = write("shifted.csv", "arrival,output_len,input_len\n100,50,500\n110,50,500\n120,50,500\n")
_, s = sim("--dataset", shifted)
check(s is not None and t is not None and s["duration"] == t["duration"],
      "arrivals from any origin: %s" % (s and s["duration"]))

# CSV aliases and JSONL: the same run
alias = write("alias.csv", "prompt_len,output_tokens\n800,40\n1200,60\n")
jl = write("same.jsonl", '{"input_len": 800, "output_len": 40, "text": "ignored"}\n\n# a comment\n'
           '{"input_tokens": 1200, "output_len": 60}\n')
_, c = sim("--dataset", alias, "--request-rate", "2")
_, j = sim("--dataset", jl, "--request-rate", "2")
check(c is not None and j is not None and all(c[k] == j[k] for k in KEYS),
      "CSV aliases and JSONL alike: %s" % ({k: (c[k], j[k]) for k in KEYS if c and j and c[k] != j[k]}))

bad = [
    ("e1.csv", "input_len,output_len\n1000,abc\n", [], "e1.csv:2: output_len: 'abc' is not a whole number"),
    ("e2.csv", "input_len,output\n1,2\n", [], "e2.csv:1: column 'output'"),
    ("e3.csv", "input_len,output_len,arrival\n10,10,1\n10,10,0.5\n", [], "e3.csv:3: arrival: 0.5 s, before"),
    ("e4.csv", "input_len,output_len\n10,10\n9000,100\n", [], "e4.csv:3: input_len 9000 + output_len 100 is longer than the context (--context 8192; "
     "the trace's longest request takes --context 9100)"),
    ("e5.jsonl", '{"input_len": 10}\n', [], "e5.jsonl:1: output_len: missing"),
    ("e6.csv", "input_len,output_len\n10,10,5\n", [], "e6.csv:2: more fields than the header's 2"),
    ("e7.csv", "", [], "no request in it"),
    ("e8.csv", "input_len,output_len\n10,0\n", [], "e8.csv:2: output_len: '0' is not a whole number of tokens, 1 or more"),
    ("ok.csv", "input_len,output_len\n10,10\n", ["--random-input-len", "5"], "--random-input-len: the trace"),
    ("ok.csv", "input_len,output_len\n10,10\n", ["--num-prompts", "9"], "--num-prompts 9: the trace"),
]
for name, text, extra, want in bad:
    p = write(name, text)
    r, _ = sim("--dataset", p, *extra)
    check(r.returncode == 2 and want in r.stderr and r.stdout == "",
          "%s %s: exit 2 naming it: %d %r" % (name, extra, r.returncode, r.stderr[:200]))

tally.finish()
