"""memleak's in-process agent: every interval, one JSON line to memleak over a Unix socket with what only the
process itself can see — glibc's allocator counters, Python's object and GC counters, PyTorch's settings and the CUDA
caching allocator's memory per device (only if the program imported torch and initialised CUDA; neither is done
here), and optionally tracemalloc growth sites and a malloc_trim probe at exit. Standard library only, Python 3.8+.

Costs, by design: one daemon thread that sleeps between reports; /proc/self/status (~20 µs); mallinfo2() locks every
arena and walks the bins, so it is rate-limited to ≤ 0.5% of one core by its own measured cost, and so is
malloc_info() (the arena count); /proc/self/maps is read once (allocator detection); the census walks the objects the GC tracks at most
every 5 s, and no more often than keeps its own CPU under 0.5% of one core (~1 ms for a plain script, ~20 ms with
PyTorch loaded: every 5 s), in a loop that competes with the program's threads for the GIL, so a walk of the whole
heap is skipped on heaps of over a million objects; in a process that shares pages with forked relatives (gunicorn's
workers, a DataLoader's parent) it looks only at the containers the program's own modules hold, near their globals
(see _near_globals), whatever the heap's size.
tracemalloc (--trace-python) is the exception: it slows allocation-heavy code down noticeably, which is why it is
opt-in.

Its rooms, each loaded only where it is needed (_sibling_module): memleak_trace.py (tracemalloc), memleak_holder.py
and memleak_retained.py (what holds a growing container, what one of its items keeps alive), memleak_graphs.py
(autograd graphs' nodes), memleak_cow.py (what a forked worker copied). Every field a report carries is declared in
src/agent/report-fields.ts, which test/unit/agent/report-fields.test.ts holds this file to.
"""
import _socket
import _thread
import atexit
import ctypes
import gc
import os
import select
import sys
import time

# The modules above are what every watched process pays for, in each one: their objects and the interpreter's code
# they run are resident pages that every smaps_rollup memleak reads walks again (BENCHMARKS.md §g⁗). So the C modules
# under json, socket and threading, not those: json, socket and threading (with signal) pulled 35 more modules into a
# bare interpreter (re, enum, collections, functools...: +1.1 MiB of Debian's Python 3.11 a process, copied into every
# forked worker's page tables). What only some paths need (signal, shutil, tracemalloc, the holder search) is imported
# there.
try:
    from _json import encode_basestring_ascii as _c_encode_basestring_ascii
    from _json import make_encoder as _c_make_encoder
except ImportError:  # an interpreter built without _json: json's own pure-Python encoder, the same output
    _c_make_encoder = None

_ModuleType = type(sys)
_MAX_MESSAGE = 60 * 1024  # memleak drops longer lines; stay under it
_state = {
    "sock": None,
    "thread": None,
    "pid": None,
    "stop": None,
    "path": None,
    "interval": 1.0,
    "attached": False,
    "atexit": False,
    "placed": None,
    # memleak said "quiet": this process is read from /proc only (run's placement): no reports, no wake-ups
    "quiet": False,
    "heard": b"",  # the part of memleak's words after the last newline
    # run: the signal that wakes a forked worker's agent (_install_wake), None where it could not be installed
    "wake": None,
    # a worker forked under run, its agent asleep until memleak sends the wake signal: no connection, no thread
    "dormant": False,
}
# The program's main thread, for the holder search where threading is not loaded: the agent is loaded on it (by
# sitecustomize under `run`, by a pending call under `watch`); in a forked child, the thread that forked.
_state["main"] = _thread.get_ident()
_malloc = {"fn": None, "kind": None, "last": 0.0, "cost": 0.0, "cached": None}
# One message on the socket at a time: the reporting thread and the program's thread (the pytest plugin) both send.
_send_lock = _thread.allocate_lock()
# Held while a report is put together: the pytest plugin takes it around its readings, so that a report's transient
# objects (json, the census's list) are never counted in a test's growth.
measure_lock = _thread.RLock()


# ---------------------------------------------------------------------------------------------------------- helpers


def _env_float(name, default):
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


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
    if _malloc["kind"] is None:
        _malloc["kind"] = _read_allocator()
    return _malloc["kind"]


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
    if _malloc["fn"] is None:
        version = _glibc_version()
        libc = _libc()
        if version and version >= (2, 33) and libc is not None and hasattr(libc, "mallinfo2"):
            fn = libc.mallinfo2
            fn.restype = _Mallinfo2
            _malloc["fn"] = fn
        else:
            _malloc["fn"] = False
    if not _malloc["fn"]:
        return None
    min_gap = max(interval, min(_MALLOC_MAX_GAP, _malloc["cost"] / 0.005))
    if not force and _malloc["cached"] is not None and now - _malloc["last"] < min_gap:
        return _malloc["cached"]
    allocator = _allocator()
    t0 = time.thread_time()
    mi = _malloc["fn"]()
    arenas = _arena_count(_libc()) if allocator == "glibc" else None
    _malloc["cost"] = time.thread_time() - t0
    _malloc["last"] = now
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
    _malloc["cached"] = stats
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
        return 1 + len(_own_threads)
    known = {t.ident for t in threading.enumerate()}
    return len(known) + sum(1 for ident in list(_own_threads) if ident not in known)


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
    return stats


# ---------------------------------------------------------------------------------------------------------- census

_census = {"last": 0.0, "cost": 0.0, "cached": None, "seen": {}}
_CENSUS_MAX_BLOCKS = 1_000_000  # over this many objects one walk would hold the GIL for ~0.1 s or more: do not walk
# Over this many blocks (which bound the tracked objects from above) the holder searches' one uninterruptible pass
# could hold the GIL past ~80 ms: not looked for (a walk near the globals still follows the container).
_HOLDER_MAX_BLOCKS = 4_000_000
_CENSUS_MIN_GAP = 5.0  # seconds: what grew is a question for minutes, not ticks
_CENSUS_MAX_GAP = 60.0
_SAMPLED_ITEMS = 16
_TRACKED_CONTAINERS = 20_000  # containers whose length is remembered from one walk to the next (ints: ~1 MB at most)


def _container_types():
    """list, dict, set, and collections' containers when the program imported collections: importing it here would
    cost every watched process ~1 MB of modules (copied into each forked worker), for types it may not use."""
    types = {list, dict, set}
    collections = sys.modules.get("collections")
    if collections is not None:
        types.update((collections.deque, collections.OrderedDict, collections.defaultdict))
    return frozenset(types)


def _item_bytes(item, tensor_type):
    """An item's size: sys.getsizeof (runs the item's __sizeof__: the program's code, which may raise), or for a
    tensor the bytes of its elements, which getsizeof does not count (a 4 MB tensor is a 72-byte Python object)."""
    if tensor_type is not None and issubclass(type(item), tensor_type):
        return item.element_size() * item.nelement()
    return sys.getsizeof(item, 0)


def _sampled_items(container):
    """A few of a container's items (its values, for a dict); none if it kept changing size while we looked (another
    thread). Taken in one C call (islice into a list), which no other thread can interleave, and tried again when the
    program's thread added an item between the iterator's making and its reading: a Python loop over the items let
    the program add a page at any GIL switch and end the look ("dictionary changed size during iteration"), and the
    growing dict of pages was described as a bare "dict" (CI on ec485f0). With a thread adding to a dict at every
    switch (1 µs), the loop lost 14 looks in 100,000, the retried islice none."""
    from itertools import islice  # built in (no file read); a program that never needs it does not load it

    values = container.values() if isinstance(container, dict) else container
    for _ in range(3):
        try:
            return list(islice(values, _SAMPLED_ITEMS))
        except RuntimeError:
            pass
        except Exception:
            break
    return []


