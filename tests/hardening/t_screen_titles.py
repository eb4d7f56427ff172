#!/usr/bin/python3
"""The planner's titles and chart edges, read off the screen (--dump-screen),
at 70x22, 80x24, 120x40 and 160x48, in colour and monochrome (issue 21):

- past the model's longest context ("max 128k" rule) the users chart draws
  no curve, and says "not available" there (the plan's count past it is no
  context the model takes);
- the memory panel's title is one wording at every size for one plan: each
  size's title is the widest's, or its start followed by an ellipsis;
- beside six scenario tabs the title keeps the scenario's context.

Usage: t_screen_titles.py KVPLAN. Ends with "N passed, N failed"."""
import os
import re
import subprocess
import sys
import tempfile

from launchlib import check, main

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
T = tempfile.mkdtemp(prefix="kvplan-titles.")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(T, "config"),
           XDG_STATE_HOME=os.path.join(T, "state"), LC_ALL="C.UTF-8")
SIZES = ["70x22", "80x24", "120x40", "160x48"]
BRAILLE = re.compile("[\u2801-\u28ff]")


def screen(size, args, mono=False):
    p = subprocess.run([K, "--dump-screen", "-", "--size", size] + (["--mono"] if mono else []) +
                       args, capture_output=True, text=True, timeout=60, env=ENV)
    return p.stdout.split("\n--- attributes")[0].split("\n")


def test_chart_stops_at_the_longest_context():
    # Llama 3.1 8B (max 128k) on one H100: 1 user still fits at 256k in the
    # plan's arithmetic (464,692 tokens held), a context the model refuses
    for size in ["120x40", "160x48"]:
        for mono in (False, True):
            lines = screen(size, ["--context", "64k"], mono)
            what = "%s%s" % (size, " mono" if mono else "")
            rule = [(y, l.index("\u250a")) for y, l in enumerate(lines) if "\u250a" in l]
            check(what + ": a rule at the longest context", len(rule) >= 3, rule)
            if not rule:
                continue
            x = rule[0][1]
            ys = [y for y, _ in rule]
            plot = lines[ys[0]:ys[-1] + 2]
            past = [l[x + 1:] for l in plot if BRAILLE.search(l[x + 1:])]
            check(what + ": no curve past the max 128k rule", not past, past)
            check(what + ": the rest says not available",
                  any("not available" in l[x:] for l in plot), "\n".join(plot))
            check(what + ": the rule is named", "max 128k" in lines[ys[0]], lines[ys[0]])


def memory_title(lines):
    for line in lines:
        m = re.search(r"(Memory of each GPU|Each GPU|GPU [0-9]).*", line)
        if m:
            return m.group(0).rstrip()
    return None


CASES = {
    "70B under vLLM, 4 GPUs, draft and prefix":
        ["--model", "llama-3.1-70b", "--gpus", "4", "--engine", "vllm", "--context", "32k",
         "--prefix", "2k", "--draft-model", "llama-3.2-1b"],
    "DeepSeek-V3.2 on 8 x H200 under vLLM (a three-digit total)":
        ["--model", "deepseek-v3.2", "--gpu", "h200", "--gpus", "8", "--engine", "vllm",
         "--context", "64k"],
    "llama.cpp with layers in host memory":
        ["--engine", "llama.cpp", "--model", "llama-3.1-70b", "--weight-dtype", "q4_k_m",
         "--gpu", "rtx-4090", "--host-memory", "64GiB"],
}


def test_memory_title_one_wording():
    for name, args in CASES.items():
        for mono in (False, True):
            titles = {s: memory_title(screen(s, args, mono)) for s in SIZES}
            full = titles["160x48"]
            check(name + ": the widest title is whole", full and not full.endswith("\u2026"),
                  titles)
            for s, t in titles.items():
                # whole, or its start and an ellipsis, or (no column left for
                # the ellipsis) its start up to the end of the total
                ok = t is not None and (t == full or (t.endswith("\u2026") and
                                                      full.startswith(t[:-1])) or
                                        (full.startswith(t) and full[len(t)] in " ,;"))
                check("%s at %s%s: '%s' is '%s' or its start" %
                      (name, s, " mono" if mono else "", t, full), ok)
                check("%s at %s: the title says the GPU's memory" % (name, s),
                      t is not None and t.startswith("Memory of each GPU: "), t)


def test_six_tabs_keep_the_context():
    # six scenarios (n five times): the tabs take up to half the title row
    for args, ctx in [(["--engine", "vllm", "--gpus", "4", "--tp", "2"], "8k"),
                      (["--engine", "vllm", "--model", "deepseek-v3", "--gpus", "16", "--tp", "8",
                        "--pp", "2", "--context", "128k"], "128k"),
                      (["--model", "llama-3.1-70b", "--gpus", "4", "--engine", "vllm",
                        "--context", "32k", "--prefix", "2k"], "32k")]:
        for size in SIZES:
            for mono in (False, True):
                top = screen(size, args + ["--keys", "nnnnn"], mono)[0]
                head = top.split("  1 A")[0]
                check("six tabs at %s%s: the title keeps '%s': '%s'" %
                      (size, " mono" if mono else "", ctx, head),
                      re.search(r"(at |, )%s( tokens|,|$)" % ctx, head.rstrip()) is not None)
                check("six tabs at %s: the tabs all there" % size, "[6 F]" in top, top)


main([test_chart_stops_at_the_longest_context, test_memory_title_one_wording,
      test_six_tabs_keep_the_context], T)
