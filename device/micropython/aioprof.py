# aioprof for MicroPython asyncio: `import aioprof; aioprof.enable()` at the top of an
# application streams the aioprof protocol (docs/protocol.md) from every asyncio task created
# after that call, to USB-CDC / stdout or to a UART. See docs/micropython.md.
#
# Three engines, one wire format; enable() takes the best one available:
#   "firmware": the user C module _aioprof built into the firmware (C wrapper, lowest cost);
#   "native":   the dynamic native module _aioprof_native.mpy (C recorder; the wrapper that
#               calls the coroutine's own send/throw is the Python one below);
#   "python":   aioprof_fallback.py (everything in Python; slower, same bytes).
#
# How it hooks asyncio: every task is born in asyncio.core.create_task (asyncio.create_task is a
# second binding of it). Both are replaced by a function that wraps the coroutine in an object
# forwarding send/throw/close and recording enter before and exit after, then calls the original.
# Task itself is neither replaced nor subclassed (gather/wait_for rely on isinstance(aw, Task)).
import sys

try:
    import asyncio
    import asyncio.core as _core
except ImportError:
    import uasyncio as asyncio  # MicroPython before 1.21 is not supported; this is for a message

    _core = None

YIELD = 0
RETURN = 1
RAISE = 2
CANCEL = 3

_state = None  # while enabled: a _State


class _State:
    pass


