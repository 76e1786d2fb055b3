#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# stress.  usage: test_cli_stress.sh MAPLAB SOURCE_ROOT
maplab=$1 root=$2
. "$(dirname "$0")/lib.sh"

# stress: a passing run and its bad input.
expect 0 'hash/linux +ok .*keys at the end' "$maplab" stress --map hash/linux --threads 4 --duration 0.2
expect 0 'hash/rculfhash +ok' "$maplab" stress --map hash/rculfhash --threads 3 --ops 2000 --rcu qsbr
expect 2 'stress needs value_size >= 8' "$maplab" stress --value-size 4
expect 2 "no design 'x'" "$maplab" stress --map x
expect 2 'do not fit in 1-byte hash keys' "$maplab" stress --key-size 1 --key-range 1000 --duration 0.1

# By default every design runs, each with keys of its own type; --type
# picks one family; a design of another family is refused.
out=$("$maplab" stress --threads 2 --ops 2000 2>&1)
for d in $("$maplab" list | awk 'NR > 1 && $1 ~ /\// && !/unavailable:/ {print $1}'); do
    check "stress by default runs $d" grep -q "^$d " <<<"$out"
done
expect 0 'hash/linux +ok' "$maplab" stress --type hash --threads 2 --ops 2000
expect 2 "--type wants hash, lru_hash or lpm_trie, got 'tree'" "$maplab" stress --type tree
expect 2 'hash/linux is a hash design, not lru_hash' "$maplab" stress --type lru_hash --map hash/linux
out=$("$maplab" stress --map hash/linux --threads 2,3 --ops 2000 2>&1)
check "stress --threads 2,3 runs both counts" test "$(grep -cE '^hash/linux +ok +[23] threads' <<<"$out")" -eq 2
# A map the design refuses: one line, the design named once.
expect 2 '^maplab stress: hash/linux: create failed: Invalid argument$' \
    "$maplab" stress --map hash/linux --flags no_common_lru --ops 100
# The kernel's ENOTSUPP (524) by name and reason, not "Unknown error 524".
check 'stress: ENOTSUPP by name' one_line_error \
    '^maplab stress: lru/linux_common: create failed: ENOTSUPP \(not supported: .*no_prealloc.*\)$' \
    "$maplab" stress --map lru/linux_common --flags no_prealloc --ops 100

# hash/dpdk serves at most RTE_MAX_LCORE - 1 threads at once (each writer
# holds a DPDK lcore id, and the thread that started DPDK one; Debian's
# DPDK has 128): more is refused up front, one line naming the design and
# its limit, exit 2 (at 128 a worker's -EBUSY failed the run as a broken
# map, exit 1).  bench and compare refuse it the same way, before their
# first run; the limit itself runs.
if "$maplab" list | grep -qE '^hash/dpdk +hash +baseline'; then
    limit=$("$maplab" stress --map hash/dpdk --threads 254 --ops 2000 2>&1 |
            sed -nE 's/^maplab stress: hash\/dpdk serves at most ([0-9]+) threads at once, not 254: .*RTE_MAX_LCORE.*/\1/p')
    check 'stress --map hash/dpdk --threads 254: refused, the limit named' test -n "$limit"
    more=$((${limit:-127} + 1))
    said="^maplab (stress|bench|compare): hash/dpdk serves at most ${limit:-127} threads at once, not $more: DPDK gives each writer thread one of its RTE_MAX_LCORE lcore ids"
    check "stress --map hash/dpdk --threads $more: refused in one line" one_line_error \
        "$said" "$maplab" stress --map hash/dpdk --threads "$more" --ops 2000
    check 'stress: refused before any run (no line of a run on stdout)' \
        test -z "$("$maplab" stress --map hash/dpdk,hash/linux --threads 2,$more --ops 2000 2>/dev/null)"
    check "bench --map hash/dpdk --threads 1,$more: refused before the first run" one_line_error \
        "$said" "$maplab" bench --map hash/dpdk --threads 1,$more --duration 0.05 --quiet
    check "compare --map hash/dpdk --threads $more: refused in one line" one_line_error \
        "$said" "$maplab" compare --map hash/dpdk --threads $more --duration 0.05 --quiet
    expect 0 "hash/dpdk +ok +${limit:-127} threads" "$maplab" stress --map hash/dpdk \
        --threads "${limit:-127}" --ops 2000
else
    echo "skipped: hash/dpdk's thread limit (built without DPDK)"
fi

finish
