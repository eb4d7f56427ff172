#!/usr/bin/python3
"""llama.cpp's host side on the real binary, beyond the split's options
(t_offload.py): the token embedding counted in host memory with every layer
on the GPU, checked against a real log's buffers; --wired-limit-mb on solve
and simulate; Metal's words on Apple GPUs.
Usage: t_offload_host.py path/to/kvplan. Ends with "N passed, N failed"."""
import json
import os

from optionslib import ROOT, TMP, check, main, refused, run

MIB = 1 << 20


def plan_json(args):
    status, out, err = run(["plan", "--format", "json", *args])
    check("plan %s: exit 0" % " ".join(args), status == 0, err)
    return json.loads(out) if status == 0 else {}


def test_embedding_in_host_memory():
    """src/llama-model.cpp load_tensors (ggml-org/llama.cpp, 2024 and 2026
    builds alike): "assign the input layer ... always keep it on the CPU"
    (dev_input = cpu_dev). A real log of Llama 3 8B Q4_K_M with 33/33 layers
    offloaded (developer0hye/llama-3-korean-bllossom-8b-q4-docker,
    README.md, an RTX 3070): "CPU buffer size = 281.81 MiB" (the q4_K
    token_embd, 128256 x 4096) and "CUDA0 buffer size = 4403.49 MiB"."""
    args = ["--engine", "llama.cpp", "--model", "llama-3.1-8b", "--weight-dtype", "q4_k_m",
            "--gpu", "rtx-3090", "--context", "512", "--parallel", "1"]
    r = plan_json(args).get("result", {})
    o = r.get("engine", {}).get("offload", {})
    gpu = o.get("gpu_weights_bytes_per_gpu", r.get("weights_bytes_per_gpu", 0)) / MIB
    host = o.get("host_weights_bytes", 0) / MIB
    check("every layer on the GPU: the GPU's weights within 2%% of the logged CUDA0 buffer "
          "(%.2f MiB against 4403.49)" % gpu, abs(gpu / 4403.49 - 1) < 0.02, o)
    check("the token embedding in host memory, within 10%% of the logged CPU buffer "
          "(%.2f MiB against 281.81)" % host, abs(host / 281.81 - 1) < 0.10, o)
    check("-ngl 999 still: no layer on the CPU", o.get("cpu_layers") == 0 and
          " -ngl 999" in r.get("engine", {}).get("launch", ""), o)
    status, out, err = run(["plan", *args])
    check("the explain rows put the embedding in host memory",
          "Weights in host" in out and "the token embedding" in out, out[:2000])
    check("the KV pool takes the GPU's weights only", "weights on GPU" in out, out[:2000])
    r = plan_json([*args, "--host-memory", "128MiB"]).get("result", {})
    check("the embedding alone does not refuse a plan whose layers are all on the GPU",
          r.get("users_per_replica") == 1, r.get("engine", {}).get("offload"))


MAC = ["--engine", "llama.cpp", "--model", "llama-3.1-70b", "--weight-dtype", "q4_k_m"]


def test_wired_limit_on_solve():
    """solve compares GPU types: --wired-limit-mb goes to those of unified
    memory (Apple silicon), as plan takes it for one."""
    # 3 users: two slots fit the Mac either way now that solve sizes the fit
    # search for the users asked (plan_sized), three take the raised limit
    args = ["solve", *MAC, "--context", "128k", "--users", "3", "--gpu", "apple-m4-max",
            "--gpu", "rtx-4090", "--format", "json"]
    status, out, err = run(args)
    check("solve without the limit: exit 0", status == 0, err)
    status, raised, err = run([*args, "--wired-limit-mb", "120000"])
    check("solve --wired-limit-mb: exit 0", status == 0, err)
    if status == 0 and out:
        def users(text):
            rows = json.loads(text).get("rows", json.loads(text).get("gpus", []))
            return {r.get("gpu"): r.get("users") for r in rows}
        before, after = users(out), users(raised)
        check("the raised limit serves more users on the Mac (%s -> %s)" % (before, after),
              after.get("apple-m4-max", 0) > before.get("apple-m4-max", 0), (before, after))
        check("the RTX 4090 row does not move", after.get("rtx-4090") == before.get("rtx-4090"),
              (before, after))
    status, out, err = run(["solve", *MAC, "--users", "2", "--gpu", "rtx-4090",
                            "--wired-limit-mb", "1000"])
    check("solve --wired-limit-mb with no unified GPU: exit 2, the option named",
          status == 2 and out == "" and "--wired-limit-mb" in err and "unified" in err, err)
    status, out, err = run(["solve", *MAC, "--users", "2", "--gpu", "apple-m4-max",
                            "--wired-limit-mb", "1000000"])
    check("solve --wired-limit-mb past the Mac's memory: exit 2",
          status == 2 and "131072 MiB" in err, err)
    status, out, err = run(["solve", *MAC, "--users", "1", "--gpu", "apple-m4-max",
                            "--max-context", "--wired-limit-mb", "120000"])
    check("solve --max-context --wired-limit-mb on the Mac: exit 0", status == 0, err)


def test_wired_limit_on_simulate():
    """simulate plans the slots with the limit (a Mac preset with a compute
    figure, which the shipped ones lack)."""
    with open(os.path.join(ROOT, "presets", "gpus", "apple-m4-max.json")) as f:
        gpu = json.load(f)
    gpu.update(id="test-mac", dense_bf16_tflops=34.0)
    os.makedirs(os.path.join(TMP, "presets", "gpus"), exist_ok=True)
    with open(os.path.join(TMP, "presets", "gpus", "test-mac.json"), "w") as f:
        json.dump(gpu, f)
    args = ["simulate", "--presets", os.path.join(TMP, "presets"), "--gpu", "test-mac", *MAC,
            "--context", "32k", "--num-prompts", "20"]
    status, out, err = run(args)
    check("simulate on the Mac: exit 0, 5 slots", status == 0 and "parallel 5," in out, err)
    status, out, err = run([*args, "--wired-limit-mb", "120000"])
    check("simulate --wired-limit-mb 120000: 7 slots", status == 0 and "parallel 7," in out,
          (err, out[:300]))


