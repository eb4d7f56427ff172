# Shared by the t_bounds_*.sh tests (sourced; the runner skips it): a private
# temporary directory and preset home in $T, counting checks, and finish,
# which prints "N passed, N failed" and sets the exit status.
T=$(mktemp -d /tmp/kvplan-bounds.XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_CONFIG_HOME="$T/config"
pass=0 failed=0
ok() { pass=$((pass + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

# expect STATUS SUBSTRING ARGS...: kvplan's exit status and a substring of
# its stdout+stderr, with a timeout as a safety net
expect() {
    want=$1 text=$2
    shift 2
    out=$(timeout 60 "$K" "$@" 2>&1)
    got=$?
    if [ "$got" = "$want" ] && printf '%s' "$out" | grep -qF -- "$text"; then ok
    else bad "kvplan $*: exit $got (expected $want), output: $(printf '%s' "$out" | head -c 300)"; fi
}

finish() {
    echo "$pass passed, $failed failed"
    [ "$failed" = 0 ]
}
