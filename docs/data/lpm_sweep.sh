#!/bin/bash
# The LPM sweep behind docs/lpm_trie.md, "Figures": every LPM design against
# the kernel's trie, lookups, updates and a 90/10 mix at 1K, 64K and 1M
# prefixes, then the tries against the hashes on 64K addresses.  Each row
# one `maplab compare` (the sides in turn, 5 repeats of 0.5 s); the tables
# are printed at the end (docs/data/lpm_sweep_tables.py).
#
# usage: docs/data/lpm_sweep.sh [RECORDS.jsonl]   (default docs/data/lpm_sweep.jsonl,
#   rewritten)  MAPLAB=path/to/maplab to run another binary.  About 12
#   minutes on 2 cores; needs root for the kernel sides (without BPF they are
#   left out, and said so).
set -euo pipefail
B=${MAPLAB:-./maplab}
J=${1:-docs/data/lpm_sweep.jsonl}
M=lpm_trie/linux,lpm_trie/prefix_hash,lpm_trie/multibit
C=(--repeat 5 --duration 0.5 --warmup 0.2 --quiet --save "$J")
mkdir -p "$(dirname "$J")"
: > "$J"
for n in 1024 65536 1048576; do
  echo "=== lookup random32 $n"; $B compare --map $M --prefixes random32 --entries $n --mix lookup=100 "${C[@]}"
done
for n in 65536 1048576; do
  echo "=== lookup bgp $n"; $B compare --map $M --prefixes bgp --entries $n --mix lookup=100 "${C[@]}"
done
echo "=== lookup ipv6 65536"; $B compare --map $M --prefixes ipv6 --entries 65536 --mix lookup=100 "${C[@]}"
for n in 1024 65536 1048576; do
  echo "=== update random32 $n"; $B compare --map $M --prefixes random32 --entries $n --mix update=100 --threads 1,2 "${C[@]}" --no-syscall
  echo "=== lookup90/update10 random32 $n"; $B compare --map $M --prefixes random32 --entries $n --mix lookup=90,update=10 --threads 1,2 "${C[@]}" --no-syscall
done
echo "=== trie vs hash update 65536"; $B compare --map $M,hash/linux,hash/cow --prefixes random32 --entries 65536 --mix update=100 "${C[@]}" --no-syscall
echo "records: $J" >&2
python3 "$(dirname "$0")/lpm_sweep_tables.py" "$J"
