"""What holds a growing container: the chain of references from a root — a module global, a class, a thread's running
frame — down to it, found inside the live process by memleak's agent (memleak_census.py runs it when the census has
seen the same container grow at two walks in a row, once per container). Standard library only, Python 3.8+.

The search climbs from the container toward the roots, breadth first, with gc.get_referrers: one pass over every
object the collector tracks per call, holding the GIL for that pass only (~13 ms on a heap of a million objects).
The pass compares every reference it meets with each object asked about, so a call asks about a few objects at a
time (PER_CALL), and the GIL is given back between calls. Bounded in levels, calls and wall time: past them it says
that no root was found within the bounds, never a guess.

What it leaves behind: nothing of its own. The objects it climbs through are held in its own containers while it
runs (they are alive anyway: they lead to a live container) and dropped when it returns. Naming a hop reads
attributes through the C-level dictionaries, never a property of the program's; two reads have effects the program
could see, both what a debugger's would do: on 3.11+ reading the attribute dictionary of an object on the path
materialises it (one dict per object named), and on Python ≤ 3.12 reading a running frame's f_locals refreshes the
frame's own locals() snapshot (3.13 hands back a live view instead).
"""
import _thread
import gc
import sys
import time
import types

MAX_LEVELS = 12  # hops from the container to a root: real programs' are 1-5
MAX_CALLS = 60  # gc.get_referrers passes in all
PER_CALL = 8  # objects asked about per pass: each one more makes the pass compare every reference once more
MAX_FRONTIER = 48  # objects carried to the next level: a container referred to by thousands (a type) is not a path
# Of one type, carried to the next level: a registry's owner referred to by a thousand of its entries (logging's
# Manager, set as each Logger's .manager) filled the frontier with Loggers, and the class attribute that holds it
# (logging.Logger.manager, through the class's namespace dict) never got a place.
MAX_FRONTIER_OF_A_TYPE = 8
MAX_SECONDS = 2.0  # wall time, the pauses between passes included
PAUSE = 0.002  # seconds between passes, GIL released: the program's threads run

_CO_OPTIMIZED = 0x1  # a function's frame (its f_locals is a snapshot), not a module's or a class body's


def _short_repr(key):
    """A dictionary key as the path shows it: strings, numbers and bytes as Python writes them, anything else by type."""
    if type(key) in (str, int, float, bool, bytes) or key is None:
        text = repr(key)
        return text if len(text) <= 40 else text[:37] + "..."
    return "<%s>" % type(key).__name__


def _module_dicts():
    """id(module.__dict__) → module name, for every module loaded: a module global is the commonest root. A module
    loaded under two names keeps the first (sys.modules is in import order): multiprocessing, which torch imports,
    adds __main__ again as __mp_main__."""
    out = {}
    for name, module in list(sys.modules.items()):
        if issubclass(type(module), types.ModuleType):
            try:
                out.setdefault(id(module.__dict__), name)
            except Exception:
                pass
    return out


def _running_globals(skip_ident, modules):
    """id(globals) → (its __name__, its __file__) for the globals of running code that no module holds: a script run
    with exec(compile(source, path, "exec"), {"__name__": "__main__", ...}) — a container's boot line, a test harness —
    keeps its globals in a dict sys.modules does not reach, and a cache there was "nothing refers to it" though the
    script's own frame runs on it. Only ids are kept, as for frame locals."""
    out = {}
    for _, frame in _running_frames(skip_ident):
        space = frame.f_globals
        if id(space) not in modules and id(space) not in out:
            name, path = space.get("__name__"), space.get("__file__")
            out[id(space)] = (
                name if isinstance(name, str) else "<globals>",
                path if isinstance(path, str) else None,
            )
    return out


def _running_frames(skip_ident):
    """(thread ident, frame) for every frame every thread is running, innermost first, the thread `skip_ident` (the
    agent's own) left out."""
    for ident, frame in sys._current_frames().items():
        if ident == skip_ident:
            continue
        while frame is not None:
            yield ident, frame
            frame = frame.f_back


def _thread_names(main_ident):
    """Thread ident → name, as threading names them. Never imports threading: run on the agent's thread, that import
    would make the agent's thread threading's main thread for the program. A program that never imported it has one
    thread of its own, named as threading would name it."""
    threading = sys.modules.get("threading")
    if threading is None:
        return {main_ident: "MainThread"} if main_ident is not None else {}
    return {t.ident: t.name for t in threading.enumerate()}


