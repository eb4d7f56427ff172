#!/bin/sh
# Runs every hardening test in this folder (each *.sh with sh, each *.py
# with python3), passing the binary; each ends with "N passed, N failed".
# Usage: run.sh path/to/kvplan [t_NAME ...] (all of them without names).
# Ends with the total "N passed, N failed".
K=${1:?usage: run.sh KVPLAN [t_NAME ...]}
case $K in /*) ;; *) K=$(pwd)/$K ;; esac
shift
HERE=$(cd "$(dirname "$0")" && pwd)
# The tests' presets and recent files live here, never in the user's own.
S=$(mktemp -d /tmp/kvplan-hardening.XXXXXX)
trap 'rm -rf "$S"' EXIT
export XDG_CONFIG_HOME="$S/config" XDG_STATE_HOME="$S/state"
pass=0 failed=0 status=0
if [ $# -gt 0 ]; then set -- $(for n in "$@"; do echo "$HERE/$n"; done)
else set -- "$HERE"/t_*.sh "$HERE"/t_*.py; fi
for f in "$@"; do
    [ -f "$f" ] || continue
    case $f in *.py) out=$(/usr/bin/python3 "$f" "$K" 2>&1) ;; *) out=$(sh "$f" "$K" 2>&1) ;; esac
    rc=$?
    line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)
    p=$(echo "$line" | sed -n 's/^\([0-9]*\) passed.*/\1/p'); p=${p:-0}
    q=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p'); q=${q:-0}
    if [ $rc != 0 ] || [ -z "$line" ]; then
        status=1; [ "$q" = 0 ] && q=1
        printf '%s\n' "$out" | grep -v '^[0-9]* passed' | tail -30
    fi
    echo "  $(basename "$f"): $p passed, $q failed"
    pass=$((pass + p)); failed=$((failed + q))
done
echo "hardening: $pass passed, $failed failed"
exit $status
