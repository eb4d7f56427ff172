#!/usr/bin/python3
"""The planner's screens as a new user reads them (--dump-screen):

- a context past the chart's axis (999,999,999 tokens) still has its mark,
  at the axis's end, and the caption says it is off scale;
- where there is no room for the chart (70x22, 80x24) its one row names the
  current context with its users, marked, as `plan` counts them;
- "At once 1 user" (singular); 1536k tokens read "1.5M";
- the quit question lists every key it takes (y, e, N) and each does what it
  says: e opens the export prompt, N stays, y quits;
- the Copied box says what a key does there (Esc only closes, other keys act);
- solve --disaggregated with no split to try prints no empty table;
- a new scenario after renaming A is B, the letter of its place;
- "In use" stays a slider when the prefix leaves it one value;
- the main screen's speed per user carries its measured band, equal to
  plan's JSON (tokens_per_s_per_user_low / _high), at 80x24 and wider; versus
  and compare say what limits each scenario; the headline with a speed and a
  first-token target fits 80x24 whole;
- README's x row names the full explain view's sections in the order the
  view shows them.

Usage: t_planner_screens.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import re
import subprocess
import sys
import tempfile

from launchlib import check, main

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
T = tempfile.mkdtemp(prefix="kvplan-screens.")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(T, "config"), LC_ALL="C.UTF-8")
ENV.pop("NO_COLOR", None)
README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")
MARK = "\u25cf"


def screen(size, args, keys="", mono=False):
    extra = (["--mono"] if mono else []) + (["--keys", keys] if keys else [])
    p = subprocess.run([K, "--dump-screen", "-", "--size", size] + extra + args,
                       capture_output=True, text=True, timeout=60, env=ENV)
    return p.stdout.split("\n")


def plan(args):
    p = subprocess.run([K, "plan", "--format", "json"] + args, capture_output=True, text=True,
                       timeout=60, env=ENV)
    return json.loads(p.stdout)["result"]


def test_a_context_off_the_axis_keeps_its_mark():
    for size in ("120x40", "160x48"):
        for mono in (False, True):
            lines = screen(size, ["--context", "999999999"], mono=mono)
            axis = next((y for y, l in enumerate(lines) if re.search(r"1k +4k +16k", l)), -1)
            plot = lines[axis - 4:axis] if axis > 0 else []
            check("%s%s: the mark at the axis's end" % (size, " mono" if mono else ""),
                  any("\u25b6" in l for l in plot), "\n".join(lines))
            check("%s: the caption says off scale" % size,
                  any("999,999,999 now: 0 users (off scale)" in l for l in lines),
                  "\n".join(lines))


def test_the_one_row_chart_names_the_context_now():
    for args in ([], ["--context", "16k"], ["--context", "100k"], ["--model", "llama-3.1-70b",
                                                                    "--gpus", "4"]):
        users = plan(args)["max_users"]
        ctx = args[args.index("--context") + 1] if "--context" in args else "8k"
        for size in ("70x22", "80x24"):
            lines = screen(size, args)
            row = next((l for l in lines if re.search(r"Users( by context:)? [0-9\u25cf]", l)),
                       "")
            check("%s %s: the one-row chart marks %s with its %d users" % (size, args, ctx, users),
                  "%s%s:%d" % (MARK, ctx, users) in row.replace(",", ""), "\n".join(lines))


def test_small_words():
    lines = screen("100x30", ["--concurrency", "1"])
    check("At once: 1 user", any(re.search(r"At once .* 1 user( |$)", l) for l in lines),
          "\n".join(lines))
    lines = screen("100x30", ["--model", "llama-4-scout", "--context", "1536k"])
    check("1536k reads 1.5M in the title", "at 1.5M tokens" in lines[0], lines[0])
    lines = screen("100x30", [], keys="abase<Enter>n")
    check("after renaming A the new scenario is B", "1 base [2 B]" in lines[0], lines[0])
    for pf in ("4k", "7k"):
        row = next((l for l in screen("100x30", ["--prefix", pf]) if "In use" in l), "")
        check("prefix %s: In use stays a slider" % pf, "\u25c2" not in row and
              re.search("[\u2501\u2500]+\u25cf", row), row)


def test_the_quit_question_lists_its_keys():
    for size in ("100x30", "80x24", "60x20"):
        last = screen(size, [], keys="bnq")[-2]
        check("%s: the quit question offers y, e and N" % size,
              re.search(r"y quits, e exports, N stays", last), last)
    check("e opens the export prompt", "Export to:" in screen("100x30", [], keys="bnqe")[-2])
    check("E too", "Export to:" in screen("100x30", [], keys="bnqE")[-2])
    check("N stays", "not quitting" in "\n".join(screen("100x30", [], keys="bnqN")))
    p = subprocess.run([K, "--dump-screen", "-", "--size", "100x30", "--keys", "bnqy"],
                       capture_output=True, text=True, timeout=60, env=ENV)
    check("y quits", p.returncode == 0 and "Quit?" not in p.stdout, p.stdout[-300:])


def test_the_copied_box_says_what_keys_do():
    text = "\n".join(screen("100x30", [], keys="y"))
    check("the Copied box: Esc only closes, other keys act",
          "Esc or Enter only close, other keys also act" in text, text)


def test_no_empty_disaggregated_table():
    args = ["solve", "--request-rate", "20", "--random-input-len", "8000", "--random-output-len",
            "100", "--num-prompts", "30", "--context", "16k", "--goodput", "ttft:3000", "tpot:20",
            "--disaggregated", "--max-gpus", "1"]
    p = subprocess.run([K] + args, capture_output=True, text=True, timeout=120, env=ENV)
    check("no table of no layouts", "layouts simulated (0)" not in p.stdout and
          "Disaggregated layouts: none to simulate" in p.stdout, p.stdout[-600:])


def band(low, high, fig):
    lo, hi = round((low / fig - 1) * 100), round((high / fig - 1) * 100)
    return "\u00b1%d%%" % hi if lo == -hi and hi > 0 else "%+d%%/%+d%%" % (lo, hi)


def test_the_speed_band_on_the_main_screen():
    for args in (["--engine", "vllm"], [], ["--engine", "sglang", "--model", "llama-3.1-70b",
                                            "--gpus", "4"]):
        r = plan(args)
        fig = r["tokens_per_s_per_user"]
        want = band(r["tokens_per_s_per_user_low"], r["tokens_per_s_per_user_high"], fig)
        for size in ("80x24", "100x30", "160x48"):
            text = "\n".join(screen(size, args))
            check("%s %s: %.1f tok/s with its band %s" % (size, args, fig, want),
                  re.search(r"%.1f tok/s (each )?%s" % (fig, re.escape(want)), text), text)


def test_versus_and_compare_name_the_limit():
    args = ["--engine", "vllm", "--min-tok-s", "50"]
    keys = "b<Down><Down><Right>"
    for size in ("70x22", "100x30", "160x48"):
        text = "\n".join(screen(size, args, keys + "v"))
        check("%s versus: each card says what binds" % size, text.count("decode binds") == 2,
              text)
    text = "\n".join(screen("100x30", ["--engine", "vllm"], keys + "c"))
    check("compare: a Limited by row", re.search(r"Limited by +memory +memory", text), text)


def test_the_headline_fits_80x24():
    for args in (["--engine", "vllm", "--min-tok-s", "50", "--max-ttft", "0.5"],
                 ["--min-tok-s", "50"]):
        lines = screen("80x24", args)
        head = [l.rstrip() for l in lines[2:8] if "users at" in l]
        whole = r"users at (50 tok/s(, first token in 0.5 s|, TTFT 0.5 s)?|the service level|" \
            r"service level|target)$"
        check("80x24 %s: the headline whole" % args, head and re.search(whole, head[0]), head)


def test_readme_names_the_explain_views_order():
    row = next(l for l in open(README, encoding="utf-8") if l.startswith("| x |"))
    m = re.search(r"text report \(([^)]*)\)", row)
    said = [w.strip().split()[0] for w in m.group(1).split(",")] if m else []
    lines = screen("120x300", ["--engine", "vllm"], keys="x")
    shown = [re.sub(r"^ \u2500\u2500 ", "", l).split()[0].rstrip(":") for l in lines
             if l.startswith(" \u2500\u2500 ")]
    check("README names the view's sections in its order", said and said == shown,
          "%s %s" % (said, shown))


main([test_a_context_off_the_axis_keeps_its_mark, test_the_one_row_chart_names_the_context_now,
      test_small_words, test_the_quit_question_lists_its_keys, test_the_copied_box_says_what_keys_do,
      test_no_empty_disaggregated_table, test_the_speed_band_on_the_main_screen,
      test_versus_and_compare_name_the_limit, test_the_headline_fits_80x24,
      test_readme_names_the_explain_views_order], T)
