#!/usr/bin/python3
"""The planner's labels say what the controls hold, and say it the way the
CLI does: the model line follows the KV heads control (MQA at one head)
under every engine, a prefix the options held is said on the status line,
titles and names agree with the CLI's. The live planner on a pseudo-terminal
(tests/e2e/ptyterm.py) where a frame follows another, --dump-screen where one
frame is enough. Usage: t_planner_labels.py path/to/kvplan.
Ends with "N passed, N failed"."""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from launchlib import check, main  # noqa: E402
from ptyterm import PtyTerm  # noqa: E402

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
T = tempfile.mkdtemp(prefix="kvplan-planner-labels.")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(T, "config"), LC_ALL="C.UTF-8")
ENV.pop("NO_COLOR", None)


def run(args):
    return subprocess.run([K] + args, capture_output=True, text=True, env=ENV, cwd=T, timeout=60)


def dump(args, keys="", size="120x30"):
    screen = os.path.join(T, "screen.txt")
    p = run(["--dump-screen", screen, "--size", size, "--keys", keys, *args])
    with open(screen, encoding="utf-8") as f:
        return f.read(), p


def live(args, cols=120, rows=30):
    t = PtyTerm([K, *args], cols=cols, rows=rows, env=ENV)
    t.wait_for(r"^\? help  q quit")
    return t


def kv_heads_header():
    """The model line names the KV heads the control holds, after each step
    (the line is kept between frames and was kept past a KV heads change)."""
    for engine in ("generic", "vllm", "llama.cpp"):
        t = live(["--engine", engine])
        try:
            t.press(t.cap("kcud1"))  # Context -> KV heads
            t.press(t.cap("khome"))  # the fewest: one KV head
            text = t.text()
            check("%s: the header says MQA at one KV head" % engine,
                  "MQA 1 KV / 32 heads" in text and "GQA 8 KV" not in text, text[:400])
            check("%s: the control says the same" % engine, re.search(r"KV heads .* 1 \(MQA\)", text),
                  text[:900])
            t.press(t.cap("kend"))  # as many as the attention heads
            text = t.text()
            check("%s: the header says MHA at 32" % engine, "MHA 32 KV / 32 heads" in text, text[:400])
            r = json.loads(run(["plan", "--engine", engine, "--kv-heads", "32", "--format", "json"]).stdout)
            generic = r["result"].get("generic")
            if generic:  # an engine's plan shows the headroom rule's figure beside its own
                check("%s: the generic rule's figure follows the control" % engine,
                      "generic rule (10%% headroom): %s" % format(generic["max_users"], ",") in text,
                      text[:1200])
        finally:
            t.kill()
    p = run(["plan", "--kv-heads", "1"])
    check("plan: the model line says MQA at one KV head", "MQA, 1 KV heads / 32 attention heads" in p.stdout,
          p.stdout[:600])


def prefix_held_said():
    """A --prefix that reaches --context: plan and sweep note it on stderr,
    and the planner on its status line, the Prefix control still asking for
    the whole prefix (a longer context gives it back)."""
    text, p = dump(["--context", "2k", "--prefix", "2k"])
    check("the planner notes the held prefix on its status line",
          "Prefix 2,048 (2k) reaches the context: held to 2,047" in text, text[-600:])
    text, p = dump(["--context", "2k", "--prefix", "2k"], keys="<Right>")
    check("a longer context gives the prefix back", "Prefix 2,048 (2k) is back" in text, text[-600:])
    text, p = dump(["--context", "4k", "--prefix", "2k"])
    check("a prefix the context holds: nothing said", "reaches the context" not in text, text[-600:])


main([kv_heads_header, prefix_held_said], T)
