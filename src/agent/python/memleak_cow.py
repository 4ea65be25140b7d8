"""Which of the parent's objects a forked worker has copied (issue 51, docs/verdicts.md, copy-on-write).

A worker forked from a parent shares the parent's pages until one of them writes to a page; then the writer gets a
private copy. CPython writes to an object whenever it takes a reference to it (the reference count is in the object's
first bytes), and the garbage collector writes to the header of every object it tracks when it collects: so a worker
that merely reads a big list of strings copies every page those strings live on. This module tells, for the large
containers the program's modules hold (and a DataLoader worker's dataset), how much of their memory this process now
holds privately, read from the kernel's own page flags (/proc/self/pagemap: present, exclusively mapped).

It must not cause what it measures. Taking a reference to an item would write to its page, so the items are never
touched as Python objects: their addresses are read out of the container's memory with ctypes (the layouts of
CPython 3.8 to 3.13), their types and sizes out of the type objects (a few, each touched once), and their pages' flags
from pagemap. Only the containers themselves (one page each) are referenced. Big containers are read on a sample of
their items (every k-th), scaled up; objects that several sampled items share (a label, an interned string) are
counted once.

Costs: bounded by _MAX_SAMPLED items per container and _MAX_CONTAINERS containers: tens of milliseconds, run only
when memleak asks (a worker judged to be copying), never on a timer.
"""
import ctypes
import gc
import os
import sys
import time

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_P = ctypes.sizeof(ctypes.c_void_p)
_PRESENT = 1 << 63
_EXCLUSIVE = 1 << 56  # the page is mapped by this process only (Linux 4.2+): copied, or never shared
_HAVE_GC = 1 << 14  # Py_TPFLAGS_HAVE_GC: the collector writes to its header
_GC_HEAD = 2 * _P  # PyGC_Head, before a tracked object's address

# Items (a dict: entries, two objects each) read per container, at most: one budget for all, so that a dict and a list
# of its keys sample the same positions (_stride). 1,000-2,000 read: ~3% sampling error, 10-90 ms a look.
_MAX_SAMPLED = 2000
_MAX_CONTAINERS = 24
_MIN_ITEMS_BYTES = 1 << 20  # containers whose items may hold less are not reported
_MAX_ELEMENTS = 64  # of one tuple, list or dict item (a row, a record), read for the second level
_RUN_GAP = 64  # pages: flags of pages this close are read in one pread

_NESTING = (list, tuple, dict)  # items whose own items are read a level further down

# A bare CPython 3.12 reports 375 frozen objects before any code runs (3.8-3.11 and 3.13: none): the interpreter's own,
# not a program's gc.freeze() of its data, which freezes what it built (a DataLoader's dataset: 97,889 objects).
_INTERPRETER_FROZEN = 1000

_VERSION = sys.version_info[:2]
_SUPPORTED = (3, 8) <= _VERSION <= (3, 13) and _P == 8 and "t" not in getattr(sys, "abiflags", "")  # not free-threaded


_size_t_at = ctypes.c_size_t.from_address
_ssize_t_at = ctypes.c_ssize_t.from_address


def _word(address):
    return _size_t_at(address).value


def _sword(address):
    return _ssize_t_at(address).value