def _describe_items(container, tensor_type=None):
    """The commonest type among a few items of a container, their mean size (_item_bytes), and whether they are
    tensors."""
    picked = _sampled_items(container)
    if not picked:
        return None, None, False
    names = {}
    for item in picked:
        name = type(item).__name__
        names[name] = names.get(name, 0) + 1
    sizes = []
    for item in picked:
        try:
            sizes.append(_item_bytes(item, tensor_type))
        except Exception:
            pass
    tensors = tensor_type is not None and any(issubclass(type(item), tensor_type) for item in picked)
    return max(names, key=names.get), (sum(sizes) // len(sizes) if sizes else None), tensors


def _items_keep_graphs(container, torch):
    """Whether a few of a container's items are tensors that keep an autograd graph (a grad_fn): kept losses or logits,
    whose graphs, not the tensors' few bytes, are what the container holds. Read on its items alone, so also where the
    walk keeps near the globals and counts no tensors (a DataLoader's parent)."""
    tensor_type = getattr(torch, "Tensor", None) if torch is not None else None
    if tensor_type is None:
        return False
    for item in _sampled_items(container):
        try:
            if issubclass(type(item), tensor_type) and item.grad_fn is not None:
                return True
        except Exception:  # a tensor subclass without grad_fn
            pass
    return False


def _exe(pid):
    try:
        return os.readlink("/proc/%s/exe" % pid)
    except OSError:
        return None


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


def _shares_anon_pages():
    """True when some of this process's anonymous pages are shared (Pss_Anon under the anonymous resident size):
    with a forked parent or forked children, which is what the census must not copy. None when the kernel does not
    say (Pss_Anon appeared in Linux 5.3)."""
    fields = _rollup("Anonymous", "Pss_Anon")
    if fields is None or len(fields) < 2:
        return None
    return fields["Pss_Anon"] < fields["Anonymous"] * 0.98


def _shares_pages_with_relatives():
    """Whether this process shares pages with a forked parent or forked children (DataLoader and gunicorn workers,
    multiprocessing's fork): the census must not walk its objects then. Holding each object in gc.get_objects()'s list
    increments its reference count, a write to the page it lives on, and copy-on-write then gives this process (or
    its relative) a private copy of every page holding a Python object — memory the census itself would create.
    The kernel says it directly (smaps_rollup); where it cannot, a relative running the same executable is taken as
    forked, and anything that cannot be read counts as a relative: the census fails closed."""
    if _state.get("forked"):
        return True
    shared = _shares_anon_pages()
    if shared is not None:
        return shared
    mine = _exe("self")
    parent = _exe(os.getppid())
    if mine is None or parent is None or parent == mine:
        return True
    try:
        tids = os.listdir("/proc/self/task")
    except OSError:
        return True
    for tid in tids:
        try:
            with open("/proc/self/task/%s/children" % tid) as f:
                children = f.read().split()
        except OSError:
            continue  # the thread ended meanwhile
        if any(_exe(child) in (mine, None) for child in children):
            return True
    return False


def _census_stats(interval, force=False):
    """The census, never raising into the report (the walk runs the program's __len__ and __sizeof__): a failed walk
    is reported as skipped, and its time still counts, so it is not retried at once.

    The automatic garbage collection is held off while the walk runs. The walk holds a reference to every object the
    collector tracks (gc.get_objects()'s list), garbage cycles included: a collection that starts meanwhile (any
    allocation in any thread can start one) finds them reachable and promotes them to an older generation, where they
    wait for a full collection — minutes or hours. A program whose garbage is cycles carrying big buffers then grew
    under memleak only (gc_sawtooth: lows +8 MiB in 7 minutes watched, flat unwatched). The walk's references are gone
    when _census_walk returns, before collection is allowed again. A program that switches the collector on or off from
    another thread during the ~10 ms of a walk has its switch undone; gc.collect() still runs when called."""
    enabled = gc.isenabled()
    if enabled:
        _census["gcHeld"] = True  # a fork meanwhile (another thread) must not leave the child without collection
        gc.disable()
    try:
        return _census_walk(interval, force)
    except Exception:
        _census["last"] = time.monotonic()
        _census["cached"] = {"skipped": 1, "why": "the walk failed"}
        return _census["cached"]
    finally:
        if enabled:
            _census["gcHeld"] = False
            gc.enable()
        # The searches' one pass over every tracked object (gc.get_referrers) cannot be cut into pieces: ~20 ms a
        # million. The walks near the globals run on any heap; the searches only where that pass stays short, and the
        # heap is only sized when a walk left something to search (not at every report).
        wanted = _census.get("suspect") is not None or _census.get("graphSuspect") is not None
        if wanted and sys.getallocatedblocks() <= _HOLDER_MAX_BLOCKS:
            try:
                _holder_search()  # with the collector back on: runs for up to seconds, GIL released between passes
            except Exception:
                pass
            try:
                _graph_holder()
            except Exception:
                pass
        _census.pop("suspect", None)
        _census.pop("graphSuspect", None)


# The switch interval the census's two passes over every object run under (_tracked): no other thread is handed the GIL
# while the full list lives, so it must outlast the passes — 4x what they may take, at 100 ns per allocated block (21-30
# ns measured from 66,000 to 2.7 million blocks on this project's machine; a loaded one stretches the wall time), at
# least 0.2 s. And no longer: the time.sleep(0) that clears a pending switch makes this thread wait that long for the
# GIL back whenever another thread computes in Python. At 10 s, the value before, a census that began during a burst of
# allocations stalled the agent for 10 s (a fragmentation burst under `run` sent no report from 6 to 17 s, and its
# verdict was read on stale malloc numbers: ci.test's 8 s burst), and every other thread of the program waited as long.
_PASS_SECONDS_PER_BLOCK = 100e-9
_PASS_MARGIN = 4
_PASS_SWITCH_FLOOR = 0.2
_PASS_SWITCH_CEILING = 10.0


def _pass_switch_interval():
    blocks = sys.getallocatedblocks()
    wanted = _PASS_MARGIN * blocks * _PASS_SECONDS_PER_BLOCK
    return min(_PASS_SWITCH_CEILING, max(_PASS_SWITCH_FLOOR, wanted))


def _tracked(containers, tensor_type):
    """The objects the collector tracks that the census looks at: containers, and tensors when torch is loaded.
    gc.get_objects() hands back every tracked object, a tuple another thread is still filling among them (tuple() of a
    generator builds one, then resizes it, and the resize fails with "SystemError: bad argument to internal function"
    when anything else holds a reference: a program importing typing while the census walked died of it). So the full
    list is cut down to what the census needs, and dropped, before any other thread can run: the switch interval is
    raised for those two C-speed passes (the collector is already held off, _census_stats), and put back after; by as
    much as they need (_pass_switch_interval), since this thread may wait that long to take the GIL back."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(_pass_switch_interval())
    try:
        # Let the others run once, and take the GIL back afresh: a switch one of them asked for before the interval
        # was raised would otherwise happen at the next instruction, with the full list alive.
        time.sleep(0)
        everything = gc.get_objects()
        if tensor_type is None:
            wanted = [o for o in everything if type(o) in containers]
        else:
            wanted = [o for o in everything if type(o) in containers or issubclass(type(o), tensor_type)]
        del everything
    finally:
        sys.setswitchinterval(previous)
    wanted.extend(_untracked_dicts())
    return wanted


def _untracked_dicts():
    """Dicts the collector does not track, held by a module global or a class attribute. CPython stops tracking a
    dict whose keys and values are all atomic (str, bytes, numbers): a module-level cache of rendered 6 KB strings is
    such a dict, absent from gc.get_objects(), and without this its growth was put down to the native heap (strings
    over 512 bytes live in malloc). Module globals and class attributes are where such caches live. Every module's
    globals are looked at; the classes only of the program's own modules (not the standard library's or installed
    packages'): with torch loaded, its classes tripled the cost (17 ms against 6 ms, of a ~55 ms census)."""
    found = []
    is_tracked = gc.is_tracked
    namespaces = set()
    for name, module in list(sys.modules.items()):
        if not issubclass(type(module), _ModuleType):
            continue
        try:
            values = list(module.__dict__.values())
        except Exception:
            continue
        namespaces.add(id(module.__dict__))
        found += [v for v in values if type(v) is dict and not is_tracked(v)]
        if not _programs_own(module):
            continue
        for cls in [v for v in values if issubclass(type(v), type) and v.__dict__.get("__module__") == name]:
            found += [x for x in list(cls.__dict__.values()) if type(x) is dict and not is_tracked(x)]
        # An unbounded functools.lru_cache keeps its results in a dict of its own, untracked when its keys and values
        # are atomic (an int argument, a rendered page): its growth was put down to the native heap, unheld.
        for cache in [v for v in values if type(v).__name__ == "_lru_cache_wrapper"]:
            found += [x for x in gc.get_referents(cache) if type(x) is dict and not is_tracked(x)]
    found += _running_globals_dicts(namespaces)
    return found


def _running_globals_dicts(namespaces):
    """Untracked dicts among the globals of running code that no module holds: a script run with
    exec(compile(source, path, "exec"), {"__name__": "__main__"}) — a container's boot line, a test harness, a notebook's
    namespace — keeps its module-level cache in a dict sys.modules does not reach, and its growth was put down to the
    native heap (dict_cache_leak.py watched in a container). The frames of every thread but the agent's, each globals
    dict once."""
    found = []
    # Only other threads' frames are looked at: with none (the census on a program's only thread, as in a test), none
    # are asked for. sys._current_frames() gives every running frame a frame object (3.11+), freed as its call returns:
    # collector counts that change after the report read them, and one more report sent.
    if _thread._count() == 0:
        return found
    me = _thread.get_ident()
    frames = sys._current_frames()
    try:
        for ident, frame in frames.items():
            if ident == me:
                continue
            while frame is not None:
                space = frame.f_globals
                if id(space) not in namespaces:
                    namespaces.add(id(space))
                    found += [v for v in list(space.values()) if type(v) is dict and not gc.is_tracked(v)]
                frame = frame.f_back
    finally:
        frames = frame = space = None  # no frame kept alive past the walk
    return found


_LIBRARY_DIRS = tuple(
    {os.path.join(p, "lib") for p in (sys.base_prefix, sys.prefix, sys.exec_prefix)} | {"/usr/lib/python3/"}
)


_NEAR_SMALL = 32  # a container held by a global with at most this many items is looked into (REGISTRY['users'])


def _near_globals(containers):
    """The census of a process that shares pages with forked relatives: the containers the program's own modules hold
    within two references of their globals — a global (`PAGES`), an attribute of a class defined there or of an
    object a global holds (`app.cache`, `service._history`), a function's default argument or closure cell, and the
    containers inside a small container a global holds (`REGISTRY['users']`). A full walk writes the reference count
    of every object on the heap, and copy-on-write copies each page it writes: in a gunicorn --preload worker of a
    Flask app that was 10.3 MiB of the worker's 20 MiB of shared memory, as much as a full collection copies; this
    copies 1.5 MiB, nearly all of it for reading each loaded module's name and file (0.4 MiB of 4.5 without --preload;
    BENCHMARKS.md §k′). Once copied a page stays the process's own: later walks copy nothing more. And the
    locals of the program's own running functions: a worker's loop keeps its cache in a local (`cache = []` in the
    function multiprocessing runs), which no global reaches; read as the holder search reads them (memleak_holder.py:
    on Python <= 3.12, f_locals refreshes the frame's locals() snapshot). A container only the interpreter's library
    or an installed package holds is not seen here."""
    found = []
    seen = set()

    def keep(v):
        if type(v) in containers and id(v) not in seen:
            seen.add(id(v))
            found.append(v)
            return True
        return False

    def held_by(v, name):
        kind = type(v)
        if kind in containers:
            if keep(v) and len(v) <= _NEAR_SMALL:
                for x in list(v.values() if issubclass(kind, dict) else v):
                    keep(x)
            return []
        if issubclass(kind, type):
            namespace = _CLASS_NAMESPACE.__get__(v)
            return list(namespace.values()) if namespace.get("__module__") == name else []
        if kind is _FunctionType:
            cells = [c.cell_contents for c in (v.__closure__ or ()) if _cell_filled(c)]
            return list(v.__defaults__ or ()) + list((v.__kwdefaults__ or {}).values()) + cells
        if issubclass(kind, _ModuleType):
            return []
        attrs = _plain_attributes(v)
        return list(attrs.values()) if attrs is not None else []

    for name, module in list(sys.modules.items()):
        if not issubclass(type(module), _ModuleType) or not _programs_own(module) or _agents_own(module):
            continue
        try:
            for v in list(module.__dict__.values()):
                for x in held_by(v, name):
                    keep(x)
        except Exception:  # a global changed meanwhile (another thread): what was found so far stands
            continue
    me = _thread.get_ident()  # the agent's own thread: its frames hold the census's own lists
    for ident, frame in list(sys._current_frames().items()):
        while frame is not None and ident != me:
            code = frame.f_code
            if code.co_flags & _CO_OPTIMIZED and _own_path(code.co_filename):
                try:
                    for v in list(frame.f_locals.values()):
                        for x in held_by(v, frame.f_globals.get("__name__")):
                            keep(x)
                except Exception:  # a frame that returned meanwhile: what was found so far stands
                    pass
            frame = frame.f_back
    frame = None  # hold no frame (and so none of its locals) past the walk
    return found


def _cell_filled(cell):
    try:
        cell.cell_contents
        return True
    except ValueError:  # an empty cell
        return False


_FunctionType = type(_cell_filled)
_CO_OPTIMIZED = 0x1  # a function's frame (its f_locals is a snapshot), not a module's or a class body's
_CLASS_NAMESPACE = type.__dict__["__dict__"]  # a class's own namespace, whatever its metaclass says
_PLAIN_DICT_SLOT = type(_CLASS_NAMESPACE)  # getset_descriptor: how CPython's own __dict__ is read


def _plain_attributes(obj):
    """An object's attribute dict when CPython's own descriptor gives it, read without running any of the program's
    code: a class may define __dict__ as a property, or a proxy (werkzeug's LocalProxy) resolve it to another object."""
    for klass in type(obj).__mro__:
        slot = _CLASS_NAMESPACE.__get__(klass).get("__dict__")
        if slot is not None:
            if type(slot) is not _PLAIN_DICT_SLOT:
                return None
            try:
                attrs = slot.__get__(obj)
            except Exception:
                return None
            return attrs if type(attrs) is dict else None
    return None


_AGENT_DIR = os.path.dirname(os.path.abspath(__file__))


def _agents_own(module):
    """This agent and the modules it loads from beside it: their state is not the program's."""
    path = getattr(module, "__file__", None)
    return isinstance(path, str) and os.path.dirname(os.path.abspath(path)) == _AGENT_DIR


def _programs_own(module):
    """A module of the program, not of the interpreter's library or of an installed package (by its file's path)."""
    path = getattr(module, "__file__", None)
    if not isinstance(path, str):
        return getattr(module, "__name__", "") == "__main__"
    return _own_path(path)


def _own_path(path):
    """A source file of the program: not the interpreter's library, an installed package, or memleak's agent."""
    return (
        "-packages/" not in path
        and not path.startswith(_LIBRARY_DIRS)
        and not path.startswith(_AGENT_DIR)
        and not path.startswith("<frozen")  # the interpreter's own modules (<string> and <stdin> are a -c program's)
    )


def _census_gap(interval):
    """Seconds from the last walk to the next. Walks cost their CPU time, held to 0.5% of a core (with torch loaded a
    walk costs 50-135 ms: 10-27 s apart). A question the last walk opened is answered at the shortest gap instead:
    after the first walk (growth needs two walks to be seen at all), after the first rise of the graphs' nodes (does
    one graph keep growing, or was a step caught mid-way? a training loop keeping its running loss needed 35 s for a
    second rise), after a new container was seen gaining 256 KiB or more (does it keep gaining? then its holder is
    looked for), and after a container or a graph was suspected (does it still gain after?); the last two from a
    bucket of two, refilled one a minute (_early_walk_granted). Under watch beside a busy loop, a training loop
    keeping its losses was walked at 2 s and 29 s: the list seen gaining once in a 40 s watch, the verdict
    fragmentation; now its holder is named at ~12 s."""
    shortest = max(interval, _CENSUS_MIN_GAP)
    if _census.get("walks") == 1 or _census.get("graphRises") == 1 or _census.get("early"):
        return shortest
    return max(shortest, min(_CENSUS_MAX_GAP, _census["cost"] / 0.005))


def census_paused(paused):
    """For the pytest plugin: no census walk while a test's calls are measured. What a walk leaves in the agent's own
    state (the lengths it follows, the report it caches, and on the first walk the types and helpers it sets up:
    +7,015 blocks after pytest's imports, +159 at the next walk) would be counted by the test's readings as the test's:
    a CI run's first test, `sum(range(10_000))`, was called a one-off when the session's first walk fell between its
    readings. The walks resume between tests."""
    _census["paused"] = paused


def _census_walk(interval, force):
    """One walk over the objects the garbage collector tracks: how many items Python containers hold (a cache or a
    list that only grows shows here, whatever its items are), the one that gained most bytes since the walks started
    following it (items added × the size of a few sampled items), and with PyTorch loaded the
    storage of live CPU tensors and how many tensors keep an autograd graph (grad_fn). Rate-limited by its own CPU
    time like mallinfo2 (≤ 0.5% of one core, every 5–60 s), and skipped on heaps so big that one walk would stall the
    program. type(o), never isinstance: isinstance reads o.__class__, a property on some objects (torch.distributed
    warns from it)."""
    now = time.monotonic()
    if _census.get("paused"):
        return _census["cached"]
    if not force and _census["cached"] is not None and now - _census["last"] < _census_gap(interval):
        return _census["cached"]
    _census["early"] = False
    # Once the walks keep to what is near the globals they stay there, whatever the relatives do now: the check (a read
    # of /proc/self/smaps_rollup, ~0.3-0.6 ms) is only needed while a whole-heap scope may still have to stop.
    shared = True if _census.get("scope") == "near globals" else _shares_pages_with_relatives()
    if _census.get("scope") is None:
        _census["scope"] = "near globals" if shared else "heap"
    if shared and _census["scope"] == "heap":
        # It forked after the walks started over the whole heap (a DataLoader starts its workers at the first batch,
        # after the program has run a while): a walk of the whole heap would now copy every page it shares with them.
        # Once the sharing is seen at two walks in a row it walks narrowly from then on, and stays narrow once they are
        # gone (another switch, another series). One walk is only skipped: a subprocess shares every page for the
        # moment between its fork and its exec (ctypes.util.find_library runs one), and switching then lost the
        # tensor census of a training loop for good (torch_losses_leak's graphs read as the native heap).
        _census["sharedWalks"] = _census.get("sharedWalks", 0) + 1
        if _census["sharedWalks"] < 2:
            _census["last"] = now
            _census["cached"] = {"skipped": 1, "why": "shares pages with forked relatives"}
            return _census["cached"]
        _census["scope"] = "near globals"
        _census["rebase"] = True
    elif not shared:
        _census["sharedWalks"] = 0
    near = _census["scope"] == "near globals"
    # Only a walk of the whole heap costs what the heap holds: one near the globals reads what the program's modules
    # hold, however many objects there are. A training loop over a shuffled dataset of a million images (a DataLoader's
    # RandomSampler: a list of a million ints) passed the bound from its first batch, and its kept losses, unseen by the
    # walks, read as allocator retention.
    if not near and sys.getallocatedblocks() > _CENSUS_MAX_BLOCKS:
        _census["last"] = now  # looked at again after the shortest gap, not at every report
        _census["cached"] = {"skipped": 1, "why": "over a million objects"}
        return _census["cached"]
    torch = sys.modules.get("torch")
    tensor_type = getattr(torch, "Tensor", None) if torch is not None and not near else None
    containers = _container_types()
    t0 = time.thread_time()
    items = 0
    # The containers of over 16 items, as they are: no tuple of (length, id) per container, which on an app's heap of
    # 30,000 such lists was ~3 MB of small blocks a walk, left resident in pymalloc's arenas between the program's own
    # objects (anon rose 2.9 MiB over the first three walks of a steady process under watch, read as its growth).
    big = []
    tensors = graphs = 0
    storages = {}
    # The tensors keeping a graph, whose graphs' nodes are counted after the walk (memleak_graphs.py): a graph that one
    # tensor keeps growing (`total = total + loss`) grows no container.
    with_graph = []
    # The walk's own containers are in the list too (big holds itself by the time the walk reaches it): once freed,
    # a program's new list can get the address and inherit their length.
    own = {id(big), id(storages), id(with_graph), id(_census), id(_census["seen"])}
    for o in _near_globals(containers) if near else _tracked(containers, tensor_type):
        kind = type(o)
        if kind in containers and id(o) not in own:
            n = len(o)
            items += n
            if n > 16:
                big.append(o)
        elif tensor_type is not None and issubclass(kind, tensor_type):
            try:
                if o.grad_fn is not None:
                    graphs += 1
                    if len(with_graph) < _GRAPH_TENSORS_COUNTED:
                        with_graph.append(o)
                if o.device.type != "cpu":  # CUDA, XLA, MPS…: not what malloc or RSS hold
                    continue
                tensors += 1
                st = o.untyped_storage() if hasattr(o, "untyped_storage") else o.storage()
                storages[st.data_ptr()] = st.nbytes()
            except Exception:  # sparse, meta or otherwise storage-less tensors
                pass
    out = {"containerItems": items}
    if near:
        out["scope"] = "near globals"  # containerItems counts those containers only
    # The container that gained most items since the walks started following it: what a leak fills. On the first
    # walk every container starts from its length then; one that enters the largest later was small or not there,
    # and counts from 0 (over-counting by at most what the smallest followed container held).
    # Followed: every container of over 16 items (up to _TRACKED_CONTAINERS of the largest): a list of 150 KB
    # buffers that has gained 50 items is far from the largest by length, and it is the one that grows.
    if len(big) > _TRACKED_CONTAINERS:
        big.sort(key=len, reverse=True)
        big = big[:_TRACKED_CONTAINERS]
    seen = _census["seen"]
    first = _census.get("walked") is None
    _census["walked"] = True
    _census["walks"] = _census.get("walks", 0) + 1
    # The first narrow walk after walks of the whole heap: a container those walks followed keeps its start; one they
    # did not follow (there are many more, all near the globals among them) starts from its length now, as on a first
    # walk — counted from 0 it would seem to have gained all it holds.
    rebase = _census.pop("rebase", False)
    base = {}
    for o in big:
        n = len(o)
        base[id(o)] = n if first else seen.get(id(o), n) if rebase else seen.get(id(o), 0)
    _census["seen"] = base
    # Ranked by bytes added (items × their sampled size), not items: an import fills module dicts with thousands of
    # small functions, which must not hide a list of 4 KB buffers that grows by a few hundred a second.
    gainers = []
    tensor_grower = None
    for container in big:
        n = len(container)
        added = n - base[id(container)]
        if added <= 0:
            continue
        item_type, item_size, of_tensors = _describe_items(container, tensor_type)
        what = type(container).__name__ + (" of %s" % item_type if item_type else "")
        entry = [added * (item_size or 0), n, added, what, item_size, container, None]
        gainers.append(entry)
        # Tensors that keep autograd graphs (kept losses) are a few bytes each by their elements, yet hold the graph:
        # the container that gains most tensors is the one whose holder is looked for.
        if of_tensors and (tensor_grower is None or added > tensor_grower[2]):
            tensor_grower = entry
    tensor_grower_seen = tensor_grower is not None
    grower = _by_retained_bytes(gainers, tensor_type, tensor_grower)
    _suspect((tensor_grower or grower), first)
    if grower is not None:
        added_bytes, n, added, what, item_size, _, retained = grower
        out.update(growingLen=n, growingAdded=added, growingAddedBytes=added_bytes, growing=what)
        if item_size is not None:
            out["growingItemBytes"] = item_size
        if retained is not None or item_size is not None:
            # With every container followed, its items' own size where a look found no more: the field's last value
            # must be this container's (a module's dict's 1.76 MiB a key was said of each str of a list after it).
            out["growingRetainedBytes"] = retained if retained is not None else item_size
        if torch is not None:
            # Text, as `growing` is, and set at the same walk: a number would be averaged with older walks' readings.
            out["growingGraphs"] = "yes" if _items_keep_graphs(grower[5], torch) else "no"
    big = container = grower = tensor_grower = gainers = o = None  # hold no reference to the program's objects
    if tensor_type is not None:
        out["cpuTensors"] = tensors
        out["cpuTensorBytes"] = sum(storages.values())
        out["graphTensors"] = graphs
        if with_graph:
            nodes, capped = _sibling_module("memleak_graphs").count_nodes(with_graph)
            out["graphNodes"] = nodes
            if capped:
                out["graphNodesCapped"] = 1
            # A container gaining tensors (kept losses) explains graphs that grow: it is the one searched for.
            _suspect_graph(nodes, capped, now, explained=tensor_grower_seen)
        else:
            _suspect_graph(0, False, now)
    with_graph = None
    _census["cost"] = time.thread_time() - t0
    out["costMs"] = round(_census["cost"] * 1000, 2)
    _census["last"] = now
    _census["cached"] = out
    return out


_RETAINED_LOOKS = 4  # containers ranked first by shallow bytes added, and as many by items added, are looked into


def _by_retained_bytes(gainers, tensor_type, tensor_grower):
    """The container that gained most bytes, counting what each new item keeps alive (memleak_retained.py), not only
    its own size: a set of finished asyncio Tasks gains ~100 bytes an item by getsizeof and 64 KiB by what each
    Task's result holds; a list of kept losses gains 4 bytes an item and ~6 KB of autograd graph. Only the leaders by
    shallow bytes and by items added are looked into (the look is bounded, but there may be thousands of gainers), and
    the container that gained most tensors (a tensor's own bytes are its elements'); the others keep their shallow
    bytes. Each entry's bytes become items added x bytes retained, and its last field the
    bytes retained per item."""
    if not gainers:
        return None
    by_bytes = sorted(gainers, key=lambda e: e[0], reverse=True)[:_RETAINED_LOOKS]
    by_items = sorted(gainers, key=lambda e: e[2], reverse=True)[:_RETAINED_LOOKS]
    retained_module = _sibling_module("memleak_retained")
    looked = by_bytes + by_items + ([tensor_grower] if tensor_grower is not None else [])
    for entry in {id(e): e for e in looked}.values():
        per_item = retained_module.retained_per_item(entry[5], tensor_type)
        if per_item is not None and per_item > (entry[4] or 0):
            entry[0] = entry[2] * per_item
            entry[6] = per_item
    return max(gainers, key=lambda e: e[0])


_EARLY_WALK_BYTES = 256 << 10
# Early walks for new candidates: a bucket of two, refilled one a minute. A program whose caches churn keeps to about
# one walk a minute over the walks' CPU budget; two at the start, because an import's module dicts can be the first
# candidate (torch's import takes 5-10 s of a busy machine) and the container that leaks the next: with one a minute
# a CI run's list of 4 KB bodies was walked too seldom to be the layer of its leak.
_EARLY_WALKS = 2


def _early_walk_granted(now):
    tokens, since = _census.get("earlyBucket", (_EARLY_WALKS, now))
    tokens = min(_EARLY_WALKS, tokens + (now - since) / _CENSUS_MAX_GAP)
    granted = tokens >= 1
    _census["earlyBucket"] = (tokens - 1 if granted else tokens, now)
    return granted


def _suspect(candidate, first):
    """A leak is suspected when the container that gained most since the walks started following it is the same at two
    walks in a row and is longer at the second: it still grows (a bounded cache that filled up has gained as much, but
    no more). It is handed to the holder search once (a new container, or another one growing, is searched again),
    which runs after the walk, with the collector back on (_census_stats)."""
    previous = _census.get("candidate")  # (id, length, when) of the last walk's candidate
    if candidate is None:
        _census["candidate"] = None
        return
    container, length, now = candidate[5], candidate[1], time.monotonic()
    _census["candidate"] = (id(container), length, now)
    if (
        first
        or previous is None
        or previous[0] != id(container)
        or length <= previous[1]
        or id(container) == _census.get("searched")
    ):
        # A new candidate that gained 256 KiB or more: the next walk, which tells whether it keeps gaining, comes early
        # (_census_gap).
        fresh = previous is None or previous[0] != id(container)
        if fresh and not first and candidate[0] >= _EARLY_WALK_BYTES and id(container) != _census.get("searched"):
            _census["early"] = _early_walk_granted(now)
        return
    _census["searched"] = id(container)
    # The walk after a suspicion comes early too: whether it still gains then tells a leak from a cache that filled up
    # by the time it was suspected (layer.ts pinningSuspected needs that third rise).
    _census["early"] = _early_walk_granted(now)
    # How fast it grows: items a second between the two walks (what the advice says it gains).
    _census["suspect"] = (container, candidate[3], length, (length - previous[1]) / max(now - previous[2], 1e-3))


# Tensors keeping a graph whose graphs one walk counts: a chain of recurrent states keeps one Python tensor per step
# alive (941 after 30 s of a GRU cell), each reaching the nodes of those before it, counted once.
_GRAPH_TENSORS_COUNTED = 4096
# Nodes the graphs must gain from one walk to the next to count as growing: a training step's own graph, alive at a
# walk that caught the step, is a handful for a small model and thousands for a large one; a chain that gains a step's
# graph at every step gains as many as a step has nodes times the steps between two walks (5-18 s apart).
_GRAPH_RISE_MIN = 200


def _suspect_graph(nodes, capped, now, explained=False):
    """The graph nodes grew at two walks in a row (or stayed past memleak_graphs.MAX_NODES at both), with no container
    gaining tensors at the walk (`explained`): a graph that one tensor keeps growing is suspected, and its holder looked
    for after the walk (_graph_holder), once until the graphs stop growing."""
    # (nodes, capped, when) of the last walk; before the first, none: a graph the first walk finds grew from nothing
    # (with torch loaded walks are 10-25 s apart, more as a chain's tensors pile up: a GRU state's holder was not
    # named within 35 s of a CI run when the first walk only set the count to compare with).
    previous = _census.get("graphNodes", (0, False, now))
    _census["graphNodes"] = (nodes, capped, now)
    grew = nodes - previous[0] >= _GRAPH_RISE_MIN or (capped and previous[1])
    rose = grew and not explained
    _census["graphRises"] = _census.get("graphRises", 0) + 1 if rose else 0
    if not rose:
        _census.pop("graphSearched", None)
        return
    if _census["graphRises"] >= 2 and not _census.get("graphSearched"):
        _census["graphSearched"] = True
        _census["early"] = _early_walk_granted(now)  # as after a container's suspicion (_suspect)
        _census["graphSuspect"] = (nodes - previous[0]) / max(now - previous[2], 1e-3)


def container_lengths():
    """For the pytest plugin: id → length of every container of over 16 items, taken before a test's measured calls,
    so that the one a leaking test kept filling can be found after them (grown_holder). None where the census would
    not walk (a heap of over a million objects, pages shared with forked relatives). Integers only: it keeps nothing
    of the program alive."""
    if sys.getallocatedblocks() > _CENSUS_MAX_BLOCKS or _shares_pages_with_relatives():
        return None
    enabled = gc.isenabled()
    gc.disable()  # as in the census: no collection may find the walk's list holding the program's garbage
    try:
        containers = _container_types()
        return {id(o): len(o) for o in _tracked(containers, None) if type(o) in containers and len(o) > 16}
    finally:
        if enabled:
            gc.enable()


def grown_holder(lengths):
    """For the pytest plugin, after a test judged a leak: the container that gained most items since `lengths`
    (container_lengths), described as the census does, and what holds it (memleak_holder.py). Strings and numbers."""
    if lengths is None:
        return None
    enabled = gc.isenabled()
    gc.disable()
    try:
        containers = _container_types()
        best = None
        # Ranked by bytes added, as the census ranks (a new list of pytest's own small strings must not hide a list
        # that gains 256 KB buffers); a container that was not followed (16 items or fewer) counts from 0.
        for o in _tracked(containers, None):
            if type(o) in containers:
                added = len(o) - lengths.get(id(o), 0)
                if added <= 0:
                    continue
                item_type, item_size, _ = _describe_items(o)
                added_bytes = added * (item_size or 0)
                if best is None or added_bytes > best[0]:
                    best = (added_bytes, added, type(o).__name__ + (" of %s" % item_type if item_type else ""), o)
        o = None
    finally:
        if enabled:
            gc.enable()
    if best is None:
        return None
    _, _, what, container = best
    best = None
    length = len(container)
    found = _holder_module().find(container, main_ident=_state["main"])
    container = None
    out = {"container": what, "length": length, "found": found["found"]}
    out.update({k: found[k] for k in ("path", "why") if k in found})
    return out


def _holder_module():
    """memleak_holder.py, loaded from beside this file under a private name (as `watch` loads this one)."""
    return _sibling_module("memleak_holder")


def _sibling_module(name):
    """One of the agent's own modules beside this file (memleak_holder.py, memleak_retained.py), loaded when first
    needed under a private name, as `watch` loads this one: a program with nothing growing never pays for it."""
    module = sys.modules.get("_" + name)
    if module is None:
        # The import system's own functions (importlib.util's are these, with contextlib, functools and more imported
        # around them: imported here, they would stay in the process).
        from _frozen_importlib import module_from_spec
        from _frozen_importlib_external import spec_from_file_location

        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py")
        spec = spec_from_file_location("_" + name, path)
        module = module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules["_" + name] = module
    return module


def _graph_holder():
    """What holds the graph that grew at two walks in a row: the program's global or running function's local whose
    tensor keeps the largest graph (memleak_graphs.py); one 'holder' message, as the container search sends."""
    per_second = _census.pop("graphSuspect", None)
    torch = sys.modules.get("torch")
    tensor_type = getattr(torch, "Tensor", None)
    if per_second is None or tensor_type is None:
        return
    found = _sibling_module("memleak_graphs").held_graph(
        tensor_type,
        _programs_own,
        _agents_own,
        _own_path,
        _thread.get_ident(),
        _holder_module(),
        _state["main"],
        _census["graphNodes"][0],
    )
    message = {
        "type": "holder",
        "pid": os.getpid(),
        "t": time.time(),
        "container": "autograd graph of a Tensor",
        "length": found.pop("nodes", _census["graphNodes"][0]),
        "itemsPerSecond": round(max(per_second, 0.0), 2),
    }
    if found.pop("capped", False):
        message["lengthCapped"] = True  # the count stopped at its bound: the graph has at least this many nodes
    message.update(found)
    _census["holder"] = message
    _send(message)


def _holder_search():
    """The search for what holds the suspected container; one 'holder' message with what it found and what it cost."""
    suspect = _census.pop("suspect", None)
    if suspect is None:
        return
    container, what, length, per_second = suspect
    suspect = None
    found = _holder_module().find(container, main_ident=_state["main"])
    container = None
    message = {
        "type": "holder",
        "pid": os.getpid(),
        "t": time.time(),
        "container": what,
        "length": length,
        "itemsPerSecond": round(per_second, 2),
    }
    message.update(found)
    _census["holder"] = message  # strings and numbers only: what the last search said, for the tests
    _send(message)


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


# ------------------------------------------------------------------------------------------------------- transport


def _connect(path):
    if not path:
        return None
    s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)  # not inheritable: a child exec'd later never holds it
    s.settimeout(1.0)
    try:
        s.connect(path)
    except OSError:
        s.close()
        raise
    return s


