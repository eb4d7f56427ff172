#!/usr/bin/python3
"""The SVG picture against the plan it draws: to standard output it is the
whole output (as --export - is), the snapshot and the picture never both
there; a plan that does not fit labelled with the text report's
percentages (of the GPU's memory), its overflow marked, its chart saying no
user fits; a long title wrapped, never clipped; the layout in the picture's
title and the Markdown heading as in the text report's title.

Usage: t_svg_export.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

from launchlib import check, main

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
T = tempfile.mkdtemp(prefix="kvplan-svgx.")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(T, "config"), LC_ALL="C.UTF-8")
NS = "{http://www.w3.org/2000/svg}"
NOFIT = ["--model", "llama-3.1-405b", "--gpus", "4"]
LONG = ["--model", "qwen3-next-80b-a3b", "--gpu", "gh200-144gb", "--gpus", "12", "--tp", "4",
        "--engine", "trtllm", "--context", "128k"]
SPLIT = ["--model", "llama-3.1-70b", "--gpus", "12", "--tp", "4", "--engine", "llamacpp"]
PP = ["--model", "llama-3.1-70b", "--gpus", "4", "--tp", "2", "--pp", "2", "--engine", "vllm"]


def run(args):
    return subprocess.run([K] + args, capture_output=True, text=True, timeout=60, env=ENV)


def svg(args, name):
    path = os.path.join(T, name + ".svg")
    p = run(["plan", "--export-svg", path] + args)
    check(name + ": exit 0", p.returncode == 0, p.stderr)
    return ET.parse(path).getroot(), p.stdout


def title_of(root):
    t = [e for e in root.iter(NS + "text") if e.get("class") == "title"]
    return t[0] if t else None


def test_to_standard_output():
    """--export-svg - (or /dev/stdout): the SVG alone, whatever the format"""
    for dest in ("-", "/dev/stdout"):
        for fmt in ("text", "json", "markdown"):
            p = run(["plan", "--format", fmt, "--export-svg", dest])
            try:
                ok = ET.fromstring(p.stdout).tag == NS + "svg"
                why = ""
            except ET.ParseError as e:
                ok, why = False, str(e)
            check("--export-svg %s --format %s: the SVG alone" % (dest, fmt),
                  p.returncode == 0 and ok, why + p.stdout[-200:])
    for a, b in (("-", "-"), ("/dev/stdout", "-"), ("-", "/dev/stdout")):
        p = run(["plan", "--export", a, "--export-svg", b])
        check("--export %s --export-svg %s: refused, exit 2 naming both" % (a, b),
              p.returncode == 2 and "--export " in p.stderr and "--export-svg" in p.stderr and
              p.stdout == "", "%d %r %r" % (p.returncode, p.stderr, p.stdout[:80]))
    p = run(["plan", "--export", "-", "--export-svg", os.path.join(T, "side.svg")])
    check("--export - with the picture to a file: the JSON alone",
          p.returncode == 0 and "result" in json.loads(p.stdout), p.stderr)


def test_does_not_fit():
    """the percentages the text report's, the overflow marked, the chart saying none fits"""
    root, _ = svg(NOFIT, "nofit")
    text = run(["plan"] + NOFIT).stdout
    want = {m.group(1): m.group(2) for m in
            re.finditer(r"^  (.+?) +[0-9,.]+ [KMGTP]?i?B +([0-9.]+) %$", text, re.M)}
    got = {}
    for t in root.iter(NS + "text"):
        m = re.match(r"^(.+?)  [0-9,.]+ [KMGTP]?i?B  \(([0-9.]+) %\)$", t.text or "")
        if t.get("class") == "legend" and m:
            got[m.group(1)] = m.group(2)
    check("does not fit: the legend's percentages the report's",
          got and all(want.get(k) == v for k, v in got.items()) and
          got.get("weights") == want.get("weights"), "%s\n%s" % (want, got))
    over = [e for e in root.iter() if e.get("class") == "over-capacity"]
    rule = [e for e in root.iter() if e.get("class") == "capacity"]
    label = [e.text for e in root.iter(NS + "text") if e.get("class") == "over-capacity-label"]
    by = re.search(r"^  over by +(\S+ \S+)$", text, re.M)
    check("does not fit: the capacity marked on the bar, over by the report's figure",
          len(over) == 1 and len(rule) == 1 and by and label == ["over capacity by " + by.group(1)],
          "%s %s" % (label, by))
    chart = [e.text for e in root.iter(NS + "text") if e.get("class") == "chart-title"]
    check("does not fit: the chart says no user fits", len(chart) == 1 and
          "no user fits at any context" in chart[0] and "peak 0" not in chart[0], chart)
    root, _ = svg(["--model", "llama-3.1-70b", "--gpus", "4"], "fits")
    check("a plan that fits: no overflow marked",
          not [e for e in root.iter() if e.get("class") in ("over-capacity", "capacity")])


def test_long_title():
    """a title longer than the width holds: two lines, the whole of it, none too long"""
    root, _ = svg(LONG, "long")
    t = title_of(root)
    spans = [s.text for s in t.iter(NS + "tspan")] if t is not None else []
    first = run(["plan"] + LONG).stdout.splitlines()[0].split(": ", 1)[1]
    whole = " ".join(spans)
    check("long title: on two lines", len(spans) == 2, spans)
    check("long title: the whole title, engine and context", whole == first + " at 128k tokens",
          "%r %r" % (whole, first))
    size = float(t.get("font-size")) if t is not None else 0
    check("long title: each line within the width (70 characters at 18 px)",
          spans and all(len(s) * size <= 70 * 18 for s in spans), "%s %s" % (spans, size))
    height = float(root.get("height"))
    bottom = max(float(e.get("y")) for e in root.iter(NS + "text") if e.get("y"))
    check("long title: the picture taller for it", bottom < height, "%s %s" % (bottom, height))
    root, _ = svg(["--model", "llama-3.1-70b", "--gpus", "4"], "short")
    t = title_of(root)
    check("a short title: one line", t is not None and not list(t.iter(NS + "tspan")) and
          t.text.startswith("Llama 3.1 70B on 4 x"))


def test_layout_in_titles():
    """the layout in brackets in the picture's title and the Markdown heading,
    as in the text report's title"""
    for args, layout in ((LONG, "(3 x TP 4)"), (SPLIT, "(3 x 4 GPUs, layers split)"),
                         (PP, "(1 x TP 2 x PP 2)")):
        text = run(["plan"] + args).stdout.splitlines()[0]
        check("text title has " + layout, layout in text, text)
        md = run(["plan", "--format", "markdown"] + args).stdout.splitlines()[0]
        check("Markdown heading has " + layout, md.startswith("### ") and
              md[4:] == text.split(": ", 1)[1], "%r %r" % (md, text))
        root, _ = svg(args, "layout")
        t = title_of(root)
        whole = " ".join(s.strip() for s in t.itertext()) if t is not None else ""
        check("SVG title has " + layout, layout in whole, whole)
    md = run(["plan", "--format", "markdown", "--model", "llama-3.1-70b", "--gpus", "4"]).stdout
    check("one replica: no brackets in the heading", "(" not in md.splitlines()[0], md[:100])


main([test_to_standard_output, test_does_not_fit, test_long_title, test_layout_in_titles], T)
