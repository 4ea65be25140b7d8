"""What a psutil-based monitor pays for one sample of a process tree: find the tree, then memory_full_info() (RSS,
USS, PSS, swap: statm + smaps_rollup) of every process — what memory_profiler's and psrecord's USS/PSS modes do.

Usage: /usr/bin/python3 psutil_cost.py ROOT_PID HZ SECONDS. Rounds are spaced on the wall clock like the memleak
sampler's ticks. Prints one JSON line: the CPU seconds of each round (time.process_time, this process only)."""
import json
import sys
import time

import psutil

root_pid, hz, seconds = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
root = psutil.Process(root_pid)
costs = []
start = time.monotonic()
i = 0
while time.monotonic() - start < seconds:
    c0 = time.process_time()
    for p in [root] + root.children(recursive=True):
        try:
            p.memory_full_info()
        except psutil.NoSuchProcess:
            pass
    costs.append(time.process_time() - c0)
    i += 1
    time.sleep(max(0.0, start + i / hz - time.monotonic()))
print(json.dumps({"cpu": costs}))
