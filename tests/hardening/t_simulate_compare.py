#!/usr/bin/python3
"""kvplan simulate --compare FILE on the real binary: the workload comes from
a vllm bench serve --save-result JSON or an sglang.bench_serving JSONL run
unless an option says otherwise, each measured figure is printed beside the
simulation's own (the same numbers result.simulation holds) with the error,
and a bad file names the file and field with exit status 2 and nothing on
standard output.
Usage: t_simulate_compare.py path/to/kvplan. Ends with "N passed, N failed"."""
import json
import os

from optionslib import ROOT, TMP, check, main, run

BENCH = os.path.join(ROOT, "tests", "data", "bench")
VLLM = os.path.join(BENCH, "vllm-serve.json")
DETAILED = os.path.join(BENCH, "vllm-serve-detailed.json")
SGLANG = os.path.join(BENCH, "sglang-bench-serving.jsonl")


def sim(*args):
    """simulate ARGS --format json: (status, result.simulation or None, stderr)."""
    status, out, err = run(["simulate", *args, "--format", "json"])
    if status != 0:
        return status, None, err
    return status, json.loads(out)["result"]["simulation"], err


def load(path, line=-1):
    with open(path) as f:
        lines = [l for l in f.read().replace("Infinity", "null").splitlines() if l.strip()]
    return json.loads(lines[line])


def test_vllm_workload_comes_from_the_file():
    run_ = load(DETAILED)
    status, s, err = sim("--compare", DETAILED)
    check("--compare a --save-result JSON exits 0", status == 0, err)
    check("num_prompts from the file", s["num_prompts"] == run_["num_prompts"], s["num_prompts"])
    check("request_rate from the file", s["request_rate"] == run_["request_rate"])
    check("no cap: max_concurrency null as in the file", s["max_concurrency"] is None)
    ins = sum(run_["input_lens"]) / len(run_["input_lens"])
    check("the input length is --save-detailed's mean",
          s["workload"]["random_input_len"] == round(ins), s["workload"])
    c = s["compare"]
    check("compare names the file and the tool", c["file"] == DETAILED
          and c["tool"] == "vllm bench serve" and c["lengths"] == "means", c)
    check("the workload's figures taken are listed",
          c["workload_from_file"] == ["num_prompts", "request_rate", "burstiness",
                                      "max_concurrency", "input_len", "output_len"],
          c["workload_from_file"])
    # the same run as the options spelled out
    status, plain, err = sim("--num-prompts", str(run_["num_prompts"]), "--request-rate", "4",
                             "--random-input-len", str(round(ins)), "--random-output-len",
                             str(round(sum(run_["output_lens"]) / len(run_["output_lens"]))))
    same = all(plain[k] == s[k] for k in ("duration", "mean_ttft_ms", "p99_e2el_ms"))
    check("the same simulation as its options given by hand", status == 0 and same, err)


def test_each_figure_beside_the_prediction():
    run_ = load(DETAILED)
    status, s, err = sim("--compare", DETAILED)
    m = s["compare"]["metrics"]
    expected = [k for k in ("completed", "duration", "request_throughput", "output_throughput",
                            "total_token_throughput") if k in run_] + [
        "%s_%s_ms" % (stat, what) for what in ("ttft", "tpot", "itl", "e2el")
        for stat in ("mean", "median", "p90", "p95", "p99") if "%s_%s_ms" % (stat, what) in run_]
    check("every measured figure, in vLLM's order, and no other", list(m) == expected, list(m))
    check("std is not compared", "std_ttft_ms" not in m)
    bad = [k for k in m if m[k]["measured"] != run_[k] or m[k]["predicted"] != s[k]]
    check("measured as the file says, predicted as result.simulation says", not bad, bad)
    bad = [k for k in m if abs(m[k]["error_pct"]
                               - (m[k]["predicted"] - m[k]["measured"]) / m[k]["measured"] * 100)
           > 1e-9]
    check("error_pct is (predicted - measured) / measured", not bad, bad)
    status, out, err = run(["simulate", "--compare", DETAILED])
    check("the text names the file", "Compared with %s (vllm bench serve --save-result JSON)"
          % DETAILED in out, out[-800:])
    row = "Mean TTFT (ms) %12.2f %12.2f %+8.1f%%" % (
        m["mean_ttft_ms"]["measured"], m["mean_ttft_ms"]["predicted"],
        m["mean_ttft_ms"]["error_pct"])
    check("a row: measured, predicted, error", any(
        " ".join(l.split()) == " ".join(row.split()) for l in out.splitlines()), row)


