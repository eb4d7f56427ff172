#!/usr/bin/python3
"""A stranger's review of speed and cost on every screen (issue 19).

- One cost, one print: $1.05 an hour over 56 users is 0.01875, a double
  just under it and a long double just over; the screen printed the
  plan's double ($0.0187) and the text its explain row's long double
  ($0.0188). A decimal tie now rounds up whichever side the binary value
  fell (explain.c decimal_round): $0.0188 on both, and in the sweep.
- The versus cards at 80x24 with four cards kept neither the throughput,
  the spreads nor the price of a million output tokens; each figure keeps
  its spread and none goes.
- The main screen's first-token band at 80x24 when the speed column is
  narrow (a five-digit count): it was left out.

Usage: t_speed_cost_review.py KVPLAN. Ends with "N passed, N failed"."""
import decimal
import json
import os
import re
import subprocess
import sys
import tempfile

from launchlib import check, main

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
T = tempfile.mkdtemp(prefix="kvplan-speedcost.")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(T, "config"),
           XDG_STATE_HOME=os.path.join(T, "state"), LC_ALL="C.UTF-8")
ENV.pop("NO_COLOR", None)


def run(args, env=None):
    p = subprocess.run([K] + args, capture_output=True, text=True, timeout=60, env=env or ENV)
    return p.stdout


def screen(size, args, keys="", mono=False, env=None):
    extra = (["--keys", keys] if keys else []) + (["--mono"] if mono else [])
    return run(["--dump-screen", "-", "--size", size] + extra + args, env).split("\n--- attr")[0]


def usd(v, d=4):
    """A price as the text writes it: the JSON's shortest decimal, half up."""
    q = decimal.Decimal(repr(v)).quantize(decimal.Decimal(1).scaleb(-d), decimal.ROUND_HALF_UP)
    return "$%s" % q


def text_costs(args):
    """The three costs as `kvplan plan` writes them: {label: "$0.0187"}."""
    out = run(["plan"] + args).split("\n")
    got = {}
    for i, line in enumerate(out):
        for label in ("Cost per user-hour", "Cost per 1M output", "Cost per 1M input"):
            if line.strip().startswith(label):
                for l2 in out[i:i + 3]:
                    m = re.search(r"= (\$[0-9.]+)", l2)
                    if m:
                        got[label] = m.group(1)
                        break
    return got


# (args, why): each a cost at a decimal tie, where a double and a long
# double round apart
TIES = [
    (["--price", "1.05"], "user-hour $1.05 / 56 users = 0.01875"),
    (["--price", "1.17", "--concurrency", "72"], "user-hour $1.17 / 72 users = 0.01625"),
]


def test_one_cost_one_print():
    for args, why in TIES:
        t = text_costs(args)
        check("%s: the text gives the costs" % why, len(t) == 3, repr(t))
        s = screen("120x40", args)
        for label, short in (("Cost per user-hour", "/user-h"), ("Cost per 1M output", "/M output")):
            if label not in t:
                continue
            check("%s: %s on the screen as in the text (%s)" % (why, label, t[label]),
                  (t[label] + short) in s, s)
        j = json.loads(run(["plan", "--format", "json"] + args))["result"]
        check("%s: the JSON's user-hour rounds to the text's" % why,
              usd(j["cost_per_user_hour"]) == t.get("Cost per user-hour"),
              "%r %r" % (j["cost_per_user_hour"], t))



BAND = re.compile(r"([-+]\d+%?/[-+]\d+%|(\u00b1|\+-)\d+%|x\d[.\d]*-\d[.\d]*)")


def card_texts(text, n, cols):
    """Each versus card's rows as text: the cards are (cols - 2) / n wide from column 1."""
    pw = (cols - 2) // n
    rows = text.split("\n")[2:]
    cards = []
    for k in range(n):
        cards.append([r[1 + k * pw:1 + k * pw + pw - 2].rstrip() for r in rows])
    return cards


def plan_json(args):
    return json.loads(run(["plan", "--format", "json"] + args))["result"]


# four cards at 80x24: the default, a service level, a long context on two GPUs
VERSUS = {
    "default": [],
    "service level": ["--min-tok-s", "50", "--max-ttft", "0.5"],
    "70B at 32k on 2 GPUs": ["--model", "llama-3.1-70b", "--gpus", "2", "--context", "32k"],
}


