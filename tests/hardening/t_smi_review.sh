#!/bin/sh
# --gpu auto and what the driver tools say: a machine with two kinds of GPU is
# not planned as one kind, a memory figure no GPU can have is refused with its
# line, and a tool that fails is named (status or signal) and not believed.
# Each case puts fake tools in a directory of its own that is the whole PATH,
# so the host's real nvidia-smi or rocm-smi never answers in its place.
# Usage: t_smi_review.sh KVPLAN. Ends with "N passed, N failed".
K=${1:?usage: t_smi_review.sh KVPLAN}
. "$(dirname "$0")/bounds_lib.sh"
ulimit -c 0 # the tool that dies of SIGSEGV leaves no core behind

# tool CASE NAME BODY: a fake driver tool NAME in $T/CASE (sh builtins only)
tool() {
    mkdir -p "$T/$1"
    printf '#!/bin/sh\n%s\n' "$3" > "$T/$1/$2"
    chmod +x "$T/$1/$2"
}
# auto CASE [ARGS]: kvplan plan --gpu auto with only $T/CASE on PATH; its
# output in $out and its status in $st
auto() {
    c=$1
    shift
    mkdir -p "$T/$c"
    out=$(timeout 30 env PATH="$T/$c" "$K" plan --gpu auto "$@" 2>&1)
    st=$?
}
# has TEXT...: true when $out holds every TEXT
has() {
    for s in "$@"; do printf '%s' "$out" | grep -qF -- "$s" || return 1; done
}
# check WHAT STATUS TEXT...: the last auto ended with STATUS and said every TEXT
check() {
    what=$1 want=$2
    shift 2
    if [ "$st" = "$want" ] && has "$@"; then ok
    else bad "$what: exit $st (expected $want): $(printf '%s' "$out" | head -c 400)"; fi
}

H100='NVIDIA H100 80GB HBM3, 81559'
A100='NVIDIA A100-SXM4-40GB, 40960'

# --- two kinds of GPU: refused, each kind named with its count and its --gpu
tool mixed nvidia-smi "echo '$H100'; echo '$A100'"
auto mixed
check "H100 then A100" 2 "nvidia-smi lists 2 kinds of GPU" "1 x NVIDIA H100 80GB HBM3" \
    "1 x NVIDIA A100-SXM4-40GB" "--gpu h100-sxm --gpus 1" "--gpu a100-40gb --gpus 1"
# the other order was planned as 2 x A100: the order does not choose
tool reversed nvidia-smi "echo '$A100'; echo '$A100'; echo '$A100'; echo '$H100'"
auto reversed
check "3 A100 then an H100" 2 "3 x NVIDIA A100-SXM4-40GB (40960 MiB)" \
    "1 x NVIDIA H100 80GB HBM3 (81559 MiB)" "--gpu a100-40gb --gpus 3"
# --gpus says how many, not which kind
auto mixed --gpus 1
check "two kinds with --gpus 1" 2 "lists 2 kinds of GPU"
# the same card with another memory total (ECC on one of them) is another kind
tool ecc nvidia-smi "echo 'NVIDIA L4, 23034'; echo 'NVIDIA L4, 22491'"
auto ecc
check "one card, two memory totals" 2 "1 x NVIDIA L4 (23034 MiB)" "1 x NVIDIA L4 (22491 MiB)"
# one kind, several times, is still planned
tool same nvidia-smi "echo '$H100'; echo '$H100'; echo '$H100'"
auto same
check "three of one kind" 0 "3 x NVIDIA H100 SXM5 80GB"

# --- memory figures no GPU has: refused with the value (cleaned) and its line,
# alone (-5 wrapped to 18446744073704308736 and the preset was blamed) and
# after a good line (only the first line's memory was read)
for v in -5 999999999999999999999 18446744073709551616 0 12abc '[N/A]' 16777217 '0x100' '' \
    '81559 MiB'; do
    tool "size1$v" nvidia-smi "echo 'NVIDIA H100 80GB HBM3, $v'"
    auto "size1$v"
    check "memory '$v' alone" 2 "nvidia-smi reported an impossible size '$v' MiB on line 1"
    if has "more than any GPU has"; then bad "memory '$v' blamed on the preset: $out"; else ok; fi
    tool "size2$v" nvidia-smi "echo '$H100'; echo 'NVIDIA H100 80GB HBM3, $v'"
    auto "size2$v"
    check "memory '$v' on line 2" 2 "nvidia-smi reported an impossible size '$v' MiB on line 2"
