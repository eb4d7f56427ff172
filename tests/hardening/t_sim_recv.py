#!/usr/bin/python3
"""kvplan simulate --scheduler-recv-interval on the real binary: SGLang's
scheduler takes new requests only at its polls (Scheduler.recv_requests
behind SchedulerRecvSkipper.handle, python/sglang/srt/managers/
scheduler_recv_skipper.py at sgl-project/sglang 70310f05: every N decodes,
after a prefill, or at once when idle), so under a closed-loop client a
request waits for the decodes before its poll: TTFT grows with the interval
and with the concurrency, TPOT hardly moves; the option is echoed, an
interval of 1 is the default run byte for byte, and bad input names the
option with exit status 2 and nothing on standard output. And
--max-prefill-tokens, the prompt tokens one SGLang prefill batch takes
(schedule_policy.py PrefillAdder's rem_input_tokens, server_args.py default
16384): a smaller cap splits the first wave over more batches.
Usage: t_sim_recv.py path/to/kvplan. Ends with "N passed, N failed"."""
import json

from optionslib import check, main, run

LOOP = ["--engine", "sglang", "--num-prompts", "80", "--random-input-len", "512",
        "--random-output-len", "128", "--random-range-ratio", "0.5"]


def sim(*args):
    status, out, err = run(["simulate", *LOOP, *args, "--format", "json"])
    if status != 0:
        return None, err
    return json.loads(out), err


def ttft(doc):
    return doc["result"]["simulation"]["mean_ttft_ms"]


def test_ttft_grows_with_the_interval_and_the_load():
    base, err = sim("--max-concurrency", "16")
    check("SGLang simulates a closed loop of 16", base is not None, err)
    slow, err = sim("--max-concurrency", "16", "--scheduler-recv-interval", "30")
    check("--scheduler-recv-interval 30 runs", slow is not None, err)
    if base is None or slow is None:
        return
    check("polling every 30 decodes lengthens TTFT at 16 in flight",
          ttft(slow) > 1.5 * ttft(base), (ttft(base), ttft(slow)))
    tpot = (base["result"]["simulation"]["mean_tpot_ms"], slow["result"]["simulation"]["mean_tpot_ms"])
    check("and moves TPOT by under 10%", abs(tpot[1] - tpot[0]) < 0.1 * tpot[0], tpot)
    check("the JSON carries the interval", slow["result"]["simulation"]["workload"].get(
          "scheduler_recv_interval") == 30 and
          "scheduler_recv_interval" not in base["result"]["simulation"]["workload"])
    one, _ = sim("--max-concurrency", "1", "--scheduler-recv-interval", "30")
    alone, _ = sim("--max-concurrency", "1")
    check("one in flight: each request finds the scheduler idle, TTFT as without",
          one is not None and alone is not None and
          abs(ttft(one) - ttft(alone)) < 0.01 * ttft(alone))
    many, _ = sim("--max-concurrency", "64", "--scheduler-recv-interval", "30")
    check("64 in flight wait longer than 16", many is not None and ttft(many) > ttft(slow),
          many and (ttft(slow), ttft(many)))


def test_an_interval_of_one_is_the_default():
    a = run(["simulate", *LOOP, "--max-concurrency", "8"])
    b = run(["simulate", *LOOP, "--max-concurrency", "8", "--scheduler-recv-interval", "1"])
    check("--scheduler-recv-interval 1 is the default run, byte for byte", a == b and a[0] == 0)
    status, out, _ = run(["simulate", *LOOP, "--scheduler-recv-interval", "10"])
    check("the table names the interval", status == 0 and "scheduler-recv-interval 10" in out,
          out[:400])


def test_max_prefill_tokens():
    base, err = sim("--max-concurrency", "16")
    check("16 prompts of 256-768 sent at once", base is not None, err)
    same, _ = sim("--max-concurrency", "16", "--max-prefill-tokens", "16384")
    small, _ = sim("--max-concurrency", "16", "--max-prefill-tokens", "512")
    if base is None or same is None or small is None:
        check("--max-prefill-tokens runs", False)
        return
    check("16384 is the default: the same TTFT", ttft(same) == ttft(base), (ttft(base), ttft(same)))
    # one prompt a batch: the first ones out sooner, each batch shorter
    check("512 a batch splits the first wave: another TTFT", ttft(small) != ttft(base),
          (ttft(base), ttft(small)))
    check("the JSON carries the cap", small["result"]["simulation"]["workload"].get(
          "max_prefill_tokens") == 512 and
          "max_prefill_tokens" not in base["result"]["simulation"]["workload"])


def refused(args, words):
    status, out, err = run(["simulate", *args])
    check("simulate %s is refused (%s)" % (" ".join(args), words),
          status == 2 and out == "" and words in err, (status, out[:200], err))


def test_bad_input():
    refused(["--engine", "sglang", "--scheduler-recv-interval", "0"], "--scheduler-recv-interval")
    refused(["--engine", "sglang", "--scheduler-recv-interval", "x"], "--scheduler-recv-interval")
    refused(["--engine", "vllm", "--scheduler-recv-interval", "10"],
            "--scheduler-recv-interval is SGLang's scheduler's (--engine sglang)")
    refused(["--engine", "trtllm", "--scheduler-recv-interval", "10"],
            "--scheduler-recv-interval is SGLang's")
    refused(["--engine", "sglang", "--max-prefill-tokens", "0"], "--max-prefill-tokens")
    refused(["--engine", "vllm", "--max-prefill-tokens", "4096"],
            "--max-prefill-tokens is SGLang's scheduler's (--engine sglang)")


if __name__ == "__main__":
    main([test_ttft_grows_with_the_interval_and_the_load, test_an_interval_of_one_is_the_default,
          test_max_prefill_tokens, test_bad_input])
