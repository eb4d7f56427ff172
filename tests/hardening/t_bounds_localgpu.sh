#!/bin/sh
# --gpu auto reads nvidia-smi: a tool that hangs, floods or prints escapes is
# bounded (time, lines, bytes) and what it prints is cleaned before the terminal.
# Usage: t_bounds_localgpu.sh KVPLAN. Ends with "N passed, N failed".
K=${1:?usage: t_bounds_localgpu.sh KVPLAN}
. "$(dirname "$0")/bounds_lib.sh"

# fake NAME BODY: a directory holding an nvidia-smi script, put first in PATH
fake() {
    mkdir -p "$T/$1"
    printf '#!/bin/sh\n%s\n' "$2" > "$T/$1/nvidia-smi"
    chmod +x "$T/$1/nvidia-smi"
}
# auto NAME: kvplan plan --gpu auto with that fake (a timeout as safety net)
auto() { PATH="$T/$1:$PATH" timeout 30 "$K" plan --gpu auto 2>"$T/$1.err" >"$T/$1.out"; }

# A tool that never answers: started first, in the background, since it
# takes the whole bound (5 s); it records its sleep's pid to show it is stopped.
fake hang "sleep 1000 & echo \$! > $T/hang.pid; wait"
(auto hang; echo $? > "$T/hang.rc") &
hang_job=$!

# 20,000 GPUs: no host has that many; the old code planned for 20,000
fake many 'i=0; while [ $i -lt 20000 ]; do echo "NVIDIA H100 80GB HBM3, 81559"; i=$((i + 1)); done'
auto many; st=$?
if [ $st = 2 ] && grep -q "lists more than 64 GPUs" "$T/many.err"; then ok
else bad "20,000 lines: exit $st, $(head -c 300 "$T/many.err" "$T/many.out")"; fi

# 64 GPUs is a host, and is planned
fake host 'i=0; while [ $i -lt 64 ]; do echo "NVIDIA H100 80GB HBM3, 81559"; i=$((i + 1)); done'
auto host; st=$?
if [ $st = 0 ] && grep -q "64 x NVIDIA H100 SXM5 80GB" "$T/host.out"; then ok
else bad "64 lines: exit $st, $(head -c 300 "$T/host.err")"; fi

# Megabytes in one name
fake big 'printf "NVIDIA H100 80GB HBM3 "; head -c 4000000 /dev/zero | tr "\000" x; echo ", 81559"'
auto big; st=$?
if [ $st = 2 ] && grep -q "nvidia-smi printed more than 16384 bytes" "$T/big.err"; then ok
else bad "megabytes: exit $st, $(head -c 300 "$T/big.err")"; fi

# Escapes (a title change, a colour) and a byte that is not UTF-8 in the name:
# the plan still matches the card, and no control byte reaches stdout
fake esc 'printf "NVIDIA H100 \033]0;owned\007\033[31m80GB\377 HBM3\233, 81559\n"'
auto esc; st=$?
ctl=$(tr -d '\n' < "$T/esc.out" | LC_ALL=C tr -d '[:print:]' | od -An -c | head -3)
if [ $st = 0 ] && grep -q "1 x NVIDIA H100 SXM5 80GB" "$T/esc.out" && [ -z "$ctl" ]; then ok
else bad "escapes in the name: exit $st, bytes that are not printable ASCII: $ctl"; fi
if [ $st = 0 ] && grep -q "nvidia-smi: 81559 MiB, NVIDIA H100 \]0;owned\[31m80GB HBM3)" "$T/esc.out"
then ok; else bad "the cleaned name: $(grep -a 'this machine' "$T/esc.out")"; fi

wait $hang_job
st=$(cat "$T/hang.rc")
if [ "$st" = 2 ] && grep -q "nvidia-smi did not answer within 5 s" "$T/hang.err"; then ok
else bad "a hanging nvidia-smi: exit $st, $(head -c 300 "$T/hang.err")"; fi
# its sleep was killed with it (gone, or a zombie awaiting its new parent)
pid=$(cat "$T/hang.pid" 2>/dev/null)
state=$(ps -o stat= -p "${pid:-0}" 2>/dev/null)
case $state in '' | Z*) ok ;; *) bad "the hanging tool's child $pid still runs ($state)"; kill "$pid" ;; esac

finish
