#!/usr/bin/python3
"""kvplan simulate on the real binary: every workload option changes the run
as vllm bench serve's does, the JSON carries vLLM's result keys under
result.simulation, the same seed gives the same bytes, --goodput takes
vLLM's spelling, a rate past capacity is said without percentiles, and bad
input names the option with exit status 2 and nothing on standard output.
Usage: t_simulate.py path/to/kvplan. Ends with "N passed, N failed"."""
import json

from optionslib import check, main, run

SMALL = ["--num-prompts", "40", "--random-input-len", "256", "--random-output-len", "16"]


def sim(*args):
    """simulate SMALL ARGS --format json: (status, result.simulation or None, stderr)."""
    status, out, err = run(["simulate", *SMALL, *args, "--format", "json"])
    if status != 0:
        return status, None, err
    return status, json.loads(out)["result"]["simulation"], err


VLLM_KEYS = ["duration", "completed", "failed", "total_input_tokens", "total_output_tokens",
             "request_throughput", "request_goodput", "output_throughput",
             "total_token_throughput"] + [
    "%s_%s_ms" % (stat, metric) for metric in ("ttft", "tpot", "itl", "e2el")
    for stat in ("mean", "median", "std", "p90", "p95", "p99")]
OWN_KEYS = ["mean_running", "max_running", "mean_waiting", "max_waiting", "peak_kv_usage",
            "preemptions", "steps", "over_capacity", "queue_growth_per_s", "goodput_share"]


def test_json_carries_vllms_keys():
    status, out, err = run(["simulate", *SMALL, "--format", "json"])
    check("simulate --format json exits 0", status == 0 and not err, err)
    doc = json.loads(out)
    check("the JSON is the plan's snapshot", "scenario" in doc and "max_users" in doc["result"])
    s = doc["result"]["simulation"]
    missing = [k for k in VLLM_KEYS + OWN_KEYS if k not in s]
    check("result.simulation has vLLM's keys and the queue's", not missing, missing)
    check("every request completes", s["completed"] == 40 and s["failed"] == 0)
    check("the tokens add up", s["total_input_tokens"] == 40 * 256
          and s["total_output_tokens"] == 40 * 16)
    check("no --goodput: request_goodput is null", s["request_goodput"] is None)
    check("percentiles in order", s["median_ttft_ms"] <= s["p90_ttft_ms"] <= s["p95_ttft_ms"]
          <= s["p99_ttft_ms"])
    check("the workload is echoed with vLLM's defaults",
          s["workload"]["request_rate"] == "inf" and s["workload"]["burstiness"] == 1
          and s["workload"]["seed"] == 0 and s["workload"]["max_concurrency"] is None)
    check("the engine defaults to vLLM", doc["result"]["profile"].startswith("vllm"),
          doc["result"]["profile"])


def test_text_table():
    status, out, err = run(["simulate", *SMALL, "--request-rate", "4"])
    check("simulate prints a table", status == 0 and "TTFT" in out and "E2EL" in out
          and "p99" in out and "Running" in out and "preemption" in out, out + err)
    check("the table says the workload", "40 requests of 256 + 16 tokens" in out
          and "4 req/s (Poisson)" in out, out)


def test_same_seed_same_bytes():
    a = run(["simulate", *SMALL, "--request-rate", "8", "--random-range-ratio", "0.5"])
    b = run(["simulate", *SMALL, "--request-rate", "8", "--random-range-ratio", "0.5"])
    c = run(["simulate", *SMALL, "--request-rate", "8", "--random-range-ratio", "0.5",
             "--seed", "1"])
    check("the same seed gives the same bytes", a == b and a[0] == 0)
    check("another seed another run", a[1] != c[1])


def test_each_option_moves_the_run():
    _, base, _ = sim("--request-rate", "4")
    _, more, _ = sim("--request-rate", "4", "--num-prompts", "60")
    check("--num-prompts sends that many", more["completed"] == 60)
    _, slow, _ = sim("--request-rate", "1")
    check("--request-rate spreads the arrivals", slow["duration"] > base["duration"] * 2,
          (slow["duration"], base["duration"]))
    _, even, _ = sim("--request-rate", "4", "--burstiness", "inf")
    _, bursty, _ = sim("--request-rate", "4", "--burstiness", "0.1")
    check("--burstiness changes the arrivals", even["mean_ttft_ms"] != bursty["mean_ttft_ms"])
    check("--burstiness reaches the workload", bursty["workload"]["burstiness"] == 0.1
          and even["workload"]["burstiness"] == "inf")
    _, longer, _ = sim("--request-rate", "4", "--random-input-len", "1024")
    check("--random-input-len sets the prompts", longer["total_input_tokens"] == 40 * 1024)
    _, out32, _ = sim("--request-rate", "4", "--random-output-len", "32")
    check("--random-output-len sets the outputs", out32["total_output_tokens"] == 40 * 32)
    _, ranged, _ = sim("--request-rate", "4", "--random-range-ratio", "0.5")
    check("--random-range-ratio varies the lengths",
          ranged["total_input_tokens"] != 40 * 256 and ranged["std_e2el_ms"] > base["std_e2el_ms"])
    _, capped, _ = sim("--max-concurrency", "2")
    check("--max-concurrency caps the requests running", capped["max_running"] <= 2
          and capped["workload"]["max_concurrency"] == 2, capped["max_running"])
    _, burst, _ = sim()
    check("without a cap all 40 run at once", burst["max_running"] == 40)


