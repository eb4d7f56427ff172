#!/bin/sh
# A few checks through a real terminal stack: kvplan inside tmux, driven with
# send-keys, read with capture-pane. Usage: tmux.sh path/to/kvplan.
# Ends with "N passed, N failed".
# Deterministic under make -j: each phase has a fresh server on its own
# socket inside a private directory (never one killed and restarted on a
# shared name), every wait has a timeout, and the directory is removed.
K=${1:?usage: tmux.sh KVPLAN}
case $K in /*) ;; *) K=$(pwd)/$K ;; esac
command -v tmux >/dev/null || { echo "tmux: 0 passed, 0 failed (tmux not installed)"; exit 0; }
D=$(mktemp -d /tmp/kvplan-tmux.XXXXXX)
# each server starts here and passes it on: the recent files the tests open
# are not the user's
export XDG_STATE_HOME="$D/state"
SOCK=
T() { tmux -S "$SOCK" -f /dev/null "$@"; }
cleanup() {
    for s in "$D"/sock.*; do [ -S "$s" ] && tmux -S "$s" kill-server 2>/dev/null; done
    rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
pass=0 failed=0
ok() { pass=$((pass + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; T capture-pane -p -t app 2>/dev/null | head -30; }

# wait_for TEXT: poll the pane (tmux has no output hook) for up to 10 s
wait_for() {
    i=0
    while [ $i -lt 200 ]; do
        T capture-pane -p -t app -S - 2>/dev/null | grep -qF -- "$1" && return 0
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}

# wait_done: the pane's shell has recorded kvplan's exit status (at most 20 s)
wait_done() {
    timeout 20 tmux -S "$SOCK" wait-for done || echo "timeout" > "$D/status"
}

# phase NAME COLS ROWS COMMAND [AFTER]: a fresh server on socket sock.NAME
# running COMMAND in a shell that records its exit status, runs AFTER, then
# signals us
phase() {
    [ -n "$SOCK" ] && T kill-server 2>/dev/null
    SOCK="$D/sock.$1"
    rm -f "$D/status"
    T start-server \; set-option -g remain-on-exit on \; \
        new-session -d -s app -x "$2" -y "$3" \
        "$4; echo \$? > $D/status; ${5:-:}; tmux -S $SOCK wait-for -S done"
}

phase main 100 30 "env LC_ALL=C.UTF-8 XDG_CONFIG_HOME=$D $K --gpu a100-80gb --model llama-2-7b --context 4k"
if wait_for "How the number is computed"; then ok; else bad "the planner did not open"; fi
if wait_for "= floor(29.72)"; then ok; else bad "29 users at 4k not shown"; fi
T send-keys -t app Right
if wait_for "at 8k tokens" && wait_for "= floor(14.86)"; then ok; else bad "Right did not double the context"; fi
T send-keys -t app p
if wait_for "at 8k tokens each on 1 x NVIDIA A100 SXM4 80GB"; then ok; else bad "presentation mode"; fi
T send-keys -t app Escape
T resize-window -t app -x 70 -y 22 2>/dev/null || T resize-pane -t app -x 70 -y 22
if wait_for "How the number is computed"; then ok; else bad "no redraw at 70x22"; fi
T send-keys -t app q
wait_done
if [ "$(cat "$D/status")" = 0 ]; then ok; else bad "exit status $(cat "$D/status")"; fi

# SIGTERM through the real stack: the pane leaves the alternate screen, status 143
phase sigterm 10 3 "env LC_ALL=C.UTF-8 XDG_CONFIG_HOME=$D $K"
if wait_for "Enlarge"; then ok; else bad "a 10x3 pane does not ask for more room"; fi
T resize-window -t app -x 100 -y 30 2>/dev/null
if wait_for "How the number is computed"; then ok; else bad "no redraw after growing from 10x3"; fi
pid=$(T display -p -t app '#{pane_pid}')
kvpid=$(pgrep -P "$pid" kvplan | head -1)
[ -n "$kvpid" ] && kill -TERM "$kvpid"
wait_done
if [ "$(T display -p -t app '#{alternate_on}')" = 0 ]; then ok; else bad "SIGTERM left the alternate screen on"; fi
if [ "$(cat "$D/status")" = 143 ]; then ok; else bad "exit status after SIGTERM: $(cat "$D/status")"; fi

# Ctrl-\ (SIGQUIT) from the keyboard leaves the terminal cooked
phase sigquit 100 30 "env LC_ALL=C.UTF-8 XDG_CONFIG_HOME=$D $K" "stty -a | grep -o ' -*icanon' > $D/stty"
if wait_for "How the number is computed"; then ok; else bad "the planner did not open for Ctrl-\\"; fi
T send-keys -t app 'C-\'
wait_done
if [ "$(T display -p -t app '#{alternate_on}')" = 0 ]; then ok; else bad "Ctrl-\\ left the alternate screen on"; fi
if [ "$(cat "$D/status")" = 131 ] && [ "$(cat "$D/stty" 2>/dev/null)" = " icanon" ]; then ok
else bad "Ctrl-\\: status $(cat "$D/status"), terminal: $(cat "$D/stty" 2>/dev/null)"; fi

# One answer with an engine and replicas: the big number, the replica
# line and the explain rows agree with `kvplan plan --format json`, and stay
# in step as a key changes the GPUs
args="--gpu h100-sxm --model llama-3.1-70b --gpus 12 --tp 4 --context 32k --engine vllm"
want=$($K plan $args --format json | sed -n 's/^\t\t"max_users":\t\([0-9]*\),$/\1/p' | head -1)
per=$($K plan $args --format json | sed -n 's/^\t\t"users_per_replica":\t\([0-9]*\),$/\1/p' | head -1)
phase replicas 160 48 "env TERM=screen LC_ALL=C.UTF-8 XDG_CONFIG_HOME=$D $K $args"
if [ -n "$want" ] && wait_for "= $want all replicas" && wait_for "3 replicas x TP 4: $per users each" \
    && wait_for "32k now: $want users"; then ok; else bad "replicas under vLLM: want $want ($per each)"; fi
# Shift-Right under TERM=screen (tmux's own terminal) is a big step up the
# GPUs, in whole TP groups; the answer on screen is plan's for that count
T send-keys -t app Up Up Up Up # Context -> Model -> Stages -> TP -> GPUs
T send-keys -t app S-Right
# the title's GPU count once it has moved from 12 (at most 10 s)
g=
i=0
while [ $i -lt 200 ]; do
    g=$(T capture-pane -p -t app | sed -n 's/.* on \([0-9]*\) x NVIDIA.*/\1/p' | head -1)
    [ -n "$g" ] && [ "$g" != 12 ] && break
    sleep 0.05
    i=$((i + 1))
