#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# dump (a design's inner state after a trace), and the kernel version a
# faithful design models: list shows it, validate warns on another kernel.
# usage: test_cli_dump.sh MAPLAB SOURCE_ROOT
maplab=$1 root=$2
. "$(dirname "$0")/lib.sh"

d=("$maplab" dump --map lru/global)

# 01, 02, 03, then a program lookup moves 01 to the front: 01 03 02; 04
# fills the map; 05 evicts the oldest, 02; a program lookup moves 04 to the
# front, and a syscall lookup (of 01) moves nothing: 04 05 01 03.
cat >"$tmp/lru.trace" <<'EOF'
map lru_hash key_size=4 value_size=8 max_entries=4
update 01000000 0100000000000000 noexist
update 02000000 0200000000000000 noexist
update 03000000 0300000000000000 noexist
plookup 01000000
update 04000000 0400000000000000 noexist
update 05000000 0500000000000000 noexist
plookup 04000000
lookup 01000000
EOF

# Bad input: one line on stderr, exit 2.
check 'dump: no --map' one_line_error 'give --map DESIGN and --trace FILE' \
    "$maplab" dump --trace "$tmp/lru.trace"
check 'dump: no --trace' one_line_error 'give --map DESIGN and --trace FILE' "${d[@]}"
check 'dump: unknown design' one_line_error "no design 'lru/nope'" \
    "$maplab" dump --map lru/nope --trace "$tmp/lru.trace"
check 'dump: a design without dump_state' one_line_error \
    '^maplab dump: hash/linux has no inner state to show' \
    "$maplab" dump --map hash/linux --trace "$tmp/lru.trace"
check 'dump: bad format' one_line_error '--format wants text or dot' \
    "${d[@]}" --trace "$tmp/lru.trace" --format png
check 'dump: missing file' one_line_error 'cannot open' "${d[@]}" --trace "$tmp/none"
printf 'map lru_hash key_size=4 value_size=8 max_entries=4\nupdate 0100 01\n' >"$tmp/bad.trace"
check 'dump: malformed line' one_line_error "bad.trace:2: key '0100' is not 4 bytes" \
    "${d[@]}" --trace "$tmp/bad.trace"
printf 'map hash key_size=4 value_size=8 max_entries=4\n' >"$tmp/hash.trace"
check 'dump: a map line of another type' one_line_error \
    'hash.trace:1: a hash map line, and lru/global is a lru_hash design' \
    "${d[@]}" --trace "$tmp/hash.trace"
printf '# nothing\n' >"$tmp/empty.trace"
check 'dump: no map line' one_line_error 'has no map line: nothing to dump' \
    "${d[@]}" --trace "$tmp/empty.trace"
printf 'map lru_hash key_size=4 value_size=8 max_entries=4 flags=no_common_lru\n' >"$tmp/refused.trace"
check 'dump: a map the design refuses' one_line_error \
    'refused.trace:1: lru/global refuses this map \(EINVAL\): nothing to dump' \
    "${d[@]}" --trace "$tmp/refused.trace"
printf 'update 01000000 0100000000000000\n' >>"$tmp/refused.trace"
check 'dump: an op on a map that was not made' one_line_error \
    'refused.trace:2: operation on the map of line 1' "${d[@]}" --trace "$tmp/refused.trace"

# Text: the keys in MRU order after the last op, under a heading that
# names the map line and the last line on it.
"${d[@]}" --trace "$tmp/lru.trace" >"$tmp/text.txt"
expect 0 '^# lru/global: the map of line 1 \(map lru_hash key_size=4 value_size=8 max_entries=4\), after line 9$' \
    cat "$tmp/text.txt"
expect 0 '^used, MRU first \(4\): 04000000 05000000 01000000 03000000$' cat "$tmp/text.txt"
expect 0 '^used, MRU first \(4\): 04000000' "${d[@]}" --trace - <"$tmp/lru.trace"

# Several map lines: a dump of each map after its last op, in order.
{ cat "$tmp/lru.trace"
  printf 'map lru_hash key_size=4 value_size=8 max_entries=2\n'
  printf 'map lru_hash key_size=4 value_size=8 max_entries=2\n'
  printf 'update 07000000 0700000000000000 any\n'; } >"$tmp/three.trace"
"${d[@]}" --trace "$tmp/three.trace" >"$tmp/three.txt"
expect 0 '^3$' bash -c "grep -c '^# lru/global: the map of line' '$tmp/three.txt'"
expect 0 '^# lru/global: the map of line 10 .*, before any op on it$' cat "$tmp/three.txt"
expect 0 '^used, MRU first \(0\):$' cat "$tmp/three.txt"
expect 0 '^# lru/global: the map of line 11 .*, after line 12$' cat "$tmp/three.txt"
expect 0 '^used, MRU first \(1\): 07000000$' cat "$tmp/three.txt"

