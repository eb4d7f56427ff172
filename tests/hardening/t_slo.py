#!/usr/bin/python3
"""Sizing for a service level on the real binary. solve --request-rate R
--goodput KEY:MS: the answer keeps the objectives for the target share, no
layout of fewer GPUs run does, `kvplan simulate` of the answer's layout gives
the same share, a higher rate or target never takes fewer GPUs, the bounds
(--max-gpus, --max-plans) say when nothing is found, a model that does not fit
is memory. sweep with the workload: request-rate and max-concurrency axes
(ranges, points, lists), the run's columns in CSV and JSON, the frontier
marked as its definition says and --pareto printing only it. Bad input names
the option, exit status 2, nothing on standard output; --name=value reads as
--name value.
Usage: t_slo.py path/to/kvplan. Ends with "N passed, N failed"."""
import json

from optionslib import check, main, run

ASK = ["--request-rate", "40", "--random-input-len", "2048", "--random-output-len", "300",
       "--goodput", "ttft:1000", "tpot:50"]
SMALL = ["--num-prompts", "100", "--random-input-len", "256", "--random-output-len", "16"]


def solve(*args):
    status, out, err = run(["solve", *args, "--format", "json"])
    return status, (json.loads(out) if out else None), err


def test_the_answer_keeps_it_and_fewer_gpus_do_not():
    status, doc, err = solve(*ASK)
    check("solve --request-rate 40 ... exits 0", status == 0 and not err, err)
    check("it is solved, mode slo", doc["solved"] and doc["mode"] == "slo"
          and doc["format"] == "kvplan-solve", doc)
    g, tp, repl = doc["gpus"], doc["tp"], doc["replicas"]
    check("GPUs are TP x replicas", g == tp * repl and doc["pp"] == 1, doc)
    check("the share meets the target", doc["goodput_share"] >= doc["goodput_target"] == 0.95)
    check("its p95s keep the objectives", doc["p95_ttft_ms"] <= 1000 and doc["p95_tpot_ms"] <= 50,
          doc)
    # the costs under the names plan, sweep and simulate give them, output and input
    per_m = doc["usd_per_hour"] / (doc["output_throughput"] * 3600) * 1e6
    check("a cost per million output tokens, at output_throughput",
          abs(doc.get("cost_per_million_output_tokens", -1) - per_m) < 1e-9 * per_m, doc)
    check("a cost per million input tokens", (doc.get("cost_per_million_input_tokens") or 0) > 0,
          doc)
    check("no usd_per_million key anywhere", "usd_per_million" not in json.dumps(doc))
    check("every candidate run has both costs",
          all("cost_per_million_output_tokens" in c and "cost_per_million_input_tokens" in c
              for c in doc["candidates"]))
    fewer = [c for c in doc["candidates"] if c["gpus"] < g]
    check("layouts of fewer GPUs were run", fewer, doc["candidates"])
    check("none of fewer GPUs meets it", all(c["verdict"] != "meets" for c in fewer), fewer)
    same = {c["tp"] for c in doc["candidates"] if c["gpus"] == g}
    check("every TP of that count dividing the heads is listed",
          same == {t for t in (1, 2, 4, 8, 16, 32) if g % t == 0}, same)
    check("each failure says why", all(c["verdict"] in ("meets", "SLO", "over capacity", "memory")
                                       for c in doc["candidates"]))
    # the same stream on the answer's layout, by simulate
    n = ["--num-prompts", str(doc["num_prompts"])]  # the stream solve ran, lengthened
    st, out, err = run(["simulate", *ASK, *n, "--gpus", str(g), "--tp", str(tp), "--format",
                        "json"])
    sim = json.loads(out)["result"]["simulation"] if st == 0 else {}
    check("simulate of that layout gives the same share",
          abs(sim.get("goodput_share", -1) - doc["goodput_share"]) < 1e-12, (sim, err))
    if fewer:
        c = max(fewer, key=lambda c: c["gpus"])
        st, out, err = run(["simulate", *ASK, *n, "--gpus", str(c["gpus"]), "--tp",
                            str(c["tp"]), "--format", "json"])
        share = json.loads(out)["result"]["simulation"]["goodput_share"] if st == 0 else 1
        check("simulate of a smaller layout misses it", share < 0.95, (c, share))


