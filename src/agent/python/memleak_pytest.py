"""memleak's pytest plugin: which test grows the memory, by how much per call, and whether it is real.

Loaded by `memleak pytest -- <pytest args>` (which runs `python -m pytest -p memleak_pytest …` under the same
machinery as `memleak run`, with memleak's agent already connected by sitecustomize). Around every call of a test
function it reads malloc's in-use bytes (mallinfo2), Python's allocated blocks (sys.getallocatedblocks, after a
collection of the young generations; a full one where it decides, see _Reader.read) and the process's anonymous RSS
(RssAnon). With repeats (MEMLEAK_PYTEST_REPEAT after
MEMLEAK_PYTEST_WARMUP_CALLS warm-up calls, as CPython's `-R` refleak hunt does) a test that grows on every call
after the warm-up is told from one that fills a cache once. Growth that malloc_trim(0) gives back is the
allocator's retention (fragmentation), not a leak. Each test's start and end, and its result, go to memleak over
the agent's socket; memleak puts them in the verdict document, the recording and the reports.

A test over its limit (@pytest.mark.memleak(max_growth="10MiB", max_leak_per_call="100KiB"), or the defaults
memleak passes in MEMLEAK_PYTEST_MAX_GROWTH / MEMLEAK_PYTEST_MAX_LEAK_PER_CALL, in bytes) fails in its call phase,
so pytest reports it as that test's failure.

Not standalone: without memleak there is no one to tell, so the plugin refuses to run and says how to run it.
Fixtures are set up once per test: the repeats call the test function again, not its fixtures.
"""
import array
import ctypes
import gc
import os
import re
import sys
import time

import pytest

# The marker's arguments; anything else is a typo that would silently measure nothing.
_MARKER_ARGS = ("max_growth", "max_leak_per_call")
_MAX_NODEID = (
    500  # memleak drops longer ids (counted in UTF-16 units, as JavaScript does); a parametrized id can be long
)


def _short_nodeid(nodeid):
    """The id cut to what memleak takes: _MAX_NODEID UTF-16 units, so a character outside the BMP (two units in
    JavaScript, one in Python) cannot push a cut id over memleak's limit and lose the test's marks."""
    cut = nodeid[:_MAX_NODEID]
    while len(cut.encode("utf-16-le")) // 2 > _MAX_NODEID:
        cut = cut[:-1]
    return cut


# Units as memleak reads them (src/base/units.ts): decimal kB/MB/GB, binary KiB/MiB/GiB, and K/M/G alone read as binary.
_SIZE_UNITS = {
    "b": 1,
    "k": 1024,
    "kb": 1000,
    "kib": 1024,
    "ki": 1024,
    "m": 1024**2,
    "mb": 1000**2,
    "mib": 1024**2,
    "mi": 1024**2,
    "g": 1024**3,
    "gb": 1000**3,
    "gib": 1024**3,
    "gi": 1024**3,
    "t": 1024**4,
    "tb": 1000**4,
    "tib": 1024**4,
    "ti": 1024**4,
}

# What counts as growth. Blocks: CPython's refleak rule (every delta ≥ 1 after warm-up is a leak; a full collection
# runs before each reading). Bytes: malloc's counters move by a few hundred bytes between identical calls, RSS by
# pages; a test "grew" once its growth passes the floors below.
_LEAK_MALLOC_PER_CALL = 1024
_LEAK_ANON_PER_CALL = 4096
_GREW_BYTES = 64 * 1024
_GREW_BLOCKS = 1000
# Repeats given to a test whose marker sets max_leak_per_call when the run does not repeat: a leak per call cannot
# be judged from one call.
_MIN_REPEAT_FOR_LEAK_LIMIT = 3
_MIN_WARMUP_FOR_LEAK_LIMIT = 1


class SizeError(ValueError):
    pass


def _bare_size(n):
    return '"%s" has no unit: did you mean %sMiB? (%sB for bytes)' % (n, n, n)


