#!/usr/bin/python3
"""Every option of every command, as the option table gives them (kvplan
__complete options), is read the same as --name VALUE and as --name=VALUE:
the same exit status, output and messages, and neither form is refused as
an unknown option. A flag given a value ("--mono=1") is refused naming it.
An option with no value below fails the test, so a new option cannot go
untested. Then the two command lines that answered "'--users' is not an
option" and refused csv before.
Usage: t_options_eq.py path/to/kvplan. Ends with "N passed, N failed"."""
import os

from optionslib import (ROOT, TMP, argv, check, commands, main, options, run,
                        write_gpu_preset)

LOG = os.path.join(ROOT, "tests", "data", "logs", "vllm-03.log")
BENCH = os.path.join(ROOT, "tests", "data", "bench", "vllm-serve.json")
# calibrate reads these of a startup log; its other options describe a benchmark's scenario
LOG_OPTIONS = {"--model", "--gpu", "--tp", "--kv-dtype", "--save", "--presets"}
HF = os.path.join(ROOT, "tests", "data", "hf", "gemma-3-27b.json")
GGUF = os.path.join(ROOT, "tests", "fuzz", "corpus", "gguf", "llama.gguf")
PRESETS = os.path.join(TMP, "presets")
SNAPSHOT = os.path.join(TMP, "snap.json")
CALIBRATION = os.path.join(TMP, "cal.json")

# What each command runs with, besides the option under test.
BASE = {
    "planner": ["--dump-screen", "-", "--size", "70x22"],
    "solve": ["--users", "10", "--model", "llama-3.1-8b", "--gpu", "h100-sxm"],
    "sweep": ["--vary", "gpus=1..2"],
    "list": ["gpus"],
    "show": ["gpu", "h100-sxm"],
    "calibrate": [LOG],
    "import-hf": [HF],
    "import-gguf": [GGUF],
    "completion": ["bash"],
    "simulate": ["--num-prompts", "20", "--random-input-len", "256", "--random-output-len", "8"],
}
# solve given a workload option asks the service-level question: the rate and
# an objective instead of --users
SLO_BASE = ["--request-rate", "20", "--goodput", "tpot:100", "--num-prompts", "40",
            "--random-input-len", "256", "--random-output-len", "16", "--max-gpus", "4"]
SLO_FLAGS = {"--num-prompts", "--request-rate", "--burstiness", "--random-input-len",
             "--random-output-len", "--random-range-ratio", "--seed", "--max-concurrency",
             "--goodput", "--goodput-target", "--disaggregated", "--no-disaggregated",
             "--prefill-gpu", "--decode-gpu", "--kv-link", "--kv-transfer-bandwidth",
             "--kv-transfer-latency", "--dataset"}
