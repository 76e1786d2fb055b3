#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench, kbench and compare on LPM maps: --prefixes and --hit-ratio, their
# bad input, their records; the kernel's trie without --flags; LPM tries
# and hash maps on the same addresses.
# usage: test_cli_lpm.sh MAPLAB SOURCE_ROOT
maplab=$1 root=$2
. "$(dirname "$0")/lib.sh"

b=("$maplab" bench --quiet --duration 0.05 --warmup 0 --entries 1024)
l=("${b[@]}" --map lpm_trie/linux)

# Bad input: exit 2, one line naming the option.
check 'an unknown prefix set' one_line_error \
    "^maplab bench: --prefixes wants random32, bgp, ipv6, bpf_performance, dense, internet or a file, got 'v4' \\(no such file\\)$" "${l[@]}" --prefixes v4
check 'a hit ratio that is no percent' one_line_error \
    "^maplab bench: --hit-ratio wants a percent from 0 to 100, got '101'$" "${l[@]}" --hit-ratio 101
check 'a hit ratio that is no number' one_line_error \
    "--hit-ratio wants a percent from 0 to 100, got '7x'" "${l[@]}" --hit-ratio 7x
check '--prefixes without an LPM map' one_line_error \
    '^maplab bench: --prefixes bgp: for LPM maps, and --map names none' \
    "${b[@]}" --map hash/linux --prefixes bgp
# The designs it names are the registry's LPM designs, every one of them.
lpm_designs=$("$maplab" list | awk '$2 == "lpm_trie" || $3 == "lpm_trie" {print $1}')
for d in $lpm_designs; do
    expect 2 "names none \\(.*$d" "${b[@]}" --map hash/linux --prefixes bgp
done
check 'the registry has LPM designs' test -n "$lpm_designs"
check '--hit-ratio without a prefix workload' one_line_error \
    '^maplab bench: --hit-ratio: for the LPM workloads of --prefixes only' \
    "${b[@]}" --map hash/linux --hit-ratio 50
check '--hit-ratio on LPM keys of no prefix set' one_line_error \
    '--hit-ratio: for the LPM workloads of --prefixes only' "${l[@]}" --key-size 12 --hit-ratio 50
check 'a key size the set does not make' one_line_error \
    '^maplab bench: --prefixes ipv6 makes 20-byte LPM keys \(a 4-byte prefix length and 16 address bytes\), not --key-size 8$' \
    "${l[@]}" --prefixes ipv6 --key-size 8
check 'a set too dense to draw' one_line_error \
    '^maplab bench: --prefixes bgp: 4000000 bgp prefixes hold 60956 /16 prefixes, more than half' \
    "${l[@]}" --prefixes bgp --entries 4000000
check 'a hash on bgp prefixes' one_line_error \
    '^maplab compare: --map: hash/linux is a hash map: it runs an LPM workload on its addresses, so only on full-length prefixes \(--prefixes random32 or dense\) or a mix without lookups, not bgp$' \
    "$maplab" compare --quiet --map lpm_trie/linux,hash/linux --prefixes bgp
check '--physical with a hash on bgp prefixes' one_line_error \
    '^maplab bench: --physical: hash/seqlock_buckets is a hash map' "${l[@]}" --prefixes bgp --physical hash/seqlock_buckets
check 'compare still refuses designs of two types without a prefix workload' one_line_error \
    'compare designs of one map type at a time' \
    "$maplab" compare --quiet --map hash/linux,lru/global
for cmd in bench kbench compare; do
    expect 0 '--prefixes S +LPM maps: the prefixes stored' "$maplab" $cmd --help
    expect 0 '--hit-ratio P +LPM maps: percent of the lookups' "$maplab" $cmd --help
done

# An LPM map needs no --flags and no --key-size: no_prealloc and 8-byte
# random32 keys; each set gives its keys, and the records name it.
"${l[@]}" --map lpm_trie/linux,lpm_trie/prefix_hash --format jsonl --out "$tmp/r32.jsonl"
expect 0 '"map":"lpm_trie/linux",.*"prefixes":"random32","hit_ratio":100,"key_size":8,.*"map_flags":1,' \
    sed -n 2p "$tmp/r32.jsonl"
