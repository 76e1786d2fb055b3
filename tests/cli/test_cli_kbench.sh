#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kbench, and compare where it needs the kernel side.
# usage: test_cli_kbench.sh MAPLAB SOURCE_ROOT PINFAIL_SHIM kernel|no-kernel
maplab=$1 root=$2 pinfail=$3
. "$(dirname "$0")/lib.sh"

# kbench and compare: bad input; the kernel side where this machine has one.
expect 2 "run-ops wants a whole number from 1" "$maplab" kbench --run-ops 0
expect 2 "no design 'tree'.*kernel map types" "$maplab" kbench --map tree

if has_kernel; then
    k=("$maplab" kbench --quiet --duration 0.05 --warmup 0 --entries 1024 --run-ops 64 --run-repeat 4)
    expect 0 '^hash kernel +1 .*lookup 100%' "${k[@]}" --map hash
    expect 0 '^hash syscall +1 .*lookup 100%' "${k[@]}" --map hash/linux
    "$maplab" compare --quiet --duration 0.05 --warmup 0 --entries 1024 --map hash/linux \
        --run-ops 64 --run-repeat 4 >"$tmp/kc.txt"
    expect 0 '^kernel BPF +-?[0-9.]+' cat "$tmp/kc.txt"
    expect 0 '^hash/linux +-?[0-9.]+ \(-?[0-9.]+x\)' cat "$tmp/kc.txt"
    expect 0 '^lpm_trie kernel +1 .*lookup 100%' "${k[@]}" --map lpm_trie --key-size 8 \
        --flags no_prealloc --no-syscall
    # --run-ops at the top of its range loads (it failed from 2048 up).
    expect 0 '^hash kernel +1 .*lookup 100%' "${k[@]}" --map hash --run-ops 8388608 \
        --run-repeat 1 --no-syscall

    # The suite's ops run their own programs, which load at the top of the
    # range too, and as a mix (kb_mix); compare runs them on both sides.
    for op in upsert replace lookup_write; do
        expect 0 "^hash kernel +1 .*$op 100%" "${k[@]}" --map hash --mix $op=100 \
            --run-ops 8388608 --run-repeat 1 --no-syscall
        expect 0 "^hash syscall +1 .*$op 100%" "${k[@]}" --map hash --mix $op=100
    done
    # The ops column continues under its row where it is long: read it joined.
    check 'the kernel LRU runs a mix of the new ops' bash -c \
        '"$@" | tr -s " \n" " " | grep -qE "lru_hash kernel +1 .*upsert 100%, replace .*lookup_write 100%"' \
        _ "${k[@]}" --map lru_hash --mix upsert=40,replace=30,lookup_write=30 \
        --run-ops 8388608 --run-repeat 1 --no-syscall
    expect 0 '^hash/linux +[0-9.]+ \([0-9.]+x\)' "$maplab" compare --quiet --duration 0.05 \
        --warmup 0 --entries 1024 --map hash/linux --run-ops 64 --run-repeat 4 --mix replace=100

    # A load the kernel refuses (programs may not write this map): exit 2, one
    # line, no libbpf warnings or verifier log without --verbose.
    check 'a refused load says one line' one_line_error \
        '^maplab kbench: .*refused the kbench programs \(kb_update.*Permission denied' \
        "${k[@]}" --map hash --flags rdonly_prog --mix update=100

    # Workers run on the CPUs this process may use, by their real ids: under
    # taskset -c 1 only CPU 1's record holds a stream, so this run passes only
    # if the program really ran on CPU 1 (on any other CPU it finds no stream
    # and aborts, which fails the run with exit 2: the old code, which filled
    # CPU 0's record, did).
    if taskset -c 1 true 2>/dev/null; then
        expect 0 '^hash kernel +1 .*lookup 100%' taskset -c 1 "${k[@]}" --map hash --threads 1
        expect 0 'skipped: one worker per CPU: this process may use 1 CPU, not 2' \
            taskset -c 1 "${k[@]}" --map hash --threads 2 --no-syscall
    fi
    # kbench's files are whole or an error, as bench's: a full disk (a path
    # that is a symlink to /dev/full) is one line naming the file with
    # ENOSPC, exit 2 (it said "writing X failed", without why).
    ln -s /dev/full "$tmp/full"
    check 'kbench --out to a full disk: one line, the file and ENOSPC' one_line_error \
        "^maplab kbench: $tmp/full: No space left on device\$" "${k[@]}" --map hash \
        --no-syscall --out "$tmp/full"
    check 'kbench --save to a full disk: one line, the file and ENOSPC' one_line_error \
        "^maplab kbench: $tmp/full: No space left on device\$" "${k[@]}" --map hash \
        --no-syscall --save "$tmp/full"
    check 'compare >/dev/full with the kernel side: one line naming stdout' one_line_error \
        '^maplab compare: standard output: No space left on device$' bash -c '"$@" >/dev/full' \
        _ "$maplab" compare --quiet --duration 0.05 --warmup 0 --entries 1024 --map hash/linux \
        --run-ops 64 --run-repeat 4

    # A pin that fails fails the run (it used to leave the workers where they
    # were, all on one CPU).
    check 'a failed pin fails the run' one_line_error \
        '^maplab kbench: .*cannot pin worker 0 to cpu [0-9]+: Invalid argument' \
        "${preload[@]}" "${k[@]}" --map hash
fi
# Without BPF (as nobody), compare says so and runs the userspace side.
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
if has_kernel && "${nobody[@]}" test -x "$maplab" 2>/dev/null; then
    expect 0 'no kernel side here: not root.*userspace side alone' "${nobody[@]}" \
        "$maplab" compare --quiet --duration 0.05 --warmup 0 --entries 1024 --map hash/linux
    expect 2 'maplab kbench: no kernel side here' "${nobody[@]}" "$maplab" kbench --duration 0.05
fi

# Built without the kernel side (-Dkernel=disabled): every command that
# needs it says so in one line and exits 2; compare runs the userspace
# side alone, saying why.
if [ "$kernel_built" = no-kernel ]; then
    absent='built without the kernel side'
    t=(--duration 0.05 --warmup 0 --entries 1024)
    check 'kbench: built without' one_line_error "^maplab kbench: .*$absent" \
        "$maplab" kbench "${t[@]}"
    expect 0 "no kernel side here: $absent.*userspace side alone" \
        "$maplab" compare --quiet "${t[@]}" --map hash/linux
    check 'validate: built without' one_line_error "^maplab validate: .*$absent" \
        "$maplab" validate --trace "$root/examples/hash_basics.trace"
    check 'replay --map kernel: built without' one_line_error "^maplab replay: .*$absent" \
        "$maplab" replay --map kernel --trace "$root/examples/hash_basics.trace"
    check 'sim --policy kernel: built without' one_line_error "^maplab sim: .*$absent" \
        "$maplab" sim --trace "$root/examples/traces/zipf.txt" --policy kernel --sizes 100
fi

finish
