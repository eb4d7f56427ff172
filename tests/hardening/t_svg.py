#!/usr/bin/python3
"""The SVG picture (--export-svg, and g in the planner): well-formed XML,
every memory segment the plan has listed with its name and size as the text
report prints them, its bytes those of the plan's JSON, the chart's points
and mark the users the plan gives at those contexts, its ticks labelled; and
a failed export leaves the file that was there as it was.

Usage: t_svg.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

from launchlib import check, main

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
T = tempfile.mkdtemp(prefix="kvplan-svg.")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(T, "config"), LC_ALL="C.UTF-8")
NS = "{http://www.w3.org/2000/svg}"

SCENARIOS = {
    "draft-prefix": ["--model", "llama-3.1-70b", "--gpus", "4", "--engine", "vllm",
                     "--context", "32k", "--prefix", "2k", "--draft-model", "llama-3.2-1b"],
    "hybrid": ["--model", "qwen3-next-80b-a3b", "--gpus", "4", "--engine", "vllm"],
    "mla": ["--model", "deepseek-v3.2", "--gpu", "h200", "--gpus", "8", "--engine", "vllm",
            "--context", "64k"],
    "service-level": ["--context", "64k", "--min-tok-s", "40", "--units", "gb"],
    "does-not-fit": ["--model", "llama-3.1-70b", "--gpus", "1"],
}


def run(args, **kw):
    return subprocess.run([K] + args, capture_output=True, text=True, timeout=60, env=ENV, **kw)


def report_rows(text):
    """The text report's memory rows: name -> size as printed."""
    rows = {}
    for m in re.finditer(r"^  (.+?) +([0-9,.]+ [KMGTP]?i?B) +[0-9.]+ %$", text, re.M):
        rows[m.group(1)] = m.group(2)
    return rows


