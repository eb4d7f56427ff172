#!/usr/bin/python3
"""Cost per million tokens in sweep, solve and simulate, each at that command's
own throughput, with the price it rests on stated:

- sweep (CSV, JSON, table): price_usd_per_hour, cost_per_million_output_tokens
  and cost_per_million_input_tokens after the engine's columns, the price over the row's
  tokens_per_s_total an hour; a simulated sweep's last columns the same names
  at the run's output_throughput, its other columns in their places;
- simulate --format json: result.simulation's costs at the run's
  output_throughput (not the static plan's tokens_per_s_total), and a Cost line
  in the text naming the price;
- solve --format json: each solved row's costs, those of its layout planned.
Usage: t_costs_everywhere.py KVPLAN. Ends with "N passed, N failed"."""
import csv
import io
import json
import subprocess
import sys
from tally import check  # noqa: E402
import tally  # noqa: E402

K = sys.argv[1]
ENV = {"XDG_CONFIG_HOME": "/nonexistent", "PATH": "/usr/bin:/bin"}
COSTS = ["price_usd_per_hour", "cost_per_million_output_tokens", "cost_per_million_input_tokens"]


def run(*args):
    p = subprocess.run([K, *args], capture_output=True, text=True, timeout=60, env=ENV)
    return p.returncode, p.stdout


def per_million(price, rate):
    return price / (rate * 3600) * 1e6


def close(a, b, tol=1e-6):
    return a is not None and b is not None and abs(a - b) <= tol * abs(b)


def num(row, key):
    """A CSV cell as a number (NaN when missing or empty)."""
    v = row.get(key)
    return float(v) if v else float("nan")


# sweep, planned rows
rc, out = run("sweep", "--vary", "context=2k..8k", "--model", "llama-3.1-8b", "--format", "csv")
rows = list(csv.DictReader(io.StringIO(out)))
head = out.splitlines()[0].split(",") if out else []
# after the costs, the columns added later (the cost per user-hour and the
# speed bands, t_sweep_bands.py), so that the costs keep their places
LATER = ["cost_per_user_hour", "tokens_per_s_per_user_low", "tokens_per_s_per_user_high",
         "ttft_seconds_low", "ttft_seconds_high"]
check(rc == 0 and head[-8:-5] == COSTS and head[-10:-8] == ["engine_version", "engine_title"]
      and head[-5:] == LATER, "sweep CSV: the costs after the engine, then %s: %s" %
      (LATER, head[-11:]))
for r in rows:
    # CSV prints 6 significant digits
    check(close(num(r, "cost_per_million_output_tokens"),
                per_million(num(r, "price_usd_per_hour"), num(r, "tokens_per_s_total")), 1e-4),
          "sweep CSV %s: the output cost is the price over tokens_per_s_total" % r["value"])
rc, out = run("sweep", "--vary", "gpus=1..2", "--model", "llama-3.1-8b", "--format", "json")
js = json.loads(out) if rc == 0 else []
check(len(js) == 2 and all(close(j.get("cost_per_million_output_tokens"),
                                 per_million(j.get("price_usd_per_hour", 0), j["tokens_per_s_total"]))
                           for j in js), "sweep JSON: the costs of each row")
check(len(js) == 2 and close(js[1].get("price_usd_per_hour"), 2 * js[0].get("price_usd_per_hour", 0)),
      "sweep JSON: the price is every GPU's")
rc, out = run("sweep", "--vary", "context=2k..4k", "--model", "llama-3.1-8b")
check(rc == 0 and "$/1M OUT" in out and "(2.69/h per GPU, the preset's price)".replace("(", "($") in out,
      "sweep table: a $/1M OUT column and the price it rests on")

# sweep, simulated rows: the run's own throughput, the run's columns in their places
rc, out = run("sweep", "--vary", "request-rate=2,8", "--model", "llama-3.1-8b", "--num-prompts", "20",
              "--format", "csv")
rows = list(csv.DictReader(io.StringIO(out)))
head = out.splitlines()[0].split(",") if out else []
check(rc == 0 and head[-4:] == ["pareto"] + COSTS and head.count("price_usd_per_hour") == 1,
      "simulated sweep CSV: the run's costs after pareto, once: %s" % head[-6:])
for r in rows:
    want = per_million(num(r, "price_usd_per_hour"), num(r, "output_throughput"))
    check(close(num(r, "cost_per_million_output_tokens"), want, 1e-4),
          "simulated sweep %s: the cost at the run's output_throughput" % r["value"])

# simulate
args = ["simulate", "--model", "llama-3.1-8b", "--num-prompts", "40", "--request-rate", "4"]
rc, out = run(*args, "--format", "json")
res = json.loads(out)["result"] if rc == 0 else {}
sim = res.get("simulation", {})
want = per_million(res.get("price_usd_per_hour", 0), sim.get("output_throughput", 1))
check(close(sim.get("cost_per_million_output_tokens"), want),
      "simulate JSON: the cost at the run's output_throughput: %s, want %s"
      % (sim.get("cost_per_million_output_tokens"), want))
check(not close(sim.get("cost_per_million_output_tokens"), res.get("cost_per_million_output_tokens")),
      "simulate JSON: the run's cost is not the static plan's")
inp = per_million(res.get("price_usd_per_hour", 0),
                  sim.get("total_input_tokens", 0) / sim.get("duration", 1))
check(close(sim.get("cost_per_million_input_tokens"), inp), "simulate JSON: the input cost")
rc, out = run(*args)
check(rc == 0 and ("Cost        $%.4f per 1M output tokens" % want) in out and
      "the preset's price" in out, "simulate text: the Cost line with its price")

# solve: each row's costs are its layout's, planned
rc, out = run("solve", "--model", "llama-3.1-70b", "--users", "60", "--min-tok-s", "20",
              "--gpu", "h100-sxm", "--gpu", "a100-80gb", "--format", "json")
doc = json.loads(out) if out else {}
for row in doc.get("rows", []):
    if not row["solved"]:
        continue
    rc, p = run("plan", "--model", "llama-3.1-70b", "--min-tok-s", "20", "--gpu", row["gpu"],
                "--gpus", str(row["gpus"]), "--tp", str(row["tp"]), "--format", "json")
    plan = json.loads(p)["result"]
    check(close(row.get("cost_per_million_output_tokens"), plan["cost_per_million_output_tokens"]) and
          close(row.get("cost_per_million_input_tokens"), plan["cost_per_million_input_tokens"]),
          "solve JSON %s: the costs of its layout planned" % row["gpu"])
    check(close(row.get("cost_per_million_output_tokens"),
                per_million(row["usd_per_hour"], plan["tokens_per_s_total"])),
          "solve JSON %s: usd_per_hour over the layout's throughput" % row["gpu"])
check(len(doc.get("rows", [])) == 2, "solve: two rows")
rc, out = run("solve", "--model", "llama-3.1-70b", "--users", "60", "--gpu", "h100-sxm")
check("$/1M OUT" in out and "preset's" in out, "solve table: $/1M OUT and the price's basis")
tally.finish()
