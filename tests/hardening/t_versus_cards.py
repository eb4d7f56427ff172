#!/usr/bin/python3
"""The versus cards name what differs between scenarios: the weights'
precision beside the cache's, and the whole layout (TP x PP, replicas);
on a narrow screen (70x22) shortened with an ellipsis, the precision and
the layout kept, never cut silently.

Usage: t_versus_cards.py KVPLAN. Ends with "N passed, N failed"."""
import os
import subprocess
import sys
import tempfile

from launchlib import check, main

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
T = tempfile.mkdtemp(prefix="kvplan-vcards.")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(T, "config"), LC_ALL="C.UTF-8")
BASE = ["--gpus", "4", "--model", "llama-3.1-70b", "--engine", "vllm"]
# from the planner's first field: b branches a scenario, then
PP = "b<Up><Up><Right>"                   # pipeline stages 2 (TP 2 x PP 2)
REPLICAS = "b<Up><Up><Up><Left>"          # tensor parallel 2 (2 x TP 2)
FP32 = "b<Down><Down><Down><Right>"       # the weights in fp32


def screen(keys, size):
    out = os.path.join(T, "screen")
    p = subprocess.run([K, "--dump-screen", out, "--size", size, "--keys", keys + "v"] + BASE,
                       capture_output=True, text=True, timeout=60, env=ENV)
    check("%s at %s: exit 0" % (keys, size), p.returncode == 0, p.stderr)
    text = open(out, encoding="utf-8").read().split("--- attributes")[0]
    return text.splitlines()


def card_rows(lines, marker):
    """the rows of the card whose header (its mark, then marker) starts its column"""
    head = next((l for l in lines if marker in l), "")
    x = head.find(marker) - 2
    return [l[x:].split("  ")[0] for l in lines[4:16]] if x >= 0 else []


def test_wide():
    for keys, want in ((PP, "TP 2 x PP 2"), (REPLICAS, "2 x TP 2")):
        lines = screen(keys, "120x40")
        b = card_rows(lines, "2 B")
        a = card_rows(lines, "1 A")
        check("120x40: the card shows the layout " + want,
              any(r.endswith(", " + want) for r in b), b)
        check("120x40: the first card its own layout, TP 4",
              any(r.endswith(", TP 4") for r in a), a)
    lines = screen(FP32, "120x40")
    check("120x40: the fp32 card says its weights' precision",
          any("weights fp32, bf16 cache" in r for r in card_rows(lines, "2 B")), lines[:16])
    check("120x40: the first card its weights' bf16",
          any("weights bf16, bf16 cache" in r for r in card_rows(lines, "1 A")), lines[:16])


def test_narrow():
    """70x22, three cards 20 columns wide: the layout and the precision kept,
    what is cut marked with an ellipsis"""
    lines = screen(PP + "b<Down><Down><Down><Down><Down><Right>", "70x22")
    b, c = card_rows(lines, "2 B"), card_rows(lines, "3 C")
    check("70x22: the pipeline card keeps TP 2 x PP 2",
          any(r.startswith("TP 2 x PP 2") for r in b), b)
    check("70x22: the fp32 card keeps fp32", any(r.startswith("fp32/bf16") for r in c), c)
    rows = [r for card in (b, c, card_rows(lines, "1 A"))
            for r in card if " x h" in r or "llama" in r]
    check("70x22: every GPU and model row whole or ended with an ellipsis",
          len(rows) == 6 and all(r.endswith("\u2026") or r.endswith("TP 4") for r in rows), rows)


main([test_wide, test_narrow], T)