def one(name, args):
    svg = os.path.join(T, name + ".svg")
    p = run(["plan", "--format", "json", "--export-svg", svg] + args)
    check(name + ": exit 0", p.returncode == 0, p.stderr)
    if p.returncode != 0:
        return
    plan = json.loads(p.stdout)["result"]
    try:
        root = ET.parse(svg).getroot()
    except ET.ParseError as e:
        check(name + ": well-formed XML", False, str(e))
        return
    check(name + ": an svg", root.tag == NS + "svg", root.tag)
    segs = {r.get("data-segment"): int(r.get("data-bytes"))
            for r in root.iter(NS + "rect") if r.get("class") == "segment"}
    legend = {t.get("data-segment"): t.text for t in root.iter(NS + "text")
              if t.get("class") == "legend"}
    check(name + ": a legend row for every segment", set(segs) == set(legend),
          "%s %s" % (sorted(segs), sorted(legend)))
    # the bytes are the plan's
    # with what the engine holds whole beside them (vLLM's router gates, MLA copies)
    held = plan.get("engine", {}).get("held_extra_bytes", 0)
    check(name + ": weights and draft = weights_bytes_per_gpu + held_extra_bytes",
          segs.get("weights", 0) + segs.get("draft", 0) == plan["weights_bytes_per_gpu"] + held,
          "%s %s %s" % (segs, plan["weights_bytes_per_gpu"], held))
    check(name + ": the reserved = reserved_bytes_per_gpu",
          segs.get("reserved", 0) == plan["reserved_bytes_per_gpu"])
    check(name + ": the runtime = runtime_bytes_per_gpu",
          segs.get("runtime", 0) == plan["runtime_bytes_per_gpu"])
    if plan["weights_fit"]:
        check(name + ": the parts = memory_bytes_per_gpu",
              sum(segs.values()) == plan["memory_bytes_per_gpu"],
              "%d %d" % (sum(segs.values()), plan["memory_bytes_per_gpu"]))
        check(name + ": the KV used = kv_used_bytes_per_gpu",
              segs.get("users", 0) + segs.get("prefix", 0) + segs.get("state", 0) <=
              plan["kv_used_bytes_per_gpu"])
    # every segment of the text report with bytes, its name and size as printed
    text = run(["plan"] + args).stdout
    rows = {k: v for k, v in report_rows(text).items() if v != "0 B"}
    shown = {}
    for t in legend.values():
        m = re.match(r"^(.+?)  ([0-9,.]+ [KMGTP]?i?B)  \(", t)
        if m:
            shown[m.group(1)] = m.group(2)
    check(name + ": every segment of the report, named and sized as there",
          all(shown.get(k) == v for k, v in rows.items()) and
          all(rows.get(k, v) == v for k, v in shown.items()) and len(rows) > 0,
          "%s\n%s" % (rows, shown))
    # the chart: the mark at the plan's context and count, and its points
    marks = [m for m in root.iter() if m.get("class") == "marker"]
    check(name + ": a mark at the context now with the plan's users",
          len(marks) >= 1 and int(marks[0].get("data-context")) == plan["context_tokens"] and
          int(marks[0].get("data-users")) == plan["max_users"],
          "%s %s" % ([m.attrib for m in marks], plan["max_users"]))
    series = [g for g in root.iter(NS + "g") if g.get("class") == "series"]
    check(name + ": a series", len(series) >= 1)
    if series:
        pts = [tuple(map(int, x.split(":"))) for x in series[0].get("data-points").split()]
        check(name + ": 61 points from 1k to 1M", len(pts) == 61 and pts[0][0] == 1024 and
              pts[-1][0] == 1 << 20)
        for ctx, users in (pts[15], pts[30], pts[45]):
            q = run(["plan", "--format", "json"] + args + ["--context", str(ctx)])
            want = json.loads(q.stdout)["result"]["max_users"] if q.returncode == 0 else 0
            check("%s: the point at %d the plan's users" % (name, ctx), users == want,
                  "%d %d" % (users, want))
        if plan["users_at_service_level"] != plan["max_users"]:
            check(name + ": a service level's series", len(series) == 2 and
                  series[1].get("data-series") == "keep")
    # the title names the engine as the text report's title does
    title = [" ".join(t.itertext()) for t in root.iter(NS + "text") if t.get("class") == "title"]
    eng = re.search(r", ([^,()]+)$", text.splitlines()[0]) if "--engine" in args else None
    if eng:
        check(name + ": the title names the engine " + eng.group(1), len(title) == 1 and
              (", %s at " % eng.group(1)) in title[0], "%s %s" % (title, text.splitlines()[0]))
    # every segment that holds bytes is wide enough to see (4 of 840 units),
    # however small beside the others
    widths = {r.get("data-segment"): float(r.get("width")) for r in root.iter(NS + "rect")
              if r.get("class") == "segment" and int(r.get("data-bytes")) > 0}
    check(name + ": every segment with bytes visible", all(w >= 4 for w in widths.values()),
          widths)
    # the model's longest context: a rule at its place on the axis, and the
    # curves past it faint
    maxc = json.loads(p.stdout)["scenario"]["model"]["max_context_tokens"]
    rules = [e for e in root.iter(NS + "path") if e.get("class") == "max-context"]
    faint = [e for e in root.iter(NS + "polyline") if e.get("class") == "beyond-max"]
    if maxc < 1 << 20:
        check(name + ": a rule at the model's longest context",
              len(rules) == 1 and int(rules[0].get("data-context")) == maxc, rules)
        # (each faint run from the last point within, where the solid one ends)
        xs = [float(x.split(",")[0]) for e in faint for x in e.get("points").split()[1:]]
        check(name + ": the curve past it faint", not xs or min(xs) >= float(
            re.match(r"M([0-9.]+),", rules[0].get("d")).group(1)) - 0.1 if rules else False, xs)
        solid = [float(x.split(",")[0]) for g in series for e in g.iter(NS + "polyline")
                 if e.get("class") != "beyond-max" for x in e.get("points").split()]
        check(name + ": no solid curve past it", rules and all(
            x <= float(re.match(r"M([0-9.]+),", rules[0].get("d")).group(1)) + 0.1
            for x in solid), solid)
    yt = [t.text for t in root.iter(NS + "text") if t.get("class") == "y-tick"]
    xt = [t.text for t in root.iter(NS + "text") if t.get("class") == "x-tick"]
    check(name + ": users ticks 1 and 10 labelled", yt[:2] == ["1", "10"], yt)
    check(name + ": context ticks labelled", xt == ["1k", "4k", "16k", "64k", "256k", "1M"], xt)


