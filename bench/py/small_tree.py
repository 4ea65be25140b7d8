"""A tree of many small Python processes for measuring sampling cost: a parent and WORKERS forked workers that each
own MB megabytes (a pool of request handlers, a process-per-job scheduler). No PyTorch: each process maps only the
interpreter, so the kernel's share of every read is small and memleak's own share shows.

Usage: python3 small_tree.py [WORKERS] [MB]. Prints "ready" once every worker holds its memory; runs until killed."""
import os
import sys
import time

workers = int(sys.argv[1]) if len(sys.argv) > 1 else 63
megabytes = int(sys.argv[2]) if len(sys.argv) > 2 else 8

for _ in range(workers):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
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
