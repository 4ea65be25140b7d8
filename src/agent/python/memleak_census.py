"""The agent's census: which of the program's containers grow, and what holds the one that keeps growing. A walk counts
the items Python's containers hold and follows the longer ones from walk to walk (the container that gained most bytes
is the report's `growing`); with PyTorch loaded it also counts live CPU tensors and the autograd graphs they keep. A
container, or a graph, seen growing at two walks in a row is handed to the holder search (memleak_holder.py,
memleak_graphs.py), which sends one 'holder' message. A forked worker asked by memleak says which of its parent's
objects it copied (memleak_cow.py). Loaded in every process memleak watches, from the code memleak_agent.py's loader
shares; the searches' rooms only when something grows.

Costs, by design: the census walks the objects the GC tracks at most every 5 s, and no more often than keeps its own CPU
under 0.5% of one core (~1 ms for a plain script, ~20 ms with PyTorch loaded: every 5 s), in a loop that competes with
the program's threads for the GIL, so on a heap of over a million objects, and in a process that shares pages with
forked relatives (gunicorn's workers, a DataLoader's parent), it looks only at the containers the program's own modules
hold, near their globals (see _near_globals), whatever the heap's size.
"""
import _thread
import gc
import os
import sys
import time

# The agent's rooms this one calls, set by memleak_agent.py once every room is loaded: the channel (the holder and
# copy messages), the readings (smaps_rollup), the lifecycle (the program's main thread, whether this process was
# forked), and the loader of the rooms loaded only when needed (memleak_agent.py _sibling_module).
_channel = _readings = _lifecycle = _sibling_module = None

_ModuleType = type(sys)


class _CensusState:
    """What the census keeps in this process from one walk to the next: when it walked and what that cost, what the
    walks follow, what they suspect, and what the searches last said. Its fields are slots: no __dict__ beside them in
    every watched process. A forked child starts its own walks afresh (_reset_in_child)."""

    __slots__ = (
        "last",
        "cost",
        "cached",
        "paused",
        "walks",
        "early",
        "early_bucket",
        "scope",
        "shared_walks",
        "rebase",
        "seen",
        "lengths",
        "candidate",
        "searched",
        "suspect",
        "graph_nodes",
        "graph_rises",
        "graph_searched",
        "graph_suspect",
        "gc_held",
        "holder",
    )

    def __init__(self):
        self.last = 0.0  # time.monotonic() of the last walk, or of the last one skipped: the next is due after the gap
        self.cost = 0.0  # the last walk's CPU seconds: what spaces the walks (_census_gap)
        self.cached = None  # the last walk's report, sent again until the next walk
        self.paused = False  # the pytest plugin measures a test's calls: no walk (census_paused)
        self.walks = 0  # walks so far: the first follows every container from its length then
        self.early = False  # the next walk comes at the shortest gap: the last one opened a question (_census_gap)
        self.early_bucket = None  # (tokens, when) of the early walks' bucket (_early_walk_granted); None: full
        self.scope = None  # "heap" or "near globals", once the first walk chose where to walk
        self.shared_walks = 0  # walks of the heap in a row that found pages shared with forked relatives
        self.rebase = False  # the first walk near the globals is next: what the heap's walks followed keeps its start
        self.seen = {}  # id → the length each followed container (over 16 items) is counted from
        self.lengths = {}  # id → each followed container's length at the last walk: one that did not grow since gains
        self.candidate = None  # (id, length, when) of the last walk's container that gained most (_suspect)
        self.searched = None  # id of the container last handed to the holder search: searched once
        self.suspect = None  # (container, what, length, items a second): searched for after this walk, then dropped
        self.graph_nodes = None  # (nodes, capped, when) of the autograd graphs at the last walk with torch loaded
        self.graph_rises = 0  # walks in a row at which the graphs' nodes rose with no container gaining tensors
        self.graph_searched = False  # the growing graph's holder was looked for: once, until it stops growing
        self.graph_suspect = None  # the graphs' nodes gained a second: their holder is looked for after this walk
        self.gc_held = None  # the thread whose walk holds the collector off: no child may be forked meanwhile
        self.holder = None  # the last 'holder' message sent (strings and numbers only): for the tests


