#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# maplab sim with cachesim's conventions: its csv trace parameters (-t, in
# the form its parser takes), string keys hashed to ids, and cachesim's own
# command line.  usage: test_cli_sim_cachesim.sh MAPLAB SOURCE_ROOT
maplab=$1 root=$2
. "$(dirname "$0")/lib.sh"
traces=$root/examples/traces

# A csv with a header, the key in column 2, the size in column 3, ';'
# between: keys 5 6 5 7 5 6, sizes 100 200 50.  LRU of 2 entries misses
# 5 6 7 6 (4 of 6) and 550 of 750 bytes.
printf 'ts;obj;size\n1;5;100\n2;6;200\n3;5;100\n4;7;50\n5;5;100\n6;6;200\n' >"$tmp/semi.csv"
golden='^lru/global +2 +1 +6 +4 +0\.6667 +0\.7333 '
expect 0 "$golden" "$maplab" sim --trace "$tmp/semi.csv" --policy lru/global --sizes 2 \
    -t 'obj-id-col=2,obj-size-col=3,delimiter=;,has-header=true'
expect 0 "$golden" "$maplab" sim --trace "$tmp/semi.csv" --policy lru/global --sizes 2 \
    --trace-type-params 'obj_id_col=2, obj_size_col=3, delimiter=;, header=1'
# maplab's own options, and column names, read it the same.
expect 0 "$golden" "$maplab" sim --trace "$tmp/semi.csv" --policy lru/global --sizes 2 \
    --csv-column 2 --csv-size-column 3 --csv-delimiter ';' --csv-header yes
expect 0 "$golden" "$maplab" sim --trace "$tmp/semi.csv" --policy lru/global --sizes 2 \
    --csv-column obj --csv-size-column size --csv-delimiter ';'
# A tab, as cachesim writes it (delimiter=\t), and a comma (delimiter=,
# with the pair's comma after it); the header found unasked.
tr ';' '\t' <"$tmp/semi.csv" >"$tmp/tab.csv"
expect 0 "$golden" "$maplab" sim --trace "$tmp/tab.csv" --policy lru/global --sizes 2 \
    -t 'obj-id-col=2,obj-size-col=3,delimiter=\t'
tr ';' ',' <"$tmp/semi.csv" >"$tmp/comma.csv"
expect 0 "$golden" "$maplab" sim --trace "$tmp/comma.csv" --policy lru/global --sizes 2 \
    -t 'delimiter=,,obj-id-col=2,obj-size-col=3'
expect 0 "$golden" "$maplab" sim --trace "$tmp/comma.csv" --policy lru/global --sizes 2 \
    -t 'obj-id-col=2;obj-size-col=3;delimiter=,'
expect 0 'line 1 taken as a header' "$maplab" sim --trace "$tmp/comma.csv" --policy opt \
    --sizes 2 -t obj-id-col=2
# Bad parameters: one line naming the key and the keys taken.
check "a key sim does not take" one_line_error \
    "trace parameter 'colour' is not one sim takes \(obj-id-col, obj-size-col, delimiter, has-header, obj-id-is-num, time-col\)" \
    "$maplab" sim --trace "$tmp/semi.csv" --policy opt --sizes 2 -t 'obj-id-col=2,colour=red'
check "cachesim's block-size: not for csv" one_line_error "'block-size' is not one sim takes" \
    "$maplab" sim --trace "$tmp/semi.csv" --policy opt --sizes 2 -t block-size=512
check "a column from 0" one_line_error "obj-id-col wants a column number from 1, got '0'" \
    "$maplab" sim --trace "$tmp/semi.csv" --policy opt --sizes 2 -t obj-id-col=0
check "a boolean misspelt" one_line_error "has-header wants true or false" \
    "$maplab" sim --trace "$tmp/semi.csv" --policy opt --sizes 2 -t has-header=maybe
check "a delimiter of two" one_line_error "delimiter wants one character" \
    "$maplab" sim --trace "$tmp/semi.csv" --policy opt --sizes 2 -t 'delimiter=ab'
check "a size that is no number" one_line_error "semi.csv:1: size 'obj' is not a number" \
    "$maplab" sim --trace "$tmp/semi.csv" --policy opt --sizes 2 -t 'obj-id-col=3,obj-size-col=2,delimiter=;,has-header=false'
check "--csv-delimiter of two" one_line_error "--csv-delimiter wants one character" \
    "$maplab" sim --trace "$tmp/semi.csv" --policy opt --sizes 2 --csv-delimiter ab

# String keys, as in Twitter's traces: hashed with xxh64, said, no
# collisions among these; keys user:1 user:2 user:1 user:3 user:2.
printf 'key,size\nuser:1,10\nuser:2,20\nuser:1,10\nuser:3,5\nuser:2,20\n' >"$tmp/tw.csv"
out=$("$maplab" sim --trace "$tmp/tw.csv" --policy lru,opt --sizes 2 --csv-size-column 2 2>"$tmp/err")
check "string keys: the golden lru" grep -qE '^lru/global +2 +1 +5 +4 +0\.8000 +0\.8462 ' <<<"$out"
check "string keys said in the table's head" \
    grep -q '^keys: strings, hashed to 8-byte ids with xxh64: 0 collisions' <<<"$out"
check "string keys said on stderr" grep -q "keys are strings ('user:1' on line 2)" "$tmp/err"
expect 0 '"ids_hashed_from_strings":true,"id_collisions":0' \
    "$maplab" sim --trace "$tmp/tw.csv" --policy opt --sizes 2 --format jsonl
expect 0 '"ids_hashed_from_strings":false,"id_collisions":0' \
    "$maplab" sim --trace "$traces/zipf.txt" --policy opt --sizes 2 --format jsonl
