#!/usr/bin/python3
"""A preset id can be the model word of a launch line (a model with no
hf_id is served by its id), so an id that starts with '-' would read as an
engine option there ("vllm serve --trust-remote-code"), however well it is
quoted. Every place an id enters refuses one that does not start with a
letter or digit: import-hf --id, a user preset (model and draft), a
snapshot. Usage: t_option_ids.py path/to/kvplan; ends "N passed, N failed"."""
import json
import os
import subprocess
import sys
import tempfile

from launchlib import check, main

KVPLAN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
HERE = os.path.dirname(os.path.abspath(__file__))
TMP = tempfile.mkdtemp(prefix="kvplan-optids-")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(TMP, "config"))
BAD = ["--trust-remote-code", "-rf", ".hidden", "_x"]


def run(*args):
    return subprocess.run([KVPLAN, *args], capture_output=True, text=True, env=ENV, timeout=30)


def refused(what, out, *words):
    check(what, out.returncode == 2 and all(w in out.stderr for w in words) and
          "starting with a letter or digit" in out.stderr,
          "exit %d: %s %s" % (out.returncode, out.stderr, out.stdout[:300]))


def write(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
    return path


def import_hf():
    config = os.path.join(HERE, "..", "data", "hf", "llama-3.1-8b.json")
    for bad in BAD:
        refused("import-hf --id=%s" % bad, run("import-hf", config, "--id=" + bad), "--id")
    # an id derived from a file's name never starts with '-'
    with open(config) as f:
        cfg = json.load(f)
    cfg.pop("_name_or_path", None)
    out = run("import-hf", write(os.path.join(TMP, "-x", "--odd.json"), cfg))
    got = json.loads(out.stdout).get("id", "") if out.returncode == 0 else ""
    check("import-hf derives an id with a letter first", got[:1].isalnum(), "%r %s" % (got, out.stderr))


def presets():
    with open(os.path.join(HERE, "..", "..", "presets", "models", "llama-3.1-8b.json")) as f:
        model = json.load(f)
    with open(os.path.join(HERE, "..", "..", "presets", "models", "llama-3.2-1b.json")) as f:
        draft = json.load(f)
    for i, bad in enumerate(BAD):
        folder = os.path.join(TMP, "p%d" % i)
        write(os.path.join(folder, "m.json"), dict(model, id=bad, hf_id=""))
        refused("--presets model id %r" % bad,
                run("plan", "--presets", folder, "--model=" + bad, "--engine", "vllm"), "m.json", "id")
        folder = os.path.join(TMP, "d%d" % i)
        write(os.path.join(folder, "d.json"), dict(draft, id=bad, hf_id=""))
        refused("--presets draft id %r" % bad,
                run("plan", "--presets", folder, "--draft-model=" + bad, "--engine", "sglang"),
                "d.json", "id")


def snapshots():
    base = json.loads(run("plan", "--engine", "vllm", "--export", "-").stdout)
    for bad in BAD:
        snap = json.loads(json.dumps(base))
        snap["scenario"]["model"]["id"] = bad
        snap["scenario"]["model"]["hf_id"] = ""
        path = write(os.path.join(TMP, "snap.json"), snap)
        refused("--load model id %r" % bad, run("plan", "--load", path), "snap.json", "id")
        refused("planner --load model id %r" % bad,
                run("--dump-screen", "-", "--load", path, "--keys", "Y"), "snap.json", "id")


main((import_hf, presets, snapshots), TMP)
