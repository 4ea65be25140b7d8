"""The agent's GPU sites room: the lines of the program that allocated the CUDA memory a leak keeps.

Loaded in a process once its CUDA allocator has been read (memleak_lifecycle.py _gpu_sites_beat): a process that never
initialised CUDA never loads it. It follows each device's allocated *floor*, the lowest reading of each FLOOR_SECONDS:
a training loop's readings swing with its steps, but between steps it holds its model and optimiser, and that floor
only rises when tensors are kept. Once a floor has risen RISES times in a row, by FLOOR_RISE_BYTES or more each, the
room records the caching allocator's history for WINDOW seconds with Python stacks
(torch.cuda.memory._record_memory_history: every block allocated meanwhile keeps the stack that allocated it), takes
a snapshot, and stops recording. The blocks of the snapshot that carry a stack were allocated in the window and are
still alive at its end: what the leak kept. They are grouped by the innermost frame of the program's own code (not
PyTorch's, the standard library's or an installed package's) and sent, largest first, in one 'gpu-sites' message.
Once per process.

At a CUDA out-of-memory error (PyTorch's out-of-memory observer, attached when the room is loaded) it sends what was
held at that moment in one 'gpu-oom' message: the request that failed and what the driver said was free, the
allocator's allocated and reserved bytes, how much of the reserve was free and the largest free block there (more free
than asked for, in no block large enough, is fragmentation), and the program's lines of the blocks alive, where a
window was recording then. At most MAX_OOMS a process (a program that catches the error and halves its batch).

What the window costs the program is measured, not assumed: its rate of allocation requests (memory_stats'
allocation.all.allocated) in the floor period before the window and during it. A training step makes the same
requests each time, so their ratio is the step rate's. PyTorch 2.1's API (enabled/context/stacks); where it is
missing or refuses, the message says why and nothing is recorded.
"""
import os
import sys
import time

FLOOR_SECONDS = 5.0
RISES = 2
FLOOR_RISE_BYTES = 4 * 1024 * 1024
WINDOW = 10.0  # seconds, MEMLEAK_GPU_HISTORY_SECONDS
TOP = 10  # sites sent, per device
MAX_OOMS = 4


