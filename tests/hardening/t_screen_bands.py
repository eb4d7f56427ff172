#!/usr/bin/python3
"""The first token's band on the main screen (issue 19): a measured band as
wide as "+0% to +839%" (MoE on Blackwell under SGLang, 4 cases) did not fit
the 80x24 speed column and was left out; it now shows in a compact form,
"TTFT 88.22 ms x1-9.4" (the least and the most measured/predicted ratio),
its ratios the plan's JSON ones (ttft_seconds_low / ttft_seconds, _high /
ttft_seconds), and the explain view keeps the full text ("+0% to +839% over
4 MoE Blackwell/SGLang cases").

Usage: t_screen_bands.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import re
import subprocess
import sys
import tempfile

from launchlib import check, main

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
T = tempfile.mkdtemp(prefix="kvplan-bands.")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(T, "config"),
           XDG_STATE_HOME=os.path.join(T, "state"), LC_ALL="C.UTF-8")

# --mfu gives the first token's fraction: its band is then shown (a default
# fraction's is not, view_speed.c band_words)
CASES = {
    "MoE on 8 x B200 under SGLang": ["--model", "deepseek-v3", "--engine", "sglang", "--gpu",
                                      "b200", "--gpus", "8", "--mfu", "0.4"],
    "dense on one H100": ["--mfu", "0.4", "--mbu", "0.7"],
}


def run(args):
    p = subprocess.run([K] + args, capture_output=True, text=True, timeout=60, env=ENV)
    return p.stdout


def screen(size, args, keys="", mono=False):
    extra = (["--keys", keys] if keys else []) + (["--mono"] if mono else [])
    return run(["--dump-screen", "-", "--size", size] + extra + args).split("\n--- attr")[0]


def g2(x):
    return float("%.2g" % x)


def test_ttft_band_fits_at_80x24():
    for name, args in CASES.items():
        j = json.loads(run(["plan", "--format", "json"] + args))
        sp = j["result"]
        ttft = sp["ttft_seconds"]
        lo, hi = sp["ttft_seconds_low"] / ttft, sp["ttft_seconds_high"] / ttft
        for mono in (False, True):
            text = screen("80x24", args, mono=mono)
            line = [l for l in text.split("\n") if "TTFT" in l or "first token" in l]
            check("%s at 80x24%s: a first-token line" % (name, " mono" if mono else ""),
                  len(line) >= 1, text)
            if not line:
                continue
            m = re.search(r"x([0-9.]+)-([0-9.]+)\s*$", line[0].rstrip())
            pc = re.search(r"([+-]\d+)%/([+-]\d+)%", line[0])
            check("%s at 80x24: the band shown: '%s'" % (name, line[0].strip()), m or pc)
            if m:
                check("%s: x%s-%s is the JSON's %.4g-%.4g" % (name, m.group(1), m.group(2), lo,
                                                               hi),
                      float(m.group(1)) == g2(lo) and float(m.group(2)) == g2(hi))


def test_explain_view_has_the_full_band():
    name, args = "MoE on 8 x B200 under SGLang", CASES["MoE on 8 x B200 under SGLang"]
    j = json.loads(run(["plan", "--format", "json"] + args))
    sp = j["result"]
    ttft = sp["ttft_seconds"]
    want = "%+d%% to %+d%%" % (round((sp["ttft_seconds_low"] / ttft - 1) * 100),
                               round((sp["ttft_seconds_high"] / ttft - 1) * 100))
    text = screen("80x24", args, keys="x<End>")
    flat = " ".join(l[:78].strip() for l in text.split("\n"))
    flat = re.sub(r"\s+", " ", flat)
    check("%s: the explain view says the first token's band in full, '%s'" % (name, want),
          re.search(r"= [0-9.]+ m?s \(" + re.escape(want) + r" over \d+ MoE", flat), flat[-900:])


main([test_ttft_band_fits_at_80x24, test_explain_view_has_the_full_band], T)
