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

# An LPM map line finds lpm_trie/linux: the kernel's example walks its /24s,
# then the /16.
expect 0 '^ok 18000000c0a88000$' "$maplab" replay --trace "$root/examples/lpm_basics.trace"
# A random LPM trace: an LPM key (8 bytes, a prefix length first) and a
# trie the kernel makes (no_prealloc), unless told otherwise.
expect 0 '^map lpm_trie key_size=8 value_size=8 max_entries=64 flags=no_prealloc$' \
    "$maplab" gentrace --type lpm_trie --ops 1
expect 0 '^map lpm_trie key_size=20 value_size=8 max_entries=64 flags=no_prealloc\|rdonly$' \
    "$maplab" gentrace --type lpm_trie --key-size 20 --flags 'no_prealloc|rdonly' --ops 1
"$maplab" gentrace --type lpm_trie --entries 12 --ops 400 --seed 3 >"$tmp/lpm.trace"
expect 0 '^err ENOSPC$' "$maplab" replay --trace "$tmp/lpm.trace"
# An LRU map line finds its mode's kernel-faithful design.
printf 'map lru_hash key_size=4 value_size=4 max_entries=8 flags=no_common_lru\n' >"$tmp/lru.trace"
expect 0 '^ok$' "$maplab" replay --trace "$tmp/lru.trace"

# A generated trace replays, and replays the same twice (deterministic).
"$maplab" gentrace --entries 20 --ops 300 --seed 9 >"$tmp/g.trace"
a=$("$maplab" replay --trace "$tmp/g.trace")
b=$("$maplab" replay --trace - <"$tmp/g.trace")
check "replay of a generated trace is repeatable" test -n "$a" -a "$a" = "$b"

# --cpus: a random trace moves between cpus with `cpu N` lines; the same
# seed gives the same operations with or without them.
expect 2 "--cpus wants a count \(1 to 64\) or a list" "$maplab" gentrace --cpus 0
expect 2 "--cpus: 'x' is not a cpu id" "$maplab" gentrace --cpus 0,x
expect 2 "--cpus: '3-1' is not a cpu id" "$maplab" gentrace --cpus 3-1
expect 2 "--cpus: cpu 1023 is not one this process may run on \(allowed: " \
    "$maplab" validate --random --cpus 0,1023
"$maplab" gentrace --type lru_hash --entries 8 --ops 1000 --seed 4 --cpus 0,1 >"$tmp/c.trace"
"$maplab" gentrace --type lru_hash --entries 8 --ops 1000 --seed 4 >"$tmp/c0.trace"
check "gentrace --cpus 0,1 names both cpus, often" \
    test "$(grep -c "^cpu [01]$" "$tmp/c.trace")" -gt 15
check "gentrace --cpus 2 is --cpus 0,1" \
    cmp -s "$tmp/c.trace" <("$maplab" gentrace --type lru_hash --entries 8 --ops 1000 --seed 4 --cpus 2)
check "gentrace --cpus: the operations are the seed's" \
    cmp -s <(grep -v '^cpu \|^#' "$tmp/c.trace") <(grep -v '^#' "$tmp/c0.trace")

# Sizes are decimal; flags have all eight names, and gentrace writes them.
printf 'map hash key_size=4 value_size=4 max_entries=0x10\n' >"$tmp/hex.trace"
expect 2 'hex.trace:1: max_entries must be a decimal number' "$maplab" replay --trace "$tmp/hex.trace"
expect 0 '^map hash key_size=4 value_size=8 max_entries=64 flags=rdonly$' \
    "$maplab" gentrace --flags rdonly --ops 1
expect 0 'flags=zero_seed\|wronly_prog$' "$maplab" gentrace --flags 'wronly_prog|zero_seed' --ops 1
"$maplab" gentrace --flags 'wronly|zero_seed' --entries 8 --ops 200 >"$tmp/wronly.trace"
expect 0 '^err EPERM$' "$maplab" replay --trace "$tmp/wronly.trace"

# A NUL byte is refused at its line; escape sequences are shown escaped.
printf 'map hash key_size=4 value_size=4 max_entries=2\nlookup 01000000\0 x\n' >"$tmp/nul.trace"
expect 2 'nul.trace:2: a NUL byte at column 16' "$maplab" replay --trace "$tmp/nul.trace"
printf 'map hash key_size=4 value_size=4 max_entries=2\n\033[2Jwipe\n' >"$tmp/esc.trace"
expect 2 "unknown operation '\\\\x1b\[2Jwipe'" "$maplab" replay --trace "$tmp/esc.trace"
check "no raw escape byte on the terminal" \
    bash -c '! "$1" replay --trace "$2" 2>&1 | grep -q $'"'"'\033'"'" _ "$maplab" "$tmp/esc.trace"