def test_metal_words():
    """llama.cpp on Apple silicon names Metal's buffers (ggml-metal logs
    "MTL0 model buffer size"): the report says Metal, not CUDA."""
    status, out, err = run(["plan", *MAC, "--gpu", "apple-m4-max", "--context", "32k"])
    check("plan on a Mac: exit 0", status == 0, err)
    check("no CUDA on a Mac", "CUDA" not in out, out)
    check("the budget and the engine say Metal total",
          "Metal total - 1.00 GiB --fit margin" in out and "  Metal total  " in out and
          "of the Metal total" in out, out)
    status, out, err = run(["plan", *MAC, "--gpu", "rtx-4090", "--context", "8k"])
    check("CUDA total on an NVIDIA card still", "CUDA total" in out and "Metal" not in out, out)


def test_the_binding_side_in_json():
    """The JSON warnings name what binds (tests/unit/test_offload.c
    the_binding_side_is_named has the numbers): host memory with -ngl 40
    and 16 GiB, not "the KV cache does not fit"; no split at all, the
    closest the fit search tried, not the all-on-GPU weights."""
    args = ["--engine", "llama.cpp@mla-kv", "--model", "llama-3.1-70b", "--weight-dtype", "q4_k_m",
            "--gpu", "rtx-4090", "--host-memory", "16GiB"]  # -ngl N the last N, as worked
    w = plan_json([*args, "-ngl", "40"]).get("result", {}).get("warnings", [])
    check("-ngl 40: host memory binds, 21.97 GiB needed, 16.00 GiB available",
          any(x.startswith("host memory binds, not the GPU: 21.97 GiB of weights and cache there, "
                           "16.00 GiB available") for x in w)
          and not any("KV cache does not fit" in x for x in w), w)
    w = plan_json(args).get("result", {}).get("warnings", [])
    check("no split: the closest tried, -ngl 42, 20.93 GiB in host memory",
          any(x.startswith("no split fits: the closest the fit search tried, -ngl 42 of 81") and
              "needs 20.93 GiB in host memory, 16.00 GiB available" in x for x in w)
          and not any("weights alone" in x for x in w), w)
    status, out, err = run(["plan", *args])
    check("the headline too", "DOES NOT FIT under llama.cpp: no split fits; the closest tried, -ngl 42"
          in out, out[:400])


def test_ubatch():
    """--ubatch N (llama.cpp's -ub, --ubatch-size; common/common.h n_ubatch
    512). Llama 3.1 70B Q4_K_M, -ngl 40 on an RTX 4090, an 8,192-token
    prompt (the output layer and 39 layers on the GPU, llama.cpp #18148): the
    op offload copies the 21,487,623,719 B of CPU-layer weights (the host's
    22,131,161,025 B less the 643,537,306 B embedding, read on the CPU) once
    a micro-batch, and the cache's views of the cells so far (41 layers x 4
    KiB = 167,936 B a cell): at 512, 16 micro-batches and 69,632 cells; at
    2048, 4 and 20,480; 8,192 cells written back either way. The first token
    is (12 x 21,487,623,719 + (69,632 - 20,480) x 167,936) B / 32 GB/s =
    8.31581 s sooner; the compute buffers 2,048 x (128,256 + 4 x
    8,192) x 4 B + 256 MiB = 1,587,544,064 B."""
    args = ["--engine", "llama.cpp", "--model", "llama-3.1-70b", "--weight-dtype", "q4_k_m",
            "--gpu", "rtx-4090", "-ngl", "40", "--host-memory", "64GiB"]
    d512 = plan_json(args)
    d2048 = plan_json([*args, "--ubatch", "2048"])
    t512 = d512.get("result", {}).get("ttft_seconds", 0)
    t2048 = d2048.get("result", {}).get("ttft_seconds", 0)
    check("-ub 2048: the first token 8.31581 s sooner", abs((t512 - t2048) - 8.315809) < 1e-4,
          (t512, t2048))
    check("-ub 2048: 1,587,544,064 B of compute buffers",
          d2048.get("result", {}).get("runtime_bytes_per_gpu") == 1587544064, d2048.get("result", {}))
    check("the scenario keeps it", d2048.get("scenario", {}).get("offload", {}).get("ubatch") == 2048,
          d2048.get("scenario", {}).get("offload"))
    status, out, err = run(["plan", *args, "--ubatch-size", "2048"])
    check("the launch line has -ub 2048, the default none",
          "-ngl 40 -ub 2048" in out and "-ub" not in run(["plan", *args])[1], out[-600:])
    status, out, err = run(["plan", *args, "-ub", "4096"])
    check("past n_batch's 2048, -b too", "-b 4096 -ub 4096" in out, out[-600:])
    refused(["plan", *args, "--ubatch", "0"], "--ubatch", "from 1 to 65536")
    refused(["plan", *args, "--ubatch", "many"], "--ubatch", "'many'")
    refused(["plan", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--ubatch", "1024"],
            "--ubatch", "llama.cpp")


if __name__ == "__main__":
    main([test_embedding_in_host_memory, test_wired_limit_on_solve, test_wired_limit_on_simulate,
          test_metal_words, test_the_binding_side_in_json,
          test_ubatch])