expect 0 '"map":"lpm_trie/prefix_hash",.*"ok":\{"lookup":[1-9]' sed -n 3p "$tmp/r32.jsonl"
expect 0 '"fail":\{"lookup":0,' sed -n 2p "$tmp/r32.jsonl"
expect 0 '"prefixes":"ipv6","hit_ratio":100,"key_size":20,' "${l[@]}" --prefixes ipv6 --format jsonl
expect 0 '^user,lpm_trie/linux,.*,1024,,bgp,75,8,8,100,1,1,' "${l[@]}" --prefixes bgp --hit-ratio 75 --format csv
# Lookups hit as --hit-ratio says (by count of ops: the stream's own share).
expect 0 '^lpm_trie/linux +1 .* lookup (69|70|71)%$' "${l[@]}" --prefixes bgp --hit-ratio 70 --ops 65536
expect 0 '^lpm_trie/linux +1 .* lookup 100%, update 100%$' \
    "${l[@]}" --prefixes bgp --mix lookup=50,update=50 --ops 65536
expect 0 '^lpm_trie/linux +1 .* insert 100%, delete 100%$' \
    "${l[@]}" --prefixes ipv6 --prefill 90 --mix insert=50,delete=50 --ops 65536
# The trie's writes report the ns they hold its lock, a column after the
# allocations; lookups alone hold none, and have no such figure.
"${l[@]}" --prefixes bgp --mix lookup=50,update=50 --ops 65536 >"$tmp/lock.txt"
expect 0 '^map +threads +evictions +nodes scanned +locks +evict/refill +allocations +lock ns$' \
    cat "$tmp/lock.txt"
expect 0 '^lpm_trie/linux +1 +0\.000 +[0-9]+\.[0-9]{3} +0\.[0-9]{3} +- +0\.[0-9]{3} +[0-9]+\.[0-9]{3}$' \
    cat "$tmp/lock.txt"
expect 0 '"lock_ns_per_op":[0-9.]+,"lock_ns_per_op_min":[0-9.]+,"lock_ns_per_op_max":[0-9.]+' \
    "${l[@]}" --mix lookup=50,update=50 --format jsonl
check 'lookups alone: no lock time' bash -c \
    "! '${l[0]}' ${l[*]:1} --mix lookup=100 --format jsonl | grep -q lock_ns"
check 'lookups alone: no lock ns column' bash -c \
    "! '${l[0]}' ${l[*]:1} --mix lookup=100 | grep -q 'lock ns'"
# Keys other than 8 bytes without a set: full-length keys, as before.
expect 0 '"key_size":12,' "${l[@]}" --key-size 12 --format jsonl
check '12-byte keys: no prefix set' bash -c "! '${l[0]}' ${l[*]:1} --key-size 12 --format jsonl | grep -q prefixes"

if has_kernel; then
    k=("$maplab" kbench --quiet --duration 0.05 --warmup 0 --entries 1024 --run-ops 64 --run-repeat 4)
    # The kernel's trie gets BPF_F_NO_PREALLOC without --flags.
    expect 0 '^lpm_trie kernel +1 .*lookup (69|70|71)%' "${k[@]}" --map lpm_trie --prefixes bgp \
        --hit-ratio 70 --no-syscall --ops 65536
    # Tries against hashes on the same addresses: a kernel side per type.
    c=("$maplab" compare --quiet --duration 0.05 --warmup 0 --entries 1024 --run-ops 64
       --run-repeat 4 --no-syscall --map lpm_trie/linux,hash/linux --mix update=100)
    "${c[@]}" >"$tmp/th.txt"
    # A row per side; the sentences wrapped at 120 columns (their lines
    # joined to match them).
    for side in 'kernel BPF lpm_trie' 'kernel BPF hash'; do
        expect 0 "^$side +-?[0-9.]+( !)?\$" cat "$tmp/th.txt"
    done
    expect 0 '^lpm_trie/linux +-?[0-9.]+ \(-?[0-9.]+x\)' cat "$tmp/th.txt"
    expect 0 '^hash/linux +-?[0-9.]+ \(-?[0-9.]+x\)' cat "$tmp/th.txt"
    joined=(bash -c "tr '\\n' ' ' <'$tmp/th.txt' | tr -s ' '")
    expect 0 "lpm_trie/linux to kernel BPF lpm_trie; hash/linux to kernel BPF hash;" "${joined[@]}"
    expect 0 "prefixes: random32; .* a hash map's key is the address alone " "${joined[@]}"
    expect 0 'flags no_prealloc on lpm_trie maps, none on hash maps' "${joined[@]}"
    "${c[@]}" --format jsonl --out "$tmp/th.jsonl"
    expect 0 '"label":"hash/linux",.*"key_size":4,.*"map_flags":0,' grep -F '"label":"hash/linux"' "$tmp/th.jsonl"
    expect 0 '"label":"kernel BPF lpm_trie",.*"key_size":8,.*"map_flags":1,' \
        grep -F '"label":"kernel BPF lpm_trie"' "$tmp/th.jsonl"
    expect 0 '"label":"kernel BPF hash",.*"ok":\{"lookup":0,"update":[1-9][0-9]*,' \
        grep -F '"label":"kernel BPF hash"' "$tmp/th.jsonl"
