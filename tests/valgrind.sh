#!/bin/sh
# The unit tests and every command under valgrind: no invalid access, no
# definite or indirect leak. Usage: valgrind.sh BUILD_DIR. Ends with
# "N passed, N failed".
B=${1:?usage: valgrind.sh BUILD_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d /tmp/kvplan-vg.XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_CONFIG_HOME="$T"
VG="valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99"
pass=0 failed=0
check() {
    $VG "$@" > /dev/null 2> "$T/err"
    if [ $? = 99 ] || grep -q "Invalid\|uninitialised" "$T/err"; then
        failed=$((failed + 1)); echo "FAIL: $*"; head -20 "$T/err"
    else
        pass=$((pass + 1))
    fi
}
for t in "$B"/tests/test_*; do
    case $t in *.o|*.d) continue ;; esac
    check "$t"
done
K="$B/kvplan"
check "$K" plan
check "$K" plan --format json --engine vllm --gpus 4 --tp 2
check "$K" plan --format markdown --engine sglang --model gemma-3-27b --context 128k
check "$K" plan --engine llama.cpp@pre-mla --model deepseek-v3 --gpus 8 --kv-dtype q4_0
check "$K" plan --engine trtllm --export "$T/s.json"
check "$K" plan --load "$T/s.json"
check "$K" plan --context 0
check "$K" list models --format json
check "$K" show gpu h100-sxm
check "$K" calibrate "$HERE/data/logs/vllm-03.log" --model llama-3-8b --save "$T/c.json"
check "$K" calibrate "$HERE/data/logs/mixed.log"
check "$K" plan --calibration "$T/c.json"
check "$K" solve --users 100 --context 8k --model llama-3.1-8b --gpu h100-sxm --gpu l4
check "$K" sweep --vary context=1k..64k --format json
check "$K" import-hf "$HERE/data/hf/deepseek-v3.json"
check "$K" import-hf "$HERE/hostile/data/deep.json"
check "$K" import-gguf "$HERE/fuzz/corpus/gguf/qwen3moe.gguf"
check "$K" import-gguf "$HERE/fuzz/corpus/gguf/deepseek2.gguf" -o "$T/gguf.json"
check "$K" import-gguf "$HERE/fuzz/regressions/gguf/no-tensors-data-past-end"
check "$K" --dump-screen "$T/screen" --size 160x48 --keys "b<Right><Right>c"
check "$K" --dump-screen "$T/screen" --size 80x24 --keys "<Up><Enter>gem<Enter>p"
echo "valgrind: $pass passed, $failed failed"
[ "$failed" = 0 ]