def test_versus_cards_keep_every_figure():
    for name, args in VERSUS.items():
        r = plan_json(args)
        tput = round(r["tokens_per_s_total"])
        for mono, env in ((False, None), (True, None), (True, dict(ENV, LC_ALL="C"))):
            how = "%s, 80x24, 4 cards%s%s" % (name, " mono" if mono else "",
                                               " ASCII" if env else "")
            text = screen("80x24", args, keys="nnnv", mono=mono, env=env)
            for k, card in enumerate(card_texts(text, 4, 80)):
                body = "\n".join(card)
                speed = [l for l in card if "tok/s" in l and "total" not in l and "all" not in l]
                check("%s card %d: the speed per user with its band" % (how, k + 1),
                      len(speed) == 1 and BAND.search(speed[0]), body)
                check("%s card %d: the throughput" % (how, k + 1),
                      re.search(r"tok/s (total|in all|all)\b", body), body)
                i = [j for j, l in enumerate(card) if "TTFT" in l or "first token" in l]
                check("%s card %d: the first token with its band (beside or under it)"
                      % (how, k + 1),
                      len(i) == 1 and (BAND.search(card[i[0]]) or BAND.search(card[i[0] + 1])),
                      body)
                check("%s card %d: the price of a user-hour" % (how, k + 1),
                      usd(r["cost_per_user_hour"]) + "/user-h" in body, body)
                check("%s card %d: the price of a million output tokens" % (how, k + 1),
                      usd(r["cost_per_million_output_tokens"]) + "/M out" in body,
                      body)

    # a card with a note: the note beside its title when the rows are short,
    # and no figure goes for it
    r = plan_json([])
    text = screen("80x24", [], keys="Na note<Enter>nnnv")
    cards = card_texts(text, 4, 80)
    check("80x24, 4 cards, a note: beside the first card's title", cards[0][0].endswith(": a note"),
          text)
    for k, card in enumerate(cards):
        body = "\n".join(card)
        check("80x24, 4 cards, a note: card %d keeps $/M output" % (k + 1),
              usd(r["cost_per_million_output_tokens"]) + "/M out" in body, body)
        check("80x24, 4 cards, a note: card %d keeps the throughput" % (k + 1),
              re.search(r"tok/s (total|in all|all)\b", body), body)


def test_versus_throughput_is_the_plans():
    r = plan_json([])
    text = screen("80x24", [], keys="nnnv")
    want = "{:,} tok/s".format(round(r["tokens_per_s_total"]))
    check("80x24, 4 cards: the throughput as a whole number (%s)" % want, want in text, text)


# the main screen's column beside a three-digit count with a band wider
# than "TTFT 220.85 ms -2%/+264%" fits: six tabs, vLLM, 4 GPUs as 2 x TP 2
MAIN_NARROW = ["--engine", "vllm", "--gpus", "4", "--tp", "2"]


def test_main_ttft_band_at_80x24():
    r = plan_json(MAIN_NARROW)
    for mono in (False, True):
        text = screen("80x24", MAIN_NARROW, keys="nnnnn", mono=mono)
        line = [l for l in text.split("\n")[:10] if "TTFT" in l or "first token" in l]
        check("main 80x24%s: the first token with its band" % (" mono" if mono else ""),
              len(line) == 1 and BAND.search(line[0].split("TTFT")[-1]), text)
        lo = round((r["ttft_seconds_low"] / r["ttft_seconds"] - 1) * 100)
        hi = round((r["ttft_seconds_high"] / r["ttft_seconds"] - 1) * 100)
        check("main 80x24%s: the band is the plan's (%+d/%+d%%)" % (" mono" if mono else "", lo, hi),
              line and ("%+d/%+d%%" % (lo, hi)) in line[0], line)



def sweep_table(args):
    """The sweep table's rows by VALUE as {column: cell}, and its notes."""
    out = run(["sweep"] + args).split("\n")
    head = next(i for i, l in enumerate(out) if l.startswith("VALUE"))
    names = ["$/1M OUT", "$/1M IN", "$/USER-H"]
    cols = {n: out[head].index(n) + len(n) for n in names}  # right-aligned: the head's end
    rows = {}
    for line in out[head + 1:]:
        if not line or line[0] in "!*$" or line.startswith(("TOK/S BAND", "AT LEVEL")):
            continue
        value = line[:24].strip()
        rows[value] = {n: line[:cols[n]].split()[-1] for n in names}
    return rows, "\n".join(out[head + 1:])


def test_sweep_input_price_and_user_hour():
    rows, notes = sweep_table(["--vary", "concurrency=16..64", "--context", "8k"])
    check("sweep: a $/1M IN column", len(rows) == 3, notes)
    for n in (16, 32, 64):
        row = rows.get("%d users" % n, {})
        p = plan_json(["--context", "8k", "--concurrency", str(n)])
        check("sweep --vary concurrency, %d users: $/1M IN is plan's" % n,
              row.get("$/1M IN") == usd(p["cost_per_million_input_tokens"])[1:], repr(row))
        check("sweep --vary concurrency, %d users: $/USER-H is plan's (the %d at once)" % (n, n),
              row.get("$/USER-H") == usd(p["cost_per_user_hour"])[1:], repr(row))
    check("sweep --vary concurrency: the note says a user-hour is shared by the row's users "
          "at once", "$/USER-H: that price over the row's users decoding at once (VALUE)" in notes,
          notes)
    check("sweep --vary concurrency: not over USERS",
          "over the users (USERS" not in notes, notes)
    _, notes = sweep_table(["--vary", "context=8k..16k"])
    check("sweep: without a count, a user-hour over USERS", "over the users (USERS)" in notes, notes)
    check("sweep: $/1M IN said in the notes", "$/1M IN: that price over the prompt tokens" in notes,
          notes)
    # the tie prints as the planner prints it
    rows, _ = sweep_table(["--vary", "context=8k..16k", "--price", "1.05"])
    check("sweep --price 1.05: $0.01875 a user-hour as the planner's 0.0188",
          rows.get("8k", {}).get("$/USER-H") == "0.0188", repr(rows))