class _Flags:
    """Page flags read from /proc/self/pagemap in runs (one pread per run of nearby pages), cached per walk."""

    def __init__(self):
        self.fd = os.open("/proc/self/pagemap", os.O_RDONLY)
        self.cache = {}

    def close(self):
        os.close(self.fd)

    def load(self, pages):
        wanted = sorted(p for p in pages if p not in self.cache)
        i = 0
        while i < len(wanted):
            j = i
            while j + 1 < len(wanted) and wanted[j + 1] - wanted[j] <= _RUN_GAP:
                j += 1
            first, last = wanted[i], wanted[j]
            data = os.pread(self.fd, (last - first + 1) * 8, first * 8)
            for page in wanted[i : j + 1]:  # only the pages asked for: the run's others would be memory for nothing
                k = (page - first) * 8
                self.cache[page] = int.from_bytes(data[k : k + 8], "little") if k + 8 <= len(data) else 0
            i = j + 1

    def private(self, page):
        f = self.cache.get(page, 0)
        return bool(f & _PRESENT) and bool(f & _EXCLUSIVE)

    def present(self, page):
        return bool(self.cache.get(page, 0) & _PRESENT)

    def range_pages(self, start, length):
        """(resident pages, private pages) of an address range, read in chunks straight from pagemap (a 300 MB array is
        75,000 pages: not kept)."""
        if length <= 0:
            return 0, 0
        first, last = start // _PAGE, (start + length - 1) // _PAGE
        present = private = 0
        for chunk in range(first, last + 1, 4096):
            data = os.pread(self.fd, min(4096, last + 1 - chunk) * 8, chunk * 8)
            for k in range(0, len(data) - 7, 8):
                f = int.from_bytes(data[k : k + 8], "little")
                if f & _PRESENT:
                    present += 1
                    private += bool(f & _EXCLUSIVE)
        return present, private


class _Types:
    """What the walk needs of a type, by the address in an object's ob_type: its Python type (referenced once: types
    are few), whether the collector tracks its instances, and how to size one from its memory."""

    def __init__(self):
        self.known = {}

    def get(self, address):
        t = self.known.get(address)
        if t is None:
            try:
                cls = ctypes.cast(address, ctypes.py_object).value
            except Exception:
                cls = None
            if not isinstance(cls, type):
                cls = None
            t = self.known[address] = cls
        return t


def _str_size(address):
    """sys.getsizeof of a compact str, from its memory: its length, and its kind and ascii bits in `state`."""
    length = _sword(address + 2 * _P)
    state = ctypes.c_uint32.from_address(address + 4 * _P).value
    kind = (state >> 2) & 7 or 1
    ascii_ = (state >> 6) & 1
    head = (40 if ascii_ else 56) if _VERSION >= (3, 12) else (48 if ascii_ else 72)
    return head + (length + 1) * kind


def _size(address, cls):
    """The object's size in bytes from its memory (sys.getsizeof's figure, without a reference to it)."""
    if cls is str:
        return _str_size(address)
    if cls is int:
        if _VERSION >= (3, 12):  # lv_tag: the digits' count above three flag bits; 0 has one digit
            digits = max(1, _word(address + 2 * _P) >> 3)
        else:
            digits = abs(_sword(address + 2 * _P))
            if _VERSION >= (3, 11):  # int.__sizeof__ counts one digit for 0 from 3.11 on
                digits = max(1, digits)
        return cls.__basicsize__ + digits * cls.__itemsize__
    size = cls.__basicsize__
    if cls.__itemsize__:
        size += abs(_sword(address + 2 * _P)) * cls.__itemsize__
    if cls.__flags__ & _HAVE_GC:
        size += _GC_HEAD
    return size


def _block(size):
    """The bytes an object of `size` takes in memory: pymalloc hands out blocks of 16-byte steps up to 512 bytes (a
    52-byte str takes 64). Counted by getsizeof alone, a 3.12 worker's copied dict of short str and tuples read 84% of
    its Private_Dirty growth; by blocks, the pages it copied hold what they hold."""
    return (size + 15) & ~15 if size <= 512 else size


def _list_items(address):
    """(address of its item array, length) of a list."""
    return _word(address + 3 * _P), _sword(address + 2 * _P)


def _tuple_items(address):
    return address + 3 * _P, _sword(address + 2 * _P)


