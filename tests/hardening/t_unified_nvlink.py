#!/usr/bin/python3
"""Apple silicon's wired limit and NVLink domains, on the real binary.
--wired-limit-mb N plans with the GPU's limit at N MiB (as `sudo sysctl
iogpu.wired_limit_mb=N` sets it); a GPU of its own memory, a limit above the
Mac's memory or a value that is no count are refused with exit 2, naming the
option; the snapshot and the command line keep it; when macOS's default
binds, the warning names the sysctl and the limit that holds the plan (the
command line the planner copies: tests/unit/test_unified.c). A
preset of unified memory gives unified_memory_bytes and may leave memory_bytes
out; memory_bytes above it is refused naming the file and the field. GB200 and
GB300 NVL72 keep TP 16 in one NVLink domain (no "across nodes" warning) where
2 x 8 H100 nodes do not, and `kvplan show gpu gb300` gives its figures and
sources. Usage: t_unified_nvlink.py path/to/kvplan. Ends with "N passed, N failed"."""
import json
import os

from optionslib import ROOT, TMP, check, main, refused, run

MAC = ["--gpu", "apple-m4-max", "--model", "llama-3.1-70b", "--engine", "llama.cpp",
       "--weight-dtype", "q4_k_m", "--context", "128k", "--parallel", "2"]


def plan_json(args):
    status, out, err = run(["plan", "--format", "json", *args])
    check("plan %s runs" % " ".join(args), status == 0, err)
    return json.loads(out) if status == 0 else {"scenario": {}, "result": {}}


def test_the_default_binds_and_the_warning_names_the_sysctl():
    d = plan_json(MAC)
    warnings = d["result"].get("warnings", [])
    want = ("the GPU may use 96.0 GiB of 128 GiB unified memory, so the fit search keeps part "
            "of the model on the CPU; `sudo sysctl iogpu.wired_limit_mb=124928` holds it all")
    check("the warning names the sysctl and its limit", any(want in w for w in warnings), warnings)
    check("the budget is the working set, whole", d["result"].get("memory_bytes_per_gpu") ==
          103079215104, d["result"].get("memory_bytes_per_gpu"))
    status, out, err = run(["plan", *MAC])
    check("the text report has it too", "iogpu.wired_limit_mb=124928" in out, out[-800:])


def test_the_limit_given_plans_and_is_kept():
    d = plan_json([*MAC, "--wired-limit-mb", "124928"])
    check("the limit given: two users fit", d["result"].get("users_per_replica") == 2,
          d["result"].get("users_per_replica"))
    check("no warning then", not any("wired_limit" in w for w in d["result"].get("warnings", [])),
          d["result"].get("warnings"))
    snap = os.path.join(TMP, "mac.json")
    status, out, err = run(["plan", *MAC, "--wired-limit-mb", "124928", "--export", snap])
    check("the snapshot is written", status == 0, err)
    with open(snap) as f:
        check("the snapshot keeps wired_limit_mb", json.load(f)["scenario"].get("wired_limit_mb")
              == 124928)
    status, out, err = run(["plan", "--load", snap])
    check("the loaded snapshot plans with it", status == 0 and "122.00 GiB each (--wired-limit-mb)"
          in out, (status, out[:600], err))


def test_refusals():
    refused(["plan", "--gpu", "h100-sxm", "--wired-limit-mb", "65536"], "--wired-limit-mb",
            "h100-sxm has no unified memory")
    refused(["plan", "--gpu", "apple-m4-max", "--wired-limit-mb", "131073"], "--wired-limit-mb",
            "131073 MiB leaves macOS too little of the 131072 MiB apple-m4-max has")
    refused(["plan", "--gpu", "apple-m4-max", "--wired-limit-mb", "96GiB"], "--wired-limit-mb")
    refused(["plan", "--gpu", "apple-m4-max", "--wired-limit-mb", "0"], "--wired-limit-mb")
    # solve takes it for the GPU types of unified memory it compares, and none is here
    refused(["solve", "--gpu", "h100-sxm", "--users", "2", "--wired-limit-mb", "100000"],
            "--wired-limit-mb", "none of the GPUs compared has unified memory")


def write_preset(directory, gpu):
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, gpu["id"] + ".json")
    with open(path, "w") as f:
        json.dump(gpu, f, indent=2)
    return path


