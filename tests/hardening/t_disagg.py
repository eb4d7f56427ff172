#!/usr/bin/python3
"""kvplan simulate --disaggregated on the real binary: the JSON has vllm bench
serve's keys of the whole deployment with the pools', the link's and the
aggregated run's beside them; one request's first token moves by exactly
the transfer (latency, then the KV's bytes at the link's rate); every pool
and link option changes what it names; a pool of another GPU and TP is
planned on it; and bad input names the option with exit status 2 and
nothing on standard output.
Usage: t_disagg.py path/to/kvplan. Ends with "N passed, N failed"."""
import json

from optionslib import check, main, run
from t_simulate import VLLM_KEYS

SMALL = ["--num-prompts", "40", "--random-input-len", "512", "--random-output-len", "16"]
DIS = ["simulate", "--disaggregated"]


def sim(*args):
    """simulate --disaggregated SMALL ARGS --format json: (status, result.simulation, err)."""
    status, out, err = run([*DIS, *SMALL, *args, "--format", "json"])
    if status != 0:
        return status, None, err
    return status, json.loads(out)["result"]["simulation"], err


POOL_KEYS = ["gpu", "gpus", "tp", "replicas", "utilisation", "mean_running", "max_running",
             "mean_waiting", "max_waiting", "peak_kv_usage", "preemptions", "steps"]
LINK_KEYS = ["kv_link", "kv_transfer_bandwidth_gb_s", "kv_transfer_latency_ms",
             "mean_transfer_ms", "p95_transfer_ms", "bytes_moved"]


def test_json_keys():
    status, s, err = sim("--request-rate", "4")
    check("simulate --disaggregated --format json exits 0", status == 0 and not err, err)
    if s is None:
        return
    check("vLLM's keys of the whole deployment", all(k in s for k in VLLM_KEYS),
          [k for k in VLLM_KEYS if k not in s])
    for pool in ("prefill_pool", "decode_pool"):
        check("%s has its figures" % pool, all(k in s[pool] for k in POOL_KEYS), s.get(pool))
        check("%s is busy some of the time" % pool, 0 < s[pool]["utilisation"] <= 1, s[pool])
    check("the link's figures", all(k in s["kv_transfer"] for k in LINK_KEYS), s["kv_transfer"])
    check("every request completes", s["completed"] == 40 and s["failed"] == 0)
    check("the layout is named xPyD", s["disaggregated"] == "1P1D", s["disaggregated"])
    a = s["aggregated"]
    check("the aggregated run of the same GPUs beside it", a["gpus"] == 2
          and a["completed"] == 40 and "p95_ttft_ms" in a, a)
    check("the KV moved: 40 prompts of 512 tokens at the plan's bytes a token",
          s["kv_transfer"]["bytes_moved"] == 40 * 512 * s["kv_transfer"]["kv_bytes_per_token"],
          s["kv_transfer"])
    check("the default link: InfiniBand at 50 GB/s", s["kv_transfer"]["kv_link"] == "ib"
          and s["kv_transfer"]["kv_transfer_bandwidth_gb_s"] == 50, s["kv_transfer"])


def test_one_request_by_hand():
    """One request alone: its TTFT moves by exactly the latency, and by the
    prompt's KV bytes over the rate."""
    one = ["--num-prompts", "1", "--random-input-len", "4000", "--random-output-len", "8"]
    base = [*DIS, *one, "--format", "json"]

    def ttft(*args):
        status, out, err = run([*base, *args])
        check("a run of one request: %s" % " ".join(args), status == 0, err)
        return json.loads(out)["result"]["simulation"] if status == 0 else None

    instant = ttft("--kv-transfer-bandwidth", "inf", "--kv-transfer-latency", "0")
    late = ttft("--kv-transfer-bandwidth", "inf", "--kv-transfer-latency", "100")
    slow = ttft("--kv-transfer-bandwidth", "10", "--kv-transfer-latency", "0")
    if not (instant and late and slow):
        return
    check("an instant link: no transfer time", instant["kv_transfer"]["mean_transfer_ms"] == 0)
    check("100 ms of latency: the first token 100 ms later",
          abs(late["mean_ttft_ms"] - instant["mean_ttft_ms"] - 100) < 1e-6,
          (late["mean_ttft_ms"], instant["mean_ttft_ms"]))
    want = 4000 * slow["kv_transfer"]["kv_bytes_per_token"] / 10e9 * 1e3
    check("10 GB/s: the first token later by the prompt's KV bytes over the rate",
          abs(slow["mean_ttft_ms"] - instant["mean_ttft_ms"] - want) < 1e-6,
          (slow["mean_ttft_ms"], instant["mean_ttft_ms"], want))
    check("the decode's tokens do not move with the link",
          abs(slow["mean_tpot_ms"] - instant["mean_tpot_ms"]) < 1e-9)


