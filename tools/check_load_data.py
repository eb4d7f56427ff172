#!/usr/bin/python3
"""check_load_data: the structure of tests/data/load-measurements.json.

The file holds public latency-under-load measurements (doc/FORMATS.md, "Load
measurements"): points, each one serving configuration at one load, grouped
into sweeps (one configuration at several request rates or concurrencies).
This script checks what a validation of kvplan's serving simulator relies on:
every field present and of the right type, the model and GPU ids in kvplan's
catalogue (`kvplan list models|gpus --format json`), the parallel layout
adding up to the GPU count, the figures positive, every sweep of at least
three points of one configuration whose load (request rate or concurrency)
increases from point to point.

Prints `load data: N points in M sweeps, all valid` and exits 0; otherwise one
line per problem, `FILE: point ID: FIELD: what`, and exits 1. A file that is
not JSON, or a kvplan that cannot list its catalogue, exits 2.

Usage: check_load_data.py KVPLAN DATA.json
"""
import json
import math
import re
import subprocess
import sys

FORMAT, VERSION = "kvplan-load-measurements", 1
ENGINES = {"vllm", "sglang", "trtllm", "nim", "tgi", "llama.cpp", "lmdeploy"}
DTYPES = {"fp32", "fp16", "bf16", "fp8", "int8", "int4", "fp4", "nvfp4", "mxfp4"}
# Fields every point of a sweep shares: the configuration that is held fixed.
CONFIG = ("engine", "engine_version", "gpu", "gpus", "tp", "pp", "dp", "ep", "model",
          "weight_dtype", "kv_dtype", "dataset", "input_len", "output_len", "range_ratio")
LOAD = ("request_rate", "max_concurrency")
TEXT = ("id", "sweep", "engine_version", "gpu_in_source", "model_in_source", "dataset", "source")
OPTIONAL_TEXT = ("derived", "server_args", "notes", "config_url")
# may be left out: the prompts an earlier run on the server had sent, and where that is shown
OPTIONAL_FIELDS = ("warm_prompts", "warm_prompts_source")
REQUIRED = (TEXT + CONFIG + LOAD + OPTIONAL_TEXT
            + ("num_prompts", "metrics", "url", "date", "quote"))
COUNTS = ("completed", "total_input_tokens", "total_output_tokens")
RATES = ("duration", "request_throughput", "output_throughput", "total_token_throughput",
         "max_output_tokens_per_s", "max_concurrent_requests")
LATENCIES = tuple("%s_%s_ms" % (stat, what) for what in ("ttft", "tpot", "itl", "e2el")
                  for stat in ("mean", "median", "std", "p90", "p99"))
METRICS = set(COUNTS + RATES + LATENCIES + ("failed",))
DATE = re.compile(r"^(\d{4}-\d{2}-\d{2}|n\.d\.)")
QUOTE_MAX = 300


class Problems:
    """Collects `FILE: point ID: FIELD: what` lines."""

    def __init__(self, path):
        self.path, self.lines = path, []

    def add(self, point, field, what):
        self.lines.append("%s: point %s: %s: %s" % (self.path, point, field, what))


def fail_input(message):
    sys.stderr.write("check_load_data: %s\n" % message)
    sys.exit(2)


def catalogue(kvplan, kind):
    """The ids kvplan lists for `kind` (models or gpus)."""
    try:
        out = subprocess.run([kvplan, "list", kind, "--format", "json"], capture_output=True,
                             text=True, timeout=60)
    except OSError as err:
        fail_input("%s: %s" % (kvplan, err))
    if out.returncode != 0:
        fail_input("%s list %s: %s" % (kvplan, kind, out.stderr.strip()))
    return {entry["id"] for entry in json.loads(out.stdout)}


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as err:
        fail_input("%s: %s" % (path, err.strerror))
    except json.JSONDecodeError as err:
        fail_input("%s:%d: not JSON: %s" % (path, err.lineno, err.msg))


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return (isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(v))


def positive_int(v):
    return is_int(v) and v > 0


