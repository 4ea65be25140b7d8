"""Whether a main thread's stack is a safe place to run the agent's loading code on it: shared by gdb-inject.py and
lldb_inject.py (each runs in its debugger's own Python, and gives this the frames it read).

Safe: the thread sits in one of the blocking system calls CPython's own modules make between Py_BEGIN_ALLOW_THREADS
and Py_END_ALLOW_THREADS (time.sleep, select, an idle asyncio loop in epoll_wait, thread.join...), called from CPython
itself, so it holds no allocator lock and not the GIL. A lock wait is only known to be GIL-free when it is a Python
lock (PyThread_acquire_lock on the stack)."""
import re

# Blocking calls CPython's own modules make between Py_BEGIN_ALLOW_THREADS and Py_END_ALLOW_THREADS, by glibc's
# names for them too (os.read of a pipe stops in __GI___libc_read).
BLOCKING = re.compile(
    r"^_*(GI_+_*)?(libc_)?(clock_nanosleep|nanosleep|select|pselect6?|poll|ppoll|epoll_wait|epoll_pwait2?|accept4?|recv|recvfrom|"
    r"recvmsg|read|wait4|waitpid|waitid|sigtimedwait|sigwaitinfo|futex_abstimed_wait\w*|futex_wait\w*|do_futex_wait\w*|"
    r"lll_lock_wait\w*|sem_clockwait|sem_timedwait|sem_wait\w*|new_sem_wait\w*|pthread_cond_\w*wait\w*)"
)
FUTEX = re.compile(r"futex|lll_|sem_|cond_")
# A frame its debugger could not name: a function local to a library whose symbols are not installed (Debian's libc
# without libc6-dbg: its futex wait is "___lldb_unnamed_symbol3485" to lldb, "??" or None to gdb).
UNNAMED = re.compile(r"^(\?\?|___lldb_unnamed_symbol\d*)$")
# x86-64's `syscall` instruction: a thread stopped right after it is in a system call.
SYSCALL_X86_64 = b"\x0f\x05"
PYTHON_OBJFILE = re.compile(r"libpython3|/lib-dynload/|/python3[.\d]*$")
# How far down the stack CPython's own frame is looked for.
DEPTH = 10


def blocked_safely(frames, in_system_call=False):
    """frames: (function name or None, object file path) from the newest, at least DEPTH of them when there are.
    in_system_call: the thread is stopped right after a system call instruction (in_system_call_at).
    (True, call) when the thread sits in a GIL-released blocking call made by CPython; else (False, why).
    A newest frame with no name, in a system call, is taken as a lock's wait, the strictest case: safe only where a
    Python lock waits below it (a thread's join, a queue's get, an Event's wait: CPython released the GIL first)."""
    first = (frames[0][0] if frames else None) or "??"
    unnamed = bool(in_system_call and UNNAMED.match(first))
    if unnamed:
        first = "a system call of a function without a name (%s)" % first
    elif not BLOCKING.match(first):
        return False, "its main thread is not blocked in a system call (in %s)" % first
    names = []
    in_python = False
    for name, objfile in frames[:DEPTH]:
        names.append(name or "??")
        if PYTHON_OBJFILE.search(objfile or ""):
            in_python = True
            break
    if not in_python:
        return False, "its main thread is blocked in %s outside CPython's own modules" % first
    if (unnamed or FUTEX.search(first)) and not any(n.startswith("PyThread_acquire_lock") for n in names):
        return False, "its main thread waits on a lock (%s) that is not a Python lock" % first
    return True, first


def in_system_call_at(code_before_pc):
    """Whether the two bytes before a thread's program counter are x86-64's `syscall`: where it was stopped in one."""
    return bytes(code_before_pc or b"") == SYSCALL_X86_64
