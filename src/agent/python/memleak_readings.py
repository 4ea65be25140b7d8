"""What the agent reads of its process for each report: glibc's allocator (mallinfo2, its arenas, and which allocator
malloc is), Python's own counters (allocated blocks, the collector's counts, threads, modules), and PyTorch's settings
and the CUDA caching allocator's memory per device, only where the program imported torch and initialised CUDA (neither
is done here). Each reading costs the watched process; what each costs, and why it is bounded so, is said beside it.
Loaded in every process memleak watches, from the code memleak_agent.py's loader shares.
"""
import ctypes
import gc
import os
import sys
import time

# The agent's room this one reads (memleak_lifecycle.py: _own_threads), set by memleak_agent.py once every room is
# loaded.
_lifecycle = None


class _MallocReading:
    """mallinfo2 and the allocator, read at most so often (_malloc_stats), and the last reading, repeated between."""

    def __init__(self):
        self.fn = None  # libc's mallinfo2; False where there is none (glibc < 2.33, another libc)
        self.kind = None  # the allocator: glibc, jemalloc, tcmalloc or mimalloc (_allocator)
        self.last = 0.0  # when it was last read (time.monotonic)
        self.cost = 0.0  # what that reading cost this thread (CPU seconds)
        self.cached = None  # the last reading


_malloc = _MallocReading()


def _status_kib(field):
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _os_threads():
    """The process's threads, native ones included: the entries of /proc/self/task (what status's Threads: counts),
    listed in ~8 µs where reading status line by line took ~30 µs of every report."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return None


class _Mallinfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


_LIBC = []


def _libc():
    """One CDLL for the agent's life: each new one builds function objects that refer to each other, a garbage cycle
    the watched program's collector would have to free at every malloc reading (24 objects a time)."""
    if not _LIBC:
        try:
            _LIBC.append(ctypes.CDLL(None))
        except OSError:
            _LIBC.append(None)
    return _LIBC[0]


def _glibc_version():
    libc = _libc()
    try:
        fn = libc.gnu_get_libc_version
        fn.restype = ctypes.c_char_p
        return tuple(int(x) for x in fn().decode().split(".")[:2])
    except Exception:
        return None


def _allocator():
    """jemalloc or tcmalloc replace glibc's malloc when preloaded or linked in: then mallinfo2 sees nothing. Read once
    per process and kept (a forked child inherits the answer with the mappings): malloc is bound when the program
    starts, before the agent loads, and a library dlopen'd later does not take it over. Reading /proc/self/maps line by
    line took ~460 µs of the process's CPU, more than the rest of a report, when it was read at every report."""
    if _malloc.kind is None:
        _malloc.kind = _read_allocator()
    return _malloc.kind


def _read_allocator():
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                if "libjemalloc" in line:
                    return "jemalloc"
                if "libtcmalloc" in line:
                    return "tcmalloc"
                if "libmimalloc" in line:
                    return "mimalloc"
    except OSError:
        pass
    return "glibc"


def _arena_count(libc):
    """glibc's malloc_info() XML has one <heap nr="N"> element per arena (main arena + one per thread arena, up to
    8 × cores). Written to an in-memory stream; it locks the arenas like mallinfo2, so it runs at the same low rate."""
    try:
        buf = ctypes.c_char_p()
        size = ctypes.c_size_t()
        libc.open_memstream.restype = ctypes.c_void_p
        fp = libc.open_memstream(ctypes.byref(buf), ctypes.byref(size))
        if not fp:
            return None
        libc.malloc_info(0, ctypes.c_void_p(fp))
        libc.fclose(ctypes.c_void_p(fp))
        text = ctypes.string_at(buf, size.value)
        libc.free(buf)
        return text.count(b"<heap nr=")
    except Exception:
        return None


_MALLOC_MAX_GAP = 10.0  # seconds: however costly the call, a reading is never older than this


