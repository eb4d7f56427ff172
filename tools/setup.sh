#!/bin/sh
# setup.sh: installs what kvplan needs on Debian or Ubuntu, with apt-get, as
# root (through sudo when run as another user). The only part of kvplan that
# installs anything; `make` only checks.
#   sh tools/setup.sh          the build: gcc, make, pkg-config, ncursesw, cJSON
#   sh tools/setup.sh --test   the build and what `make test` runs: cmocka,
#                              python3-pyte, python3-pil, tmux, ncurses-bin, procps,
#                              cmark-gfm
#   --dry-run                  prints the apt-get command instead of running it
# The package lists are in tools/packages.
set -eu
cd "$(dirname "$0")/.."
groups=build dry=false
for arg in "$@"; do
    case $arg in
        --test) groups="build test" ;;
        --dry-run) dry=true ;;
        *) echo "usage: sh tools/setup.sh [--test] [--dry-run]" >&2; exit 2 ;;
    esac
done
pkgs=""
for g in $groups; do
    for pair in $(sed -n "s/^$g: //p" tools/packages); do
        pkgs="$pkgs ${pair#*=}"
    done
done
echo "kvplan: installing with apt-get (as root):$pkgs"
if $dry; then
    echo "apt-get update && apt-get install -y --no-install-recommends$pkgs"
    exit 0
fi
if [ "$(id -u)" = 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
else
    echo "kvplan: run this as root: apt-get install$pkgs" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $pkgs
