#!/usr/bin/python3
"""A second stranger's findings: a file that is not JSON at all (a password
file behind a link in a preset folder) is refused without quoting its lines;
a file to write named only by spaces is refused by every option that writes
one; solve takes one question at a time; the command y copies names its
--presets and --load by absolute paths, so it pastes from any directory.
Usage: t_review_paths.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import shlex
import subprocess
import sys
import tempfile

from launchlib import check, main

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
T = tempfile.mkdtemp(prefix="kvplan-review-paths.")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(T, "config"), LC_ALL="C.UTF-8")
HERE = os.path.dirname(os.path.abspath(__file__))


def run(args, cwd=T):
    return subprocess.run([K] + args, capture_output=True, text=True, env=ENV, cwd=cwd, timeout=60)


def copied(args):
    """The command in the Copied box after y, as one line."""
    p = run(["--dump-screen", "-", "--size", "160x48", "--keys", "y"] + args)
    rows = p.stdout.split("\n")
    start = next(i for i, r in enumerate(rows) if "If your terminal does not pass OSC 52" in r)
    lines = []
    for r in rows[start + 1:]:
        body = r[4:156].rstrip()
        if body.startswith("any key closes") or body.startswith("Note:"):
            break
        if body:
            lines.append(body)
    return " ".join(x[:-1].rstrip() if x.endswith("\\") else x for x in lines)


def not_json_is_not_quoted():
    secret = os.path.join(T, "secret")
    with open(secret, "w") as f:
        f.write("aws_access_key_id=AKIAEXAMPLE\nTOKEN=hunter2\n")
    os.makedirs(os.path.join(T, "pd", "a"))
    os.symlink(secret, os.path.join(T, "pd", "a", "s.json"))
    for args in (["plan", "--presets", "pd"], ["plan", "--load", "pd/a/s.json"]):
        p = run(args)
        check("%s: refused" % " ".join(args), p.returncode == 2 and "not valid JSON" in p.stderr,
              p.stderr)
        check("%s: no line of the file quoted" % " ".join(args),
              "AKIA" not in p.stderr + p.stdout and "hunter2" not in p.stderr + p.stdout, p.stderr)
    # a real JSON mistake still shows its line
    with open(os.path.join(T, "broken.json"), "w") as f:
        f.write('{"format": "kvplan-scenario",\n "x": tru }\n')
    p = run(["plan", "--load", "broken.json"])
    check("a JSON mistake still quotes its line", p.returncode == 2 and "tru }" in p.stderr, p.stderr)


def spaces_are_no_file_name():
    cfg = os.path.join(HERE, "..", "data", "hf", "llama-3.1-8b.json")
    for args, opt in ((["plan", "--export", "   "], "--export"),
                      (["import-hf", cfg, "-o", "  "], "--output"),
                      (["--dump-screen", " "], "--dump-screen"),
                      (["calibrate", os.path.join(HERE, "..", "data", "logs", "vllm-03.log"),
                        "--model", "llama-3-8b", "--save", "  "], "--save")):
        p = run(args)
        check("%s: refused" % opt, p.returncode == 2 and opt in p.stderr and "only spaces" in p.stderr,
              p.stderr)
    check("no file named by spaces was written",
          not any(n.strip() == "" for n in os.listdir(T)), repr(os.listdir(T)))


def solve_asks_one_question():
    p = run(["solve", "--users", "500", "--max-context", "--utilization", "--engine", "vllm"])
    check("solve --max-context --utilization: refused", p.returncode == 2 and
          "give one of them" in p.stderr, p.stderr + p.stdout)


def copied_paths_are_absolute():
    with open(os.path.join(HERE, "..", "..", "presets", "models", "llama-3.1-8b.json")) as f:
        model = json.load(f)
    os.makedirs(os.path.join(T, "my presets"))
    with open(os.path.join(T, "my presets", "m.json"), "w") as f:
        json.dump(dict(model, id="my-model", name="My model", num_layers=40), f)
    line = copied(["--presets", "my presets", "--model", "my-model"])
    words = shlex.split(line)
    i = words.index("--presets") if "--presets" in words else -1
    check("y: --presets is absolute", i > 0 and words[i + 1] == os.path.join(T, "my presets"), line)
    elsewhere = tempfile.mkdtemp(prefix="kvplan-elsewhere.")
    p = subprocess.run([K, "plan", "--format", "json"] + words[2:], capture_output=True, text=True,
                       env=ENV, cwd=elsewhere, timeout=60)
    check("y: pasted in another directory, it plans", p.returncode == 0, p.stderr)
    os.rmdir(elsewhere)


main((not_json_is_not_quoted, spaces_are_no_file_name, solve_asks_one_question,
      copied_paths_are_absolute), T)
