"""The command y copies, pasted back, plans the users on the screen, or the
Copied box says why it cannot: with --presets DIR, with a snapshot whose
model is no catalogue entry (an id of its own, or a catalogue id with other
numbers), with a scenario of a session, after an export, and when the file
no longer holds the scenario. Each copied line is split with shlex and run
as `kvplan plan --format json`, as a user pastes it.

Usage: t_review_copy.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import shlex
import subprocess
import sys
import tempfile

from launchlib import check, main

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from ptyterm import PtyTerm  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
T = tempfile.mkdtemp(prefix="kvplan-review-copy.")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(T, "config"), LC_ALL="C.UTF-8")
ENV.pop("NO_COLOR", None)
MODEL = os.path.join(HERE, "..", "..", "presets", "models", "llama-3.1-8b.json")
PRESETS = os.path.join(T, "my presets")  # a space: the copied --presets is quoted


def run(args):
    return subprocess.run([K] + args, capture_output=True, text=True, env=ENV, cwd=T, timeout=60)


def users(args):
    """max_users of `kvplan plan ARGS`, or None when it fails."""
    p = run(["plan", "--format", "json"] + args)
    return json.loads(p.stdout)["result"]["max_users"] if p.returncode == 0 else None


def copied(args, keys="y"):
    """The Copied box after the keys: (the command, as one line; the note)."""
    p = run(["--dump-screen", "-", "--size", "120x40", "--keys", keys] + args)
    rows = p.stdout.split("\n")
    start = next(i for i, r in enumerate(rows) if "If your terminal does not pass OSC 52" in r)
    lines, note = [], ""
    for r in rows[start + 1:]:
        body = r[4:116].rstrip()
        if body.startswith("any key closes"):
            break
        if body.startswith("Note:") or note:
            note += " " + body.strip()
        elif body:
            lines.append(body)
    # the box wraps a long command with " \" at each line's end
    return " ".join(x[:-1].rstrip() if x.endswith("\\") else x for x in lines), note.strip()


def pasted_plans(what, planner_args, want, keys="y"):
    """y's command, pasted, plans `want` users, and no note says otherwise."""
    line, note = copied(planner_args, keys)
    words = shlex.split(line)
    got = users(words[2:]) if words[:2] == ["kvplan", "plan"] else None
    check(what + ": the pasted command plans the screen's users", got == want,
          "%s\nusers %s, not %s; note %r" % (line, got, want, note))
    check(what + ": no note", note == "", note)
    return words


def write(name, doc):
    path = os.path.join(T, name)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    return name  # relative: the planner and the pasted command run in T


def user_presets():
    """--presets DIR with a model of the user's own: the copy names the directory."""
    with open(MODEL, encoding="utf-8") as f:
        model = json.load(f)
    model.update(id="my-user-model", name="Mine", num_layers=64)
    os.makedirs(PRESETS)
    with open(os.path.join(PRESETS, "mine.json"), "w", encoding="utf-8") as f:
        json.dump(model, f)
    args = ["--presets", PRESETS, "--model", "my-user-model"]
    want = users(["--presets", PRESETS, "--model", "my-user-model"])
    words = pasted_plans("--presets", args, want)
    check("--presets: named, quoted, once", words.count("--presets") == 1 and PRESETS in words,
          words)


def loaded_snapshots():
    """A snapshot whose model is its own: an id of its own, or the catalogue's
    id with other numbers (the catalogue's would give twice the users)."""
    base = run(["plan", "--model", "llama-3.1-8b", "--export", "base.json"])
    check("a snapshot to edit", base.returncode == 0, base.stderr)
    with open(os.path.join(T, "base.json"), encoding="utf-8") as f:
        doc = json.load(f)
    custom = json.loads(json.dumps(doc))
    custom["scenario"]["model"]["id"] = "my-custom"
    f = write("custom id.json", custom)
    pasted_plans("a snapshot's own model id", ["--load", f], users(["--load", f]))
    deeper = json.loads(json.dumps(doc))
    deeper["scenario"]["model"]["num_layers"] = 64
    f = write("layers.json", deeper)
    want = users(["--load", f])
    check("64 layers plan other users than the catalogue's 32", want != users([]), want)
    pasted_plans("a snapshot's own layers", ["--load", f], want)
    # changed in the planner, still the file's model: the file and the change
    pasted_plans("a snapshot's own layers, context changed", ["--load", f, "--context", "16k"],
                 users(["--load", f, "--context", "16k"]))
    pasted_plans("a snapshot's own layers, then n", ["--load", f], want, keys="ny")
    pasted_plans("a snapshot's own layers, opened with o", [], want, keys="o%s<Enter>y" % f)
    clipboard(os.path.join(T, f), want)
    # a GPU of the snapshot's own, the model the catalogue's
    gpu = json.loads(json.dumps(doc))
    for key in ("memory_bytes", "cuda_visible_bytes"):
        gpu["scenario"]["gpu"][key] //= 2
    f = write("half gpu.json", gpu)
    pasted_plans("a snapshot's own GPU", ["--load", f], users(["--load", f]))
    return deeper


