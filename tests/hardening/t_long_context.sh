#!/bin/sh
# A context past the model's longest under vLLM and SGLang, which refuse to
# start with one: vLLM's --max-model-len past the derived maximum raises
# ValueError unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 (vllm/config/model.py,
# _get_and_verify_max_len), SGLang's --context-length past it unless
# SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1
# (python/sglang/srt/configs/model_config.py, ModelConfig._derive_context_length).
# Falcon 7B's longest is 2,048 (max_position_embeddings), below kvplan's
# default 8,192: a --context given past it is refused (exit 2) naming the
# option, the model's longest and the variable; --allow-long-context plans it
# with the variable in the launch line; the default is planned at 2,048 and
# said so; other engines plan it and warn, as before.
# Usage: t_long_context.sh KVPLAN. Ends with "N passed, N failed".
K=${1:?usage: t_long_context.sh KVPLAN}
. "$(dirname "$0")/bounds_lib.sh"
M="--model falcon-7b --gpu h100-sxm"

# given past the longest: refused, naming --context, 2,048 and the override
expect 2 "--context: 16,384 tokens is past falcon-7b's longest context, 2,048 tokens: vLLM refuses to start with --max-model-len beyond it (vllm/config/model.py, _get_and_verify_max_len) unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1; give --context 2048 or less, or --allow-long-context" \
    plan --engine vllm $M --context 16k
expect 2 "SGLang refuses to start with --context-length beyond it (srt/configs/model_config.py, ModelConfig._derive_context_length) unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1" \
    plan --engine sglang $M --context 16k
# one token past it is past it; the longest itself is taken
expect 2 "2,049 tokens is past falcon-7b's longest context" plan --engine vllm $M --context 2049
expect 0 "users fit at 2,048 tokens each under vLLM 0.21" plan --engine vllm $M --context 2048
# a release pinned keeps the rule (vLLM 0.13 had the same check)
expect 2 "is past falcon-7b's longest context" plan --engine vllm@0.13 $M --context 4k
# the whole planning commands refuse it alike
expect 2 "--context: 16,384 tokens is past" simulate --engine vllm $M --context 16k --num-prompts 10
expect 2 "--context: 16,384 tokens is past" solve --engine vllm $M --context 16k --users 10

# the override: planned at 16,384, the variable in the launch line, the plan's warning kept
expect 0 "Launch              VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve tiiuae/falcon-7b --max-model-len 16384" \
    plan --engine vllm $M --context 16k --allow-long-context
expect 0 "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 python -m sglang.launch_server --model-path tiiuae/falcon-7b --context-length 16384" \
    plan --engine sglang $M --context 16k --allow-long-context
expect 0 "the context is longer than the model's maximum position" \
    plan --engine vllm $M --context 16k --allow-long-context
# ... kept in a snapshot, and read back (the copied command line:
# tests/unit/test_command.c)
"$K" plan --engine vllm $M --context 16k --allow-long-context --export "$T/long.json" >/dev/null 2>&1
if grep -q '"allow_long_context":	true' "$T/long.json"; then ok; else bad "the snapshot lacks allow_long_context"; fi
expect 0 "users fit at 16,384 tokens each under vLLM 0.21" plan --load "$T/long.json"
# a file's context is as good as given: without the override it is refused
sed 's/"allow_long_context":	true/"allow_long_context":	false/' "$T/long.json" >"$T/refused.json"
expect 2 "--context: 16,384 tokens is past falcon-7b's longest context" plan --load "$T/refused.json"
# the override is vLLM's and SGLang's, refused elsewhere
expect 2 "--allow-long-context: is an option of vLLM and SGLang" plan --engine llama.cpp $M --allow-long-context
expect 2 "--allow-long-context: is an option of vLLM and SGLang" plan $M --allow-long-context
# without the option the launch line has no variable
out=$("$K" plan --engine vllm $M --context 2k 2>&1)
case $out in *ALLOW_LONG*) bad "a variable in the launch line without the option" ;; *) ok ;; esac

# the default 8,192 past 2,048: planned at 2,048, said on stderr, the
# engine's line at 2,048 (vLLM without --max-model-len takes the derived one)
expect 0 "kvplan: note: --context: the default 8192 tokens is past falcon-7b's longest context, which vLLM refuses without VLLM_ALLOW_LONG_MAX_MODEL_LEN=1: planned at 2048" \
    plan --engine vllm $M
expect 0 "users fit at 2,048 tokens each under vLLM 0.21" plan --engine vllm $M
expect 0 "--max-model-len 2048 " plan --engine vllm $M
expect 0 "users fit at 2,048 tokens each under SGLang 0.5" plan --engine sglang $M
# ... with the override the default stays 8,192; under the generic rule too (it warns)
expect 0 "users fit at 8,192 tokens each under vLLM 0.21" plan --engine vllm $M --allow-long-context
expect 0 "at 8,192 tokens each" plan $M
out=$("$K" plan $M 2>&1)
case $out in *"is past"*) bad "the generic rule clamped the default" ;; *) ok ;; esac
# a model whose longest is above the default: the default untouched, no note
out=$("$K" plan --engine vllm --model llama-3.1-8b 2>&1)
case $out in *"note: --context"*) bad "a note for a default within the model" ;; *) ok ;; esac

# a sweep along the context: the rows past the longest are refused in
# their row, the others planned; the base's default raises no note
expect 0 "4k                           (--context: 4,096 tokens is past falcon-7b's longest context" \
    sweep --engine vllm $M --vary context=1k..4k:2
out=$("$K" sweep --engine vllm $M --vary context=1k..4k:2 2>&1 >/dev/null)
case $out in *"note: --context"*) bad "sweep noted the base's default" ;; *) ok ;; esac
finish