def test_options_override_the_file():
    status, s, err = sim("--compare", VLLM, "--num-prompts", "32", "--max-concurrency", "8")
    check("--num-prompts over the file's", status == 0 and s["num_prompts"] == 32, err)
    check("--max-concurrency over the file's", s["max_concurrency"] == 8)
    taken = s["compare"]["workload_from_file"]
    check("the overridden are not listed as taken",
          "num_prompts" not in taken and "max_concurrency" not in taken
          and "request_rate" in taken, taken)
    check("completed compared with what was asked",
          s["compare"]["metrics"]["completed"]["predicted"] == 32)


def test_sglang_jsonl_last_run():
    last = load(SGLANG)
    status, s, err = sim("--compare", SGLANG)
    check("--compare an sglang JSONL exits 0", status == 0, err)
    c = s["compare"]
    check("the last of the runs", c["runs"] == 3 and c["line"] == 3
          and c["tool"] == "sglang.bench_serving", c)
    check("its cap and lengths (ratio 1: fixed lengths)",
          s["max_concurrency"] == last["max_concurrency"]
          and s["workload"]["random_input_len"] == last["random_input_len"]
          and s["workload"]["random_range_ratio"] == 0, s["workload"])
    check("no num_prompts in sglang's file: its completed",
          s["num_prompts"] == last["completed"])
    check("sglang's e2e latency under vLLM's key",
          c["metrics"]["mean_e2el_ms"]["measured"] == last["mean_e2e_latency_ms"])
    check("its p95 ITL is compared", c["metrics"]["p95_itl_ms"]["measured"] == last["p95_itl_ms"])


def test_over_capacity_has_no_latency_prediction():
    status, s, err = sim("--compare", DETAILED, "--request-rate", "400", "--num-prompts", "400",
                         "--random-input-len", "4000", "--random-output-len", "400")
    check("a run past capacity", status == 0 and s["over_capacity"], err)
    m = s["compare"]["metrics"]
    check("latencies: measured, no prediction, no error",
          m["mean_ttft_ms"]["predicted"] is None and m["mean_ttft_ms"]["error_pct"] is None
          and m["mean_ttft_ms"]["measured"] > 0, m["mean_ttft_ms"])
    check("throughput still compared", m["output_throughput"]["predicted"] > 0)


def bad(name, text, needle):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write(text)
    status, out, err = run(["simulate", "--compare", path])
    check("%s: exit 2, nothing on stdout" % name, status == 2 and out == "", (status, err))
    check("%s: the message names the file and '%s'" % (name, needle),
          path in err and needle in err, err)


def test_bad_files():
    bad("text.txt", "Mean TTFT (ms): 3\n", "--save-result JSON")
    bad("field.json", '{"mean_ttft_ms": "fast", "completed": 3}\n', ":1: mean_ttft_ms")
    bad("nocompleted.json", '{"mean_ttft_ms": 3}\n', ":1: completed")
    bad("rate.json", '{"mean_ttft_ms": 3, "completed": 2, "request_rate": 0}\n', "request_rate")
    bad("line2.jsonl", '{"mean_ttft_ms": 3, "completed": 2}\n{"mean_ttft_ms": 1, '
        '"completed": -1}\n', ":2: completed")
    bad("prompts.json", '{"mean_ttft_ms": 3, "completed": 2, "num_prompts": 2000000}\n',
        "num_prompts")
    status, out, err = run(["simulate", "--compare", os.path.join(TMP, "none.json")])
    check("a missing file: exit 2 naming it", status == 2 and "none.json" in err, err)
    status, out, err = run(["simulate", "--compare", os.path.join(BENCH, "llama-bench.json")])
    check("another benchmark's JSON is refused", status == 2 and "llama-bench.json:1" in err, err)


def test_another_model_is_said():
    """The file's model_id against the plan's model: the same one (org, case, '-Instruct'
    aside) says nothing; another is a warning naming both and --model."""
    vllm = os.path.join(BENCH, "vllm-serve.json")
    status, out, err = run(["simulate", "--compare", vllm])
    check("Llama-3.1-8B-Instruct against llama-3.1-8b: no warning", status == 0 and
          "warning" not in err, err)
    status, out, err = run(["simulate", "--compare", vllm, "--model", "llama-3.1-70b", "--gpus",
                            "4"])
    check("against llama-3.1-70b: a warning naming both", status == 0 and
          "the run served meta-llama/Llama-3.1-8B-Instruct; the plan's model is llama-3.1-70b"
          in err, err)


if __name__ == "__main__":
    main([test_vllm_workload_comes_from_the_file, test_each_figure_beside_the_prediction,
          test_options_override_the_file, test_sglang_jsonl_last_run,
          test_over_capacity_has_no_latency_prediction, test_bad_files, test_another_model_is_said])