def _frame_locals(skip_ident, main_ident=None):
    """id(value) → (thread name, function name, variable) for the locals of every thread's running frames (the
    agent's own thread left out). Only ids are kept: the frames are read once, at the start."""
    names = _thread_names(main_ident)
    out = {}
    for ident, frame in _running_frames(skip_ident):
        code = frame.f_code
        if code.co_flags & _CO_OPTIMIZED:
            try:
                for var, value in frame.f_locals.items():
                    out.setdefault(id(value), (names.get(ident, "thread %d" % ident), code.co_name, var))
            except Exception:
                pass
    return out


def _instance_dict(obj):
    """The object's attribute dict if it has one, read without running the program's code (a class may define a
    __dict__ property, or __getattr__)."""
    try:
        d = object.__getattribute__(obj, "__dict__")
    except Exception:
        return None
    return d if type(d) is dict else None


def _find_value(mapping, child):
    for key, value in list(mapping.items()):
        if value is child:
            return key
    return None


def _index(seq, child):
    for i, item in enumerate(seq):
        if item is child:
            return i
        if i > 1_000_000:
            break
    return None


def _function_hop(fn, nodes, i):
    """A function's closure cell or default argument on the path: (kind, text, nodes consumed) or None."""
    child = nodes[i + 1]
    code = getattr(fn, "__code__", None)
    if code is None or i + 2 >= len(nodes):
        return None
    if child is fn.__closure__ and i + 3 < len(nodes):
        at = _index(child, nodes[i + 2])
        if at is not None and at < len(code.co_freevars):
            return "closure cell", code.co_freevars[at], 3
    if child is fn.__defaults__:
        at = _index(child, nodes[i + 2])
        if at is not None:
            first = code.co_argcount - len(child)
            return "default argument", code.co_varnames[first + at], 2
    if child is fn.__kwdefaults__:
        key = _find_value(child, nodes[i + 2])
        if key is not None:
            return "default argument", str(key), 2
    return None


def _hop(nodes, i):
    """The hop from nodes[i] to the next object on the path: (kind, text, how many nodes it takes). Types are read
    with type(), never isinstance, which reads __class__: a property on some of the program's objects."""
    parent, child = nodes[i], nodes[i + 1]
    kind = type(parent)
    if issubclass(kind, types.FunctionType):
        hop = _function_hop(parent, nodes, i)
        if hop is not None:
            return hop
    if kind.__name__ == "_lru_cache_wrapper":
        try:
            bound = parent.cache_info().maxsize
        except Exception:
            bound = "?"
        return "lru_cache", "lru_cache(maxsize=%s) cache" % bound, 1
    is_class = issubclass(kind, type)
    if is_class or _instance_dict(parent) is not None:
        # An object's attributes: its dict (the next node), then the value; or, on 3.11+, the value itself (inline).
        attrs = parent.__dict__ if is_class else _instance_dict(parent)
        what = "class attribute" if is_class else "attribute"
        if type(child) is dict and i + 2 < len(nodes) and attrs is not None:
            key = _find_value(attrs, nodes[i + 2])
            if key is not None:
                return what, str(key), 2
        key = _find_value(attrs, child) if attrs is not None else None
        if key is not None:
            return what, str(key), 1
    if kind.__name__ == "cell":
        return "closure cell", "cell", 1
    if issubclass(kind, dict):
        key = _find_value(parent, child)
        if key is not None:
            return "item", "[%s]" % _short_repr(key), 1
        return "key", "key", 1
    if issubclass(kind, (list, tuple)) or kind.__name__ == "deque":
        at = _index(parent, child)
        return "item", "[%s]" % ("?" if at is None else at), 1
    if issubclass(kind, (set, frozenset)):
        return "member", "member", 1
    if issubclass(kind, (types.MethodType, types.BuiltinMethodType)):
        return "attribute", "__self__" if parent.__self__ is child else "__func__", 1
    return "reference", kind.__name__, 1


_JOIN = {
    "attribute": ".%s",
    "class attribute": ".%s",
    "item": "%s",
    "closure cell": " closure cell %s",
    "default argument": " default argument %s",
    "lru_cache": " %s",
    "member": " (set member)",
    "key": " (dict key)",
    "reference": " → %s",
}


def describe(root, nodes):
    """The path as hops (kind, name) and as one line: `__main__.service._history`, `__main__.remember default
    argument seen`, `thread "logger": logger() local EVENTS`."""
    kind, name = root
    hops = [{"kind": kind, "name": name}]
    text = name
    i = 0
    while i < len(nodes) - 1:
        hop_kind, hop_name, took = _hop(nodes, i)
        hops.append({"kind": hop_kind, "name": hop_name})
        text += _JOIN[hop_kind] % hop_name
        i += took
    return text, hops


