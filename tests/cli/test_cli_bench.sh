#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench, kbench and compare: their options, records and reports.
# usage: test_cli_bench.sh MAPLAB SOURCE_ROOT
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
# ... and good ones give the fields docs/design.md promises.
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
expect 0 '"rcu":"qsbr"' "${b[@]}" --format jsonl --rcu qsbr --mix lookup=50,update=30,insert=10,delete=10 --prefill 90

# The host record names what sets the figures: possible CPUs, the CPUs
# usable, virtualisation, the mitigations in force.
for f in possible_cpus cpus_allowed virtualised hypervisor mitigations vulnerabilities; do
    expect 0 "\"$f\":" head -1 "$tmp/b.jsonl"
done

# --repeat: every figure with its min and max, and the reference probe run
# before each repeat, in the jsonl, the csv and the table.
"${b[@]}" --threads 1,2 --repeat 3 --format jsonl --out "$tmp/r.jsonl"
for f in ops seconds mops ns_per_op p50_ns p90_ns p99_ns p999_ns probe_ns; do
    expect 0 "\"$f\":[0-9.]+,\"${f}_min\":[0-9.]+,\"${f}_max\":[0-9.]+" sed -n 2p "$tmp/r.jsonl"
done
expect 0 '"speedup":[0-9.]+,"speedup_min":[0-9.]+,"speedup_max":[0-9.]+' sed -n 3p "$tmp/r.jsonl"
expect 0 '"mops_runs":\[[0-9.]+,[0-9.]+,[0-9.]+\],"probe_ns_runs":\[[0-9.]+,[0-9.]+,[0-9.]+\]' \
    sed -n 2p "$tmp/r.jsonl"
expect 0 '"runs":3,' sed -n 2p "$tmp/r.jsonl"
expect 0 '"flags":\[' sed -n 2p "$tmp/r.jsonl"
expect 0 '^side,map,.*,mops,mops_min,mops_max,ns_per_op,ns_per_op_min,ns_per_op_max,.*,probe_ns,probe_ns_min,probe_ns_max,flags,' \
    "${b[@]}" --format csv --repeat 2
"${b[@]}" --repeat 2 >"$tmp/table.txt"
expect 0 '^ +min +[0-9.]+ +[0-9.]+ +[0-9]+' cat "$tmp/table.txt"
expect 0 '^ +max +[0-9.]+ +[0-9.]+ +[0-9]+' cat "$tmp/table.txt"
expect 0 '^reference probe: [0-9.]+ ns a step' cat "$tmp/table.txt"

# --save appends every record as jsonl, whatever --format shows.
"${b[@]}" --save "$tmp/saved.jsonl" >/dev/null
"${b[@]}" --save "$tmp/saved.jsonl" --format csv >/dev/null
expect 0 '^4$' bash -c "wc -l <'$tmp/saved.jsonl'"
expect 0 '"record":"result".*"mops_min"' sed -n 4p "$tmp/saved.jsonl"
expect 2 'cannot write /nonexistent/dir/x' "${b[@]}" --save /nonexistent/dir/x

if is_root; then
    k=("$maplab" kbench --quiet --duration 0.05 --warmup 0 --entries 1024 --run-ops 64 --run-repeat 4)
    # An internal error of the kernel side is an error, not a skip: the kernel
    # refuses no_common_lru on a hash map (-EINVAL creating it).
    expect 2 '^maplab kbench: hash kernel, 1 thread: .*Invalid argument' "${k[@]}" --map hash \
        --flags no_common_lru
    check 'kbench: no "skipped" for an error' \
        bash -c "! '${k[0]}' ${k[*]:1} --map hash --flags no_common_lru 2>&1 | grep -q skipped"
    # kbench --save, as bench's and compare's.
    "${k[@]}" --map hash --save "$tmp/k.jsonl" >/dev/null
    expect 0 '"side":"kernel".*"program_ns_per_op":[0-9.]+,"program_ns_per_op_min"' \
        sed -n 2p "$tmp/k.jsonl"
    expect 0 '"side":"syscall"' sed -n 3p "$tmp/k.jsonl"
    # compare: ratios to the kernel with their spread, taken within each repeat.
    c=("$maplab" compare --quiet --duration 0.05 --warmup 0 --entries 1024 --run-ops 64
       --run-repeat 4 --map hash/linux --repeat 2)
    expect 0 '"side":"user".*"kernel_ratio":[0-9.]+,"kernel_ratio_min":[0-9.]+,"kernel_ratio_max"' \
        "${c[@]}" --format jsonl
    # report.py turns compare's records into report.md, spreads and ratios kept.
    mkdir "$tmp/res"
    "${c[@]}" --save "$tmp/res/results.jsonl" >"$tmp/compare.txt"
    expect 0 '^  min +[0-9.]+ +[0-9.]+ \([0-9.]+x\) +[0-9.]+ \([0-9.]+x\)' cat "$tmp/compare.txt"
    expect 0 '^report: ' python3 "$root/kernel-compare/report.py" "$tmp/res"
    expect 0 '^\| 1 \| [0-9.]+ \([0-9.]+–[0-9.]+\).* \| [0-9.]+ \([0-9.]+–[0-9.]+\); [0-9.]+ \([0-9.]+–[0-9.]+\)×' \
        cat "$tmp/res/report.md"
fi

finish
