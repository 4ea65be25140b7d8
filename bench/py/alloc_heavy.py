"""Allocation-heavy work for --trace-native's cost: every allocation here goes to malloc (bytes objects of 600 B to
7.6 KB, above pymalloc's 512-byte limit), one in ten kept until the round ends, so heaptrack records each malloc and
free with its stack. The same work every run, timed inside the process.

Usage: python3 alloc_heavy.py ROUNDS. Prints one JSON line: {"seconds": …, "cpu": …, "mallocs": …}."""
import json
import sys
import time

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
t0, c0 = time.perf_counter(), time.process_time()
mallocs = 0
for r in range(rounds):
    kept = []
    for i in range(50_000):
        b = bytes(600 + (i * 37 + r) % 7000)
        if i % 10 == 0:
            kept.append(b)
    mallocs += 50_000
    del kept
print(json.dumps({"seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0, "mallocs": mallocs}), flush=True)
