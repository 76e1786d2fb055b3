#!/bin/bash
# The figures behind docs/hash.md ("Against rte_hash") and docs/lpm_trie.md
# ("Against rte_fib"): maplab's own designs beside DPDK's tables, each
# figure from one interleaved compare (sides in turn, 3 repeats, medians
# with min and max in the records), the memory limit probe beside the
# lookups.  Every lookup row has the DPDK table used plainly beside its
# adapter (docs/bench.md, "Plain DPDK tables"): the goals' ratios are
# against it.  Neither side gets huge pages (jemalloc and DPDK's --no-huge
# heap both sit on 4 KiB pages).
#
# usage: docs/data/dpdk_goals.sh [OUT_DIR]     (default docs/data/dpdk_goals)
#   MAPLAB=path/to/maplab to run another binary; HUGEPAGES=1 to run every
#   row with --hugepages (reserve huge pages for DPDK's heap first:
#   sysctl vm.nr_hugepages=1024; docs/bench.md, "Huge pages"), into its own
#   OUT_DIR (docs/data/dpdk_goals_hugepages is the one the docs read); ONLY=lpm for the LPM
#   figures alone (about 6 minutes), ONLY=hash for the hash figures alone
#   (about 2); the other family's rows already in OUT_DIR are kept.  About
#   8 minutes on 2 cores in all (2026-12-06, this lab's VM), and 1.2 GiB of
#   memory for lpm_trie/dpdk at 1M prefixes.  Needs root for
#   the kernel sides (without BPF they are left out, and said so).
set -euo pipefail
M=${MAPLAB:-./maplab}
OUT=${1:-docs/data/dpdk_goals}
mkdir -p "$OUT"
J=$OUT/records.jsonl
T=$OUT/tables.txt
# The records and the tables hold the hash rows first, then the LPM rows
# from the first line that names an LPM map (in the records, from the host
# record just before it).  ONLY=F keeps the other family's part of each
# file and runs F's rows again: hash rows go in front of the LPM part,
# which comes back after them; LPM rows after the hash part.
case ${ONLY:=all} in all|hash|lpm) ;;
*) echo "dpdk_goals.sh: ONLY is all, hash or lpm, not '$ONLY'" >&2; exit 2 ;;
esac
if [[ $ONLY == all ]]; then
	: > "$J"
	: > "$T"
else
	for f in "$J" "$T"; do
		touch "$f"
		awk -v hash="$f.hash" -v lpm="$f.lpm" '
			!in_lpm && /"record":"host"/ { held = $0; next }
			!in_lpm && index($0, "lpm_trie") { in_lpm = 1 }
			{ out = in_lpm ? lpm : hash
			  if (held != "") print held > out
			  held = ""; print > out }' "$f"
		touch "$f.hash" "$f.lpm"
		if [[ $ONLY == lpm ]]; then
			mv "$f.hash" "$f"
			rm "$f.lpm"
		else
			rm "$f.hash"
			: > "$f"
		fi
	done
fi
R=(--repeat 3 --duration 0.3 --no-syscall --quiet --save "$J")
[[ ${HUGEPAGES:-0} == 1 ]] && R+=(--hugepages)
run() {
	echo "== maplab $*" | tee -a "$T" >&2
	"$M" "$@" "${R[@]}" >> "$T"
	echo >> "$T"
}

if [[ $ONLY != lpm ]]; then
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

if [[ $ONLY != hash ]]; then
# LPM, IPv4 (key_size 8): lookups single and batched, BGP-shaped prefixes,
# random /32s and the whole IPv4 Internet table, with the probe over
# lpm_trie/multibit's footprint
for p in bgp random32 internet; do
	sizes="1024 65536 1048576"
	[[ $p == internet ]] && sizes=901899
	for e in $sizes; do
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
# each goal's verdict from the records (the tables too: dpdk_goals_tables.py)
python3 "$(dirname "$0")/dpdk_goals_tables.py" "$J" | sed -n '/^goals:/,$p' >&2
