"""What a thread in a forking parent costs each forked child (BENCHMARKS.md § g¹²), three ways, one per run:
  none    the parent has only its main thread;
  thread  a second thread blocked in select, as the agent's reporting thread waits between reports;
  pause   that thread ended before each fork and started again after it (os.register_at_fork), so that no child is
          forked from a multi-threaded process.
Forks WORKERS children (default 16) that each own 8 MB, one after the other as a pre-fork server does, and prints the
median child's private memory (smaps_rollup's Private_Clean + Private_Dirty, kB) a second after the last fork.
Usage: python3 fork_thread_cost.py none|thread|pause [WORKERS]"""
import _thread
import os
import select
import statistics
import sys
import time

from forked_workers import fork_idle_workers, private_kib, rollup_kib, stop_workers

mode = sys.argv[1]
workers = int(sys.argv[2]) if len(sys.argv) > 2 else 16
wake_r, wake_w = os.pipe()
state = {"asked": False, "ended": None}


def wait_for_words():
    while True:
        select.select([wake_r], [], [], None)
        os.read(wake_r, 64)
        if state["asked"]:
            return


def start():
    ended = _thread.allocate_lock()
    ended.acquire()
    state["ended"] = ended

    def run():
        try:
            wait_for_words()
        finally:
            ended.release()

    _thread.start_new_thread(run, ())


def before_fork():
    state["asked"] = True
    os.write(wake_w, b"x")
    state["ended"].acquire()
    time.sleep(0.002)  # the OS thread's exit, after its last Python line


def after_fork_in_parent():
    state["asked"] = False
    start()


if mode != "none":
    start()
if mode == "pause":
    os.register_at_fork(before=before_fork, after_in_parent=after_fork_in_parent)
time.sleep(0.2)
children = fork_idle_workers(workers)


print("%s: median child private %d kB" % (mode, statistics.median(private_kib(rollup_kib(c)) for c in children)))
stop_workers(children)
