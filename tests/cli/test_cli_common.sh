#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The maplab command line as a whole: help, unknown commands and options,
# exit statuses.  usage: test_cli_common.sh MAPLAB SOURCE_ROOT
maplab=$1 root=$2
. "$(dirname "$0")/lib.sh"

expect 0 'usage: maplab' "$maplab" --help
expect 2 'usage: maplab' "$maplab"
expect 2 "unknown command 'frob'" "$maplab" frob
expect 0 'hash/linux' "$maplab" list
expect 0 'usage: maplab list' "$maplab" list --help
expect 2 'unknown option' "$maplab" list --bogus
for cmd in replay validate gentrace bench stress kbench compare; do
    expect 0 "usage: maplab $cmd" "$maplab" $cmd --help
    expect 2 'unknown option' "$maplab" $cmd --bogus
done


# Output that cannot be written is an error, for every command.
expect 2 'writing the output failed' bash -c "'$maplab' list >/dev/full"

finish
