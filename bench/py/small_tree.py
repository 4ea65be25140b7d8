"""A tree of many small Python processes for measuring sampling cost: a parent and WORKERS forked workers that each
own MB megabytes (a pool of request handlers, a process-per-job scheduler). No PyTorch: each process maps only the
interpreter, so the kernel's share of every read is small and memleak's own share shows.

Usage: python3 small_tree.py [WORKERS] [MB] [STEPS_DIR]. Prints "ready" once every worker holds its memory; runs until
killed. With STEPS_DIR, a worker sent SIGUSR1 runs STEPS_DIR/step_<its pid>.py on its main thread, as gdb's pending
call runs memleak's loader there (bench/py/attach_cow.py); without it nothing more is imported."""
import os
import sys
import time

workers = int(sys.argv[1]) if len(sys.argv) > 1 else 63
megabytes = int(sys.argv[2]) if len(sys.argv) > 2 else 8
steps_dir = sys.argv[3] if len(sys.argv) > 3 else None
if steps_dir is not None:
    # Imported before the fork, so that the workers share what it loaded: since the fork a worker has run nothing but
    # the handler's setting, like an idle worker of a pool.
    import signal


def run_step(signum, frame):
    path = os.path.join(steps_dir, "step_%d.py" % os.getpid())
    with open(path) as f:
        source = f.read()
    exec(compile(source, path, "exec"), {"__name__": "_step"})


for _ in range(workers):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        if steps_dir is not None:
            signal.signal(signal.SIGUSR1, run_step)
        own = bytearray(megabytes * 2**20)
        for i in range(0, len(own), 4096):
            own[i] = 1
        os.write(w, b"x")
        os.close(w)
        while True:
            time.sleep(3600)
    os.close(w)
    os.read(r, 1)
    os.close(r)
print("ready", flush=True)
while True:
    time.sleep(3600)