VLLM, SGLANG, LLAMACPP = ["--engine", "vllm"], ["--engine", "sglang"], ["--engine", "llama.cpp"]
# A valid value of each option, and the other options it needs to mean something.
VALUES = {
    "--gpu": ("h200", []), "--gpus": ("2", []), "--model": ("qwen3-8b", []),
    "--context": ("4k", []), "--kv-dtype": ("fp8", []), "--weight-dtype": ("fp8", []),
    "--kv-heads": ("4", []), "--prefix": ("1k", []), "--headroom": ("15", []),
    "--avg-context": ("2k", []), "--block-size": ("32", []), "--vram": ("40GiB", []),
    "--weights": ("16GB", []), "--price": ("3.5", []), "--concurrency": ("4", []),
    "--prompt": ("2k", []), "--output-len": ("512", ["--prompt", "2k"]), "--min-tok-s": ("20", []), "--max-ttft": ("2", []),
    "--mbu": ("0.6", []), "--mfu": ("0.4", []), "--step-overhead": ("0.002", []),
    "--wired-limit-mb": ("65536", ["--gpu", "apple-m4-max"]), "--host-kv": ("64GiB", []),
    "--prefix-hit-rate": ("0.5", ["--host-kv", "64GiB"]), "--units": ("gb", []),
    "--presets": (PRESETS, []), "--load": (SNAPSHOT, []),
    "--scenario": ("snap", ["--load", SNAPSHOT]), "--export": (os.path.join(TMP, "out.json"), []),
    "--export-svg": (os.path.join(TMP, "out.svg"), []),
    "--require-users": ("1", []), "--format": ("json", []),
    "--draft-model": ("llama-3.2-1b", []), "--speculative-method": ("none", []),
    "--num-speculative-tokens": ("4", ["--draft-model", "llama-3.2-1b"]),
    "--engine": ("vllm", []), "--tp": ("2", ["--gpus", "2"]), "--pp": ("2", ["--gpus", "2", *VLLM]),
    "--max-loras": ("2", VLLM), "--max-loras-per-batch": ("2", SGLANG),
    "--max-lora-rank": ("32", [*VLLM, "--max-loras", "2"]),
    "--lora-target-modules": ("q_proj,v_proj", [*VLLM, "--max-loras", "2"]),
    "--images": ("2", ["--model", "gemma-3-27b"]), "--image-tokens": ("300", ["--model", "gemma-3-27b"]),
    "--gpu-memory-utilization": ("0.8", VLLM), "--max-num-seqs": ("64", VLLM),
    "--max-num-batched-tokens": ("4k", VLLM), "--mem-fraction-static": ("0.8", SGLANG),
    "--chunked-prefill-size": ("4k", SGLANG), "--max-running-requests": ("64", SGLANG),
    "--parallel": ("4", LLAMACPP), "--fit-target": ("2GiB", LLAMACPP),
    "--kv-dtype-v": ("q8_0", LLAMACPP),
    "--n-gpu-layers": ("40", LLAMACPP), "--n-cpu-moe": ("4", [*LLAMACPP, "--model", "qwen3-30b-a3b"]),
    "--ubatch": ("1024", LLAMACPP),
    "--host-memory": ("64GiB", []), "--host-bandwidth": ("90", []), "--cpu": ("ddr5-5600-2ch", []), "--free-gpu-memory-fraction": ("0.8", ["--engine", "trtllm"]),
    "--gpu-total": ("80GiB", VLLM), "--non-kv": ("20GiB", VLLM), "--kv-memory": ("40GiB", VLLM),
    "--calibration": (CALIBRATION, ["--model", "llama-3-8b"]),
    "--dump-screen": ("-", []), "--size": ("70x22", ["--dump-screen", "-"]),
    "--keys": ("<Down>", ["--dump-screen", "-"]),
    ("solve", "--users"): ("5", []), ("solve", "--gpu"): ("h200", []),
    ("solve", "--max-gpus"): ("8", []), ("solve", "--max-pp"): ("2", []),
    ("solve", "--max-plans"): ("5000", []), ("solve", "--format"): ("json", []),
    ("solve", "--gpus"): ("2", ["--max-context"]),
    ("sweep", "--vary"): ("context=1k..4k", []), ("sweep", "--format"): ("csv", []),
    ("sweep", "--max-rows"): ("10", []),
    ("calibrate", "--model"): ("llama-3-8b", []), ("calibrate", "--gpu"): ("a100-40gb", ["--model", "llama-3-8b"]),
    ("calibrate", "--tp"): ("1", ["--model", "llama-3-8b"]),
    ("calibrate", "--kv-dtype"): ("fp16", ["--model", "llama-3-8b"]),
    ("calibrate", "--save"): (os.path.join(TMP, "saved.json"), ["--model", "llama-3-8b"]),
    ("calibrate", "--engine-version"): ("0.10.1", []),
    ("import-hf", "--id"): ("my-gemma", []), ("import-hf", "--name"): ("My Gemma", []),
    ("import-hf", "--hf-id"): ("google/my-gemma", []),
    ("import-hf", "--output"): (os.path.join(TMP, "preset.json"), []),
    ("import-gguf", "--id"): ("my-llama", []), ("import-gguf", "--name"): ("My Llama", []),
    ("import-gguf", "--output"): (os.path.join(TMP, "gguf-preset.json"), []),
    "--num-prompts": ("30", []), "--request-rate": ("5", []), "--burstiness": ("0.5", ["--request-rate", "5"]),
    "--random-input-len": ("512", []), "--random-output-len": ("16", []),
    "--random-range-ratio": ("0.5", []), "--seed": ("7", []), "--max-concurrency": ("4", []),
    "--goodput": ("ttft:500", []), "--goodput-target": ("0.9", []), "--compare": (BENCH, []),
    "--dataset": (os.path.join(ROOT, "tests", "data", "traces", "small.csv"), []),
    # solve and sweep draw from a length profile (a trace is simulate's)
    ("solve", "--dataset"): ("azure-conv-2023", []), ("sweep", "--dataset"): ("azure-conv-2023", []),
    "--router": ("round-robin", ["--gpus", "2", "--tp", "1"]),
    "--capacity-scheduler-policy": ("MAX_UTILIZATION", ["--engine", "trtllm"]),
    "--scheduler-recv-interval": ("10", ["--engine", "sglang"]),
    "--max-prefill-tokens": ("4096", ["--engine", "sglang"]),
    "--warm-prompts": ("4", []),
    "--prefill-gpu": ("h200", ["--disaggregated"]), "--decode-gpu": ("h200", ["--disaggregated"]),
    "--prefill-gpus": ("2", ["--disaggregated"]), "--decode-gpus": ("2", ["--disaggregated"]),
    "--prefill-tp": ("2", ["--disaggregated"]), "--decode-tp": ("2", ["--disaggregated"]),
    "--kv-link": ("roce", ["--disaggregated"]), "--kv-transfer-bandwidth": ("100", ["--disaggregated"]),
    "--kv-transfer-latency": ("0.5", ["--disaggregated"]),
}
# What a command answers on purpose when given the option; anything else must succeed.
REFUSED = {("planner", "--export"): "--export: writes the snapshot of `kvplan plan`",
           ("planner", "--export-svg"): "--export-svg: writes the picture of `kvplan plan`"}
