#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The maplab command line as a whole: help, unknown commands and options,
# exit statuses.  usage: test_cli_common.sh MAPLAB SOURCE_ROOT PINFAIL_SHIM
maplab=$1 root=$2 pinfail=$3
. "$(dirname "$0")/lib.sh"

expect 0 'usage: maplab' "$maplab" --help
expect 2 'usage: maplab' "$maplab"
expect 2 "unknown command 'frob'" "$maplab" frob
expect 0 'hash/linux' "$maplab" list
expect 0 'usage: maplab list' "$maplab" list --help
expect 2 'unknown option' "$maplab" list --bogus
# hash/dpdk: a design where the build has DPDK; otherwise listed as
# unavailable, and a command that names it says why in one line.
if "$maplab" list | grep -qE '^hash/dpdk .*unavailable: built without DPDK'; then
    expect 2 '^maplab bench: hash/dpdk is unavailable: built without DPDK' \
        "$maplab" bench --map hash/dpdk --duration 0.01
    expect 2 'hash/dpdk is unavailable' "$maplab" stress --map hash/dpdk
else
    expect 0 '^hash/dpdk +hash +baseline: .*rte_hash' "$maplab" list
fi
if "$maplab" list | grep -qE '^lpm_trie/dpdk .*unavailable: built without DPDK'; then
    expect 2 'lpm_trie/dpdk is unavailable' "$maplab" stress --map lpm_trie/dpdk
else
    expect 0 '^lpm_trie/dpdk +lpm_trie +baseline: .*rte_fib' "$maplab" list
fi
for cmd in replay validate gentrace bench stress kbench compare; do
    expect 0 "usage: maplab $cmd" "$maplab" $cmd --help
    expect 2 'unknown option' "$maplab" $cmd --bogus
done
# --help's --map says what the command takes: a list where each design
# runs in turn (validate, bench, stress...), one design where one runs.
for cmd in replay dump; do
    expect 0 '^  --map D  ' "$maplab" $cmd --help
done
for cmd in validate bench stress compare explain; do
    expect 0 '^  --map D\[,D\.\.\.\] ' "$maplab" $cmd --help
done
# An unknown short option is refused in one line, by every command (it
# crashed with SIGSEGV: the error path took the letter for an option id).
for cmd in list replay validate gentrace bench stress kbench compare dump sim; do
    check "$cmd -x: one line" one_line_error \
        "^maplab $cmd: unknown option '-x' \\(try --help\\)$" "$maplab" $cmd -x
    check "$cmd -qx: one line" one_line_error \
        "^maplab $cmd: unknown option '-q' \\(try --help\\)$" "$maplab" $cmd -qx
done
# A long option missing its value names it.
check 'bench --entries: needs a value' one_line_error \
    "^maplab bench: --entries needs a value \\(try --help\\)$" "$maplab" bench --entries


# Output that cannot be written is an error, for every command: one line
# naming stdout with the write's own errno, exit 2 (list and stress said
# "maplab: writing the output failed", without the command).
for cmd in list "gentrace --ops 10" "stress --map hash/linux --threads 2 --ops 2000" \
        "bench --quiet --duration 0.02 --warmup 0 --entries 64" "replay --random --ops 10"; do
    check "$cmd >/dev/full: one line naming stdout" one_line_error \
        "^maplab ${cmd%% *}: standard output: No space left on device\$" \
        bash -c "'$maplab' $cmd >/dev/full"
done
check 'maplab --help >/dev/full: one line' one_line_error \
    '^maplab: standard output: No space left on device$' bash -c "'$maplab' --help >/dev/full"
if has_kernel; then
    check 'validate >/dev/full: one line naming stdout' one_line_error \
        '^maplab validate: standard output: No space left on device$' \
        bash -c "'$maplab' validate --random --ops 10 >/dev/full"
else
    echo "skipped: validate >/dev/full (needs root and the kernel side)"
fi

