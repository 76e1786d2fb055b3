#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# stress.  usage: test_cli_stress.sh MAPLAB SOURCE_ROOT
maplab=$1 root=$2
. "$(dirname "$0")/lib.sh"

# stress: a passing run and its bad input.
expect 0 'hash/linux +ok .*keys at the end' "$maplab" stress --map hash/linux --threads 4 --duration 0.2
expect 0 'hash/rculfhash +ok' "$maplab" stress --map hash/rculfhash --threads 3 --ops 2000 --rcu qsbr
expect 2 'stress needs value_size >= 8' "$maplab" stress --value-size 4
expect 2 "no design 'x'" "$maplab" stress --map x
expect 2 'do not fit in 1-byte hash keys' "$maplab" stress --key-size 1 --key-range 1000 --duration 0.1


finish
