"""STAND-IN for torch.cuda (NOT PyTorch): the caching allocator's numbers per device are whatever the test puts in
`devices`, and every call the agent makes is logged in `calls`, so a test can check that the agent never asks for
anything that would initialise CUDA in the user's process (only is_initialized() before it says yes).

    devices[i] = {"allocated": bytes, "reserved": bytes, "active": bytes, "inactive_split": bytes,
                  "alloc_retries": n, "ooms": n, "reserved_peak": bytes, "allocated_peak": bytes}
(reserved_peak defaults to reserved; allocated_peak to the highest allocated any call has seen, as PyTorch keeps it)
The stand-in CUDA tensors alive (torch/tensor.py) add their bytes to their device's allocated, and a device that has
had one reserves at least the most they ever held together (the caching allocator keeps its blocks); making one
initialises CUDA, as in PyTorch.
"""
initialized = False
devices = {}
calls = []


def is_initialized():
    calls.append("is_initialized")
    return initialized


def is_available():
    calls.append("is_available")
    return len(devices) > 0


def device_count():
    calls.append("device_count")
    return len(devices)


_allocated_peaks = {}


_live = {}  # device → bytes of the stand-in CUDA tensors alive on it
_live_peak = {}
_requests = {}  # device → allocation requests so far (memory_stats' allocation.all.allocated)
_blocks = {}  # id of a live storage → (device, bytes, frames: innermost first, or [] when made while not recording)


capacity = None  # bytes a device holds: a tensor past it raises OutOfMemoryError, as PyTorch's allocator does
free_blocks = []  # sizes of the free blocks in the reserve that _snapshot() lists (state "inactive")
_oom_observers = []


class OutOfMemoryError(RuntimeError):
    """torch.cuda.OutOfMemoryError."""


def _tensor_made(device, nbytes, storage):
    global initialized
    initialized = True
    devices.setdefault(device, {})
    if capacity is not None and _device(device).get("reserved", 0) + nbytes > capacity:
        # PyTorch calls its out-of-memory observers with the device, the request, what it holds, what is free.
        held = _device(device).get("reserved", 0)
        devices[device]["ooms"] = devices[device].get("ooms", 0) + 1  # memory_stats' num_ooms, as PyTorch counts
        for observer in _oom_observers:
            observer(device, nbytes, held, capacity - held)
        raise OutOfMemoryError("CUDA out of memory. Tried to allocate %d bytes (stand-in)" % nbytes)
    _live[device] = _live.get(device, 0) + nbytes
    _live_peak[device] = max(_live_peak.get(device, 0), _live[device])
    _requests[device] = _requests.get(device, 0) + 1
    _blocks[id(storage)] = (device, nbytes, memory._stack() if memory.recording else [])


def _tensor_freed(device, nbytes, storage):
    _live[device] = _live.get(device, 0) - nbytes
    _blocks.pop(id(storage), None)


class _Memory:
    """torch.cuda.memory's history, as PyTorch 2.1+ spells it: `_record_memory_history(enabled="state", context=
    "state", stacks="python")` keeps the Python stack of each block allocated from then on, `enabled=None` stops, and
    `_snapshot()` lists the live blocks by segment with their stacks (frames innermost first, as PyTorch's). Every call
    is logged in `calls` with its arguments. `refuse`: a test sets an exception for _record_memory_history to raise."""

    def __init__(self):
        self.recording = False
        self.refuse = None

    def _record_memory_history(self, enabled="all", context="all", stacks="all", max_entries=None):
        calls.append("memory._record_memory_history(%s, %s, %s)" % (enabled, context, stacks))
        if self.refuse is not None:
            raise self.refuse
        self.recording = enabled is not None

    def _snapshot(self):
        calls.append("memory._snapshot")
        segments = []
        for address, (device, nbytes, frames) in sorted(_blocks.items()):
            block = {"address": address, "size": nbytes, "requested_size": nbytes, "state": "active_allocated"}
            block["frames"] = frames
            segments.append({"device": device, "address": address, "total_size": nbytes, "blocks": [block]})
        for i, size in enumerate(free_blocks):
            block = {"address": i, "size": size, "requested_size": 0, "state": "inactive", "frames": []}
            segments.append({"device": 0, "address": i, "total_size": size, "blocks": [block]})
        return {"segments": segments, "device_traces": []}

    def _stack(self):
        import traceback

        stack = traceback.extract_stack()[:-3]  # without this module's own frames
        return [{"filename": f.filename, "line": f.lineno, "name": f.name} for f in reversed(stack)]


memory = _Memory()


def _device(device):
    key = 0 if device is None else device
    d = devices.get(key, {})
    if key not in _live_peak:
        return d
    live = dict(d, allocated=d.get("allocated", 0) + _live[key])
    live["reserved"] = max(d.get("reserved", 0), live["allocated"], _live_peak[key])
    return live


def _allocated_peak(device):
    d = _device(device)
    key = 0 if device is None else device
    _allocated_peaks[key] = max(_allocated_peaks.get(key, 0), d.get("allocated", 0))
    return d.get("allocated_peak", _allocated_peaks[key])


def memory_stats(device=None):
    """As PyTorch names them; {} before CUDA is initialised, as PyTorch's own does."""
    calls.append("memory_stats")
    if not initialized:
        return {}
    d = _device(device)
    return {
        "allocated_bytes.all.current": d.get("allocated", 0),
        "allocated_bytes.all.peak": _allocated_peak(device),
        "reserved_bytes.all.current": d.get("reserved", 0),
        "reserved_bytes.all.peak": d.get("reserved_peak", d.get("reserved", 0)),
        "active_bytes.all.current": d.get("active", d.get("allocated", 0)),
        "inactive_split_bytes.all.current": d.get("inactive_split", 0),
        "allocation.all.allocated": _requests.get(0 if device is None else device, 0),
        "num_alloc_retries": d.get("alloc_retries", 0),
        "num_ooms": d.get("ooms", 0),
    }


def memory_allocated(device=None):
    calls.append("memory_allocated")
    return _device(device).get("allocated", 0)


def memory_reserved(device=None):
    calls.append("memory_reserved")
    return _device(device).get("reserved", 0)


def max_memory_allocated(device=None):
    calls.append("max_memory_allocated")
    return _allocated_peak(device)


def max_memory_reserved(device=None):
    calls.append("max_memory_reserved")
    return _device(device).get("reserved_peak", _device(device).get("reserved", 0))


def __getattr__(name):
    # Anything else the agent reaches for is logged, and fails as a missing attribute would.
    calls.append("unexpected:" + name)
    raise AttributeError(name)
