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
    """{(family, engine, moe): {"decode": (cases, held, low, high), "ttft": (...)}} from the C source."""
    t = {}
    # each spread ends with the engines of its cases, a string
    pat = re.compile(r'\{"([^"]*)", "([^"]*)", (true|false), \{(\d+), (\d+), ([\d.]+), ([\d.]+), "[^"]*", "[^"]*"\}, '
                     r'\{(\d+), (\d+), ([\d.]+), ([\d.]+), "[^"]*", "[^"]*"\}\}')
    for m in pat.finditer(open(TABLE).read()):
        g = m.groups()
        t[(g[0], g[1], g[2] == "true")] = {"decode": (int(g[3]), int(g[4]), float(g[5]), float(g[6])),
                                           "ttft": (int(g[7]), int(g[8]), float(g[9]), float(g[10]))}
    return t


MIN = 3  # SPEEDBAND_MIN_CASES


def band(t, family, engine, figure, moe=False):
    """The band kvplan should take: of the model's kind, the pair's with 3 cases, else the
    family's, else every family's, else None (the stated band)."""
    for key in ((family, engine, moe), (family, "", moe), ("", "", moe)):
        e = t.get(key)
        if e and e[figure][0] >= MIN:
            return key, e[figure]
    return None, None


def group_name(key):
    kind = "MoE" if key[2] else "dense"
    if not key[0]:
        return kind + ", every GPU family"
    return "%s %s%s" % (kind, key[0], "/" + TITLES[key[1]] if key[1] else "")


def band_words(key, d):
    if not key[0]:
        return "%s to %s over %d %s cases of every GPU family" % (
            pct(d[2]), pct(d[3]), d[0], "MoE" if key[2] else "dense")
    return "%s to %s over %d %s cases" % (pct(d[2]), pct(d[3]), d[0], group_name(key))


def held(r):
    """Each figure with a band lies within it."""
    ok = True
    for f in ("tokens_per_s_per_user", "tokens_per_s_total", "ttft_seconds"):
        lo, hi, v = r.get(f + "_low"), r.get(f + "_high"), r.get(f)
        if lo is not None and not (lo <= v <= hi):
            ok = False
    return ok


def close(a, b):
    return a is not None and b is not None and abs(a - b) <= 1e-9 * abs(b)


def pct(r):
    return "%+d%%" % round((r - 1) * 100)


TITLES = {"vllm": "vLLM", "sglang": "SGLang", "trtllm": "TensorRT-LLM", "llama.cpp": "llama.cpp"}
T = table()
check(len(T) > 0, "the generated table has groups")


