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
for cmd in replay validate gentrace; do
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

# A generated trace replays, and replays the same twice (deterministic).
"$maplab" gentrace --entries 20 --ops 300 --seed 9 >"$tmp/g.trace"
a=$("$maplab" replay --trace "$tmp/g.trace")
b=$("$maplab" replay --trace - <"$tmp/g.trace")
if [ -n "$a" ] && [ "$a" = "$b" ]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: replay of a generated trace is not repeatable"; fi

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
