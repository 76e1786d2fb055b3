#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# reproduce: bad input; the plan (--dry-run): every finding has steps,
# --only keeps one, --quick is smaller than the full plan; one real
# finding (4, sim alone: seconds) run end to end: its records tagged,
# findings.md answering it with this run's numbers.
# usage: test_cli_reproduce.sh MAPLAB SOURCE_ROOT PINFAIL_SHIM kernel|no-kernel
maplab=$1 root=$2
. "$(dirname "$0")/lib.sh"

expect 0 'usage: maplab reproduce --out DIR' "$maplab" reproduce --help
check 'no --out: one line, exit 2' one_line_error 'reproduce: --out DIR is required' \
    "$maplab" reproduce --quick
check '--only 7: one line, exit 2' one_line_error \
    "reproduce: --only: no finding '7' \\(1, 2, 3, 4, 5 or suite\\)" \
    "$maplab" reproduce --only 7 --out "$tmp/x"
check '--only with nothing: exit 2' one_line_error 'name at least one finding' \
    "$maplab" reproduce --only , --out "$tmp/x"
check 'an --out that cannot be made: exit 2' one_line_error \
    'reproduce: --out /proc/maplab-no/x' \
    "$maplab" reproduce --only 4 --quick --out /proc/maplab-no/x
escaped 'no finding' "$maplab" reproduce --only $'\033[31m' --out "$tmp/x"

# The plan.  Steps are counted per finding from the "# finding N" lines.
full=$("$maplab" reproduce --dry-run --out "$tmp/x" 2>/dev/null)
quick=$("$maplab" reproduce --quick --dry-run --out "$tmp/x" 2>/dev/null)
for f in 1 2 3 4 suite; do
    check "the full plan has finding $f's steps" grep -q "^# finding $f," <<<"$full"
    check "the quick plan has finding $f's steps" grep -q "^# finding $f," <<<"$quick"
done
steps() { grep -c '^maplab ' <<<"$1"; }
check 'quick runs fewer steps than full' test "$(steps "$quick")" -lt "$(steps "$full")"
check 'quick: 2 repeats of 0.3 s' grep -q -- '--duration 0.3 --warmup 0.1 --repeat 2' <<<"$quick"
check 'full: 5 repeats' grep -q -- '--repeat 5' <<<"$full"
check 'full: the suite at its four LPM sizes' \
    test "$(grep -c 'suite.s LPM lookup at' <<<"$full")" -eq 4
# The estimate a dry run prints stays within the issue's budgets (5 and 30
# minutes): a check on the plan's size, not on this machine's speed.
minutes() { sed -n 's/^# [0-9]* steps, about \([0-9]*\):.*/\1/p' <<<"$1"; }
check 'the quick plan is estimated under 5 minutes' test "$(minutes "$quick")" -lt 5
check 'the full plan is estimated under 30 minutes' test "$(minutes "$full")" -lt 30
only=$("$maplab" reproduce --only 4 --dry-run --out "$tmp/x" 2>/dev/null)
check '--only 4: finding 4 alone' test "$(grep -c '^# finding' <<<"$only")" -eq \
    "$(grep -c '^# finding 4,' <<<"$only")"
only5=$("$maplab" reproduce --only 5 --quick --dry-run --out "$tmp/x" 2>/dev/null)
check '--only 5 runs finding 1 steps (5 reads them)' grep -q '^# finding 1,' <<<"$only5"
# Every step's command is one a user can run: it parses (--help on the
# same command with the same options is not enough: run --dry-run's
# commands' option names through the command's own --help).
while read -r line; do
    cmd=$(awk '{print $2}' <<<"$line")
    for opt in $(grep -o -- '--[a-z-]*' <<<"$line"); do
        "$maplab" "$cmd" --help | grep -q -- "$opt" ||
            { echo "    $cmd has no $opt"; check "a step's options exist" false; }
    done
done < <(grep '^maplab ' <<<"$quick" | sort -u -k2,2)

# One finding end to end: finding 4 is sim alone (seconds).
out=$("$maplab" reproduce --quick --only 4 --out "$tmp/r" 2>&1)
rc=$?
check 'reproduce --only 4: exit 0' test "$rc" -eq 0
[ "$rc" -eq 0 ] || sed 's/^/    /' <<<"$out" | head -20
check 'a line per step on stderr' grep -q '^reproduce: \[1/1\] .* finding 4:' <<<"$out"
check 'results.jsonl starts with the host' \
    grep -q '^{"record":"host"' <(head -1 "$tmp/r/results.jsonl")
check 'its sim records are tagged with the step' \
    grep -q '^{"record":"sim","step":"f4-skew","finding":"4",' "$tmp/r/results.jsonl"
check 'the step record holds its command' \
    grep -q '"record":"step".*"command":"maplab sim --trace zipf' "$tmp/r/results.jsonl"
check 'findings.md answers finding 4 with a number' \
    grep -qE '^- \*\*4\. .*uses 0\.[0-9]+ of its 4096 entries' "$tmp/r/findings.md"
check 'findings.md gives the command to re-run it' \
    grep -q '^maplab sim --trace zipf:alpha=0.99' "$tmp/r/findings.md"
check 'the answer is printed' grep -q '^4\. Common against per-CPU LRU: With every insert' <<<"$out"
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    check 'its plot, PNG and SVG' test -s "$tmp/r/finding4-percpu-lru.png" -a \
        -s "$tmp/r/finding4-percpu-lru.svg"
    check 'the plot is in findings.md' grep -q '(finding4-percpu-lru.png)' "$tmp/r/findings.md"
fi
if has_kernel; then
    check "the kernel's LRUs ran beside the designs" \
        grep -q '"policy":"kernel:no_common_lru"' "$tmp/r/results.jsonl"
fi
finish
