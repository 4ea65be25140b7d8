"""A service's tree with one worker that starts to leak: a parent and WORKERS forked workers of MB megabytes each,
idle (asleep), like a pool of request handlers between requests; LEAK_AFTER seconds after "ready", the last worker
forked starts keeping 1 MiB a second in a module-level list (`cache`), as a handler that memoises every response would. For
issue 49's check and benchmark: agents only where they tell something, and the time from the leak's start to its
holder named.

Usage: python3 idle_tree_one_leaks.py [WORKERS] [MB] [LEAK_AFTER] [LIFETIME] [KIND]. Prints "ready" once every worker
holds its memory, then "leaking worker: PID" when the leak starts; runs until killed, or LIFETIME seconds after "ready"
(then the workers are stopped and the parent exits: for `memleak run`; 0: until killed). KIND "once" makes the last
worker diverge from its group instead of leaking: it takes 48 MiB more at LEAK_AFTER (a model only it loaded) and is
idle again at that level ("diverging worker: PID")."""
import os
import sys
import time

workers = int(sys.argv[1]) if len(sys.argv) > 1 else 16
megabytes = int(sys.argv[2]) if len(sys.argv) > 2 else 8
leak_after = float(sys.argv[3]) if len(sys.argv) > 3 else 10
lifetime = float(sys.argv[4]) if len(sys.argv) > 4 and float(sys.argv[4]) > 0 else None
once = len(sys.argv) > 5 and sys.argv[5] == "once"
cache = []


def serve(ready, go):
    own = bytearray(megabytes * 2**20)
    for i in range(0, len(own), 4096):
        own[i] = 1
    os.write(ready, b"x")
    os.close(ready)
    if go is None:
        while True:
            time.sleep(3600)
    os.read(go, 1)  # idle until the parent says: blocked in a read, as a worker waits for its next request
    if once:
        cache.append(bytearray(48 * 2**20))  # zeroed, so every page is resident at once
        while True:
            time.sleep(3600)
    while True:
        cache.append(bytearray(2**20))  # zeroed, so every page is resident at once
        time.sleep(1)


go_read, go_write = os.pipe()
leaker = None
children = []
for n in range(workers):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        serve(w, go_read if n == workers - 1 else None)
    children.append(pid)
    os.close(w)
    os.read(r, 1)
    os.close(r)
    if n == workers - 1:
        leaker = pid
print("ready", flush=True)
started = time.monotonic()
time.sleep(leak_after)
os.write(go_write, b"x")
print("%s worker: %d since %.3f" % ("diverging" if once else "leaking", leaker, time.time()), flush=True)
if lifetime is None:
    while True:
        time.sleep(3600)
time.sleep(max(0.0, lifetime - (time.monotonic() - started)))
for pid in children:
    os.kill(pid, 15)
for pid in children:
    os.waitpid(pid, 0)
