"""A fixed amount of CPU-bound work that allocates as it goes (lists of objects, big buffers, dicts), to measure how
much a watcher slows its target down. The work is the same every run; its duration is measured inside the process
so interpreter start-up and memleak's own start-up are not counted.

Usage: python3 workload.py ROUNDS. Prints one JSON line: {"seconds": …, "cpu": …}."""
import json
import sys
import time

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 40
t0, c0 = time.perf_counter(), time.process_time()
keep = []
for r in range(rounds):
    objs = [(i, str(i)) for i in range(200_000)]            # many small objects: pymalloc arenas
    table = {i: i * i for i in range(100_000)}
    buf = bytearray(32 * 2**20)                              # one big buffer: mmap, page faults, munmap
    for off in range(0, len(buf), 4096):
        buf[off] = r & 0xFF
    total = sum(x for x, _ in objs) + sum(table.values())
    keep.append(total)
    del objs, table, buf
print(json.dumps({"seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0}), flush=True)