# A line holds at most 16 MiB (docs/traces.md): a longer one is an error at
# its line, exit 2, read no further (getline read it until memory ran out:
# its ENOMEM was read as the end of the trace, the rest dropped, exit 0;
# then "out of memory"; /dev/zero grew maplab by some 200 MB a second).
as_limit=; under_asan || as_limit='ulimit -v 262144;'
check "a line past the bound is an error at its line" one_line_error \
    '^maplab replay: stdin:2: the line is longer than 16 MiB, the most a trace line may hold$' bash -c '
    { printf "map hash key_size=4 value_size=4 max_entries=2\nlookup "
      head -c 268435456 /dev/zero | tr "\0" a; printf "\ndump\n"; } |
    ( '"$as_limit"' exec "$1" replay --trace - )' _ "$maplab"
bound_cmds=(replay "dump --map lru/global")
has_kernel && bound_cmds+=("validate --map hash/linux") # the kernel checked first
for cmd in "${bound_cmds[@]}"; do
    check "$cmd --trace /dev/zero: the bound named, at once" one_line_error \
        "^maplab ${cmd%% *}: /dev/zero:1: the line is longer than 16 MiB, the most a trace line may hold\$" \
        bash -c "$as_limit"' exec timeout 10 "$1" $2 --trace /dev/zero' _ "$maplab" "$cmd"
done

# A trace of comments and blank lines replays to nothing, exit 0; validate
# has nothing to compare there, which is an error, not a match.
printf '# nothing but a comment\n\n' >"$tmp/empty.trace"
check "replay of an empty trace: nothing, exit 0" \
    test -z "$("$maplab" replay --trace "$tmp/empty.trace" 2>&1 || echo failed)"
if has_kernel; then
    check "validate of a comments-only trace is an error" one_line_error \
        "^maplab validate: .*/empty.trace has no map line and no operation: nothing to compare$" \
        "$maplab" validate --trace "$tmp/empty.trace"
    check "validate of an empty file is an error" one_line_error \
        "^maplab validate: /dev/null has no map line and no operation: nothing to compare$" \
        "$maplab" validate --trace /dev/null
fi

# Output that cannot be written stops the trace at the first failed write:
# one line, exit 2, at once (gentrace went on writing into /dev/full, for
# ever at --ops 2^40).
check "gentrace >/dev/full: one line, at once" one_line_error \
    '^maplab gentrace: standard output: No space left on device$' \
    bash -c 'timeout 20 "$1" gentrace --ops 1099511627776 >/dev/full' _ "$maplab"
check "gentrace --type lpm_trie >/dev/full: one line, at once" one_line_error \
    '^maplab gentrace: standard output: No space left on device$' \
    bash -c 'timeout 20 "$1" gentrace --type lpm_trie --ops 1099511627776 >/dev/full' _ "$maplab"

# --random builds its trace in memory before the replay: what would not fit
# comfortably (1 GiB) is refused in one line, before anything is built (it
# built until memory ran out, then replayed what fit).  ulimit -v keeps the
# machine safe from a build that does not refuse.
as_limit=; under_asan || as_limit='ulimit -v 2097152;'
random_cmds=(replay)
has_kernel && random_cmds+=(validate)
for cmd in "${random_cmds[@]}"; do
    check "$cmd --random --ops 2^40: refused" one_line_error \
        "^maplab $cmd: --random holds the whole trace in memory: 1099511627776 operations of 4-byte keys and 8-byte values would take about [0-9.]+ GiB, more than 1 GiB: --ops [0-9]+ at most here \\(or several --seed runs\\)$" \
        bash -c "$as_limit"' exec timeout 20 "$1" "$2" --random --ops 1099511627776' _ "$maplab" "$cmd"
    check "$cmd --random of 4 MiB keys and values: refused" one_line_error \
        "^maplab $cmd: --random holds the whole trace in memory: 1000 operations of 4194304-byte keys and 4194304-byte values would take about [0-9.]+ GiB, more than 1 GiB: --ops 31 at most here" \
        bash -c "$as_limit"' exec timeout 20 "$1" "$2" --random --key-size 4194304 --value-size 4194304' _ "$maplab" "$cmd"
done

# --echo puts each trace line above its results.
expect 0 '^# update 02000000 2323232323232323 noexist$' \
    "$maplab" replay --echo --trace "$root/examples/hash_basics.trace"

# Replays run on cpu 0, on both sides: where cpu 0 is not allowed, say so.
if command -v taskset >/dev/null && [ "$(nproc --all)" -ge 2 ]; then
    expect 2 'runs on cpu 0.*may not run there' \
        taskset -c 1 "$maplab" replay --trace "$root/examples/hash_basics.trace"
fi