def _malloc_stats(interval, force=False):
    """mallinfo2 (glibc ≥ 2.33; its fields sum all arenas). Called at most so often that its own CPU cost stays under
    0.5% of one core, and at least every _MALLOC_MAX_GAP seconds; between calls the last reading is repeated.
    The cost is this thread's CPU time, not wall time: waiting for arena locks held by busy threads costs the
    target nothing, and must not stretch the gap."""
    now = time.monotonic()
    if _malloc.fn is None:
        version = _glibc_version()
        libc = _libc()
        if version and version >= (2, 33) and libc is not None and hasattr(libc, "mallinfo2"):
            fn = libc.mallinfo2
            fn.restype = _Mallinfo2
            _malloc.fn = fn
        else:
            _malloc.fn = False
    if not _malloc.fn:
        return None
    min_gap = max(interval, min(_MALLOC_MAX_GAP, _malloc.cost / 0.005))
    if not force and _malloc.cached is not None and now - _malloc.last < min_gap:
        return _malloc.cached
    allocator = _allocator()
    t0 = time.thread_time()
    mi = _malloc.fn()
    arenas = _arena_count(_libc()) if allocator == "glibc" else None
    _malloc.cost = time.thread_time() - t0
    _malloc.last = now
    stats = {
        "inUse": mi.uordblks + mi.hblkhd,
        "free": mi.fordblks,
        "arena": mi.arena,
        "mmapped": mi.hblkhd,
        "allocator": allocator,
    }
    if arenas is not None:
        stats["arenas"] = arenas
    if allocator != "glibc":
        stats["note"] = "%s replaces glibc malloc here: mallinfo2 does not see its memory" % allocator
        stats.pop("inUse")  # meaningless: do not let memleak infer from it
    _malloc.cached = stats
    return stats


# CPython's three-generation collector, whose counts and thresholds the backlog rule reads. Not 3.14's incremental one
# (its third threshold is 0 and automatic collections are all counted as generation 1's), nor a free-threaded build
# (every collection is counted as generation 0's): there the agent sends none of those numbers.
_GENERATIONAL_GC = (
    sys.implementation.name == "cpython"
    and sys.version_info < (3, 14)
    and getattr(sys, "_is_gil_enabled", lambda: True)()
)


def _python_threads():
    """What threading.active_count() said when the agent's threads were threading's: the program's threads that
    threading knows, and the agent's own. Without threading imported, the program has its main thread."""
    threading = sys.modules.get("threading")
    if threading is None:
        return 1 + len(_lifecycle._own_threads)
    known = {t.ident for t in threading.enumerate()}
    return len(known) + sum(1 for ident in list(_lifecycle._own_threads) if ident not in known)


def _python_stats():
    stats = {"allocatedBlocks": sys.getallocatedblocks(), "pythonThreads": _python_threads()}
    counts = gc.get_count()
    stats["gcCount0"], stats["gcCount1"], stats["gcCount2"] = counts
    generations = gc.get_stats()
    stats["gcCollections"] = sum(s.get("collections", 0) for s in generations)
    # What memleak needs to tell garbage cycles waiting for a full collection from a leak (signals/gc-backlog.ts): what
    # the older generations' collections freed, how many full ones ran, when the next comes due (gcCount2 counts
    # generation-1 runs since the last full collection; one runs once it passes the third threshold), and the modules
    # loaded (what collections free while a program imports is the imports' garbage).
    if len(generations) >= 3 and _GENERATIONAL_GC:
        stats["gcRuns2"] = generations[2].get("collections", 0)
        stats["gcCollected1"], stats["gcCollected2"] = generations[1].get("collected", 0), generations[2].get(
            "collected", 0
        )
    thresholds = gc.get_threshold()
    if len(thresholds) >= 3 and _GENERATIONAL_GC:
        stats["gcThreshold2"] = thresholds[2]
    stats["modules"] = len(sys.modules)
    # A program that turned the collector off (gc.disable()) never frees its reference cycles: a leak's cause by itself.
    stats["gcEnabled"] = 1 if gc.isenabled() else 0
    return stats