def test_text_answer():
    status, out, err = run(["solve", *ASK])
    check("solve prints the answer", status == 0 and out.startswith("40 req/s (Poisson)")
          and "95% of requests within ttft 1000 ms, tpot 50 ms; up to 64 GPUs" in out, out + err)
    for word in ("GPUs  ", "Goodput", "p95         TTFT", "Throughput", "a million output tokens",
                 "Layouts simulated", "over capacity", "meets"):
        check("the answer has %r" % word, word in out, out)
    starred = [l for l in out.splitlines() if l.startswith("*")]
    check("one layout starred, the answer", len(starred) == 1 and starred[0].endswith("meets"),
          out)


def test_equals_forms():
    spaced = run(["solve", *ASK, "--goodput-target", "0.9", "--max-gpus", "16"])
    joined = run(["solve", "--request-rate=40", "--random-input-len=2048",
                  "--random-output-len=300", "--goodput=ttft:1000", "tpot:50",
                  "--goodput-target=0.9", "--max-gpus=16"])
    check("solve --name=value reads as --name value", spaced == joined and spaced[0] == 0,
          (spaced, joined))


def test_more_load_or_a_higher_target_needs_no_fewer():
    gpus = {}
    for target in ("0.5", "0.95", "1"):
        status, doc, err = solve(*ASK, "--goodput-target", target)
        gpus[target] = doc["gpus"] if status == 0 else None
    check("target 0.5 <= 0.95 <= 1 in GPUs", None not in gpus.values()
          and gpus["0.5"] <= gpus["0.95"] <= gpus["1"], gpus)
    status, doc, err = solve(*ASK, "--request-rate", "80")
    check("twice the rate, no fewer GPUs", status == 0 and doc["gpus"] >= gpus["0.95"], doc)


def test_bounds_say_so():
    status, out, err = run(["solve", *ASK, "--max-gpus", "1"])
    check("--max-gpus 1: exit 1", status == 1 and not err, err)
    check("says nothing keeps it", "no layout of up to 1 GPU keeps it; raise --max-gpus" in out,
          out)
    status, doc, err = solve(*ASK, "--max-gpus", "1")
    check("JSON: solved false", status == 1 and doc["solved"] is False and "gpus" not in doc, doc)
    status, doc, err = solve(*ASK, "--max-plans", "2")
    check("--max-plans 2: stopped, exit 1", status == 1 and doc["out_of_runs"]
          and len(doc["candidates"]) == 2 and not doc["solved"], doc)
    status, out, err = run(["solve", *ASK, "--max-plans", "2"])
    check("the text says it stopped", "stopped after 2 simulations" in out, out)
    status, doc, err = solve("--model", "llama-3.1-70b", "--gpu", "l4", "--max-gpus", "2", *SMALL,
                             "--request-rate", "1", "--goodput", "ttft:1000")
    check("70B on two L4s: memory, not solved", status == 1 and doc["candidates"]
          and all(c["verdict"] == "memory" for c in doc["candidates"]), doc)


def refused(args, flag, what=""):
    status, out, err = run(args)
    check("%s: exit 2 naming %s" % (" ".join(args), flag),
          status == 2 and out == "" and flag in err and what in err, (status, out, err))