def clipboard(path, want):
    """On a real terminal, what y sends the clipboard (OSC 52) plans the same."""
    t = PtyTerm([K, "--load", path], cols=100, rows=30, env=ENV)
    try:
        t.wait_for(r"q quit")
        before = len(t.raw)
        t.press("y")
        t.wait_for(r"Copied to the clipboard")
        line = t.osc52(before)
        words = shlex.split(line)
        check("the clipboard's command plans the same",
              words[:2] == ["kvplan", "plan"] and users(words[2:]) == want, line)
    except AssertionError as e:
        check("the clipboard's command", False, str(e)[-400:])
    finally:
        t.kill()


def sessions(deeper):
    """A scenario of a session: --load FILE --scenario LABEL."""
    base = run(["--dump-screen", "screen.txt", "--keys", "netwo.json<Enter>"])
    with open(os.path.join(T, "two.json"), encoding="utf-8") as f:
        doc = json.load(f)
    for entry in doc["session"]["scenarios"]:
        entry["scenario"]["model"] = deeper["scenario"]["model"]
    doc["session"]["scenarios"][0]["scenario"]["context_tokens"] = 32768
    doc["session"]["scenarios"][0]["label"] = "long one"
    doc["scenario"] = doc["session"]["scenarios"][doc["session"]["current"]]["scenario"]
    f = write("two.json", doc)
    check("a session to load", base.returncode == 0 and users(["--load", f]), base.stderr)
    pasted_plans("a session's current scenario", ["--load", f], users(["--load", f]))
    want = users(["--load", f, "--scenario", "long one"])
    words = pasted_plans("a session's other scenario (1)", ["--load", f], want, keys="1y")
    check("the session's scenario is named", "--scenario" in words and "long one" in words, words)
    pasted_plans("--scenario given to the planner", ["--load", f, "--scenario", "long one"], want)


def not_in_the_file():
    """The file holds the model, not the change (its fp8 KV cache turned back
    to auto, which no option says): the box says the command plans the
    catalogue's model; exported with e, the copy loads the export."""
    base = run(["plan", "--model", "llama-3.1-8b", "--kv-dtype", "fp8", "--export", "fp8.json"])
    with open(os.path.join(T, "fp8.json"), encoding="utf-8") as f:
        doc = json.load(f)
    doc["scenario"]["model"]["num_layers"] = 64
    f = write("fp8.json", doc)
    args = ["--load", f, "--kv-dtype", "auto"]
    line, note = copied(args)
    got = users(shlex.split(line)[2:])
    check("a change the file does not hold: the catalogue's model, said",
          base.returncode == 0 and "the catalogue's llama-3.1-8b, not this scenario's model" in note,
          "%s\n%r" % (line, note))
    check("... and the note is true: other users", got != users(args), (got, users(args)))
    pasted_plans("exported with e, then y", args, users(args), keys="eexported.json<Enter>y")
    # no preset has the id at all: the box says the command fails
    doc["scenario"]["model"]["id"] = "nowhere"
    f = write("nowhere.json", doc)
    line, note = copied(["--load", f, "--kv-dtype", "auto"])
    check("an id no preset has: said", "no preset is nowhere" in note, "%s\n%r" % (line, note))


main((user_presets, lambda: sessions(loaded_snapshots()), not_in_the_file), T)