def _root_of(obj, modules, running=None):
    """(kind, name) when obj is a root: a module's globals, the globals of running code no module holds (named by their
    __name__, with their __file__), or a class (named by its module and qualified name)."""
    at = modules.get(id(obj))
    if at is not None and type(obj) is dict:
        return "module", at
    at = running.get(id(obj)) if running else None
    if at is not None and type(obj) is dict:
        return "globals", at
    if issubclass(type(obj), type):
        return "class", "%s.%s" % (getattr(obj, "__module__", "?"), getattr(obj, "__qualname__", obj.__name__))
    return None


def find(target, skip_ident=None, main_ident=None):
    """The shortest chain of references from a root to `target`. Returns a dict: found, path, root (the root's
    kind), hops, and what the search cost (levels, calls, objects, ms, longestMs: the longest the GIL was held).
    `main_ident`: the program's main thread, named where threading is not loaded (_thread_names)."""
    started = time.monotonic()
    cost = {"levels": 0, "calls": 0, "objects": 0, "longestMs": 0.0}
    modules = _module_dicts()
    skip = skip_ident if skip_ident is not None else _thread.get_ident()
    frame_locals = _frame_locals(skip, main_ident)
    running = _running_globals(skip, modules)
    # Climbed objects: id → object, and id → the id of the object one step closer to the target. Kept in two dicts of
    # ours (skipped as referrers), never in tuples, which would be referrers of their own.
    held = {id(target): target}
    toward = {id(target): None}
    frontier = [target]
    found = None
    own = {id(held), id(toward), id(frontier), id(modules), id(frame_locals), id(running)}
    try:
        while frontier and found is None and cost["levels"] < MAX_LEVELS:
            cost["levels"] += 1
            following = []
            own.add(id(following))
            of_type = {}  # type → how many of it are carried; ours, so never a referrer on the path
            own.add(id(of_type))
            for start in range(0, len(frontier), PER_CALL):
                if cost["calls"] >= MAX_CALLS or time.monotonic() - started > MAX_SECONDS:
                    break
                chunk = tuple(frontier[start : start + PER_CALL])
                own.add(id(chunk))
                asked = {id(o) for o in chunk}
                t0 = time.perf_counter()
                referrers = gc.get_referrers(*chunk)
                for r in referrers:
                    rid = id(r)
                    if rid in own or rid in held or type(r) is types.FrameType:  # noqa: E721 (an identity test, not ==)
                        continue
                    child = next((k for k in gc.get_referents(r) if id(k) in asked), None)
                    if child is None:
                        continue
                    held[rid] = r
                    toward[rid] = id(child)
                    cost["objects"] += 1
                    root = _root_of(r, modules, running)
                    if root is not None:
                        found = (root, rid)
                        break
                    seen_of_type = of_type.get(type(r), 0)
                    if len(following) < MAX_FRONTIER and seen_of_type < MAX_FRONTIER_OF_A_TYPE:
                        of_type[type(r)] = seen_of_type + 1
                        following.append(r)
                referrers = r = child = None
                cost["longestMs"] = max(cost["longestMs"], (time.perf_counter() - t0) * 1000)
                cost["calls"] += 1
                own.discard(id(chunk))
                chunk = None
                if found is not None:
                    break
                time.sleep(PAUSE)
            if found is None:
                # A running frame's local, the one root get_referrers cannot see (3.11+), at the same distance as the
                # roots this pass met: those win (a module global says more than a loop's bound method of it).
                for obj in frontier:
                    where = frame_locals.get(id(obj))
                    if where is not None:
                        found = (("thread frame", 'thread "%s": %s() local %s' % where), id(obj))
                        break
            frontier = following
            following = None
        result = {"found": found is not None}
        if found is not None:
            result.update(_path(found, held, toward))
        else:
            result["why"] = _why_not(cost, started, frontier)
    finally:
        held.clear()
        toward.clear()
        frontier = found = None
    cost["ms"] = round((time.monotonic() - started) * 1000, 1)
    cost["longestMs"] = round(cost["longestMs"], 2)
    result.update(cost)
    return result


def _why_not(cost, started, frontier):
    if not frontier:
        return "nothing refers to it from a module, a class or a running frame"
    if cost["calls"] >= MAX_CALLS:
        return "no root within %d passes over the heap" % MAX_CALLS
    if time.monotonic() - started > MAX_SECONDS:
        return "no root within %.0f s" % MAX_SECONDS
    return "no root within %d references" % MAX_LEVELS


