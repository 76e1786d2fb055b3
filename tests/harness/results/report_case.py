# SPDX-License-Identifier: MIT
"""What the one-host tests of harness/results/report.py share: the host
record, a run of report.py on hand-made records, and the verdict."""
import json
import os
import subprocess
import sys
import tempfile

HOST = {"record": "host", "host": {
    "kernel": "6.18.0", "cpu_model": "Test CPU", "hostname": "vm", "nproc": 2,
    "possible_cpus": 2, "cpus_allowed": 2, "virtualised": True, "hypervisor": "kvm",
    "mitigations": [], "vulnerabilities": {}, "allocator": "jemalloc", "rcu": "memb",
    "maplab": "0.1.0", "date": "2026-01-01T00:00:00Z"}}


def report_of(root, records):
    """report.py's exit status, stderr and report.md for the records."""
    with tempfile.TemporaryDirectory(prefix="maplab-report-") as tmp:
        with open(os.path.join(tmp, "results.jsonl"), "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in records)
        run = subprocess.run([sys.executable, os.path.join(root, "harness", "results", "report.py"),
                              tmp], capture_output=True, text=True)
        path = os.path.join(tmp, "report.md")
        md = open(path).read() if os.path.exists(path) else ""
    return run.returncode, run.stderr.strip(), md


def verdict(name, expectations):
    """Print what failed of (what, whether it holds), and the tally; the
    exit status."""
    failed = [what for what, holds in expectations if not holds]
    print("".join(f"FAIL: {what}\n" for what in failed) +
          f"{name}: {len(failed)} failed" if failed else f"{name}: all passed")
    return 1 if failed else 0