def _dict_entries(address):
    """The key and value addresses of a dict's combined table, read from its keys object (layouts of 3.8–3.10 and
    3.11–3.13), and the table's own address and size; None for a split table (an instance's __dict__)."""
    keys = _word(address + 4 * _P)
    if _word(address + 5 * _P):
        return None
    if _VERSION >= (3, 11):
        log2_index_bytes = ctypes.c_uint8.from_address(keys + 9).value
        kind = ctypes.c_uint8.from_address(keys + 10).value
        if log2_index_bytes > 40 or kind > 2:  # not a keys object as CPython lays one out: read nothing further
            return None
        nentries = _sword(keys + 24)
        entries = keys + 32 + (1 << log2_index_bytes)
        width, key_at = (3 * _P, _P) if kind == 0 else (2 * _P, 0)
    else:
        size = _sword(keys + _P)
        if not 0 < size < (1 << 40) or size & (size - 1):  # a table's size is a power of two
            return None
        nentries = _sword(keys + 4 * _P)
        index_bytes = 1 if size <= 0xFF else 2 if size <= 0xFFFF else 4 if size <= 0xFFFFFFFF else 8
        entries = keys + 5 * _P + size * index_bytes
        width, key_at = 3 * _P, _P
    if not 0 <= nentries < (1 << 40):
        return None
    return entries, nentries, width, key_at, keys, entries + nentries * width - keys


