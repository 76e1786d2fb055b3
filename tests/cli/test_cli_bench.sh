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
# --batch N: 1 to 64 keys a batch; the workload says so, and the record.
expect 2 'batch wants a whole number from 1 to 64' "${b[@]}" --batch 0
expect 2 'batch wants a whole number from 1 to 64' "${b[@]}" --batch 65
expect 0 '^batch: lookups 16 keys at a time' "${b[@]}" --map hash/seqlock_buckets --batch 16
expect 0 '"prefill":100,"batch":16,' "${b[@]}" --map hash/seqlock_buckets --batch 16 --format jsonl
# Only lookups are batched: a mix without them (lookup_write is a lookup
# and a write, one at a time) says nothing of a batch (it claimed one).
check 'bench --batch with lookup_write=100: no batch line' \
    bash -c '! "$@" | grep -q "^batch:"' _ "${b[@]}" --mix lookup_write=100 --batch 16
# ... and good ones give the fields docs/design.md promises.
expect 0 '^hash/linux +1 ' "${b[@]}" --mix lookup=90,update=10
# The suite's ops (docs/bench.md), alone and mixed, by bench and compare;
# an op no one knows is still one line and exit 2, naming the ops there are.
for op in upsert replace lookup_write; do
    expect 0 "^hash/linux +1 .* $op 100%" "${b[@]}" --mix $op=100
    expect 0 "^workload: $op=100, " "$maplab" compare --quiet --duration 0.05 \
        --warmup 0 --entries 1024 --map hash/linux --no-syscall --mix $op=100
done
# The ops column continues under its row where it is long: read it joined.
check 'a mix of the new ops: every one succeeded' bash -c \
    '"$@" | tr -s " \n" " " | grep -q "lookup 100%, upsert 100%, replace 100%, lookup_write 100%"' \
    _ "${b[@]}" --threads 1 --mix lookup=40,upsert=20,replace=20,lookup_write=20
expect 0 '"ok":\{"lookup":0,"update":0,"insert":0,"delete":0,"upsert":0,"replace":[1-9][0-9]*,"lookup_write":0\}' \
    "${b[@]}" --threads 1 --mix replace=100 --format jsonl
for cmd in bench compare; do
    check "$cmd --mix frobnicate=100: one line, exit 2" one_line_error \
        "unknown op 'frobnicate' \(lookup, update, insert, delete, upsert, replace, lookup_write\)" \
        "$maplab" $cmd --mix frobnicate=100
    expect 0 'upsert \(update BPF_ANY\), replace \(delete' "$maplab" $cmd --help
    expect 0 'lookup_write \(lookup; write the' "$maplab" $cmd --help
done
expect 0 'upserts, replaces and lookup_writes too' "${b[@]}" --key-range 400% --mix upsert=100
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

# Memory: bytes per entry of max_entries after the prefill, with its
# source: hash/seqlock_buckets's own count in every build; hash/linux keeps none, so
# jemalloc's figure where jemalloc is the allocator and none at all in the
# libc (sanitizer) build, never a made-up one.
allocator=$(head -1 "$tmp/b.jsonl" | grep -oE '"allocator":"[a-z]+"' | cut -d'"' -f4)
"${b[@]}" --map hash/seqlock_buckets,hash/linux --repeat 2 --format jsonl --out "$tmp/m.jsonl"
expect 0 '"bytes_per_entry":[0-9.]+,"bytes_per_entry_min":[0-9.]+,"bytes_per_entry_max":[0-9.]+,"memory_from":"design"' \
    grep -F '"map":"hash/seqlock_buckets"' "$tmp/m.jsonl"
if [ "$allocator" = jemalloc ]; then
    expect 0 '"bytes_per_entry":[0-9.]+,.*"memory_from":"allocator"' grep -F '"map":"hash/linux"' "$tmp/m.jsonl"
else
    check 'libc build: no memory figure for hash/linux' \
        bash -c "! grep -F '\"map\":\"hash/linux\"' '$tmp/m.jsonl' | grep -q bytes_per_entry"