def gen(*extra):
    """tools/gen_speed_bands.py on this binary: its exit status and output."""
    p = subprocess.run(["/usr/bin/python3", GEN, K, *extra], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout + p.stderr


def main():
    """The checks; a field missing from the binary's answer fails the check that reads it."""
    # 1. JSON: low and high are the figure times the group's ratios, and hold the figure
    H100 = ["--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--context", "4096"]
    for engine in ("vllm", "sglang", "generic"):
        r = plan(*H100, "--engine", engine)
        if r is None:
            check(False, "plan on H100 under %s" % engine)
            continue
        key, d = band(T, "Hopper", engine, "decode")
        check(key is not None, "Hopper has a dense decode band for %s" % engine)
        if key is None:
            continue
        group = group_name(key)
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
        # no MFU is fitted: the first token rests on the default, whatever its band
        check(r["ttft_basis"] == "default", "%s: the first token's basis is %s" % (engine, r["ttft_basis"]))
        if key:
            check(close(r["ttft_seconds_low"], r["ttft_seconds"] * t[2]) and
                  close(r["ttft_seconds_high"], r["ttft_seconds"] * t[3]) and
                  r["ttft_band"]["group"] == group_name(key),
                  "%s: the first token's band, %s: %s" % (engine, key, r["ttft_band"]))
        check(held(r), "%s: a band does not hold its figure: %s" % (engine, {
            k: v for k, v in r.items() if k.startswith(("ttft_seconds", "tokens_per_s"))}))

    # 2. the text and Markdown reports write the band beside the figure
    key, d = band(T, "Hopper", "vllm", "decode")
    r = plan(*H100, "--engine", "vllm")
    want = "(%s)" % band_words(key, d)
    rc, text, _ = run("plan", *H100, "--engine", "vllm")
    speed = "%.1f tok/s %s" % (r["tokens_per_s_per_user"], want)
    check(rc == 0 and ("= " + speed) in text, "text: '%s' beside the speed per user" % speed)
    check("tok/s all replicas " + want in text, "text: the band beside the throughput")
    rc, md, _ = run("plan", *H100, "--engine", "vllm", "--format", "markdown")
    check(rc == 0 and ("**%.1f tok/s** %s |" % (r["tokens_per_s_per_user"], want)) in md,
          "markdown: the band beside the bold figure")

    # 3. a family without measurements: every family's band of the model's kind, said so;
    # T4's MBU is no fit of its own: the default, said so
    r = plan("--model", "llama-3.2-1b", "--gpu", "t4", "--context", "4096")
    key, d = band(T, "Turing", "", "decode")
    check(r is not None and key == ("", "", False) and r["speed_basis"] == "default" and
          r["ttft_basis"] == "default" and r["speed_band"]["group"] == "dense, every GPU family" and
          close(r["tokens_per_s_per_user_low"], r["tokens_per_s_per_user"] * d[2]) and held(r),
          "T4 (Turing, no measurement): every family's dense band, default basis: %s" % (
              r and r["speed_band"]))
    rc, text, _ = run("plan", "--model", "llama-3.2-1b", "--gpu", "t4", "--context", "4096")
    # (llama-3.2-1b is none of the cases' models: the band names them, then the basis)
    check(len(re.findall(r"dense cases of every GPU family; measured on [^;]*; default MBU\)",
                         text)) == 2 and
          len(re.findall(r"dense cases of every GPU family; measured on [^;]*; default MFU\)",
                         text)) == 1,
          "text: speed, throughput and first token each say their band and basis")
    # a MoE model takes the MoE cases' band, never the dense ones'
    r = plan("--model", "qwen3-30b-a3b", "--gpu", "h100-sxm", "--context", "4096", "--engine", "sglang")
    key, d = band(T, "Hopper", "sglang", "decode", moe=True)
    check(r is not None and key is not None and key[2] and r["speed_band"]["group"] == group_name(key) and
          r["speed_band"]["measurements"] == d[0] and held(r), "a MoE model: the MoE band %s: %s" % (
              key, r and r["speed_band"]))
    # llama.cpp's first token: the llama-bench pp512 cases of its family
    r = plan("--model", "llama-2-7b", "--gpu", "rtx-4090", "--context", "2048", "--engine", "llama.cpp")
    key, d = band(T, "Ada Lovelace", "llama.cpp", "ttft")
    check(r is not None and key == ("Ada Lovelace", "llama.cpp", False) and
          r["ttft_band"]["group"] == "dense Ada Lovelace/llama.cpp" and r["ttft_seconds_low"] is not None and
          held(r), "llama.cpp on an RTX 4090: the first token's band of the pp512 cases: %s" % (
              r and r["ttft_band"]))

    # the bands are those of the cases doc/SPEED-BANDS.md lists, the left-out cases in none
    doc_rows = [l.split(" | ") for l in open(os.path.join(ROOT, "doc", "SPEED-BANDS.md"))
                if l.startswith("| ") and l.count(" | ") == 6 and not l.startswith("| case") and
                re.search(r"\| (fit|held out|left out) \|", l)]
    engines = {"vllm": "vllm", "sglang": "sglang", "llama.cpp": "llama.cpp", "trtllm": "trtllm"}
    cases = [dict(kind=c[1] == "MoE", family=c[2], engine=engines.get(c[3], ""), set=c[4],
                  decode=float(c[5]), ttft=float(c[6].strip(" |\n")) if c[6].strip(" |\n") else None)
             for c in doc_rows]
    check(len(cases) > 50 and any(c["set"] == "left out" for c in cases), "SPEED-BANDS.md lists the cases")
    for (family, engine, moe), e in T.items():
        mine = [c for c in cases if c["set"] != "left out" and c["kind"] == moe and
                (not family or c["family"] == family) and (not engine or c["engine"] == engine)]
        for fig in ("decode", "ttft"):
            v = [c[fig] for c in mine if c[fig] is not None]
            want = (len(v), min(v + [1.0]), max(v + [1.0]))
            got = (e[fig][0], e[fig][2], e[fig][3])
            check(got == want, "%s band of %s: %s, the cases not left out give %s" % (
                fig, (family, engine, moe), got, want))

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
    check(r is not None and r["speed_band"]["group"] == group_name(band(T, "Hopper", "vllm", "decode")[0]),
          "a preset of one's own with family Hopper takes Hopper's band")
    r = plan("--presets", presets, "--gpu", "my-nofamily", *H100[:2], "--engine", "vllm")
    check(r is not None and r["speed_band"]["group"] == "dense, every GPU family" and held(r),
          "a preset without a family takes every family's band")
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
    # the output tokens' price is of the users at the service level: none; a prompt's
    # is one prompt's prefill, whatever the decode target
    check(r["cost_per_million_output_tokens"] is None and r["cost_per_million_input_tokens"] is not None,
          "a target nobody keeps: no price per million output tokens, a prompt's still")
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
