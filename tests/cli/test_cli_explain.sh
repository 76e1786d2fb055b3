#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# explain: bad input, no permission to sample, and (as root, with the
# kernel side) every map type and op: the kernel's functions and the
# design's named under their steps, ns per step on both sides that add up
# to the side's ns/op, a flame graph that parses; every file it writes
# (the report, stdout, --svg, --chains, --save) whole or not at all.
# usage: test_cli_explain.sh MAPLAB SOURCE_ROOT PINFAIL_SHIM kernel|no-kernel
maplab=$1 root=$2 pinfail=$3
. "$(dirname "$0")/lib.sh"

expect 0 'usage: maplab explain --map' "$maplab" explain --help
expect 2 'explain: --op is required' "$maplab" explain --map hash/linux
expect 2 "explain: --op wants lookup, update, insert, delete, upsert, replace or lookup_write, got 'scan'" \
    "$maplab" explain --map hash/linux --op scan
expect 2 'hash/linux and lru/global are of different map types' \
    "$maplab" explain --map hash/linux,lru/global --op lookup
expect 2 "sizes wants counts from 1 to 64M .*got 'lots'" \
    "$maplab" explain --map hash/linux --op lookup --sizes 1K,lots
expect 2 'hz' "$maplab" explain --map hash/linux --op lookup --hz 0
expect 2 "no design 'hash/none'" "$maplab" explain --map hash/none --op lookup

# Without permission to sample kernel call chains: exit 2, and why.
if is_root && command -v setpriv >/dev/null &&
   [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 2 ]; then
    check 'not root: one line, exit 2, the reason' one_line_error \
        'explain: cannot sample here: .*root or CAP_PERFMON.*perf_event_paranoid' \
        setpriv --reuid=65534 --regid=65534 --clear-groups \
        "$maplab" explain --map hash/linux --op lookup --quiet
fi

if [ "$kernel_built" = no-kernel ] && is_root; then
    expect 2 'built without the kernel side' \
        "$maplab" explain --map hash/linux --op lookup --quiet
fi

