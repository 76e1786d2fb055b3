#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# maplab sim.  usage: test_cli_sim.sh MAPLAB SOURCE_ROOT
maplab=$1 root=$2
. "$(dirname "$0")/lib.sh"
traces=$root/examples/traces

# Usage errors: one line, exit 2.
check "no --trace" one_line_error '--trace is required' "$maplab" sim --policy opt --sizes 10
check "no --policy" one_line_error '--policy is required' "$maplab" sim --trace loop:keys=5 --sizes 10
check "no --sizes" one_line_error '--sizes is required' "$maplab" sim --trace loop:keys=5 --policy opt
check "unknown policy" one_line_error "'lru/nope' is no policy" \
    "$maplab" sim --trace loop:keys=5 --policy lru/nope --sizes 2
check "a hash design is no cache" one_line_error "'hash/linux' is not an LRU hash design" \
    "$maplab" sim --trace loop:keys=5 --policy hash/linux --sizes 2
check "bad size" one_line_error "--sizes wants entries" \
    "$maplab" sim --trace loop:keys=5 --policy opt --sizes 2,0x
check "bad fraction" one_line_error "'0.0' is not a fraction" \
    "$maplab" sim --trace loop:keys=5 --policy opt --sizes 0.0
check "bad split" one_line_error "--split wants rr or hash" \
    "$maplab" sim --trace loop:keys=5 --policy opt --sizes 2 --split mod
check "big key" one_line_error "--key-size: sim's keys are the 8-byte ids" \
    "$maplab" sim --trace loop:keys=5 --policy opt --sizes 2 --key-size 16
check "a misspelt generator" one_line_error "cannot open zipff:keys=5.*nor is it a generator" \
    "$maplab" sim --trace zipff:keys=5 --policy opt --sizes 2
check "bad generator parameter" one_line_error "zipf: no parameter 'colour'" \
    "$maplab" sim --trace zipf:colour=1 --policy opt --sizes 2