def test_each_option_moves_the_run():
    _, s, _ = sim()
    if s is None:
        check("the base run", False)
        return
    cases = [
        (["--prefill-gpu", "h200"], lambda t: t["prefill_pool"]["gpu"] == "h200"
         and t["decode_pool"]["gpu"] == "h100-sxm"),
        (["--decode-gpu", "h200"], lambda t: t["decode_pool"]["gpu"] == "h200"
         and t["aggregated"]["gpu"] == "h200"),
        (["--prefill-gpus", "2"], lambda t: t["prefill_pool"]["replicas"] == 2
         and t["disaggregated"] == "2P1D" and t["aggregated"]["gpus"] == 3),
        (["--decode-gpus", "3"], lambda t: t["decode_pool"]["replicas"] == 3
         and t["disaggregated"] == "1P3D"),
        (["--prefill-tp", "2"], lambda t: t["prefill_pool"]["tp"] == 2
         and t["prefill_pool"]["gpus"] == 2),
        (["--decode-tp", "2"], lambda t: t["decode_pool"]["tp"] == 2
         and t["kv_transfer"]["kv_bytes_per_token"] == s["kv_transfer"]["kv_bytes_per_token"]),
        (["--kv-link", "nvlink"], lambda t: t["kv_transfer"]["kv_link"] == "nvlink"
         and t["kv_transfer"]["kv_transfer_bandwidth_gb_s"] == 450),
        (["--kv-link", "roce"], lambda t: t["kv_transfer"]["kv_link"] == "roce"
         and t["kv_transfer"]["kv_transfer_latency_ms"] == 0.02),
        (["--kv-transfer-bandwidth", "5"], lambda t: t["kv_transfer"]["mean_transfer_ms"]
         > s["kv_transfer"]["mean_transfer_ms"]),
        (["--kv-transfer-latency", "3"], lambda t: t["kv_transfer"]["kv_transfer_latency_ms"] == 3
         and t["mean_ttft_ms"] > s["mean_ttft_ms"]),
    ]
    for args, ok in cases:
        status, t, err = sim(*args)
        check("%s changes what it names" % " ".join(args), status == 0 and t and ok(t),
              err or (t and {k: t[k] for k in ("disaggregated", "prefill_pool", "decode_pool",
                                             "kv_transfer")}))


def test_text_side_by_side():
    status, out, err = run([*DIS, *SMALL, "--request-rate", "4", "--goodput", "ttft:2000"])
    check("the text names both pools, the link and the aggregated run", status == 0
          and "Prefill     1 x" in out and "Decode      1 x" in out and "KV link     InfiniBand" in out
          and "Aggregated  2 x" in out and "disaggregated" in out and "aggregated" in out
          and "KV moved" in out and "goodput req/s" in out, out + err)
    check("the text says how the two compare", "Versus      1P1D against aggregated: p95 TTFT"
          in out, out)
    again = run([*DIS, *SMALL, "--request-rate", "4", "--goodput", "ttft:2000"])
    check("the same seed gives the same bytes", again[1] == out)


def refused(args, flag, why=""):
    status, out, err = run([*args])
    check("%s: exit 2 naming %s%s" % (" ".join(args[1:]), flag, why),
          status == 2 and flag in err and out == "", (status, out, err))


