#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kbench, and compare where it needs the kernel side.
# usage: test_cli_kbench.sh MAPLAB SOURCE_ROOT
maplab=$1 root=$2
. "$(dirname "$0")/lib.sh"

# kbench and compare: bad input; the kernel side where this machine has one.
expect 2 "run-ops wants a whole number from 1" "$maplab" kbench --run-ops 0
expect 2 "no design 'tree'.*kernel map types" "$maplab" kbench --map tree
if is_root; then
    k=("$maplab" kbench --quiet --duration 0.05 --warmup 0 --entries 1024 --run-ops 64 --run-repeat 4)
    expect 0 '^hash kernel +1 .*lookup 100%' "${k[@]}" --map hash
    expect 0 '^hash syscall +1 .*lookup 100%' "${k[@]}" --map hash/linux
    expect 0 'kernel BPF .*hash/linux' "$maplab" compare --quiet --duration 0.05 --warmup 0 \
        --entries 1024 --map hash/linux --run-ops 64 --run-repeat 4
fi
# Without BPF (as nobody), compare says so and runs the userspace side.
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
if is_root && "${nobody[@]}" test -x "$maplab" 2>/dev/null; then
    expect 0 'no kernel side here: not root.*userspace side alone' "${nobody[@]}" \
        "$maplab" compare --quiet --duration 0.05 --warmup 0 --entries 1024 --map hash/linux
    expect 2 'maplab kbench: no kernel side here' "${nobody[@]}" "$maplab" kbench --duration 0.05
fi


finish
