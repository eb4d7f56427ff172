#!/bin/sh
# TensorRT-LLM's tensor parallel and the heads: the query heads must divide
# by TP (Attention.__init__ asserts num_heads % (tp_size x cp_size) == 0 in
# the PyTorch backend, tensorrt_llm/_torch/modules/attention.py, read at
# 00547a25; the TensorRT path's tensorrt_llm/layers/attention.py asserts
# "num_attention_heads must be divisible by tp_size"), so an uneven TP is
# refused (exit 2) as vLLM and SGLang refuse it; the KV heads are rounded up
# on each rank, (kv + tp - 1) // tp, replicated past their count, and kvplan
# counts them so (the plan warns of the uneven split).
# Phi-4: 40 query heads, 10 KV heads, head_dim 128, 40 layers, bf16.
# Usage: t_trtllm_heads.sh KVPLAN. Ends with "N passed, N failed".
K=${1:?usage: t_trtllm_heads.sh KVPLAN}
. "$(dirname "$0")/bounds_lib.sh"
P="--model phi-4 --gpu h100-sxm"

# TP 3 does not divide the 40 query heads: refused, naming --tp and the file
expect 2 "--tp: tensor parallel 3 does not split the 40 attention heads of phi-4 evenly (10 KV heads): TensorRT-LLM refuses it (tensorrt_llm/_torch/modules/attention.py, Attention.__init__; the engine path's tensorrt_llm/layers/attention.py alike)" \
    plan --engine trtllm $P --gpus 3 --tp 3
expect 2 "TensorRT-LLM refuses it" plan --engine trtllm@trt $P --gpus 3 --tp 3
expect 2 "TensorRT-LLM refuses it" plan --engine trtllm@0.19 $P --gpus 6 --tp 6
# without --tp, on 3 GPUs, the default layout takes no TP 3: the layout of
# the most users that runs, TP 1 over three stages
expect 0 "(1 x TP 1 x PP 3)" plan --engine trtllm $P --gpus 3
# TP 4 divides the query heads, not the 10 KV heads: planned, ceil(10 / 4) = 3
# KV heads a rank, 40 x 2 x 3 x 128 x 2 = 61,440 B a token a GPU, and warned
expect 0 '"kv_heads_per_gpu":	3,' plan --engine trtllm $P --gpus 4 --tp 4 --format json
expect 0 '"kv_bytes_per_token_per_gpu":	61440,' plan --engine trtllm $P --gpus 4 --tp 4 --format json
expect 0 "the tensor-parallel size does not divide the model's heads evenly" \
    plan --engine trtllm $P --gpus 4 --tp 4
# ... which vLLM and SGLang refuse (the KV heads must divide too)
expect 2 "vLLM refuses it" plan --engine vllm $P --gpus 4 --tp 4
expect 2 "SGLang refuses it" plan --engine sglang $P --gpus 4 --tp 4
# TP 8: ceil(10 / 8) = 2 KV heads a rank, 40 x 2 x 2 x 128 x 2 = 40,960 B
expect 0 '"kv_bytes_per_token_per_gpu":	40960,' plan --engine trtllm $P --gpus 8 --tp 8 --format json
# past the KV heads (Llama 3.1 8B: 32 query, 8 KV heads at TP 16): one
# replicated KV head a rank, 32 x 2 x 1 x 128 x 2 = 16,384 B
expect 0 '"kv_bytes_per_token_per_gpu":	16384,' \
    plan --engine trtllm --model llama-3.1-8b --gpu h100-sxm --gpus 16 --tp 16 --format json
finish
