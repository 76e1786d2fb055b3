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

# Beside each adapter, its DPDK table used plainly (maps/plain/plain.h): a
# row marked as a reference, every side's ns/op over it, and the adapter's
# own cost; in the records, side "plain" and each side's plain_ratio.
fast=(--duration 0.05 --warmup 0 --repeat 2 --no-syscall)
out=$("$maplab" compare --map lpm_trie/multibit,lpm_trie/dpdk --prefixes bgp --batch 32 \
    --entries 4096 "${fast[@]}" 2>&1)
check 'compare beside lpm_trie/dpdk: the plain rte_fib row' \
    grep -qE '^plain/rte_fib \(reference\) +[0-9.]+' <<<"$out"
check 'compare beside lpm_trie/dpdk: ns/op over the plain table, per side' \
    grep -qE '^lpm_trie/multibit +[0-9.]+x' <<<"$(sed -n '/over the plain DPDK table/,/^$/p' <<<"$out")"
check "compare beside lpm_trie/dpdk: the adapter's own cost over it" \
    grep -qE "^lpm_trie/dpdk's own cost over plain/rte_fib \(ns/op.*\): -?[0-9.]+ at 1 thread" <<<"$out"
check 'compare beside lpm_trie/dpdk: what the plain row is' \
    grep -q "^plain/rte_fib (reference): DPDK's table used plainly" <<<"$out"
jsonl=$("$maplab" compare --map lpm_trie/multibit,lpm_trie/dpdk --prefixes bgp --batch 32 \
    --entries 4096 "${fast[@]}" --format jsonl 2>/dev/null)
check 'compare --format jsonl: the plain row is side "plain"' \
    grep -q '"side":"plain","map":"plain/rte_fib"' <<<"$jsonl"
check 'compare --format jsonl: a design has its ratio to the plain row' \
    bash -c 'grep "\"map\":\"lpm_trie/multibit\"" | grep -q "\"plain_ratio\":[0-9]"' <<<"$jsonl"
out=$("$maplab" compare --map hash/seqlock_buckets,hash/dpdk --entries 4096 "${fast[@]}" 2>&1)
check 'compare beside hash/dpdk: the plain rte_hash row' \
    grep -qE '^plain/rte_hash \(reference\) +[0-9.]+' <<<"$out"
check "compare beside hash/dpdk: the adapter's own cost over it" \
    grep -qE "^hash/dpdk's own cost over plain/rte_hash" <<<"$out"
out=$("$maplab" bench --map lpm_trie/dpdk --prefixes bgp --entries 4096 --mix update=100 \
    --duration 0.05 --warmup 0 2>&1)
check 'bench of updates beside lpm_trie/dpdk: the plain table left out, and why' \
    grep -q '^maplab bench: plain/rte_fib: left out: a plain table answers lookups only' <<<"$out"
check 'bench of updates: no plain row' bash -c '! grep -q "plain/rte_fib (reference)"' <<<"$out"
out=$("$maplab" bench --map lpm_trie/dpdk --prefixes bgp --entries 4096 --duration 0.05 \
    --warmup 0 2>&1)
check 'bench of lookups beside lpm_trie/dpdk: the plain row too' \
    grep -q 'plain/rte_fib (reference)' <<<"$out"

# --hugepages beside a DPDK table, no huge pages reserved for its heap: a
# note says it stays on 4 KiB pages ($MAPLAB_THP_FILE stands for a kernel
# with transparent huge pages, whatever this one's setting).
echo 'always [madvise] never' >"$tmp/thp-madvise"
if [ "$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)" = 0 ]; then
    out=$(env MAPLAB_THP_FILE="$tmp/thp-madvise" "$maplab" bench --map lpm_trie/dpdk \
        --prefixes bgp --entries 4096 --duration 0.05 --warmup 0 --hugepages 2>&1)
    check '--hugepages, none reserved: the DPDK heap stays on 4 KiB pages, said' \
        grep -q '^maplab bench: --hugepages: no huge pages are reserved for DPDK.s heap (vm.nr_hugepages is 0): lpm_trie/dpdk stays on 4 KiB pages$' <<<"$out"
    check '--hugepages, none reserved: the run goes on' grep -q '^plain/rte_fib (reference)' <<<"$out"
else
    echo "skipped: --hugepages without reserved huge pages (this machine reserves some)"
fi
finish