def check_layout(p, pid, bad, ids):
    """Engine, GPU, parallel layout, model and precisions."""
    if p["engine"] not in ENGINES:
        bad.add(pid, "engine", "%r is not one of %s" % (p["engine"], ", ".join(sorted(ENGINES))))
    if p["gpu"] not in ids["gpus"]:
        bad.add(pid, "gpu", "%r is not a kvplan GPU id (kvplan list gpus)" % p["gpu"])
    if p["model"] not in ids["models"]:
        bad.add(pid, "model", "%r is not a kvplan model id (kvplan list models)" % p["model"])
    sizes_ok = True
    for field in ("gpus", "tp", "pp", "dp", "ep"):
        if not positive_int(p[field]):
            bad.add(pid, field, "must be a positive integer, got %r" % (p[field],))
            sizes_ok = False
    if sizes_ok and p["tp"] * p["pp"] * p["dp"] != p["gpus"]:
        bad.add(pid, "gpus", "tp x pp x dp = %d, not %d" % (p["tp"] * p["pp"] * p["dp"], p["gpus"]))
    if sizes_ok and p["ep"] > p["gpus"]:
        bad.add(pid, "ep", "%d is more than the %d GPUs" % (p["ep"], p["gpus"]))
    if p["weight_dtype"] not in DTYPES:
        bad.add(pid, "weight_dtype", "%r is not one of %s" % (p["weight_dtype"], ", ".join(sorted(DTYPES))))
    if p["kv_dtype"] is not None and p["kv_dtype"] not in DTYPES:
        bad.add(pid, "kv_dtype", "%r is neither null nor one of %s" % (p["kv_dtype"], ", ".join(sorted(DTYPES))))


def check_workload(p, pid, bad):
    """Dataset, lengths, load and prompt count."""
    random = p["dataset"] == "random"
    for field in ("input_len", "output_len"):
        v = p[field]
        if v is None and random:
            bad.add(pid, field, "a random dataset needs its length")
        elif v is not None and not positive_int(v):
            bad.add(pid, field, "must be a positive integer or null, got %r" % (v,))
    ratio = p["range_ratio"]
    if ratio is None and random:
        bad.add(pid, "range_ratio", "a random dataset needs its range ratio")
    elif ratio is not None and not (is_num(ratio) and 0 <= ratio <= 1):
        bad.add(pid, "range_ratio", "must be a number from 0 to 1 or null, got %r" % (ratio,))
    rate = p["request_rate"]
    if rate != "inf" and not (is_num(rate) and rate > 0):
        bad.add(pid, "request_rate", "must be a positive number or \"inf\", got %r" % (rate,))
    conc = p["max_concurrency"]
    if conc is not None and not positive_int(conc):
        bad.add(pid, "max_concurrency", "must be a positive integer or null, got %r" % (conc,))
    if p["num_prompts"] is not None and not positive_int(p["num_prompts"]):
        bad.add(pid, "num_prompts", "must be a positive integer or null, got %r" % (p["num_prompts"],))
    warm = p.get("warm_prompts")
    if warm is not None and not (positive_int(warm) and p["num_prompts"] and warm <= p["num_prompts"]):
        bad.add(pid, "warm_prompts", "must be a positive integer at most num_prompts, or null, "
                "got %r" % (warm,))
    if "warm_prompts" in p and not (isinstance(p.get("warm_prompts_source"), str)
                                    and p["warm_prompts_source"]):
        bad.add(pid, "warm_prompts_source", "must say where warm_prompts comes from")


def check_metrics(p, pid, bad):
    """The figures: known vLLM result keys, numbers above zero."""
    metrics = p["metrics"]
    if not isinstance(metrics, dict):
        bad.add(pid, "metrics", "must be an object")
        return
    given = 0
    for key, v in metrics.items():
        field = "metrics." + key
        if key not in METRICS:
            bad.add(pid, field, "not a vllm bench serve result key this format knows")
        elif v is None:
            continue
        elif key in COUNTS + ("failed",) and not is_int(v):
            bad.add(pid, field, "must be an integer, got %r" % (v,))
        elif not is_num(v):
            bad.add(pid, field, "must be a number, got %r" % (v,))
        elif v < 0 or (v == 0 and key != "failed"):
            bad.add(pid, field, "must be positive, got %r" % (v,))
        else:
            given += 1
    if given == 0:
        bad.add(pid, "metrics", "no figure given")
    done, prompts = metrics.get("completed"), p["num_prompts"]
    if is_int(done) and is_int(prompts) and done > prompts:
        bad.add(pid, "metrics.completed", "%d is more than num_prompts %d" % (done, prompts))