fi
check 'hash/seqlock_buckets: at least a key and a value an entry' python3 -c "
import json, sys
r = [json.loads(l) for l in open('$tmp/m.jsonl')][1:]
f = [x for x in r if x['map'] == 'hash/seqlock_buckets'][0]
sys.exit(not f['bytes_per_entry'] >= 4 + 8)"
"${b[@]}" --map hash/seqlock_buckets,hash/linux >"$tmp/mem.txt"
expect 0 '^map +threads +Mops/s +ns/op +p50 +p90 +p99 +p99\.9 +B/entry +ops that succeeded$' cat "$tmp/mem.txt"
expect 0 '^hash/seqlock_buckets +1 +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+\.[0-9] +lookup 100%' cat "$tmp/mem.txt"
expect 0 "^bytes per entry: .*from the design's own count: hash/seqlock_buckets" cat "$tmp/mem.txt"
expect 0 ',bytes_per_entry,bytes_per_entry_min,bytes_per_entry_max,memory_from,buffer_bytes,' \
    "${b[@]}" --map hash/seqlock_buckets --format csv
expect 0 '^user,hash/seqlock_buckets,.*,[0-9]+\.[0-9]{6},[0-9]+\.[0-9]{6},[0-9]+\.[0-9]{6},design,' \
    "${b[@]}" --map hash/seqlock_buckets --format csv

# --physical D: the harness alone and random loads over D's footprint,
# beside the maps, in bench and in compare (with no kernel side, or with
# one: these two get no ratio to it).  The loads' buffer is the footprint
# bench reports for D.
check 'bench --physical: a bad name exits 2 with its message' \
    one_line_error "--physical: no design 'hash/nope'" "${b[@]}" --physical hash/nope
check 'compare --physical: a bad name exits 2 with its message' \
    one_line_error "--physical: no design 'noop'" "$maplab" compare --quiet --physical noop
expect 0 '--physical D +two reference sides' "$maplab" compare --help
expect 0 '--physical D +two reference sides' "$maplab" bench --help
p=("$maplab" compare --quiet --duration 0.05 --warmup 0 --entries 1024 --run-ops 64 --run-repeat 4
   --no-syscall --map hash/linux,hash/seqlock_buckets --physical hash/seqlock_buckets)
"${p[@]}" >"$tmp/phys.txt"
expect 0 '^side +1 thread$' cat "$tmp/phys.txt"
expect 0 '^harness \(noop\) +[0-9.]+( !)?$' cat "$tmp/phys.txt"
expect 0 '^random loads \(hash/seqlock_buckets, [0-9.]+ kB\) +[0-9.]+( !)?$' cat "$tmp/phys.txt"
expect 0 '^random loads \(hash/seqlock_buckets, [0-9.]+ kB\): independent random 8-byte loads over [0-9]+ bytes' \
    cat "$tmp/phys.txt"
expect 0 '^bytes per entry of max_entries' cat "$tmp/phys.txt"
"${p[@]}" --threads 1,2 --format jsonl --out "$tmp/phys.jsonl"
check 'compare --physical: the two sides, timed, the buffer of bench'"'"'s footprint' python3 -c "
import json, sys
r = [json.loads(l) for l in open('$tmp/phys.jsonl')][1:]
side = lambda s: [x for x in r if x['side'] == s]
fast = [x for x in side('user') if x['map'] == 'hash/seqlock_buckets']
h, l = side('harness'), side('loads')
ok = len(h) == 2 and len(l) == 2 and len(fast) == 2
ok = ok and all(x['ns_per_op'] > 0 and 'kernel_ratio' not in x for x in h + l)
ok = ok and all(x['map'] == 'noop' for x in h) and all(x['map'] == 'hash/seqlock_buckets' for x in l)
ok = ok and all(round(f['bytes_per_entry'] * f['entries']) == x['buffer_bytes']
                for f, x in zip(fast, l))
