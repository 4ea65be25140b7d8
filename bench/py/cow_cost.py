"""What memleak's copy-on-write look costs a forked worker (issue 51, src/agent/python/memleak_cow.py): for data of four
shapes built by a parent and half read by a forked child, the look's wall and CPU time, the private memory it made
itself, and how its answer compares with the child's own Private_Dirty growth. Usage: python3 cow_cost.py [rounds]."""
import gc
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "agent", "python"))
import memleak_cow  # noqa: E402

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
N = 600_000


def build(shape):
    if shape == "list of str":
        return ["sample %07d: %s" % (i, "x" * 40) for i in range(N)]
    if shape == "list of list (rows)":
        return [["sample %07d" % i, i] for i in range(N)]
    if shape == "dict of str":
        return {"k%d" % i: "v%d" % i * 3 for i in range(N)}
    import numpy as np

    return np.arange(N * 8, dtype=np.float64)


def read_half(data):
    if hasattr(data, "sum"):
        return float(data[: len(data) // 2].sum())
    if isinstance(data, dict):
        return sum(len(v) for i, v in enumerate(data.values()) if i < N // 2)
    return sum(len(data[i]) if isinstance(data[i], str) else len(data[i][0]) for i in range(N // 2))


def one(shape):
    global DATA
    DATA = build(shape)
    gc.collect()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        before = memleak_cow._private_anon()
        read_half(DATA)
        grown = memleak_cow._private_anon() - before
        look = memleak_cow.copied(None, lambda m: getattr(m, "__name__", "") == "__main__")
        o = look["objects"][0]
        os.write(
            w,
            json.dumps(
                {
                    "ms": look["ms"],
                    "cpuMs": look["cpuMs"],
                    "walk": look["walkBytes"],
                    "named": o["itemsPrivate"] + o["storagePrivate"],
                    "grown": grown,
                }
            ).encode(),
        )
        os._exit(0)
    os.close(w)
    data = b""
    while True:
        part = os.read(r, 65536)
        if not part:
            break
        data += part
    os.waitpid(pid, 0)
    return json.loads(data)


MiB = 2**20
print(
    "| data (600,000 items; numpy: 4.8 M float64) | look, ms (CPU) | the look's own private memory | named / the child's Private_Dirty growth |"
)
print("| --- | --- | --- | --- |")
for shape in ("list of str", "list of list (rows)", "dict of str", "numpy array (read, not copied)"):
    runs = [one(shape) for _ in range(ROUNDS)]
    ms = statistics.median(r["ms"] for r in runs)
    cpu = statistics.median(r["cpuMs"] for r in runs)
    walk = statistics.median(r["walk"] for r in runs) / MiB
    named = statistics.median(r["named"] for r in runs) / MiB
    grown = statistics.median(r["grown"] for r in runs) / MiB
    print("| %s | %.1f (%.1f) | %.2f MiB | %.1f / %.1f MiB |" % (shape, ms, cpu, walk, named, grown))
