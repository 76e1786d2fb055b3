#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What the command-line tests share.  Source it with MAPLAB and ROOT set:
#   expect STATUS PATTERN CMD...   exit status STATUS and PATTERN (an
#                                  extended regex) somewhere in the output
#   check NAME CONDITION...        a test of its own: CONDITION must succeed
#   finish                         print the tally; exit 1 on any failure
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

expect() {
    local want=$1 pattern=$2; shift 2
    local out rc
    out=$("$@" 2>&1); rc=$?
    if [ "$rc" -eq "$want" ] && grep -qE -e "$pattern" <<<"$out"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $* -> exit $rc (want $want), output:"
        sed 's/^/    /' <<<"$out" | head -8
        echo "    (wanted /$pattern/)"
    fi
}

check() {
    local name=$1; shift
    if "$@"; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL: $name"; fi
}

finish() {
    echo "$(basename "$0" .sh): $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}

is_root() { [ "$(id -u)" -eq 0 ]; }
