"""What the census's retained-size looks (memleak_retained.py) cost, against the census walk they are part of.

    python3 bench/py/retained_cost.py [OBJECTS] [ROUNDS]

A heap of OBJECTS small dicts (default 280,000: with their keys, values and the rest, just under the census's limit of
a million allocated blocks), of which one list
of asyncio-like records grows by 500 items between walks and thousands of small containers gain a few items each
(the candidates the look ranks). Each round times one census walk (thread CPU), then the retained-size look alone on
the same gainers. Prints the medians, the look's share of the walk, and what a walk every 5 s (the census's fastest)
costs the program as a share of one core.
"""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "agent", "python"))
import memleak_agent as A  # noqa: E402

OBJECTS = int(sys.argv[1]) if len(sys.argv) > 1 else 280_000
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 7


class Record:
    def __init__(self, i):
        self.id = i
        self.payload = bytearray(4096)
        self.tags = {"n": i}


heap = [{"k": i} for i in range(OBJECTS)]  # small dicts: tracked objects the walk visits
smalls = [[0] * 20 for _ in range(20_000)]  # containers over 16 items, each gaining now and then
growing = []

A.census._census_walk(1.0, True)  # the first walk: every container's length is its start
walks, looks = [], []
for r in range(ROUNDS):
    growing.extend(Record(i) for i in range(500))
    for s in smalls[r * 50 : r * 50 + 50]:
        s.append(1)
    t0 = time.thread_time()
    out = A.census._census_walk(1.0, True)
    walks.append(time.thread_time() - t0)
    assert out.get("growing") == "list of Record", out
    # The look alone, on the same gainers the walk ranked: the growing list and the smalls that gained.
    retained = A._sibling_module("memleak_retained")
    t0 = time.thread_time()
    for c in [growing] + smalls[r * 50 : r * 50 + 8]:
        retained.retained_per_item(c)
    looks.append(time.thread_time() - t0)

walk, look = statistics.median(walks), statistics.median(looks)
print("allocated blocks: %d, python %s" % (sys.getallocatedblocks(), sys.version.split()[0]))
print("census walk: median %.1f ms (min %.1f, max %.1f) over %d rounds" % (walk * 1e3, min(walks) * 1e3, max(walks) * 1e3, ROUNDS))
print("retained look of 9 containers: median %.3f ms (%.2f%% of the walk)" % (look * 1e3, 100 * look / walk))
print("per item retained of the growing list: %s bytes (4096-byte payload)" % out.get("growingRetainedBytes"))
print("a walk every 5 s: %.2f%% of one core; the look's part %.3f%%" % (100 * walk / 5, 100 * look / 5))
