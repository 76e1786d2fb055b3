#!/bin/bash
# The figures behind docs/hash.md ("Against rte_hash") and docs/lpm_trie.md
# ("Against rte_fib"): maplab's own designs beside DPDK's tables, each
# figure from one interleaved compare (sides in turn, 3 repeats, medians
# with min and max in the records), the memory limit probe beside the
# lookups.  Neither side gets huge pages (jemalloc and DPDK's --no-huge
# heap both sit on 4 KiB pages).
#
# usage: docs/data/dpdk_goals.sh [OUT_DIR]     (default docs/data/dpdk_goals)
#   MAPLAB=path/to/maplab to run another binary; ONLY=lpm for the LPM
#   figures alone (about 7 minutes), ONLY=hash for the hash figures alone
#   (about 8); the other family's rows already in OUT_DIR are kept.  About 15 minutes on 2 cores,
#   and 1.2 GiB of memory for lpm_trie/dpdk at 1M prefixes.  Needs root for
#   the kernel sides (without BPF they are left out, and said so).
set -euo pipefail
M=${MAPLAB:-./maplab}
OUT=${1:-docs/data/dpdk_goals}
mkdir -p "$OUT"
J=$OUT/records.jsonl
T=$OUT/tables.txt
if [[ ${ONLY:-all} == hash ]]; then
	# keep the LPM rows of the last full run, to go back after the new
	# hash rows: from the first line that names an LPM map (and, in the
	# records, the host record just before it)
	for f in "$J" "$T"; do
		touch "$f"
		awk '/"record":"host"/ && !lpm { held = $0; next }
		     index($0, "lpm_trie") && !lpm { lpm = 1; if (held != "") print held }
		     lpm { print } !lpm { held = "" }' "$f" > "$f.lpm"
		: > "$f"
	done
elif [[ ${ONLY:-all} == lpm ]]; then
	# keep the hash rows of the last full run: they come first in both
	# files, up to the first line that names an LPM map (and, in the
	# records, the host record just before it)
	for f in "$J" "$T"; do
		touch "$f"
		awk 'index($0, "lpm_trie") { exit }
		     /"record":"host"/ { held = $0; next }
		     { if (held != "") print held; held = ""; print }' \
			"$f" > "$f.hash"
		mv "$f.hash" "$f"
	done
else
	: > "$J"
	: > "$T"
fi
R=(--repeat 3 --duration 0.3 --no-syscall --quiet --save "$J")
run() {
	echo "== maplab $*" | tee -a "$T" >&2
	"$M" "$@" "${R[@]}" >> "$T"
	echo >> "$T"
}

if [[ ${ONLY:-all} != lpm ]]; then
# hash, 4-byte keys, 8-byte values: lookups single and batched, with the
# memory limit probe over hash/seqlock_buckets's footprint
for e in 1024 65536 1048576; do
	for b in 1 32; do
		run compare --map hash/seqlock_buckets,hash/dpdk --entries $e \
			--batch $b --physical hash/seqlock_buckets
	done
done
# inserts and deletes (pairs on each thread's own keys, half full)
for e in 65536 1048576; do
	run compare --map hash/seqlock_buckets,hash/dpdk --entries $e \
		--prefill 50 --mix insert=50,delete=50
done
# two threads on a 90/10 mix of lookups and updates
for e in 65536 1048576; do
	run compare --map hash/seqlock_buckets,hash/dpdk --entries $e \
		--threads 2 --mix lookup=90,update=10
done
fi

if [[ ${ONLY:-all} != hash ]]; then
# LPM, IPv4 (key_size 8): lookups single and batched, BGP-shaped prefixes
# and random /32s, with the probe over lpm_trie/multibit's footprint
for p in bgp random32; do
	for e in 1024 65536 1048576; do
		for b in 1 32; do
			run compare --map lpm_trie/multibit,lpm_trie/dpdk \
				--prefixes $p --entries $e --batch $b \
				--physical lpm_trie/multibit
		done
	done
done
# updates: inserts and deletes, half full
for p in bgp random32; do
	for e in 65536 1048576; do
		run compare --map lpm_trie/linux,lpm_trie/multibit,lpm_trie/dpdk \
			--prefixes $p --entries $e --prefill 50 \
			--mix insert=50,delete=50
	done
done
else
	for f in "$J" "$T"; do
		cat "$f.lpm" >> "$f"
		rm "$f.lpm"
	done
fi
echo "records: $J; tables: $T" >&2