done
# the ends of the range (1 MiB, 16 TiB) are sizes, whatever they fit
for v in 1 16777216; do
    tool "edge$v" nvidia-smi "echo 'NVIDIA H100 80GB HBM3, $v'"
    auto "edge$v"
    if has "impossible size"; then bad "memory $v refused: $out"; else ok; fi
done
auto edge16777216
check "16 TiB" 0 "nvidia-smi: 16777216 MiB"
# an escape in the figure is quoted as text, never sent to the terminal
tool sizeesc nvidia-smi "printf '%s\\n' 'NVIDIA H100 80GB HBM3, 8\\033[2J1559'"
auto sizeesc
check "an escape in the figure" 2 "impossible size '8"
case $out in *"$(printf '\033')"*) bad "an escape reached the output: $out" ;; *) ok ;; esac

# --- a tool that fails is said to have failed, and its output is not used
tool exit3 nvidia-smi "echo '$H100'; exit 3"
auto exit3
check "nvidia-smi exits 3 after a good line" 2 "nvidia-smi exited with status 3" \
    "rocm-smi is absent"
tool segv nvidia-smi "echo '$H100'; kill -SEGV \$\$"
auto segv
check "nvidia-smi dies of SIGSEGV" 2 "nvidia-smi was killed by signal 11"
# what it said before failing is quoted (cleaned) as the reason
tool driver nvidia-smi "echo \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\"; exit 9"
auto driver
check "nvidia-smi without its driver" 2 "nvidia-smi exited with status 9" \
    "NVIDIA-SMI has failed because it couldn't communicate"
# both tools fail: both are named
tool both nvidia-smi "echo '$H100'; exit 3"
tool both rocm-smi 'exit 1'
auto both
check "both tools fail" 2 "nvidia-smi exited with status 3" "rocm-smi exited with status 1"
tool both2 nvidia-smi 'kill -SEGV $$'
tool both2 rocm-smi 'kill -ABRT $$'
auto both2
check "both tools die" 2 "nvidia-smi was killed by signal 11" "rocm-smi was killed by signal 6"
# neither tool present: as before
auto none
check "no tool" 2 "no GPU found on this machine" "nvidia-smi is absent" "rocm-smi is absent"

# --- rocm-smi, run by itself (a pipeline hid its status): its CSV read by column name
ROCM_HEAD='device,VRAM Total Memory (B),VRAM Total Used Memory (B),Card Series,Card Model,Card Vendor,Card SKU,Subsystem ID,Device Rev,Node ID,GUID,GFX Version'
MI300X='205822885888,297889792,AMD Instinct MI300X OAM,0x74a1,Advanced Micro Devices Inc. [AMD/ATI],M3000100,0x74a1,0x00,2,28851,gfx942'
tool rocm rocm-smi "echo '$ROCM_HEAD'; echo 'card0,$MI300X'; echo 'card1,$MI300X'"
auto rocm
check "rocm-smi's table" 0 "2 x AMD Instinct MI300X" "rocm-smi: 196288 MiB"
# nvidia-smi failing does not stop a working rocm-smi
cp "$T/rocm/rocm-smi" "$T/segv/rocm-smi"
auto segv
check "nvidia-smi dies, rocm-smi answers" 0 "2 x AMD Instinct MI300X"
tool rocmbad rocm-smi "echo '$ROCM_HEAD'; echo 'card0,$MI300X'; echo 'card1,-1,0,AMD Instinct MI300X OAM'"
auto rocmbad
check "rocm-smi, a negative size" 2 "rocm-smi reported an impossible size '-1' B on line 3"
tool rocmexit rocm-smi "echo '$ROCM_HEAD'; echo 'card0,$MI300X'; exit 2"
auto rocmexit
check "rocm-smi exits 2 after its table" 2 "nvidia-smi is absent" "rocm-smi exited with status 2"

finish
