"""STAND-IN for torch.cuda (NOT PyTorch): the caching allocator's numbers per device are whatever the test puts in
`devices`, and every call the agent makes is logged in `calls`, so a test can check that the agent never asks for
anything that would initialise CUDA in the user's process (only is_initialized() before it says yes).

    devices[i] = {"allocated": bytes, "reserved": bytes, "active": bytes, "inactive_split": bytes,
                  "alloc_retries": n, "ooms": n, "reserved_peak": bytes, "allocated_peak": bytes}
(reserved_peak defaults to reserved; allocated_peak to the highest allocated any call has seen, as PyTorch keeps it)
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


def _device(device):
    return devices.get(0 if device is None else device, {})


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