def _rollup(*names):
    """These fields of /proc/self/smaps_rollup, in KiB (those the kernel has), or None when it cannot be read."""
    fields = {}
    try:
        with open("/proc/self/smaps_rollup") as f:
            for line in f:
                name, _, rest = line.partition(":")
                if name in names:
                    fields[name] = int(rest.split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return fields


def _torch_stats():
    torch = sys.modules.get("torch")  # never import it: only report on a program that did
    if torch is None:
        return None
    out = {"version": str(getattr(torch, "__version__", "?"))}
    try:
        out["threads"] = torch.get_num_threads()
        out["interopThreads"] = torch.get_num_interop_threads()
    except Exception:
        pass
    try:
        cuda = torch.cuda
        # is_initialized() first: it is a flag, while is_available() asks the driver for its devices, which loads and
        # initialises the driver in a program that never touched CUDA.
        if cuda.is_initialized() and cuda.is_available():
            out["cudaAllocated"] = cuda.memory_allocated()
            out["cudaReserved"] = cuda.memory_reserved()
            out["cudaMaxAllocated"] = cuda.max_memory_allocated()
            out["cudaMaxReserved"] = cuda.max_memory_reserved()
    except Exception:
        pass
    return out


# The caching allocator's numbers per device, as torch.cuda.memory_stats names them, and as the agent sends them
# ("cuda0Allocated"): allocated = bytes in live tensors; reserved = bytes the allocator holds from the driver;
# active = allocated plus blocks freed on one stream but still in use on another; inactive split = free space inside
# segments that also hold live blocks (what empty_cache() cannot give back: fragmentation). The counters say when the
# allocator had to free its cache and retry a cudaMalloc, and how many times it ran out. The allocated peak is the
# allocator's own highest allocated since the start (or the program's last reset_peak_memory_stats): a one-off large
# working set, an evaluation pass of a few milliseconds on an H100, falls between two reports, and only the peak says
# it was there (fixtures/gpu/cuda_eval_retained.py).
_CUDA_STATS = (
    ("allocated_bytes.all.current", "Allocated"),
    ("allocated_bytes.all.peak", "AllocatedPeak"),
    ("reserved_bytes.all.current", "Reserved"),
    ("active_bytes.all.current", "Active"),
    ("inactive_split_bytes.all.current", "InactiveSplit"),
    ("num_alloc_retries", "AllocRetries"),
    ("num_ooms", "Ooms"),
)
# memleak reads at most this many devices' fields from one report (src/sampling/gpu-fields.ts GPU_MAX_FIELDS).
_CUDA_MAX_DEVICES = 16


def _cuda_stats():
    """Per CUDA device this process's allocator has used, its memory_stats; None when torch is not imported or CUDA
    was never initialised by the program. Never initialises CUDA: is_initialized() is a flag, device_count() is
    cached once CUDA is up, and memory_stats(i) reads the allocator's counters on the host (no CUDA call, so no
    context is created on a device the program did not use). A device whose allocator never reserved a byte (its
    reserved peak is 0) is one the process does not use, and is left out. Cost: one dict of ~100 entries per device
    used, once a report."""
    torch = sys.modules.get("torch")
    cuda = getattr(torch, "cuda", None) if torch is not None else None
    if cuda is None:
        return None
    try:
        if not cuda.is_initialized():
            return None
        out = {}
        for device in range(min(int(cuda.device_count()), _CUDA_MAX_DEVICES)):
            stats = cuda.memory_stats(device)
            if not stats or not stats.get("reserved_bytes.all.peak"):
                continue
            for key, name in _CUDA_STATS:
                value = stats.get(key)
                if isinstance(value, int):
                    out["cuda%d%s" % (device, name)] = value
        return out or None
    except Exception:
        return None