def test_dense_band_names_the_models_it_was_measured_on():
    # Qwen3 32B on an H100: the dense Hopper cases are of Llama models only
    args = ["--model", "qwen3-32b"]
    r = plan_json(args)
    b = r["speed_band"]
    check("dense qwen3-32b: JSON says the band is of other models", b.get("other_models") is True,
          repr(b))
    check("dense qwen3-32b: JSON lists them", "qwen3-32b" not in b["models"] and b["models"],
          repr(b))
    text = run(["plan"] + args)
    want = "measured on " + ", ".join(b["models"])
    check("dense qwen3-32b: the text names them (%s)" % want, want in text, text)
    # Llama 3.1 8B is among the Hopper cases: no such words for its decode band
    r = plan_json([])
    check("llama-3.1-8b: its own cases, not other models'",
          r["speed_band"]["other_models"] is False and "llama-3.1-8b" in r["speed_band"]["models"],
          repr(r["speed_band"]))
    text = run(["plan"])
    line = next((l for l in text.split("\n") if "tok/s (" in l), "")
    check("llama-3.1-8b: its speed's band names no other models", line and "measured on" not in line,
          line)



SOLVE_FIELDS = ["tokens_per_s_per_user", "tokens_per_s_per_user_low", "tokens_per_s_per_user_high",
                "ttft_seconds", "ttft_seconds_low", "ttft_seconds_high", "cost_per_user_hour",
                "cost_per_million_output_tokens"]
SOLVE_CASES = [
    ["--users", "100", "--gpu", "h100-sxm", "--gpu", "a100-80gb", "--gpu", "l40s", "--gpu", "mi300x"],
    ["--users", "40", "--model", "llama-3.1-70b", "--context", "16k", "--min-tok-s", "20",
     "--gpu", "h100-sxm", "--gpu", "a100-80gb"],
]


def layout_args(case, row):
    """plan's options for a solved row's layout: the case's own, its GPU and split."""
    args, skip = [], False
    for i, a in enumerate(case):
        if skip:
            skip = False
            continue
        if a in ("--users", "--gpu"):
            skip = True
            continue
        args.append(a)
    args += ["--gpu", row["gpu"], "--gpus", str(row["gpus"]), "--tp", str(row["tp"])]
    if row["pp"] > 1:
        args += ["--pp", str(row["pp"])]
    return args


def test_solve_rows_are_plans():
    for case in SOLVE_CASES:
        doc = json.loads(run(["solve", "--format", "json"] + case))
        rows = [r for r in doc["rows"] if r["solved"]]
        check("solve %s: two rows solved at least" % " ".join(case), len(rows) >= 2, repr(doc))
        text = run(["solve"] + case).split("\n")
        for row in rows:
            p = plan_json(layout_args(case, row))
            for f in SOLVE_FIELDS:
                check("solve %s, %s: JSON %s is plan's for its layout (%r)"
                      % (case[1], row["gpu"], f, p.get(f)), row.get(f) == p.get(f),
                      "solve %r, plan %r" % (row.get(f), p.get(f)))
            line = next((l for l in text if l.startswith(row["gpu"] + " ")), "")
            want = [usd(p["cost_per_million_output_tokens"])[1:], usd(p["cost_per_million_input_tokens"])[1:],
                    usd(p["cost_per_user_hour"])[1:],
                    "%.1f" % p["tokens_per_s_per_user"],
                    "%.1f-%.1f" % (p["tokens_per_s_per_user_low"], p["tokens_per_s_per_user_high"]),
                    "%.3f s" % p["ttft_seconds"],
                    "%.3f-%.3f s" % (p["ttft_seconds_low"], p["ttft_seconds_high"])]
            check("solve %s, %s: the text row gives plan's figures %s" % (case[1], row["gpu"], want),
                  all((" " + w + " ") in (line + " ") for w in want), line)
            md = run(["solve", "--format", "markdown"] + case).split("\n")
            cells = next(([c.strip() for c in l.split("|")[1:-1]] for l in md
                          if l.startswith("| %s |" % row["gpu"])), [])
            check("solve %s, %s: the Markdown row gives plan's figures %s" % (case[1], row["gpu"], want),
                  cells[5:12] == want, repr(cells))


if __name__ == "__main__":
    main([v for k, v in sorted(globals().items()) if k.startswith("test_")], T)