done
want2=$($K plan $(echo "$args" | sed "s/--gpus 12/--gpus $g/") --format json 2>/dev/null \
    | sed -n 's/^\t\t"max_users":\t\([0-9]*\),$/\1/p' | head -1)
if [ -n "$g" ] && [ "$g" -gt 12 ] && [ $((g % 4)) = 0 ] && wait_for "$((g / 4)) replicas x TP 4" \
    && wait_for "= $want2 all replicas"; then ok
else bad "Shift-Right on GPUs under TERM=screen: $g GPUs, want $want2 users"; fi
T send-keys -t app q
wait_done

# Speed, throughput, first token and cost beside the count under vLLM at
# 200x60 (its speed rows were below the explain pane's last row), and the
# pane's scroll and the full-screen explain view through a real terminal
phase speed 200 60 "env LC_ALL=C.UTF-8 XDG_CONFIG_HOME=$D $K $args"
tps=$($K plan $args --format json | sed -n 's/^\t\t"tokens_per_s_per_user":\t\([0-9.]*\),$/\1/p' | head -1)
tps=$(printf '%.1f' "$tps")
if wait_for "$tps tok/s each" && wait_for " in all" && wait_for "first token " && wait_for "/user-h"
then ok; else bad "no speed, throughput, first token and cost at 200x60 (want $tps tok/s each)"; fi
T send-keys -t app ']'
if wait_for "rows 2-"; then ok; else bad "] did not scroll the explain pane"; fi
T send-keys -t app x
if wait_for "every explain row:" && wait_for "KV per layer"; then ok; else bad "x did not open every row"; fi
T send-keys -t app Escape
if wait_for "x full view"; then ok; else bad "Esc did not go back from the explain view"; fi
T send-keys -t app q
wait_done

echo "tmux: $pass passed, $failed failed"
[ "$failed" = 0 ]
