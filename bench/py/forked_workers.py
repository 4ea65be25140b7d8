"""What the fork-cost probes share (fork_thread_cost.py, fork_import_arena_cost.py; tree_pss.py's rollup): idle
workers forked one after the other as a pre-fork server forks them, and a process's smaps_rollup in one read. Only os
and time are imported here, so that loading this module moves a probe's parent as little as a few lines of its own
would (each probe compares parents that all import it)."""
import os
import time


def fork_idle_workers(workers, megabytes=8):
    """Forks WORKERS children, one after the other, that each write MEGABYTES of their own and then sleep; returns
    their pids once each has said it holds its memory, a second after the last."""
    children = []
    for _ in range(workers):
        ready_r, ready_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            own = bytearray(megabytes * 2**20)
            for i in range(0, len(own), 4096):
                own[i] = 1
            os.write(ready_w, b"x")
            time.sleep(3600)
        os.read(ready_r, 1)
        os.close(ready_r)
        os.close(ready_w)
        children.append(pid)
    time.sleep(1)
    return children


def stop_workers(children):
    for c in children:
        os.kill(c, 9)
        os.waitpid(c, 0)


def rollup_kib(pid):
    """Every kB field of /proc/PID/smaps_rollup in one read (Pss; Pss_Anon: the anonymous pages alone, what is new
    memory where a file's shared pages are only split among more processes); None once it has gone."""
    out = {}
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 3 and parts[2] == "kB":
                    out[parts[0].rstrip(":")] = int(parts[1])
    except OSError:
        return None
    return out


def private_kib(fields):
    """A process's private memory, kB: the Private_ fields of its rollup (Private_Clean + Private_Dirty)."""
    return sum(v for k, v in fields.items() if k.startswith("Private_"))
