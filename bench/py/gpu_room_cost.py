"""What the GPU sites room (src/agent/python/memleak_gpu_sites.py) adds to an agent's report in a process with CUDA up,
on the STAND-IN torch (test/helpers/stand-in-torch: NOT PyTorch, no GPU; its memory_stats is a dict built in Python,
dearer than PyTorch's C++ call, so the report's own cost here is an upper bound). Each round times REPORTS reports with
the room following the floors and REPORTS with it replaced by nothing, alternating, in one process; and, once, the
bytes the room's code and state take (tracemalloc around its loading).

Usage: python3 gpu_room_cost.py [ROUNDS] [REPORTS]. Prints one JSON line."""
import json
import os
import statistics
import sys
import time
import tracemalloc

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "test", "helpers", "stand-in-torch"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "src", "agent", "python"))
import torch  # noqa: E402  (the stand-in)
import memleak_agent as A  # noqa: E402

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
reports = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
kept = [torch.randn(64, 16384, device="cuda")]  # CUDA up, one device used
life = A.lifecycle
tracemalloc.start()
before = tracemalloc.take_snapshot()
life._gpu_sites_beat(A.readings._cuda_stats())  # loads the room
after = tracemalloc.take_snapshot()
tracemalloc.stop()
room_bytes = sum(s.size_diff for s in after.compare_to(before, "filename"))
with_room = life._gpu_sites_beat


def timed(beat):
    life._gpu_sites_beat = beat
    t0 = time.perf_counter()
    for _ in range(reports):
        life._report(1.0, census=False)
    return (time.perf_counter() - t0) / reports * 1e6


ratios, on, off = [], [], []
for _ in range(rounds):
    a = timed(with_room)
    b = timed(lambda gpu: None)
    on.append(a)
    off.append(b)
    ratios.append(a / b)
print(
    json.dumps(
        {
            "reportMicrosWithRoom": round(statistics.median(on), 1),
            "reportMicrosWithout": round(statistics.median(off), 1),
            "ratio": round(statistics.median(ratios), 3),
            "roomBytes": room_bytes,
        }
    )
)
