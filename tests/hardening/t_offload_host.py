#!/usr/bin/python3
"""llama.cpp's host side on the real binary, beyond the split's options
(t_offload.py): the token embedding counted in host memory with every layer
on the GPU, checked against a real log's buffers; --wired-limit-mb on solve
and simulate; Metal's words on Apple GPUs.
Usage: t_offload_host.py path/to/kvplan. Ends with "N passed, N failed"."""
import json

from optionslib import check, main, run

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


if __name__ == "__main__":
    main([test_embedding_in_host_memory])