def test_bad_input_names_the_option():
    bad = [
        (["--prefill-gpus", "0"], "--prefill-gpus"),
        (["--prefill-gpus", "two"], "--prefill-gpus"),
        (["--decode-gpus", "5000"], "--decode-gpus"),
        (["--prefill-tp", "0"], "--prefill-tp"),
        (["--decode-tp", "65"], "--decode-tp"),
        (["--prefill-gpus", "3", "--prefill-tp", "2"], "--prefill-gpus"),
        (["--decode-gpus", "2", "--decode-tp", "4"], "--decode-gpus"),
        (["--prefill-gpu", "no-such-gpu"], "--prefill-gpu"),
        (["--decode-gpu", "no-such-gpu"], "--decode-gpu"),
        (["--kv-link", "ethernet"], "--kv-link"),
        (["--kv-transfer-bandwidth", "0"], "--kv-transfer-bandwidth"),
        (["--kv-transfer-bandwidth", "-3"], "--kv-transfer-bandwidth"),
        (["--kv-transfer-bandwidth", "fast"], "--kv-transfer-bandwidth"),
        (["--kv-transfer-latency", "-1"], "--kv-transfer-latency"),
        (["--kv-transfer-latency", "soon"], "--kv-transfer-latency"),
        (["--kv-link", "nvlink", "--decode-gpu", "mi250x-gcd"], "--kv-link"),
        (["--max-concurrency", "4"], "--max-concurrency"),
        (["--engine", "llama.cpp"], "--disaggregated"),
    ]
    for extra, flag in bad:
        refused([*DIS, *SMALL, *extra], flag)
    for flag, value in (("--prefill-gpus", "2"), ("--decode-tp", "2"), ("--kv-link", "roce"),
                        ("--kv-transfer-latency", "1")):
        refused(["simulate", *SMALL, flag, value], flag, " (needs --disaggregated)")
    refused([*DIS, *SMALL, "--prefill-gpus", "512"], "--prefill-gpus", " (past the replicas)")


# long prompts, short answers, a tight TPOT: a split wins with fewer GPUs
ASK = ["solve", "--request-rate", "20", "--random-input-len", "8000", "--random-output-len",
       "100", "--num-prompts", "300", "--context", "16k", "--goodput", "ttft:3000", "tpot:20"]


