#!/usr/bin/python3
"""Every launch line and command line kvplan prints or copies is one shell
command with exactly the words meant, and whole: the text, JSON and Markdown
reports, the Y and y boxes of the planner (pasted line by line, as a user
selects them), the clipboard (OSC 52) and calibrate's hint. Each line goes
through a real /bin/sh (set -- LINE; printf each word) and through
shlex.split, which must agree; a copied `kvplan plan` line, pasted back,
plans the same scenario. Usage: t_launch_lines.py path/to/kvplan; ends with
"N passed, N failed"."""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

from launchlib import check, main

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from ptyterm import PtyTerm  # noqa: E402

KVPLAN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
PRESETS = os.path.join(HERE, "..", "..", "presets", "models")
LOGS = os.path.join(HERE, "..", "data", "logs")
TMP = tempfile.mkdtemp(prefix="kvplan-lines-")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(TMP, "config"))
ENV.pop("NO_COLOR", None)
USER_PRESETS = os.path.join(TMP, "config", "kvplan", "presets")
ODD = "Org_1/My.Model-v2_x"        # legal Hugging Face ids, odd ones
ODD_DRAFT = "_d_/Draft.v1"
LONG_ID = ("a-model-whose-preset-id-is-as-long-as-kvplan-takes-" + "x" * 20)[:63]
LONG_HF = "Some-Organisation_with.a.long.name/" + ("A-Model.Name_" * 8)[:59] + "z"  # 95 bytes
MANY = ["--engine", "vllm", "--gpus", "4", "--tp", "2", "--context", "32k", "--kv-dtype", "fp8",
        "--prefix", "2k", "--avg-context", "4k", "--price", "2.5", "--draft-model", "llama-3.2-1b",
        "--num-speculative-tokens", "4", "--gpu-memory-utilization", "0.85", "--max-num-seqs",
        "300", "--concurrency", "100", "--min-tok-s", "20", "--max-ttft", "2", "--mbu", "0.6",
        "--mfu", "0.4", "--host-kv", "64GiB", "--prefix-hit-rate", "0.5", "--max-loras", "4",
        "--max-lora-rank", "64", "--lora-target-modules",
        "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj", "--images", "2",
        "--image-tokens", "300"]



def run(*args):
    return subprocess.run([KVPLAN, *args], capture_output=True, text=True, env=ENV, timeout=30)


def sh_words(text):
    """The words a POSIX shell reads from text pasted after `set --`
    (PATH emptied: were anything to run, it would not be found)."""
    script = "set -- " + text + "\nprintf '%s\\0' \"$@\"\n"
    out = subprocess.run(["/bin/sh", "-c", script], capture_output=True,
                         env={"PATH": "/nonexistent"}, timeout=10)
    assert out.returncode == 0, out.stderr
    return out.stdout.decode().split("\0")[:-1]


def one_command(what, line, words=None):
    """line is one command, sh and shlex agree on its words (and they are `words`)."""
    got = sh_words(line)
    check(what + ": sh and shlex agree", got == shlex.split(line, comments=True),
          "%s\nsh:    %s\nshlex: %s" % (line, got, shlex.split(line, comments=True)))
    if words is not None:
        check(what + ": the words meant", got[:len(words)] == words, "%s\n%s" % (got, words))
    return got


def write_preset(file, source, **fields):
    with open(os.path.join(PRESETS, source + ".json")) as f:
        preset = json.load(f)
    preset.update(fields)
    with open(os.path.join(USER_PRESETS, file + ".json"), "w") as f:
        json.dump(preset, f)


def box(screen, cols):
    """The lines of the Copied box, as a user selects them."""
    rows = screen.split("\n")
    start = next(i for i, r in enumerate(rows) if "If your terminal does not pass OSC 52" in r)
    lines = []
    for r in rows[start + 1:]:
        body = r[4:cols - 4].rstrip()
        if body.startswith("any key closes"):
            break
        if body:
            lines.append(body)
    assert lines and not any("more lines" in x for x in lines), lines
    return "\n".join(lines)


def dump_box(key, cols, args):
    out = run("--dump-screen", "-", "--size", "%dx40" % cols, "--keys", key, *args)
    assert out.returncode == 0, out.stderr
    return box(out.stdout, cols)


def plan_json(args):
    out = run("plan", "--format", "json", *args)
    assert out.returncode == 0, "kvplan plan %s: %s" % (" ".join(args), out.stderr)
    return json.loads(out.stdout)


ENGINES = {
    "vllm": ["--draft-model", "odd-draft", "--max-loras", "2", "--lora-target-modules",
             "q_proj,v_proj", "--host-kv", "16GiB", "--prefix", "1k"],
    "sglang": ["--draft-model", "odd-draft", "--max-loras", "2", "--gpus", "2", "--tp", "1"],
    "trtllm": ["--draft-model", "odd-draft", "--kv-dtype", "fp8", "--gpus", "2", "--tp", "1"],
    "llama.cpp": ["--draft-model", "odd-draft", "--gpus", "2", "--tp", "1"],
}
MODEL_WORDS = {"vllm": ["vllm", "serve", ODD],
               "sglang": ["python", "-m", "sglang.launch_server", "--model-path", ODD],
               "trtllm": ["trtllm-serve", ODD],
               "llama.cpp": ["llama-server", "-m", "odd.model_v2-x.gguf"]}