def _not_serializable(o):
    raise TypeError("Object of type %s is not JSON serializable" % o.__class__.__name__)


def _json_line(message):
    """json.dumps(message, separators=(",", ":")), byte for byte: json's own C encoder (the one json.dumps uses) with
    json.dumps's defaults (ASCII only, circular references checked, NaN allowed, keys unsorted), without importing
    json (see the imports)."""
    if _c_make_encoder is None:
        import json

        return json.dumps(message, separators=(",", ":"))
    encode = _c_make_encoder({}, _not_serializable, _c_encode_basestring_ascii, None, ":", ",", False, False, True)
    return "".join(encode(message, 0))


def _send(message):
    _send_line(_json_line(message))


def _send_line(line):
    sock = _state["sock"]
    if sock is None:
        return
    data = (line + "\n").encode()
    if len(data) > _MAX_MESSAGE:
        return
    try:
        with _send_lock:
            sock.sendall(data)
    except _socket.timeout:
        _stop()  # memleak is there but not reading (stopped, or swamped): stop reporting to it
    except OSError:
        pass  # the connection ended: the reporting thread sees it too, and decides what that means (_loop)


def connected():
    """Whether memleak is listening: the pytest plugin refuses to run without it."""
    return _state["sock"] is not None and _state["pid"] == os.getpid()


