#!/usr/bin/python3
"""tools/check_load_data.py on tests/data/load-measurements.json and on broken
copies of it: the real file passes; each break (a missing field, an id outside
kvplan's catalogue, a layout that does not add up, a figure that is not
positive, a sweep too short, of mixed configuration or of falling load, a
duplicate id, a random dataset without its lengths, a file that is not JSON)
fails with the offending point's id and field named.
Usage: t_load_data.py path/to/kvplan. Ends with "N passed, N failed"."""
import atexit
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from boundscheck import Checks  # noqa: E402

KVPLAN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
SCRIPT = os.path.join(HERE, "..", "..", "tools", "check_load_data.py")
DATA = os.path.join(HERE, "..", "data", "load-measurements.json")
DOC = json.load(open(DATA, encoding="utf-8"))
TMP = tempfile.mkdtemp(prefix="kvplan-load-")
atexit.register(shutil.rmtree, TMP, True)
C = Checks()
check = C.check


def run_on(text):
    path = os.path.join(TMP, "data.json")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return subprocess.run(["/usr/bin/python3", SCRIPT, KVPLAN, path], capture_output=True,
                          text=True, timeout=120)


def sweep_points(doc, kind):
    """The points of the first sweep whose points vary in `kind`, in file order."""
    by_sweep = {}
    for p in doc["points"]:
        by_sweep.setdefault(p["sweep"], []).append(p)
    return next(m for m in by_sweep.values() if len({json.dumps(p[kind]) for p in m}) > 1)


def broken(what, edit, point_id, field, status=1):
    """Runs the checker on a copy changed by edit(doc) -> None; it must fail naming
    point_id and field."""
    doc = copy.deepcopy(DOC)
    edit(doc)
    out = run_on(json.dumps(doc))
    line = "point %s: %s:" % (point_id, field)
    check(out.returncode == status and line in out.stdout,
          "%s: want status %d and '%s', got %d: %s%s" % (what, status, line, out.returncode,
                                                         out.stdout[-600:], out.stderr[-300:]))


def first(doc):
    return doc["points"][0]


ok = run_on(json.dumps(DOC))
n_sweeps = len({p["sweep"] for p in DOC["points"]})
check(ok.returncode == 0 and "%d points in %d sweeps, all valid" % (len(DOC["points"]), n_sweeps)
      in ok.stdout, "the real file passes: %d %s%s" % (ok.returncode, ok.stdout, ok.stderr))
check(len(DOC["points"]) >= 40 and n_sweeps >= 6,
      "at least 40 points in 6 sweeps: %d in %d" % (len(DOC["points"]), n_sweeps))

P0 = DOC["points"][0]["id"]
broken("missing field", lambda d: first(d).pop("engine_version"), P0, "engine_version")
broken("unknown field", lambda d: first(d).update(concurrency=4), P0, "concurrency")
broken("model outside the catalogue", lambda d: first(d).update(model="llama-9-1t"), P0, "model")
broken("GPU outside the catalogue", lambda d: first(d).update(gpu="h900"), P0, "gpu")
broken("layout not adding up", lambda d: first(d).update(dp=first(d)["dp"] * 2), P0, "gpus")
broken("negative figure", lambda d: first(d)["metrics"].update(mean_ttft_ms=-1.0), P0,
       "metrics.mean_ttft_ms")
broken("zero figure", lambda d: first(d)["metrics"].update(output_throughput=0), P0,
       "metrics.output_throughput")
broken("unknown metric key", lambda d: first(d)["metrics"].update(mean_ttft_s=0.5), P0,
       "metrics.mean_ttft_s")
broken("no figure at all", lambda d: first(d).update(metrics={}), P0, "metrics")
broken("bad request rate", lambda d: first(d).update(request_rate="fast"), P0, "request_rate")
broken("long quote", lambda d: first(d).update(quote="x" * 301), P0, "quote")
broken("bad date", lambda d: first(d).update(date="last spring"), P0, "date")

RANDOM = next(p["id"] for p in DOC["points"] if p["dataset"] == "random")
broken("random dataset without its length",
       lambda d: next(p for p in d["points"] if p["id"] == RANDOM).update(input_len=None),
       RANDOM, "input_len")

CONC = [p["id"] for p in sweep_points(DOC, "max_concurrency")]
RATE = [p["id"] for p in sweep_points(DOC, "request_rate")]


def edit_point(pid, **fields):
    return lambda d: next(p for p in d["points"] if p["id"] == pid).update(fields)


def swap(ids):
    """Swaps the first two points of a sweep in the file: its load then falls."""
    def edit(d):
        i = [n for n, p in enumerate(d["points"]) if p["id"] in ids[:2]]
        d["points"][i[0]], d["points"][i[1]] = d["points"][i[1]], d["points"][i[0]]
    return edit


broken("concurrency falling", swap(CONC), CONC[0], "max_concurrency")
broken("request rate falling", swap(RATE), RATE[0], "request_rate")
C0 = next(p for p in DOC["points"] if p["id"] == CONC[0])["max_concurrency"]
broken("load repeated", edit_point(CONC[1], max_concurrency=C0), CONC[1], "max_concurrency")
broken("mixed configuration in a sweep", edit_point(CONC[1], engine_version="9.9.9"), CONC[1],
       "engine_version")
broken("both loads varying", edit_point(CONC[1], request_rate=4), CONC[-1], "sweep")
broken("duplicate id", edit_point(CONC[1], id=CONC[0]), CONC[0], "id")
broken("sweep of two points",
       lambda d: d.update(points=[p for p in d["points"] if p["id"] not in CONC[2:]]),
       CONC[0], "sweep")

out = run_on(json.dumps(DOC)[:-40])
check(out.returncode == 2 and "not JSON" in out.stderr and ":1:" in out.stderr,
      "a file that is not JSON: status 2 naming the line, got %d: %s" % (out.returncode, out.stderr))

C.finish()