# validate --map D[,D...]: a list validates each design in turn on the same
# trace, each one's result under its name; 1 if any differed, 2 on bad
# input (a list was "no design 'a,b'").
if has_kernel; then
    v=("$maplab" validate --random --type lru_hash --entries 16 --ops 200)
    out=$("${v[@]}" --map lru/linux_common,lru/linux_percpu 2>/dev/null); rc=$?
    check 'validate of a list: exit 0, both match' test "$rc" -eq 0
    check 'validate of a list: each design under its name' test "$out" = "# lru/linux_common
validate: 202 trace lines, lru/linux_common matches the kernel

# lru/linux_percpu
validate: 202 trace lines, lru/linux_percpu matches the kernel"
    # lru/fifo ignores references: it evicts other keys than the kernel.
    out=$("${v[@]}" --map lru/linux_common,lru/fifo 2>/dev/null); rc=$?
    check 'validate of a list: 1 when one design differs' test "$rc" -eq 1
    # its headings and summaries, the count of differences as N
    summary=$(grep -E '^(# |validate: )' <<<"$out" | sed -E 's/^validate: [0-9]+ of/validate: N of/')
    check 'validate of a list: the one that differs says so, the other matches' \
        test "$summary" = "# lru/linux_common
validate: 202 trace lines, lru/linux_common matches the kernel
# lru/fifo
validate: N of 202 trace lines differ (lru/fifo vs kernel)"
    check 'validate of a list: the differences shown, under lru/fifo' \
        bash -c 'sed -n "/^# lru\/fifo$/,\$p" | grep -q "^  lru/fifo: "' <<<"$out"
    check 'validate of a list: a name not a design is one line' one_line_error \
        "^maplab validate: no design 'lru/nope'" "${v[@]}" --map lru/linux_common,lru/nope
else
    echo "skipped: validate --map D,D (needs root and the kernel side)"
fi

# No interpreter's cache is tracked: a .pyc is built per Python version.
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    check 'no __pycache__ or .pyc file in git' \
        test -z "$(git -C "$root" ls-files '*.pyc' '*__pycache__*')"
fi

# What the machine cannot hold is refused (ENOMEM, exit 2), not run until
# the kernel kills the process: 64K entries of 1 MiB values is 64 GiB.
mem_kib=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
if [ "${mem_kib:-0}" -lt $((60 * 1024 * 1024)) ]; then
    expect 2 'hash/linux refuses this map .*Cannot allocate memory' \
        "$maplab" bench --value-size 1048576 --duration 0.1
    expect 2 'hash/linux refuses this map .*Cannot allocate memory' \
        "$maplab" compare --value-size 1048576 --duration 0.1
fi

# One option table: each command takes only its own options, in both
# getopt forms, with one range and one way to spell a number.
q=(--quiet --duration 0.02 --warmup 0 --entries 1024)
expect 0 '^hash/linux +1 ' "$maplab" bench "${q[@]}" --key-size=4 --mix=lookup=100
expect 2 "unknown option '--qui'" "$maplab" bench --qui
expect 2 "unknown option '--dur=1'" "$maplab" stress --dur=1
expect 2 "unknown option '--op'" "$maplab" stress --op 100
expect 2 "unknown option '--random'" "$maplab" gentrace --random
expect 2 "unknown option '--echo'" "$maplab" gentrace --echo
expect 2 "unknown option '--max-diffs" "$maplab" gentrace --max-diffs 3
expect 2 "unknown option '--echo'" "$maplab" validate --random --echo
expect 2 "unknown option '--run-ops" "$maplab" bench --run-ops 8
expect 2 '--run-ops needs a value, got the option' "$maplab" kbench --run-ops --quiet
expect 2 '--run-ops needs a value' "$maplab" kbench --run-ops
expect 2 'run-ops wants a whole number from 1' "$maplab" kbench --run-ops=0
expect 2 '--key-size wants a whole number from 1 to 4194304' "$maplab" stress --key-size 5000000
expect 2 '--key-size wants a whole number from 1 to 4194304' "$maplab" bench --key-size 5000000
expect 2 '--key-size wants a whole number from 1 to 4194304' "$maplab" gentrace --key-size 5000000
# Numbers are decimal, range-checked, never wrapped.
expect 2 "--entries wants a whole number .* got '0x10'" "$maplab" gentrace --entries 0x10
expect 2 "--seed wants a whole number .* got ' -1'" "$maplab" gentrace --seed " -1"
expect 2 "--key-size wants a whole number .* got '\+4'" "$maplab" gentrace --key-size +4
expect 0 'max_entries=10 ' "$maplab" gentrace --entries 010 --ops 1
expect 2 'dist wants uniform' "$maplab" bench "${q[@]}" --dist hotset:4294967346,5
expect 2 'dist wants uniform' "$maplab" bench "${q[@]}" --dist zipf:1e0
# Seconds are finite.
for cmd in bench compare stress; do
    expect 2 '--duration wants seconds from 0.01 to 3600' "$maplab" $cmd --duration nan
    expect 2 '--duration wants seconds' "$maplab" $cmd --duration inf