def send(message):
    """For the pytest plugin: one message of its own (test-start, test-end) on the agent's connection."""
    _send(message)


def _report(interval, force=False, census=True):
    with measure_lock:
        _report_locked(interval, force, census)


# The last report sent, without its time, and on which connection by which process: a report equal to it is not sent
# again. memleak repeats each process's latest report in every sample (src/agent/channel.ts snapshot), so what it
# records and judges is the same, and an idle process (a worker waiting for requests, 64 forked loaders between
# epochs) costs it no socket read and no parse, and the program no send: 83% of the reports of 64 idle forked workers
# of 8 MB here (BENCHMARKS.md §g⁶). Forced reports (the last words at exit) are always sent.
_last_report = {"line": None, "pid": None, "sock": None}


def _report_locked(interval, force, census):
    # The census first: what its walk allocates and frees moves the interpreter's counts (gcCount0, allocatedBlocks),
    # and read before it they would differ in the next report instead of this one, so an idle process whose census
    # ran every 5 s sent two reports per census instead of one (a `watch`ed forked worker: BENCHMARKS.md §g⁷).
    walked = _census_stats(interval, force) if census else None
    message = {"type": "report", "pid": os.getpid(), "threads": _os_threads(), "py": _python_stats()}
    malloc = _malloc_stats(interval, force)
    if malloc is not None:
        # The trims `run --try trim` made so far: the proof that the setting was in effect (a copy: the reading is cached).
        message["malloc"] = dict(malloc, trims=_trim["count"]) if _trim["every"] else malloc
    torch = _torch_stats()
    if torch is not None:
        message["torch"] = torch
    gpu = _cuda_stats()
    if gpu is not None:
        message["gpu"] = gpu
    if walked is not None:
        message["census"] = walked
    line = _json_line(message)
    pid, sock = os.getpid(), _state["sock"]
    if not force and line == _last_report["line"] and pid == _last_report["pid"] and sock is _last_report["sock"]:
        return
    _last_report.update(line=line, pid=pid, sock=sock)
    _send_line('%s,"t":%r}' % (line[:-1], time.time()))


