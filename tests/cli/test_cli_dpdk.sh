#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The DPDK designs and a map DPDK's heap cannot hold: one line on stderr
# that names the map, with ENOMEM's text ("Cannot allocate memory"), exit
# 2, and nothing of DPDK's own (EAL's start, rte_hash's allocations).
# usage: test_cli_dpdk.sh MAPLAB SOURCE_ROOT PINFAIL_SHIM kernel|no-kernel
maplab=$1
. "$(dirname "$0")/lib.sh"

if ! "$maplab" list | grep -qE '^hash/dpdk +hash +baseline'; then
    echo "skipped: the DPDK designs (built without DPDK)"
    finish
    exit
fi

refused='refuses this map \(key_size=%s value_size=8 max_entries=%s flags=%s\): Cannot allocate memory$'

# EAL reserves its whole heap, 3 GiB of address space (maps/base/dpdk_eal.c),
# as the first DPDK map of a process starts it: under a 2 GiB limit it
# cannot.  (AddressSanitizer's shadow cannot live under such a limit.)
if under_asan; then
    echo "skipped: EAL without room for its heap (AddressSanitizer)"
else
    for d in hash/dpdk lpm_trie/dpdk; do
        case $d in
            hash/*) ks=4 flags=0 ;;
            *) ks=8 flags=no_prealloc ;;
        esac
        # shellcheck disable=SC2059
        check "bench --map $d, EAL without room for its heap: one line, ENOMEM" \
            one_line_error "^maplab bench: $d $(printf "$refused" $ks 1024 $flags)" \
            bash -c 'ulimit -v 2097152; exec "$@"' - \
            "$maplab" bench --map "$d" --entries 1024 --duration 0.05 --quiet
    done
fi

# EAL started, and a table larger than its heap: a million keys of 4096
# bytes are a key store of some 5 GiB.
# shellcheck disable=SC2059
check 'bench --map hash/dpdk, a table larger than the heap: one line, ENOMEM' \
    one_line_error "^maplab bench: hash/dpdk $(printf "$refused" 4096 1048576 0)" \
    "$maplab" bench --map hash/dpdk --key-size 4096 --entries 1048576 \
    --duration 0.05 --quiet

# replay: the map line's result is ENOMEM, and the op after it an error of
# the trace, in one line.
key=$(printf '00%.0s' $(seq 4096))
printf 'map hash key_size=4096 value_size=8 max_entries=1048576\nlookup %s\n' \
    "$key" >"$tmp/big.trace"
check 'replay of a map larger than the heap: the map line answers ENOMEM' \
    bash -c '"$1" replay --map hash/dpdk --trace "$2" 2>/dev/null |
             head -1 | grep -qx "err ENOMEM"' - "$maplab" "$tmp/big.trace"
check 'replay of a map larger than the heap: one line on stderr' \
    one_line_error '^maplab replay: .*big\.trace:2: .*could not be created \(ENOMEM on hash/dpdk\)$' \
    "$maplab" replay --map hash/dpdk --trace "$tmp/big.trace"
finish