_state = _CensusState()
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


def _shares_anon_pages():
    """True when some of this process's anonymous pages are shared (Pss_Anon under the anonymous resident size):
    with a forked parent or forked children, which is what the census must not copy. None when the kernel does not
    say (Pss_Anon appeared in Linux 5.3)."""
    fields = _readings._rollup("Anonymous", "Pss_Anon")
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
    if _lifecycle._process.forked:
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
    is reported as skipped, and its time still counts, so it is not retried at once."""
    try:
        return _census_walk(interval, force)
    except Exception:
        _state.last = time.monotonic()
        _state.cached = {"skipped": 1, "why": "the walk failed"}
        return _state.cached
    finally:
        _release_collection()
        # The searches' one pass over every tracked object (gc.get_referrers) cannot be cut into pieces: ~20 ms a
        # million. The walks near the globals run on any heap; the searches only where that pass stays short, and the
        # heap is only sized when a walk left something to search (not at every report).
        wanted = _state.suspect is not None or _state.graph_suspect is not None
        if wanted and sys.getallocatedblocks() <= _HOLDER_MAX_BLOCKS:
            try:
                _holder_search()  # with the collector back on: runs for up to seconds, GIL released between passes
            except Exception:
                pass
            try:
                _graph_holder()
            except Exception:
                pass
        elif _state.suspect is not None:
            try:
                _named_near()
            except Exception:
                pass
        _state.suspect = _state.graph_suspect = None


def _hold_collection():
    """The automatic garbage collection held off for a walk of the whole heap. Its list (gc.get_objects()'s) holds a
    reference to every object the collector tracks, garbage cycles included: a collection that starts meanwhile (any
    allocation in any thread can start one) finds them reachable and promotes them to an older generation, where they
    wait for a full collection — minutes or hours. A program whose garbage is cycles carrying big buffers then grew
    under memleak only (gc_sawtooth: lows +8 MiB in 7 minutes watched, flat unwatched). A walk near the globals holds
    only what the program's modules reach, which no collection could free: it leaves the collector alone. A program
    that switches the collector on or off from another thread during the ~10 ms of a walk has its switch undone;
    gc.collect() still runs when called."""
    if not gc.isenabled():
        return
    # A fork meanwhile must not leave the child without collection: the before-fork hook waits for the walk's end, and
    # has work only while _fork_work says so (set first, cleared last, _release_collection). Registered at the first
    # such walk, not at start: a forking server's parent whose workers were forked before (then every walk of it is
    # near the globals) never runs it at a fork (BENCHMARKS.md § g²¹).
    _lifecycle._fork_hook_wanted()
    _lifecycle._fork_work = True
    _state.gc_held = _thread.get_ident()
    gc.disable()


def _release_collection():
    """Collection back on after a walk that held it off (nothing where the walk itself forked and _before_fork put it
    back on then), before the fork hook stops waiting: a fork between the two would leave the child without it."""
    if _state.gc_held == _thread.get_ident():
        gc.enable()
        _state.gc_held = None
    if _lifecycle._fork_work != _lifecycle._WARNS_AT_FORK:
        _lifecycle._fork_work = _lifecycle._WARNS_AT_FORK


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
    object a global holds (`app.cache`, `service._history`), a function's default argument or closure cell, an
    lru_cache's results, and the containers inside a small container a global holds (`REGISTRY['users']`). A full
    walk writes the reference count of every object on the heap, and copy-on-write copies each page it writes: in a
    gunicorn --preload worker of a Flask app that was 10.3 MiB of the worker's 20 MiB of shared memory, as much as a
    full collection copies; this copies 1.5 MiB, nearly all of it for reading each loaded module's name and file
    (0.4 MiB of 4.5 without --preload; BENCHMARKS.md §k′). Once copied a page stays the process's own: later walks
    copy nothing more. And the locals of the program's own running functions: a worker's loop keeps its cache in a
    local (`cache = []` in the function multiprocessing runs), which no global reaches; read as the holder search
    reads them (memleak_holder.py: on Python <= 3.12, f_locals refreshes the frame's locals() snapshot). A container
    only the interpreter's library or an installed package holds is not seen here."""
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
        # An lru_cache's results are in a dict only its C wrapper holds, which no attribute reaches (a heap past the
        # census's million blocks, walked here: lru_cache(maxsize=None) on ids that never repeat, said with no holder).
        if kind.__name__ == "_lru_cache_wrapper":
            return [x for x in gc.get_referents(v) if type(x) is dict]
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
    if _state.walks == 1 or _state.graph_rises == 1 or _state.early:
        return shortest
    return max(shortest, min(_CENSUS_MAX_GAP, _state.cost / 0.005))


def census_paused(paused):
    """For the pytest plugin: no census walk while a test's calls are measured. What a walk leaves in the agent's own
    state (the lengths it follows, the report it caches, and on the first walk the types and helpers it sets up:
    +7,015 blocks after pytest's imports, +159 at the next walk) would be counted by the test's readings as the test's:
    a CI run's first test, `sum(range(10_000))`, was called a one-off when the session's first walk fell between its
    readings. The walks resume between tests."""
    _state.paused = paused


def _census_walk(interval, force):
    """One walk over the objects the garbage collector tracks: how many items Python containers hold (a cache or a
    list that only grows shows here, whatever its items are), the one that gained most bytes since the walks started
    following it (items added × the size of a few sampled items), and with PyTorch loaded the
    storage of live CPU tensors and how many tensors keep an autograd graph (grad_fn). Rate-limited by its own CPU
    time like mallinfo2 (≤ 0.5% of one core, every 5–60 s), and skipped on heaps so big that one walk would stall the
    program. type(o), never isinstance: isinstance reads o.__class__, a property on some objects (torch.distributed
    warns from it)."""
    now = time.monotonic()
    if _state.paused:
        return _state.cached
    if not force and _state.cached is not None and now - _state.last < _census_gap(interval):
        return _state.cached
    _state.early = False
    # Once the walks keep to what is near the globals they stay there, whatever the relatives do now: the check (a read
    # of /proc/self/smaps_rollup, ~0.3-0.6 ms) is only needed while a whole-heap scope may still have to stop.
    shared = True if _state.scope == "near globals" else _shares_pages_with_relatives()
    if _state.scope is None:
        _state.scope = "near globals" if shared else "heap"
    if shared and _state.scope == "heap":
        # It forked after the walks started over the whole heap (a DataLoader starts its workers at the first batch,
        # after the program has run a while): a walk of the whole heap would now copy every page it shares with them.
        # Once the sharing is seen at two walks in a row it walks narrowly from then on, and stays narrow once they are
        # gone (another switch, another series). One walk is only skipped: a subprocess shares every page for the
        # moment between its fork and its exec (ctypes.util.find_library runs one), and switching then lost the
        # tensor census of a training loop for good (torch_losses_leak's graphs read as the native heap).
        _state.shared_walks += 1
        if _state.shared_walks < 2:
            _state.last = now
            _state.cached = {"skipped": 1, "why": "shares pages with forked relatives"}
            return _state.cached
        _state.scope = "near globals"
        _state.rebase = True
    elif not shared:
        _state.shared_walks = 0
    near = _state.scope == "near globals"
    # Only a walk of the whole heap costs what the heap holds: one near the globals reads what the program's modules
    # hold, however many objects there are. A training loop over a shuffled dataset of a million images (a DataLoader's
    # RandomSampler: a list of a million ints) passed the bound from its first batch, and its kept losses, unseen by the
    # walks, read as allocator retention.
    # And a heap past the bound is walked near its globals from then on, not left unwalked: a Flask app keeping every
    # request's dict in a module-level list passed it within seconds, and its leak was said with no holder and no word
    # of why (a helper's trial, 2026-12-05). What the walks followed over the whole heap keeps its start (rebase).
    if not near and sys.getallocatedblocks() > _CENSUS_MAX_BLOCKS:
        _state.scope = "near globals"
        _state.rebase = True
        near = True
    if not near:
        _hold_collection()  # until the walk's references are dropped: _census_stats releases it after the walk
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
    own = {id(big), id(storages), id(with_graph), id(_state.seen), id(_state.lengths)}
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
    seen = _state.seen
    first = _state.walks == 0
    _state.walks += 1
    # The first narrow walk after walks of the whole heap: a container those walks followed keeps its start; one they
    # did not follow (there are many more, all near the globals among them) starts from its length now, as on a first
    # walk — counted from 0 it would seem to have gained all it holds.
    rebase = _state.rebase
    _state.rebase = False
    base = {}
    lengths = {}
    for o in big:
        n = len(o)
        base[id(o)] = n if first else seen.get(id(o), n) if rebase else seen.get(id(o), 0)
        lengths[id(o)] = n
    # The containers the walk before followed (its lengths' keys): only these can be suspected (the same one, longer,
    # at two walks).
    last_lengths = _state.lengths
    _state.seen = base
    _state.lengths = lengths
    # Ranked by bytes added (items × their sampled size), not items: an import fills module dicts with thousands of
    # small functions, which must not hide a list of 4 KB buffers that grows by a few hundred a second.
    gainers = []
    tensor_grower = None
    candidate_id = _state.candidate[0] if _state.candidate is not None else None
    for container in big:
        n = len(container)
        added = n - base[id(container)]
        # Gaining since the walks started following it, and still: a container that has not grown since the last
        # walk gains nothing now, whatever it gained before (each failed batch's list of 1,000 ints, kept by a
        # traceback, counted 1,000 gained at every walk after it was new, and such lists hid the list that grew).
        # But the last walk's candidate, which may pause between two bursts and still be the one (_suspect).
        if added <= 0 or (n <= last_lengths.get(id(container), -1) and id(container) != candidate_id):
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
    grower = _by_retained_bytes(gainers, tensor_type, tensor_grower, last_lengths)
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
    _state.cost = time.thread_time() - t0
    out["costMs"] = round(_state.cost * 1000, 2)
    _state.last = now
    _state.cached = out
    return out


_RETAINED_LOOKS = 4  # containers ranked first by shallow bytes added, and as many by items added, are looked into


def _by_retained_bytes(gainers, tensor_type, tensor_grower, followed=()):
    """The container that gained most bytes, counting what each new item keeps alive (memleak_retained.py), not only
    its own size: a set of finished asyncio Tasks gains ~100 bytes an item by getsizeof and 64 KiB by what each
    Task's result holds; a list of kept losses gains 4 bytes an item and ~6 KB of autograd graph. Only the leaders by
    shallow bytes and by items added are looked into (the look is bounded, but there may be thousands of gainers), and
    the container that gained most tensors (a tensor's own bytes are its elements'); the others keep their shallow
    bytes. Each entry's bytes become items added x bytes retained, and its last field the
    bytes retained per item.

    The leaders among the containers the walk before followed (`followed`, keyed by id) are looked into too: a
    container new since then counts all it holds as gained, and hundreds of new ones can fill both rankings (a worker
    loop keeping each failure's sys.exc_info(): every failed batch's list of 1,000 ints, kept by its traceback, led
    both, and the list of failures, 100 tuples a walk that keep ~200 KB each, was never looked into)."""
    if not gainers:
        return None
    by_bytes = sorted(gainers, key=lambda e: e[0], reverse=True)[:_RETAINED_LOOKS]
    by_items = sorted(gainers, key=lambda e: e[2], reverse=True)[:_RETAINED_LOOKS]
    followed_gainers = [e for e in gainers if id(e[5]) in followed]
    followed_by_bytes = sorted(followed_gainers, key=lambda e: e[0], reverse=True)[:_RETAINED_LOOKS]
    followed_by_items = sorted(followed_gainers, key=lambda e: e[2], reverse=True)[:_RETAINED_LOOKS]
    retained_module = _sibling_module("memleak_retained")
    looked = (
        by_bytes
        + by_items
        + followed_by_bytes
        + followed_by_items
        + ([tensor_grower] if tensor_grower is not None else [])
    )
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
    tokens, since = _state.early_bucket or (_EARLY_WALKS, now)
    tokens = min(_EARLY_WALKS, tokens + (now - since) / _CENSUS_MAX_GAP)
    granted = tokens >= 1
    _state.early_bucket = (tokens - 1 if granted else tokens, now)
    return granted


def _suspect(candidate, first):
    """A leak is suspected when the container that gained most since the walks started following it is the same at two
    walks in a row and is longer at the second: it still grows (a bounded cache that filled up has gained as much, but
    no more). It is handed to the holder search once (a new container, or another one growing, is searched again),
    which runs after the walk, with the collector back on (_census_stats)."""
    previous = _state.candidate  # (id, length, when) of the last walk's candidate
    if candidate is None:
        _state.candidate = None
        return
    container, length, now = candidate[5], candidate[1], time.monotonic()
    _state.candidate = (id(container), length, now)
    if (
        first
        or previous is None
        or previous[0] != id(container)
        or length <= previous[1]
        or id(container) == _state.searched
    ):
        # A new candidate that gained 256 KiB or more: the next walk, which tells whether it keeps gaining, comes early
        # (_census_gap).
        fresh = previous is None or previous[0] != id(container)
        if fresh and not first and candidate[0] >= _EARLY_WALK_BYTES and id(container) != _state.searched:
            _state.early = _early_walk_granted(now)
        return
    _state.searched = id(container)
    # The walk after a suspicion comes early too: whether it still gains then tells a leak from a cache that filled up
    # by the time it was suspected (layer.ts pinningSuspected needs that third rise).
    _state.early = _early_walk_granted(now)
    # How fast it grows: items a second between the two walks (what the advice says it gains).
    _state.suspect = (container, candidate[3], length, (length - previous[1]) / max(now - previous[2], 1e-3))


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
    previous = _state.graph_nodes or (0, False, now)
    _state.graph_nodes = (nodes, capped, now)
    grew = nodes - previous[0] >= _GRAPH_RISE_MIN or (capped and previous[1])
    rose = grew and not explained
    _state.graph_rises = _state.graph_rises + 1 if rose else 0
    if not rose:
        _state.graph_searched = False
        return
    if _state.graph_rises >= 2 and not _state.graph_searched:
        _state.graph_searched = True
        _state.early = _early_walk_granted(now)  # as after a container's suspicion (_suspect)
        _state.graph_suspect = (nodes - previous[0]) / max(now - previous[2], 1e-3)


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
    found = _holder_module().find(container, main_ident=_lifecycle._process.main)
    container = None
    out = {"container": what, "length": length, "found": found["found"]}
    out.update({k: found[k] for k in ("path", "why") if k in found})
    return out


def _holder_module():
    """memleak_holder.py, loaded from beside this file under a private name (as `watch` loads this one)."""
    return _sibling_module("memleak_holder")


def _graph_holder():
    """What holds the graph that grew at two walks in a row: the program's global or running function's local whose
    tensor keeps the largest graph (memleak_graphs.py); one 'holder' message, as the container search sends."""
    per_second = _state.graph_suspect
    _state.graph_suspect = None
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
        _lifecycle._process.main,
        _state.graph_nodes[0],
    )
    message = {
        "type": "holder",
        "pid": os.getpid(),
        "t": time.time(),
        "container": "autograd graph of a Tensor",
        "length": found.pop("nodes", _state.graph_nodes[0]),
        "itemsPerSecond": round(max(per_second, 0.0), 2),
    }
    if found.pop("capped", False):
        message["lengthCapped"] = True  # the count stopped at its bound: the graph has at least this many nodes
    message.update(found)
    _state.holder = message
    _channel._send(message)


