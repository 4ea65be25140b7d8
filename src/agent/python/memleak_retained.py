"""What each new item of a growing container keeps alive: its retained size, estimated by a bounded walk.

The census (memleak_census.py) ranks containers by the bytes they gained. An item's own size (sys.getsizeof) is what
the container holds directly, and it is usually the least of it: a finished asyncio Task is a ~100-byte object that
keeps its 64 KiB result; a kept loss tensor is 4 bytes of storage that keeps its autograd graph; an instance keeps its
attributes. So a few of the newest items are walked through their referents, counting what only that item holds:

  - an object referred to from anywhere else (its reference count says more owners than the item's own objects the
    walk met pointing at it) is shared — the event loop, a module, an interned string — and neither counted nor
    walked into; one whose every owner is the item's (a kept exception's traceback, which the exception and the
    tuple of sys.exc_info() both point at, and the frames it keeps with their locals) is the item's;
  - modules, classes, functions and code are never counted: they are the program, not its data;
  - an object whose type sizes itself deeply (bytearray, numpy's arrays, pandas' frames: its own __sizeof__) is
    counted by that size and not walked into, so its buffers are not counted twice;
  - a tensor is its storage's bytes (each storage once per look: views of one tensor share it) and, when it keeps an
    autograd graph, GRAPH_NODE_BYTES for each node of the graph only it reaches. A tensor on a GPU counts only its
    graph: its bytes are on the device, not in malloc or RSS. They are counted apart, per device (on_device), for the
    holder of a GPU leak (device_bytes_per_item).

Bounded: SAMPLED items, at most MAX_OBJECTS objects each. Pure of side effects on the program: it keeps no reference
once it returns. Standard library only.
"""
import gc
import sys

SAMPLED = 8
MAX_OBJECTS = 64
# Graph nodes followed from one tensor's grad_fn: a loss's graph is a handful (5 for a two-layer MLP's
# CrossEntropyLoss); a chain built by `total = total + loss` is thousands, and its length is not this item's alone.
MAX_GRAPH_NODES = 64
# Measured: a kept loss of a two-layer MLP (5 nodes besides the leaves' AccumulateGrad) grew malloc's in-use bytes by
# 6.0 KB after backward() had freed its saved tensors (PyTorch 1.13, 2,000 losses): ~1.2 KB a node, the node with its
# edges, its SavedVariables' metadata and the tensor's own impl.
GRAPH_NODE_BYTES = 1200
# An object seen through gc.get_referents(obj) is referred to by its owner, the referents list, the loop's variable
# and getrefcount's own argument: 4 when obj is its only owner.
_OWNED_REFS = 4
# Objects a look keeps while it waits to see whether their other owners are the item's too: past this many, the rest
# met with other owners are taken as shared (a dict of a thousand interned keys would otherwise keep them all).
MAX_PENDING = 256

_ModuleType = type(sys)
_PROGRAM_TYPES = (type, _ModuleType, type(len), type(lambda: 0), type(_ModuleType.__repr__), type((lambda: 0).__code__))


def _walked_sizeofs():
    """The __sizeof__ of the types walked into: plain containers and objects that size only themselves — a frame too,
    whose own size is its slots for locals, not what they hold (a kept traceback keeps the failed call's locals)."""
    types = [object, list, dict, set, frozenset, tuple, type(sys._getframe())]
    collections = sys.modules.get("collections")
    if collections is not None:
        types += [collections.deque, collections.OrderedDict, collections.defaultdict]
    return {t.__sizeof__ for t in types}


def newest(container, k=SAMPLED):
    """Up to k of the items added last: the end of a list or deque, the last inserted values of a dict; a set has no
    order, so any k. The leak's items are the new ones; the first ones may be a warm-up's. Taken in one C call, which
    no other thread can interleave, tried again when the program added an item between the iterator's making and its
    reading (as memleak_census._sampled_items: a Python loop let it end the look at any GIL switch). Raises when the
    container kept changing size."""
    from itertools import islice  # built in: no file read

    for attempt in range(3):
        if isinstance(container, dict):
            values = reversed(container.values())
        elif isinstance(container, (set, frozenset)):
            values = iter(container)
        else:
            values = reversed(container)
        try:
            return list(islice(values, k))
        except RuntimeError:
            if attempt == 2:
                raise


def _graph_nodes(fn, seen):
    """Nodes of an autograd graph reached from fn that no earlier item of this look reached; the leaves'
    AccumulateGrad nodes (shared with the parameters) are not counted."""
    count = 0
    stack = [fn]
    while stack and count < MAX_GRAPH_NODES:
        node = stack.pop()
        if node is None:
            continue
        # The Python objects wrapping nodes are made on access: kept in `seen` so that an id is not reused meanwhile.
        key = id(node)
        if key in seen:
            continue
        seen[key] = node
        if type(node).__name__ != "AccumulateGrad":
            count += 1
        try:
            stack.extend(next_fn for next_fn, _ in node.next_functions)
        except Exception:
            pass
    return count


