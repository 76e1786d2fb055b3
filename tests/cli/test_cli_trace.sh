#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# replay, validate and gentrace.  usage: test_cli_trace.sh MAPLAB SOURCE_ROOT
maplab=$1 root=$2
. "$(dirname "$0")/lib.sh"

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
check "replay of a generated trace is repeatable" test -n "$a" -a "$a" = "$b"


finish
