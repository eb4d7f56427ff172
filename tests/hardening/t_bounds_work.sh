#!/bin/sh
# sweep and solve refuse work past their caps (rows, layouts) with exit 2 and
# the option that allows more; the option works. A timeout on every run: the
# uncapped sweep below ran until killed.
# Usage: t_bounds_work.sh KVPLAN. Ends with "N passed, N failed".
K=${1:?usage: t_bounds_work.sh KVPLAN}
. "$(dirname "$0")/bounds_lib.sh"

# every GPU count to 65,536 of every GPU and model: 145,686,528 rows with the
# catalogue of today, counted before any is planned
models=$("$K" list models | grep -c '^[a-z0-9]')
gpus=$("$K" list gpus | grep -c '^[a-z0-9]')
rows=$((65536 * models * gpus))
shown=$(printf '%s' "$rows" | sed ':a;s/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/;ta')
expect 2 "sweep: $shown rows, over the cap of 100,000; vary fewer values, or allow them with --max-rows $rows" \
    sweep --vary gpus=1..65536 --vary gpu=all --vary model=all
# 4 GPU counts x the engine's cache types: refused under a cap of 3, planned under its own count
n=$("$K" sweep --vary gpus=1..4 --vary kv-dtype=all --format csv --max-rows 1000 | tail -n +2 | wc -l)
expect 2 "rows, over the cap of 3; vary fewer values, or allow them with --max-rows $n" \
    sweep --vary gpus=1..4 --vary kv-dtype=all --max-rows 3
out=$(timeout 60 "$K" sweep --vary gpus=1..4 --vary kv-dtype=all --format csv --max-rows "$n" 2>&1)
st=$?
if [ $st = 0 ] && [ "$(printf '%s\n' "$out" | tail -n +2 | wc -l)" = "$n" ]; then ok
else bad "sweep --max-rows $n: exit $st, $(printf '%s' "$out" | head -c 300)"; fi
expect 2 "--max-rows: '0' is not a whole number from 1" sweep --vary gpus=1..4 --max-rows 0

# solve's worst case: 4096 GPUs in up to 64 stages of every type, for users no
# count serves, is 2.1M layouts (15 s); it stops at 1,000,000
expect 2 "solve: more than 1000000 layouts to plan (up to 4096 GPUs in pipeline stages of each type) before 1000000000000 users are served" \
    solve --users 1000000000000 --max-gpus 4096 --max-pp 64 --context 8k --model llama-3.1-8b
# 1,000 users of Llama 3.1 70B need 48 H100s: some 200 layouts of 1 to 48 GPUs
expect 2 "allow more with --max-plans N" solve --users 1000 --gpu h100-sxm --model llama-3.1-70b \
    --context 8k --max-plans 20
expect 0 "h100-sxm            48        8 x 6" solve --users 1000 --gpu h100-sxm \
    --model llama-3.1-70b --context 8k --max-plans 1000

finish