if not ok: print(json.dumps(h + l + fast)[:600])
sys.exit(not ok)"
"${b[@]}" --map hash/seqlock_buckets --physical hash/seqlock_buckets --format jsonl --out "$tmp/bphys.jsonl"
expect 0 '"side":"loads","map":"hash/seqlock_buckets","label":"random loads \(hash/seqlock_buckets, [0-9.]+ kB\)".*"buffer_bytes":[0-9]+,' \
    cat "$tmp/bphys.jsonl"
expect 0 '"side":"harness","map":"noop","label":"harness \(noop\)".*"ns_per_op":[0-9.]+' cat "$tmp/bphys.jsonl"
# A design with no count of its own, in a build whose allocator cannot
# count: no footprint, so no loads side, and a note that says why.
if [ "$allocator" = jemalloc ]; then
    expect 0 '^random loads \(hash/linux, [0-9.]+ kB\) +1 ' "${b[@]}" --physical hash/linux
else
    expect 0 'random loads: skipped: hash/linux keeps no count of its memory' "${b[@]}" --physical hash/linux
fi

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
expect 0 '"mops_runs":\[[0-9.]+,[0-9.]+,[0-9.]+\],"ns_per_op_runs":\[[0-9.]+,[0-9.]+,[0-9.]+\],"probe_ns_runs":\[[0-9.]+,[0-9.]+,[0-9.]+\]' \
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

# Every file bench and compare write is whole or an error: a write that
# fails at any flush is one line naming the file with the errno's own text,
# exit 2 (it said "writing X failed", without why, and kept what it had).
# A full disk without root: a path that is a symlink to /dev/full.
ln -s /dev/full "$tmp/full"
check 'bench --out to a full disk: one line, the file and ENOSPC' one_line_error \
    "^maplab bench: $tmp/full: No space left on device\$" "${b[@]}" --out "$tmp/full"
check 'bench --save to a full disk: one line, the file and ENOSPC' one_line_error \
    "^maplab bench: $tmp/full: No space left on device\$" "${b[@]}" --save "$tmp/full"
check 'bench >/dev/full: one line naming stdout' one_line_error \
    '^maplab bench: standard output: No space left on device$' \
    bash -c '"$@" >/dev/full' _ "${b[@]}"
compare_full=("$maplab" compare --quiet --duration 0.05 --warmup 0 --entries 1024
              --map hash/linux --no-syscall --out "$tmp/full")
if has_kernel; then
    check 'compare --out to a full disk: one line, the file and ENOSPC' one_line_error \
        "^maplab compare: $tmp/full: No space left on device\$" "${compare_full[@]}"
else # a line first says the userspace side runs alone
    expect 2 "^maplab compare: $tmp/full: No space left on device\$" "${compare_full[@]}"
fi
# A regular file that fails part way (ulimit -f, SIGXFSZ ignored: EFBIG):
# an append leaves the earlier records as they were, with nothing of the
# new run's after them (it kept a partial record); a new --out file is
# removed.  Each run appends about 2 kB, the limit leaves under 1 kB.
"${b[@]}" --save "$tmp/kept.jsonl" >/dev/null
cp "$tmp/kept.jsonl" "$tmp/kept.before"
room=$(( $(stat -c %s "$tmp/kept.jsonl") / 1024 + 1 ))
capped() { local blocks=$1; shift; bash -c 'trap "" XFSZ; ulimit -f "$1"; shift; "$@" >/dev/null' _ "$blocks" "$@"; }
check 'bench --save: a failed append: one line, the file and EFBIG' one_line_error \
    "^maplab bench: $tmp/kept.jsonl: File too large\$" capped "$room" "${b[@]}" --save "$tmp/kept.jsonl"
check 'bench --save: the earlier records survive a failed append, nothing added' \
    cmp -s "$tmp/kept.jsonl" "$tmp/kept.before"
check 'bench --out: a failed write: one line, the file and EFBIG' one_line_error \
    "^maplab bench: $tmp/new.txt: File too large\$" capped 0 "${b[@]}" --out "$tmp/new.txt"
check 'bench --out: a file that failed is removed' test ! -e "$tmp/new.txt"

