#!/bin/sh
# A few checks through a real terminal stack: kvplan inside tmux, driven with
# send-keys, read with capture-pane. Usage: tmux.sh path/to/kvplan.
# Ends with "N passed, N failed".
K=${1:?usage: tmux.sh KVPLAN}
case $K in /*) ;; *) K=$(pwd)/$K ;; esac
command -v tmux >/dev/null || { echo "tmux: 0 passed, 0 failed (tmux not installed)"; exit 0; }
SOCK=kvplan-test.$$
D=$(mktemp -d /tmp/kvplan-tmux.XXXXXX)
T() { tmux -L "$SOCK" -f /dev/null "$@"; }
cleanup() { T kill-server 2>/dev/null; rm -rf "$D"; }
trap cleanup EXIT
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

# The pane runs a shell that records kvplan's exit status, then signals us.
T start-server \; set-option -g remain-on-exit on \; \
    new-session -d -s app -x 100 -y 30 \
    "env LC_ALL=C.UTF-8 XDG_CONFIG_HOME=$D $K --gpu a100-80gb --model llama-2-7b --context 4k; echo \$? > $D/status; tmux -L $SOCK wait-for -S done"

if wait_for "How the number is computed"; then ok; else bad "the planner did not open"; fi
if wait_for "= floor(29.72)"; then ok; else bad "29 users at 4k not shown"; fi
T send-keys -t app Right
if wait_for "at 8k tokens" && wait_for "= floor(14.86)"; then ok; else bad "Right did not double the context"; fi
T send-keys -t app p
if wait_for "at 8k tokens each on 1 x a100-80gb"; then ok; else bad "presentation mode"; fi
T send-keys -t app Escape
T resize-window -t app -x 70 -y 22 2>/dev/null || T resize-pane -t app -x 70 -y 22
if wait_for "How the number is computed"; then ok; else bad "no redraw at 70x22"; fi
T send-keys -t app q
T wait-for done
if [ "$(cat "$D/status")" = 0 ]; then ok; else bad "exit status $(cat "$D/status")"; fi
# SIGTERM through the real stack: the pane leaves the alternate screen
T kill-server 2>/dev/null
rm -f "$D/status"
T start-server \; set-option -g remain-on-exit on \; \
    new-session -d -s app -x 10 -y 3 \
    "env LC_ALL=C.UTF-8 XDG_CONFIG_HOME=$D $K; echo \$? > $D/status; tmux -L $SOCK wait-for -S done"
if wait_for "Enlarge"; then ok; else bad "a 10x3 pane does not ask for more room"; fi
T resize-window -t app -x 100 -y 30 2>/dev/null
if wait_for "How the number is computed"; then ok; else bad "no redraw after growing from 10x3"; fi
pid=$(T display -p -t app '#{pane_pid}')
kvpid=$(pgrep -P "$pid" kvplan | head -1)
[ -n "$kvpid" ] && kill -TERM "$kvpid"
T wait-for done
if [ "$(T display -p -t app '#{alternate_on}')" = 0 ]; then ok; else bad "SIGTERM left the alternate screen on"; fi
if [ -s "$D/status" ]; then ok; else bad "no exit status after SIGTERM"; fi

echo "tmux: $pass passed, $failed failed"
[ "$failed" = 0 ]