def test_bad_input():
    slo = ["--goodput", "ttft:1000"]
    for rate in ("0", "-1", "abc", "nan"):
        refused(["solve", "--request-rate", rate, *slo], "--request-rate")
    refused(["solve", "--request-rate=0", *slo], "--request-rate")
    refused(["solve", "--request-rate", "inf", *slo], "--request-rate", "finite")
    for target in ("0", "1.5", "-0.1", "x"):
        refused(["solve", "--request-rate", "5", *slo, "--goodput-target", target],
                "--goodput-target")
    refused(["solve", "--request-rate", "5", *slo, "--goodput-target=2"], "--goodput-target")
    refused(["solve", *slo], "--request-rate", "needs")
    refused(["solve", "--goodput-target", "0.9"], "--request-rate", "needs")
    refused(["solve", "--request-rate", "5"], "--goodput", "needs")
    refused(["solve", "--users", "4", "--request-rate", "5", *slo], "--users", "two questions")
    refused(["solve", "--max-context", "--request-rate", "5", *slo], "--max-context")
    refused(["solve", "--request-rate", "5", *slo, "--max-pp", "2"], "--max-pp")
    refused(["solve", "--request-rate", "5", *slo, "--gpu", "h100-sxm", "--gpu", "h200"], "--gpu")
    refused(["solve", "--request-rate", "5", *slo, "--random-input-len", "9000"], "--context")
    refused(["solve", "--request-rate", "5", "--goodput", "ttft:1000", "stray"], "--goodput",
            "'stray' is not KEY:MS")
    refused(["solve", "--request-rate", "5", "--goodput", "fast:1"], "--goodput")
    refused(["solve", "--users", "4", "stray"], "stray", "unexpected argument")


def sweep(*args):
    status, out, err = run(["sweep", *SMALL, *args, "--format", "json"])
    return status, (json.loads(out) if status == 0 else None), err


def test_sweep_rate_axis():
    status, out, err = run(["sweep", *SMALL, "--vary", "request-rate=1..4", "--format", "csv"])
    lines = out.splitlines()
    head = lines[0].split(",") if lines else []
    check("sweep --vary request-rate=1..4: 4 rows", status == 0 and len(lines) == 5, out + err)
    for col in ("request_rate", "max_concurrency", "request_throughput", "output_throughput",
                "output_throughput_per_gpu", "output_throughput_per_user", "median_ttft_ms",
                "p95_ttft_ms", "median_tpot_ms", "p95_tpot_ms", "median_itl_ms", "p95_itl_ms",
                "request_goodput", "goodput_share", "over_capacity", "pareto", "max_users"):
        check("the CSV has %s" % col, col in head, head)
    rates = [l.split(",")[head.index("request_rate")] for l in lines[1:]]
    check("one row a rate, steps of 1", rates == ["1", "2", "3", "4"], rates)
    caps = [l.split(",")[head.index("max_concurrency")] for l in lines[1:]] if head else []
    check("no client cap: max_concurrency empty in the CSV (null in JSON), not 0",
          caps == ["", "", "", ""], caps)
    status, rows, err = sweep("--vary", "request-rate=1..40:5")
    check("request-rate=1..40:5: 5 evenly spaced",
          status == 0 and [r["request_rate"] for r in rows] == [1, 10.75, 20.5, 30.25, 40], rows)
    status, rows, err = sweep("--vary", "request-rate=1,5,20", "--goodput", "ttft:500")
    check("a list: its rows", status == 0 and [r["request_rate"] for r in rows] == [1, 5, 20])
    check("goodput's share given", all(0 <= r["goodput_share"] <= 1 for r in rows), rows)
    check("no client cap: max_concurrency null", all(r["max_concurrency"] is None for r in rows), rows)
    eq = run(["sweep", *SMALL, "--vary=request-rate=1,5,20", "--goodput=ttft:500", "--format=json"])
    check("--vary=request-rate=... reads as --vary request-rate=...",
          eq == run(["sweep", *SMALL, "--vary", "request-rate=1,5,20", "--goodput", "ttft:500",
                     "--format", "json"]))
    check("the first token waits longer under load", rows[-1]["median_ttft_ms"] >=
          rows[0]["median_ttft_ms"], rows)