done
expect 2 '--warmup wants seconds' "$maplab" bench --warmup nan
# A --mix is what it says, or refused.
expect 2 '--mix names lookup twice' "$maplab" bench "${q[@]}" --mix lookup=60,lookup=40
expect 2 'delete=100 has nothing to delete' "$maplab" bench "${q[@]}" --mix delete=100
expect 0 'warning: the map is full .* every insert will fail' "$maplab" bench "${q[@]}" --mix insert=50,delete=50
expect 0 'warning: the streams hold .*insert=25,delete=25, not .*insert=40,delete=10' \
    "$maplab" bench "${q[@]}" --mix lookup=50,insert=40,delete=10 --prefill 50
expect 0 'warning: no key is prefilled' "$maplab" bench "${q[@]}" --mix update=100 --prefill 0
# An empty list is refused, not a run of nothing.
expect 2 '--map wants design names' "$maplab" stress --map ""
expect 2 '--map wants design names' "$maplab" bench --map ""
expect 2 '--map wants design names' "$maplab" stress --map hash/linux,
expect 2 'threads wants .*numbers' "$maplab" stress --threads ""
# Unknown flag words are refused with the list of names.
expect 2 "unknown map flag 'fast' \(no_prealloc, no_common_lru, numa_node, rdonly, wronly, zero_seed" \
    "$maplab" bench --flags fast
# Workers are pinned to the CPUs the process may use; a pin that fails
# fails the run (it used to leave every worker where it started).
check 'bench: a failed pin fails the run' one_line_error \
    '^maplab bench: .*cannot pin worker 0 to cpu [0-9]+: Invalid argument' \
    "${preload[@]}" "$maplab" bench "${q[@]}" --threads 2
check 'stress: a failed pin fails the run' one_line_error \
    '^maplab stress: hash/linux: cannot pin worker 0 to cpu [0-9]+: Invalid argument' \
    "${preload[@]}" "$maplab" stress --map hash/linux --ops 1000
if taskset -c 1 true 2>/dev/null; then
    expect 0 '^hash/linux +2 ' taskset -c 1 "$maplab" bench "${q[@]}" --threads 2
fi

# A message never echoes raw control bytes.
expect 2 'unknown option .--\\x1b\[31m' "$maplab" list $'--\e[31m'
# Every message that quotes input escapes it, through the one helper
# (parse_printable): an ESC in an argument comes out as \x1b, and the raw
# byte never reaches the terminal.
e=$'\e[31m'
x='\\x1b\[31m'
printf 'map hash key_size=4 value_size=4 max_entries=2\nlookup 01000000\n' >"$tmp/ok$e.trace"
printf 'map hash key_size=4 value_size=4 max_entries=2\nlookup 01\n' >"$tmp/bad$e.trace"
for cmd in replay validate dump; do
    check "$cmd --map: escaped" escaped "^maplab $cmd: no design 'a$x'" \
        "$maplab" $cmd --map "a$e" --trace "$tmp/ok$e.trace"
