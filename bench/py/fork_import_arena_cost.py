"""Whether a forking parent's imports cost its children less when a thread of their own does them (BENCHMARKS.md
§ g²²): glibc gives a thread that allocates its own arena, so the imports' chunks, free and used, would sit outside
the main heap whose layout the children inherit. Four parents, one per run:
  none                the parent has only its main thread;
  thread              a second thread that only sleeps (the agent's reporting thread, as it waits);
  main-import+thread  the main thread imports json, socket, select, struct and ctypes and encodes a report-sized
                      document, then that thread sleeps beside it (the agent as `run` loads it);
  thread-import       the sleeping thread does the imports and the encoding itself, before the fork.
Forks WORKERS children (default 64) that each own 8 MB, one after the other, and prints the median child's private
memory (smaps_rollup's Private_Clean + Private_Dirty, kB), Σ PSS of the children (and its anonymous part) and the
parent's, a second after the last fork. Run it under `setarch x86_64 -R` so that the layout is the same each time.
Usage: python3 fork_import_arena_cost.py MODE [WORKERS]"""
import _thread
import os
import statistics
import sys
import time

from forked_workers import fork_idle_workers, private_kib, rollup_kib, stop_workers

mode = sys.argv[1]
workers = int(sys.argv[2]) if len(sys.argv) > 2 else 64
IMPORTS = "import json, socket, select, struct, ctypes"
done = _thread.allocate_lock()
done.acquire()


def imports_and_a_report():
    exec(IMPORTS, {})
    json = sys.modules["json"]
    json.dumps({"k%d" % i: list(range(50)) for i in range(200)})


def sleeper(do_imports):
    if do_imports:
        imports_and_a_report()
    done.release()
    time.sleep(100000)


if mode == "main-import+thread":
    imports_and_a_report()
if mode != "none":
    _thread.start_new_thread(sleeper, (mode == "thread-import",))
    done.acquire()
time.sleep(0.2)
children = fork_idle_workers(workers)
rs = [rollup_kib(c) for c in children]
me = rollup_kib(os.getpid())
print(
    "%-20s median child private %d kB, Σ PSS children %.2f MiB (anonymous %.2f), parent %.2f MiB"
    % (
        mode,
        statistics.median(private_kib(r) for r in rs),
        sum(r["Pss"] for r in rs) / 1024,
        sum(r["Pss_Anon"] for r in rs) / 1024,
        me["Pss"] / 1024,
    )
)
stop_workers(children)