# ------------------------------------------------------------------------------------------------ tracemalloc, trim


def _tracer():
    """The tracemalloc room (memleak_trace.py), loaded the first time --trace-python needs it: a process that is not
    traced never loads it. One per process: a forked child's agent makes its own (_reset_in_child)."""
    tracer = _state.get("tracer")
    if tracer is None:
        tracer = _state["tracer"] = _sibling_module("memleak_trace").Tracer(sys.modules[__name__])
    return tracer


# `run --try trim` (MEMLEAK_TRIM_EVERY seconds): the agent calls malloc_trim(0) that often, on its own thread, to show
# what returning glibc's free pages to the kernel does to this program. Read once per process, like the allocator.
_trim = {"every": None, "last": 0.0, "count": 0}


def _trim_every():
    if _trim["every"] is None:
        every = _env_float("MEMLEAK_TRIM_EVERY", 0.0)
        _trim["every"] = every if every > 0 and not _state["attached"] and _allocator() == "glibc" else 0.0
    return _trim["every"]


def _periodic_trim():
    every = _trim_every()
    now = time.monotonic()
    if not every or now - _trim["last"] < every:
        return
    libc = _libc()
    if libc is None or not hasattr(libc, "malloc_trim"):
        _trim["every"] = 0.0
        return
    _trim["last"] = now
    libc.malloc_trim(0)
    _trim["count"] += 1


