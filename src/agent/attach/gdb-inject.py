"""gdb's Python script for `memleak watch`: runs memleak's attach code inside a CPython process at a safe point.

gdb stops every thread wherever it happens to be — possibly inside malloc, holding an arena lock — so nothing here
allocates in the target or runs Python on a thread that might hold such a lock:
  1. mmap() one page (a plain system call; gdb's own string literals would be malloc'd in the target),
  2. write the code into it with ptrace (write_memory),
  3. then, by MEMLEAK_INJECT_MODE:
     pending  Py_AddPendingCall(PyRun_SimpleString, page), documented as callable from any thread without the GIL.
              The main thread runs the code at its next check between bytecodes, holding the GIL.
     blocked  for a main thread that does not get to that check (time.sleep, an idle asyncio loop in epoll_wait,
              thread.join): only if it is blocked in one of the system calls CPython makes with the GIL released,
              called from CPython itself (checked on the stack), take the GIL there (PyGILState_Ensure), run the
              code, release it. A thread blocked in the kernel holds no allocator lock; other threads keep running
              meanwhile (scheduler-locking off), so whoever holds the GIL lets go of it.
Then it detaches. The code unmaps its page first thing (it has been compiled by then). Settings come from gdb's own
environment (MEMLEAK_INJECT_CODE, MEMLEAK_INJECT_MODE).

Prints one `MEMLEAK-OK` or `MEMLEAK-ERROR <stage>: <message>` line for memleak to read."""
import os
import sys

import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blocked_stack import DEPTH, blocked_safely, in_system_call_at  # noqa: E402  (beside this script)


def run(command):
    gdb.execute(command, to_string=True)


def call(expr):
    return gdb.parse_and_eval(expr)


def fail(stage, message):
    print("MEMLEAK-ERROR %s: %s" % (stage, message))


def write_code():
    page = int(call("(unsigned long)((void*(*)(void*,unsigned long,int,int,int,long))mmap)(0, 4096, 3, 0x22, -1, 0)"))
    if page == 0 or page >= 2**63:
        raise gdb.error("mmap failed")
    code = os.environ["MEMLEAK_INJECT_CODE"].replace("@PAGE@", str(page)).encode() + b"\0"
    if len(code) > 4096:
        call("((int(*)(void*,unsigned long))munmap)((void*)%d, 4096)" % page)
        raise gdb.error("code too long")
    gdb.selected_inferior().write_memory(page, code)
    return page


def schedule_pending():
    page = write_code()
    rc = int(call("((int(*)(void*,void*))Py_AddPendingCall)((void*)PyRun_SimpleString, (void*)%d)" % page))
    if rc != 0:  # the queue of pending calls is full: nothing will run the code, so give the page back now
        call("((int(*)(void*,unsigned long))munmap)((void*)%d, 4096)" % page)
        fail("schedule", "the interpreter's queue of pending calls is full")
        return
    print("MEMLEAK-OK")


def main_thread():
    pid = gdb.selected_inferior().pid
    for thread in gdb.selected_inferior().threads():
        if thread.ptid[1] == pid:
            return thread
    return None


def main_thread_frames():
    """(function name, object file) of the selected thread's newest DEPTH frames."""
    frames = []
    f = gdb.newest_frame()
    while f is not None and len(frames) < DEPTH:
        frames.append((f.name(), gdb.solib_name(f.pc()) or gdb.current_progspace().filename or ""))
        f = f.older()
    return frames


def in_system_call():
    """Whether the selected thread was stopped right after a system call instruction (its newest frame may have no
    name)."""
    pc = gdb.newest_frame().pc()
    try:
        code = gdb.selected_inferior().read_memory(pc - 2, 2).tobytes() if pc >= 2 else None
    except gdb.MemoryError:
        return False
    return in_system_call_at(code)


def run_blocked():
    thread = main_thread()
    if thread is None:
        fail("thread", "no main thread")
        return
    thread.switch()
    safe, what = blocked_safely(main_thread_frames(), in_system_call())
    if not safe:
        fail("unsafe", what)
        return
    page = write_code()
    state = int(call("((int(*)(void))PyGILState_Ensure)()"))
    try:
        call("((int(*)(void*))PyRun_SimpleString)((void*)%d)" % page)
    finally:
        call("((void(*)(int))PyGILState_Release)(%d)" % state)
    print("MEMLEAK-OK")


def main():
    for setting in (
        "set pagination off",
        "set confirm off",
        "set unwindonsignal on",
        "set print thread-events off",
        "set scheduler-locking off",
    ):
        run(setting)
    # Only the symbols needed: loading every library's (libtorch's are huge) would keep the target stopped for seconds.
    for lib in ("libc", "musl", "libpython"):
        try:
            run("sharedlibrary " + lib)
        except gdb.error:
            pass
    try:
        for symbol in ("Py_AddPendingCall", "PyRun_SimpleString", "PyGILState_Ensure"):
            call("(void*)" + symbol)
    except gdb.error as e:
        fail("symbols", e)
        return
    try:
        if os.environ.get("MEMLEAK_INJECT_MODE") == "blocked":
            run_blocked()
        else:
            schedule_pending()
    except gdb.error as e:
        fail("call", e)


try:
    main()
finally:
    try:
        gdb.execute("detach", to_string=True)
    except gdb.error:
        pass
