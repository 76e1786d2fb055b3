#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The maplab command line: exit statuses and messages for good and bad input.
# usage: test_cli.sh MAPLAB SOURCE_ROOT
set -u
maplab=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

# expect STATUS PATTERN CMD...: exit status STATUS and PATTERN in its output.
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

expect 0 'usage: maplab' "$maplab" --help
expect 2 'usage: maplab' "$maplab"
expect 2 "unknown command 'frob'" "$maplab" frob
expect 0 'hash/linux' "$maplab" list
expect 0 'usage: maplab list' "$maplab" list --help
expect 2 'unknown option' "$maplab" list --bogus
for cmd in replay validate gentrace bench stress kbench compare; do
    expect 0 "usage: maplab $cmd" "$maplab" $cmd --help
    expect 2 'unknown option' "$maplab" $cmd --bogus
done

expect 2 'exactly one of --trace' "$maplab" replay
expect 2 'cannot open' "$maplab" replay --trace "$tmp/none"
expect 2 "no design 'hash/nope'" "$maplab" replay --map hash/nope --random
expect 2 '--entries wants a whole number' "$maplab" gentrace --entries 0
expect 2 '--entries wants a whole number' "$maplab" gentrace --entries 12x
expect 2 "unknown map flag 'fast'" "$maplab" gentrace --flags fast
expect 2 '--type wants' "$maplab" gentrace --type tree

printf 'map hash key_size=4 value_size=4 max_entries=2\nupdate 0100 01000000\n' >"$tmp/bad.trace"
expect 2 "bad.trace:2: key '0100' is not 4 bytes" "$maplab" replay --trace "$tmp/bad.trace"
printf 'map hash key_size=4 value_size=0 max_entries=2\nlookup 00000000\n' >"$tmp/after.trace"
expect 2 'after.trace:2: operation on the map of line 1' "$maplab" replay --trace "$tmp/after.trace"
printf 'map hash key_size=0 value_size=4 max_entries=2\nlookup 00\n' >"$tmp/zero.trace"
expect 2 'zero.trace:2: the map line above has key_size=0' "$maplab" replay --trace "$tmp/zero.trace"
expect 0 '^err EINVAL' "$maplab" replay --trace "$root/examples/hash_basics.trace"

# Map types with no userspace design yet: the map line answers EOPNOTSUPP.
printf 'map lru_hash key_size=4 value_size=4 max_entries=8\n' >"$tmp/lru.trace"
expect 0 '^err EOPNOTSUPP$' "$maplab" replay --trace "$tmp/lru.trace"

# A generated trace replays, and replays the same twice (deterministic).
"$maplab" gentrace --entries 20 --ops 300 --seed 9 >"$tmp/g.trace"
a=$("$maplab" replay --trace "$tmp/g.trace")
b=$("$maplab" replay --trace - <"$tmp/g.trace")
if [ -n "$a" ] && [ "$a" = "$b" ]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: replay of a generated trace is not repeatable"; fi

# bench: impossible workloads are one line and exit 2.
b=("$maplab" bench --quiet --duration 0.05 --warmup 0 --entries 1024)
expect 2 'prefill wants a whole number from 0 to 100' "${b[@]}" --prefill 101
expect 2 'percents sum to 90, not 100' "${b[@]}" --mix lookup=90
expect 2 "unknown op 'scan'" "${b[@]}" --mix scan=100
expect 2 'threads wants a whole number from 1' "${b[@]}" --threads 0
expect 2 'threads wants a whole number from 1' "${b[@]}" --threads 1,,x
expect 2 "no design 'hash/nope'" "${b[@]}" --map hash/linux,hash/nope
expect 2 'hash/linux refuses this map .*Invalid argument' "${b[@]}" --flags no_common_lru
expect 2 'dist wants uniform' "${b[@]}" --dist zipf:x
expect 2 'do not fit in 1-byte keys' "${b[@]}" --key-size 1
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

# stress: a passing run and its bad input.
expect 0 'hash/linux +ok .*keys at the end' "$maplab" stress --map hash/linux --threads 4 --duration 0.2
expect 0 'hash/rculfhash +ok' "$maplab" stress --map hash/rculfhash --threads 3 --ops 2000 --rcu qsbr
expect 2 'value-size wants a whole number from 8' "$maplab" stress --value-size 4
expect 2 "no design 'x'" "$maplab" stress --map x
expect 2 'do not fit in 1-byte keys' "$maplab" stress --key-size 1 --key-range 1000 --duration 0.1

# kbench and compare: bad input; the kernel side where this machine has one.
expect 2 "run-ops wants a whole number from 1" "$maplab" kbench --run-ops 0
expect 2 "no design 'tree'.*kernel map types" "$maplab" kbench --map tree
if [ "$(id -u)" -eq 0 ]; then
    k=("$maplab" kbench --quiet --duration 0.05 --warmup 0 --entries 1024 --run-ops 64 --run-repeat 4)
    expect 0 '^hash kernel +1 .*lookup 100%' "${k[@]}" --map hash
    expect 0 '^hash syscall +1 .*lookup 100%' "${k[@]}" --map hash/linux
    expect 0 'kernel BPF .*hash/linux' "$maplab" compare --quiet --duration 0.05 --warmup 0 \
        --entries 1024 --map hash/linux --run-ops 64 --run-repeat 4
fi
# Without BPF (as nobody), compare says so and runs the userspace side.
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
if [ "$(id -u)" -eq 0 ] && "${nobody[@]}" test -x "$maplab" 2>/dev/null; then
    expect 0 'no kernel side here: not root.*userspace side alone' "${nobody[@]}" \
        "$maplab" compare --quiet --duration 0.05 --warmup 0 --entries 1024 --map hash/linux
    expect 2 'maplab kbench: no kernel side here' "${nobody[@]}" "$maplab" kbench --duration 0.05
fi

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