def parse_size(value):
    """10MiB, 1.5GB, 4096B → bytes; None is no limit (a marker lifting the run's default). A number without a unit
    (4096 or "4096") is refused, 0 aside, as memleak refuses it (src/base/units.ts): 50 meant 50 MiB far more often
    than 50 bytes. Percentages mean nothing for one test."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise SizeError("%r is not a size" % (value,))
    if isinstance(value, int):
        if value < 0:
            raise SizeError("%r is not a size: it is negative" % (value,))
        if value != 0:
            raise SizeError(_bare_size(str(value)))
        return value
    m = re.match(r"^(\d+(?:\.\d+)?)\s*([a-zA-Z]*)$", str(value).strip())
    if m and not m.group(2) and float(m.group(1)) != 0:
        raise SizeError(_bare_size(m.group(1)))
    unit = _SIZE_UNITS.get(m.group(2).lower() or "b") if m else None
    if unit is None:
        raise SizeError('"%s" is not a size: use a number with B, KiB, MiB, GiB (or kB, MB, GB)' % (value,))
    return int(round(float(m.group(1)) * unit))


def _env_int(name, default):
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


# ------------------------------------------------------------------------------------------------------ readings


class _Reader:
    """The three numbers, read the same way every time so that the reading's own allocations cancel out."""

    def __init__(self):
        self.mallinfo2 = None
        self.trim = None
        try:
            libc = ctypes.CDLL(None)
            import memleak_agent

            if hasattr(libc, "mallinfo2") and (memleak_agent.readings._glibc_version() or (0, 0)) >= (2, 33):
                fn = libc.mallinfo2
                fn.restype = memleak_agent.readings._Mallinfo2
                self.mallinfo2 = fn
            if hasattr(libc, "malloc_trim") and memleak_agent.readings._allocator() == "glibc":
                self.trim = libc.malloc_trim
        except Exception:
            pass

    def read(self, into, slot, full):
        """Fills into[3*slot : 3*slot+3] with blocks, malloc in-use, anon: an array of C longs, so storing a
        reading creates no Python object that would itself count as a block.

        A collection first, so that garbage cycles are not counted as growth: of the young generations (cheap: what
        a test made since the last reading is young), or a full one (full=True), which walks every object the
        collector tracks — ~3 ms for pytest's ~30,000 at start, 10 ms and more once a suite's modules are imported.
        CPython's -R takes a full one at every reading; the plugin takes one where it decides something: at the
        end of the warm-up, and after the last call when the cheap readings saw growth (judge's `final`). A full
        collection only frees, so a test the young readings call stable is stable."""
        gc.collect() if full else gc.collect(1)
        into[3 * slot] = sys.getallocatedblocks()
        if self.mallinfo2 is not None:
            mi = self.mallinfo2()
            into[3 * slot + 1] = mi.uordblks + mi.hblkhd
        into[3 * slot + 2] = _anon()

    def malloc_trim(self):
        if self.trim is None:
            return False
        self.trim(0)
        return True


def _anon():
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"RssAnon:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return -1


# ------------------------------------------------------------------------------------------------------ judgement


