#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# maplab sim against libCacheSim: on one thread, lru/global, lru/fifo,
# lru/clock, lru/sieve and lru/s3fifo miss exactly as libCacheSim's LRU,
# FIFO, Clock, Sieve and S3FIFO do on the shipped traces.  The counts are
# libCacheSim's own, kept in tests/data/libcachesim/misses.tsv (how they
# were made: the README there); libCacheSim is not needed here.
#   usage: test_cli_sim_libcachesim.sh MAPLAB SOURCE_ROOT
maplab=$1 root=$2
. "$(dirname "$0")/lib.sh"
traces=$root/examples/traces
data=$root/tests/data/libcachesim/misses.tsv

check "the data file is there" test -r "$data"
rows=$(grep -v '^#' "$data" | tail -n +2)
check "the data file has rows" test -n "$rows"

# One sim run per trace: every design and every size of that trace's rows.
for trace in $(awk '{print $1}' <<<"$rows" | sort -u); do
    policies=$(awk -v t="$trace" '$1 == t {print $3}' <<<"$rows" | sort -u | paste -sd, -)
    sizes=$(awk -v t="$trace" '$1 == t {print $4}' <<<"$rows" | sort -nu | paste -sd, -)
    if ! out=$("$maplab" sim --trace "$traces/$trace" --policy "$policies" --sizes "$sizes" \
            --no-stray --format csv 2>"$tmp/err"); then
        fail=$((fail + 1))
        echo "FAIL: maplab sim --trace $trace --policy $policies --sizes $sizes: $(head -c 300 "$tmp/err")"
        continue
    fi
    # design,entries -> requests misses, from the csv's named columns.
    got=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        { print $col["policy"], $col["entries"], $col["requests"], $col["misses"] }' <<<"$out")
    while read -r t algo design size requests misses; do
        [ "$t" = "$trace" ] || continue
        m=$(awk -v d="$design" -v s="$size" '$1 == d && $2 == s {print $3, $4}' <<<"$got")
        if [ "$m" = "$requests $misses" ]; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1))
            echo "FAIL: $trace $design (libCacheSim's $algo) at $size entries:" \
                "maplab sim gave requests misses '${m:-no row}', libCacheSim $requests $misses"
        fi
    done <<<"$rows"
done

finish