class _Tally:
    """One container's items: their bytes, the part on pages now private to this process, and of that the part the
    collector tracks. Objects several sampled items share are counted once, unscaled; objects another container of the
    look already counted (claimed: `keys = list(TABLE)` holds the dict's own keys) count in its bytes, not its private
    part, and say whose they are."""

    def __init__(self, scale):
        self.scale = scale
        self.seen = {}  # address: (size, tracked)
        self.again = set()  # addresses met more than once: shared, counted once
        self.owners = {}  # the container that claimed them first: how many of this one's objects it counted

    def add(self, address, cls):
        if address in self.seen:
            self.again.add(address)
            return
        # Tracked now, not only of a tracked type: the collector untracks tuples and dicts that hold only atoms.
        tracked = bool(cls.__flags__ & _HAVE_GC) and _word(address - _GC_HEAD) != 0
        self.seen[address] = (_block(_size(address, cls)), tracked)

    def add_buffer(self, address, cls):
        """What an item holds apart from its header: a dict's keys object (its entries), a list's item array. Part of
        sys.getsizeof, allocated on its own: read only, yet on 3.11+ a small record's keys object shares pymalloc's
        pools with the records' str, whose reads copy those pages (20 of 62 MiB copied in a list of 200,000 records),
        and an index's lists' item arrays were 12 of the 85 MiB a user's worker copied."""
        if cls is dict:
            table = _dict_entries(address)
            if table is not None:
                buffer, size = table[4], table[5]
            else:
                return
        elif cls is list:
            buffer, size = _word(address + 3 * _P), _sword(address + 4 * _P) * _P  # ob_item, allocated
        else:
            return
        if buffer and size > 0 and buffer not in self.seen:
            self.seen[buffer] = (_block(size), False)

    def pages(self):
        return {address // _PAGE for address in self.seen}

    def raw_bytes(self):
        return sum(size for size, _ in self.seen.values()) * self.scale

    def totals(self, flags, frozen, earlier):
        """(bytes, private, tracked private), the objects an earlier container's tally holds left to it. Looked up in
        those tallies, not copied into one map of every address: that map doubled the look's own private memory."""
        total = private = tracked = 0.0
        for address, (size, is_tracked) in self.seen.items():
            factor = 1.0 if address in self.again else self.scale
            total += size * factor
            owner = next((n for n, t in earlier if address in t.seen), None)
            if owner is not None:
                self.owners[owner] = self.owners.get(owner, 0) + 1
                continue
            if flags.private(address // _PAGE):
                private += size * factor
                if is_tracked and not frozen:
                    tracked += size * factor
        return total, private, tracked


def _stride(length):
    """Every k-th item is read, k a power of two: two containers of the same objects in the same order (a dict and
    list(d)) then read the same ones, or the one with the larger k a part of the other's, and their shared objects are
    seen shared (_Tally.owners)."""
    k = 1
    while length > k * _MAX_SAMPLED:
        k *= 2
    return k


def _pointers(start, count, stride):
    """Item addresses at start[0], start[stride], … (a C array of object pointers), NULLs left out."""
    if count <= 0:
        return []
    array = (ctypes.c_size_t * count).from_address(start)
    return [p for p in array[::stride] if p]


def _entry_pointers(table, stride, limit=None):
    """Key and value addresses of every stride-th entry (at most `limit` entries), deleted entries left out."""
    entries, nentries, width, key_at, _, _ = table
    out = []
    for i in range(0, nentries if limit is None else min(nentries, limit * stride), stride):
        at = entries + i * width
        value = _word(at + key_at + _P)
        if value:
            out.append(_word(at + key_at))
            out.append(value)
    return out


def _elements(address, cls):
    """A tuple, list or dict item's own items (a dataset's row, a record as json.load makes it: its keys and values),
    read from memory. A record's keys are mostly the same few str, shared by every record: counted once (_Tally)."""
    if cls is tuple:
        start, n = _tuple_items(address)
    elif cls is list:
        start, n = _list_items(address)
    elif cls is dict:
        table = _dict_entries(address)
        if table is None:
            return []
        return _entry_pointers(table, 1, _MAX_ELEMENTS)
    else:
        return []
    return _pointers(start, min(n, _MAX_ELEMENTS), 1) if 0 < n else []


def _container(obj, types, flags, frozen):
    """What one container holds and how much of it is private to this process: None when it is not one we read."""
    cls = type(obj)
    address = id(obj)
    storage = (0, 0)  # (address, bytes) of a buffer that only writes change: a list's item array, an array's data
    more = []  # further such buffers: a DataFrame's blocks after the first
    length = 0
    items = []
    stride = 1
    if cls is list or cls is tuple:
        start, length = _list_items(address) if cls is list else _tuple_items(address)
        if length <= 0:
            return None
        stride = _stride(length)
        items = _pointers(start, length, stride)
        if cls is list:
            storage = (start, length * _P)
    elif cls is dict:
        table = _dict_entries(address)
        if table is None:
            return None
        length = len(obj)
        if length <= 0:
            return None
        stride = _stride(table[1])
        items = _entry_pointers(table, stride)
        storage = (table[4], table[5])
    elif cls in (bytes, bytearray, str):
        length = len(obj)
        if cls is bytes:
            storage = (address + bytes.__basicsize__ - 1, length)
        elif cls is bytearray:
            if length == 0:
                return None
            storage = (ctypes.addressof((ctypes.c_char * length).from_buffer(obj)), length)
        else:
            storage = (address, _str_size(address))
    else:
        name = cls.__module__ + "." + cls.__name__
        if name == "numpy.ndarray":
            data = obj.__array_interface__["data"][0]
            length = obj.size
            if obj.dtype.hasobject and obj.flags["C_CONTIGUOUS"]:
                stride = _stride(length)
                items = _pointers(data, length, stride)
            storage = (data, obj.nbytes)
        elif name == "pandas.core.frame.DataFrame":
            # Its columns live in blocks, one 2-D array per dtype: an object block (str columns) is an array of pointers
            # to the rows' objects, read as an object array's items; a numeric block is a buffer. A user's DataLoader
            # over a DataFrame of str copied ~90 MiB a worker, and the look said it was held "elsewhere".
            length = len(obj)
            arrays = [b.values for b in obj._mgr.blocks]
            arrays = [a for a in arrays if type(a).__module__ == "numpy" and type(a).__name__ == "ndarray"]
            objects = [a for a in arrays if a.dtype.hasobject and (a.flags["C_CONTIGUOUS"] or a.flags["F_CONTIGUOUS"])]
            stride = _stride(sum(a.size for a in objects))
            for a in objects:
                items += _pointers(a.__array_interface__["data"][0], a.size, stride)
            buffers = [(a.__array_interface__["data"][0], a.nbytes) for a in arrays]
            if not buffers:
                return None
            storage, more = buffers[0], buffers[1:]
            arrays = objects = a = None
        elif name == "array.array":
            data, length = obj.buffer_info()
            storage = (data, length * obj.itemsize)
        elif name in ("torch.Tensor", "torch.nn.parameter.Parameter"):
            if obj.device.type != "cpu":
                return None
            length = obj.numel()
            storage = (obj.data_ptr(), length * obj.element_size())
        else:
            return None
    tally = _Tally(float(stride))
    kinds = {}
    described = set(items[1::2]) if cls is dict else None  # a dict is described by its values ("dict of str")
    for p in items:
        t = types.get(_word(p + _P))
        if t is None:
            continue
        if described is None or p in described:
            kinds[t] = kinds.get(t, 0) + 1
        tally.add(p, t)
        tally.add_buffer(p, t)
        # A row's or a record's own items, and, one level further, what a field holds (a record's list of tags, an
        # index's list of ids): a user's records of {"text", "tags": [str, str]} were named at 117 of 165 MiB without
        # the tags' str. Bounded per item: _MAX_ELEMENTS of a tuple's or list's items or of a dict's entries (two
        # objects each) at the first level, _MAX_ELEMENTS objects in all below it.
        deeper = _MAX_ELEMENTS
        for e in _elements(p, t):
            et = types.get(_word(e + _P))
            if et is None:
                continue
            tally.add(e, et)
            if deeper > 0 and et in _NESTING:
                tally.add_buffer(e, et)
                for g in _elements(e, et)[:deeper]:
                    deeper -= 1
                    gt = types.get(_word(g + _P))
                    if gt is not None:
                        tally.add(g, gt)
    flags.load(tally.pages())
    item_name = max(kinds, key=kinds.get).__name__ if kinds else None
    return {
        "what": cls.__name__ + (" of " + item_name if item_name else ""),
        "length": length,
        "tally": tally,
        "storage": [storage] + more,
        "sampled": stride > 1,
    }


def _finish(part, flags, frozen, earlier, name):
    """One container's answer, its items counted but for those an earlier (larger) container claimed; None when it
    holds under _MIN_ITEMS_BYTES."""
    tally = part.pop("tally")
    buffers = part.pop("storage")
    items_bytes, items_private, tracked_private = tally.totals(flags, frozen, earlier)
    earlier.append((name, tally))
    storage_pages = storage_private = 0
    for buffer in buffers:
        pages, private = flags.range_pages(*buffer)
        storage_pages += pages
        storage_private += private
    if items_bytes + sum(size for _, size in buffers) < _MIN_ITEMS_BYTES:
        return None
    part.update(
        name=name[:200],
        bytes=int(items_bytes + storage_pages * _PAGE),
        itemsPrivate=int(items_private),
        trackedPrivate=int(tracked_private),
        storagePrivate=storage_private * _PAGE,
    )
    if tally.owners:
        owner, count = max(tally.owners.items(), key=lambda kv: kv[1])
        if 2 * count >= len(tally.seen):  # most of its items are another's: said, so its small private part reads right
            part["sharedWith"] = owner[:200]
    return part


def _attributes(obj):
    """A program object's own attributes (a Dataset's samples), from its plain __dict__ only."""
    for klass in type(obj).__mro__:
        d = vars(klass).get("__dict__")
        if d is None:
            continue
        if type(d).__name__ != "getset_descriptor":  # a property or a proxy: the program's code, not run here
            return {}
        try:
            attrs = d.__get__(obj)
        except Exception:
            return {}
        return attrs if type(attrs) is dict else {}
    return {}


_READ = (list, tuple, dict, bytes, bytearray, str)
_READ_NAMES = (
    "numpy.ndarray",
    "array.array",
    "torch.Tensor",
    "torch.nn.parameter.Parameter",
    "pandas.core.frame.DataFrame",
)


def _readable(v):
    cls = type(v)
    return cls in _READ or (cls.__module__ + "." + cls.__name__) in _READ_NAMES


def candidates(own_module):
    """(name, container) for the containers the program's own modules hold, one attribute deep into their objects,
    and a DataLoader worker's dataset: each container once, by its first name."""
    out = []
    roots = []
    for name, module in list(sys.modules.items()):
        if module is not None and own_module(module):
            roots.append((name, getattr(module, "__dict__", {})))
    data = sys.modules.get("torch.utils.data")
    info = getattr(data, "get_worker_info", None)
    worker = info() if callable(info) else None
    if worker is not None and worker.dataset is not None:
        ds = worker.dataset
        roots.insert(0, ("the DataLoader's dataset (%s)" % type(ds).__name__, _attributes(ds)))
    seen = set()
    for prefix, namespace in roots:
        for key, value in list(namespace.items()):
            if not isinstance(key, str) or key.startswith("__"):
                continue
            found = [(prefix + "." + key, value)]
            if not _readable(value) and not isinstance(value, type) and type(value).__module__ not in ("builtins",):
                found = [(prefix + "." + key + "." + k, v) for k, v in _attributes(value).items() if isinstance(k, str)]
            for name, v in found:
                if _readable(v) and id(v) not in seen:
                    seen.add(id(v))
                    out.append((name, v))
                    if len(out) >= _MAX_CONTAINERS:
                        return out
    return out


def _private_anon():
    """This process's private anonymous bytes now (smaps_rollup Private_Dirty: anon written by it alone)."""
    try:
        with open("/proc/self/smaps_rollup") as f:
            for line in f:
                if line.startswith("Private_Dirty:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def copied(before, own_module, top=6):
    """The message memleak asked for with its word "cow": the program's containers by the bytes of theirs this process
    holds privately, largest first, with what the walk cost. before: Private_Dirty before the look began (the agent
    reads it before it loads this module, whose loading copies 1.5-2.9 MiB of a torch worker's pages), or None."""
    began = time.monotonic()
    cpu = time.process_time()
    if before is None:
        before = _private_anon()
    result = {"type": "cow", "pid": os.getpid(), "t": time.time(), "objects": []}
    if not _SUPPORTED:
        result["why"] = "this interpreter's object layout is not one memleak reads (CPython 3.8-3.13, 64-bit)"
        return result
    try:
        flags = _Flags()
    except OSError as e:
        result["why"] = "/proc/self/pagemap cannot be read: %s" % e.strerror
        return result
    frozen_count = gc.get_freeze_count() if hasattr(gc, "get_freeze_count") else 0
    if frozen_count < _INTERPRETER_FROZEN:
        frozen_count = 0
    types = _Types()
    found = []
    try:
        try:
            named = candidates(own_module)
        except Exception as e:  # a module or a dataset that fails when read: said, not a silence memleak waits on
            named = []
            result["why"] = "the program's modules could not be read: %s" % type(e).__name__
        parts = []
        for name, obj in named:
            try:
                part = _container(obj, types, flags, frozen_count > 0)
            except Exception:  # a layout we misread, a container changed under us: that one is left out
                continue
            if part is not None:
                parts.append((name, part))
        # The largest first: objects two containers share count with the larger (a dict, not list(d) of its keys).
        parts.sort(key=lambda np: np[1]["tally"].raw_bytes(), reverse=True)
        earlier = []
        for name, part in parts:
            try:
                got = _finish(part, flags, frozen_count > 0, earlier, name)
            except Exception:
                continue
            if got is not None:
                found.append(got)
    finally:
        flags.close()
    found.sort(key=lambda o: o["itemsPrivate"] + o["storagePrivate"], reverse=True)
    result["objects"] = found[:top]
    result["frozen"] = frozen_count
    private = _private_anon()
    if private is not None:
        result["privateDirty"] = private
        if before is not None:
            # What the walk itself made private: its own objects, and the module objects and names it read. Kept
            # apart from the program's copying (the report says both).
            result["walkBytes"] = max(0, private - before)
    result["ms"] = round((time.monotonic() - began) * 1000, 1)
    result["cpuMs"] = round((time.process_time() - cpu) * 1000, 1)
    return result