def judge(readings, calls, warmup, has_malloc, trim=None, final=None):
    """What the readings say: growth over all calls, mean growth per call after the warm-up, and the kind —
    leak (grew on every call after the warm-up), one-off (grew, but not on every call: a cache filled once),
    fragmentation (only RSS grew, and malloc_trim(0) gave it back), stable, or insufficient-data (grew during a
    single call: nothing to compare it with). `trim()` is called only when the kind hinges on RSS alone; it
    returns RssAnon after malloc_trim(0), or None.

    `final`: a reading after the last call taken after a full collection, when the per-call readings were taken
    after young ones (the plugin's cheap readings). The per-call readings then may count a call's garbage cycles
    that had reached the oldest generation as growth; `final` frees them, so the totals come from it, and a leak
    must also show over the measured calls as a whole (from the reading that ended the warm-up, itself full)."""
    deltas = [[readings[3 * (i + 1) + k] - readings[3 * i + k] for k in range(3)] for i in range(calls)]
    end = final if final is not None else readings[3 * calls : 3 * calls + 3]
    total = [end[k] - readings[k] for k in range(3)]
    measured = deltas[warmup:] if calls > warmup else []
    n = len(measured)
    span = [end[k] - readings[3 * warmup + k] for k in range(3)] if n else [0, 0, 0]
    per_call = [span[k] / n if n else 0 for k in range(3)]
    blocks_leak = n >= 2 and all(d[0] >= 1 for d in measured) and span[0] >= n
    malloc_leak = (
        has_malloc
        and n >= 2
        and all(d[1] >= _LEAK_MALLOC_PER_CALL for d in measured)
        and span[1] >= n * _LEAK_MALLOC_PER_CALL
    )
    anon_leak = n >= 2 and all(d[2] >= _LEAK_ANON_PER_CALL for d in measured) and span[2] >= n * _LEAK_ANON_PER_CALL
    live_grew = total[0] >= _GREW_BLOCKS or (has_malloc and total[1] >= _GREW_BYTES)
    anon_grew = total[2] >= _GREW_BYTES
    out = {"deltas": deltas, "total": total, "perCall": per_call}
    if blocks_leak or malloc_leak:
        out["kind"] = "leak"
    elif anon_leak or anon_grew:
        anon_after = trim() if trim is not None and not live_grew else None
        if anon_after is not None:
            out["anonAfterTrim"] = anon_after - readings[2]
        if anon_after is not None and anon_after - readings[2] < _GREW_BYTES:
            out["kind"] = "fragmentation"
        elif anon_leak:
            out["kind"] = "leak"
        else:
            out["kind"] = "one-off" if calls > 1 else "insufficient-data"
    elif live_grew:
        out["kind"] = "one-off" if calls > 1 else "insufficient-data"
    else:
        out["kind"] = "stable"
    return out


# ------------------------------------------------------------------------------------------------------ the plugin


class _Limits:
    def __init__(self, max_growth, max_leak_per_call):
        self.max_growth = max_growth
        self.max_leak_per_call = max_leak_per_call

    def as_json(self):
        out = {}
        if self.max_growth is not None:
            out["maxGrowth"] = self.max_growth
        if self.max_leak_per_call is not None:
            out["maxLeakPerCall"] = self.max_leak_per_call
        return out


def _marker_limits(item, defaults):
    """The test's limits: its memleak markers' (closest first), else the run's defaults. Bad arguments are usage
    errors: a typo must not quietly turn a limit off."""
    growth, per_call = defaults.max_growth, defaults.max_leak_per_call
    for mark in reversed(list(item.iter_markers(name="memleak"))):  # farthest first, so the closest wins
        if mark.args:
            raise pytest.UsageError(
                "memleak: %s: @pytest.mark.memleak takes keyword arguments only (%s)"
                % (item.nodeid, ", ".join(_MARKER_ARGS))
            )
        for key, value in mark.kwargs.items():
            if key not in _MARKER_ARGS:
                raise pytest.UsageError(
                    "memleak: %s: @pytest.mark.memleak has no argument %r (it takes %s)"
                    % (item.nodeid, key, ", ".join(_MARKER_ARGS))
                )
            try:
                size = parse_size(value)
            except SizeError as e:
                raise pytest.UsageError("memleak: %s: @pytest.mark.memleak(%s=…): %s" % (item.nodeid, key, e))
            if key == "max_growth":
                growth = size
            else:
                per_call = size
    return _Limits(growth, per_call)


def _xdist_refusal(config):
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return "this is a pytest-xdist worker"
    for name in ("numprocesses", "dist"):
        try:
            value = config.getoption(name)
        except (ValueError, AttributeError):
            continue
        if value not in (None, "no", 0):
            return "pytest-xdist would run the tests in worker processes (-n/--dist)"
    return None