# steps_add_up: the steps tables of the report on stdin add up on every
# side: the shares to 100% (with the pair's other op where the op runs in
# insert/delete pairs), and for an op alone the steps' ns and the total to
# the side's unsampled ns/op (each figure rounded to 0.1: 0.05 a row).
steps_add_up() {
    python3 -c '
import re, sys
lines = sys.stdin.read().splitlines()
ns = {}   # each side, its unsampled ns/op
k = lines.index("time per op (unsampled)") + 1
while lines[k].strip():
    m = re.match(r"^  (\S.*?) +([0-9.]+) ns \[", lines[k])
    if m:
        ns[m.group(1)] = float(m.group(2))
    k += 1
start = next(i for i, l in enumerate(lines) if l.startswith("steps of one"))
sec = lines[start:lines.index("functions behind each step (share of the side\x27s samples)")]
# a table: its labels line (38 blanks, then 23 columns a side), "step",
# the rows, "total", the pair\x27s other op; share in 11 columns, ns in 12
cell = lambda l, j: l[38 + 23 * j: 38 + 23 * (j + 1)]
num = lambda t: 0.0 if t.strip() == "-" else float(t.strip().rstrip("%"))
bad, sides = [], 0
for t in [i for i, l in enumerate(sec) if l.startswith(" " * 38) and l.strip()]:
    labels = [cell(sec[t], j).strip() for j in range((len(sec[t]) - 38) // 23)]
    k, rows = t + 2, []
    while not sec[k].startswith("  total "):
        rows.append(sec[k])
        k += 1
    total, after = sec[k], sec[k + 1]
    other = after if after.startswith("  the pair\x27s other op") else None
    slack = 0.05 * (len(rows) + 1) + 1e-6
    for j, label in enumerate(labels):
        side = next(n for n in ns if n[:22] == label)   # a label is cut at 22
        sides += 1
        share = sum(num(cell(r, j)[:11]) for r in rows)
        step_ns = sum(num(cell(r, j)[11:]) for r in rows)
        if other:
            share += num(cell(other, j)[:11])
        elif abs(step_ns - ns[side]) > slack or \
                abs(num(cell(total, j)[11:]) - ns[side]) > 0.05 + 1e-6:
            bad.append("%s: the steps add up to %.1f ns (total %s), its ns/op is %s"
                       % (side, step_ns, cell(total, j).strip(), ns[side]))
        if abs(share - 100) > slack:
            bad.append("%s: the shares add up to %.1f%%" % (side, share))
for b in bad:
    print("    " + b)
sys.exit(1 if bad or sides < 2 else 0)'
}

if has_kernel; then
    quick=(--entries 4096 --repeat 1 --duration 0.05 --sample-seconds 0.25
           --hz 1000 --no-diff --quiet)
    # One design per map type, with the kernel functions its ops must show.
    declare -A design=([hash]=hash/linux [lru_hash]=lru/linux_common
                       [lpm_trie]=lpm_trie/linux)
    kernel_fn='htab|trie_|bpf_lru|unit_alloc|lookup_nulls|memcmp|longest_prefix'
    design_fn='htab|hash_linux_|lpm_|lookup_locked|match_len|find_slot|pop_free|push_free|unlink|jhash|memcmp|node_alloc'
    for type in hash lru_hash lpm_trie; do
        d=${design[$type]}
        for op in lookup update insert delete; do
            svg=$tmp/$type-$op.svg
            out=$("$maplab" explain --map "$d" --op "$op" "${quick[@]}" --svg "$svg" 2>&1)
            rc=$?
            check "explain $d $op: exit 0" test "$rc" -eq 0
            check "explain $d $op: a kernel function named" \
                grep -qE "^    kernel $type +.*($kernel_fn)" <<<"$out"
            check "explain $d $op: a design function named" \
                grep -qE "^    ${d//\//\\/} +.*($design_fn)" <<<"$out"
            check "explain $d $op: ns per step on both sides" \
                grep -qE '^  total +[0-9.]+ +[0-9.]+$' <<<"$out"
            check "explain $d $op: the steps add up to each side's ns/op" \
                steps_add_up <<<"$out"
            check "explain $d $op: the flame graph parses" \
                python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$svg"
            [ "$rc" -eq 0 ] || sed 's/^/    /' <<<"$out" | head -20
        done
    done

    # The suite's ops (docs/bench.md), each alone in its workload.
    for op in upsert replace lookup_write; do
        out=$("$maplab" explain --map hash/linux --op "$op" "${quick[@]}" 2>&1)
        check "explain hash/linux $op: exit 0, the op's workload" \
            grep -q "^workload: $op=100," <<<"$out"
        check "explain hash/linux $op: ns per step on both sides" \
            grep -qE '^  total +[0-9.]+ +[0-9.]+$' <<<"$out"
        check "explain hash/linux $op: the steps add up to each side's ns/op" \
            steps_add_up <<<"$out"
    done

    # The trie update: the kernel's time in trie_update_elem (interrupts off)
    # and the allocator; the design's in its own match_len.
    out=$("$maplab" explain --map lpm_trie/linux --op update "${quick[@]}" --entries 65536 2>&1)
    check 'trie update: trie_update_elem with interrupts off' \
        grep -qE '^    kernel lpm_trie +trie_update_elem [0-9.]+%' \
        <<<"$(grep -A2 '^  interrupts off' <<<"$out")"
    check 'trie update: the allocator' \
        grep -qE '^    kernel lpm_trie +unit_alloc' <<<"$(grep -A2 '^  allocation' <<<"$out")"
    check 'trie update: the design in match_len' \
        grep -qE '^    lpm_trie/linux +match_len' <<<"$(grep -A3 '^  key compare' <<<"$out")"

    # --out DIR: the report and the picture, and --chains' lines.
    "$maplab" explain --map hash/linux --op lookup "${quick[@]}" --out "$tmp/dir" \
        --chains "$tmp/chains.txt" >/dev/null 2>&1
    check '--out writes explain.txt' grep -q '^== hash lookup at 4096 entries ==' "$tmp/dir/explain.txt"
    check '--out writes the flame graph' test -s "$tmp/dir/explain-hash-lookup-4096.svg"
    check '--chains writes one line per sample' \
        grep -qE $'^kernel_hash\tworker\t[0-9a-f]+ [0-9a-f]+ ' "$tmp/chains.txt"
    check '--svg in a folder that is not there: one line, before any run' one_line_error \
        '^maplab explain: --svg /nonexistent/x.svg: No such file or directory$' \
        "$maplab" explain --map hash/linux --op lookup "${quick[@]}" --svg /nonexistent/x.svg
    expect 2 'explain: --chains /nonexistent/c.txt: No such file' \
        "$maplab" explain --map hash/linux --op lookup "${quick[@]}" --chains /nonexistent/c.txt

    # A full disk, at whichever flush finds it: one line naming the file
    # with the write's own errno, exit 2, and no file that looks finished.
    # /dev/full stands for the disk (a symlink where the file would be);
    # bash's ulimit -f (KiB), SIGXFSZ ignored, makes a regular file fail
    # (EFBIG), so that what was made is seen removed, or cut back: --save's
    # 2000 bytes take the first 48 of the host record, then fail.
    lookup=(explain --map hash/linux --op lookup --entries 4096 --repeat 1
            --duration 0.05 --sample-seconds 0.05 --hz 1000 --no-diff --quiet)
    mkdir "$tmp/full" && ln -s /dev/full "$tmp/full/explain.txt"
    check '--out DIR on a full disk: one line, exit 2' one_line_error \
        "^maplab explain: $tmp/full/explain.txt: No space left on device\$" \
        "$maplab" "${lookup[@]}" --out "$tmp/full"
    check 'a report on stdout that cannot be written: one line, exit 2' \
        one_line_error '^maplab explain: standard output: No space left on device$' \
        sh -c '"$@" >/dev/full' sh "$maplab" "${lookup[@]}"
    check '--out DIR: a report too large for the disk: one line, exit 2' one_line_error \
        "^maplab explain: $tmp/big/explain.txt: File too large\$" \
        bash -c 'trap "" XFSZ; ulimit -f 0; exec "$@"' bash "$maplab" "${lookup[@]}" --out "$tmp/big"
    check '--out DIR: no explain.txt left' test ! -e "$tmp/big/explain.txt"
    ln -s /dev/full "$tmp/full.svg"
    check '--svg on a full disk: its errno, not EIO' one_line_error \
        "^maplab explain: $tmp/full.svg: No space left on device\$" \
        "$maplab" "${lookup[@]}" --svg "$tmp/full.svg"
    check '--svg too large for the disk: one line, exit 2' one_line_error \
        "^maplab explain: $tmp/big.svg: File too large\$" \
        bash -c 'trap "" XFSZ; ulimit -f 4; exec "$@"' bash "$maplab" "${lookup[@]}" --svg "$tmp/big.svg"
    check '--svg: no partial flame graph left' test ! -e "$tmp/big.svg"
    ln -s /dev/full "$tmp/full-chains.txt"
    check '--chains on a full disk: one line, exit 2' one_line_error \
        "^maplab explain: $tmp/full-chains.txt: No space left on device\$" \
        "$maplab" "${lookup[@]}" --chains "$tmp/full-chains.txt" --out "$tmp/chains-dir"
    check '--chains failed: the report removed' test ! -e "$tmp/chains-dir/explain.txt"
    head -c 2000 /dev/zero | tr '\0' x >"$tmp/save.jsonl"
    cp "$tmp/save.jsonl" "$tmp/save-before.jsonl"
    check '--save too large for the disk: one line, exit 2' one_line_error \
        "^maplab explain: $tmp/save.jsonl: File too large\$" \
        bash -c 'trap "" XFSZ; ulimit -f 2; exec "$@"' bash "$maplab" "${lookup[@]}" \
        --save "$tmp/save.jsonl"
    check '--save: cut back to its earlier records' cmp -s "$tmp/save.jsonl" "$tmp/save-before.jsonl"
fi
finish