def _ticks_source():
    import time

    if hasattr(time, "ticks_us"):
        return time.ticks_us, 30
    # CPython, for tests of the logic only
    return (lambda: time.perf_counter_ns() // 1000), 32


def _stdout_write():
    out = getattr(sys.stdout, "buffer", sys.stdout)
    return out.write


# The wrapper of one task's coroutine for the native and Python engines. asyncio resumes it with
# send(None) or throw(exc); each resume is one slice: enter before, exit after, in every path,
# then a drain between slices when one is due.
#
# Its source is compiled at import, as machine code where the port can (@micropython.native):
# MicroPython adds a line to an exception's traceback for every bytecode function it passes
# through, none for native code, so a task's traceback ("Task exception wasn't retrieved", or one
# that ends the program) shows the user's frames only, as without the hook. Native code has no
# bare `raise`; bytecode re-raises bare, which adds no line either. A port without a native
# emitter (the WebAssembly one) gets the bytecode, and the wrapper's two lines in tracebacks.
_CORO_SRC = """
class _Coro:
    def __init__(self, coro, rec, eng, top):
        self.coro = coro
        self.rec = rec
        self.eng = eng
        self.done = False
        self.top = top  # created outside any task (asyncio.run's main): its end may be the program's

    @NATIVE
    def _resume(self, value, exc):
        eng = self.eng
        rec = self.rec
        if self.done:
            # a detached task that died is thrown into once more: not run time
            return self.coro.throw(exc) if exc is not None else self.coro.send(value)
        eng.enter(rec)
        try:
            r = self.coro.throw(exc) if exc is not None else self.coro.send(value)
        except StopIteration as e:
            self.done = True
            eng.exit(rec, RETURN)
            _ended(self.top)
            RERAISE
        except BaseException as e:
            self.done = True
            eng.exit(rec, CANCEL if isinstance(e, _core.CancelledError) else RAISE)
            _ended(self.top)
            RERAISE
        eng.exit(rec, YIELD)
        _after()
        return r

    @NATIVE
    def send(self, value):
        return self._resume(value, None)

    @NATIVE
    def throw(self, exc, *rest):
        return self._resume(None, exc)

    def close(self):
        return self.coro.close()

    def __iter__(self):
        return self

    @NATIVE
    def __next__(self):
        return self._resume(None, None)

    def __repr__(self):
        return repr(self.coro)
"""


def _define_coro(native, reraise):
    src = _CORO_SRC.replace("@NATIVE", native).replace("RERAISE", reraise)
    try:
        # named, so that the lines bytecode leaves in tracebacks say where they are from
        src = compile(src, "aioprof.py", "exec")
    except NameError:  # a port without compile(): exec takes the text
        pass
    exec(src, globals())


def _compile_coro():
    try:
        _define_coro("@micropython.native", "raise e")
    except Exception:
        # no native emitter ("invalid micropython decorator"), or no room for native code:
        # bytecode
        _define_coro("", "raise")


_compile_coro()


def _after():
    # between slices: drain in bulk when enough is waiting or half a period has passed
    s = _state
    if s is None:
        return
    s.exits += 1
    if s.exits >= s.every:
        s.exits = 0
        try:
            s.eng.drain()
        except Exception:
            pass  # the hook never raises into the application: a failed write is dropped


def _ended(top):
    # A task's last slice. When it was created outside any task (asyncio.run's main), the program
    # may end now, and on a board nothing runs at its end (sys.atexit is the unix port's only):
    # the hook stops, its last HELLO says so, and everything recorded goes out. If the program goes
    # on, the next event reopens it (close(True)).
    if top:
        _close_all()
    else:
        _after()


def _close_all():
    s = _state
    if s is None:
        return
    try:
        s.eng.close(True)
        s.eng.drain()
    except Exception:
        pass


def coro_name(coro):
    """The coroutine function's name, as repr(coro) shows it: <generator object 'slow' at ...>."""
    r = repr(coro)
    a = r.find("'")
    b = r.find("'", a + 1)
    if a >= 0 and b > a:
        return r[a + 1 : b]
    name = getattr(coro, "__qualname__", None) or getattr(coro, "__name__", None)
    return name if name else r.split(" ")[0].lstrip("<")


def _select(impl):
    # the engines in order of preference; impl names one to insist on
    order = ("firmware", "native", "python") if impl is None else (impl,)
    for kind in order:
        try:
            if kind == "firmware":
                import _aioprof as m
            elif kind == "native":
                import _aioprof_native as m
            elif kind == "python":
                import aioprof_fallback as m
            else:
                raise ValueError("aioprof: impl must be 'firmware', 'native' or 'python'")
            return kind, m
        except ImportError:
            if impl is not None:
                raise
    raise ImportError("aioprof: no engine found (copy aioprof_fallback.py next to aioprof.py)")


def enable(uart=None, ring=4096, period_ms=1000, impl=None, drain_task=True, platform=None, write=None):
    """Starts profiling every asyncio task created from now on. Output goes to stdout
    (USB-CDC on a board) as raw bytes, or to uart.write, or to write(bytes)."""
    global _state
    if _state is not None:
        return _state.kind
    if _core is None:
        raise ImportError("aioprof needs MicroPython 1.21 or later (the asyncio package)")
    kind, mod = _select(impl)
    if uart is not None:
        write = uart.write
    if platform is None:
        impl_name = sys.implementation.name
        v = sys.implementation.version
        platform = "%s %s %d.%d.%d" % (sys.platform, impl_name, v[0], v[1], v[2])
    s = _State()
    s.kind = kind
    s.orig_create_task = _core.create_task
    s.orig_asyncio_create_task = asyncio.create_task
    s.exits = 0
    # drain every so many exits: a drain sends only closed frames (a frame closes when its body
    # is full or its period ended), so most drains find nothing to write
    s.every = 16
    s.drainer = None
    s.at_exit = None
    if kind == "firmware":
        # write=None: the C module writes raw bytes with mp_hal_stdout_tx_strn
        s.eng = mod.start(write, ring, period_ms, platform, _core.CancelledError)
        wrap = s.eng.wrap
    else:
        if write is None:
            write = _stdout_write()
        if kind == "native":
            mod.start(write, ring, period_ms, platform)
            eng = mod
        else:
            ticks, bits = _ticks_source()
            eng = mod.Recorder(ticks, write, bits, ring, platform, period_ms * 1000)
        s.eng = eng

        # outside any task asyncio's cur_task is None, or in the WebAssembly port its top-level task
        top_level = getattr(_core, "_top_level_task", None)

        def wrap(coro, name):
            cur = _core.cur_task
            return _Coro(coro, eng.task(name), eng, cur is None or cur is top_level)

    orig = s.orig_create_task

    def create_task(coro, name=None):
        if not hasattr(coro, "send"):
            return orig(coro)  # the original says what is wrong
        w = wrap(coro, coro_name(coro))
        if name is not None:
            label_coro(w, name)
        return orig(w)

    _state = s
    _core.create_task = create_task
    asyncio.create_task = create_task
    if drain_task:
        # not wrapped: the drain task does not profile itself
        s.drainer = orig(_drainer(s, max(10, period_ms // 2)))
    if hasattr(sys, "atexit"):
        # a program that ends without disable() still sends its tail (the unix port)
        s.at_exit = _exit_hook(s)
        s.prev_at_exit = sys.atexit(s.at_exit)
    return kind


def _exit_hook(s):
    # sys.atexit keeps one function: ours calls the one it replaced
    def at_exit():
        if _state is s:
            disable()
        if s.prev_at_exit is not None:
            s.prev_at_exit()

    return at_exit


async def _drainer(s, ms):
    while True:
        await asyncio.sleep_ms(ms)
        if _state is not s:
            return
        try:
            s.eng.drain()
        except Exception:
            pass


def label_coro(w, text):
    s = _state
    if s is None:
        return
    if s.kind == "firmware":
        s.eng.label(w, text)
    elif isinstance(w, _Coro):
        w.eng.label(w.rec, text)


def label(task, text):
    """Names one task instance, e.g. label(t, "sensor 3"): sent with its function's name.
    A task aioprof does not profile (created before enable(), or after disable()) is left
    alone, in every engine."""
    label_coro(getattr(task, "coro", task), text)


def flush():
    """Closes the open frame and sends what is waiting (e.g. before the program ends)."""
    s = _state
    if s is None:
        return
    s.eng.flush()
    s.eng.drain()


def disable():
    """Restores asyncio exactly, sends what is left and stops recording."""
    global _state
    s = _state
    if s is None:
        return
    _state = None
    _core.create_task = s.orig_create_task
    asyncio.create_task = s.orig_asyncio_create_task
    if s.drainer is not None:
        try:
            s.drainer.cancel()
        except Exception:
            pass
    if s.at_exit is not None:
        ours = s.at_exit
        s.at_exit = None
        later = sys.atexit(s.prev_at_exit)
        if later is not ours:
            sys.atexit(later)  # registered after ours: it stays (ours, if it calls it, only chains)
    s.eng.stop()


def engine():
    """The engine in use ("firmware", "native", "python"), or None when disabled."""
    return _state.kind if _state else None
