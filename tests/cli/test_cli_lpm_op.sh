#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --lpm-op: the kernel's LPM benchmark's five workloads in bench, kbench,
# compare and explain: each op runs on every LPM design (and the kernel's
# trie where this machine has one), its records name the op and, for
# free, the parts of its time; what it cannot run with is one line, exit 2.
# usage: test_cli_lpm_op.sh MAPLAB SOURCE_ROOT PINFAIL_SHIM kernel|no-kernel
maplab=$1 root=$2
. "$(dirname "$0")/lib.sh"

b=("$maplab" bench --quiet --duration 0.05 --warmup 0 --entries 1000 --prefixes dense)
l=("${b[@]}" --map lpm_trie/linux)
designs=$("$maplab" list | awk '$2 == "lpm_trie" || $3 == "lpm_trie" {print $1}' | paste -sd,)
check 'the registry has LPM designs' test -n "$designs"

# Bad input: one line, exit 2.
check 'an unknown op' one_line_error \
    "^maplab bench: --lpm-op wants lookup, update, insert, delete or free, got 'bogus'$" \
    "${l[@]}" --lpm-op bogus
check 'a phase on two threads' one_line_error \
    '^maplab bench: --lpm-op insert runs one thread, .*not --threads 2$' \
    "${l[@]}" --lpm-op insert --threads 2
check 'free on two threads, in compare' one_line_error \
    '^maplab compare: --lpm-op free runs one thread' \
    "$maplab" compare --quiet --map lpm_trie/linux --lpm-op free --threads 1,2
check 'a hash map' one_line_error \
    '^maplab bench: --lpm-op lookup: hash/linux is no LPM trie' \
    "${b[@]}" --map hash/linux --lpm-op lookup
check 'a hash map in kbench' one_line_error \
    '^maplab kbench: --lpm-op free: hash is no LPM trie' \
    "$maplab" kbench --quiet --map hash --lpm-op free
check '--mix beside it' one_line_error \
    '^maplab bench: --lpm-op update: no --mix with it' \
    "${l[@]}" --lpm-op update --mix lookup=50,update=50
check '--prefill beside it' one_line_error \
    '^maplab bench: --lpm-op delete: no --prefill with it' \
    "${l[@]}" --lpm-op delete --prefill 50
check '--dist beside a phase' one_line_error \
    '^maplab bench: --lpm-op free: no --dist with it' \
    "${l[@]}" --lpm-op free --dist zipf:1
check 'explain: --op beside it' one_line_error \
    '^maplab explain: --lpm-op free: no --op with it' \
    "$maplab" explain --map lpm_trie/linux --lpm-op free --op lookup
check 'explain: --svg beside a phase' one_line_error \
    '^maplab explain: --lpm-op delete: no --svg with it' \
    "$maplab" explain --map lpm_trie/linux --lpm-op delete --svg "$tmp/x.svg"
for cmd in bench kbench compare explain; do
    expect 0 '--lpm-op OP' "$maplab" $cmd --help
done

# Every op on every LPM design: each succeeds in full, and its record
# names the op.
for op in lookup update insert delete free; do
    "${b[@]}" --map "$designs" --lpm-op $op --format jsonl --out "$tmp/$op.jsonl"
    check "$op: a record per design" test "$(grep -c '"side":"user"' "$tmp/$op.jsonl")" \
        -eq "$(tr , '\n' <<<"$designs" | wc -l)"
    # lookups only: the plain rte_fib beside lpm_trie/dpdk (docs/bench.md)
    plain=0
    [ $op = lookup ] && grep -q lpm_trie/dpdk <<<"$designs" && plain=1
    check "$op: the plain rte_fib beside lpm_trie/dpdk for lookups alone" \
        test "$(grep -c '"side":"plain"' "$tmp/$op.jsonl")" -eq $plain
    check "$op: every record names it" \
        test "$(grep '"record":"result"' "$tmp/$op.jsonl" | grep -vc "\"lpm_op\":\"$op\"")" -eq 0
done
for op in lookup update insert delete; do
    check "$op: no call failed" \
        test "$(grep '"record":"result"' "$tmp/$op.jsonl" | grep -vc "\"fail\":{[^}]*\"$op\":0[,}]")" -eq 0
done
expect 0 '"mix":"insert=100",.*"prefill":0,.*"ok":\{[^}]*"insert":[1-9][0-9]*000[,}]' \
    sed -n 2p "$tmp/insert.jsonl"
expect 0 '"lpm_op":"free","maps_freed":[1-9][0-9]*,"free_ms":[0-9.]+,.*"free_rcu_ms":[0-9.]+,.*"free_walk_ms":[0-9.]+' \
    sed -n 2p "$tmp/free.jsonl"
# The free's table: ms per map and its two parts.
expect 0 '^lpm_trie/linux +1 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ .*maps? of 1000 prefixes freed' \
    "${l[@]}" --lpm-op free
# Other workloads' records carry none of its fields.
check 'no lpm_op without --lpm-op' bash -c \
    "! '${l[0]}' ${l[*]:1} --format jsonl | grep -q 'lpm_op\|free_ms'"

if has_kernel; then
    k=("$maplab" kbench --quiet --duration 0.05 --warmup 0 --entries 1000 --prefixes dense --map lpm_trie)
    for op in lookup update insert delete; do
        expect 0 "^lpm_trie kernel +1 .*$op 100%" "${k[@]}" --lpm-op $op --no-syscall
    done
    "${k[@]}" --lpm-op free --format jsonl --out "$tmp/kfree.jsonl"
    expect 0 '"side":"kernel",.*"lpm_op":"free","maps_freed":[1-9][0-9]*,"free_ms":[0-9.]+,.*"free_timer":"(fentry|workqueue_tracepoints)"' \
        cat "$tmp/kfree.jsonl"
    # compare and explain: the kernel beside a design, on each phase.
    c=("$maplab" compare --quiet --duration 0.05 --warmup 0 --entries 1000 --prefixes dense
       --map lpm_trie/linux)
    expect 0 '^lpm_trie/linux +[0-9.]+ \([0-9.]+x\)' "${c[@]}" --lpm-op delete
    "${c[@]}" --lpm-op free >"$tmp/cfree.txt"
    expect 0 '^of it, the designs. wait for RCU' cat "$tmp/cfree.txt"
    expect 0 '^kernel BPF: the kernel.s free of its map' cat "$tmp/cfree.txt"
    e=("$maplab" explain --quiet --map lpm_trie/linux --prefixes dense --entries 1000
       --duration 0.05 --repeat 1)
    "${e[@]}" --lpm-op free --save "$tmp/efree.jsonl" >"$tmp/efree.txt"
    expect 0 '^  kernel lpm_trie +[0-9.]+ \[.*timed whole' cat "$tmp/efree.txt"
    expect 0 '^ +RCU wait [0-9.]+ \([0-9]+%\), walk and frees [0-9.]+ \([0-9]+%\)$' cat "$tmp/efree.txt"
    expect 0 '"record":"explain","side":"lpm_trie/linux",.*"lpm_op":"free",.*"free_rcu_ms":[0-9.]+,"free_walk_ms"' \
        cat "$tmp/efree.jsonl"
    expect 0 '^  kernel lpm_trie +[0-9.]+ \[.*the program [0-9.]+, less its baseline' \
        "${e[@]}" --lpm-op insert
else
    echo "skipped: the kernel's side of --lpm-op (needs root and the kernel side)"
fi

finish
