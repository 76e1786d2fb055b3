#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Regenerates the sim figures that docs/lru.md ("Hit ratio and its price")
# shows.  Run from the repository root:
#
#   docs/img/sim/make.sh [MAPLAB]        measure again (MAPLAB: build/cli/maplab)
#   docs/img/sim/make.sh --redraw        redraw the figures from the records kept
#
# Two traces, every policy (the designs, opt, and the kernel's two LRU
# hash modes where BPF is allowed), six sizes as fractions of the trace's
# distinct keys, one and two threads:
#
#   docs/img/sim/zipf-txt/    examples/traces/zipf.txt (shipped)
#   docs/img/sim/zipf-0.99/   zipf:alpha=0.99,keys=100000,requests=1000000
#
# Each directory gets the table sim printed (table.txt, host line at its
# end), every record as jsonl (results.jsonl, which `sim --plot` writes and
# the plotter, harness/results/report.py, draws from), the miss-ratio
# curves (mrc.png, mrc.svg: one thread) and the Pareto plot at 10 % of the
# distinct keys (pareto-<entries>.png/.svg: two threads), drawn with
# matplotlib; the PNG and SVG of the other sizes are removed to keep the
# repository small.  Rates come from one run
# on whatever machine measures: read them with the host line.  --redraw
# measures nothing: the figures change, the figures' numbers (and so the
# ones docs/lru.md quotes) do not.
set -euo pipefail
top=docs/img/sim
[ -d "$top" ] || { echo "make.sh: run me from the repository root" >&2; exit 2; }
# The python the plotter needs (matplotlib), as maplab picks it.
python=${MAPLAB_PYTHON:-$( [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)}
"$python" -c 'import matplotlib' 2>/dev/null ||
    { echo "make.sh: $python has no matplotlib (apt-get install python3-matplotlib)" >&2; exit 2; }
redraw=false
if [ "${1:-}" = --redraw ]; then
    redraw=true
else
    maplab=${1:-build/cli/maplab}
    [ -x "$maplab" ] || { echo "make.sh: no maplab at $maplab (build first, or name it)" >&2; exit 2; }
fi

sizes=0.01,0.02,0.05,0.1,0.2,0.5
keep=4          # the 4th size, 0.1 of the distinct keys, gets its Pareto plot drawn

run() {         # run NAME TRACE
    local dir=$top/$1 trace=$2
    if $redraw; then
        [ -s "$dir/results.jsonl" ] || { echo "make.sh: no $dir/results.jsonl to redraw" >&2; exit 2; }
        find "$dir" -name '*.png' -o -name '*.svg' -o -name '*.dat' -o -name '*.gp' | xargs rm -f
        "$python" harness/results/report.py "$dir" >/dev/null
    else
        rm -rf "$dir"
        mkdir -p "$dir"
        "$maplab" sim --trace "$trace" --policy all --sizes "$sizes" --threads 1,2 \
            --quiet --plot "$dir" --out "$dir/table.txt"
    fi
    # The entries of the kept size: the keep-th smallest pareto-N.png.
    local n
    n=$(ls "$dir" | sed -n 's/^pareto-\([0-9]*\)\.png$/\1/p' | sort -n | sed -n "${keep}p")
    for f in "$dir"/pareto-*.png "$dir"/pareto-*.svg; do
        case $f in "$dir/pareto-$n".*) ;; *) rm -f "$f" ;; esac
    done
    echo "$dir: $(ls "$dir" | grep -cE '\.(png|svg)$') figures, pareto at $n entries"
}

run zipf-txt examples/traces/zipf.txt
run zipf-0.99 zipf:alpha=0.99,keys=100000,requests=1000000
