#!/usr/bin/python3
"""llama.cpp's layers, experts and cache in host memory on the real binary:
every option (--n-gpu-layers and -ngl, --n-cpu-moe and -ncmoe,
--no-kv-offload and -nkvo, --host-memory, --host-bandwidth, --cpu) and every
refusal (exit 2, the option named, nothing on standard output), the host
memory read from a file of /proc/meminfo's format (KVPLAN_MEMINFO), the
split in the headline, the launch line, the JSON and a snapshot, and solve's longest context with a given -ngl.
Usage: t_offload.py path/to/kvplan. Ends with "N passed, N failed"."""
import json
import os
import shlex

import subprocess

from optionslib import ENV, KVPLAN, TMP, check, main, run

L70 = ["--engine", "llama.cpp", "--model", "llama-3.1-70b", "--weight-dtype", "q4_k_m",
       "--gpu", "rtx-4090", "--context", "8k"]
MEMINFO = os.path.join(TMP, "meminfo")


def plan_json(args):
    status, out, err = run(["plan", "--format", "json", *args])
    check("plan %s: exit 0" % " ".join(args), status == 0, err)
    return json.loads(out) if status == 0 else {}


def refused(args, *words):
    status, out, err = run(["plan", *args])
    check("%s: exit 2, nothing on stdout" % " ".join(args), status == 2 and out == "",
          (status, out, err))
    for w in words:
        check("%s: the message has %r" % (" ".join(args), w), w in err, err)


def test_refusals():
    refused([*L70, "--n-gpu-layers", "x"], "--n-gpu-layers", "'x'")
    refused([*L70, "-ngl", "-3"], "--n-gpu-layers")
    refused([*L70, "--n-gpu-layers", "70000"], "--n-gpu-layers")
    refused([*L70, "--n-cpu-moe", "two"], "--n-cpu-moe")
    refused([*L70, "--n-cpu-moe", "4"], "--n-cpu-moe", "no MoE experts")
    refused(["--engine", "vllm", "-ngl", "10"], "--n-gpu-layers", "is an option of llama.cpp")
    refused(["--engine", "sglang", "--no-kv-offload"], "--no-kv-offload", "llama.cpp")
    refused(["--engine", "trtllm", "--model", "qwen3-30b-a3b", "--n-cpu-moe", "4"],
            "--n-cpu-moe", "llama.cpp")
    refused([*L70, "-ngl", "40", "--non-kv", "20GiB"], "--n-gpu-layers", "not with --non-kv")
    refused([*L70, "-nkvo", "--kv-memory", "2GiB"], "--no-kv-offload", "--kv-memory")
    refused([*L70, "--host-memory", "lots"], "--host-memory")
    refused([*L70, "--host-memory", "2000TiB"], "--host-memory", "1 PiB")
    refused([*L70, "--host-bandwidth", "0"], "--host-bandwidth")
    refused([*L70, "--host-bandwidth", "fast"], "--host-bandwidth")
    refused([*L70, "--cpu", "ddr3"], "--cpu", "'ddr3'", "ddr5-4800-2ch")
    refused([*L70, "--cpu", "ddr5-5600-2ch", "--host-bandwidth", "90"], "--host-bandwidth",
            "--cpu")


def test_split():
    d = plan_json([*L70, "-ngl", "40", "--host-memory", "64GiB"])
    o = d.get("result", {}).get("engine", {}).get("offload", {})
    # src/llama-model.cpp load_tensors since ggml-org/llama.cpp #18148:
    # i_gpu_start = max(n_layer + 1 - ngl, 0), the output layer offloaded first
    check("-ngl 40: the output layer and 39 GPU layers, 41 CPU layers",
          o.get("gpu_layers") == 39 and o.get("cpu_layers") == 41 and
          o.get("output_on_gpu") is True, o)
    old = plan_json([*L70, "--engine", "llama.cpp@mla-kv", "-ngl", "40", "--host-memory", "64GiB"])
    p = old.get("result", {}).get("engine", {}).get("offload", {})
    check("llama.cpp@mla-kv -ngl 40: 40 GPU layers, 40 CPU layers, the output layer on the CPU",
          p.get("gpu_layers") == 40 and p.get("cpu_layers") == 40 and
          p.get("output_on_gpu") is False, p)
    check("-ngl 40: GPU and host bytes sum to the weights",
          o.get("host_weights_bytes", 0) + o.get("gpu_weights_bytes_per_gpu", 0) ==
          d["result"]["weights_bytes"], o)
    check("-ngl 40: the launch line carries it", " -ngl 40" in d["result"]["engine"]["launch"],
          d["result"]["engine"]["launch"])
    same = plan_json([*L70, "--n-gpu-layers", "40", "--host-memory", "64GiB"])
    check("-ngl and --n-gpu-layers plan the same", same == d)
    every = plan_json([*L70, "-ngl", "all", "--host-memory", "64GiB"])
    check("-ngl all: the weights do not fit a 24 GB card",
          every["result"]["weights_fit"] is False, every["result"]["engine"].get("offload"))
    s = plan_json([*L70, "--host-memory", "64GiB"])["result"]["engine"]
    check("without -ngl the fit search chooses the layers",
          s.get("offload", {}).get("searched") is True and s["offload"]["gpu_layers"] > 40, s)
    status, out, err = run(["plan", *L70, "--host-memory", "64GiB"])
    check("the headline says the split", status == 0 and "of 81:" in out.splitlines()[2] and
          "layers on the CPU (the fit search's)" in out, out[:400])
    check("the scenario names the host", "Host memory    64.00 GiB (--host-memory)" in out, out)
    status, out, err = run(["plan", *L70, "-ngl", "20", "--host-memory", "16GiB"])
    check("host memory too small: DOES NOT FIT, said", "DOES NOT FIT under llama.cpp" in out and
          "in host memory, more than its 16.00 GiB" in out, out[:300])
    d = plan_json(["--engine", "llama.cpp", "--model", "qwen3-30b-a3b", "--gpu", "rtx-4090",
                   "-ncmoe", "48", "-nkvo", "--host-memory", "64GiB"])
    e = d["result"]["engine"]
    check("-ncmoe and -nkvo: llama.cpp's spellings", e["offload"]["n_cpu_moe"] == 48 and
          e["offload"]["no_kv_offload"] is True and e["offload"]["gpu_kv_bytes_per_gpu"] == 0, e)
    check("the launch line carries --n-cpu-moe and --no-kv-offload",
          "--n-cpu-moe 48 --no-kv-offload" in e["launch"], e["launch"])
    d = plan_json([*L70, "-ngl", "40", "--cpu", "ddr5-4800-12ch", "--host-memory", "64GiB"])
    fast = d["result"]["tokens_per_s_per_user"]
    slow = plan_json([*L70, "-ngl", "40", "--host-bandwidth", "51.2",
                      "--host-memory", "64GiB"])["result"]["tokens_per_s_per_user"]
    check("twelve channels decode faster than two of DDR4", fast > 2 * slow, (fast, slow))
    check("--cpu's bandwidth in the JSON",
          d["result"]["engine"]["offload"]["host_bandwidth_bytes_per_s"] == 460.8e9, d)