def _trim_probe():
    libc = _libc()
    if libc is None or not hasattr(libc, "malloc_trim"):
        return
    before = _status_kib("RssAnon")
    libc.malloc_trim(0)
    after = _status_kib("RssAnon")
    _send({"type": "trim", "pid": os.getpid(), "t": time.time(), "anonBefore": before, "anonAfter": after})


def _at_exit():
    if _state["dormant"]:
        return  # a forked worker whose agent was never woken: nothing of ours ran here, and nothing will at its end
    launched = not _state["attached"]  # tracemalloc and the trim probe are `run` options
    try:
        if launched and os.environ.get("MEMLEAK_TRACE_PYTHON") and _state.get("tracer") is not None:
            _state["tracer"].report()
        if not _state["quiet"]:  # a quiet agent's process is read from /proc only, to its end
            _report(0, force=True)  # before the trim, so the last reading shows what was held
        if launched and os.environ.get("MEMLEAK_TRIM_PROBE"):
            _trim_probe()
    except Exception:
        pass
    sock = _state["sock"]
    if sock is not None:
        try:
            sock.close()
        except OSError:
            pass


# ------------------------------------------------------------------------------------------------------- lifecycle

# The agent's threads are _thread's, not threading's: threading (with collections, functools and the rest it imports)
# would be in every process only for them. They are daemon threads as threading's were (the interpreter does not wait
# for them at exit), not in threading.enumerate() (the program sees only its own threads there), and counted in
# pythonThreads as before (_python_threads). Their native names are set by prctl (_name_native_thread).
_own_threads = set()


def _start_thread(target, args):
    def run():
        ident = _thread.get_ident()
        _own_threads.add(ident)
        try:
            target(*args)
        except BaseException:  # never a traceback in the program's stderr (the targets catch their own already)
            pass
        finally:
            _own_threads.discard(ident)

    return _thread.start_new_thread(run, ())


class _Event:
    """threading.Event's set, is_set and wait, on one of _thread's locks: held while unset, released once set."""

    def __init__(self):
        self._flag = False
        self._guard = _thread.allocate_lock()
        self._gate = _thread.allocate_lock()
        self._gate.acquire()

    def is_set(self):
        return self._flag

    def set(self):
        with self._guard:
            if not self._flag:
                self._flag = True
                self._gate.release()

    def wait(self, timeout):
        if self._flag:
            return True
        if self._gate.acquire(True, max(0.0, timeout)):
            self._gate.release()  # open for every other waiter too
        return self._flag


def _name_native_thread():
    """Names the OS thread, so /proc/PID/task/*/comm shows whether memleak's thread is (still) in the process."""
    try:
        _libc().prctl(15, b"memleak-agent", 0, 0, 0)  # PR_SET_NAME
    except Exception:
        pass