def _holder_search():
    """The search for what holds the suspected container; one 'holder' message with what it found and what it cost."""
    suspect = _state.suspect
    _state.suspect = None
    if suspect is None:
        return
    container, what, length, per_second = suspect
    suspect = None
    on_device = _on_device(container)
    found = _holder_module().find(container, main_ident=_lifecycle._process.main)
    container = None
    _send_holder(what, length, per_second, found, on_device)


def _named_near():
    """What holds the suspected container where the heap is too big for the search (over _HOLDER_MAX_BLOCKS objects: its
    pass over every tracked object would hold the GIL too long): the program's module global that is that container, one
    hop, as the search names one; nothing is sent where none is. No search ran, and its cost says so (no level, no
    pass). A Flask app keeping every request's dict in a module-level list passed 4 million objects in seconds, and its
    leak was said unheld. Looked for once per suspicion, not at every walk."""
    container, what, length, per_second = _state.suspect
    _state.suspect = None
    held = _held_by_global(container)
    on_device = _on_device(container) if held is not None else None
    container = None
    if held is None:
        return
    path, hops = _holder_module().describe(*held)
    held = None
    found = {"found": True, "path": path, "hops": hops, "root": "module global", "levels": 0, "calls": 0}
    _send_holder(what, length, per_second, dict(found, objects=0, ms=0.0, longestMs=0.0), on_device)