# simulate models each engine's scheduler (an engine's option picks it), and
# not yet what these options ask for
REFUSED.update({("simulate", "--draft-model"): "does not model speculative decoding",
                ("simulate", "--num-speculative-tokens"): "does not model speculative decoding",
                ("simulate", "--pp"): "does not model pipeline stages",
                ("simulate", "--host-kv"): "does not model a host tier",
                ("simulate", "--prefix-hit-rate"): "does not model a host tier",
                ("simulate", "--images"): "does not model images",
                ("simulate", "--image-tokens"): "does not model images",
                # a plan's workload: the simulated requests' own options say it
                ("simulate", "--prompt"): "are --random-input-len",
                ("simulate", "--concurrency"): "are --max-concurrency",
                # this test's base gives the random lengths, which a trace replaces
                # (t_dataset.py runs the trace itself)
                ("simulate", "--dataset"): "gives each request's lengths",
                # and solve's SLO base gives them too (t_profiles.py runs a profile)
                ("solve", "--dataset"): "gives each request's lengths"})


def setup():
    write_gpu_preset(PRESETS, "my-gpu")
    status, _, err = run(["plan", "--export", SNAPSHOT])
    check("the snapshot is written", status == 0, err)
    status, _, err = run(["calibrate", LOG, "--model", "llama-3-8b", "--gpu", "a100-40gb",
                          "--save", CALIBRATION])
    check("the calibration is saved", status == 0, err)


def value_of(cmd, flag):
    return VALUES.get((cmd, flag)) or VALUES.get(flag)


def refused_as_unknown(text):
    return "is not an option" in text or "unknown option" in text


def test_every_option_both_forms():
    for cmd in commands():
        for flag, metavar, short in options(cmd):
            if metavar is None:
                continue
            what = "%s %s" % (cmd, flag)
            got = value_of(cmd, flag)
            check("%s has a value in this test" % what, got is not None)
            if got is None:
                continue
            value, extra = got
            base = argv(cmd, *BASE.get(cmd, []), *extra)
            if cmd == "solve" and flag in SLO_FLAGS:
                base = argv(cmd, *SLO_BASE, *extra)
            if cmd == "calibrate" and flag not in LOG_OPTIONS:
                base = argv(cmd, BENCH, "--model", "llama-3.1-8b", *extra)
                if "gemma-3-27b" in extra:  # its bf16 weights take 16 ms a step on the H100: the 8B run's 13.5 ms is impossible
                    base += ["--weight-dtype", "fp8"]
            spaced = run(base + [flag, value])
            joined = run(base + ["%s=%s" % (flag, value)])
            out = spaced[1] + spaced[2]
            want = REFUSED.get((cmd, flag))
            check("%s VALUE is taken" % what,
                  (spaced[0] == 2 and want in spaced[2]) if want else spaced[0] == 0, out[-600:])
            check("%s VALUE is not refused as unknown" % what, not refused_as_unknown(out), out[-300:])
            check("%s=VALUE reads as %s VALUE" % (flag, flag) + " (" + cmd + ")", joined == spaced,
                  "space: %r\nequals: %r" % (spaced, joined))
            if short:
                check("-%s VALUE reads as %s VALUE (%s)" % (short, flag, cmd),
                      run(base + ["-" + short, value]) == spaced)


def test_flags_take_no_value():
    for cmd in commands():
        for flag, metavar, _ in options(cmd):
            if metavar is not None:
                continue
            status, out, err = run(argv(cmd, *BASE.get(cmd, []), flag + "=1"))
            check("%s %s=1 is refused naming %s" % (cmd, flag, flag),
                  status == 2 and err == "kvplan: %s: takes no value\n" % flag, err)


def test_the_commands_of_the_issue():
    spaced = run(["solve", "--users", "40", "--model", "llama-3.1-70b"])
    joined = run(["solve", "--users=40", "--model", "llama-3.1-70b"])
    check("solve --users=40 --model llama-3.1-70b plans", joined[0] == 0 and joined == spaced,
          repr(joined)[:400])
    status, out, err = run(["sweep", "--format=csv", "--vary", "context=1k..8k"])
    lines = out.splitlines()
    check("sweep --format=csv --vary context=1k..8k writes CSV",
          status == 0 and lines[0].startswith("value,gpu,model,") and len(lines) == 5
          and lines[1].startswith("1k,") and lines[4].startswith("8k,"), out + err)
    check("sweep --format=csv is sweep --format csv",
          run(["sweep", "--format", "csv", "--vary", "context=1k..8k"]) == (status, out, err))


if __name__ == "__main__":
    main([test_every_option_both_forms, test_flags_take_no_value, test_the_commands_of_the_issue],
         setup)