def test_every_segment_its_own_pattern():
    """every segment's fill a pattern of its own (the lines over the colour),
    so that each reads apart in greyscale; one solid at most"""
    svg = os.path.join(T, "patterns.svg")
    run(["plan", "--export-svg", svg] + SCENARIOS["draft-prefix"])
    root = ET.parse(svg).getroot()
    lines = {}
    for p in root.iter(NS + "pattern"):
        paths = [q.get("d") for q in p.iter(NS + "path")]
        lines[p.get("id")] = paths[0] if paths else None
    keys = ["fill-" + k for k in ("weights", "runtime", "draft", "state", "lora", "encoder",
                                  "prefix", "users", "spare", "reserved")]
    check("a pattern for every segment", all(k in lines for k in keys), sorted(lines))
    got = [lines.get(k) for k in keys]
    check("the patterns all different", len(set(got)) == len(got), lines)
    check("one solid fill at most", got.count(None) <= 1, lines)
    for k in ("fill-users", "fill-spare"):
        check(k + " patterned", lines.get(k) is not None, lines)
    used = {r.get("fill") for r in root.iter(NS + "rect") if r.get("class") == "segment"}
    check("each segment drawn with its own pattern", all(u[5:-1] in lines for u in used), used)


def test_scenarios():
    for n, a in SCENARIOS.items():
        one(n, a)


def small_files():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))


def test_a_failed_export():
    """the write cut short by a file size limit (the temporary file beside
    the target passes it): the old file kept"""
    keep = os.path.join(T, "keep.svg")
    with open(keep, "w") as f:
        f.write("precious")
    p = run(["plan", "--export-svg", keep], preexec_fn=small_files)
    check("a failed export: exit 2 naming the option", p.returncode == 2 and
          "--export-svg" in p.stderr, "%d %s" % (p.returncode, p.stderr))
    check("a failed export: the old file intact", open(keep).read() == "precious")
    check("a failed export: no temporary file left", sorted(os.listdir(T)).count("keep.svg") == 1 and
          not [f for f in os.listdir(T) if f.startswith("keep.svg") and f != "keep.svg"],
          os.listdir(T))
    p = run(["plan", "--export-svg", os.path.join(T, "no", "such", "x.svg")])
    check("a directory that is not there: exit 2", p.returncode == 2 and "--export-svg" in p.stderr,
          p.stderr)
    p = run(["--export-svg", keep, "--dump-screen", os.path.join(T, "s")])
    check("the planner refuses the option, naming its key", p.returncode == 2 and "g exports" in
          p.stderr, p.stderr)


def test_the_planner_key():
    """g writes the picture plan --export-svg writes; from the versus view,
    every scenario shown"""
    kp = os.path.join(T, "key.svg")
    p = run(["--dump-screen", os.path.join(T, "screen"), "--keys", "g" + kp + "<Enter>"] +
            SCENARIOS["draft-prefix"])
    cp = os.path.join(T, "cli.svg")
    run(["plan", "--export-svg", cp] + SCENARIOS["draft-prefix"])
    check("g writes the picture plan --export-svg writes", os.path.exists(kp) and
          open(kp).read() == open(cp).read())
    # from the versus view: every scenario shown, each its bar and its series
    vp = os.path.join(T, "versus.svg")
    run(["--dump-screen", os.path.join(T, "screen"), "--gpus", "2", "--model", "llama-3.1-70b",
         "--context", "32k", "--keys", "b<Down><Down><Right>n<Up>vg" + vp + "<Enter>"])
    try:
        root = ET.parse(vp).getroot()
        bars = [g.get("data-scenario") for g in root.iter(NS + "g") if g.get("class") == "bar"]
        ser = [g.get("data-scenario") for g in root.iter(NS + "g") if g.get("class") == "series"]
        marks = [m for m in root.iter() if m.get("class") == "marker"]
        check("versus: a bar, a series and a mark a scenario",
              len(bars) == 3 and bars == ser and len(marks) == 3, "%s %s" % (bars, ser))
    except (OSError, ET.ParseError) as e:
        check("versus: written and well-formed", False, str(e))


main([test_scenarios, test_every_segment_its_own_pattern, test_a_failed_export, test_the_planner_key], T)