fi

# The shipped routing table, a sample of it, a file of CIDRs, dense.
check 'more entries than the internet table holds' one_line_error \
    '^maplab bench: --prefixes internet: 901900 prefixes asked for; the internet table holds 901899 IPv4 prefixes$' \
    "${l[@]}" --prefixes internet --entries 901900
check 'more entries than its IPv6 part holds' one_line_error \
    'the internet table holds 160147 IPv6 prefixes$' \
    "${l[@]}" --prefixes internet --key-size 20 --entries 160148
check 'a key size lpm_trie/lctrie cannot hold: its reason, in one line' one_line_error \
    '^maplab bench: lpm_trie/lctrie takes key_size 20 at most \(16 data bytes, an IPv6 address\), not 36: keys are held as 128-bit numbers$' \
    "$maplab" bench --map lpm_trie/lctrie --key-size 36 --entries 1000 --duration 0.05 --warmup 0
check 'internet6 with an IPv4 key size' one_line_error \
    '^maplab bench: --prefixes internet6 makes 20-byte LPM keys .*, not --key-size 8 \(the table.s IPv4 prefixes: --prefixes internet\)$' \
    "${l[@]}" --prefixes internet6 --key-size 8
expect 0 '^prefixes: internet \(a sample of 1024 of its 901899 prefixes, each length.s share kept\); lookups' \
    "$maplab" bench --duration 0.05 --warmup 0 --entries 1024 --map lpm_trie/linux --prefixes internet
expect 0 '"prefixes":"internet6","hit_ratio":90,"key_size":20,' "${l[@]}" --prefixes internet \
    --key-size 20 --hit-ratio 90 --format jsonl
printf '# two\n10.0.0.0/8\n\n10.1.0.0/16  # nested\n192.0.2.1/24\n' >"$tmp/bad.txt"
check 'a file line with host bits' one_line_error \
    "^maplab bench: --prefixes: $tmp/bad.txt:5: 192.0.2.1/24 has bits set past its length \\(192.0.2.0/24\\?\\)$" \
    "${l[@]}" --prefixes "$tmp/bad.txt"
printf '10.0.0.0/8\nten/8\n' | gzip >"$tmp/bad.txt.gz"
check 'a gzipped file with a line that is no CIDR' one_line_error \
    "^maplab bench: --prefixes: $tmp/bad.txt.gz:2: 'ten/8' is not a CIDR: no IPv4 or IPv6 address before the /$" \
    "${l[@]}" --prefixes "$tmp/bad.txt.gz"
check 'a file that is not there' one_line_error \
    "^maplab bench: --prefixes: $tmp/none.txt: No such file or directory$" \
    "${l[@]}" --prefixes "$tmp/none.txt"
printf '2001:db8::/32\n' >"$tmp/v6.txt"
check 'a file without IPv4 prefixes' one_line_error \
    'holds no IPv4 prefix \(1 IPv6 one: --key-size 20 reads them\)$' "${l[@]}" --prefixes "$tmp/v6.txt"
printf '10.0.0.0/8\n10.1.0.0/16\n10.1.2.0/24\n' >"$tmp/good.txt"
expect 0 '"prefixes":".*good.txt",.*"ok":\{"lookup":[1-9][0-9]*,' "${b[@]}" --entries 3 \
    --map lpm_trie/linux,lpm_trie/multibit --prefixes "$tmp/good.txt" --format jsonl
check 'more entries than the file holds' one_line_error 'good.txt holds 3 IPv4 prefixes$' \
    "${l[@]}" --prefixes "$tmp/good.txt" --entries 4
# Updates name prefixes: a hash beside the tries keys each by its length
# and address, so it stores the same prefixes (8-byte keys).
"${b[@]}" --map lpm_trie/linux,hash/linux --prefixes internet --mix update=100 \
    --format jsonl --out "$tmp/upd.jsonl"
expect 0 '"map":"hash/linux",.*"prefixes":"internet",.*"key_size":8,.*"fail":\{[^}]*"update":0[,}]' \
    cat "$tmp/upd.jsonl"
expect 0 "prefixes: bgp; every op names a prefix of the set; a hash map's key is the prefix whole" \
    "$maplab" bench --duration 0.05 --warmup 0 --entries 1024 --map lpm_trie/linux,hash/linux \
    --prefixes bgp --mix update=50,insert=25,delete=25
# dense: full-length, so a hash map takes its addresses too
expect 0 '"map":"hash/linux",.*"prefixes":"dense",.*"fail":\{"lookup":0,' \
    "${b[@]}" --map lpm_trie/linux,hash/linux --prefixes dense --format jsonl

finish
