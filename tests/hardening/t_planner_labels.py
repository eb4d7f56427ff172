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


LLAMA_SPLIT = ["--engine", "llama.cpp", "--model", "llama-3.1-70b", "--gpus", "12", "--tp", "4"]


def layout_titles():
    """Every title writes the layout as plan's does: "(3 x 4 GPUs, layers
    split)" for llama.cpp's layer split, the GPU and model by name."""
    title = run(["plan", *LLAMA_SPLIT]).stdout.splitlines()[0]
    check("plan's title says the layers are split", "(3 x 4 GPUs, layers split)" in title, title)
    for keys, what in (("", "the main screen"), ("x", "the explain rows' view"), ("p", "the presentation")):
        text, _ = dump(LLAMA_SPLIT, keys=keys, size="200x50")
        check("%s: (3 x 4 GPUs, layers split)" % what, "(3 x 4 GPUs, layers split)" in text, text[:600])
        check("%s: the names, as plan's title" % what,
              "NVIDIA H100 SXM5 80GB" in text and "x h100-sxm" not in text, text[:600])
    text, _ = dump(["--model", "llama-3.1-70b", "--gpus", "2"], keys="b<Right><Right>v", size="120x40")
    check("versus: the GPU and the model by name", "2 x NVIDIA H100 SXM5 80GB, TP 2" in text
          and "Llama 3.1 70B, weights bf16, bf16 cache" in text, text)
    text, _ = dump(["--model", "llama-3.1-70b", "--gpus", "2"], keys="b<Right><Right>c", size="120x40")
    check("compare: the model by name", re.search(r"Model\s+Llama 3\.1 70B\s+Llama 3\.1 70B", text), text)


def versus_markdown():
    """The versus Markdown has the first token, as the versus screen does."""
    path = os.path.join(T, "versus.md")
    dump([], keys="bn<Right><Right>vm%s<Enter>" % path)
    with open(path, encoding="utf-8") as f:
        md = f.read()
    r = [json.loads(run(["plan", "--context", c, "--format", "json"]).stdout)["result"] for c in ("8k", "32k")]
    want = "| First token | %.2f ms | %.2f ms | %.2f s (+" % (r[0]["ttft_seconds"] * 1e3, r[0]["ttft_seconds"] * 1e3,
                                                          r[1]["ttft_seconds"])
    check("versus Markdown: a First token row", want in md, md)


def engine_list_grouped():
    """Right through the Engine control: each engine's releases together,
    its newest first (as `kvplan list engines`)."""
    seen = []
    for i in range(1, 13):
        text, _ = dump([], keys="<Down>" * 6 + "<Right>" * i)  # Context -> Engine
        m = re.search(r"Engine\s+◂ (.*?) ▸", text)
        if m and (not seen or seen[-1] != m.group(1)):
            seen.append(m.group(1))
    vllm = [e for e in seen if e.startswith("vLLM")]
    check("the engine control reached vLLM's releases", len(vllm) == 5, seen)
    first = seen.index(vllm[0]) if vllm else 0
    check("vLLM's releases together, newest first",
          seen[first:first + 5] == ["vLLM 0.21", "vLLM 0.20", "vLLM 0.17", "vLLM 0.13", "vLLM V0"], seen)


def export_then_open():
    """o after an export and one change: one scenario not exported, not all."""
    path = os.path.join(T, "three.json")
    text, _ = dump([], keys="bne%s<Enter><Right>o" % path)
    check("o counts only the scenario changed since the export",
          "It replaces 1 scenario not exported" in text, text[-300:])
    text, _ = dump([], keys="bnq")
    check("q before any export counts every scenario", "Quit? 3 scenarios not exported" in text, text[-300:])


def price_digits():
    """A price below a hundredth of a cent keeps two significant digits."""
    r = json.loads(run(["plan", "--context", "2k", "--prefix", "2047", "--format", "json"]).stdout)["result"]
    want = "$%.7f/user-h" % r["cost_per_user_hour"]  # 5.8e-06: two significant digits at 7 places
    text, _ = dump(["--context", "2k", "--prefix", "2047"])
    check("the summary's price is not $0.0000", "$0.0000/user-h" not in text and want in text, text[:900])
    p = run(["plan", "--context", "2k", "--prefix", "2047"])
    check("plan's cost row: two significant digits", re.search(r"= \$0\.00000\d\d\n", p.stdout), p.stdout[-3000:])