# A cpu line names a CPU the process may run on: under taskset -c 0 a
# trace that moves to cpu 1 is refused at that line, before anything runs.
printf 'map lru_hash key_size=4 value_size=4 max_entries=2\ncpu 1\nupdate 01000000 01000000\n' >"$tmp/cpu1.trace"
if command -v taskset >/dev/null; then
    check "a cpu not allowed is refused with its line" one_line_error \
        '^maplab replay: .*cpu1.trace:2: cpu 1 is not one this process may run on \(allowed: 0\)$' \
        taskset -c 0 "$maplab" replay --trace "$tmp/cpu1.trace"
fi
if [ "$(nproc)" -ge 2 ]; then
    # --echo shows the directive in place, and a trace may start on cpu 1.
    expect 0 '^# cpu 1$' "$maplab" replay --echo --trace "$tmp/cpu1.trace"
    printf 'cpu 1\nmap lru_hash key_size=4 value_size=4 max_entries=2\nupdate 01000000 01000000\n' >"$tmp/on1.trace"
    expect 0 '^ok$' taskset -c 1 "$maplab" replay --trace "$tmp/on1.trace"
fi

# Traces that span two cpus (tests/cli/traces/): each causes the event its
# comment names, which the design's lists after it show (maplab dump), and
# lru/linux_common and lru/linux_percpu match the kernel on them op for op.
# The LRU's sizes depend on the possible cpus: the traces are written for
# 2 and their max_entries scaled here to keep each cpu's share.
possible=$(( $(sed 's/.*[-,]//' /sys/devices/system/cpu/possible) + 1 ))
if taskset -c 0,1 true 2>/dev/null && [ "$possible" -ge 2 ]; then
    traces=$root/tests/cli/traces
    cp "$traces/lru_2cpu_steal.trace" "$tmp/steal.trace"
    sed "s/max_entries=4 /max_entries=$((2 * possible)) /" \
        "$traces/lru_2cpu_percpu_share.trace" >"$tmp/share.trace"
    sed "s/max_entries=8 /max_entries=$((4 * possible)) /" \
        "$traces/lru_2cpu_remote_delete.trace" >"$tmp/remote.trace"
    dump_has() { # dump_has DESIGN TRACE LINE...: a line of the dump starts with each LINE
        local design=$1 trace=$2 out; shift 2
        out=$("$maplab" dump --map "$design" --trace "$trace" 2>&1) || { echo "    $out"; return 1; }
        for line; do awk -v l="$line" 'index($0, l) == 1 { f = 1 } END { exit !f }' <<<"$out" || { echo "    no '$line' in:"; sed 's/^/    /' <<<"$out"; return 1; }; done
    }
    check "steal: each insert evicts the other cpu's pending key" dump_has lru/linux_common "$tmp/steal.trace" \
        'free (0):' 'inactive (0): [hand]' 'cpu0 pending (0):' 'cpu0 local free (0):' 'cpu1 pending (1): 04000000'
    expect 0 '^ok 1$' "$maplab" replay --trace "$tmp/steal.trace"
    check "per-CPU share: cpu 0 evicts its own while cpu 1's nodes are free" dump_has lru/linux_percpu "$tmp/share.trace" \
        'cpu0 inactive (1): [hand] 03000000' 'cpu1 inactive (2): [hand] 05000000 04000000'
    expect 0 '^ok 3$' "$maplab" replay --trace "$tmp/share.trace"
    check "remote delete: the nodes go back to their owner's local free list" dump_has lru/linux_common "$tmp/remote.trace" \
        "free ($((4 * possible - 2))):" 'cpu0 local free (0):' 'cpu0 pending (2): 04000000 03000000' \
        'cpu1 local free (0):' 'cpu1 pending (0):'
    if has_kernel; then
        for t in steal share remote; do
            [ "$t" = share ] || expect 0 "lru/linux_common matches the kernel" \
                "$maplab" validate --map lru/linux_common --trace "$tmp/$t.trace"
            expect 0 "lru/linux_percpu matches the kernel" \
                "$maplab" validate --map lru/linux_percpu --trace "$tmp/$t.trace"
        done
        # Random traces over both cpus, every map type (the kernel test
        # suite runs 200 seeds of each LRU mode).
        for args in "--type lru_hash" "--type lru_hash --flags zero_seed,no_common_lru" \
                    "--type hash" "--type hash --flags zero_seed,no_prealloc" "--type lpm_trie"; do
            # shellcheck disable=SC2086
            expect 0 "matches the kernel" "$maplab" validate --random $args --entries 12 \
                --ops 1500 --seed 7 --cpus 0,1
        done
    fi
fi