def test_goodput():
    _, one, _ = sim("--goodput", "ttft:100000", "tpot:100000")
    check("--goodput KEY:MS KEY:MS after one flag, as vLLM takes them",
          one["request_goodput"] == one["request_throughput"] and one["goodput_share"] == 1)
    _, two, _ = sim("--goodput", "ttft:100000", "--goodput", "tpot:100000")
    check("--goodput repeated reads the same", two["request_goodput"] == one["request_goodput"])
    _, none, _ = sim("--goodput", "e2el:0.001")
    check("an objective none keeps: goodput 0", none["request_goodput"] == 0
          and none["goodput_share"] == 0)
    status, out, _ = run(["simulate", *SMALL, "--goodput", "ttft:1e6"])
    check("the table says the goodput", status == 0 and "Goodput" in out and "ttft 1e+06 ms"
          in out, out)


def test_over_capacity_is_said():
    status, out, err = run(["simulate", "--num-prompts", "2000", "--request-rate", "500"])
    check("a rate past capacity says so", status == 0 and "The waiting queue grows by" in out
          and "over capacity" in out and "TTFT" not in out, out + err)
    _, s, _ = sim("--num-prompts", "2000", "--request-rate", "500")
    check("... and its JSON has no percentiles", s["over_capacity"] is True
          and s["p99_ttft_ms"] is None and s["queue_growth_per_s"] > 10)


def refused(args, words):
    status, out, err = run(["simulate", *args])
    check("simulate %s is refused (%s)" % (" ".join(args), words),
          status == 2 and out == "" and words in err, (status, out[:200], err))


def test_bad_input_names_the_option():
    refused(["--request-rate", "0"], "--request-rate: '0' is not above 0")
    refused(["--request-rate", "-3"], "--request-rate")
    refused(["--request-rate", "fast"], "--request-rate: 'fast' is not a number")
    refused(["--burstiness", "0"], "--burstiness")
    refused(["--max-concurrency", "0"], "--max-concurrency")
    refused(["--num-prompts", "0"], "--num-prompts")
    refused(["--num-prompts", "1000001"], "--num-prompts")
    refused(["--random-range-ratio", "1"], "--random-range-ratio: '1' is not in [0, 1)")
    refused(["--random-input-len", "8k", "--context", "4k"], "longer than the context (--context")
    refused(["--random-output-len", "9000"], "--random-output-len")
    refused(["--goodput", "ttfb:3"], "--goodput: 'ttfb:3' is not KEY:MS")
    refused(["--goodput", "ttft:-1"], "--goodput")
    refused(["--goodput", "ttft:3", "ttft:4"], "ttft is given twice")
    refused(["tpot:3"], "unexpected argument")
    refused(["--format", "csv"], "--format: simulate writes text or json")
    refused(["--random-input-len", "1", "--random-range-ratio", "0.5"], "no token")


def test_what_is_not_simulated_is_refused():
    refused(["--engine", "vllm@0"], "--engine vllm@0 is not simulated yet")
    refused(["--engine", "generic"], "the generic rule has no scheduler")
    refused(["--gpus", "2", "--pp", "2"], "--pp 2: simulate does not model pipeline stages")
    refused(["--draft-model", "llama-3.2-1b"], "speculative decoding")
    refused(["--model", "llama-3.1-405b"], "no KV cache")
    refused(["--engine", "sglang", "--enable-dp-attention", "--gpus", "2", "--tp", "2",
             "--model", "deepseek-v2-lite"], "--enable-dp-attention: simulate does not model DP "
            "attention yet")