def test_solve_tries_xpyd_splits():
    status, out, err = run([*ASK, "--format", "json"])
    check("solve with the splits exits 0", status == 0 and not err, err)
    if status != 0:
        return
    doc = json.loads(out)
    dis = doc.get("disaggregated", {})
    check("the JSON has the disaggregated answer and its candidates", dis.get("solved") is True
          and dis["answer"]["layout"] == "%dP%dD" % (dis["answer"]["prefill_instances"],
                                                    dis["answer"]["decode_instances"])
          and dis["candidates"] and all("verdict" in c for c in dis["candidates"]), dis)
    check("the winner is named, and why: fewer GPUs", doc.get("winner") == "disaggregated"
          and dis["answer"]["gpus"] < doc["gpus"]
          and ("%d fewer" % (doc["gpus"] - dis["answer"]["gpus"])) in doc["winner_because"],
          (doc.get("winner"), doc.get("winner_because")))
    ans = doc.get("answer", {})
    check("the top level's answer is the winner's, whichever won", ans.get("kind") == "disaggregated"
          and ans.get("gpus") == dis["answer"]["gpus"] and ans.get("layout") == dis["answer"]["layout"]
          and ans.get("usd_per_hour") == dis["answer"]["usd_per_hour"], ans)
    check("the splits search no more GPUs than the aggregated answer's",
          all(c["gpus"] <= doc["gpus"] for c in dis["candidates"]), dis["candidates"])
    same = dis.get("aggregated_same_gpus", {})
    check("the aggregated layout of the same GPUs beside it",
          same.get("gpus") == dis["answer"]["gpus"], same)
    status, text, err = run(ASK)
    check("the text lists the splits and names the winner", status == 0
          and "Disaggregated layouts simulated" in text and "\nWinner      " in text
          and "Same GPUs   aggregated" in text, text + err)
    # the winning split first, as the answer, when it beat the aggregated layouts
    won = "\nWinner      disaggregated" in text
    check("the answer line names the split that won", won == ("\nAnswer      disaggregated" in text),
          text[:400])
    status, plain, err = run([*ASK, "--no-disaggregated"])
    agg = "".join(l for l in text.splitlines(True) if not l.startswith("Answer      "))
    check("--no-disaggregated: the aggregated answer alone", status == 0
          and plain == agg[:agg.index("\nDisaggregated layouts")], plain)
    status, out, err = run([*ASK, "--no-disaggregated", "--format", "json"])
    check("--no-disaggregated: no disaggregated key", status == 0
          and "disaggregated" not in json.loads(out), out)
    plain_doc = json.loads(out) if status == 0 else {}
    check("--no-disaggregated: the answer is the aggregated layout, the top level's",
          plain_doc.get("answer", {}).get("kind") == "aggregated"
          and plain_doc["answer"]["gpus"] == plain_doc["gpus"]
          and plain_doc["answer"]["tp"] == plain_doc["tp"], plain_doc.get("answer"))
    status, out, err = run([*ASK, "--disaggregated", "--kv-link", "roce", "--format", "json"])
    doc = json.loads(out) if status == 0 else {}
    check("--disaggregated --kv-link roce: the link is RoCE", status == 0
          and doc["disaggregated"]["kv_link"] == "roce"
          and doc["disaggregated"]["kv_transfer_latency_ms"] == 0.02, err)
    # neither solved: why, the search cut short by --max-plans or no layout within --max-gpus
    status, text, err = run([*ASK, "--max-plans", "2"])
    check("--max-plans 2: the winner line says the search stopped, not that nothing keeps it",
          "\nWinner      none yet: the search stopped at --max-plans" in text, text[-400:] + err)
    status, text, err = run([*ASK, "--max-plans", "3"])
    check("--max-plans 3: a split won, the aggregated search cut short, not 'no layout keeps it'",
          "the aggregated search stopped at --max-plans" in text
          and "no aggregated layout of up to" not in text, text[-600:] + err)
    status, text, err = run([*ASK, "--max-gpus", "2"])
    check("--max-gpus 2: neither keeps it within 2 GPUs",
          "\nWinner      neither keeps it: no aggregated layout or xPyD split of up to 2 GPUs" in text,
          text[-400:] + err)
    status, out, err = run([*ASK, "--disaggregated", "--max-gpus", "2", "--format", "json"])
    check("--disaggregated and no split within --max-gpus: exit 1", status == 1
          and json.loads(out)["disaggregated"]["solved"] is False, (status, err))
    status, out, err = run([*ASK, "--max-concurrency", "50", "--format", "json"])
    check("--max-concurrency: the aggregated layouts alone", status == 0
          and "disaggregated" not in json.loads(out), err)


def test_solve_an_objective_below_the_floor():
    """A TTFT objective within the engine's time outside its steps (vLLM's 41.2 ms,
    request_overhead_s) no layout keeps: said so, not "raise --max-gpus"."""
    status, out, err = run(["solve", "--request-rate", "5", "--goodput", "ttft:20", "tpot:50",
                            "--max-gpus", "2", "--num-prompts", "50"])
    check("ttft:20 under vLLM: the floor said, exit 1", status == 1 and
          "no layout can keep ttft 20 ms" in out and "41.2 ms outside" in out and
          "raise --max-gpus" not in out, out[-600:])


def test_solve_bad_input():
    refused([*ASK, "--disaggregated", "--no-disaggregated"], "--no-disaggregated")
    refused([*ASK, "--no-disaggregated", "--kv-link", "ib"], "--kv-link")
    refused([*ASK, "--disaggregated", "--max-concurrency", "4"], "--max-concurrency")
    refused([*ASK, "--prefill-gpu", "no-such-gpu"], "--prefill-gpu")
    refused([*ASK, "--kv-transfer-bandwidth", "0"], "--kv-transfer-bandwidth")
    refused(["solve", "--disaggregated"], "--request-rate", " (the question needs a rate)")
    refused([*ASK, "--prefill-gpus", "2"], "--prefill-gpus", " (not solve's: it searches)")


if __name__ == "__main__":
    main([test_json_keys, test_one_request_by_hand, test_each_option_moves_the_run,
          test_text_side_by_side, test_bad_input_names_the_option, test_solve_tries_xpyd_splits,
          test_solve_bad_input, test_solve_an_objective_below_the_floor])