def test_presets_of_unified_memory():
    with open(os.path.join(ROOT, "presets", "gpus", "apple-m4-max.json")) as f:
        mac = json.load(f)
    check("the Apple preset leaves memory_bytes to the rule", "memory_bytes" not in mac
          and mac["unified_memory_bytes"] == 128 << 30, sorted(mac))
    good = dict(mac, id="my-mac-32", unified_memory_bytes=32 << 30)
    write_preset(os.path.join(TMP, "good"), good)
    status, out, err = run(["show", "gpu", "my-mac-32", "--presets", os.path.join(TMP, "good")])
    shown = json.loads(out) if status == 0 else {}
    check("32 GiB: two thirds, in whole 16 KiB pages", shown.get("memory_bytes") == 22906503168,
          (status, out[:300], err))
    bad = dict(mac, id="my-mac-bad", memory_bytes=(128 << 30) + 1)
    path = write_preset(os.path.join(TMP, "bad"), bad)
    status, out, err = run(["list", "gpus", "--presets", os.path.join(TMP, "bad")])
    check("memory_bytes above the unified memory: exit 2", status == 2, (status, err))
    check("the message names the file and the field", path in err and "memory_bytes" in err
          and "unified_memory_bytes" in err, err)


def test_nvlink_domains():
    for gpu, across in (("gb200", False), ("gb300", False), ("h100-sxm", True)):
        d = plan_json(["--gpu", gpu, "--gpus", "16", "--tp", "16", "--model", "llama-3.1-70b"])
        warned = any("across nodes" in w for w in d["result"].get("warnings", []))
        check("%s TP 16: across nodes %s" % (gpu, across), warned == across,
              d["result"].get("warnings"))
    status, out, err = run(["show", "gpu", "gb300"])
    g = json.loads(out) if status == 0 else {}
    check("show gpu gb300: one 72-GPU NVLink domain", g.get("nvlink_domain_gpus") == 72, out)
    check("show gpu gb300: the driver's 284,208 MiB", g.get("memory_bytes") == 284208 << 20, out)
    check("show gpu gb300: 900 GB/s each way, FP4 15 PF dense",
          g.get("interconnect_bytes_per_s") == 900e9 and g.get("dense_fp4_tflops") == 15000, out)
    for src in ("verda.com/blog/gb300-nvl72-architecture", "284208MiB", "NVLink"):
        check("show gpu gb300 cites %s" % src, src in g.get("source", ""), g.get("source"))


def test_nvl72_hosts_are_trays_of_four():
    """A GB200 or GB300 NVL72 rack's host is a compute tray of 4 GPUs (NVIDIA's
    NVL72 reference architecture, components): a launch line a tray, where an
    HGX H100 node holds 8; a preset's gpus_per_node outside 1..64 is refused
    naming the file and the field."""
    for gpu in ("gb200", "gb300"):
        status, out, err = run(["show", "gpu", gpu])
        g = json.loads(out) if status == 0 else {}
        check("show gpu %s: 4 GPUs a host" % gpu, g.get("gpus_per_node") == 4 and
              "4 GPUs and 2 Grace CPUs" in g.get("source", ""), out[:200])
    for gpu, nodes, each in (("gb300", 4, "(4 GPUs, ranks 12-15)"), ("h100-sxm", 2,
                                                                     "(8 GPUs, ranks 8-15)")):
        status, out, err = run(["plan", "--engine", "sglang", "--gpu", gpu, "--gpus", "16",
                                "--tp", "16", "--model", "llama-3.1-70b"])
        check("%s SGLang TP 16: %d nodes, the last %s" % (gpu, nodes, each), status == 0 and
              "--nnodes %d --node-rank %d" % (nodes, nodes - 1) in out and each in out, out[-1500:])
    status, out, err = run(["plan", "--engine", "vllm", "--gpu", "gb300", "--gpus", "8", "--tp",
                            "2", "--model", "llama-3.1-70b"])
    check("gb300 vLLM 4 x TP 2: 2 trays of 2 replicas", status == 0 and
          "--data-parallel-size-local 2" in out and "node 1 of 2" in out, out[-1500:])
    status, out, err = run(["plan", "--engine", "trtllm", "--gpu", "gb300", "--gpus", "8", "--tp",
                            "8", "--model", "llama-3.1-70b"])
    check("gb300 TensorRT-LLM TP 8: mpirun over 2 trays of 4", status == 0 and
          '-H "$NODE_1":4,"$NODE_2":4' in out, out[-1500:])
    with open(os.path.join(ROOT, "presets", "gpus", "gb300.json")) as f:
        gb = json.load(f)
    for bad in (0, 65):
        path = write_preset(os.path.join(TMP, "tray%d" % bad), dict(gb, id="gb-bad",
                                                                   gpus_per_node=bad))
        status, out, err = run(["list", "gpus", "--presets", os.path.dirname(path)])
        check("gpus_per_node %d: exit 2 naming the file and field" % bad, status == 2 and
              path in err and "gpus_per_node" in err, (status, err))


if __name__ == "__main__":
    main([test_the_default_binds_and_the_warning_names_the_sysctl,
          test_the_limit_given_plans_and_is_kept, test_refusals, test_presets_of_unified_memory,
          test_nvlink_domains, test_nvl72_hosts_are_trays_of_four])