class MemleakPlugin:
    def __init__(self, agent):
        self.agent = agent
        self.reader = _Reader()
        self.repeat = max(1, _env_int("MEMLEAK_PYTEST_REPEAT", 1))
        self.warmup = max(0, _env_int("MEMLEAK_PYTEST_WARMUP_CALLS", 0))
        growth = os.environ.get("MEMLEAK_PYTEST_MAX_GROWTH")
        per_call = os.environ.get("MEMLEAK_PYTEST_MAX_LEAK_PER_CALL")
        self.defaults = _Limits(int(growth) if growth else None, int(per_call) if per_call else None)
        self.limits = {}
        self.calling = False

    def send(self, message):
        message["pid"] = os.getpid()
        message["t"] = time.time()
        self.agent.send(message)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items):
        # Checked before any test runs: a bad marker stops the session at once, with its test named.
        for item in items:
            self.limits[item.nodeid] = _marker_limits(item, self.defaults)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item):
        # Marked around the whole protocol (setup, calls, teardown): the boundaries memleak draws on the timeline,
        # and the test memleak names if the interpreter dies meanwhile.
        self.send({"type": "test-start", "nodeid": _short_nodeid(item.nodeid)})
        item._memleak_result = None
        yield
        message = {"type": "test-end", "nodeid": _short_nodeid(item.nodeid)}
        result = getattr(item, "_memleak_result", None)
        if result is not None:
            message.update(result)
        self.send(message)

    @pytest.hookimpl(tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem):
        """Calls the test function warm-up + repeat times through the hook itself (so the plugins that run it —
        async ones — still do), reading memory before the first call and after each."""
        if self.calling:
            return None  # the inner call: let the next implementation run the function
        item = pyfuncitem
        limits = self.limits.get(item.nodeid) or _Limits(None, None)
        repeat, warmup = self.repeat, self.warmup
        if limits.max_leak_per_call is not None and repeat < 2:
            repeat, warmup = _MIN_REPEAT_FOR_LEAK_LIMIT, max(warmup, _MIN_WARMUP_FOR_LEAK_LIMIT)
        calls = warmup + repeat
        readings = array.array("q", [0] * (3 * (calls + 1)))
        # The reading that starts the measured calls is a full one when there are repeats to compare: a leak must
        # show from it to the (full) final reading, so no garbage of the warm-up may be counted in it.
        full_at = warmup if repeat >= 2 else -1
        self.calling = True
        done = 0
        # With repeats, the containers' lengths are taken before the first reading (so that no reading counts them,
        # and every one includes them): a test judged a leak then names the container that gained most over its calls,
        # warm-up included, and what holds it. One walk over the tracked objects per test with repeats.
        lengths = self._lengths() if repeat >= 2 else None
        # No census walk between this test's readings: what a walk leaves in the agent's state is not the test's.
        self.agent.census_paused(True)
        try:
            with self.agent.measure_lock:
                self.reader.read(readings, 0, full=full_at == 0)
            for i in range(calls):
                item.ihook.pytest_pyfunc_call(pyfuncitem=item)
                with self.agent.measure_lock:
                    self.reader.read(readings, i + 1, full=full_at == i + 1)
                done = i + 1
        finally:
            self.calling = False
            self.agent.census_paused(False)
            if done < calls:  # the test failed, or skipped itself: say how far it got, judge nothing
                skipped = isinstance(sys.exc_info()[1], pytest.skip.Exception)
                item._memleak_result = {
                    "calls": done,
                    "warmupCalls": warmup,
                    "result": "unmeasured" if skipped else "error",
                    "kind": "insufficient-data",
                }
        self._conclude(item, readings, calls, warmup, limits, lengths)
        return True

    def _lengths(self):
        try:
            with self.agent.measure_lock:
                return self.agent.container_lengths()
        except Exception:
            return None

    def _holder(self, lengths):
        try:
            with self.agent.measure_lock:
                return self.agent.grown_holder(lengths)
        except Exception:
            return None

    def _trim(self):
        with self.agent.measure_lock:
            if not self.reader.malloc_trim():
                return None
            return _anon()

    def _conclude(self, item, readings, calls, warmup, limits, lengths=None):
        has_malloc = self.reader.mallinfo2 is not None
        j = judge(readings, calls, warmup, has_malloc)
        if j["kind"] != "stable":
            # The cheap readings saw growth: read again after a full collection, and judge by that.
            final = array.array("q", [0, 0, 0])
            with self.agent.measure_lock:
                self.reader.read(final, 0, full=True)
            j = judge(readings, calls, warmup, has_malloc, self._trim, final)
        total, per_call = j["total"], j["perCall"]
        growth_bytes = max(total[1] if has_malloc else 0, j.get("anonAfterTrim", total[2]))
        per_call_bytes = max(per_call[1] if has_malloc else 0, per_call[2])
        failures = []
        if limits.max_growth is not None and growth_bytes > limits.max_growth:
            failures.append("grew %s, over its max_growth of %s" % (_fmt(growth_bytes), _fmt(limits.max_growth)))
        if limits.max_leak_per_call is not None and j["kind"] == "leak" and per_call_bytes > limits.max_leak_per_call:
            failures.append(
                "leaks %s per call, over its max_leak_per_call of %s"
                % (_fmt(per_call_bytes), _fmt(limits.max_leak_per_call))
            )
        result = {
            "calls": calls,
            "warmupCalls": warmup,
            "growth": _metrics(total, has_malloc),
            "perCall": _metrics([round(v) for v in per_call], has_malloc),
            "growthBytes": int(growth_bytes),
            "perCallBytes": int(round(per_call_bytes)),
            "kind": j["kind"],
            "result": "fail" if failures else "pass",
        }
        if "anonAfterTrim" in j:
            result["anonAfterTrim"] = int(j["anonAfterTrim"])
        if j["kind"] == "leak" and lengths is not None:
            holder = self._holder(lengths)
            if holder is not None:
                result["holder"] = holder
        if limits.max_growth is not None or limits.max_leak_per_call is not None:
            result["limit"] = limits.as_json()
        if failures:
            result["message"] = "; ".join(failures)
        item._memleak_result = result
        if failures:
            detail = "blocks %+d, malloc %s, RSS anon %s over %d call%s" % (
                total[0],
                _fmt(total[1]) if has_malloc else "–",
                _fmt(total[2]),
                calls,
                "" if calls == 1 else "s",
            )
            pytest.fail("memleak: %s (%s; %s)" % ("; ".join(failures), j["kind"], detail), pytrace=False)