# --key-range: N or P% of --entries; the range model and its checks.
expect 2 'key-range wants a whole number from 1 to 2147483648, or a whole percent' \
    "${b[@]}" --key-range 12x
expect 2 'key-range wants .* got .0%.' "${b[@]}" --key-range 0%
expect 2 'key-range 100000% of 2147483648 is 2147483648000, outside' \
    "${b[@]}" --entries 2147483648 --key-range 100000%
expect 2 'key-range gives 512 keys, fewer than the 1024 prefilled' "${b[@]}" --key-range 50%
expect 2 '4096 distinct keys \(the key range\) do not fit in 1-byte' \
    "${b[@]}" --key-size 1 --key-range 400%
# Deletes need no inserts of their own in the range model (the pool model
# refuses them), and the streams hold the mix asked: no warning about it.
expect 2 'delete=50 has nothing to delete' "${b[@]}" --mix lookup=50,delete=50
check 'range model: deletes alone run, with no warning' bash -c \
    "'$maplab' bench --quiet --duration 0.05 --warmup 0 --entries 1024 --key-range 400% \
     --mix lookup=50,delete=50 2>&1 >/dev/null | wc -c | grep -qx 0"
# A map that does not evict, on a range beyond it: its inserts will fail.
expect 0 'key range \(4096 keys\) is larger than the map \(1024 entries\).*E2BIG' \
    "${b[@]}" --key-range 400% --mix lookup=50,insert=50
# A mix whose writes mostly fail is flagged, with a note that says why; one
# that has room is not.
expect 0 'hash/linux, 1 thread: writes failed: 5[0-9]% of the updates, inserts and deletes failed' \
    "${b[@]}" --mix insert=50,delete=50 --prefill 99
check 'a mix with room: no writes_failed flag' bash -c \
    "! '$maplab' bench --quiet --duration 0.05 --warmup 0 --entries 1024 \
     --mix insert=50,delete=50 --prefill 50 2>&1 | grep -q 'writes failed'"
# Updates find keys the inserts put in: no "every update fails" warning.
check 'range model: prefill 0 with inserts gives updates keys' bash -c \
    "! '$maplab' bench --quiet --duration 0.05 --warmup 0 --entries 1024 --key-range 400% \
     --prefill 0 --map lru/global --mix update=50,insert=50 2>&1 | grep -q 'every update'"
expect 0 'ENOENT' "${b[@]}" --prefill 0 --mix update=50,lookup=50
# LRU designs evict on a range 4x their size, and report the work per op:
# each figure with its spread in jsonl and csv, a second table after the
# main one.  A design that counts no work has none of it.
"${b[@]}" --map lru/global,hash/linux --key-range 400% --mix insert=50,lookup=50 --repeat 2 \
    --format jsonl --out "$tmp/w.jsonl" 2>/dev/null
expect 0 '"map":"lru/global","label":"lru/global",.*"entries":1024,"key_range":4096,' \
    sed -n 2p "$tmp/w.jsonl"
for f in evictions evictions_per_op nodes_scanned_per_op locks_per_op evictions_per_refill; do
    expect 0 "\"$f\":[0-9.]+,\"${f}_min\":[0-9.]+,\"${f}_max\":[0-9.]+" sed -n 2p "$tmp/w.jsonl"
done
check 'hash/linux has a record' grep -q '"map":"hash/linux"' "$tmp/w.jsonl"
check 'hash/linux records no work' bash -c "! grep -F '\"map\":\"hash/linux\"' '$tmp/w.jsonl' | grep -q evictions"
# A noisy run may flag the row ("! wide spread ..."), and a long last
# column continues under its row: read the row with its continuations.
check 'lru/global: the share of each op that succeeded' bash -c \
    '"$@" | awk "/^lru\/global +1 /{r=\$0; next} r && match(\$0, /^ +[a-z!]/) && RLENGTH > 40 {r=r \$0; next} r{print r; r=\"\"}" |
     tr -s " " | grep -qE "^lru/global 1 .*lookup [0-9]+%, insert [0-9]+%( ! .*)?$"' \
    _ "${b[@]}" --map lru/global,hash/linux --key-range 400% --mix insert=50,lookup=50 --repeat 2
