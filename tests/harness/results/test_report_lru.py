#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""harness/results/report.py on a suite with an LRU workload.

usage: test_report_lru.py SOURCE_ROOT

Writes hand-made records of one host: a hash workload, and an eviction
workload of the same mix on an LRU map (keys from a range 4x the map), where
two designs stand for the kernel's LRU hash in two modes (common, and
per-CPU: BPF_F_NO_COMMON_LRU, map_flags 2) and count their work.  Checks
that the two workloads are two sections, that the sides are named by their
labels (the kernel's two modes apart), which kernel side each design's ratio
is against, and the table of work per op with its spreads.
"""
import sys

from report_case import HOST, report_of, verdict


def result(side, mapname, label, ns, key_range=None, map_flags=0, ratio=None, work=None):
    """One 1-thread point of 3 runs; ns (median, min, max); work: per op
    (median, min, max) of each work field given."""
    r = {"record": "result", "side": side, "map": mapname, "label": label,
         "mix": "lookup=50,insert=50", "dist": "uniform", "threads": 1, "entries": 65536,
         "key_size": 4, "value_size": 8, "prefill": 100, "map_flags": map_flags, "runs": 3,
         "ns_per_op": ns[0], "ns_per_op_min": ns[1], "ns_per_op_max": ns[2],
         "mops": 1e3 / ns[0], "mops_min": 1e3 / ns[2], "mops_max": 1e3 / ns[1],
         "flags": [], "probe_ns_runs": [20.0, 21.0, 22.0]}
    if key_range:
        r["key_range"] = key_range
    if ratio:
        r.update(kernel_ratio=ratio[0], kernel_ratio_min=ratio[1], kernel_ratio_max=ratio[2])
    for field, (med, lo, hi) in (work or {}).items():
        r.update({field: med, field + "_min": lo, field + "_max": hi})
    return r


EVICTING = {"evictions_per_op": (0.375, 0.370, 0.380)}
COUNTED = dict(EVICTING, nodes_scanned_per_op=(0.5, 0.4, 0.6), locks_per_op=(1.625, 1.6, 1.7),
               evictions_per_refill=(1.0, 1.0, 1.0))

RECORDS = (
    HOST,
    result("kernel", "hash", "kernel BPF", (50.0, 40.0, 60.0)),
    result("user", "hash/linux", "hash/linux", (70.0, 60.0, 80.0), ratio=(1.4, 1.3, 1.5)),
    result("kernel", "lru_hash", "kernel BPF", (130.0, 120.0, 140.0), key_range=262144,
           work=EVICTING),
    result("kernel", "lru_hash", "kernel BPF +no_common_lru", (110.0, 100.0, 120.0),
           key_range=262144, map_flags=2, work=EVICTING),
    result("user", "lru/global", "lru/global", (160.0, 150.0, 170.0), key_range=262144,
           ratio=(1.23, 1.2, 1.3), work=COUNTED),
    result("user", "lru/percpu", "lru/percpu", (120.0, 110.0, 130.0), key_range=262144,
           map_flags=2, ratio=(1.09, 1.0, 1.2), work=COUNTED),
)



def expectations(rc, err, md):
    """(what, whether it holds) for each thing the report must say."""
    return [
        (f"report.py exits 0 (got {rc}: {err})", rc == 0),
        # Same mix, two workloads: the eviction one is its own section.
        ("hash workload section", "## lookup=50,insert=50\n" in md),
        ("LRU workload section",
         "## lookup=50,insert=50, keys from 262144 (400 % of 65536 entries)\n" in md),
        ("the LRU section's map line", "every op's key from a range of 262144." in md),
        # The kernel's two modes are two sides, named by their labels.
        ("both kernel modes in the table",
         "| threads | kernel BPF ns/op per thread | kernel BPF +no_common_lru ns/op per "
         "thread | lru/global ns/op per thread | lru/percpu ns/op per thread |" in md),
        ("which kernel side each ratio is against",
         "Each design's ratio is to the kernel's map in the design's mode (its mode "
         "flags): lru/global to kernel BPF; lru/percpu to kernel BPF +no_common_lru." in md),
        ("one mode: no such line in the hash section",
         md.count("Each design's ratio is to the kernel's map") == 1),
        # The work per op, with spreads; the kernel's evictions alone.
        ("work table heading",
         "| side | threads | evictions / op | nodes scanned / op | locks / op | "
         "evictions / refill |" in md),
        ("the kernel's row: evictions alone",
         "| kernel BPF +no_common_lru | 1 | 0.375 (0.370–0.380) | – | – | – |" in md),
        ("a design's row",
         "| lru/global | 1 | 0.375 (0.370–0.380) | 0.500 (0.400–0.600) | "
         "1.625 (1.600–1.700) | 1.000 (1.000–1.000) |" in md),
        ("one work table: the hash workload counted none", md.count("| side | threads |") == 1),
    ]


def main():
    return verdict("test_report_lru", expectations(*report_of(sys.argv[1], RECORDS)))


if __name__ == "__main__":
    sys.exit(main())