def _metrics(values, has_malloc):
    out = {"allocatedBlocks": int(values[0]), "rssAnon": int(values[2])}
    if has_malloc:
        out["mallocInUse"] = int(values[1])
    return out


def _fmt(n):
    """Bytes as memleak prints them (src/base/units.ts formatBytes): binary units, 3 significant digits."""
    sign = "-" if n < 0 else "+" if n > 0 else ""
    v = abs(float(n))
    units = ["B", "KiB", "MiB", "GiB", "TiB"]
    i = 0
    while v >= 1024 and i < len(units) - 1:
        v /= 1024
        i += 1
    digits = 0 if i == 0 or v >= 100 else 1 if v >= 10 else 2
    return "%s%.*f %s" % (sign, digits, v, units[i])


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "memleak(max_growth=None, max_leak_per_call=None): memleak's memory limits for this test (sizes: 10MiB, 100KiB)",
    )
    refusal = _xdist_refusal(config)
    if refusal:
        raise pytest.UsageError(
            "memleak: %s; memleak measures each test in the process that runs it, one at a time: run without -n/--dist"
            % refusal
        )
    agent = sys.modules.get("memleak_agent")
    if agent is None or not agent.connected():
        raise pytest.UsageError(
            "memleak: the memleak_pytest plugin reports to memleak, which is not running here: run `memleak pytest -- <your pytest arguments>`"
        )
    config.pluginmanager.register(MemleakPlugin(agent), "memleak-measure")