"${b[@]}" --map lru/global,hash/linux --key-range 400% --mix insert=50,lookup=50 --repeat 2 \
    >"$tmp/work.txt" 2>/dev/null
expect 0 '^work per op' cat "$tmp/work.txt"
expect 0 '^map +threads +evictions +nodes scanned +locks +evict/refill +allocations$' cat "$tmp/work.txt"
expect 0 '^lru/global +1 +0\.[0-9]{3} +0\.[0-9]{3} +[0-9]+\.[0-9]{3} +1\.000 +[0-9]+\.[0-9]{3}$' cat "$tmp/work.txt"
expect 0 '^ +min +0\.[0-9]{3}' cat "$tmp/work.txt"
check 'no work row for hash/linux' bash -c "! grep -A3 '^work per op' '$tmp/work.txt' | grep -q hash/linux"
check 'no work table without work' bash -c "! '${b[0]}' ${b[*]:1} 2>&1 | grep -q 'work per op'"
expect 0 ',key_range,.*,evictions_per_op,evictions_per_op_min,evictions_per_op_max,' \
    "${b[@]}" --map lru/global --key-range 400% --mix insert=50,lookup=50 --format csv
expect 0 '^stress|lru/global +ok' "$maplab" stress --map lru/global --key-range 400% --duration 0.1 --threads 2