expect 0 '^tw\.csv,csv,5,3,.*,1,0,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*$' \
    "$maplab" sim --trace "$tmp/tw.csv" --policy opt --sizes 2 --format csv
# obj-id-is-num=true (--id-type number) refuses them, and a string after
# numbers is refused with the way out.
check "obj-id-is-num=true refuses strings" one_line_error "tw.csv:2: key 'user:1' is not a number .*obj-id-is-num=false" \
    "$maplab" sim --trace "$tmp/tw.csv" --policy opt --sizes 2 -t obj-id-is-num=true
printf '1\n2\nuser:3\n' >"$tmp/mixed.txt"
check "a string after numbers" one_line_error "mixed.txt:3: key 'user:3' is not a number .*obj-id-is-num=false" \
    "$maplab" sim --trace "$tmp/mixed.txt" --policy opt --sizes 2
# ... and obj-id-is-num=false (--id-type string) hashes numbers too.
expect 0 '^keys: strings' "$maplab" sim --trace "$tmp/mixed.txt" --policy opt --sizes 2 --id-type string
expect 0 '^keys: strings' "$maplab" sim --trace "$tmp/mixed.txt" --trace-format txt --policy opt --sizes 2 \
    -t obj-id-is-num=false
# A txt of strings: hashed, the first line saying so.
printf 'alpha\nbeta\nalpha\n' >"$tmp/s.txt"
expect 0 '^opt +1 +1 +3 +3 ' "$maplab" sim --trace "$tmp/s.txt" --policy opt --sizes 1

# cachesim's command line: TRACE TYPE ALGO[,ALGO] SIZE[,SIZE] [options].
err=$("$maplab" sim "$tmp/semi.csv" csv lru 2 -t 'obj-id-col=2,obj-size-col=3,delimiter=;' \
    --ignore-obj-size 1 2>&1 >"$tmp/out")
check "cachesim's form runs" grep -qE "$golden" "$tmp/out"
check "cachesim's form: the equivalent maplab line" grep -qF \
    "maplab sim: note: cachesim's form; maplab's is: maplab sim --trace $tmp/semi.csv --trace-format csv --policy lru --sizes 2 --trace-type-params 'obj-id-col=2,obj-size-col=3,delimiter=;'" <<<"$err"
check "--ignore-obj-size: a note" grep -q "cachesim's --ignore-obj-size: a BPF map counts entries" <<<"$err"
# The line it gives runs to the same result.
line=$(sed -n "s/^maplab sim: note: cachesim's form; maplab's is: maplab //p" <<<"$err")
eval "set -- $line"
check "the equivalent line gives the same" bash -c "'$maplab' \"\$@\" 2>/dev/null | grep -qE '$golden'" _ "$@"
out=$("$maplab" sim "$traces/zipf_sizes.oracleGeneral" oracleGeneral lru,opt 100 --ignore-obj-size true 2>&1)
check "cachesim's form on oracleGeneral" grep -qE '^lru/global +100 ' <<<"$out"
check "... and its line" grep -q "maplab's is: maplab sim --trace $traces/zipf_sizes.oracleGeneral --trace-format oracleGeneral --policy lru,opt --sizes 100" <<<"$out"
expect 0 "sizes are entries here \(cachesim counts bytes unless --ignore-obj-size\)" \
    "$maplab" sim "$traces/zipf.txt" txt lru 100
expect 0 "^lru/global +100 " "$maplab" sim "$traces/zipf.txt" auto LRU 100 -v false --num-thread 4
# What maplab cannot honour: one line with the rest as maplab's command.
check "--warmup-sec refused with the equivalent line" one_line_error \
    "cachesim's --warmup-sec \(a trace here has no clock: --warmup-requests N counts requests\): no maplab equivalent; the rest is: maplab sim --trace .*zipf.txt --trace-format txt --policy lru --sizes 100$" \
    "$maplab" sim "$traces/zipf.txt" txt lru 100 --warmup-sec 3600
check "-e refused" one_line_error "cachesim's --eviction-params .* the rest is: maplab sim --trace" \
    "$maplab" sim "$traces/zipf.txt" txt s3fifo 100 -e 'n-seg=4'
check "--use-ttl true refused" one_line_error "cachesim's --use-ttl true \(sim's traces carry no TTL\)" \
    "$maplab" sim "$traces/zipf.txt" txt lru 100 --use-ttl true
check "-n refused" one_line_error "cachesim's --num-req" \
    "$maplab" sim "$traces/zipf.txt" txt lru 100 -n 1000
expect 0 "^lru/global +100 " "$maplab" sim "$traces/zipf.txt" txt lru 100 -n -1 --use-ttl false
check "a trace type sim does not read" one_line_error "cachesim's trace type lcs \(sim reads txt, csv and oracleGeneral\)" \
    "$maplab" sim "$traces/zipf.txt" lcs lru 100
check "three arguments" one_line_error "cachesim's four arguments TRACE TYPE ALGO\[,ALGO...\] SIZE\[,SIZE...\]: got 3" \
    "$maplab" sim "$traces/zipf.txt" txt lru
check "a bad -t in cachesim's form: one line" one_line_error "'colour' is not one sim takes" \
    "$maplab" sim "$tmp/semi.csv" csv lru 2 -t colour=1
check "--ignore-obj-size wants a boolean" one_line_error "cachesim's --ignore-obj-size wants true or false" \
    "$maplab" sim "$traces/zipf.txt" txt lru 100 --ignore-obj-size maybe
check "sizes in bytes: answered as ever" one_line_error "'100MB' is bytes, as cachesim counts" \
    "$maplab" sim "$traces/zipf.txt" txt lru 100MB

expect 0 "trace-type-params P +\\(or -t\\) cachesim.s csv parameters" "$maplab" sim --help

finish
