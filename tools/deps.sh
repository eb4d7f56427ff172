#!/bin/sh
# deps.sh: checks that what kvplan builds or tests against is installed.
# Arguments: CHECK=DEBIAN-PACKAGE ... (see tools/packages). It never installs
# anything: when something is missing it prints the exact apt-get command
# (tools/setup.sh runs it) and stops the build before a confusing compiler
# error.
missing=""
for pair in "$@"; do
    name=${pair%%=*}
    pkg=${pair#*=}
    case "$name" in
        cmd:*) command -v "${name#cmd:}" >/dev/null 2>&1 || missing="$missing $pkg" ;;
        file:*) [ -e "${name#file:}" ] || missing="$missing $pkg" ;;
        py:*) /usr/bin/python3 -c "import ${name#py:}" >/dev/null 2>&1 || missing="$missing $pkg" ;;
        *) pkg-config --exists "$name" 2>/dev/null || missing="$missing $pkg" ;;
    esac
done
command -v pkg-config >/dev/null 2>&1 || case "$missing" in *pkg-config*) ;; *) missing="pkg-config $missing" ;; esac
[ -z "$missing" ] && exit 0
echo "kvplan: missing packages:$missing" >&2
echo "kvplan: install them with: sudo apt-get install$missing" >&2
echo "kvplan: (or: sh tools/setup.sh, or sh tools/setup.sh --test for the tests)" >&2
exit 1
