#!/bin/sh
# check-layers.sh keeps core's headers in one order: a header may include,
# and declare ahead (struct NAME;), only what a header before it holds, so
# that no stage's header names the plan above it. Each case runs the script
# on a copy of src/ with one header changed.
# Usage: t_layers_ahead.sh KVPLAN (not run). Ends with "N passed, N failed".
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/bounds_lib.sh"

# a fresh copy of the tree; with LINE, that line added after speed.h's last include
tree() {
    rm -rf "$T/tree"
    mkdir -p "$T/tree/tools"
    cp -R "$ROOT/src" "$T/tree/src"
    cp "$ROOT/tools/check-layers.sh" "$T/tree/tools/"
    [ -z "$1" ] || sed -i "s|^#include \"totals.h\"|&\\n$1|" "$T/tree/src/core/speed.h"
}
layers() { (cd "$T/tree" && sh tools/check-layers.sh 2>&1); }

# expect_layers STATUS SUBSTRING LINE
expect_layers() {
    tree "$3"
    out=$(layers)
    got=$?
    if [ "$got" = "$1" ] && printf '%s' "$out" | grep -qF -- "$2"; then ok
    else bad "speed.h with '$3': exit $got (expected $1): $(printf '%s' "$out" | head -c 300)"; fi
}

expect_layers 0 "layers: ok" ""
# a stage's header naming the plan's result ahead, as speed.h did
expect_layers 1 \
    "src/core/speed.h declares struct plan_result ahead, which no header below it defines" \
    "struct plan_result;"
expect_layers 1 "src/core/speed.h includes plan.h, which is not below it in core's order" \
    '#include "plan.h"'
# ahead of a struct a header below it defines: allowed
expect_layers 0 "layers: ok" "struct kv_cost;"
finish
