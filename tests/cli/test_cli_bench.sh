#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench and compare.  usage: test_cli_bench.sh MAPLAB SOURCE_ROOT
maplab=$1 root=$2
. "$(dirname "$0")/lib.sh"

# bench: impossible workloads are one line and exit 2.
b=("$maplab" bench --quiet --duration 0.05 --warmup 0 --entries 1024)
expect 2 'prefill wants a whole number from 0 to 100' "${b[@]}" --prefill 101
expect 2 'percents sum to 90, not 100' "${b[@]}" --mix lookup=90
expect 2 "unknown op 'scan'" "${b[@]}" --mix scan=100
expect 2 'threads wants whole numbers from 1 to 254' "${b[@]}" --threads 0
expect 2 'threads wants whole numbers from 1 to 254' "${b[@]}" --threads 1,,x
expect 2 "no design 'hash/nope'" "${b[@]}" --map hash/linux,hash/nope
expect 2 'hash/linux refuses this map .*Invalid argument' "${b[@]}" --flags no_common_lru
expect 2 'dist wants uniform' "${b[@]}" --dist zipf:x
expect 2 'do not fit in 1-byte hash keys' "${b[@]}" --key-size 1
expect 2 'format wants table, jsonl or csv' "${b[@]}" --format xml
expect 2 'rcu wants memb or qsbr' "${b[@]}" --rcu bp
expect 2 'duration wants seconds' "${b[@]}" --duration -1
expect 2 'cannot write' "${b[@]}" --out /nonexistent/dir/x
# ... and good ones give the fields DESIGN.md promises.
expect 0 '^hash/linux +1 ' "${b[@]}" --mix lookup=90,update=10
expect 0 'ops that succeeded' "${b[@]}" --map noop --threads 1,2
"${b[@]}" --map hash/linux,hash/rculfhash --threads 1,2 --mix lookup=50,insert=25,delete=25 \
    --prefill 50 --dist zipf:0.9 --format jsonl --out "$tmp/b.jsonl"
fields='"record":"host".*"kernel":.*"cpu_model":.*"nproc":'
expect 0 "$fields" head -1 "$tmp/b.jsonl"
for f in side map mix dist threads entries key_size value_size ops seconds mops ns_per_op \
         p50_ns p90_ns p99_ns p999_ns ok fail runs; do
    expect 0 "\"$f\":" sed -n 2p "$tmp/b.jsonl"
done
expect 0 '^5$' bash -c "wc -l <'$tmp/b.jsonl'"
expect 0 '^side,map,mix,dist,threads' "${b[@]}" --format csv --repeat 3
expect 0 '"runs":3,"mops_runs":\[[0-9.]+,[0-9.]+,[0-9.]+\]' "${b[@]}" --format jsonl --repeat 3
expect 0 '"rcu":"qsbr"' "${b[@]}" --format jsonl --rcu qsbr --mix lookup=50,update=30,insert=10,delete=10 --prefill 90


finish