def _on_device(container):
    """Where the container's newest items keep tensors off the host ("cuda:0") and how many bytes each keeps there, or
    None: what ties this holder to a GPU's leak (a list of logits kept on cuda:0), which the host's readings never see.
    """
    torch = sys.modules.get("torch")
    tensor_type = getattr(torch, "Tensor", None) if torch is not None else None
    if tensor_type is None:
        return None
    try:
        return _sibling_module("memleak_retained").device_bytes_per_item(container, tensor_type)
    except Exception:
        return None


def _held_by_global(container):
    """The program's own module global that holds `container`, as the holder search's describe() takes it: (root,
    nodes from the global to the container) — the global itself, or an lru_cache whose results it is (watch attached
    to lru_cache(maxsize=None) on ids that never repeat: past the search's bound within seconds, and said unheld).
    None where neither is."""
    for name, module in list(sys.modules.items()):
        if not issubclass(type(module), _ModuleType) or not _programs_own(module) or _agents_own(module):
            continue
        try:
            for key, v in list(module.__dict__.items()):
                root = ("module global", "%s.%s" % (name, key))
                if v is container:
                    return root, [container]
                if type(v).__name__ == "_lru_cache_wrapper" and any(x is container for x in gc.get_referents(v)):
                    return root, [v, container]
        except Exception:  # a global changed meanwhile (another thread): not named
            continue
    return None


