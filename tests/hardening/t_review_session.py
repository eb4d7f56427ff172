"""A session's top-level scenario is a copy of its current one (for readers
of single snapshots, doc/FORMATS.md): a file where the two differ is
refused by `plan --load` and by the planner, naming the file, the field and
both values, rather than one of them winning unsaid. The reference may be
the current scenario: the planner writes that (b, then back to the
reference), so it loads.

Usage: t_review_session.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import subprocess
import sys
import tempfile

from launchlib import check, main

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
T = tempfile.mkdtemp(prefix="kvplan-review-session.")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(T, "config"), LC_ALL="C.UTF-8")
ENV.pop("NO_COLOR", None)


def run(args):
    return subprocess.run([K] + args, capture_output=True, text=True, env=ENV, cwd=T, timeout=60)


def planner_export(keys, name):
    run(["--dump-screen", os.path.join(T, "screen.txt"), "--keys", keys + "e%s<Enter>" % name])
    with open(os.path.join(T, name), encoding="utf-8") as f:
        return json.load(f)


def write(name, doc):
    with open(os.path.join(T, name), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
    return name


def refused(what, doc, field, top, current):
    f = write(what.replace(" ", "-") + ".json", doc)
    for args in (["plan", "--load", f], ["--dump-screen", "s.txt", "--load", f],
                 ["plan", "--load", f, "--scenario", "A"]):
        p = run(args)
        how = " ".join(a for a in args if a != f)
        check("%s: %s: exit 2" % (what, how), p.returncode == 2,
              "exit %d\n%s" % (p.returncode, p.stdout[:300]))
        check("%s: %s: names the file, field and both values" % (what, how),
              f in p.stderr and field in p.stderr and top in p.stderr and current in p.stderr,
              p.stderr)


def top_level():
    doc = planner_export("n", "two.json")  # current: the second, at 8k
    check("the planner's export loads", run(["plan", "--load", "two.json"]).returncode == 0)
    cur = doc["session"]["current"]
    context = dict(doc)
    context["scenario"] = json.loads(json.dumps(doc["scenario"]))
    context["scenario"]["context_tokens"] = 16384
    refused("context differs", context, "context_tokens", "16384", "8192")
    layers = json.loads(json.dumps(doc))
    layers["scenario"]["model"]["num_layers"] = 64
    refused("model differs", layers, "model.num_layers", "64", "32")
    gone = json.loads(json.dumps(doc))
    gone["scenario"]["kv_dtype"] = "fp8"
    refused("kv dtype differs", gone, "kv_dtype", '"fp8"', '"auto"')
    # the same scenario written another way (a null for an absent field) is the same
    same = json.loads(json.dumps(doc))
    same["scenario"].pop("avg_context_tokens", None)
    same["session"]["scenarios"][cur]["scenario"]["avg_context_tokens"] = None
    p = run(["plan", "--load", write("same.json", same)])
    check("the same scenario, written another way: loads", p.returncode == 0, p.stderr)


def reference_is_current():
    doc = planner_export("b1", "ref.json")
    s = doc["session"]
    check("the planner writes reference == current", s["reference"] == s["current"], s)
    p = run(["plan", "--load", "ref.json"])
    check("and it loads", p.returncode == 0, p.stderr)


main((top_level, reference_is_current), T)