def test_sweep_concurrency_axis_and_frontier():
    status, rows, err = sweep("--vary=max-concurrency=1..16")
    check("max-concurrency=1..16: 5 rows, powers of two", status == 0
          and [r["max_concurrency"] for r in rows] == [1, 2, 4, 8, 16], (rows, err))
    tput = [r["output_throughput"] for r in rows]
    check("more in flight, more output", tput == sorted(tput), tput)
    user = [r["output_throughput_per_user"] for r in rows]
    check("more in flight, slower each", user == sorted(user, reverse=True), user)
    status, rows, err = sweep("--vary", "max-concurrency=1,4,16", "--vary", "gpus=1..2")
    check("two axes: 6 rows", status == 0 and len(rows) == 6, err)
    pts = [(r["output_throughput_per_gpu"], r["output_throughput_per_user"]) for r in rows]
    want = [not any(g2 >= g and u2 >= u and (g2, u2) != (g, u) for g2, u2 in pts)
            for g, u in pts]
    check("pareto marks the rows no other beats on both", [r["pareto"] for r in rows] == want,
          (pts, [r["pareto"] for r in rows]))
    status, only, err = sweep("--vary", "max-concurrency=1,4,16", "--vary", "gpus=1..2",
                              "--pareto")
    check("--pareto prints only those", status == 0
          and [r["value"] for r in only] == [r["value"] for r in rows if r["pareto"]], only)
    status, rows, err = sweep("--vary", "request-rate=1000,2000", "--num-prompts", "300")
    check("over capacity: latencies null, off the frontier", status == 0 and all(
        r["over_capacity"] and r["p95_ttft_ms"] is None and not r["pareto"] for r in rows), rows)


def test_sweep_table():
    status, out, err = run(["sweep", *SMALL, "--vary", "max-concurrency=1..4"])
    head = out.splitlines()[1] if status == 0 else ""
    check("the table's heads end with FRONTIER, no GOODPUT without --goodput",
          head.split()[-1] == "FRONTIER" and "GOODPUT" not in head, out + err)
    status, out, err = run(["sweep", *SMALL, "--vary", "max-concurrency=1..4", "--goodput",
                            "ttft:100"])
    head = out.splitlines()[1] if status == 0 else ""
    check("with --goodput, GOODPUT before FRONTIER", head.split()[-2:] == ["GOODPUT", "FRONTIER"],
          out + err)
    rows = out.splitlines()[2:5]
    check("a row a cap (1, 2, 4), each with its share", len(rows) == 3 and all("%" in r for r in rows), out)


def test_sweep_bad_input():
    for vary, what in (("request-rate=0..4", "above 0"), ("request-rate=a", "rate"),
                       ("request-rate=4..1", "FROM"), ("request-rate=1..4:1", "POINTS"),
                       ("max-concurrency=0..2", "max-concurrency"),
                       ("max-concurrency=1..8:3", "POINTS"), ("request-rate=", "values")):
        refused(["sweep", "--vary", vary], "--vary", what)
    refused(["sweep", "--vary", "request-rate=1,2", "--vary", "request-rate=3"], "--vary",
            "same axis")
    refused(["sweep", "--vary", "request-rate=1..2000"], "--max-rows")
    refused(["sweep", "--vary", "gpus=1..2", "--pareto"], "--pareto")
    refused(["sweep", "--vary", "gpus=1..2", "--request-rate", "0"], "--request-rate")
    refused(["sweep", "--vary", "gpus=1..2", "stray"], "stray", "unexpected argument")


def test_each_engine_is_sized():
    # vLLM's startup check (max_num_batched_tokens >= max_num_seqs,
    # vllm/config/scheduler.py SchedulerConfig) is vLLM's alone: llama.cpp's
    # slots have no token budget a step, and are sized like the others
    for engine in ("llama.cpp", "sglang", "trtllm", "vllm"):
        status, doc, err = solve("--engine", engine, "--model", "llama-3.1-8b", "--request-rate",
                                 "2", *SMALL, "--goodput", "ttft:1000", "tpot:50")
        check("solve --engine %s --request-rate 2 exits 0 and is solved" % engine,
              status == 0 and doc and doc["solved"], err)


if __name__ == "__main__":
    main([test_the_answer_keeps_it_and_fewer_gpus_do_not, test_text_answer, test_equals_forms,
          test_more_load_or_a_higher_target_needs_no_fewer, test_bounds_say_so, test_bad_input,
          test_sweep_rate_axis, test_sweep_concurrency_axis_and_frontier, test_sweep_table,
          test_sweep_bad_input, test_each_engine_is_sized])
