#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Regenerates the trie pictures of docs/lpm_trie.md: each trace below is
# replayed on lpm_trie/linux and drawn by `maplab dump --format dot`, then
# Graphviz's dot.  Run from the repository root:
#
#   docs/img/lpm/make.sh [MAPLAB]        (MAPLAB: build/cli/maplab)
set -euo pipefail
maplab=${1:-build/cli/maplab}
out=docs/img/lpm
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

map='map lpm_trie key_size=8 value_size=4 max_entries=16 flags=no_prealloc'
# The kernel's own example: 192.168.0.0/16, then .0.0/24 and .128.0/24
# below it, then .1.0/24, which parts from .0.0/24 at bit 23: a fork.
example="$map
update 10000000c0a80000 01000000
update 18000000c0a80000 02000000
update 18000000c0a88000 03000000
update 18000000c0a80100 05000000"

draw() { # name, trace text
    printf '%s\n' "$2" >"$tmp/$1.trace"
    "$maplab" dump --map lpm_trie/linux --trace "$tmp/$1.trace" --format dot \
        >"$out/$1.dot"
    dot -Tsvg "$out/$1.dot" -o "$out/$1.svg"
    echo "$out/$1.svg"
}

draw example "$example"
# 192.168.0.0/22 is a prefix of the fork's /23: it goes above it.
draw insert_above "$example
update 16000000c0a80000 06000000"
# 192.168.0.0/23 is the fork's very prefix: the fork becomes that key.
draw fork_becomes_key "$example
update 17000000c0a80000 07000000"
# Deleting the /16, which has two children, leaves it as a fork.
draw delete_two_children "$example
delete 10000000c0a80000"
# Deleting .1.0/24, a leaf under a fork: the fork goes too.
draw delete_leaf_under_fork "$example
delete 18000000c0a80100"
# The same four prefixes in lpm_trie/multibit: nodes of 6 bits, lone prefixes
# as leaves.
printf '%s\n' "$example" >"$tmp/fast.trace"
"$maplab" dump --map lpm_trie/multibit --trace "$tmp/fast.trace" --format dot \
    >"$out/multibit_example.dot"
dot -Tsvg "$out/multibit_example.dot" -o "$out/multibit_example.svg"
echo "$out/multibit_example.svg"
# lpm_trie/lctrie (level-compressed, after fib_trie) on a /16 with twelve of
# its /24s below it, one /32 under a /24 and a /8 apart: the /24s share a
# node of several bits, the /16 and 10.0.0.0/24 one leaf's chain.
lctrie="$map
update 100000000a000000 01000000"
for i in $(seq 0 11); do
    lctrie+=$(printf '\nupdate 180000000a00%02x00 %02x000000' "$i" $((i + 2)))
done
lctrie+="
update 200000000a000305 30000000
update 08000000c0000000 31000000"
printf '%s\n' "$lctrie" >"$tmp/lctrie.trace"
"$maplab" dump --map lpm_trie/lctrie --trace "$tmp/lctrie.trace" --format dot \
    >"$out/lctrie_example.dot"
dot -Tsvg "$out/lctrie_example.dot" -o "$out/lctrie_example.svg"
echo "$out/lctrie_example.svg"