def _memleak_gone(sock, timeout):
    """Waits up to `timeout` seconds (for ever while quiet). None while memleak is there; "bye" when it said goodbye
    (as a session ends, or `watch` releases this agent); "eof" when the connection ended without one (memleak killed,
    or this connection dropped). memleak's other words, one a line: "quiet" — this process is read from /proc only
    (`run`'s placement, agent-placement.ts), so no reports and no wake-ups until memleak speaks again — "report"
    (report again, now) and "cow" (say which of the parent's objects this forked worker copied, memleak_cow.py). A
    word this agent does not know is a goodbye: an older agent took every word for one.
    """
    try:
        readable, _, _ = select.select([sock], [], [], None if _state["quiet"] else timeout)
        if not readable:
            return None
        data = sock.recv(64)
        if not data:
            return "eof"
    except (OSError, ValueError):
        return "eof"
    lines = (_state["heard"] + data).split(b"\n")
    _state["heard"] = lines.pop()
    for word in lines:
        if word == b"quiet":
            _state["quiet"] = True
        elif word == b"report":
            _state["quiet"] = False
            _last_report["line"] = None  # memleak forgot the last one when it said quiet: the next is sent
        elif word == b"cow":
            _state["cowAsked"] = True  # which of the parent's objects this worker copied: walked on the agent's thread
        else:
            return "bye"
    return None


