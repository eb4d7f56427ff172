#!/bin/sh
# check-layers.sh: the arrows point down. core includes nothing of ours but
# core, and neither cJSON nor curses nor stdio file calls; io knows no
# curses, tui knows no GPUs, and nothing below cli includes cli. And no
# file outside the engine table and an engine's own file tests which engine
# it is.
fail=0
bad() { echo "layering: $1" >&2; fail=1; }
for f in src/core/*.[ch]; do
    grep -nE '#include *[<"](cJSON|curses|ncurses|io/|tui/|app/|cli/)' "$f" && bad "$f includes a higher layer"
    grep -nE '\b(fopen|fprintf|printf|puts|fputs|getenv|open|read|write)\s*\(' "$f" | grep -v snprintf && bad "$f does I/O"
done
# Inside core, headers in layer order: each includes only headers before it
# in this list, so no include goes back up and none goes round in a circle,
# and declares ahead (struct NAME;) only what a header before it defines: a
# stage's header names the results it reads and writes, never the plan's.
# A new header takes its place here.
core_order="version optname diag text dtype units steptime shell params engine spec offload scenario calibration_origin
kvcost lora specdec images placement explain engine_detail budget offload_fit engine_desc totals speedfamily speed speed_ttft speed_inputs speedband loadband price
hosttier plan curve policy policy_sglang policy_llamacpp launch solve workload sim sim_internal sim_disagg loadrun slo_search slo_disagg speedfit"
for f in src/core/*.h; do
    h=$(basename "$f" .h)
    case " $(echo $core_order) " in
    *" $h "*) ;;
    *) bad "$f is not in check-layers.sh's order of core headers"; continue ;;
    esac
    below=$(echo $core_order | sed "s/ *\<$h\>.*//")
    for inc in $(sed -n 's/^#include *"\([a-z_]*\)\.h".*/\1/p' "$f"); do
        case " $below " in
        *" $inc "*) ;;
        *) bad "$f includes $inc.h, which is not below it in core's order" ;;
        esac
    done
    for ahead in $(sed -n 's/^struct \([a-z_]*\);.*/\1/p' "$f"); do
        home=$(grep -l "^struct $ahead {" src/core/*.h | head -n 1)
        case " $below " in
        *" $(basename "$home" .h) "*) ;;
        *) bad "$f declares struct $ahead ahead, which no header below it defines" ;;
        esac
    done
done
for f in src/io/*.[ch]; do
    grep -nE '#include *[<"](curses|ncurses|tui/|app/|cli/)' "$f" && bad "$f includes a higher layer"
done
for f in $(ls src/tui/*.[ch] 2>/dev/null); do
    grep -nE '#include *[<"](cJSON|core/|io/|app/|cli/)' "$f" && bad "$f (toolkit) knows the planner"
done
for f in $(ls src/app/*.[ch] 2>/dev/null); do
    grep -nE '#include *[<"]cli/' "$f" && bad "$f includes cli"
done
# An engine is one descriptor (src/core/engine_desc.h): only the table
# (src/core/engine.[ch], engine_desc.h) and an engine's own policy file
# (src/core/policy_<engine>.c, its own kind and rules only) name an engine
# or a version's rule; elsewhere code asks the descriptor. ENGINE_GENERIC may
# be assigned ("no engine") and ENGINE_COUNT iterated, never compared.
engine_names='ENGINE_(GENERIC|VLLM|SGLANG|LLAMACPP|TRTLLM|OLLAMA)'
engine_uses="\bENGINE_(VLLM|SGLANG|LLAMACPP|TRTLLM|OLLAMA)[A-Z0-9_]*|\bRULE_(VLLM|SGLANG|LLAMACPP|TRTLLM|OLLAMA)_[A-Z0-9_]+"
engine_uses="$engine_uses|[!=]=[[:space:]]*$engine_names\b|\b$engine_names[[:space:]]*[!=]=|\bcase[[:space:]]+$engine_names\b"
for f in $(find src -name '*.[ch]' | sort); do
    case "$f" in
    src/core/engine.c | src/core/engine.h | src/core/engine_desc.h) continue ;;
    src/core/policy_generic.c) own=GENERIC ;;
    src/core/policy_vllm.c | src/core/policy_vllm_refuse.c) own=VLLM ;;
    src/core/policy_sglang.c) own=SGLANG ;;
    src/core/policy_llamacpp.c | src/core/policy_llamacpp_cells.c) own=LLAMACPP ;;
    src/core/policy_trtllm.c) own=TRTLLM ;;
    src/core/policy_ollama.c) own=OLLAMA ;;
    *) own=NONE ;;
    esac
    found=$(grep -noE "$engine_uses" "$f" |
        grep -vE ":([!=]=[[:space:]]*|case[[:space:]]+)?(ENGINE|RULE)_$own[A-Z0-9_]*([[:space:]]*[!=]=)?\$")
    if [ -n "$found" ]; then
        echo "$found" | sed "s|^|$f:|" >&2
        bad "$f tests which engine it is: ask its descriptor (core/engine_desc.h)"
    fi
done
[ $fail = 0 ] && echo "layers: ok"
exit $fail
