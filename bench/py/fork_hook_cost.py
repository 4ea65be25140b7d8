"""What a parent's before-fork hook, or a thread of its own, costs the idle workers it forks, with nothing of memleak's
loaded: bench/py/small_tree.py run five ways at once (bare twice, the second the control; a before-fork hook that only
reads a flag, as the agent's does; a thread that wakes every second to build a small JSON; both), and SECONDS after
all said "ready", each tree's median worker's and whole tree's Pss (/proc/PID/smaps_rollup) against the first bare one.
Run it under `setarch x86_64 -R` so the control matches to the kB, with the interpreter to measure (BENCHMARKS.md §g²⁰:
Debian's 3.11.2 pays six pages a worker for the hook, pyenv's 3.11.7 one).

Usage: setarch x86_64 -R PYTHON bench/py/fork_hook_cost.py [WORKERS=255] [SECONDS=20]"""
import os
import statistics
import sys
import time

from tree_pss import children, pss_kib, start, stop_all, wait_ready

HERE = os.path.dirname(os.path.abspath(__file__))
workers = int(sys.argv[1]) if len(sys.argv) > 1 else 255
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 20.0

THREAD = (
    "import threading, json\n"
    "def _report():\n"
    "    while True:\n"
    "        time.sleep(1)\n"
    "        json.dumps({'a': list(range(50)), 't': time.time()})\n"
    "threading.Thread(target=_report, daemon=True).start()\n"
)
HOOK = "_flag = False\ndef _before():\n    if _flag:\n        pass\nos.register_at_fork(before=_before)\n"
VARIANTS = {"bare": "", "control": "", "hook": HOOK, "thread": THREAD, "thread and hook": THREAD + HOOK}


with open(os.path.join(HERE, "small_tree.py")) as f:
    tree_source = f.read()
procs = {}
try:
    for name, before in VARIANTS.items():
        code = (
            "import os, sys, time\n%ssys.argv = ['small_tree.py', '%d', '8']\nexec(compile(%r, 'small_tree.py', 'exec'))"
            % (
                before,
                workers,
                tree_source,
            )
        )
        procs[name] = start([sys.executable, "-c", code])
    for p in procs.values():
        wait_ready(p)
    time.sleep(seconds)
    base = None
    for name, p in procs.items():
        kids = children(p.pid)
        each = [pss_kib(k) for k in kids]
        tree, median = pss_kib(p.pid) + sum(each), statistics.median(each)
        if base is None:
            base = (tree, median)
        print(
            "%-16s median worker %+d kB, tree %+.1f MiB against bare (%d workers)"
            % (name, median - base[1], (tree - base[0]) / 1024, len(kids)),
            flush=True,
        )
finally:
    stop_all(procs.values())