def no_blank_row():
    """Below 30 rows the row above the key bar is the explain pane's when
    the status has nothing to say."""
    for size in ("70x22", "80x24"):
        text, _ = dump([], size=size)
        rows = text.split("--- attributes")[0].rstrip("\n").split("\n")
        check("%s: no blank row above the key bar" % size, rows[-2].strip() != "", "\n".join(rows[-4:]))
    text, _ = dump(["--context", "2k", "--prefix", "2k"], size="80x24")
    rows = text.rstrip("\n").split("\n")
    check("80x24: a status takes the row back", "reaches the context" in rows[-2], "\n".join(rows[-4:]))


def release_in_headers():
    """simulate, sweep and solve name the release, as plan does."""
    p = run(["simulate", "--engine", "vllm", "--num-prompts", "20"])
    check("simulate's header names vLLM 0.21", p.stdout.splitlines()[0].endswith(", vLLM 0.21"), p.stdout[:200])
    p = run(["sweep", "--engine", "vllm@0.13", "--vary", "context=1k..8k:2"])
    check("sweep's header names vLLM 0.13 and the names",
          p.stdout.startswith("Llama 3.1 8B on NVIDIA H100 SXM5 80GB, vLLM 0.13;"), p.stdout[:200])
    rows = json.loads(run(["sweep", "--engine", "trtllm", "--vary", "context=1k..8k:2", "--format", "json"]).stdout)
    check("sweep's JSON rows: engine_version and engine_title",
          rows[0]["engine_version"] == "1.x" and rows[0]["engine_title"] == "TensorRT-LLM 1.x", rows[0])
    rows = json.loads(run(["sweep", "--vary", "context=1k..8k:2", "--format", "json"]).stdout)
    check("sweep's JSON rows under the generic rule: null", rows[0]["engine_version"] is None
          and rows[0]["engine_title"] is None, rows[0])
    p = run(["sweep", "--engine", "vllm", "--vary", "context=1k..8k:2", "--format", "markdown"])
    check("sweep's Markdown: the release column", "| engine_version | engine_title |" in p.stdout
          and "| 0.21 | vLLM 0.21 |" in p.stdout, p.stdout[:600])
    p = run(["solve", "--engine", "sglang", "--users", "100"])
    check("solve's header names SGLang 0.5", "(SGLang 0.5)" in p.stdout.splitlines()[0], p.stdout[:200])
    j = json.loads(run(["solve", "--engine", "sglang", "--users", "100", "--format", "json"]).stdout)
    check("solve's JSON: engine_version and engine_title",
          j.get("engine_version") == "0.5" and j.get("engine_title") == "SGLang 0.5", j)


def one_format_a_column():
    """A size column keeps one number of decimals: 30.38 KiB above 120.00
    KiB, never 120 KiB (list models, sweep's table)."""
    p = run(["sweep", "--vary", "model", "--context", "8k"])
    # the first size of a row is its KV/TOKEN
    col = [m.group(1) for m in (re.search(r" ([\d,.]+) (?:B|KiB|MiB|GiB) ", ln) for ln in p.stdout.splitlines()[2:])
           if m]
    check("sweep: every KV/TOKEN with two decimals", col and all(re.match(r"^[\d,]+\.\d\d$", c) for c in col), col)
    p = run(["list", "models"])
    kv = [re.search(r"([\d,.]+) (KiB|MiB)", ln) for ln in p.stdout.splitlines()[1:]]
    check("list models: every KV/TOKEN with two decimals",
          all(m and re.match(r"^[\d,]+\.\d\d$", m.group(1)) for m in kv), p.stdout[:800])


main([kv_heads_header, prefix_held_said, layout_titles, versus_markdown, engine_list_grouped,
      export_then_open, price_digits, no_blank_row, release_in_headers, one_format_a_column], T)