def _path(found, held, toward):
    (kind, name), rid = found
    nodes = []
    at = rid
    while at is not None:
        nodes.append(held[at])
        at = toward[at]
    if kind in ("module", "globals"):
        # The module's globals dict, then the global: named together (`app.handlers.EVENTS`).
        key = _find_value(nodes[0], nodes[1]) if len(nodes) > 1 else None
        root = ("module global", "%s.%s" % (name if kind == "module" else name[0], key))
        nodes = nodes[1:]
    elif kind == "class":
        root = ("class", name)
    else:
        root = (kind, name)
    text, hops = describe(root, nodes)
    if kind == "module":
        where = assigned_at(name, key) if key is not None else None
    elif kind == "globals":
        where = assigned_in(name[1], key) if key is not None else None
    elif kind == "class":
        cls = nodes[0]
        attribute = hops[1]["name"] if len(hops) > 1 and hops[1]["kind"] == "class attribute" else None
        where = class_attribute_at(getattr(cls, "__module__", None), getattr(cls, "__qualname__", ""), attribute)
    else:
        where = None
    nodes = None
    out = {"path": text, "root": root[0] if kind != "class" or len(hops) < 2 else "class attribute", "hops": hops}
    if where is not None:
        out["where"] = {"file": where[0], "line": where[1]}
    return out


_MAX_SOURCE = 2_000_000  # characters of a module's source read to find where a name is assigned


def _source_lines(module_name):
    """The module's file and its lines, if it was loaded from a .py file that is still there."""
    module = sys.modules.get(module_name) if isinstance(module_name, str) else None
    return _file_lines(getattr(module, "__file__", None))


def _file_lines(path):
    """A .py file's path and its lines, if it is still there."""
    if not isinstance(path, str) or not path.endswith(".py"):
        return None, None
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return path, f.read(_MAX_SOURCE).split("\n")
    except OSError:
        return None, None


def _assigns(line, name, indented):
    """Whether the line assigns `name` (`NAME = …`, `NAME: T = …`, `NAME += …`, `A = NAME = …`, or binds it with
    `def NAME(` or `class NAME`: a function's closure cell, default argument or lru_cache), at the module's top level
    or, `indented`, in a class body."""
    stripped = line.lstrip()
    if (line != stripped) != indented:
        return False
    for keyword in ("def ", "async def ", "class "):
        if stripped.startswith(keyword + name) and stripped[len(keyword) + len(name) :][:1] in ("(", ":"):
            return True
    after = stripped[len(name) :] if stripped.startswith(name) else None
    if after is not None and not (after[:1].isalnum() or after[:1] == "_"):
        rest = after.lstrip()
        if rest.startswith(":"):  # an annotation, then maybe a value
            rest = rest[1:].partition("=")[1]
        if rest[:1] == "=" and rest[:2] != "==" or rest[:2] in ("+=", "|="):
            return True
    targets = [t.strip() for t in stripped.split("=")[:-1]]  # a chain: `A = NAME = {}` (`==` leaves an empty part)
    return name in targets and all(t.isidentifier() for t in targets)


def assigned_at(module_name, name):
    """(file, line) of the first assignment of `name` at its module's top level, read from the module's source — a
    line scan, not the ast module: nothing new is imported into the program, and no single call holds the GIL over a
    long file. None when the source is not there or no such line is."""
    return _assigned(*_source_lines(module_name), name)


def assigned_in(path, name):
    """As assigned_at, in a file named by its path (the __file__ of globals no module holds)."""
    return _assigned(*_file_lines(path), name)


def _assigned(path, lines, name):
    if lines is None or not name.isidentifier():
        return None
    for number, line in enumerate(lines, 1):
        if _assigns(line, name, False):
            return path, number
    return None


def class_attribute_at(module_name, qualname, attribute):
    """(file, line) of `attribute`'s assignment in the body of the class named by `qualname` (its last part), or of
    the class statement when the attribute is not assigned there (set from outside, or a nested class's)."""
    path, lines = _source_lines(module_name)
    name = qualname.rpartition(".")[2]
    if lines is None or not name.isidentifier():
        return None
    for number, line in enumerate(lines, 1):
        stripped = line.lstrip()
        if not stripped.startswith("class " + name) or not stripped[6 + len(name) :][:1] in ("(", ":", " "):
            continue
        depth = len(line) - len(stripped)
        for offset, body in enumerate(lines[number:], number + 1):
            inner = body.lstrip()
            if inner and not inner.startswith("#") and len(body) - len(inner) <= depth:
                break  # the class body ended
            if attribute and len(body) - len(inner) > depth and _assigns(body, attribute, True):
                return path, offset
        return path, number
    return None