def launch_lines():
    """Text, JSON and Markdown give the same line; it is one command whose
    model is one word; vLLM's draft config is JSON naming the draft."""
    for engine, extra in ENGINES.items():
        args = ["--model", "odd.model_v2-x", "--engine", engine, *extra]
        line = plan_json(args)["result"]["engine"]["launch"]
        text = run("plan", *args).stdout
        m = re.search(r"^  Launch +(.*)$", text, re.M)
        check(engine + ": text report's line", m and m.group(1) == line, text[-400:])
        md = run("plan", "--format", "markdown", *args).stdout
        m = re.search(r"^Launch: (`+) ?(.*?) ?\1$", md, re.M)
        check(engine + ": Markdown's line", m and m.group(2) == line, md[-400:])
        words = one_command(engine + " launch", line, MODEL_WORDS[engine])
        if engine == "vllm":
            spec = json.loads(words[words.index("--speculative-config") + 1])
            check("vllm: the draft in its JSON", spec["model"] == ODD_DRAFT, spec)
            i = words.index("--lora-target-modules")
            check("vllm: each module a word", words[i + 1:i + 4] == ["q_proj", "k_proj", "v_proj"],
                  words)
        if engine == "sglang":
            i = words.index("--speculative-draft-model-path")
            check("sglang: the draft one word", words[i + 1] == ODD_DRAFT, words)
        # the Y box at 72 columns breaks long words; pasted, it is the same command,
        # or over several servers each server's (engine.launch_servers), one by one
        servers = plan_json(args)["result"]["engine"].get("launch_servers")
        want = [sh_words(c) for c in servers] if servers else [words]
        for cols in (72, 120):
            commands, part = [], []
            for line in dump_box("Y", cols, args).split("\n"):
                if line.lstrip().startswith("#") and commands and not part:
                    continue  # a remark's next line: no words of a command
                part.append(line)
                if not line.endswith("\\"):
                    commands.append("\n".join(part))
                    part = []
            pasted = [sh_words(c) for c in commands]
            check("%s: Y box at %d columns pastes as the line" % (engine, cols),
                  pasted == want, "%s\n%s" % (pasted, want))


def copied_command():
    """y with a long id and every kind of flag: the box and the clipboard
    hold the whole command, which plans the same scenario again."""
    args = ["--model", LONG_ID, *MANY]
    want = plan_json(args)
    for cols in (80, 100, 160):
        words = sh_words(dump_box("y", cols, args))
        check("y box at %d columns: kvplan plan" % cols, words[:2] == ["kvplan", "plan"], words)
        got = plan_json(words[2:])
        check("y box at %d columns plans the same" % cols,
              got["scenario"] == want["scenario"] and
              got["result"]["max_users"] == want["result"]["max_users"],
              "%s\nusers %s, not %s" % (words, got["result"]["max_users"],
                                        want["result"]["max_users"]))
    t = PtyTerm([KVPLAN, *args], cols=100, rows=30, env=ENV)
    try:
        t.wait_for(r"^\? help  q quit")
        before = len(t.raw)
        t.press("y")
        t.wait_for(r"Copied to the clipboard")
        line = t.osc52(before)
        check("y sends OSC 52", line != "", line)
        words = one_command("the clipboard's command", line, ["kvplan", "plan"])
        got = plan_json(words[2:])
        check("the clipboard's command plans the same",
              got["scenario"] == want["scenario"] and
              got["result"]["max_users"] == want["result"]["max_users"], line)
    finally:
        t.kill()
    # the launch line of that scenario is whole too: its last flag is there
    line = want["result"]["engine"]["launch"]
    words = one_command("the long launch line", line, ["vllm", "serve", LONG_HF])
    check("the long launch line is whole", words[-2:] == ["--kv-offloading-size", "128"], words)


def calibrate_hint():
    """calibrate --save names the file in the command it suggests: one word."""
    folder = os.path.join(TMP, "a dir; $(x) `y`")
    os.makedirs(folder)
    path = os.path.join(folder, "it's cal.json")
    out = run("calibrate", os.path.join(LOGS, "vllm-03.log"), "--model", "llama-3-8b", "--gpu",
              "a100-40gb", "--save", path)
    m = re.search(r"\(use: (kvplan plan .*)\)$", out.stdout, re.M)
    check("calibrate suggests a command", out.returncode == 0 and m, out.stdout + out.stderr)
    words = one_command("calibrate's command", m.group(1),
                        ["kvplan", "plan", "--model", "llama-3-8b", "--gpu", "a100-40gb",
                         "--calibration", path])
    check("calibrate's command runs", run(*words[1:]).returncode == 0, words)


def setup():
    os.makedirs(USER_PRESETS)
    write_preset("odd", "llama-3.1-8b", id="odd.model_v2-x", name="Odd", hf_id=ODD)
    write_preset("odd-draft", "llama-3.2-1b", id="odd-draft", name="Odd draft", hf_id=ODD_DRAFT)
    write_preset("long", "llama-3.1-8b", id=LONG_ID, name="Long", hf_id=LONG_HF)


main((launch_lines, copied_command, calibrate_hint), TMP, setup)