class _Look:
    """One look at a container's newest items: what is shared between them is counted once."""

    def __init__(self, tensor_type):
        self.tensor_type = tensor_type
        self.storages = set()
        self.nodes = {}
        self.walked = _walked_sizeofs()
        self.on_device = {}  # "cuda:0" → bytes of the storages of the tensors met there

    def own_bytes(self, obj):
        """obj's own bytes, and whether to walk into it."""
        kind = type(obj)
        if self.tensor_type is not None and issubclass(kind, self.tensor_type):
            return self.tensor_bytes(obj), False
        size = sys.getsizeof(obj, 0)
        return size, getattr(kind, "__sizeof__", None) in self.walked

    def tensor_bytes(self, t):
        size = sys.getsizeof(t, 0)
        try:
            st = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
            # Keyed by device too: two devices may number their memory alike.
            key = (str(t.device), st.data_ptr())
            if key not in self.storages:
                self.storages.add(key)
                if t.device.type == "cpu":
                    size += st.nbytes()
                else:  # a CUDA tensor's bytes are not in malloc or RSS
                    self.on_device[key[0]] = self.on_device.get(key[0], 0) + st.nbytes()
            if t.grad_fn is not None:
                size += GRAPH_NODE_BYTES * _graph_nodes(t.grad_fn, self.nodes)
        except Exception:  # sparse, meta or otherwise storage-less tensors
            pass
        return size

    def retained(self, item):
        """Bytes item holds alone, by a walk of at most MAX_OBJECTS objects. An object with owners besides the one that
        led the walk to it waits: it is the item's once as many of the item's objects have been met pointing at it as
        it has owners (a worker loop keeping each failure's sys.exc_info(): the traceback is owned by the tuple and by
        the exception, and through it the failed call's frame keeps its 200 KB buffer; taken as shared at the
        tuple, the item was ~250 bytes and the list of failures was never named)."""
        total, walk = self.own_bytes(item)
        if not walk or isinstance(item, _PROGRAM_TYPES):
            return total
        seen = {id(item)}
        # id → (object, the item's objects met pointing at it): the entry holds it, one reference more.
        waiting = {}
        stack = [item]
        visited = 1
        getrefcount = sys.getrefcount
        while stack and visited < MAX_OBJECTS:
            for ref in gc.get_referents(stack.pop()):
                key = id(ref)
                if key in seen or isinstance(ref, _PROGRAM_TYPES):
                    continue
                entry = waiting.pop(key, None)
                inside = entry[1] + 1 if entry is not None else 1
                owners = getrefcount(ref) - (_OWNED_REFS - 1) - (1 if entry is not None else 0)
                entry = None
                if owners > inside:
                    if len(waiting) < MAX_PENDING:
                        waiting[key] = (ref, inside)
                    continue
                seen.add(key)
                visited += 1
                size, walk = self.own_bytes(ref)
                total += size
                if walk:
                    stack.append(ref)
                if visited >= MAX_OBJECTS:
                    break
        return total


def _look_at_newest(container, tensor_type):
    """The newest items' retained sizes, and the look that walked them (what it met off the host: look.on_device);
    (None, []) when the container has no items or changed size while we looked (another thread). The walk runs the
    program's __sizeof__, which may raise: such an item is left out."""
    try:
        items = newest(container)
    except Exception:
        return None, []
    look = _Look(tensor_type)
    sizes = []
    for item in items:
        try:
            sizes.append(look.retained(item))
        except Exception:
            pass
    return look, sizes


def device_bytes_per_item(container, tensor_type):
    """Where the newest items' tensors that are not on the host are, and the mean bytes each item keeps there:
    ("cuda:0", bytes) for the device holding most, or None when they hold nothing off the host (or a look failed).
    The same walk as retained_per_item's: a list of logits, a dict of embeddings, tuples of (input, output)."""
    if tensor_type is None:
        return None
    look, sizes = _look_at_newest(container, tensor_type)
    if not sizes or not look.on_device:
        return None
    where = max(look.on_device, key=look.on_device.get)
    return where, look.on_device[where] // len(sizes)


def retained_per_item(container, tensor_type=None):
    """Mean bytes each of the container's newest items keeps alive alone; None when it has none or a look failed."""
    sizes = _look_at_newest(container, tensor_type)[1]
    return sum(sizes) // len(sizes) if sizes else None
