#!/bin/sh
# Runs every hostile case: exit status 2 and the message, no crash.
# Usage: run.sh path/to/kvplan. Ends with "N passed, N failed".
K=${1:?usage: run.sh KVPLAN}
case $K in /*) ;; *) K=$(pwd)/$K ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d /tmp/kvplan-hostile.XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_CONFIG_HOME="$T/config"
export XDG_STATE_HOME="$T/state"
D="$HERE/data/"
# a file just over the 16 MiB limit, made here rather than kept in the repository
head -c 17825792 /dev/zero | tr '\0' ' ' > "$T/huge.json"
# a FIFO, and a preset directory holding one: reading them must never block
mkfifo "$T/fifo.json"
mkdir -p "$T/fifodir" && mkfifo "$T/fifodir/x.json"
# two files with one id in one directory
mkdir -p "$T/dups" && cp "$D/dup-a.json" "$D/dup-b.json" "$T/dups/"
pass=0
failed=0
while IFS='|' read -r name args want; do
    case $name in ''|'#'*) continue ;; esac
    name=$(echo "$name" | sed 's/ *$//')
    args=$(echo "$args" | sed 's/^ *//; s/ *$//')
    want=$(echo "$want" | sed 's/^ *//')
    # {p:FILE}: a directory of its own holding the one file
    while echo "$args" | grep -q '{p:'; do
        f=$(echo "$args" | sed 's/.*{p:\([^}]*\)}.*/\1/')
        mkdir -p "$T/p-$name"
        cp "$D$f" "$T/p-$name/"
        args=$(echo "$args" | sed "s#{p:$f}#$T/p-$name#")
    done
    args=$(echo "$args" | sed "s#{d}dups#$T/dups#g; s#{d}#$D#g; s#{t}#$T/#g")
    # {esc} ESC, {bel} BEL, {csi} C1 CSI as UTF-8 (U+009B), {rlo} U+202E
    args=$(echo "$args" | sed "s#{esc}#$(printf '\033')#g; s#{bel}#$(printf '\007')#g;
        s#{csi}#$(printf '\302\233')#g; s#{rlo}#$(printf '\342\200\256')#g")
    want=$(echo "$want" | sed "s#{d}#$D#g")
    # shellcheck disable=SC2086
    out=$(timeout 30 "$K" $args 2>&1 </dev/null)
    got=$?
    n=$((pass + failed))
    printf '%s' "$out" > "$T/printed.$n"
    printf '%s' "$args" > "$T/printed.$n.args"
    if [ "$got" = 2 ] && printf '%s' "$out" | grep -qF -- "$want"; then
        pass=$((pass + 1))
    else
        failed=$((failed + 1))
        echo "FAIL $name: exit $got, expected 2 and: $want"
        printf '%s\n' "$out" | head -3
    fi
done < "$HERE/cases"
echo "hostile: $pass passed, $failed failed"
/usr/bin/python3 "$HERE/../check_printable.py" "$T" || failed=$((failed + 1))
[ "$failed" = 0 ]