def test_each_engine_runs_its_own_scheduler():
    """--engine picks the scheduler: its name and its limits as the engine
    spells them, every request served, and the engine's knobs move the run."""
    heads = {"sglang": ("Simulated SGLang on", "max-running-requests", "chunked-prefill-size"),
             "llamacpp": ("Simulated llama.cpp's server on", "parallel", "ubatch-size 512"),
             "trtllm": ("Simulated TensorRT-LLM (GUARANTEED_NO_EVICT) on", "max_batch_size",
                        "max_num_tokens")}
    runs = {}
    for engine, words in heads.items():
        status, out, err = run(["simulate", *SMALL, "--engine", engine, "--request-rate", "8"])
        check("simulate --engine %s prints its scheduler's words" % engine,
              status == 0 and all(w in out for w in words), out[:400] + err)
        status, s, err = sim("--engine", engine, "--request-rate", "8")
        check("simulate --engine %s serves every request" % engine,
              s is not None and s["completed"] == 40 and s["total_output_tokens"] == 40 * 16, err)
        runs[engine] = s
    check("three engines, three runs", len({json.dumps(r) for r in runs.values()}) == 3)
    _, two, _ = sim("--engine", "llamacpp", "--parallel", "2")
    check("llama.cpp: --parallel 2 runs 2 requests at most, the rest wait for a slot",
          two["max_running"] == 2 and two["max_waiting"] >= 38, two["max_running"])
    _, small, _ = sim("--engine", "sglang", "--chunked-prefill-size", "128")
    _, big, _ = sim("--engine", "sglang")
    check("SGLang: a smaller --chunked-prefill-size takes more steps", small["steps"] > big["steps"],
          (small["steps"], big["steps"]))
    _, few, _ = sim("--engine", "sglang", "--max-running-requests", "4")
    check("SGLang: --max-running-requests caps the running batch", few["max_running"] <= 4)
    refused(["--engine", "trtllm", "--random-input-len", "9000", "--context", "16k"],
            "--random-input-len 9000: a prompt of up to 9000 tokens is longer than TensorRT-LLM's "
            "max_num_tokens 8192")
    _, tiny, _ = sim("--engine", "trtllm", "--max-num-seqs", "3")
    check("TensorRT-LLM: --max-num-seqs (its max_batch_size) caps the batch", tiny is not None and tiny["max_running"] <= 3)


def test_trtllm_capacity_policies():
    """capacityScheduler.cpp: GUARANTEED_NO_EVICT never evicts and starts fewer
    requests than MAX_UTILIZATION, which pauses the newest when the pool runs
    out; a small pool (5% of the free memory) shows both."""
    tight = ["--engine", "trtllm", "--num-prompts", "60", "--random-input-len", "3000",
             "--random-output-len", "1500", "--free-gpu-memory-fraction", "0.05"]
    status, out, err = run(["simulate", *tight])
    check("TensorRT-LLM says its default policy", "(GUARANTEED_NO_EVICT)" in out, out[:200] + err)
    _, safe, _ = sim(*tight)
    _, full, _ = sim(*tight, "--capacity-scheduler-policy", "MAX_UTILIZATION")
    check("GUARANTEED_NO_EVICT evicts nothing", safe["preemptions"] == 0)
    check("MAX_UTILIZATION runs more at once and pauses some",
          full["max_running"] > safe["max_running"] and full["preemptions"] > 0,
          (full["max_running"], safe["max_running"], full["preemptions"]))
    check("both serve every request", safe["completed"] == full["completed"] == 60)
    check("the JSON names the policy", safe["workload"]["capacity_scheduler_policy"]
          == "GUARANTEED_NO_EVICT" and full["workload"]["capacity_scheduler_policy"]
          == "MAX_UTILIZATION")
    status, out, _ = run(["simulate", *tight, "--capacity-scheduler-policy", "MAX_UTILIZATION"])
    check("the table names MAX_UTILIZATION", "(MAX_UTILIZATION)" in out)
    refused(["--capacity-scheduler-policy", "MAX_UTILIZATION"],
            "--capacity-scheduler-policy is TensorRT-LLM's capacity scheduler (--engine trtllm)")
    refused(["--engine", "trtllm", "--random-input-len", "3000", "--random-output-len", "1961",
             "--free-gpu-memory-fraction", "0.01"],
            "the engine never starts some of the requests: the pool cannot hold what it reserves")
    refused(["--engine", "trtllm", "--capacity-scheduler-policy", "STATIC_BATCH"],
            "'STATIC_BATCH' is not a policy: GUARANTEED_NO_EVICT or MAX_UTILIZATION")


def test_router():
    four = ["--gpus", "4", "--tp", "1", "--request-rate", "40", "--num-prompts", "200",
            "--prefix", "600"]
    _, own, _ = sim(*four)
    check("without --router no router key (vLLM's DP load balancer)", "router" not in own["workload"])
    results = {}
    for router in ("round-robin", "least-outstanding", "prefix-aware"):
        status, s, err = sim(*four, "--router", router)
        check("--router %s serves every request" % router, s is not None and s["completed"] == 200,
              err)
        check("--router %s is echoed" % router, s is not None and s["workload"]["router"] == router)
        results[router] = s
        status, out, _ = run(["simulate", *SMALL, *four, "--router", router])
        check("the table names --router %s" % router, "router %s" % router in out)
    check("the routers share the requests differently",
          len({r["mean_e2el_ms"] for r in results.values()} | {own["mean_e2el_ms"]}) == 4)
    check("prefix-aware piles the shared prefix's requests on one replica: the longest waits",
          results["prefix-aware"]["max_running"] >= results["round-robin"]["max_running"])
    refused(["--router", "random"], "--router: 'random' is not a router: round-robin, "
            "least-outstanding or prefix-aware")
    _, eng, _ = sim("--engine", "sglang", *four, "--router", "least-outstanding")
    check("--router works for the other engines", eng is not None and eng["completed"] == 200)