# The kernel side (root and BPF).
if has_kernel; then
    # Run "$@" with at most N file descriptors, none inherited beyond 0-2.
    with_fds() {
        local n=$1; shift
        ( for fd in 3 4 5 6 7 8 9; do eval "exec $fd>&-"; done
          ulimit -n "$n"; exec "$@" )
    }
    printf 'map hash key_size=4 value_size=8 max_entries=4 flags=zero_seed|0x8\nupdate 01000000 0100000000000000\nlookup 01000000\nplookup 01000000\ndump\n' >"$tmp/rdonly.trace"
    expect 0 'validate: 5 trace lines, .* matches the kernel' "$maplab" validate --trace "$tmp/rdonly.trace"
    expect 0 'matches the kernel' "$maplab" validate --trace "$tmp/wronly.trace"
    expect 0 'matches the kernel' "$maplab" validate --random --flags 'zero_seed|rdonly_prog' --ops 300
    # LPM: the bundled example (its header quotes this line), a random trace.
    expect 0 '^validate: 41 trace lines, maplab \(kernel-faithful designs\) matches the kernel$' \
        "$maplab" validate --trace "$root/examples/lpm_basics.trace"
    expect 0 'validate: 402 trace lines, .* matches the kernel' "$maplab" validate --trace "$tmp/lpm.trace"

    # An element or node too large for one kmalloc: bpf_mem_alloc adds an
    # 8-byte link to a no_prealloc hash's element (48 + key and value each
    # rounded up to 8) and to a trie's node (24 + data + value), over
    # KMALLOC_MAX_SIZE (4 MiB) the kernel creates the map but answers each
    # update ENOMEM.  One byte under and one over, as measured on 6.18.
    zeros() { printf '%0*d' $((2 * $1)) 0; }
    big_trace() { # TYPE KEY_SIZE VALUE_SIZE FLAGS KEY...
        local type=$1 ks=$2 vs=$3 flags=$4 key; shift 4
        echo "map $type key_size=$ks value_size=$vs max_entries=2 flags=$flags"
        for key in "$@"; do
            printf 'update %s ' "$key"; zeros "$vs"; printf ' any\n'
        done
        printf 'update %s ' "$1"; zeros "$vs"; printf ' exist\n'
        printf 'next -\ndump\n'
    }
    lpm_key=10000000$(zeros 256)
    for vs in 4194240 4194241; do
        big_trace hash 4 $vs 'no_prealloc|zero_seed' 01000000 02000000 >"$tmp/big$vs.trace"
    done
    for vs in 4194016 4194017; do
        big_trace lpm_trie 260 $vs no_prealloc "$lpm_key" >"$tmp/big$vs.trace"
    done
    expect 0 'validate: 6 trace lines, .* matches the kernel' "$maplab" validate --trace "$tmp/big4194240.trace"
    expect 0 'validate: 6 trace lines, .* matches the kernel' "$maplab" validate --trace "$tmp/big4194241.trace"
    expect 0 '^err ENOMEM$' "$maplab" replay --trace "$tmp/big4194241.trace"
    expect 0 'validate: 5 trace lines, .* matches the kernel' "$maplab" validate --trace "$tmp/big4194016.trace"
    expect 0 'validate: 5 trace lines, .* matches the kernel' "$maplab" validate --trace "$tmp/big4194017.trace"
    expect 0 '^err ENOMEM$' "$maplab" replay --trace "$tmp/big4194017.trace"
    rm -f "$tmp"/big*.trace

    # Both sides refuse the map line, then the trace goes on: its error.
    expect 2 'after.trace:2: operation on the map of line 1, .*EINVAL on both sides' \
        "$maplab" validate --trace "$tmp/after.trace"

    # No descriptor left for the lookup program: not an answer of the map.
    expect 2 "rdonly.trace:4: the kernel's lookup program could not run: Too many open files" \
        with_fds 4 "$maplab" validate --trace "$tmp/rdonly.trace"
    expect 2 "rdonly.trace:4: the kernel's lookup program could not run: Too many open files" \
        with_fds 5 "$maplab" replay --map kernel --trace "$tmp/rdonly.trace"
    # At 5 the verifier ran before the fd ran out: its log only when asked.
    out=$(with_fds 5 "$maplab" replay --map kernel --trace "$tmp/rdonly.trace" 2>&1)
    check "no verifier log unasked" test -z "$(grep -i 'verifier\|processed' <<<"$out")"
    expect 2 "the verifier's log:" \
        with_fds 5 "$maplab" replay --verbose --map kernel --trace "$tmp/rdonly.trace"
fi

# validate --map D compares D with the kernel's map of D's own mode: the
# per-CPU LRU design is the kernel's LRU with BPF_F_NO_COMMON_LRU, whether
# or not the trace's map line asks for it.
if has_kernel; then
    expect 0 'lru/linux_percpu matches the kernel' "$maplab" validate --random \
        --type lru_hash --entries 100 --ops 3000 --map lru/linux_percpu
fi

finish