class GpuSites:
    """One process's GPU floors and its one recording window. `agent`: the lifecycle room (its channel, its settings);
    `own_path`: whether a source file is the program's (memleak_census.py _own_path)."""

    def __init__(self, agent, own_path):
        self.agent = agent
        self.own_path = own_path
        self.floors = {}  # device index → [period start, lowest allocated in it, floors of the periods before]
        self.counts = {}  # device index → (time, allocation requests) at the start of the current period
        self.before = {}  # device index → (time, requests) at the start of the period before the window
        self.started = None  # time.monotonic() when recording began
        self.done = False
        self.window = max(1.0, agent._env_float("MEMLEAK_GPU_HISTORY_SECONDS", WINDOW))
        self.ooms = 0
        try:
            sys.modules["torch"]._C._cuda_attach_out_of_memory_observer(self.oom)
        except Exception:  # PyTorch before 2.0: no observer, and no word of an out-of-memory error
            pass

    def oom(self, device, alloc, device_allocated, device_free):
        """PyTorch's out-of-memory observer: called as the allocator gives up, before the error is raised."""
        if self.ooms >= MAX_OOMS:
            return
        self.ooms += 1
        try:
            fields = {"device": "cuda:%d" % device, "request": int(alloc), "deviceFree": int(device_free)}
            stats = sys.modules["torch"].cuda.memory_stats(device)
            for key, name in (
                ("allocated_bytes.all.current", "allocated"),
                ("reserved_bytes.all.current", "reserved"),
                ("inactive_split_bytes.all.current", "inactiveSplit"),
            ):
                if isinstance(stats.get(key), int):
                    fields[name] = stats[key]
            snapshot = _memory()._snapshot()
            free = [
                int(b.get("size", 0))
                for seg in snapshot.get("segments", ())
                if seg.get("device", 0) == device
                for b in seg.get("blocks", ())
                if b.get("state") == "inactive"
            ]
            fields["freeInReserve"] = sum(free)
            fields["largestFreeBlock"] = max(free) if free else 0
            sites = self.sites(snapshot).get(device, [])
            snapshot = None
            if sites:
                fields["sites"] = sites[:TOP]
            self.send(fields, kind="gpu-oom")
        except Exception:
            pass

    def beat(self, gpu, now):
        """At each report, with its CUDA readings ("cuda0Allocated"…): follow the floors, or end a window that is due."""
        if self.done:
            return
        if self.started is not None:
            if now - self.started >= self.window:
                self.finish(now)
            return
        if self.follow(gpu, now):
            self.start(now)

    def at_exit(self, now):
        """The program ends during the window: what it recorded so far is sent, not lost with the process."""
        if self.started is not None and not self.done:
            self.finish(now)

    def follow(self, gpu, now):
        """True once a device's floor has risen RISES times in a row."""
        rising = False
        for key, value in gpu.items():
            if not (key.startswith("cuda") and key.endswith("Allocated")):  # "cuda0Allocated", not its peak
                continue
            try:
                device = int(key[4 : -len("Allocated")])
            except ValueError:
                continue
            f = self.floors.get(device)
            if f is None:
                self.floors[device] = [now, value, []]
                self.counts[device] = (now, _requests(device))
                continue
            f[1] = min(f[1], value)
            if now - f[0] < FLOOR_SECONDS:
                continue
            floors = f[2]
            floors.append(f[1])
            del floors[: -(RISES + 1)]
            f[0], f[1] = now, value
            self.before[device] = self.counts.get(device)
            self.counts[device] = (now, _requests(device))
            if len(floors) == RISES + 1 and all(b - a >= FLOOR_RISE_BYTES for a, b in zip(floors, floors[1:])):
                rising = True
        return rising

    def start(self, now):
        """Recording on, with Python stacks, for the blocks alive: no trace of every call is kept (enabled="state")."""
        try:
            _memory()._record_memory_history(enabled="state", context="state", stacks="python")
        except Exception as e:
            self.done = True
            self.send({"why": "torch.cuda.memory._record_memory_history refused: %s" % _why(e)})
            return
        self.started = now

    def finish(self, now):
        """The snapshot, recording off, and the sites sent."""
        self.done = True
        memory = _memory()
        try:
            snapshot = memory._snapshot()
        except Exception as e:
            snapshot = None
            why = _why(e)
        finally:
            try:
                memory._record_memory_history(enabled=None)
            except Exception:
                pass
        if snapshot is None:
            self.send({"why": "torch.cuda.memory._snapshot failed: %s" % why})
            return
        devices = []
        for device, sites in sorted(self.sites(snapshot).items()):
            entry = {"device": "cuda:%d" % device, "sites": sites[:TOP]}
            entry["blocks"] = sum(s["count"] for s in sites)
            entry["bytes"] = sum(s["size"] for s in sites)
            entry.update(self.rates(device, now))
            devices.append(entry)
        snapshot = None
        self.send({"seconds": round(now - self.started, 2), "devices": devices})

    def sites(self, snapshot):
        """Device index → the program's lines whose blocks were allocated in the window and are alive, largest first."""
        library = _library_dirs()
        by_device = {}
        for segment in snapshot.get("segments", ()):
            device = segment.get("device", 0)
            for block in segment.get("blocks", ()):
                if block.get("state") != "active_allocated":
                    continue
                frames = block.get("frames") or _legacy_frames(block)
                if not frames:
                    continue  # allocated before the window
                site = self.site(frames, library)
                key = (site["file"], site["line"], site["name"])
                grouped = by_device.setdefault(device, {})
                s = grouped.get(key)
                if s is None:
                    s = grouped[key] = dict(site, size=0, count=0)
                s["size"] += int(block.get("size", 0))
                s["count"] += 1
        return {d: sorted(g.values(), key=lambda s: -s["size"]) for d, g in by_device.items()}

    def site(self, frames, library):
        """The innermost frame of the program's own code (frames come innermost first), with the innermost of all
        when that is a library's (torch/nn/modules/linear.py forward); the innermost of all where none is the
        program's."""
        first = frames[0]
        for frame in frames:
            path = frame.get("filename", "")
            if self.own_path(path) and not path.startswith(library):
                out = {"file": path, "line": int(frame.get("line", 0)), "name": str(frame.get("name", ""))}
                if frame is not first:
                    out["via"] = "%s:%s %s" % (first.get("filename", ""), first.get("line", 0), first.get("name", ""))
                return out
        return {"file": first.get("filename", ""), "line": int(first.get("line", 0)), "name": first.get("name", "")}

    def rates(self, device, now):
        """Allocation requests a second in the floor period before the window and during it, where both were read."""
        before, at_start = self.before.get(device), self.counts.get(device)
        end = _requests(device)
        out = {}
        if before and at_start and before[1] is not None and at_start[1] is not None and at_start[0] > before[0]:
            out["requestsPerSecondBefore"] = round((at_start[1] - before[1]) / (at_start[0] - before[0]), 2)
        if at_start and at_start[1] is not None and end is not None and now > self.started:
            # From the window's start: the count read at the period's roll, the beat recording began at.
            out["requestsPerSecondDuring"] = round((end - at_start[1]) / (now - at_start[0]), 2)
        return out

    def send(self, fields, kind="gpu-sites"):
        message = {"type": kind, "pid": os.getpid(), "t": time.time()}
        message.update(fields)
        self.agent._channel._send(message)


def _memory():
    return sys.modules["torch"].cuda.memory


def _requests(device):
    """The allocator's count of allocation requests so far on a device, or None."""
    try:
        value = sys.modules["torch"].cuda.memory_stats(device).get("allocation.all.allocated")
        return value if isinstance(value, int) else None
    except Exception:
        return None


def _legacy_frames(block):
    """PyTorch 2.0 kept a block's stack in its history's last entry."""
    history = block.get("history")
    return history[-1].get("frames") if history else None


def _library_dirs():
    """PyTorch's own package: its Python frames are the library's wherever it is installed (a source build too)."""
    torch = sys.modules.get("torch")
    path = getattr(torch, "__file__", None)
    return (os.path.dirname(path) + os.sep,) if isinstance(path, str) else ()


def _why(e):
    return ("%s: %s" % (type(e).__name__, e))[:200]