def test_replicas_share_the_requests():
    _, one, _ = sim("--request-rate", "20")
    _, four, _ = sim("--request-rate", "20", "--gpus", "4", "--tp", "1")
    check("four replicas of TP 1", four["workload"]["replicas"] == 4)
    check("... run fewer requests each, sooner", four["mean_e2el_ms"] < one["mean_e2el_ms"],
          (four["mean_e2el_ms"], one["mean_e2el_ms"]))


def test_a_warm_up_or_a_client_cap_is_not_over_capacity():
    """A review found both called over capacity: the running batch filling at
    40 req/s on 5 GPUs (waiting max 7, every request within the SLO), and a
    --max-concurrency 1 client holding requests back."""
    _, s, err = sim("--gpus", "5", "--tp", "1", "--num-prompts", "1000", "--request-rate", "40",
                    "--random-input-len", "2048", "--random-output-len", "300")
    check("5 replicas keep up with 40 req/s", s is not None and s["over_capacity"] is False
          and s["p95_ttft_ms"] is not None, err if s is None else s["queue_growth_per_s"])
    _, s, err = sim("--max-concurrency", "1", "--request-rate", "40")
    check("one request at a time has latencies, from its send", s is not None
          and s["over_capacity"] is False and s["mean_ttft_ms"] is not None, err)
    check("vLLM's top-level workload keys", s is not None and s["num_prompts"] == 40
          and s["request_rate"] == 40 and s["max_concurrency"] == 1 and s["burstiness"] == 1)


def test_review_messages():
    refused(["--max-num-batched-tokens", "100"], "--max-num-batched-tokens 100 is below "
            "--max-num-seqs 1024: vLLM refuses to start so")
    refused(["--draft-model", "llama-3.2-1b"], "--draft-model: simulate does not model "
            "speculative decoding yet")
    refused(["--context", "4k", "--random-input-len", "3000", "--random-range-ratio", "0.5"],
            "--random-range-ratio 0.5")


def test_every_plan_scenario_option_is_taken():
    """Each scenario option plan takes, simulate takes too (a review found --gpu refused)."""
    for args in (["--gpu", "h200"], ["--gpu", "a100-80gb", "--gpus", "2"],
                 ["--model", "qwen3-8b"], ["--context", "4k"], ["--kv-dtype", "fp8"],
                 ["--gpu-memory-utilization", "0.8"], ["--max-num-seqs", "64"]):
        status, s, err = sim(*args)
        check("simulate %s" % " ".join(args), status == 0 and s is not None, err)


def test_warm_prompts():
    """--warm-prompts: the first N prompts found in vLLM's prefix cache (an earlier run's)."""
    _, cold, _ = sim("--num-prompts", "20", "--max-concurrency", "20")
    _, warm, _ = sim("--num-prompts", "20", "--max-concurrency", "20", "--warm-prompts", "10")
    check("warm prompts come sooner", warm["mean_ttft_ms"] < cold["mean_ttft_ms"],
          (warm["mean_ttft_ms"], cold["mean_ttft_ms"]))
    check("and are still counted as the benchmark's input", warm["total_input_tokens"] == cold["total_input_tokens"])
    status, out, _ = run(["simulate", *SMALL, "--num-prompts", "20", "--warm-prompts", "10"])
    check("the table says them", status == 0 and "warm prompts 10" in out, out[:600])
    refused(["--num-prompts", "20", "--warm-prompts", "21"],
            "--warm-prompts 21: more than the 20 prompts sent (--num-prompts)")
    refused(["--warm-prompts", "0"], "--warm-prompts")
    refused(["--engine", "sglang", "--warm-prompts", "5"],
            "--warm-prompts models vLLM V1's prefix cache (--engine vllm)")


if __name__ == "__main__":
    main([test_every_plan_scenario_option_is_taken, test_a_warm_up_or_a_client_cap_is_not_over_capacity,
          test_review_messages, test_json_carries_vllms_keys, test_text_table, test_same_seed_same_bytes,
          test_each_option_moves_the_run, test_goodput, test_over_capacity_is_said,
          test_bad_input_names_the_option, test_what_is_not_simulated_is_refused,
          test_each_engine_runs_its_own_scheduler, test_router, test_trtllm_capacity_policies,
          test_replicas_share_the_requests, test_warm_prompts])