done
check 'stress --type: escaped' escaped "^maplab stress: --type wants .* got 't$x'" \
    "$maplab" stress --type "t$e"
check 'replay --type: escaped' escaped "^maplab replay: --type wants .* got 't$x'" \
    "$maplab" replay --type "t$e" --random
check 'gentrace --type: escaped' escaped "^maplab gentrace: --type wants .* got 't$x'" \
    "$maplab" gentrace --type "t$e"
check 'bench --format: escaped' escaped "^maplab bench: --format wants .* got 'f$x'" \
    "$maplab" bench --format "f$e"
check 'dump --format: escaped' escaped "^maplab dump: --format wants .* got 'f$x'" \
    "$maplab" dump --format "f$e"
check 'unknown command: escaped' escaped "^maplab: unknown command 'c$x'" "$maplab" "c$e"
check 'a value that is an option: escaped' escaped "got the option '--$x'" \
    "$maplab" kbench --run-ops "--$e"
open_cmds=(replay dump)
has_kernel && open_cmds+=(validate)
for cmd in "${open_cmds[@]}"; do
    check "$cmd: cannot open, escaped" escaped "^maplab $cmd: cannot open .*/none$x: No such file" \
        "$maplab" $cmd --map lru/global --trace "$tmp/none$e"
    check "$cmd: a trace's name in its errors, escaped" escaped "^maplab $cmd: .*/bad$x.trace:2: key '01'" \
        "$maplab" $cmd --map lru/global --trace "$tmp/bad$e.trace"
done
check 'sim: cannot open, escaped' escaped "^maplab sim: cannot open .*/none$x: No such file" \
    "$maplab" sim --policy opt --sizes 10 --trace "$tmp/none$e"
check 'sim: a trace name in its report, escaped' bash -c '
    printf "1\n2\n1\n" >"$2/keys$3.txt"
    out=$("$1" sim --quiet --policy opt --sizes 1 --trace "$2/keys$3.txt" 2>&1) &&
    grep -q "keys\\\\x1b\[31m.txt" <<<"$out" && ! grep -q $'"'"'\033'"'"' <<<"$out"' \
    _ "$maplab" "$tmp" "$e"
check 'sim: no parameter, escaped' escaped "^maplab sim: zipf: no parameter 'p$x'" \
    "$maplab" sim --policy opt --sizes 10 --trace "zipf:p$e=1"
check 'sim: empty parameter, escaped' escaped "^maplab sim: zipf: empty parameter in 'keys=10,,$x'" \
    "$maplab" sim --policy opt --sizes 10 --trace "zipf:keys=10,,$e"
check 'sim: neither a file nor a generator, escaped' escaped \
    "^maplab sim: cannot open g$x:keys=1: No such file or directory \\(nor is it a generator" \
    "$maplab" sim --policy opt --sizes 10 --trace "g$e:keys=1"
check 'sim: no generator, escaped' escaped "^maplab sim: no trace generator 'g$x'" \
    "$maplab" sim --policy opt --sizes 10 --trace "mix:g$e:keys=1"
check 'sim --write-trace: escaped' escaped "^maplab sim: cannot write .*/no/w$x: No such file" \
    "$maplab" sim --quiet --policy opt --sizes 10 --trace zipf:keys=10,requests=100 \
    --write-trace "$tmp/no/w$e"
check 'sim --plot: escaped' escaped "^maplab sim: --plot: cannot create .*/no/p$x: No such file" \
    "$maplab" sim --quiet --policy opt --sizes 10 --trace zipf:keys=10,requests=100 \
    --plot "$tmp/no/p$e"
check 'bench --out: escaped' escaped "^maplab bench: cannot write .*/no/o$x: No such file" \
    "$maplab" bench --quiet --duration 0.02 --warmup 0 --entries 64 --out "$tmp/no/o$e"

finish