# cachesim's conventions (docs/sim.md): libCacheSim's policy names, in any
# case, run the design of the same policy, and the report says so, once.
for pair in lru=lru/global FIFO=lru/fifo Clock=lru/clock fifo-reinsertion=lru/clock \
    second-chance=lru/clock SIEVE=lru/sieve s3fifo=lru/s3fifo S3-FIFO=lru/s3fifo \
    s3-fifo=lru/s3fifo Belady=opt optimal=opt LRU/Global=lru/global OPT=opt; do
    alias=${pair%%=*} policy=${pair#*=}
    out=$("$maplab" sim --trace "$traces/loop.txt" --policy "$alias" --sizes 10 --no-stray 2>&1)
    check "$alias runs $policy" grep -qE "^$policy +10 +1 +12000 " <<<"$out"
done
out=$("$maplab" sim --trace "$traces/zipf.txt" --policy lru,FIFO,Clock,sieve,s3fifo,lru --sizes 100 --no-stray)
check "five aliases: five designs and lru twice" \
    test "$(grep -cE '^lru/(global|fifo|clock|sieve|s3fifo) +100 ' <<<"$out")" -eq 6
check "the aliases said once, under the trace's line" grep -q '^policies: lru = lru/global, fifo = lru/fifo, clock = lru/clock, sieve = lru/sieve, s3fifo = lru/s3fifo ' \
    <(sed -n 2p <<<"$out")
check "lru = lru/global said once" test "$(grep -o 'lru = lru/global' <<<"$out" | wc -l)" -eq 1
check "an alias's golden misses are the design's" grep -qE '^lru/global +100 +1 +20000 +9985 ' <<<"$out"
check "the names stay lowercase in jsonl" bash -c "'$maplab' sim --trace '$traces/loop.txt' --policy Clock --sizes 10 --format jsonl 2>/dev/null | grep -q '\"policy\":\"lru/clock\"'"
expect 0 '^maplab sim: note: policies: clock = lru/clock' \
    "$maplab" sim --trace "$traces/loop.txt" --policy Clock --sizes 10 --format csv
check "an unknown name: did you mean" one_line_error "'lur' is no policy; did you mean lru \(lru/global\)\?" \
    "$maplab" sim --trace loop:keys=5 --policy lur --sizes 2
check "a misspelt design: did you mean" one_line_error "'lru/sive' is no policy; did you mean lru/sieve\?" \
    "$maplab" sim --trace loop:keys=5 --policy lru/sive --sizes 2
check "a misspelt s3-fifo" one_line_error "did you mean s3-fifo \(lru/s3fifo\)\?" \
    "$maplab" sim --trace loop:keys=5 --policy S3-FIF0 --sizes 2
# --sizes auto (and 0): cachesim's fractions of the distinct keys, rounded,
# those under 10 entries dropped.
distinct=$(grep -v '^#' "$traces/zipf.txt" | awk 'NF {print $1}' | sort -u | wc -l)
want=$(awk -v d="$distinct" 'BEGIN { n = split("0.001 0.003 0.01 0.03 0.1 0.2 0.4 0.8", f, " ");
    for (i = 1; i <= n; i++) { e = int(f[i] * d + 0.5); if (e >= 10 && e != last) { s = s sep e; sep = ","; last = e } }
    print s }')
for auto in auto AUTO 0; do
    out=$("$maplab" sim --trace "$traces/zipf.txt" --policy opt --sizes $auto)
    got=$(awk '$1 == "opt" {printf "%s%s", sep, $2; sep = ","}' <<<"$out")
    check "--sizes $auto on $distinct distinct keys: $want (got $got)" test -n "$want" -a "$got" = "$want"
    check "--sizes $auto said in the report" grep -q "^sizes auto: $want entries, cachesim's fractions 0.01,0.03,.* of the $distinct distinct keys" <<<"$out"
done
check "auto with too few keys" one_line_error "--sizes auto: the trace's 5 distinct keys are too few" \
    "$maplab" sim --trace loop:keys=5 --policy opt --sizes auto
check "auto in a list" one_line_error "--sizes: auto stands alone" \
    "$maplab" sim --trace loop:keys=5 --policy opt --sizes 2,auto
# cachesim's sizes in bytes: refused, with what a BPF map counts.
for size in 100MB 1GiB 10KB 4k 2g; do
    check "--sizes $size refused" one_line_error "'$size' is bytes, as cachesim counts, but a BPF map counts entries .* give entries .* fractions" \
        "$maplab" sim --trace loop:keys=5 --policy opt --sizes 10,$size
done

# Bad trace files: the file and the line or record, exit 2.
head -c 50 "$traces/zipf_sizes.oracleGeneral" >"$tmp/cut.oracleGeneral"
check "truncated oracleGeneral" one_line_error 'cut.oracleGeneral: 50 bytes .* record 3 is cut short' \
    "$maplab" sim --trace "$tmp/cut.oracleGeneral" --policy opt --sizes 2
printf '1\n2\nx7\n' >"$tmp/bad.txt"
check "non-numeric key" one_line_error "bad.txt:3: key 'x7' is not a number" \
    "$maplab" sim --trace "$tmp/bad.txt" --policy opt --sizes 2
: >"$tmp/empty.txt"
check "empty trace" one_line_error 'empty.txt: no requests' \
    "$maplab" sim --trace "$tmp/empty.txt" --policy opt --sizes 2
head -c 10 "$traces/zipf_sizes.oracleGeneral" >"$tmp/ten.oracleGeneral"
check "oracleGeneral shorter than a record" one_line_error 'ten.oracleGeneral: 10 bytes .* record 1 is cut short' \
    "$maplab" sim --trace "$tmp/ten.oracleGeneral" --policy opt --sizes 2
: >"$tmp/empty.oracleGeneral"
check "empty oracleGeneral" one_line_error 'empty.oracleGeneral: no requests' \
    "$maplab" sim --trace "$tmp/empty.oracleGeneral" --policy opt --sizes 2
printf '# only a comment\n\n' >"$tmp/blank.txt"
check "no key in the text" one_line_error 'blank.txt: no requests' \
    "$maplab" sim --trace "$tmp/blank.txt" --policy opt --sizes 2
printf '1\n0x1f\n0xZZ\n' >"$tmp/hex.txt"
check "bad hex key" one_line_error "hex.txt:3: key '0xZZ' is not a number" \
    "$maplab" sim --trace "$tmp/hex.txt" --policy opt --sizes 2
printf '1\n-5\n' >"$tmp/neg.txt"
check "negative key" one_line_error "neg.txt:2: key '-5' is not a number" \
    "$maplab" sim --trace "$tmp/neg.txt" --policy opt --sizes 2
printf '1\n99999999999999999999999\n' >"$tmp/big.txt"
check "key beyond 64 bits" one_line_error "big.txt:2: key '99999999999999999999999'" \
    "$maplab" sim --trace "$tmp/big.txt" --policy opt --sizes 2
printf 'ts,key\n1,5\n2,zz\n' >"$tmp/bad.csv"
check "non-numeric csv key" one_line_error "bad.csv:3: key 'zz' is not a number" \
    "$maplab" sim --trace "$tmp/bad.csv" --csv-column key --policy opt --sizes 2
check "a directory" one_line_error "cannot read $tmp: Is a directory" \
    "$maplab" sim --trace "$tmp" --trace-format txt --policy opt --sizes 2

# A run: the table names the trace, every policy, and a note for a size
# beyond the distinct keys.
expect 0 '^lru/global +10 +1 +12000 +12000 +1\.0000' \
    "$maplab" sim --trace "$traces/loop.txt" --policy lru/global,opt --sizes 10
expect 0 'size 5000 is more than the trace.s 1200 distinct keys' \
    "$maplab" sim --trace "$traces/loop.txt" --policy lru/global --sizes 5000
out=$("$maplab" sim --trace "$traces/loop.txt" --policy lru/global --sizes 5000 2>/dev/null)
check "a big cache misses only first requests" grep -qE '^lru/global +5000 +1 +12000 +1200 ' <<<"$out"
err=$("$maplab" sim --trace "$traces/loop.txt" --policy opt --sizes 2.0 2>&1 >/dev/null)
check "a fraction above 1: allowed, and said on stderr" grep -q 'more than the trace.s 1200 distinct keys' <<<"$err"

# Formats: jsonl (one record per point, the host in its columns: no host
# record, one shape for pandas), csv.
"$maplab" sim --trace "$traces/zipf.txt" --policy lru/global,lru/clock,opt \
    --sizes 100,0.1 --format jsonl --out "$tmp/r.jsonl"
check "jsonl: 6 points, no host record" test "$(wc -l <"$tmp/r.jsonl")" -eq 6 \
    -a "$(grep -c '^{"record":"sim",' "$tmp/r.jsonl")" -eq 6
check "jsonl: the host in each row" grep -q '"repeat":0,"repeats":1,"cpus":1,"serial":false,"ids_hashed_from_strings":false,"id_collisions":0,"host_hostname":' "$tmp/r.jsonl"
check "jsonl: golden lru/global" grep -q '"policy":"lru/global","entries":100,.*"misses":9985,' "$tmp/r.jsonl"
check "jsonl: a fraction of the distinct keys" grep -q '"distinct_keys":1803,.*"entries":180,' "$tmp/r.jsonl"
check "jsonl parses" python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$tmp/r.jsonl"
expect 0 '^zipf.txt,txt,20000,1803,8,0,0,opt,100,1,rr,20000,6229,' \
    "$maplab" sim --trace "$traces/zipf.txt" --policy opt --sizes 100 --format csv
# The qsbr flavour replays the same (workers report quiescent states).
expect 0 '^lru/global +100 +1 +20000 +9985 ' \
    "$maplab" sim --trace "$traces/zipf.txt" --policy lru/global --sizes 100 --rcu qsbr
# --save appends jsonl
"$maplab" sim --trace "$traces/loop.txt" --policy opt --sizes 10 --save "$tmp/s.jsonl" >/dev/null
"$maplab" sim --trace "$traces/loop.txt" --policy opt --sizes 10 --save "$tmp/s.jsonl" >/dev/null
check "--save appends" test "$(grep -c '"record":"sim"' "$tmp/s.jsonl")" -eq 2

# --repeat N: every point N times, the points in turn within each repeat.
# csv and jsonl a row per repeat, numbered 0 to N-1, every row the same
# fields under one header (pandas loads them as they are: docs/sim.md);
# the table a line per point, medians with Mreq/s's min-max.
for bad in 0 abc 101 -1; do
    check "--repeat $bad refused" one_line_error "--repeat wants a whole number from 1 to 100" \
        "$maplab" sim --trace loop:keys=5 --policy opt --sizes 2 --repeat $bad
done
"$maplab" sim --trace "$traces/zipf.txt" --policy lru/global,lru/clock,opt --sizes 100,200 \
    --threads 1,2 --repeat 3 --format csv --out "$tmp/rep.csv" 2>"$tmp/rep.err"
"$maplab" sim --trace "$traces/zipf.txt" --policy lru/global,lru/clock,opt --sizes 100,200 \
    --threads 1,2 --repeat 3 --format jsonl --out "$tmp/rep.jsonl" 2>>"$tmp/rep.err"
check "--repeat 3: nothing on stderr" test ! -s "$tmp/rep.err"
# 2 designs x 2 sizes x 2 thread counts + opt x 2 sizes (one thread) = 10
# points, 3 rows each.
shape=$(python3 - "$tmp/rep.csv" "$tmp/rep.jsonl" <<'PY'
import collections, csv, json, sys
with open(sys.argv[1], newline="") as f:
    lines = f.read().splitlines()
rows = list(csv.reader(lines))
head = rows[0]
ok = [head[:3] == ["trace", "format", "requests_total"], "repeat" in head, "repeats" in head,
      all(len(r) == len(head) for r in rows[1:]),
      sum(1 for line in lines if line.startswith("trace,")) == 1,
      not any(line.startswith(("#", "host")) for line in lines)]
recs = list(csv.DictReader(lines))
per = collections.Counter((r["policy"], r["entries"], r["threads"]) for r in recs)
ok += [len(recs) == 30, len(per) == 10, set(per.values()) == {3},
       all(sorted(int(r["repeat"]) for r in recs if (r["policy"], r["entries"], r["threads"]) == k)
           == [0, 1, 2] for k in per),
       all(r["repeats"] == "3" for r in recs)]
js = [json.loads(line) for line in open(sys.argv[2])]
ok += [len(js) == 30, len({tuple(j) for j in js}) == 1,
       [k for k in js[0] if k != "record"] == head,
       all(j["record"] == "sim" for j in js),
       sorted(j["repeat"] for j in js) == sorted([0, 1, 2] * 10),
       # the repeats outermost: every point once before the next repeat
       [j["repeat"] for j in js] == sorted(j["repeat"] for j in js)]
print(" ".join("ok" if x else f"FAIL{i}" for i, x in enumerate(ok)))
PY
)
check "csv and jsonl: a row per repeat, rectangular, one header ($shape)" \
    bash -c "! grep -q FAIL <<<'$shape' && test -n '$shape'"
out=$("$maplab" sim --trace "$traces/zipf.txt" --policy lru/global,opt --sizes 100 --repeat 3)
check "table: a line per point" test "$(grep -cE '^(lru/global|opt) +100 ' <<<"$out")" -eq 2
check "table: the repeats said" grep -q '^3 repeats, every point in turn within each: each figure is the median' <<<"$out"
check "table: Mreq/s's min-max" grep -qE '^lru/global +100 +1 +20000 +9985 +0\.4993 .* [0-9.]+ +[0-9.]+-[0-9.]+ ' <<<"$out"
check "table: no min-max for one run" bash -c "! '$maplab' sim --trace '$traces/loop.txt' --policy opt --sizes 10 | grep -q min-max"
# The lab's log keeps its host record before the rows.
"$maplab" sim --trace "$traces/loop.txt" --policy opt --sizes 10 --repeat 2 --save "$tmp/rs.jsonl" >/dev/null
check "--save with repeats: the host record, then a row per repeat" \
    test "$(head -1 "$tmp/rs.jsonl" | grep -c '"record":"host"')" -eq 1 -a \
    "$(grep -c '"record":"sim"' "$tmp/rs.jsonl")" -eq 2

# The byte miss ratio where the trace has sizes; --warmup-requests.
expect 0 'bytemiss' "$maplab" sim --trace "$traces/zipf_sizes.oracleGeneral" --policy opt --sizes 100
expect 0 '^"zipf:keys=100,requests=1000",generated,' \
    "$maplab" sim --trace zipf:keys=100,requests=1000 --policy opt --sizes 10 --format csv
expect 0 '^opt +100 +1 +15000 ' \
    "$maplab" sim --trace "$traces/zipf.txt" --policy opt --sizes 100 --warmup-requests 5000
# bench's --warmup is seconds: sim points to its own, counted in requests.
check 'sim --warmup points to --warmup-requests' one_line_error \
    "^maplab sim: --warmup is bench's \\(seconds\\); sim's warm-up counts requests: --warmup-requests N$" \
    "$maplab" sim --trace "$traces/zipf.txt" --policy opt --sizes 100 --warmup 5000
# A short key: hashed, and said.
expect 0 'ids hashed down' "$maplab" sim --trace "$traces/zipf.txt" --policy opt --sizes 10 --key-size 4

# csv traces by column name; .zst through libzstd (where zstd is here).
printf 'ts,key\n1,5\n2,6\n3,5\n' >"$tmp/k.csv"
expect 0 '^opt +1 +1 +3 +3 ' "$maplab" sim --trace "$tmp/k.csv" --csv-column key --policy opt --sizes 1
expect 0 '^opt +2 +1 +3 +2 ' "$maplab" sim --trace "$tmp/k.csv" --csv-column key --policy opt --sizes 2
if command -v zstd >/dev/null; then
    zstd -q -c "$traces/zipf.txt" >"$tmp/zipf.txt.zst"
    a=$("$maplab" sim --trace "$tmp/zipf.txt.zst" --policy opt --sizes 100 --format csv | tail -1 | cut -d, -f13)
    check "a .zst trace reads as the plain one" test "$a" = 6229
    head -c 50 "$traces/zipf_sizes.oracleGeneral" | zstd -q -c >"$tmp/cut.oracleGeneral.zst"
    check "truncated oracleGeneral in zstd" one_line_error 'cut.oracleGeneral.zst: 50 bytes .* record 3 is cut short' \
        "$maplab" sim --trace "$tmp/cut.oracleGeneral.zst" --policy opt --sizes 2
    printf 'garbage' >"$tmp/g.txt.zst"
    check "not zstd" one_line_error 'g.txt.zst: not a zstd stream' \
        "$maplab" sim --trace "$tmp/g.txt.zst" --policy opt --sizes 2
fi

# --write-trace: an oracleGeneral file that reads back the same.
"$maplab" sim --trace zipf:keys=100,requests=1000,size=50 --write-trace "$tmp/w.oracleGeneral"
check "written oracleGeneral: 24 bytes a record" test "$(stat -c %s "$tmp/w.oracleGeneral")" -eq 24000
a=$("$maplab" sim --trace zipf:keys=100,requests=1000 --policy lru/global --sizes 10 --format jsonl | grep -o '"misses":[0-9]*')
b=$("$maplab" sim --trace "$tmp/w.oracleGeneral" --policy lru/global --sizes 10 --format jsonl | grep -o '"misses":[0-9]*')
check "a written trace gives the same misses" test -n "$a" -a "$a" = "$b"

# Threads, both splits: every request counted.
if [ "$(nproc)" -ge 2 ]; then
    for split in rr hash; do
        expect 0 '^lru/linux_common +400 +2 +20000 ' \
            "$maplab" sim --trace "$traces/hotset.txt" --policy lru/linux_common --sizes 400 --threads 2 --split $split
    done
fi

# Plots: sim writes its records into the folder and runs the one plotter
# (harness/results/report.py, matplotlib) with /usr/bin/python3 where it
# exists ($MAPLAB_PYTHON first): a PNG 1200 px wide and an SVG per plot;
# without matplotlib, or without python, a note and the records stay.
"$maplab" sim --trace "$traces/zipf.txt" --policy lru/global,lru/clock,opt --sizes 50,200 --threads 1,2 \
    --plot "$tmp/plots" >"$tmp/plot.out" 2>"$tmp/plot.err"
check "the records in the folder" test "$(grep -c '"record":"sim"' "$tmp/plots/results.jsonl")" -eq 10
check "the host record first" grep -q '^{"record":"host","host":{' "$tmp/plots/results.jsonl"
check "the plotter's line is not on stdout" bash -c "! grep -q plots: '$tmp/plot.out'"
check "no gnuplot leftovers" bash -c "! ls '$tmp/plots' | grep -qE '\.(dat|gp)\$'"
plot_python=${MAPLAB_PYTHON:-$( [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)}
if "$plot_python" -c 'import matplotlib' 2>/dev/null; then
    check "plots drawn" test -s "$tmp/plots/mrc.png" -a -s "$tmp/plots/mrc.svg" \
        -a -s "$tmp/plots/pareto-200.svg" -a -s "$tmp/plots/pareto-50.png"
    # The PNG's width: bytes 16-19 of its header, big-endian.
    width=$(od -An -tu1 -j16 -N4 "$tmp/plots/mrc.png" | awk '{print $1*16777216+$2*65536+$3*256+$4}')
    check "mrc.png about 1200 px wide (got $width)" test "$width" -ge 1150 -a "$width" -le 1250
    check "axes named" grep -q 'miss ratio' "$tmp/plots/mrc.svg"
    check "mrc: sizes on a log axis, named" grep -q 'entries (cache size, log scale)' "$tmp/plots/mrc.svg"
    check "pareto: speed axis named" grep -q 'million requests per second, 2 threads' "$tmp/plots/pareto-50.svg"
    check "pareto: opt's bound in the key" grep -q 'opt (offline bound)' "$tmp/plots/pareto-50.svg"
    check "pareto: each point named" grep -q '>lru/clock<' "$tmp/plots/pareto-50.svg"
    check "the plots' paths on stderr" grep -qE "^plots: .*$tmp/plots/mrc.png" "$tmp/plot.err"
    check "the pareto plots' paths too" grep -qE "^plots: .*$tmp/plots/pareto-200.png" "$tmp/plot.err"
    check "no complaint from the plotter" bash -c "! grep -v '^plots: ' '$tmp/plot.err' | grep -q ."
    # Every file the plotter wrote is named, SVGs too, and every name is a file.
    named=$(sed -n 's/^plots: //p' "$tmp/plot.err" | tr -d ' ' | tr ',' '\n')
    written=$(ls "$tmp/plots"/*.png "$tmp/plots"/*.svg)
    check "every plot written is named, and only those" test -n "$named" -a \
        "$(sort <<<"$named")" = "$(sort <<<"$written")"
    check "pareto: one run said" grep -q 'speed: one run a point, no spread' "$tmp/plots/pareto-50.svg"
    "$maplab" sim --trace "$traces/zipf.txt" --policy lru/global,lru/partitioned,lru/clock \
        --sizes 50,200 --repeat 3 --plot "$tmp/plots4" >/dev/null 2>"$tmp/plot4.err"
    check "pareto with repeats: the spread said" \
        grep -q 'speed: the median of 3 runs, bars from the least to the greatest' "$tmp/plots4/pareto-50.svg"
    check "mrc: curves alike at every size drawn once, named together" \
        grep -q 'lru/global = lru/partitioned at 1 thread' "$tmp/plots4/mrc.svg"
    check "mrc: no line of its own for the twin" bash -c "! grep -q '>lru/partitioned<' '$tmp/plots4/mrc.svg'"
    check "a row per repeat in the folder's records" \
        test "$(grep -c '"record":"sim"' "$tmp/plots4/results.jsonl")" -eq 18
fi
# matplotlib hidden from the plotter: it says so, sim exits 0, records kept.
mkdir -p "$tmp/nompl/matplotlib"
echo "raise ImportError('hidden by the test')" >"$tmp/nompl/matplotlib/__init__.py"
expect 0 'matplotlib is not installed \(apt-get install python3-matplotlib\): no plots' \
    env PYTHONPATH="$tmp/nompl" "$maplab" sim --trace "$traces/loop.txt" --policy opt --sizes 50 --plot "$tmp/plots2"
check "records kept without matplotlib" test -s "$tmp/plots2/results.jsonl"
check "no plots without matplotlib" bash -c "! ls '$tmp/plots2' | grep -q png"
expect 0 'no plots: /nonexistent/python3 is not installed.*run python3 .*report.py' \
    env MAPLAB_PYTHON=/nonexistent/python3 "$maplab" sim --trace "$traces/loop.txt" --policy opt \
    --sizes 50 --plot "$tmp/plots3"
check "records kept without python3" grep -q '"record":"sim"' "$tmp/plots3/results.jsonl"
expect 2 'cannot create /nonexistent/plots' "$maplab" sim --trace "$traces/loop.txt" --policy opt \
    --sizes 50 --plot /nonexistent/plots

# Every file sim writes is whole or an error (harness/common/outfile.h):
# one line that names the file and the errno's own text, exit 2, and no
# partial file (a new file removed, an append cut back).  A full disk
# without root: /dev/full, or a symlink to it; a regular file that fails:
# ulimit -f with SIGXFSZ ignored (EFBIG).
check "--out /dev/full: the errno named" one_line_error \
    '^maplab sim: /dev/full: No space left on device$' \
    "$maplab" sim --trace "$traces/loop.txt" --policy opt --sizes 10 --out /dev/full
check "stdout full: an error, not exit 0" one_line_error \
    '^maplab sim: standard output: No space left on device$' \
    bash -c '"$1" sim --trace "$2" --policy opt --sizes 10 >/dev/full' _ "$maplab" "$traces/loop.txt"
ln -s /dev/full "$tmp/full.jsonl"
check "--save onto a full disk" one_line_error \
    "^maplab sim: $tmp/full.jsonl: No space left on device\$" \
    "$maplab" sim --trace "$traces/loop.txt" --policy opt --sizes 10 --save "$tmp/full.jsonl"
check "--write-trace /dev/full: the errno's own text, not EIO" one_line_error \
    '^maplab sim: /dev/full: No space left on device$' \
    "$maplab" sim --trace zipf:keys=100,requests=1000 --write-trace /dev/full
# 2048 bytes at most per file (bash's ulimit -f counts KiB).
small_files=(bash -c 'trap "" XFSZ; ulimit -f 2; exec "$@"' _)
check "--out past the file size limit" one_line_error \
    "^maplab sim: $tmp/big.jsonl: File too large\$" \
    "${small_files[@]}" "$maplab" sim --trace "$traces/zipf.txt" --policy lru/global,lru/clock,opt \
    --sizes 100,200 --format jsonl --out "$tmp/big.jsonl"
check "--out: no partial file left" test ! -e "$tmp/big.jsonl"
"$maplab" sim --trace "$traces/loop.txt" --policy opt --sizes 10 --save "$tmp/log.jsonl" >/dev/null
cp "$tmp/log.jsonl" "$tmp/log.before"
check "--save past the file size limit" one_line_error \
    "^maplab sim: $tmp/log.jsonl: File too large\$" \
    "${small_files[@]}" "$maplab" sim --trace "$traces/loop.txt" --policy opt --sizes 10 --save "$tmp/log.jsonl"
check "--save: the append cut back, the earlier run kept" cmp -s "$tmp/log.jsonl" "$tmp/log.before"
check "--write-trace past the file size limit" one_line_error \
    "^maplab sim: $tmp/w.txt: File too large\$" \
    "${small_files[@]}" "$maplab" sim --trace zipf:keys=100,requests=1000 --write-trace "$tmp/w.txt"
check "--write-trace: no partial file left" test ! -e "$tmp/w.txt"
# An output that is the trace itself is refused: opened first, it would
# cut the trace short before it is read.
cp "$traces/loop.txt" "$tmp/self.txt"
for opt in --out --save --write-trace; do
    check "$opt the trace itself: refused" one_line_error \
        "^maplab sim: cannot write $tmp/self.txt: it is the trace itself, which sim reads after opening its outputs\$" \
        "$maplab" sim --trace "$tmp/self.txt" --policy opt --sizes 10 $opt "$tmp/self.txt"
done
check "the trace untouched" cmp -s "$tmp/self.txt" "$traces/loop.txt"
# A run that fails leaves none of its outputs (they are opened first).
check "a bad trace: one line" one_line_error "bad.txt:3: key 'x7' is not a number" \
    "$maplab" sim --trace "$tmp/bad.txt" --policy opt --sizes 2 --out "$tmp/gone.txt" --plot "$tmp/gone"
check "a bad trace: no --out file, no --plot folder left" test ! -e "$tmp/gone.txt" -a ! -e "$tmp/gone"

# Every output path is checked before any work, as bench's and compare's
# (they were checked after the whole run, whose results were lost).  The
# trace here is a FIFO whose writer never writes: a sim that read it
# first would wait for ever (timeout: exit 124).
mkfifo "$tmp/never"
exec 3<>"$tmp/never"
echo 'x' >"$tmp/a-file"
for bad in "--out /nonexistent/o|cannot write /nonexistent/o: No such file or directory" \
    "--save /nonexistent/s|cannot write /nonexistent/s: No such file or directory" \
    "--plot /nonexistent/p|--plot: cannot create /nonexistent/p: No such file or directory" \
    "--plot $tmp/a-file|--plot: cannot create $tmp/a-file: Not a directory" \
    "--write-trace /nonexistent/t|cannot write /nonexistent/t: No such file or directory"; do
    check "${bad%%|*}: refused before the trace is read" one_line_error "^maplab sim: ${bad#*|}\$" \
        timeout 10 "$maplab" sim --trace "$tmp/never" --policy opt --sizes 10 ${bad%%|*}
done
exec 3>&-

# A trace is read once: a pipe (/dev/stdin, <(...)) or a FIFO held whole
# from that one read, as the same file (it was opened twice: the second
# read of a pipe found nothing, "no requests in the trace (an empty
# file?)", and a FIFO's second open waited for ever).  Streaming one,
# which reads it again on each pass, is refused in one line.
counts() { python3 -c 'import csv,sys; print(" ".join(r["policy"] + ":" + r["requests_total"] + ":" + r["misses"] for r in csv.DictReader(sys.stdin)))'; }
seq 1 100 | sed 'p' >"$tmp/h100.txt"
want=$("$maplab" sim --trace "$tmp/h100.txt" --policy lru,opt --sizes 10 --format csv 2>/dev/null | counts)
check "the file: 200 requests ($want)" test "${want%% *}" = "lru/global:200:100"
got=$(seq 1 100 | sed 'p' | "$maplab" sim --trace /dev/stdin --policy lru,opt --sizes 10 --format csv 2>/dev/null | counts)
check "/dev/stdin from a pipe reads as the file ($got)" test "$got" = "$want"
got=$("$maplab" sim --trace <(cat "$tmp/h100.txt") --policy lru,opt --sizes 10 --format csv 2>/dev/null | counts)
check "<(cat FILE) reads as the file ($got)" test "$got" = "$want"
mkfifo "$tmp/fifo"
cat "$tmp/h100.txt" >"$tmp/fifo" &
got=$(timeout 10 "$maplab" sim --trace "$tmp/fifo" --policy lru,opt --sizes 10 --format csv 2>/dev/null | counts)
wait
check "a FIFO reads as the file, no hang ($got)" test "$got" = "$want"
check "--stream from a pipe: refused, one line" one_line_error \
    '^maplab sim: /dev/stdin is a pipe or FIFO, which can be read only once: streaming was asked for, and a streamed trace is read again on each pass, so it needs a file that can be read twice \(save the trace to a file\)$' \
    bash -c 'seq 1 100 | "$1" sim --trace /dev/stdin --policy lru --sizes 10 --stream' _ "$maplab"

# A txt or csv line holds at most 1 MiB (docs/sim.md): /dev/zero, which has
# no newline, is refused at its line 1, at once, in bounded memory (it was
# read until the machine ran out, some 200 MB a second).
as_limit=; under_asan || as_limit='ulimit -v 262144;'
for fmt in txt csv; do
    check "/dev/zero as $fmt: the line bound, at once" one_line_error \
        '^maplab sim: /dev/zero:1: the line is longer than 1 MiB, the most a txt or csv trace line may hold \(is it a text trace\?\)$' \
        bash -c "$as_limit"' exec timeout 10 "$1" sim --trace /dev/zero --trace-format "$2" --policy opt --sizes 10' \
        _ "$maplab" "$fmt"
done

# --plot into a folder it cannot write: one line, exit 2, no partial file
# (it was a 40-60 line traceback, a 0-byte PNG and exit 0).  A PNG path
# that is a symlink to /dev/full (root ignores a folder's permissions); a
# read-only folder where not root, refused before the run.
if "$plot_python" -c 'import matplotlib' 2>/dev/null; then
    mkdir "$tmp/fullplot"
    ln -s /dev/full "$tmp/fullplot/mrc.png"
    check "--plot onto a full disk: one line, exit 2" one_line_error \
        "^maplab sim: --plot: report.py: $tmp/fullplot/mrc.png: No space left on device \\(the records are in $tmp/fullplot/results.jsonl\\)\$" \
        "$maplab" sim --trace "$traces/loop.txt" --policy opt --sizes 50 --plot "$tmp/fullplot"
    check "--plot: no partial file, the records whole" test -z "$(find "$tmp/fullplot" -type f -empty)" \
        -a ! -e "$tmp/fullplot/mrc.svg" -a "$(grep -c '"record":"sim"' "$tmp/fullplot/results.jsonl")" -eq 1
fi
if ! is_root; then
    mkdir "$tmp/roplot" && chmod 555 "$tmp/roplot"
    check "--plot into a read-only folder: one line, before the run" one_line_error \
        "^maplab sim: --plot: cannot write $tmp/roplot/results.jsonl: Permission denied\$" \
        "$maplab" sim --trace "$traces/loop.txt" --policy opt --sizes 50 --plot "$tmp/roplot"
    check "--plot: nothing written in it" test -z "$(ls -A "$tmp/roplot")"
fi

# The plotter that came with maplab: beside its executable first (the
# build tree's copy, then its install: bin/../share/maplab), the source
# tree last (it was always the source tree's, by a path built in).
mkdir -p "$tmp/inst/bin" "$tmp/inst/share/maplab"
cp "$maplab" "$tmp/inst/bin/maplab"
printf 'import sys\nprint("the plotter beside maplab, on " + sys.argv[1])\n' \
    >"$tmp/inst/share/maplab/report.py"
expect 0 "^the plotter beside maplab, on $tmp/instplot\$" "$tmp/inst/bin/maplab" sim \
    --trace "$traces/loop.txt" --policy opt --sizes 50 --plot "$tmp/instplot"
# meson install (into a folder: --destdir) installs the three scripts
# where the installed maplab finds them.
build=$(dirname "$(dirname "$maplab")")
if command -v meson >/dev/null && [ -f "$build/build.ninja" ] &&
    meson install -C "$build" --destdir "$tmp/dest" --no-rebuild --quiet >"$tmp/install.out" 2>&1; then
    installed=$(find "$tmp/dest" -path '*/bin/maplab' -type f | head -1)
    data=$(find "$tmp/dest" -path '*/share/maplab' -type d | head -1)
    check "installed: report.py, plotting.py, findings.py in $data" \
        test -n "$installed" -a -f "$data/report.py" -a -f "$data/plotting.py" -a -f "$data/findings.py"
    sed -i '1i import sys; print("the installed report.py", file=sys.stderr)' "$data/report.py"
    "$installed" sim --trace "$traces/loop.txt" --policy opt --sizes 50 --plot "$tmp/destplot" \
        >/dev/null 2>"$tmp/destplot.err"
    check "the installed maplab runs the installed plotter" grep -q '^the installed report.py$' "$tmp/destplot.err"
    if "$plot_python" -c 'import matplotlib' 2>/dev/null; then
        check "the installed plotter draws, with the installed plotting.py" test -s "$tmp/destplot/mrc.png"
    fi
else
    echo "skip: meson install --destdir ($(head -c 200 "$tmp/install.out" 2>/dev/null))"
fi

# The kernel's LRU hash (root on a BPF kernel, as kbench's tests): on one
# thread it misses exactly as the faithful designs, in both modes.
if has_kernel; then
    out=$("$maplab" sim --trace "$traces/zipf.txt" --sizes 100 --format csv \
        --policy kernel,lru/linux_common,kernel:no_common_lru,lru/linux_percpu)
    m=$(python3 -c 'import csv,sys; print(" ".join(r["misses"] for r in csv.DictReader(sys.stdin)))' <<<"$out")
    check "kernel == lru/linux_common, no_common_lru == lru/linux_percpu (9041 9041 10725 10725: $m)" \
        test "$m" = "9041 9041 10725 10725"
    [ "$(nproc)" -ge 2 ] && expect 0 '^kernel +100 +2 +20000 ' \
        "$maplab" sim --trace "$traces/hotset.txt" --policy kernel --sizes 100 --threads 2 --split hash
fi

# --stream: the file read again on each pass, a chunk at a time: the same
# counts as held (a warm-up too), and opt, which needs it whole, refused.
held=$("$maplab" sim --trace "$traces/zipf_sizes.oracleGeneral" --policy lru/global,lru/s3fifo \
    --sizes 100,1000 --warmup-requests 3000 --format csv | cut -d, -f8-16,23,24)
streamed=$("$maplab" sim --trace "$traces/zipf_sizes.oracleGeneral" --policy lru/global,lru/s3fifo \
    --sizes 100,1000 --warmup-requests 3000 --format csv --stream 2>"$tmp/stream.err" | cut -d, -f8-16,23,24)
check "--stream: the held trace's counts, bytes and stray" test -n "$held" -a "$held" = "$streamed"
check "--stream says so" grep -q 'zipf_sizes.oracleGeneral: 10000 requests, streamed: read again on each pass' \
    "$tmp/stream.err"
check "--stream: opt refused" one_line_error 'policy opt needs the trace held whole, and this one is streamed' \
    "$maplab" sim --trace "$traces/zipf.txt" --policy lru,opt --sizes 100 --stream
expect 2 'is no policy' "$maplab" sim --trace "$traces/zipf.txt" --policy nosuch --sizes 100 --stream
check "--stream: a generator refused" one_line_error "a generator's trace is made in memory" \
    "$maplab" sim --trace zipf:keys=100,requests=1000 --policy lru --sizes 10 --stream

# Serial cpus (--cpus N): one thread, request i as cpu i % N (rr) or its
# key's cpu (hash); the kernel's side re-pinned per request.  The result
# depends on the trace alone: the same twice, and on 2 cpus the kernel's
# own misses.
misses_of() { python3 -c 'import csv,sys; print(" ".join(r["policy"] + "@" + r["entries"] + ":" + r["misses"] for r in csv.DictReader(sys.stdin)))'; }
expect 2 '--threads N runs N threads at once, --cpus N one thread as N cpus' \
    "$maplab" sim --trace "$traces/loop.txt" --policy lru --sizes 10 --threads 2 --cpus 2
expect 2 '--threads N runs N threads at once, --cpus N one thread as N cpus' \
    "$maplab" sim --trace "$traces/loop.txt" --policy lru --sizes 10 --cpus 2 --threads 2
expect 2 "--cpus wants whole numbers from 1 to 254 separated by commas \\(at most 16\\), got '0'" "$maplab" sim --trace "$traces/loop.txt" --policy lru --sizes 10 --cpus 0
a1=$("$maplab" sim --trace "$traces/hotset.txt" --policy lru/linux_percpu,lru/linux_common --sizes 400 \
    --cpus 2 --format csv --no-stray | misses_of)
a2=$("$maplab" sim --trace "$traces/hotset.txt" --policy lru/linux_percpu,lru/linux_common --sizes 400 \
    --cpus 2 --format csv --no-stray | misses_of)
a0=$("$maplab" sim --trace "$traces/hotset.txt" --policy lru/linux_percpu,lru/linux_common --sizes 400 \
    --cpus 1 --format csv --no-stray | misses_of)
check "serial cpus repeat exactly ($a1 / $a2)" test -n "$a1" -a "$a1" = "$a2"
check "serial cpus: 2 cpus are not 1 for the per-CPU LRU ($a1 / $a0)" test "${a1%% *}" != "${a0%% *}"
expect 0 '^lru/linux_percpu +400 +1 +2 +20000 ' "$maplab" sim --trace "$traces/hotset.txt" \
    --policy lru/linux_percpu --sizes 400 --cpus 2 --no-stray
if has_kernel && [ "$(nproc)" -ge 2 ]; then
    for split in rr hash; do
        out=$("$maplab" sim --trace "$traces/hotset.txt" --sizes 50,400 --cpus 2 --split $split \
            --format csv --no-stray --policy kernel,lru/linux_common,kernel:no_common_lru,lru/linux_percpu | misses_of)
        read -r k50 k400 c50 c400 kp50 kp400 p50 p400 <<<"$out"
        check "serial 2 cpus, split $split: kernel == lru/linux_common ($out)" \
            test "${k50##*:} ${k400##*:}" = "${c50##*:} ${c400##*:}"
        check "serial 2 cpus, split $split: no_common_lru == lru/linux_percpu ($out)" \
            test "${kp50##*:} ${kp400##*:}" = "${p50##*:} ${p400##*:}"
    done
fi

expect 0 'usage: maplab sim' "$maplab" sim --help
expect 0 "libCacheSim's names of the same policies are aliases" "$maplab" sim --help
expect 0 "auto \(or 0\): cachesim's" "$maplab" sim --help
expect 0 'sim +cache traces' "$maplab" --help

finish