def test_host_memory_of_this_machine():
    with open(MEMINFO, "w") as f:
        f.write("MemTotal:       32768000 kB\nMemFree:         1000 kB\n")
    env = dict(ENV, KVPLAN_MEMINFO=MEMINFO)
    p = subprocess.run([KVPLAN, "plan", *L70],
                       capture_output=True, text=True, env=env)
    check("the host memory read from the meminfo file",
          "Host memory    31.25 GiB (this machine's)" in p.stdout, p.stdout[:1500])
    env["KVPLAN_MEMINFO"] = os.path.join(TMP, "none")
    p = subprocess.run([KVPLAN, "plan", *L70], capture_output=True,
                       text=True, env=env)
    check("unreadable: unknown, not checked", "unknown, not checked" in p.stdout, p.stdout[:1500])


def test_snapshot():
    snap = os.path.join(TMP, "offload.json")
    args = [*L70, "-ngl", "40", "--no-kv-offload", "--host-memory", "48GiB", "--cpu",
            "ddr5-6400-2ch"]
    status, out, err = run(["plan", *args, "--export", snap])
    check("--export with the options", status == 0, err)
    with open(snap) as f:
        o = json.load(f)["scenario"].get("offload")
    check("the snapshot keeps them", o == {"n_gpu_layers": 40, "no_kv_offload": True,
                                          "host_memory_bytes": 48 << 30, "cpu": "ddr5-6400-2ch"}, o)
    a = plan_json(args)
    b = plan_json(["--load", snap])
    check("--load plans the same", a["result"] == b["result"], b["result"].get("engine"))


def test_solve_longest_context():
    status, out, err = run(["solve", "--users", "1", "--max-context", *L70[:-2], "-ngl", "40",
                            "--host-memory", "64GiB"])
    check("solve --max-context with -ngl 40", status == 0 and "longest context" in out, err)
    status, more, err = run(["solve", "--users", "1", "--max-context", *L70[:-2], "-ngl", "30",
                             "--host-memory", "64GiB"])
    first = lambda t: t.splitlines()[0] if t else ""  # noqa: E731 (the answer; the split follows)
    n = lambda t: int(first(t).rsplit(":", 1)[-1].replace(",", "").split()[0]) if ":" in first(t) else 0
    check("fewer GPU layers leave room for a longer context", n(more) > n(out), (out, more))


def test_no_kv_offload_keeps_the_output_layer():
    """--no-kv-offload with weights that fit whole: the search starts at
    -ngl n + 1 (every layer and the output layer), as llama.cpp's --fit would
    on a card with 18 GiB free."""
    d = plan_json(["--engine", "llama.cpp", "--model", "llama-3.1-8b", "--weight-dtype",
                   "q4_k_m", "--gpu", "rtx-4090", "--no-kv-offload", "--context", "32k",
                   "--host-memory", "64GiB"])
    o = d.get("result", {}).get("engine", {}).get("offload", {})
    check("-nkvo on a 24 GB card: -ngl 33 of 33, the output layer on the GPU",
          o.get("n_gpu_layers") == 33 and o.get("output_on_gpu") is True and
          o.get("gpu_kv_bytes_per_gpu") == 0, o)


if __name__ == "__main__":
    main([test_refusals, test_split, test_no_kv_offload_keeps_the_output_layer, test_host_memory_of_this_machine,
          test_snapshot, test_solve_longest_context])
