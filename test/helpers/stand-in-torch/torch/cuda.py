"""STAND-IN for torch.cuda (NOT PyTorch): the caching allocator's numbers per device are whatever the test puts in
`devices`, and every call the agent makes is logged in `calls`, so a test can check that the agent never asks for
anything that would initialise CUDA in the user's process (only is_initialized() before it says yes).

    devices[i] = {"allocated": bytes, "reserved": bytes, "active": bytes, "inactive_split": bytes,
                  "alloc_retries": n, "ooms": n, "reserved_peak": bytes}   (reserved_peak defaults to reserved)
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


def _device(device):
    return devices.get(0 if device is None else device, {})


def memory_stats(device=None):
    """As PyTorch names them; {} before CUDA is initialised, as PyTorch's own does."""
    calls.append("memory_stats")
    if not initialized:
        return {}
    d = _device(device)
    return {
        "allocated_bytes.all.current": d.get("allocated", 0),
        "allocated_bytes.all.peak": d.get("allocated", 0),
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
    return _device(device).get("allocated", 0)


def max_memory_reserved(device=None):
    calls.append("max_memory_reserved")
    return _device(device).get("reserved_peak", _device(device).get("reserved", 0))


def __getattr__(name):
    # Anything else the agent reaches for is logged, and fails as a missing attribute would.
    calls.append("unexpected:" + name)
    raise AttributeError(name)
