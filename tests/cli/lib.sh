#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What the command-line tests share.  Source it with MAPLAB and ROOT set:
#   expect STATUS PATTERN CMD...   exit status STATUS and PATTERN (an
#                                  extended regex) somewhere in the output
#   check NAME CONDITION...        a test of its own: CONDITION must succeed
#   one_line_error PATTERN CMD...  exit 2 and a single line on stderr
#                                  matching PATTERN
#   preload                        a command prefix that runs CMD with the
#                                  pinfail shim (every CPU pin fails); needs
#                                  pinfail set to the shim's path
#   finish                         print the tally; exit 1 on any failure
#   escaped PATTERN CMD...         exit 2, PATTERN in the output, and no
#                                  raw ESC byte in it (shown as \x1b)
#   under_asan                     maplab has AddressSanitizer (no ulimit -v)
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

one_line_error() {
    local pattern=$1; shift
    local err
    err=$("$@" 2>&1 >/dev/null)
    [ $? -eq 2 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && grep -qE -e "$pattern" <<<"$err" ||
        { echo "    stderr: $(head -c 300 <<<"$err")"; false; }
}

# ASan must not insist on coming first in the library list.
[ -n "${pinfail:-}" ] && pinfail=$(realpath "$pinfail")
preload=(env LD_PRELOAD="${pinfail:-}" ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0")

finish() {
    echo "$(basename "$0" .sh): $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}

is_root() { [ "$(id -u)" -eq 0 ]; }

# escaped PATTERN CMD...: exit 2, PATTERN in the output (stdout and stderr
# together) and no raw ESC byte there: input comes out as \x1b.
escaped() {
    local pattern=$1; shift
    local out rc
    out=$("$@" 2>&1); rc=$?
    [ "$rc" -eq 2 ] && grep -qE -e "$pattern" <<<"$out" && ! grep -q $'\033' <<<"$out" ||
        { echo "    exit $rc, output: $(head -c 300 <<<"$out" | cat -v)"; false; }
}

# Whether maplab is built with AddressSanitizer, whose shadow memory cannot
# live under an address-space limit (ulimit -v): such checks are skipped.
under_asan() { grep -qa __asan_init "$maplab"; }

# The scripts' fourth argument: "kernel" when maplab was built with the
# kernel side, "no-kernel" for -Dkernel=disabled.  The kernel's parts of a
# script run only where the side is built and root may use BPF.
kernel_built=${4:-kernel}
has_kernel() { [ "$kernel_built" = kernel ] && is_root; }