if has_kernel; then
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
    # The kernel's own accounting of its map's memory.
    expect 0 '"bytes_per_entry":[0-9.]+,.*"memory_from":"kernel"' sed -n 2p "$tmp/k.jsonl"
    # compare: ratios to the kernel with their spread, taken within each repeat.
    # These check the layout, not the figures: a run this short on a busy
    # host can put the kernel's figure below its baseline (a negative ns/op,
    # flagged), so a figure may carry a sign.
    c=("$maplab" compare --quiet --duration 0.05 --warmup 0 --entries 1024 --run-ops 64
       --run-repeat 4 --map hash/linux --repeat 2)
    expect 0 '"side":"user".*"kernel_ratio":-?[0-9.]+,"kernel_ratio_min":-?[0-9.]+,"kernel_ratio_max"' \
        "${c[@]}" --format jsonl
    # report.py turns compare's records into report.md, spreads and ratios kept.
    mkdir "$tmp/res"
    "${c[@]}" --save "$tmp/res/results.jsonl" >"$tmp/compare.txt"
    # A row per side, a column per thread count; min and max rows under.
    expect 0 '^side +1 thread$' cat "$tmp/compare.txt"
    expect 0 '^kernel syscall +-?[0-9.]+ \(-?[0-9.]+x\)( !)?$' cat "$tmp/compare.txt"
    expect 0 '^hash/linux +-?[0-9.]+ \(-?[0-9.]+x\)( !)?$' cat "$tmp/compare.txt"
    expect 0 '^  min +-?[0-9.]+ \(-?[0-9.]+x\)$' cat "$tmp/compare.txt"
    expect 0 '^report: ' python3 "$root/harness/results/report.py" "$tmp/res"
    expect 0 '^\| 1 \| -?[0-9.]+ \(-?[0-9.]+–-?[0-9.]+\).* \| -?[0-9.]+ \(-?[0-9.]+–-?[0-9.]+\); -?[0-9.]+ \(-?[0-9.]+–-?[0-9.]+\)×' \
        cat "$tmp/res/report.md"

    # The kernel's LRU hash on an eviction workload: bench's streams at
    # bench's length, so its inserts keep evicting after the warm-up (a
    # 2^16-op loop met fewer keys than 64K entries hold: after one pass
    # every insert failed EEXIST), and its evictions counted from its size.
    lru=(--entries 65536 --key-range 400% --mix insert=50,lookup=50 --duration 0.3
         --warmup 0.2 --run-ops 256 --run-repeat 8)
    "${k[@]}" --map lru/global,lru_hash "${lru[@]}" --format jsonl --out "$tmp/kl.jsonl"
    expect 0 '^3$' bash -c "wc -l <'$tmp/kl.jsonl'"  # one kernel map: host, kernel, syscall
    expect 0 '"label":"lru_hash kernel".*"evictions_per_op":0\.[2-4]' sed -n 2p "$tmp/kl.jsonl"
    expect 0 '"label":"lru_hash syscall".*"evictions_per_op":0\.[2-4]' sed -n 3p "$tmp/kl.jsonl"
    expect 0 '^lru_hash kernel +1 .*insert [5-9][0-9]%' "${k[@]}" --map lru_hash "${lru[@]}" --no-syscall
    # Its per-CPU mode: the flags go to the kernel's map.
    expect 0 '"map":"lru_hash",.*"map_flags":2,' \
        "${k[@]}" --map lru_hash --flags no_common_lru "${lru[@]}" --no-syscall --format jsonl
    # compare on the same streams: the kernel's figures and the design's,
    # its ratio, and the work table.
    "${c[@]}" --map lru/global "${lru[@]}" --repeat 2 >"$tmp/cl.txt"
    expect 0 'keys from a range of 262144 \(400% of the entries\)' cat "$tmp/cl.txt"
    # A median may carry a flag mark (" !") on a noisy host.
    expect 0 '^kernel BPF +[0-9.]+( !)?$' cat "$tmp/cl.txt"
    expect 0 '^lru/global +[0-9.]+ \([0-9.]+x\)( !)?$' cat "$tmp/cl.txt"
    expect 0 '^kernel BPF +1 +0\.[0-9]{3} +- +- +- +-$' cat "$tmp/cl.txt"
    expect 0 '^lru/global +1 +0\.[0-9]{3} +0\.[0-9]{3}' cat "$tmp/cl.txt"
    # A design with mode flags is compared with the kernel's map in its mode
    # (lru/linux_percpu: BPF_F_NO_COMMON_LRU), beside the common mode's.
    if "$maplab" list | grep -q '^lru/linux_percpu'; then
        "${c[@]}" --map lru/global,lru/linux_percpu "${lru[@]}" --no-syscall --format jsonl \
            --out "$tmp/modes.jsonl"
        expect 0 '"label":"kernel BPF","mix".*"map_flags":0,' grep -F '"label":"kernel BPF","mix"' "$tmp/modes.jsonl"
        expect 0 '"label":"kernel BPF \+no_common_lru",.*"map_flags":2,' grep -F '"label":"kernel BPF +no_common_lru"' "$tmp/modes.jsonl"
        "${c[@]}" --map lru/global,lru/linux_percpu "${lru[@]}" --no-syscall >"$tmp/modes.txt"
        # (a sentence wrapped at 120 columns: its lines joined)
        expect 0 'lru/global to kernel BPF; lru/linux_percpu to kernel BPF \+no_common_lru;' \
            bash -c "tr '\\n' ' ' <'$tmp/modes.txt' | tr -s ' '"
    else
        echo "note: no lru/linux_percpu in this tree: the two-mode compare is not run"
    fi
fi

# The kernel's ENOTSUPP (524) by name and reason, not "Unknown error 524",
# from every command that creates a map.
enotsupp='ENOTSUPP \(not supported: .*no_prealloc.*\)$'
check 'bench: ENOTSUPP by name' one_line_error \
    "^maplab bench: lru/linux_common refuses this map \(.*flags=no_prealloc\): $enotsupp" \
    "$maplab" bench --map lru/linux_common --flags no_prealloc --quiet --duration 0.02 --warmup 0
check 'compare: ENOTSUPP by name' one_line_error \
    "^maplab compare: lru/linux_common refuses this map \(.*flags=no_prealloc\): $enotsupp" \
    "$maplab" compare --map lru/linux_common --flags no_prealloc --quiet --duration 0.02
if has_kernel; then
    check 'kbench: ENOTSUPP by name' one_line_error \
        "^maplab kbench: lru_hash kernel, 1 thread: the kernel refuses .*: $enotsupp" \
        "$maplab" kbench --map lru_hash --flags no_prealloc --quiet --duration 0.02
