#!/usr/bin/python3
"""Names, ids, labels, notes and preset sources that look like Markdown or
HTML, written by every Markdown writer (plan --format markdown, the
planner's m on a scenario and on the versus view, sweep --format markdown),
rendered by cmark-gfm (GitHub's own parser, raw HTML let through): each
must come back as the same text, in the same table cell, never as an
element, a link, a new row or a broken code span.
Usage: t_markdown.py path/to/kvplan. Ends with "N passed, N failed"."""
import atexit
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

KVPLAN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TMP = tempfile.mkdtemp(prefix="kvplan-md-")
atexit.register(shutil.rmtree, TMP, True)
ENV = dict(os.environ, XDG_CONFIG_HOME=TMP)
PRESETS = os.path.join(TMP, "presets")

MODEL = "M|<script>alert(1)</script> `x` [x](javascript:alert(1)) <b>B</b>"
# the launch line carries it; a backtick can no longer reach one (ids are Hugging Face
# ids, checked where they enter), so the code span's fences are proven in test_markdown.c
HF_ID = "org/_we_ird.name"
GPU = "G|<img src=x onerror=alert(1)> _u_ ~~s~~ # &amp; *e*"
MBU_BASIS = "fit | <b>8</b> runs [x](javascript:alert(1))"
LINK_BASIS = "PCIe | <script>x</script> `y`"
DRAFT = "D|<b>draft</b> *d*"
DRAFT_ID = "e_evil_draft_"  # an id starts with a letter or digit
LABELS = ["A|<b>B</b>", "1. `t`|*u* _v_"]
NOTES = ["<script>alert(1)</script> | [x](javascript:alert(1))",
         "<img src=x onerror=alert(1)> ~~s~~ `` ` `` # end\\"]
# what kvplan's own Markdown may render to; any other element came from input
ALLOWED = {"h3", "p", "strong", "table", "thead", "tbody", "tr", "th", "td", "code", "ul", "li"}

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok   " + name)
    else:
        failed += 1
        print("FAIL " + name + (": " + detail if detail else ""))


def run(*args):
    return subprocess.run([KVPLAN, *args], capture_output=True, text=True, env=ENV, timeout=60)


def write_presets():
    os.makedirs(PRESETS)
    src = os.path.join(ROOT, "presets")
    for kind, base, new in (("models", "llama-3.1-8b", "evil-model"),
                            ("models", "llama-3.2-1b", DRAFT_ID), ("gpus", "h100-sxm", "evil-gpu")):
        with open(os.path.join(src, kind, base + ".json")) as f:
            p = json.load(f)
        p["id"] = new
        if new == "evil-model":
            p.update(name=MODEL, hf_id=HF_ID)
        elif new == DRAFT_ID:
            p.update(name=DRAFT)
        else:
            p.update(name=GPU, achievable_mbu_basis=MBU_BASIS, host_link_basis=LINK_BASIS)
        with open(os.path.join(PRESETS, new + ".json"), "w") as f:
            json.dump(p, f)


SCENARIO = ["--presets", PRESETS, "--model", "evil-model", "--gpu", "evil-gpu", "--engine", "vllm",
            "--draft-model", DRAFT_ID, "--host-kv", "64GiB"]