def _launcher_exited(pid):
    """No such process, or a zombie its parent has not reaped yet. Unknown counts as alive."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X")
    except FileNotFoundError:
        return True
    except (OSError, IndexError):
        return False


def _launcher_dead(wait=3.0):
    """Whether the memleak that launched this program (`run` puts its pid in MEMLEAK_PID) has exited. A dying
    process closes its sockets before it becomes a zombie, so the connection can end a moment before /proc says so:
    it is given `wait` seconds. Still there after that, it closed this connection on purpose. Never stop a program
    on a guess."""
    try:
        pid = int(os.environ.get("MEMLEAK_PID", ""))
    except ValueError:
        return False
    deadline = time.monotonic() + wait
    while not _launcher_exited(pid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True


def _killed_not_closed(path):
    """memleak's close() removes its socket's directory before it exits; a memleak killed by SIGKILL cannot (the next
    run does). So a connection that ended without a goodbye, from a memleak that has exited, with the directory still
    there, is a killed memleak — not a connection it dropped, or one it never accepted as it ended normally."""
    return bool(path) and os.path.isdir(os.path.dirname(path))


def _remove_placed():
    """In a container, memleak placed the agent's files and its socket in a directory of this process's /tmp
    (agent/attach/placement.ts), which memleak removes as it ends. A memleak killed by SIGKILL cannot: the first agent
    to see its connection end without a goodbye removes the directory, once nothing answers on the socket any more
    (memleak's listener is gone, not just this connection). The module is loaded by then: nothing here needs the files.
    """
    placed = _state["placed"]
    path = _state["path"]
    if not placed or not path or os.path.dirname(path) != placed:
        return
    # A process being killed closes its descriptors one by one: this connection can end while its listening socket
    # still takes connections for a moment. So memleak counts as there only if it still answers over ~1.5 s.
    for attempt in range(6):
        probe = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        probe.settimeout(1.0)
        try:
            probe.connect(path)
        except OSError:
            break  # nobody listens: memleak is gone
        finally:
            probe.close()
        if attempt == 5:
            return  # memleak still listens: it closed this connection on purpose, and removes its directory itself
        time.sleep(0.3)
    try:
        import shutil

        shutil.rmtree(placed, ignore_errors=True)
    except Exception:
        pass


def _die_with_memleak():
    """`memleak run` was killed (SIGKILL: it could not stop the program itself). A program memleak launched must not
    go on unsupervised — allocating, holding its cgroup — so it stops as memleak would have stopped it: SIGTERM,
    then SIGKILL if it is still there after the grace memleak gives (FAIL_FAST_GRACE_MS). setpriv's parent-death
    signal does this for the command itself; this covers the Python processes it started (forked workers)."""
    try:
        os.write(
            2, b"memleak: the memleak that launched this process is gone (killed); stopping PID %d\n" % os.getpid()
        )
    except OSError:
        pass
    import signal  # only on this path: signal imports enum

    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(_env_float("MEMLEAK_ORPHAN_GRACE", 5.0))
    os.kill(os.getpid(), signal.SIGKILL)


def _until_next_beat(interval):
    """Seconds to the next whole multiple of `interval` on the wall clock, at least half an interval: every agent of a
    tree then reports at the same moment, and memleak reads their reports in one wake-up instead of one each. On 64
    processes at 1 Hz, reports spread over the second cost memleak ~300 µs each, at the same moment ~100 µs
    (bench/lib/channel-cost.mjs): its cost was the waking, not the reading."""
    wait = interval - time.time() % interval
    return wait + interval if wait < interval / 2 else wait


def _loop(interval, stop, sock):
    _name_native_thread()
    while not stop.is_set():
        if os.getpid() != _state["pid"] or _state["sock"] is not sock:
            return
        gone = _memleak_gone(sock, _until_next_beat(interval))
        if gone:
            if _state["sock"] is sock:  # not a connection a later attach() already replaced
                _stop()
                if gone == "eof" and _state["attached"]:
                    _remove_placed()
                if gone == "eof" and not _state["attached"] and _launcher_dead() and _killed_not_closed(_state["path"]):
                    _die_with_memleak()
            return
        if stop.is_set():
            return
        try:
            _periodic_trim()  # a quiet agent's process trims too: the setting is the program's, not the report's
        except Exception:
            pass
        if _state.pop("cowAsked", False):
            _copied_objects()  # asked by memleak's word: quiet or not
        if _state["quiet"]:
            continue
        try:
            _report(interval)
        except Exception:
            pass


def _copied_objects():
    """Which of the parent's objects this forked worker holds private copies of (memleak_cow.py), sent as one message."""
    try:
        # Private_Dirty before the module is loaded: loading it is part of what the look costs the worker.
        before = (_rollup("Private_Dirty") or {}).get("Private_Dirty")
        before = before * 1024 if before is not None else None

        def own(m):
            return issubclass(type(m), _ModuleType) and _programs_own(m) and not _agents_own(m)

        result = _sibling_module("memleak_cow").copied(before, own)
        _send(result)
    except Exception:
        pass


def _stop():
    """Closes the connection and lets the reporting thread end: nothing of the agent keeps running. Under `watch`
    this is how an attached agent leaves a live program once memleak has gone (closed, Ctrl-C or kill -9 alike)."""
    stop = _state["stop"]
    if stop is not None:
        stop.set()
    sock = _state["sock"]
    _state["sock"] = None
    if sock is not None:
        try:
            sock.close()
        except OSError:
            pass
    if _state["atexit"]:
        _state["atexit"] = False
        atexit.unregister(_at_exit)


def start(socket_path=None, interval=None, quiet=False):
    """Connects, sends a hello and a first report, and starts the reporting thread. `run` calls it from
    sitecustomize with the settings in MEMLEAK_* variables; `watch` calls it through attach(). `quiet`: a worker
    forked under `run` says hello and waits for memleak's word before its first report: most of a service's idle
    workers are read from /proc only (memleak's run-agents.ts), and a report they never send copies no page they
    share with their parent."""
    if interval is None:
        interval = _env_float("MEMLEAK_AGENT_INTERVAL", 1.0)
    interval = max(0.05, interval)
    path = socket_path if socket_path is not None else os.environ.get("MEMLEAK_AGENT_SOCKET")
    try:
        sock = _connect(path)
    except OSError as e:
        _state["error"] = repr(e)  # said by memleak_attach.py, for `watch` to tell
        sock = None
    if sock is None:
        return
    _state["sock"] = sock
    _state["path"] = path
    _state["interval"] = interval
    _state["quiet"] = quiet  # a new connection (a forked child's, a later watch's): memleak has said nothing to it yet
    _state["heard"] = b""
    _state["pid"] = os.getpid()
    if not _state.get("forked"):
        _install_wake()
    stop = _Event()
    _state["stop"] = stop
    if not _state["atexit"]:
        _state["atexit"] = True
        atexit.register(_at_exit)
    _send(
        {
            "type": "hello",
            "pid": os.getpid(),
            "t": time.time(),
            "python": sys.version.split()[0],
            "executable": sys.executable,
            "attached": _state["attached"],
            "quiet": quiet,
            **({"wake": _state["wake"]} if _state["wake"] is not None else {}),
        }
    )
    try:
        if not quiet:
            _report(interval, census=False)  # on the caller's thread (the program's, under watch): no walk here
    except Exception:
        pass
    _state["thread"] = _start_thread(_loop, (interval, stop, sock))
    if not _state["attached"] and os.environ.get("MEMLEAK_TRACE_PYTHON") and _state.get("traced") is None:
        _state["traced"] = True
        _tracer().start()


def _trace_window_quietly(seconds, stop):
    try:
        _tracer().window(seconds, stop)
    except Exception:  # never a traceback in the program's stderr
        pass


def attach(socket_path, interval, trace=None, placed=None):
    """`memleak watch` injected us into a running interpreter (memleak_attach.py runs this on the main thread, with the
    GIL, at a point where the interpreter runs Python code). The same reports as under `run`; tracemalloc only for
    --trace-python's window (`trace` seconds, memleak_trace.py Tracer.window), no trim probe; and the agent stops by itself when
    memleak's end of the socket closes. Attaching again (a later watch) reuses this module, so nothing accumulates.
    `placed`: the directory memleak placed in this process's view (a container), to remove if memleak is killed."""
    _state["placed"] = placed
    if _state["sock"] is not None and _state["pid"] == os.getpid():
        if _state["path"] == socket_path:
            return  # already reporting to this memleak
        _stop()  # a previous memleak's connection
    _state["attached"] = True
    start(socket_path, interval)
    if trace and _state["sock"] is not None:
        stop = _state["stop"]
        _start_thread(_trace_window_quietly, (float(trace), stop))


def _reset_in_child():
    """What the parent's agent left behind that a forked child's own agent must not use."""
    global _send_lock, measure_lock
    # Fresh locks: the reporting thread, which does not exist in the child, may have held them at the fork.
    _send_lock = _thread.allocate_lock()
    measure_lock = _thread.RLock()
    _own_threads.clear()  # only the thread that forked is in the child
    _state["main"] = _thread.get_ident()
    _census["cached"] = None
    _census["seen"] = {}
    _census["walked"] = None
    _census["walks"] = 0
    _census["early"] = False
    _census.pop("earlyBucket", None)
    _census["scope"] = None
    _census["suspect"] = _census["candidate"] = _census["searched"] = None
    for key in ("graphNodes", "graphRises", "graphSearched", "graphSuspect"):
        _census.pop(key, None)
    _state["stop"] = None
    _malloc["cached"] = None
    tracer = _state.get("tracer")
    if tracer is not None and tracer.baseline is not None:
        _state["tracer"] = None  # the parent's baseline is not this child's: its agent takes its own
        _state["traced"] = None


def _after_fork_in_child():
    try:
        if _census.get("gcHeld"):
            # Forked by another thread while the census held collection off: the child has no census to turn it back on.
            _census["gcHeld"] = False
            gc.enable()
        _state["forked"] = True
        parent_connected = _state["sock"] is not None
        if parent_connected:
            try:
                _state["sock"].close()  # the parent's connection: not ours to use
            except OSError:
                pass
        _state["sock"] = None
        # Under run a forked worker's agent sleeps until memleak wakes it (_wake): every line run here writes to pages
        # the worker shares with its parent, and a connected agent's thread, hello and stack cost each idle worker
        # ~0.4 MiB of them (BENCHMARKS.md § g⁹). The rest of the child's set-up waits for the wake too.
        if _state["wake"] is not None and not _state["attached"]:
            _state["dormant"] = True
            _watch_parent()
            return
        _reset_in_child()
        # Under run every process reports (the socket is in the environment); an attached agent follows a forked
        # worker only while it is itself connected, so a program forked after memleak left stays untouched.
        if _state["attached"]:
            if parent_connected:
                start(_state["path"], _state["interval"])
        else:
            start(quiet=True)
    except Exception:
        pass


def _wake(signum, frame):
    """The wake signal's handler, on the program's main thread between two of its bytecodes: memleak wants this
    forked worker's agent (it grows, or stands for its siblings). Nothing where the agent is awake already: a signal
    sent twice, or to the process that installed the handler."""
    if not _state["dormant"]:
        return
    _state["dormant"] = False
    try:
        _reset_in_child()
        start()
    except Exception:
        pass


# A sleeping worker has no thread or socket to see memleak killed, and a forked worker does not inherit the command's
# parent-death signal: a worker that ignored SIGTERM outlived a `kill -9` of memleak whenever memleak died before it
# woke it (run.test on CI, ae93a59). So a worker going to sleep asks the kernel for a signal when its parent dies
# (PR_SET_PDEATHSIG). SIGURG: its default action is to be ignored, and the setting outlives an exec — a program the
# worker starts (a fork and exec, Popen with preexec_fn, pty.fork) is not harmed by it, which a real-time signal's
# default action (termination) would do; the kernel also sends it when the thread that forked the worker ends.
_PR_SET_PDEATHSIG = 1


def _watch_parent():
    """In a worker going to sleep: its parent's death (or its forking thread's end) raises _PARENT_GONE here."""
    prctl = _state.get("prctl")
    signum = _state.get("parentGone")
    if prctl is None or signum is None:
        return
    import _signal  # loaded already: _install_wake imported it

    if _signal.getsignal(signum) is not _parent_gone:
        return  # the program took SIGURG since: its handler must not hear of our parents
    parent = _state.get("forkedBy")
    prctl(_PR_SET_PDEATHSIG, signum)
    if parent is not None and os.getppid() != parent:
        _parent_gone(signum, None)  # it died between the fork and the prctl: no signal will come


def _parent_gone(signum, frame):
    """A sleeping worker's parent died (or the thread that forked it ended). Only where memleak was killed — it has
    exited and left its socket's directory, which it removes when it ends as usual — does the worker stop, as a
    connected agent stops (SIGTERM, then SIGKILL after the grace; on a thread, so that the program's own SIGTERM
    handler runs first). Otherwise nothing: memleak did not ask for this agent, which stays asleep."""
    if not _state["dormant"]:
        return
    try:
        if not _memleak_killed():
            return
        _state["dormant"] = False
        _reset_in_child()
        _start_thread(_die_with_memleak, ())
    except Exception:
        pass


def _memleak_killed():
    """The memleak that launched this program has exited without removing its socket's directory: killed, not ended as
    usual — the connected path's test (_loop), checked at once, no wait (a signal handler)."""
    return _launcher_dead(wait=0) and _killed_not_closed(os.environ.get("MEMLEAK_AGENT_SOCKET", ""))


def _install_wake():
    """Under run, before the program forks: the handler of the signal that wakes a forked worker's agent, inherited by
    every worker with the process's memory. Only where the program has not taken that signal (its disposition is the
    default), only on the main thread (where Python lets a handler be set), and MEMLEAK_WAKE_SIGNAL=0 turns it off:
    then each forked worker connects, quiet, as before. memleak sends the signal only to a process whose
    /proc/PID/status says it catches it (an exec resets a caught signal), and only after this hello said which."""
    if _state["attached"] or _state["wake"] is not None or not hasattr(os, "register_at_fork"):
        return
    # `run --try trim`: every worker's agent trims on its own thread (_periodic_trim); --trace-python: every worker
    # sends its allocation sites, at the end too. Both need each worker's agent awake.
    if _env_float("MEMLEAK_TRIM_EVERY", 0.0) > 0 or os.environ.get("MEMLEAK_TRACE_PYTHON"):
        return
    import _signal

    try:
        offset = int(os.environ.get("MEMLEAK_WAKE_SIGNAL", "7"))
    except ValueError:
        return
    signum = _signal.SIGRTMIN + offset
    if offset <= 0 or signum > _signal.SIGRTMAX or _thread.get_ident() != _state["main"]:
        return
    try:
        if _signal.getsignal(signum) != _signal.SIG_DFL:
            return
        _signal.signal(signum, _wake)
    except (ValueError, OSError):
        return
    _state["wake"] = signum
    # The parent-death signal's handler, where the program has not taken SIGURG, and the prctl a forked worker calls as
    # it goes to sleep, built here once: in the worker, a call and nothing else, on pages it shares with this process.
    try:
        if _signal.getsignal(_signal.SIGURG) == _signal.SIG_DFL:
            _signal.signal(_signal.SIGURG, _parent_gone)
            libc = _libc()
            _state["prctl"] = getattr(libc, "prctl", None) if libc is not None else None
            _state["parentGone"] = _signal.SIGURG
    except (ValueError, OSError, AttributeError):
        pass


def _before_fork():
    """Which process forks: the child compares it with its parent after its prctl (_watch_parent)."""
    if _state["wake"] is not None:
        _state["forkedBy"] = os.getpid()


# Registered once per module: `watch` keeps the module in sys.modules (memleak_attach.py), so attaching again does
# not add hooks. With no connection the hooks do nothing.
if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_child=_after_fork_in_child)
