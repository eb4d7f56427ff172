#!/bin/sh
# --kv-dtype fp32, fp16 and bf16 under vLLM and SGLang, as their
# --kv-cache-dtype takes them: "auto" is the model's own dtype; vLLM's
# CacheDType (vllm/config/cache.py) has never had float32, has bfloat16 at
# c1d86421 (0.11 to 0.13) and float16 from vllm#37199 (March 2026, read at
# 002f10e0); V0's (vllm/config.py) only auto and the fp8 kinds; SGLang's
# (python/sglang/srt/server_args.py, add_cli_args, 0.5.x) auto, fp8_e5m2,
# fp8_e4m3, bf16/bfloat16, fp4_e2m1. A 16-bit cache not the model's own gets
# its flag in the launch line, or, where the release has none, --dtype (the
# model runs in it, ModelDType in every release of both, and auto caches in
# it); fp32 is refused (exit 2) naming --kv-dtype and what the engine takes.
# Llama 3.1 8B is bf16, Llama 2 7B fp16.
# Usage: t_cache_dtype.sh KVPLAN. Ends with "N passed, N failed".
K=${1:?usage: t_cache_dtype.sh KVPLAN}
. "$(dirname "$0")/bounds_lib.sh"
L31="--model llama-3.1-8b --gpu h100-sxm"
L2="--model llama-2-7b --gpu h100-sxm --context 4k"

# fp32: no such cache, under any release
expect 2 "--kv-dtype: vllm has no fp32 cache (auto, fp16, bf16 or fp8); its --kv-cache-dtype takes auto, float16, bfloat16, fp8" \
    plan --engine vllm $L31 --kv-dtype fp32
expect 2 "--kv-dtype: vllm has no fp32 cache" plan --engine vllm@0.13 $L31 --kv-dtype fp32
expect 2 "--kv-dtype: sglang has no fp32 cache (auto, fp16, bf16 or fp8); its --kv-cache-dtype takes auto, fp8_e5m2, fp8_e4m3, bf16 (bfloat16) or fp4_e2m1" \
    plan --engine sglang $L31 --kv-dtype fp32
# ... where the other engines keep it (llama.cpp's f32)
expect 0 "-ctk f32" plan --engine llama.cpp $L31 --kv-dtype fp32

# the model's own type: auto, no flag
out=$("$K" plan --engine vllm $L31 --kv-dtype bf16 2>&1)
case $out in *"--kv-cache-dtype"*) bad "a flag for the model's own bf16" ;; *) ok ;; esac
# another 16-bit type: the flag, and the same 131,072 B a token (32 x 8 x 128 x 2 x 2)
expect 0 "--gpu-memory-utilization 0.90 --kv-cache-dtype float16" plan --engine vllm $L31 --kv-dtype fp16
expect 0 '"kv_bytes_per_token_per_gpu":	131072' plan --engine vllm $L31 --kv-dtype fp16 --format json
expect 0 "--kv-cache-dtype bfloat16" plan --engine vllm $L2 --kv-dtype bf16
expect 0 "--kv-cache-dtype bfloat16" plan --engine vllm@0.13 $L2 --kv-dtype bf16
expect 0 "--kv-cache-dtype bf16" plan --engine sglang $L2 --kv-dtype bf16
# ... or the model in it where the release has no name for it
expect 0 "--gpu-memory-utilization 0.90 --dtype float16" plan --engine vllm@0.13 $L31 --kv-dtype fp16
expect 0 "--gpu-memory-utilization 0.90 --dtype bfloat16" plan --engine vllm@0 $L2 --kv-dtype bf16
expect 0 "--mem-fraction-static 0.835 --dtype float16" plan --engine sglang $L31 --kv-dtype fp16
expect 0 '"kv_bytes_per_token_per_gpu":	131072' plan --engine sglang $L31 --kv-dtype fp16 --format json
# DeepSeek V4's auto is FP8 (fp8_ds_mla): bf16 is named
expect 0 "--kv-cache-dtype bfloat16 -tp 8" \
    plan --engine vllm --model deepseek-v4-flash --gpu h200 --gpus 8 --tp 8 --kv-dtype bf16
finish
