"""BENCHMARKS.md §k″: what run --trace-python's sites cost the program, at exit (grown_sites: every trace's every frame
filtered) and during the run (grown_sites_by_line: the baseline grouped once, the agent left out by line), on N live
traced blocks made after the baseline. CPU seconds of this thread, medians of 3. Usage: trace_sites_cost.py [N...]"""
import os
import statistics
import sys
import time
import tracemalloc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "src/agent/python"))
import memleak_agent as agent  # noqa: E402
import memleak_trace  # noqa: E402

tracer = memleak_trace.Tracer(agent.lifecycle, agent.lifecycle._agent_files())
tracemalloc.start(6)
baseline = tracemalloc.take_snapshot()
keep = []
print("| live traced blocks | at exit (_grown_sites) | during the run (_grown_sites_by_line) | its gap at 1% of a core |")
print("| --- | --- | --- | --- |")
for n in [int(a) for a in sys.argv[1:]] or [10_000, 100_000]:
    keep += [("%d" % i) * 3 for i in range(n - len(keep))]

    def cost(f):
        runs = []
        for _ in range(3):
            t0 = time.thread_time()
            f()
            runs.append(time.thread_time() - t0)
        return statistics.median(runs)

    full = cost(lambda: tracer.grown_sites(baseline, tracemalloc.take_snapshot()))
    quick = cost(lambda: tracer.grown_sites_by_line(baseline, tracemalloc.take_snapshot()))
    print("| %s | %.2f s | %.2f s | %.0f s |" % (format(n, ","), full, quick, max(memleak_trace.EVERY, quick / memleak_trace.SHARE)))
