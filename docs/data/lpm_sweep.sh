#!/bin/bash
# The LPM sweep for docs/lpm_trie.md: every LPM design against the kernel's trie.
set -u
B=${MAPLAB:-build/cli/maplab}
O=/tmp/sweep
M=lpm_trie/linux,lpm_trie/prefix_hash,lpm_trie/multibit
C=(--repeat 5 --duration 0.5 --warmup 0.2 --quiet --save $O/sweep.jsonl)
touch /tmp/bench_busy
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
rm -f /tmp/bench_busy
echo done
