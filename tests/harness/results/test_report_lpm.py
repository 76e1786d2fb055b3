#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""harness/results/report.py on a suite with LPM workloads.

usage: test_report_lpm.py SOURCE_ROOT

Writes hand-made records of one host: a hash workload, two LPM workloads of
the same mix (bgp prefixes, all lookups meant to hit; and 70 % of them),
and a random32 workload where LPM tries and hash maps run on the same
addresses, with one kernel side per map type.  Checks that each workload is
a section of its own (the kernel's hash and trie never one series), that
the map line names the prefixes, which kernel side each design's ratio is
against, and the trie's work per op with its allocations and lock ns.
"""
import sys

from report_case import HOST, report_of, verdict


def result(side, mapname, label, ns, mix="lookup=100", prefixes=None, hits=100,
           key_size=4, map_flags=0, ratio=None, work=None):
    """One 1-thread point of 3 runs; ns (median, min, max); work: per op
    (median, min, max) of each work field given."""
    r = {"record": "result", "side": side, "map": mapname, "label": label,
         "mix": mix, "dist": "uniform", "threads": 1, "entries": 65536,
         "key_size": key_size, "value_size": 8, "prefill": 100, "map_flags": map_flags,
         "runs": 3, "ns_per_op": ns[0], "ns_per_op_min": ns[1], "ns_per_op_max": ns[2],
         "mops": 1e3 / ns[0], "mops_min": 1e3 / ns[2], "mops_max": 1e3 / ns[1],
         "flags": [], "probe_ns_runs": [20.0, 21.0, 22.0]}
    if prefixes:
        r.update(prefixes=prefixes, hit_ratio=hits)
    if ratio:
        r.update(kernel_ratio=ratio, kernel_ratio_min=ratio, kernel_ratio_max=ratio)
    for field, (med, lo, hi) in (work or {}).items():
        r.update({field: med, field + "_min": lo, field + "_max": hi})
    return r


def lpm(side, mapname, label, ns, **kw):
    return result(side, mapname, label, ns, key_size=8, map_flags=1, **kw)


# lpm_trie/linux's work under updates: no evictions, no refills.
TRIE_WORK = {"evictions_per_op": (0.0, 0.0, 0.0), "nodes_scanned_per_op": (18.0, 17.5, 18.5),
             "locks_per_op": (1.0, 1.0, 1.0), "allocations_per_op": (1.0, 1.0, 1.0),
             "lock_ns_per_op": (412.5, 400.0, 430.0)}

RECORDS = (
    HOST,
    result("kernel", "hash", "kernel BPF", (50.0, 40.0, 60.0)),
    result("user", "hash/linux", "hash/linux", (70.0, 60.0, 80.0), ratio=1.4),
    lpm("kernel", "lpm_trie", "kernel BPF", (300.0, 290.0, 310.0), prefixes="bgp"),
    lpm("user", "lpm_trie/linux", "lpm_trie/linux", (450.0, 440.0, 460.0), prefixes="bgp",
        ratio=1.5),
    lpm("kernel", "lpm_trie", "kernel BPF", (320.0, 310.0, 330.0), prefixes="bgp", hits=70),
    lpm("user", "lpm_trie/linux", "lpm_trie/linux", (480.0, 470.0, 490.0), prefixes="bgp",
        hits=70, ratio=1.5),
    lpm("kernel", "lpm_trie", "kernel BPF lpm_trie", (900.0, 880.0, 920.0), mix="update=100",
        prefixes="random32"),
    result("kernel", "hash", "kernel BPF hash", (110.0, 100.0, 120.0), mix="update=100",
           prefixes="random32"),
    lpm("user", "lpm_trie/linux", "lpm_trie/linux", (1200.0, 1100.0, 1300.0),
        mix="update=100", prefixes="random32", ratio=1.33, work=TRIE_WORK),
    result("user", "hash/linux", "hash/linux", (60.0, 55.0, 65.0), mix="update=100",
           prefixes="random32", ratio=0.55),
)



def expectations(rc, err, md):
    """(what, whether it holds) for each thing the report must say."""
    return [
        (f"report.py exits 0 (got {rc}: {err})", rc == 0),
        # Same mix, three workloads: the hash one and two LPM ones.
        ("hash workload section", "## lookup=100\n" in md),
        ("bgp workload section", "## lookup=100, bgp prefixes\n" in md),
        ("bgp workload with misses: a section of its own",
         "## lookup=100, bgp prefixes, 70 % of lookups meant to hit\n" in md),
        ("the LPM section's map line",
         "bgp prefixes, lookups of full-length addresses, 70 % of them inside a stored "
         "prefix." in md),
        # Tries and hashes on the same addresses: a kernel side per type.
        ("trie against hash section", "## update=100, random32 prefixes\n" in md),
        ("both kernel types in the table",
         "| threads | kernel BPF hash ns/op per thread | kernel BPF lpm_trie ns/op per "
         "thread | hash/linux ns/op per thread | lpm_trie/linux ns/op per thread |" in md),
        ("which kernel side each ratio is against",
         "hash/linux to kernel BPF hash" in md and "lpm_trie/linux to kernel BPF lpm_trie" in md),
        # The trie's work, its allocations and lock time columns after the others.
        ("work table heading with allocations and lock ns",
         "| side | threads | evictions / op | nodes scanned / op | locks / op | "
         "evictions / refill | allocations / op | lock ns / op |" in md),
        ("the trie's work row",
         "| lpm_trie/linux | 1 | 0.000 (0.000–0.000) | 18.000 (17.500–18.500) | "
         "1.000 (1.000–1.000) | – | 1.000 (1.000–1.000) | 412.500 (400.000–430.000) |" in md),
        ("one work table: the lookup workloads counted none", md.count("| side | threads |") == 1),
    ]


def main():
    return verdict("test_report_lpm", expectations(*report_of(sys.argv[1], RECORDS)))


if __name__ == "__main__":
    sys.exit(main())
