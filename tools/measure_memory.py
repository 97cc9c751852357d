"""Peak memory of a command and all its worker processes (sum of RSS, sampled).

    python tools/measure_memory.py -- python -m sim run SCENARIO -n 10000000 --summary-only -j 2

Prints the peak of the summed resident memory of the process tree and the wall time.
Needs psutil (installed with dask.distributed).
"""
from __future__ import annotations

import subprocess
import sys
import time

import psutil


def main(argv: list[str]) -> None:
    cmd = argv[argv.index("--") + 1:] if "--" in argv else argv
    start = time.time()
    proc = subprocess.Popen(cmd)
    root = psutil.Process(proc.pid)
    peak = 0
    while proc.poll() is None:
        try:
            procs = [root, *root.children(recursive=True)]
            peak = max(peak, sum(p.memory_info().rss for p in procs if p.is_running()))
        except psutil.Error:
            pass
        time.sleep(0.05)
    print(f"exit {proc.returncode}; peak summed RSS {peak / 2**20:.0f} MiB over "
          f"{len(procs)} processes; wall {time.time() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
