#!/bin/sh
# deps.sh: make sure the libraries kvplan builds against are installed.
# Arguments: pkg-config-name=debian-package ...  (a bare name is a command).
# Missing ones are installed with apt-get when running as root; otherwise the
# exact command to run is printed and the build stops here, before a
# confusing compiler error.
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
command -v pkg-config >/dev/null 2>&1 || missing="pkg-config $missing"
[ -z "$missing" ] && exit 0
echo "kvplan: missing packages:$missing" >&2
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "kvplan: installing them with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends $missing >&2 && exit 0
    echo "kvplan: apt-get failed; install by hand: apt-get install$missing" >&2
    exit 1
fi
echo "kvplan: run: sudo apt-get install$missing" >&2
exit 1
