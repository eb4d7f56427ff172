#!/bin/sh
# --engine NAME@RELEASE with a release as the user runs it: mapped to the
# rule that holds for it (the report and the JSON name the rule), a release
# newer than the newest known noted, and a release older than the oldest
# modelled or a string that is no release refused with exit 2 naming
# --engine; a snapshot's engine name goes through the same resolver.
# Usage: t_engine_release.sh KVPLAN. Ends with "N passed, N failed".
K=${1:?usage: t_engine_release.sh KVPLAN}
. "$(dirname "$0")/bounds_lib.sh"

expect 0 '"profile":	"vllm@0.13"' plan --engine vllm@0.12.0 --format json
expect 0 '"profile":	"vllm@0.17"' plan --engine vllm@0.14.1 --format json
expect 0 '"profile":	"vllm@0.20"' plan --engine vllm@0.18.0 --format json
expect 0 '"profile":	"vllm@0.20"' plan --engine vllm@0.20.1 --format json
expect 0 '"profile":	"vllm"' plan --engine vllm@0.21.0 --format json
expect 0 '"profile":	"vllm@0"' plan --engine vllm@0.7.3 --format json
expect 0 '"profile":	"llama.cpp@mla-kv"' plan --engine llama.cpp@b6500 --format json
expect 0 '"profile":	"trtllm@trt"' plan --engine trtllm@0.18 --format json
expect 0 '"profile":	"sglang"' plan --engine sglang@0.5.6 --format json
expect 0 "note: --engine: vLLM 0.22 is newer than the newest release known (0.21.0): rule vllm@0.21" \
    plan --engine vllm@0.22
expect 2 "--engine: 'vllm@abc': not a release of vllm (a release such as 0.15.1" plan --engine vllm@abc
expect 2 "--engine: 'llama.cpp@b': not a release of llama.cpp (a build such as b6500" \
    plan --engine llama.cpp@b
expect 2 "--engine: 'sglang@0.3': SGLang 0.3 is older than the oldest release modelled (0.4, rule sglang@0.5)" \
    plan --engine sglang@0.3
expect 2 "--engine: 'ollama@0.29': Ollama 0.29 is older than the oldest release modelled (0.30, rule ollama@0.32): before 0.30 Ollama ran its older runner" \
    plan --engine ollama@0.29
expect 2 "--engine: 'trtllm@0.5': TensorRT-LLM 0.5 is older than the oldest release modelled (0.6, rule trtllm@0.7)" \
    plan --engine trtllm@0.5
expect 0 "[releases from b5116, before b7571]" list engines
expect 0 "[releases from b7571, before b7816]" list engines
expect 0 '"releases":	"from 0.21 (newest known 0.21.0)"' list engines --format json
expect 0 '"releases":	"from 0.18, before 0.21"' list engines --format json
expect 0 '"releases":	"from 0.14, before 0.18"' list engines --format json

# a snapshot naming a release loads with the rule of that release, and one
# naming a release too old is refused at its field
"$K" plan --engine vllm --format json >"$T/s.json" 2>/dev/null
sed 's/"name":	"vllm"/"name":	"vllm@0.12.1"/' "$T/s.json" >"$T/old.json"
sed 's/"name":	"vllm"/"name":	"vllm@abc"/' "$T/s.json" >"$T/bad.json"
if grep -q '"vllm@0.12.1"' "$T/old.json"; then ok; else bad "the snapshot has no engine name to edit"; fi
expect 0 '"profile":	"vllm@0.13"' plan --load "$T/old.json" --format json
expect 2 "name: 'vllm@abc': not a release of vllm" plan --load "$T/bad.json"

# vllm@0.15 was the newest rule's label until it was named after the release
# it is read for (0.20: DeepSeek V4, served from 0.20.1) and release 0.18's
# sampler (Triton, no sort) split it: session files and snapshots that pinned
# it still load, now with release 0.15's rule, vllm@0.17 (0.14 to 0.17: the
# profile's top-k/top-p sorted by PyTorch): vllm3.json, scenario B, 6 users at
# 40,960 (7 under the newest rule); saved again, the engine is "vllm@0.17"
S="$(dirname "$0")/../data/session-vllm-0.15.json"
expect 0 "6 users fit at 40,960 tokens each under vLLM 0.17" plan --load "$S" --scenario B
expect 0 "7 users fit at 40,960 tokens each under vLLM 0.21" plan --load "$S" --scenario B --engine vllm
expect 0 "16 users fit at 16,384 tokens each under vLLM 0.17" plan --load "$S" --scenario A
expect 0 '"engine_title":	"vLLM 0.17"' plan --load "$S" --format json
expect 0 "under vLLM 0.17" plan --engine vllm@0.15
expect 0 "under vLLM 0.20" plan --engine vllm@0.20
sed 's/"name":	"vllm"/"name":	"vllm@0.15"/' "$T/s.json" >"$T/pinned.json"
expect 0 '"profile":	"vllm@0.17",' plan --load "$T/pinned.json" --format json
"$K" plan --load "$T/pinned.json" --export "$T/again.json" >/dev/null 2>&1
if grep -q '"name":	"vllm@0.17",$' "$T/again.json"; then ok; else bad "vllm@0.15 saved again is not vllm@0.17"; fi
# ... and keeps the release asked for beside the rule's name (issue 22)
if grep -q '"release_asked":	"0.15"$' "$T/again.json"; then ok; else bad "vllm@0.15 saved again lost the release asked for"; fi
finish
