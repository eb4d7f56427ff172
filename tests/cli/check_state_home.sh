#!/bin/sh
# The test runners keep their presets and recent files to themselves: run with
# a HOME of its own and no XDG_STATE_HOME or XDG_CONFIG_HOME, the tests that
# open and export files (planner unit tests, export and open-prompt tests,
# the pty tests) leave nothing under that HOME. Usage: check_state_home.sh
# path/to/kvplan. Ends with "N passed, N failed".
K=${1:?usage: check_state_home.sh KVPLAN}
case $K in /*) ;; *) K=$(pwd)/$K ;; esac
HERE=$(cd "$(dirname "$0")/.." && pwd)
B=$(dirname "$K")
H=$(mktemp -d /tmp/kvplan-home.XXXXXX)
trap 'rm -rf "$H"' EXIT
pass=0 failed=0
# clean NAME COMMAND...: COMMAND passes and writes nothing under $H
clean() {
    name=$1
    shift
    if ! out=$(env -u XDG_STATE_HOME -u XDG_CONFIG_HOME HOME="$H" "$@" 2>&1); then
        failed=$((failed + 1)); echo "FAIL: $name did not pass"; printf '%s\n' "$out" | tail -5
    elif [ -n "$(find "$H" -mindepth 1 | head -1)" ]; then
        failed=$((failed + 1)); echo "FAIL: $name wrote under HOME: $(find "$H" -type f | head -3)"
        rm -rf "${H:?}"/* "$H"/.[!.]*
    else
        pass=$((pass + 1))
    fi
}
[ -x "$B/tests/test_planner" ] && clean "unit test_planner" "$B/tests/test_planner"
clean "hardening t_export t_open_prompt" sh "$HERE/hardening/run.sh" "$K" t_export.py t_open_prompt.py
clean "e2e test_tui" /usr/bin/python3 "$HERE/e2e/test_tui.py" "$K"
echo "$pass passed, $failed failed"
[ $failed = 0 ]
