#!/usr/bin/python3
"""Every speed figure carries the spread the public measurements showed for
its GPU family and engine, and the plan prices a million output and input
tokens. The bands are read from the generated table the binary carries
(src/core/speedband_table.c), never written here: JSON low and high are the
figure times the group's ratios, the text and Markdown reports write the band
beside the figure, a GPU family without measurements says so, a preset's
`family` picks the band (and a bad one is refused by name), and
tools/gen_speed_bands.py --check (`make check-bands`) fails when the table or
the data no longer agree. The costs: the GPUs' price per hour over the output
tokens an hour at the throughput shown (with a speed target, the users who
keep it) and over the prompt tokens an hour at every replica's prefill rate.
Usage: t_speed_bands.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from tally import check  # noqa: E402
import tally  # noqa: E402

K = os.path.abspath(sys.argv[1])
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TABLE = os.path.join(ROOT, "src", "core", "speedband_table.c")
GEN = os.path.join(ROOT, "tools", "gen_speed_bands.py")
DATA = os.path.join(ROOT, "tests", "data", "speed-measurements.json")
TMP = tempfile.mkdtemp(prefix="kvplan-bands-")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(TMP, "config"))


def run(*args):
    p = subprocess.run([K, *args], capture_output=True, text=True, timeout=60, env=ENV)
    return p.returncode, p.stdout, p.stderr


def plan(*args):
    rc, out, err = run("plan", *args, "--format", "json")
    if rc != 0:
        print("FAIL: plan %s: %s" % (" ".join(args), err.strip()))
        return None
    return json.loads(out)["result"]


def table():
    """{(family, engine): {"decode": (cases, held, low, high), "ttft": (...)}} from the C source."""
    t = {}
    pat = re.compile(r'\{"([^"]*)", "([^"]*)", \{(\d+), (\d+), ([\d.]+), ([\d.]+)\}, '
                     r'\{(\d+), (\d+), ([\d.]+), ([\d.]+)\}\}')
    for m in pat.finditer(open(TABLE).read()):
        g = m.groups()
        t[(g[0], g[1])] = {"decode": (int(g[2]), int(g[3]), float(g[4]), float(g[5])),
                           "ttft": (int(g[6]), int(g[7]), float(g[8]), float(g[9]))}
    return t


def band(t, family, engine, figure):
    """The band kvplan should take: the pair's with 2 cases, else the family's, else None."""
    for key in ((family, engine), (family, "")):
        e = t.get(key)
        if e and e[figure][0] >= 2:
            return key, e[figure]
    return None, None


def close(a, b):
    return a is not None and b is not None and abs(a - b) <= 1e-9 * abs(b)


def pct(r):
    return "%+d%%" % round((r - 1) * 100)


T = table()
check(len(T) > 0, "the generated table has groups")
TITLES = {"vllm": "vLLM", "sglang": "SGLang", "trtllm": "TensorRT-LLM", "llama.cpp": "llama.cpp"}


def gen(*extra):
    """tools/gen_speed_bands.py on this binary: its exit status and output."""
    p = subprocess.run(["/usr/bin/python3", GEN, K, *extra], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout + p.stderr


def main():
    """The checks; a field missing from the binary's answer fails the check that reads it."""
    # 1. JSON: low and high are the figure times the group's ratios
    H100 = ["--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--context", "4096"]
    for engine in ("vllm", "sglang", "generic"):
        r = plan(*H100, "--engine", engine)
        if r is None:
            check(False, "plan on H100 under %s" % engine)
            continue
        key, d = band(T, "Hopper", engine, "decode")
        check(key is not None, "Hopper has a decode band for %s" % engine)
        if key is None:
            continue
        group = "Hopper/" + TITLES[engine] if key[1] else "Hopper"
        check(r["speed_basis"] == "fitted" and r["speed_band"]["group"] == group and
              r["speed_band"]["measurements"] == d[0] and r["speed_band"]["held_out"] == d[1],
              "%s: the decode band of %s (%d cases, %d held out): %s" % (engine, group, d[0], d[1], r["speed_band"]))
        check(close(r["tokens_per_s_per_user_low"], r["tokens_per_s_per_user"] * d[2]) and
              close(r["tokens_per_s_per_user_high"], r["tokens_per_s_per_user"] * d[3]),
              "%s: tok/s per user low/high = %g x %g, %g" % (engine, r["tokens_per_s_per_user"], d[2], d[3]))
        check(close(r["tokens_per_s_total_low"], r["tokens_per_s_total"] * d[2]) and
              close(r["tokens_per_s_total_high"], r["tokens_per_s_total"] * d[3]),
              "%s: the throughput takes the speed's band" % engine)
        key, t = band(T, "Hopper", engine, "ttft")
        if key:
            check(r["ttft_basis"] == "fitted" and close(r["ttft_seconds_low"], r["ttft_seconds"] * t[2]) and
                  close(r["ttft_seconds_high"], r["ttft_seconds"] * t[3]),
                  "%s: the first token's band, %s" % (engine, key))
        else:
            check(r["ttft_basis"] == "default" and r["ttft_seconds_low"] is None, "%s: no first-token band" % engine)

    # 2. the text and Markdown reports write the band beside the figure
    key, d = band(T, "Hopper", "vllm", "decode")
    r = plan(*H100, "--engine", "vllm")
    want = "(%s to %s over %d %s measurements)" % (pct(d[2]), pct(d[3]), d[0],
                                                    "Hopper/vLLM" if key[1] else "Hopper")
    rc, text, _ = run("plan", *H100, "--engine", "vllm")
    speed = "%.1f tok/s %s" % (r["tokens_per_s_per_user"], want)
    check(rc == 0 and ("= " + speed) in text, "text: '%s' beside the speed per user" % speed)
    check("tok/s all replicas " + want in text, "text: the band beside the throughput")
    rc, md, _ = run("plan", *H100, "--engine", "vllm", "--format", "markdown")
    check(rc == 0 and ("**%.1f tok/s** %s |" % (r["tokens_per_s_per_user"], want)) in md,
          "markdown: the band beside the bold figure")

    # 3. a family without measurements: the defaults, said so
    r = plan("--model", "llama-3.2-1b", "--gpu", "t4", "--context", "4096")
    check(r is not None and r["speed_basis"] == "default" and r["ttft_basis"] == "default" and
          r["tokens_per_s_per_user"] and r["tokens_per_s_per_user_low"] is None and
          r["tokens_per_s_per_user_high"] is None and r["ttft_seconds_low"] is None and
          r["speed_band"]["group"] is None, "T4 (Turing, no measurement): default basis, no low/high")
    rc, text, _ = run("plan", "--model", "llama-3.2-1b", "--gpu", "t4", "--context", "4096")
    check(text.count("(default: no measurement behind it)") == 3,
          "text: speed, throughput and first token each say they rest on defaults")

    # 4. a preset's family picks the band; none gives the defaults; a bad one is refused
    presets, bad = os.path.join(TMP, "presets"), os.path.join(TMP, "bad")
    os.makedirs(os.path.join(presets, "gpus"))
    os.makedirs(os.path.join(bad, "gpus"))
    base = json.load(open(os.path.join(ROOT, "presets", "gpus", "h100-sxm.json")))
    for pid, family in (("my-hopper", "Hopper"), ("my-nofamily", None), ("my-bad", 7)):
        g = dict(base, id=pid, name="My " + pid)
        g.pop("family", None)
        if family is not None:
            g["family"] = family
        with open(os.path.join(bad if pid == "my-bad" else presets, "gpus", pid + ".json"), "w") as f:
            json.dump(g, f, indent=2)
    r = plan("--presets", presets, "--gpu", "my-hopper", *H100[:2], "--engine", "vllm")
    check(r is not None and r["speed_band"]["group"] == ("Hopper/vLLM" if key[1] else "Hopper"),
          "a preset of one's own with family Hopper takes Hopper's band")
    r = plan("--presets", presets, "--gpu", "my-nofamily", *H100[:2], "--engine", "vllm")
    check(r is not None and r["speed_basis"] == "default" and r["tokens_per_s_per_user_low"] is None,
          "a preset without a family rests on the defaults")
    rc, out, err = run("plan", "--presets", bad, "--gpu", "my-bad", *H100[:2])
    check(rc == 2 and re.search(r"my-bad\.json:\d+:\d+: family", err) is not None,
          "a family that is not a string is refused, naming file, line and field: %s" % err.strip()[:200])
    # the family travels with the GPU in a snapshot
    snap = os.path.join(TMP, "snap.json")
    rc, _, _ = run("plan", *H100, "--engine", "vllm", "--export", snap)
    doc = json.load(open(snap)) if rc == 0 else {}
    check(doc.get("scenario", {}).get("gpu", {}).get("family") == "Hopper", "the snapshot's GPU keeps its family")
    r = plan("--load", snap)
    check(r is not None and r["speed_basis"] == "fitted", "a loaded snapshot keeps its band")

    # 5. a million tokens: the price per hour over the tokens an hour
    r = plan(*H100, "--engine", "vllm", "--gpus", "2", "--tp", "1")
    price = r["price_usd_per_hour"]
    check(r["replicas"] == 2 and close(r["cost_per_million_output_tokens"],
                                       price / (r["tokens_per_s_total"] * 3600) * 1e6),
          "output: %g $/h over %g tok/s" % (price, r["tokens_per_s_total"]))
    check(close(r["cost_per_million_input_tokens"],
                price / (r["prefill_tokens_per_s"] * r["replicas"] * 3600) * 1e6),
          "input: %g $/h over %g prompt tok/s x 2 replicas" % (price, r["prefill_tokens_per_s"]))
    keys = {row["key"] for row in r["explain"]} if isinstance(r.get("explain"), list) else set(r.get("explain", {}))
    check({"cost_output", "cost_input"} <= keys, "explain rows cost_output and cost_input: %s" % sorted(keys)[:5])
    rc, text, _ = run("plan", *H100, "--engine", "vllm", "--gpus", "2", "--tp", "1")
    check("Cost per 1M output" in text and "$%.4f" % r["cost_per_million_output_tokens"] in text and
          "$%.4f" % r["cost_per_million_input_tokens"] in text, "text: both costs beside the cost per user-hour")
    # with a speed target, the throughput of the users who keep it
    r = plan(*H100, "--engine", "vllm", "--min-tok-s", "60")
    check(r["concurrency"] == r["users_at_service_level"] and r["tokens_per_s_per_user"] >= 60 and
          close(r["cost_per_million_output_tokens"], r["price_usd_per_hour"] / (r["tokens_per_s_total"] * 3600) * 1e6),
          "with --min-tok-s 60: the cost at the %d users who keep it" % r["users_at_service_level"])
    r = plan(*H100, "--min-tok-s", "100000")
    check(r["cost_per_million_output_tokens"] is None and r["cost_per_million_input_tokens"] is None,
          "a target nobody keeps: no price per million tokens")
    g = dict(base, id="my-free", name="No price")
    g.pop("price_usd_per_hour")
    with open(os.path.join(presets, "gpus", "my-free.json"), "w") as f:
        json.dump(g, f)
    r = plan("--presets", presets, "--gpu", "my-free", *H100[:2])
    check(r is not None and r["cost_per_million_output_tokens"] is None and
          r["cost_per_million_input_tokens"] is None, "a GPU without a price: null costs")

    # 6. the generated table and doc agree with the data and the binary; stale ones fail
    rc, out = gen(DATA, "--check")
    check(rc == 0 and "up to date" in out, "gen_speed_bands --check passes on the checked-in table: " + out.strip()[-300:])
    stale = os.path.join(TMP, "table.c")
    shutil.copy(TABLE, stale)
    text = open(stale).read()
    with open(stale, "w") as f:
        f.write(re.sub(r"(\{\d+, \d+, )([\d.]+)", lambda m: m.group(1) + "0.0001", text, count=1))
    rc, out = gen(DATA, "--check", "--table", stale)
    check(rc == 1 and "table.c is not what" in out, "a table edited by hand fails the check: " + out.strip()[-300:])
    doc = json.load(open(DATA))
    case = next(c for c in doc["measurements"] if c["id"] == "nim-h100x2-llama33-70b-fp8-5000-500-c1")
    case["itl_ms"] = case["itl_ms"] * 3
    moved = os.path.join(TMP, "data.json")
    with open(moved, "w") as f:
        json.dump(doc, f)
    rc, out = gen(moved, "--check")
    check(rc == 1 and "speedband_table.c is not what" in out, "a measurement changed under the table fails the check")


try:
    main()
except (KeyError, TypeError, StopIteration) as e:
    check(False, "the answer lacks %r" % (e,))

shutil.rmtree(TMP, True)
tally.finish()
