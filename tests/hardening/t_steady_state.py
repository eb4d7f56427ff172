#!/usr/bin/python3
"""Steady state in simulate and solve on the real binary. A backlog that
builds among the running requests (the waiting queue hardly grows) is over
capacity; solve's verdicts come from a stream long enough to reach steady
state (sent for SLO_STEADY_LATENCIES x the answer's mean E2EL), so its
answer holds on a much longer run, the layout of one GPU fewer misses there,
and another seed gives the same count; the output says how many requests
every verdict ran.
Usage: t_steady_state.py path/to/kvplan. Ends with "N passed, N failed"."""
import json

from optionslib import check, main, run

SHAPE = ["--random-input-len", "2048", "--random-output-len", "300"]
ASK = ["--request-rate", "40", *SHAPE, "--goodput", "ttft:1000", "tpot:50"]
LONG = ["--num-prompts", "20000"]


def simulation(*args):
    status, out, err = run(["simulate", *args, "--format", "json"], timeout=120)
    check("simulate %s exits 0" % " ".join(args), status == 0, err)
    return json.loads(out)["result"]["simulation"] if status == 0 else {}


def solve(*args):
    status, out, err = run(["solve", *args, "--format", "json"], timeout=120)
    check("solve %s answers" % " ".join(args), status == 0, err)
    return json.loads(out) if status == 0 else {}


def test_a_running_backlog_is_over_capacity():
    # 4 x H100 as 2 x TP2 at 43 req/s: the waiting queue grows by about 2 a
    # second, under 5% of those sent, while the running batch takes the rest
    layout = ["--gpus", "4", "--tp", "2", "--request-rate", "43", *SHAPE]
    long = simulation(*layout, *LONG)
    check("a run of 20000 requests is over capacity", long.get("over_capacity") is True, long)
    sim = simulation(*layout, "--num-prompts", "4000")
    check("so is one of 4000: the requests in the system grow",
          sim.get("over_capacity") is True and sim.get("system_growth_per_s", 0) > 0, sim)
    check("it finishes fewer a second than are sent", sim.get("served_per_s", 99) < 43, sim)


def test_the_answer_holds_at_steady_state():
    doc = solve(*ASK)
    if not doc:
        return
    g, tp = doc["gpus"], doc["tp"]
    check("the stream was lengthened for steady state", doc["num_prompts"] > 1000
          and doc["num_prompts_asked"] == 1000, doc["num_prompts"])
    check("it is sent for at least 10 x the answer's mean E2EL",
          doc["num_prompts"] / 40 >= 10 * simulation(
              *ASK, "--gpus", str(g), "--tp", str(tp), "--num-prompts",
              str(doc["num_prompts"]))["mean_e2el_ms"] / 1000 * 0.999, doc["num_prompts"])
    sim = simulation(*ASK, "--gpus", str(g), "--tp", str(tp), *LONG)
    check("the answer meets it on 20000 requests", sim.get("goodput_share", 0) >= 0.95
          and not sim.get("over_capacity"), sim.get("goodput_share"))
    fewer = [c for c in doc["candidates"] if c["gpus"] == g - 1] or \
        [c for c in doc["candidates"] if c["gpus"] < g]
    best = max(fewer, key=lambda c: (c["gpus"], c["goodput_share"] or 0))
    sim = simulation(*ASK, "--gpus", str(best["gpus"]), "--tp", str(best["tp"]), *LONG)
    check("the best layout of fewer GPUs misses it on 20000 requests",
          sim.get("goodput_share", 1) < 0.95 or sim.get("over_capacity"), (best, sim))
    other = solve(*ASK, "--seed", "3")
    check("--seed 3 gives the same GPU count", other.get("gpus") == g, (g, other.get("gpus")))
    status, out, err = run(["solve", *ASK])
    check("the text says how many requests every layout ran",
          status == 0 and ("every layout ran %s requests, not 1,000" %
                           format(doc["num_prompts"], ",")) in out, out + err)


def test_a_held_back_client_does_not_meet_the_rate():
    status, out, err = run(["solve", *ASK, "--max-concurrency", "10", "--max-gpus", "8",
                            "--format", "json"])
    doc = json.loads(out) if out else {}
    rows = doc.get("candidates", [])
    check("--max-concurrency 10 at 40 req/s: not solved, exit 1", status == 1
          and doc.get("solved") is False, (status, err))
    check("no layout meets a rate its client could not send",
          rows and all(c["verdict"] != "meets" for c in rows), rows)
    check("they say the client held them back", any(c["verdict"] == "client" for c in rows), rows)
    status, out, err = run(["solve", *ASK, "--max-concurrency", "10", "--max-gpus", "8"])
    check("the text names --max-concurrency", status == 1
          and "client: --max-concurrency 10 let the client send fewer" in out, out + err)
    doc = solve(*ASK, "--max-concurrency", "2000")
    check("a cap the rate never reaches still meets it", doc.get("solved") is True, doc)


def test_the_cost_is_at_the_rate_offered():
    doc = solve(*ASK)
    if not doc:
        return
    offered = 40 * 300  # every answer has 300 tokens (no --random-range-ratio)
    check("the answer's output throughput is the rate offered",
          abs(doc["output_throughput"] - offered) < 1e-6 * offered
          and doc["throughput_basis"] == "offered", doc)
    check("the run's own is below it (its drain)", doc["run_output_throughput"] < offered, doc)
    usd = doc["usd_per_hour"] / (offered * 3600.0) * 1e6
    check("the cost a million output tokens is priced at it",
          abs(doc["cost_per_million_output_tokens"] - usd) < 1e-9 * usd, (doc, usd))
    over = [c for c in doc["candidates"] if c["verdict"] == "over capacity"]
    check("over capacity rows are priced at their run's throughput", over and all(
        c["throughput_basis"] == "run" and c["output_throughput"] == c["run_output_throughput"]
        for c in over), over)
    status, out, err = run(["solve", *ASK])
    check("the text says the throughput is the rate offered",
          "12,000 output tok/s (the rate offered: it keeps up)" in out, out + err)


def test_none_finished_is_said():
    layout = ["--gpus", "4", "--tp", "2", "--request-rate", "50", *SHAPE]
    sim = simulation(*layout)
    status, out, err = run(["simulate", *layout])
    if sim.get("served_requests") == 0:
        check("no request finished in the window: said, not 0.00 req/s",
              "none finished in the second half" in out and "0.00 req/s" not in out, out)
    else:
        check("the window's finished requests are counted", sim.get("served_requests", 0) > 0)
    status, out, err = run(["simulate", "--gpus", "4", "--tp", "2", "--request-rate", "43",
                            *SHAPE, "--num-prompts", "4000"])
    check("a backlog among the running requests is named so",
          "The requests running and waiting grow by" in out and "it finishes" in out, out)


if __name__ == "__main__":
    main([test_a_running_backlog_is_over_capacity, test_the_answer_holds_at_steady_state,
          test_a_held_back_client_does_not_meet_the_rate, test_the_cost_is_at_the_rate_offered,
          test_none_finished_is_said])