class Html(html.parser.HTMLParser):
    """The elements of cmark-gfm's HTML: every tag, the tables' cells, the
    text of each heading, code span, list item and link target."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.tags, self.tables, self.h3, self.code, self.li, self.hrefs = set(), [], [], [], [], []
        self.stack = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.hrefs += [v for k, v in attrs if k in ("href", "src")]
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.tables[-1][-1].append("")
        if tag in ("td", "th", "h3", "code", "li"):
            self.stack.append([tag, ""])

    def handle_endtag(self, tag):
        if self.stack and self.stack[-1][0] == tag:
            _, text = self.stack.pop()
            if tag in ("td", "th"):
                self.tables[-1][-1][-1] = text.strip()
            else:
                getattr(self, tag).append(text.strip() if tag != "code" else text)
            if self.stack:
                self.stack[-1][1] += text

    def handle_data(self, data):
        if self.stack:
            self.stack[-1][1] += data


def render(md):
    out = subprocess.run(["cmark-gfm", "--unsafe", "-e", "table", "-e", "strikethrough",
                          "-e", "autolink"], input=md, capture_output=True, text=True, timeout=30)
    return Html(out.stdout)


def pipes(line):
    """The unescaped '|' of a table row: GFM splits the cells there."""
    n, i = 0, 0
    while i < len(line):
        if line[i] == "\\":
            i += 1
        elif line[i] == "|":
            n += 1
        i += 1
    return n


def check_markdown(what, md, h):
    tables, rows = [], []
    for line in md.split("\n") + [""]:
        if line.startswith("|"):
            rows.append(line)
        elif rows:
            tables.append(rows)
            rows = []
    bad = [r for t in tables for r in t if pipes(r) != pipes(t[0])]
    check(what + ": every table row keeps the header's columns", tables and not bad,
          "%d tables; %s" % (len(tables), bad[:2]))
    check(what + ": no element but kvplan's own", h.tags <= ALLOWED, str(h.tags - ALLOWED))
    check(what + ": no link or image at all", not h.hrefs, str(h.hrefs))
    check(what + ": no raw <script, <img or <b> in the Markdown",
          not re.search(r"<(script|img|b)\b", md, re.I), "")


def rows_named(h, first):
    return [r for t in h.tables for r in t if r and r[0] == first]


def check_scenario(what, md):
    h = render(md)
    check_markdown(what, md, h)
    check(what + ": the title reads the names", h.h3 == ["%s on 1 x %s, vLLM 0.21" % (MODEL, GPU)],
          str(h.h3))
    check(what + ": the Model cell is the model's name", rows_named(h, "Model") == [["Model", MODEL]],
          str(rows_named(h, "Model")))
    gpu = rows_named(h, "GPU")
    check(what + ": the GPU cell holds the GPU's name",
          len(gpu) == 1 and len(gpu[0]) == 2 and gpu[0][1].startswith("1 x %s (" % GPU), str(gpu))
    spec = rows_named(h, "Speculative")
    check(what + ": the Speculative cell names the draft",
          len(spec) == 1 and len(spec[0]) == 2 and
          spec[0][1].startswith("draft %s (%s)," % (DRAFT, DRAFT_ID)), str(spec))
    mbu = rows_named(h, "MBU")
    check(what + ": the MBU cell quotes the GPU's source",
          len(mbu) == 1 and len(mbu[0]) == 2 and mbu[0][1].endswith("(measured: %s)" % MBU_BASIS),
          str(mbu))
    reload = rows_named(h, "Reload one user")
    check(what + ": a formula quoting a preset keeps its three cells",
          len(reload) == 1 and len(reload[0]) == 3 and reload[0][1].endswith(LINK_BASIS), str(reload))
    return h


def check_launch(what, h):
    text = run("plan", *SCENARIO).stdout
    m = re.search(r"^  Launch +(.*)$", text, re.M)
    check(what + ": the code span holds the whole launch line", m and h.code == [m.group(1)],
          "%r vs %r" % (h.code, m and m.group(1)))


def planner_export(keys, path):
    """The planner's m, through --keys: the prompt's name is replaced by path."""
    r = run("--load", os.path.join(TMP, "session.json"), "--presets", PRESETS,
            "--dump-screen", os.path.join(TMP, "screen.txt"), "--keys", keys + path + "<Enter>")
    if r.returncode != 0 or not os.path.exists(path):
        return ""
    with open(path) as f:
        return f.read()


def write_session():
    snaps = []
    for engine in ("vllm", "sglang"):
        args = [a if a != "vllm" else engine for a in SCENARIO]
        r = run("plan", *args, "--export", "-")
        assert r.returncode == 0, r.stderr
        snaps.append(json.loads(r.stdout))
    session = dict(snaps[0])
    session["session"] = {"current": 0, "reference": 0, "scenarios": [
        {"label": LABELS[i], "note": NOTES[i], "scenario": s["scenario"], "result": s["result"]}
        for i, s in enumerate(snaps)]}
    with open(os.path.join(TMP, "session.json"), "w") as f:
        json.dump(session, f)


def main():
    if shutil.which("cmark-gfm") is None:
        check("cmark-gfm is installed (tools/packages, sh tools/setup.sh --test)", False)
        return
    write_presets()

    r = run("plan", *SCENARIO, "--format", "markdown")
    check("plan --format markdown runs", r.returncode == 0, r.stderr)
    h = check_scenario("plan", r.stdout)
    check_launch("plan", h)

    write_session()
    md = planner_export("m", os.path.join(TMP, "one.md"))
    check("the planner writes one scenario", md != "")
    check_launch("planner m", check_scenario("planner m", md))

    md = planner_export("vm", os.path.join(TMP, "versus.md"))
    check("the planner writes the versus view", md != "")
    h = render(md)
    check_markdown("versus", md, h)
    head = h.tables[0][0] if h.tables and h.tables[0] else []
    check("versus: the header cells are the labels",
          head == ["", LABELS[0] + " (reference)", LABELS[1]], str(head))
    check("versus: the Model cells are the model's name",
          rows_named(h, "Model") == [["Model", MODEL, MODEL]], str(rows_named(h, "Model")))
    gpus = rows_named(h, "GPUs")
    check("versus: the GPUs cells hold the GPU's name",
          len(gpus) == 1 and len(gpus[0]) == 3 and
          all(c.startswith("1 x %s (" % GPU) for c in gpus[0][1:]), str(gpus))
    check("versus: each note is one list item, its label and its text",
          h.li == ["%s: %s" % (LABELS[i], NOTES[i]) for i in range(2)], str(h.li))

    r = run("sweep", "--presets", PRESETS, "--model", DRAFT_ID, "--gpu", "evil-gpu",
            "--vary", "context=8k..16k", "--format", "markdown")
    check("sweep --format markdown runs", r.returncode == 0, r.stderr)
    h = render(r.stdout)
    check_markdown("sweep", r.stdout, h)
    models = [row[2] for t in h.tables for row in t[1:] if len(row) > 2]
    check("sweep: the model cells are the id", models == [DRAFT_ID] * 2, str(models))


main()
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
