"""Section j of the benchmark: what memleak's holder search (src/agent/python/memleak_holder.py) costs the program
it runs in, on a heap of N tracked objects (argv[1]). For each kind of chain — a module global (1 hop), an instance
attribute (2), a closure cell (4), and one too long to climb (the search gives up at its bounds) — the search runs on
a thread of its own, as in the agent, while the program's thread ticks every millisecond; the figures are the search's
wall and CPU time, its longest single pass (GIL held), and the longest gap the program's thread saw. Baselines from the
same process: the program's longest gap over an idle window as long, and a full gc.collect() of the same heap (the
pause the interpreter takes anyway). Prints one JSON object."""
import gc
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "agent", "python"))
import memleak_holder  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
heap = [[i] for i in range(N)]  # N tracked objects (lists), the program's heap


class Item:
    pass


EVENTS = [Item() for _ in range(100)]


class Service:
    def __init__(self):
        self.history = [Item() for _ in range(100)]


service = Service()


def make_logger():
    events = [Item() for _ in range(100)]

    def log(x):
        events.append(x)

    return log


log = make_logger()


class Node:
    pass


head = Node()
node = head
for _ in range(40):
    node.next = Node()
    node = node.next
node.items = [Item() for _ in range(100)]
del node


def deepest():
    n = head
    while hasattr(n, "next"):
        n = n.next
    return n.items


CASES = {
    "module global (1 hop)": lambda: EVENTS,
    "instance attribute (2 hops)": lambda: service.history,
    "closure cell (4 hops)": lambda: log.__closure__[0].cell_contents,
    "no root within the bounds (41 hops)": deepest,
}


def ticking(stop, gaps):
    """The program's thread: wakes every millisecond; the longest gap between two wake-ups is the pause it saw."""
    last = time.perf_counter()
    while not stop.is_set():
        time.sleep(0.001)
        now = time.perf_counter()
        gaps.append(now - last)
        last = now


def watched(action):
    gaps = []
    stop = threading.Event()
    ticker = threading.Thread(target=ticking, args=(stop, gaps))
    ticker.start()
    time.sleep(0.05)
    result = {}

    def run():
        t0 = time.thread_time()
        result.update(action())
        result["cpuMs"] = (time.thread_time() - t0) * 1000

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    time.sleep(0.05)
    stop.set()
    ticker.join()
    result["programGapMs"] = max(gaps) * 1000
    return result


def idle(seconds):
    def nothing():
        t0 = time.monotonic()
        time.sleep(seconds)
        return {"ms": (time.monotonic() - t0) * 1000}

    return watched(nothing)


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


out = {"objects": N, "python": sys.version.split()[0], "cases": {}}
collect_ms = []
for _ in range(REPEATS):
    t0 = time.perf_counter()
    gc.collect()
    collect_ms.append((time.perf_counter() - t0) * 1000)
out["fullCollectionMs"] = median(collect_ms)
for name, get in CASES.items():
    runs = [watched(lambda: memleak_holder.find(get())) for _ in range(REPEATS)]
    quiet = [idle(r["ms"] / 1000) for r in runs]
    out["cases"][name] = {
        "found": runs[0]["found"],
        "path": runs[0].get("path") or runs[0].get("why"),
        "passes": runs[0]["calls"],
        "ms": median([r["ms"] for r in runs]),
        "cpuMs": median([r["cpuMs"] for r in runs]),
        "longestPassMs": median([r["longestMs"] for r in runs]),
        "programGapMs": median([r["programGapMs"] for r in runs]),
        "idleGapMs": median([q["programGapMs"] for q in quiet]),
    }
print(json.dumps(out))