# dot: a digraph per map, which Graphviz reads.
"${d[@]}" --trace "$tmp/lru.trace" --format dot >"$tmp/lru.dot"
expect 0 '^// lru/global: the map of line 1 ' head -1 "$tmp/lru.dot"
expect 0 '^digraph maplab \{' cat "$tmp/lru.dot"
expect 0 'label="04000000"' cat "$tmp/lru.dot"
if command -v dot >/dev/null; then
    check 'dot reads the dump' bash -c "dot -Tsvg '$tmp/lru.dot' >'$tmp/lru.svg'"
    expect 0 '<title>maplab</title>' cat "$tmp/lru.svg"
    # One graph per map: dot -O writes a file for each.
    "${d[@]}" --trace "$tmp/three.trace" --format dot >"$tmp/three.dot"
    check 'dot reads a dump of several maps' dot -Tsvg -O "$tmp/three.dot"
    check 'a file per map' test -s "$tmp/three.dot.svg" -a -s "$tmp/three.dot.3.svg"
else
    echo "note: Graphviz's dot is not installed: the dot output is not rendered"
fi

# A trace whose result lines pass stdio's buffer (4 kB) dumps: the results
# go to a stream that keeps nothing (a cookie stream without a writer
# failed its first flush: "writing the results failed: Success").
"$maplab" gentrace --type lru_hash --ops 1000 >"$tmp/long.trace"
expect 0 '^# lru/global: the map of line [0-9]+ .*, after line 1003$' "${d[@]}" --trace "$tmp/long.trace"
# Its dump to a full stdout: one line naming stdout with ENOSPC, exit 2.
check 'dump >/dev/full: one line naming stdout' one_line_error \
    '^maplab dump: standard output: No space left on device$' \
    bash -c '"$@" >/dev/full' _ "${d[@]}" --trace "$tmp/long.trace"
check 'dump --format dot >/dev/full: one line naming stdout' one_line_error \
    '^maplab dump: standard output: No space left on device$' \
    bash -c '"$@" >/dev/full' _ "${d[@]}" --trace "$tmp/lru.trace" --format dot

# The LPM trie: the kernel's example (kernel/bpf/lpm_trie.c's top
# comment), drawn as the tree it is: the /16 above a fork at /23.
cat >"$tmp/lpm.trace" <<'EOF2'
map lpm_trie key_size=8 value_size=4 max_entries=8 flags=no_prealloc
update 10000000c0a80000 01000000
update 18000000c0a80000 02000000
update 18000000c0a88000 03000000
update 18000000c0a80100 05000000
EOF2
l=("$maplab" dump --map lpm_trie/linux --trace "$tmp/lpm.trace")
"${l[@]}" >"$tmp/lpm.txt"
expect 0 '^lpm_trie/linux: 4 prefixes, 1 intermediate' cat "$tmp/lpm.txt"
check 'lpm dump: the tree, each child after its bit' diff - <(tail -5 "$tmp/lpm.txt") <<'EOF2'
192.168.0.0/16
  [0] (im) 192.168.0.0/23
    [0] 192.168.0.0/24
    [1] 192.168.1.0/24
  [1] 192.168.128.0/24
EOF2
"${l[@]}" --format dot >"$tmp/lpm.dot"
expect 0 'n1 \[label="192\.168\.0\.0/23\\n\(intermediate\)", shape=ellipse, style=dashed\];' \
    cat "$tmp/lpm.dot"
expect 0 '^  n0 -> n1 \[label="0"\];' cat "$tmp/lpm.dot"
if command -v dot >/dev/null; then
    check 'dot reads the trie' bash -c "dot -Tsvg '$tmp/lpm.dot' >'$tmp/lpm.svg'"
fi

# list names the kernel versions each faithful design models.
expect 0 '^design +type +kernels modelled +description$' "$maplab" list
expect 0 '^lru/linux_common \* +lru_hash +5\.10 6\.1 6\.12 6\.18 ' "$maplab" list
expect 0 '^hash/linux \* +hash +5\.10 6\.1 6\.12 6\.18 ' "$maplab" list
expect 0 '^lpm_trie/linux \* +lpm_trie +5\.10 6\.1 6\.12 6\.18 ' "$maplab" list

# validate: a faithful design that models another kernel version than the
# running one gets one warning line naming both, and the exit status stays
# the comparison's.  setarch --uname-2.6 makes this kernel call itself
# 2.6.x, which no design models.
if has_kernel && command -v setarch >/dev/null; then
    modelled=$("$maplab" list | awk '$2 == "*" {print $1 " " $3}')
    check 'list marks four faithful designs' test "$(wc -l <<<"$modelled")" -eq 4
    while read -r design type; do
        [ -n "$design" ] || continue
        v=("$maplab" validate --map "$design" --random --type "$type" --entries 16 --ops 200)
        "${v[@]}" >/dev/null 2>"$tmp/same.err"; same=$?
        setarch "$(uname -m)" --uname-2.6 "${v[@]}" >/dev/null 2>"$tmp/other.err"; other=$?
        check "validate $design: exit status $other on another kernel, $same here" \
            test "$same" -eq "$other"
        expect 0 "^maplab validate: warning: $design behaves as kernel 6\.18 \(it models 5\.10 6\.1 6\.12 6\.18\), and this kernel is 2\.6\." \
            cat "$tmp/other.err"
        check "validate $design: one warning line" test "$(grep -c warning "$tmp/other.err")" -eq 1
        check "validate $design: no warning on the kernel it models" \
            bash -c "! grep -q warning '$tmp/same.err'"
    done <<<"$modelled"
fi

finish
