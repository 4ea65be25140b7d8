"""The agent's tracemalloc room: `run --trace-python` (tracing from the start, a baseline after the warm-up, the sites
that grew sent during the run and at exit) and `watch --trace-python` (a window in a running program, then
tracemalloc stopped). Loaded by the agent (memleak_lifecycle.py `_tracer`) only in a process that is traced: the
others never compile or hold this code. The agent's lifecycle room is handed in, for its socket and threads, and the
agent's files."""
import os
import time

FRAMES = 6
EVERY = 10.0  # seconds: the sites that grew are sent during the run this often at most,
SHARE = 0.01  # and no more often than keeps the snapshots' CPU under 1% of one core
BEFORE = 5.0  # seconds of the program's CPU measured untraced before a window, to compare the window's with


class Tracer:
    """One process's tracing: its baseline snapshot and, once grouped, the baseline's totals by line."""

    def __init__(self, agent, files):
        self.agent = agent
        self.baseline = None
        self.totals = None
        # Files whose allocations are memleak's own, left out of the sites: the agent's, this one's, tracemalloc's.
        self.own = tuple(files) + (__file__,)

    def start(self):
        """`run`: tracemalloc from now on, the baseline after MEMLEAK_TRACE_WARMUP seconds, then the sites that grew,
        every MEMLEAK_TRACE_EVERY seconds or more, on a thread of the agent's."""
        import tracemalloc

        agent = self.agent
        # A few frames per trace, so that allocations made by the agent itself (through ctypes, json, …) can be
        # filtered out by any frame being in its files; statistics still group by the innermost frame.
        tracemalloc.start(FRAMES)
        warmup = agent._env_float("MEMLEAK_TRACE_WARMUP", 5.0)
        every = max(1.0, agent._env_float("MEMLEAK_TRACE_EVERY", EVERY))
        stop, pid = agent._process.stop, os.getpid()

        def baseline_then_sites():
            """The baseline after warm-up, then the sites that grew since, every `every` seconds or more: the live
            view and the report have them while the program runs, and a process that ends without running atexit
            (os._exit, killed) leaves its last ones. Each costs in proportion to the live traces (~0.3-0.9 s of CPU per
            100,000 on this project's loaded machine, BENCHMARKS.md §k″): the gap stretches so that they keep under
            SHARE of one core (every ~30-90 s at 100,000 traces, every 5-15 minutes at a million)."""
            if stop.wait(warmup):
                return
            self.baseline = tracemalloc.take_snapshot()
            self.totals = None
            if os.environ.get("MEMLEAK_PYTEST_REPEAT"):
                return  # memleak pytest: a snapshot holds measure_lock for seconds, and the tests' readings wait on it
            gap = every
            while not stop.wait(gap) and os.getpid() == pid and self.baseline is not None:
                t0 = time.thread_time()
                try:
                    self.report(interim=True)
                except Exception:
                    pass
                gap = max(every, (time.thread_time() - t0) / SHARE)

        agent._start_thread(baseline_then_sites, ())

    def report(self, interim=False):
        """The sites that grew since the baseline, sent: during the run (interim: a later one replaces it), or at exit."""
        import tracemalloc

        baseline = self.baseline
        if not tracemalloc.is_tracing() or baseline is None:
            return
        # Held like a report: the pytest plugin's readings never count a snapshot's transient objects.
        with self.agent.measure_lock:
            now = tracemalloc.take_snapshot()
            top = self.grown_sites_by_line(baseline, now) if interim else self.grown_sites(baseline, now)
            now = None  # freed under the lock, as the temporary was before: no reading counts its objects
        baseline = None
        current, peak = tracemalloc.get_traced_memory()
        message = _message(top, current, peak)
        if interim:
            message["interim"] = True  # a later one replaces it; the one at exit is final
        self.agent._channel._send(message)

    def grown_sites(self, baseline, now):
        """The ten lines whose live allocations grew most from one snapshot to the other, memleak's own left out."""
        import tracemalloc

        filters = [tracemalloc.Filter(False, tracemalloc.__file__)]
        filters += [tracemalloc.Filter(False, f, all_frames=True) for f in self.own]
        filters.append(tracemalloc.Filter(False, "<frozen importlib._bootstrap*>"))
        stats = now.filter_traces(filters).compare_to(baseline.filter_traces(filters), "lineno")
        top = []
        for st in stats[:10]:
            if st.size_diff <= 0:
                continue
            frame = st.traceback[0]
            top.append(
                {
                    "file": frame.filename,
                    "line": frame.lineno,
                    "sizeDiff": st.size_diff,
                    "countDiff": st.count_diff,
                    "size": st.size,
                }
            )
        return top

    def grown_sites_by_line(self, baseline, now):
        """grown_sites for the sites sent during the run, at a fraction of its cost: the baseline is grouped once (kept
        beside it), and memleak's own allocations are left out by the line that made them. grown_sites's filter runs
        over every trace's every frame, in Python: 6.8 s of CPU for 100,000 traces on this project's loaded machine,
        where grouping them took 0.9 s. What the agent allocates through another module (json) is transient: a
        report is sent and dropped before the next."""
        import tracemalloc

        if self.totals is None:
            self.totals = _line_totals(baseline)
        before = self.totals
        own = (tracemalloc.__file__,) + self.own
        grown = []
        for (filename, lineno), (size, count) in _line_totals(now).items():
            if filename in own or filename.startswith("<frozen importlib._bootstrap"):
                continue
            size0, count0 = before.get((filename, lineno), (0, 0))
            if size > size0:
                grown.append(
                    {
                        "file": filename,
                        "line": lineno,
                        "sizeDiff": size - size0,
                        "countDiff": count - count0,
                        "size": size,
                    }
                )
        grown.sort(key=lambda s: s["sizeDiff"], reverse=True)
        return grown[:10]

    def window(self, seconds, stop):
        """watch --trace-python: tracemalloc in a running program for `seconds`, then the sites that grew, what it cost
        the program (its CPU share during the window against just before, and tracemalloc's own memory), and
        tracemalloc stopped, which frees every trace. A program that traces itself is left alone: its tracemalloc is
        its own. Stops early, freeing everything, when memleak leaves (`stop`)."""
        import tracemalloc

        send = self.agent._channel._send
        if tracemalloc.is_tracing():
            skipped = _message([], 0, 0)
            skipped["skipped"] = "the program runs tracemalloc itself"
            send(skipped)
            return
        before = min(BEFORE, seconds / 4)
        cpu0, wall0 = time.process_time(), time.monotonic()
        if stop.wait(before):
            return
        share_before = (time.process_time() - cpu0) / max(time.monotonic() - wall0, 1e-3)
        baseline = now = None
        try:
            tracemalloc.start(FRAMES)
            cpu0, wall0 = time.process_time(), time.monotonic()
            baseline = tracemalloc.take_snapshot()
            if stop.wait(seconds):
                return
            now = tracemalloc.take_snapshot()
            overhead = tracemalloc.get_tracemalloc_memory()
            current, peak = tracemalloc.get_traced_memory()
            wall = time.monotonic() - wall0
            share = (time.process_time() - cpu0) / max(wall, 1e-3)
            top = self.grown_sites(baseline, now)
        finally:
            baseline = now = None
            tracemalloc.stop()
        message = _message(top, current, peak)
        message["window"] = {
            "seconds": round(wall, 1),
            "cpuShare": round(share, 4),
            "cpuShareBefore": round(share_before, 4),
            "overheadBytes": overhead,
        }
        send(message)


def _message(sites, traced, peak):
    """The trace message both paths send (run's at exit or interim, watch's window): the sites that grew and
    tracemalloc's own memory."""
    return {"type": "trace", "pid": os.getpid(), "t": time.time(), "sites": sites, "traced": traced, "tracedPeak": peak}


def _line_totals(snapshot):
    """(file, line) → (bytes, blocks) of a snapshot's live allocations, by the line that made them."""
    out = {}
    for st in snapshot.statistics("lineno"):
        frame = st.traceback[0]
        out[(frame.filename, frame.lineno)] = (st.size, st.count)
    return out