def _send_holder(what, length, per_second, found, on_device=None):
    """One 'holder' message: the suspected container, how fast it grew, what the search (or the walk) found, and
    where its items' tensors are when not on the host (_on_device)."""
    message = {
        "type": "holder",
        "pid": os.getpid(),
        "t": time.time(),
        "container": what,
        "length": length,
        "itemsPerSecond": round(per_second, 2),
    }
    if on_device is not None:
        message["device"], message["deviceBytesPerItem"] = on_device
    message.update(found)
    _state.holder = message  # strings and numbers only: what the last search said, for the tests
    _channel._send(message)


def _copied_objects():
    """Which of the parent's objects this forked worker holds private copies of (memleak_cow.py), sent as one message."""
    try:
        # Private_Dirty before the module is loaded: loading it is part of what the look costs the worker.
        before = (_readings._rollup("Private_Dirty") or {}).get("Private_Dirty")
        before = before * 1024 if before is not None else None

        def own(m):
            return issubclass(type(m), _ModuleType) and _programs_own(m) and not _agents_own(m)

        result = _sibling_module("memleak_cow").copied(before, own)
        _channel._send(result)
    except Exception:
        pass


def _reset_in_child():
    """What the parent's census left behind that a forked child's census must not use."""
    _state.cached = None
    _state.seen = {}
    _state.lengths = {}
    _state.walks = 0
    _state.early = False
    _state.early_bucket = None
    _state.scope = None
    _state.suspect = _state.candidate = _state.searched = None
    _state.graph_nodes = _state.graph_suspect = None
    _state.graph_rises = 0
    _state.graph_searched = False


def _collection_back_in_child():
    if _state.gc_held:
        # Forked while the census held collection off (past _before_fork's wait): the child has no census to turn it
        # back on.
        _state.gc_held = None
        gc.enable()