def check_citation(p, pid, bad):
    for field in TEXT:
        if not isinstance(p[field], str) or not p[field].strip():
            bad.add(pid, field, "must be a non-empty string")
    for field in OPTIONAL_TEXT:
        if p[field] is not None and not (isinstance(p[field], str) and p[field].strip()):
            bad.add(pid, field, "must be a non-empty string or null")
    if not (isinstance(p["url"], str) and p["url"].startswith("https://")):
        bad.add(pid, "url", "must be an https:// address")
    if not (isinstance(p["date"], str) and DATE.match(p["date"])):
        bad.add(pid, "date", "must start with YYYY-MM-DD or n.d., got %r" % (p["date"],))
    quote = p["quote"]
    if not (isinstance(quote, str) and quote.strip()):
        bad.add(pid, "quote", "must be a non-empty string")
    elif len(quote) > QUOTE_MAX:
        bad.add(pid, "quote", "%d characters, at most %d" % (len(quote), QUOTE_MAX))


def check_point(p, index, bad, ids):
    """One point; returns its id, or None when it is not checkable."""
    if not isinstance(p, dict):
        bad.add("#%d" % index, "-", "must be an object")
        return None
    pid = p.get("id") if isinstance(p.get("id"), str) and p.get("id") else "#%d" % index
    missing = [f for f in REQUIRED if f not in p]
    for field in missing:
        bad.add(pid, field, "missing")
    for field in sorted(set(p) - set(REQUIRED) - set(OPTIONAL_FIELDS)):
        bad.add(pid, field, "not a field of this format")
    if missing:
        return None
    check_citation(p, pid, bad)
    check_layout(p, pid, bad, ids)
    check_workload(p, pid, bad)
    check_metrics(p, pid, bad)
    return pid


def load_value(v, field):
    """A load as a number for ordering: "inf" rate and null concurrency are unbounded."""
    if (field == "request_rate" and v == "inf") or (field == "max_concurrency" and v is None):
        return math.inf
    return v if is_num(v) else None


def check_sweep(name, members, bad):
    """members: the sweep's points in file order."""
    first = members[0]
    if len(members) < 3:
        bad.add(first["id"], "sweep", "sweep %s has %d point(s), at least 3 are needed" % (name, len(members)))
    for p in members[1:]:
        for field in CONFIG:
            if p[field] != first[field]:
                bad.add(p["id"], field, "%r differs from %r in %s, the sweep's first point"
                        % (p[field], first[field], first["id"]))
    varying = [f for f in LOAD if len({json.dumps(p[f]) for p in members}) > 1]
    if len(varying) != 1:
        what = "both the request rate and the concurrency vary" if varying else "the load never changes"
        bad.add(members[-1]["id"], "sweep", "sweep %s: %s" % (name, what))
        return
    axis = varying[0]
    for prev, p in zip(members, members[1:]):
        a, b = load_value(prev[axis], axis), load_value(p[axis], axis)
        if a is not None and b is not None and not b > a:
            bad.add(p["id"], axis, "%r does not increase on %r of %s" % (p[axis], prev[axis], prev["id"]))


def check(doc, bad, ids):
    """Returns the number of points and of sweeps."""
    if not isinstance(doc, dict):
        bad.add("-", "-", "the document must be an object")
        return 0, 0
    if doc.get("format") != FORMAT or doc.get("format_version") != VERSION:
        bad.add("-", "format", "must be %r version %d" % (FORMAT, VERSION))
    points = doc.get("points")
    if not isinstance(points, list) or not points:
        bad.add("-", "points", "must be a non-empty list")
        return 0, 0
    sweeps, seen = {}, set()
    for index, p in enumerate(points):
        pid = check_point(p, index, bad, ids)
        if pid is None:
            continue
        if pid in seen:
            bad.add(pid, "id", "used by an earlier point")
        seen.add(pid)
        if isinstance(p["sweep"], str):
            sweeps.setdefault(p["sweep"], []).append(p)
    for name, members in sweeps.items():
        check_sweep(name, members, bad)
    return len(points), len(sweeps)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: check_load_data.py KVPLAN DATA.json\n")
        return 2
    kvplan, path = argv[1], argv[2]
    ids = {"models": catalogue(kvplan, "models"), "gpus": catalogue(kvplan, "gpus")}
    bad = Problems(path)
    n_points, n_sweeps = check(load(path), bad, ids)
    if bad.lines:
        print("\n".join(bad.lines))
        print("load data: %d problem(s)" % len(bad.lines))
        return 1
    print("load data: %d points in %d sweeps, all valid" % (n_points, n_sweeps))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