fi

# Every table within 120 columns, whatever the designs and threads: compare
# of every LRU design (with the kernel's sides where BPF runs here; alone
# otherwise) and bench of 5 designs at 1 and 2 threads.  Characters, not
# bytes: a mark may be multibyte.  The map's bytes carry no flag mark
# (flags are on timed figures).
fits() {
    python3 -c "
import sys
bad = [l for l in open(sys.argv[1], encoding='utf-8').read().split('\\n') if len(l) > 120]
if bad: print('    %d columns: %s' % (len(bad[0]), bad[0]))
sys.exit(bool(bad))" "$1"
}
memory_unflagged() {
    awk '/^bytes per entry of max_entries/ { on = 1; next } on && /^$/ { on = 0 }
         on && /!|⚠/ { print "    flagged memory row: " $0; bad = 1 } END { exit bad }' "$1"
}
lru_all=$("$maplab" list | grep -oE '^lru/[^ ]+' | paste -sd, -)
"$maplab" compare --quiet --duration 0.02 --warmup 0 --repeat 1 --entries 4096 --key-range 400% \
    --mix insert=50,lookup=50 --threads 1,2 --run-ops 64 --run-repeat 4 --map "$lru_all" \
    >"$tmp/wide.txt" 2>/dev/null
expect 0 '^lru/global +[0-9.]+' cat "$tmp/wide.txt"
check 'compare of every LRU design: no line over 120 columns' fits "$tmp/wide.txt"
check 'compare: no flag mark on the bytes per entry' memory_unflagged "$tmp/wide.txt"
"${b[@]}" --map hash/linux,hash/rculfhash,hash/cow,hash/ck,hash/seqlock_buckets --threads 1,2 \
    --mix lookup=50,insert=25,delete=25 --prefill 90 --duration 0.02 --repeat 2 >"$tmp/wide_b.txt"
expect 0 '^hash/seqlock_buckets +2 ' cat "$tmp/wide_b.txt"
check 'bench of 5 designs at 1 and 2 threads: no line over 120 columns' fits "$tmp/wide_b.txt"

# --hugepages (docs/bench.md, "Huge pages"): refused in one line where the
# kernel gives no transparent huge pages ($MAPLAB_THP_FILE stands for the
# kernel's file); where it does, the run says so, its records carry
# "hugepages":true, and the host record the kernel's setting.
echo 'always madvise [never]' >"$tmp/thp-never"
check '--hugepages, THP set to never: one line, exit 2' one_line_error \
    "^maplab bench: --hugepages: this kernel gives no transparent huge pages \($tmp/thp-never: never\)$" \
    env MAPLAB_THP_FILE="$tmp/thp-never" "${b[@]}" --map hash/linux --hugepages
check '--hugepages, no THP at all: one line, exit 2' one_line_error \
    '^maplab compare: --hugepages: this kernel gives no transparent huge pages \(.*: not there\)$' \
    env MAPLAB_THP_FILE=/nonexistent "$maplab" compare --map hash/linux --hugepages
echo 'always [madvise] never' >"$tmp/thp-madvise"
jsonl=$(env MAPLAB_THP_FILE="$tmp/thp-madvise" "${b[@]}" --map hash/linux --hugepages \
    --format jsonl --duration 0.02 2>&1)
check '--hugepages: the records say so' grep -q '"hugepages":true' <<<"$jsonl"
check '--hugepages: the host record has the setting' grep -q '"thp":"madvise"' <<<"$jsonl"
jsonl=$("${b[@]}" --map hash/linux --format jsonl --duration 0.02 2>&1)
check 'without --hugepages: no such field' bash -c '! grep -q "\"hugepages\""' <<<"$jsonl"
out=$(env MAPLAB_THP_FILE="$tmp/thp-madvise" "${b[@]}" --map hash/linux --hugepages --duration 0.02 2>&1)
check '--hugepages: the table says so' grep -q '^huge pages: transparent huge pages advised' <<<"$out"

finish
