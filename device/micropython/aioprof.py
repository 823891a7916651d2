# aioprof for MicroPython asyncio: `import aioprof; aioprof.enable()` at the top of an
# application streams the aioprof protocol (docs/protocol.md) from every asyncio task created
# after that call, to USB-CDC / stdout or to a UART. See docs/micropython.md.
#
# Three engines, one wire format; enable() takes the best one available:
#   "firmware": the user C module _aioprof built into the firmware (C wrapper, lowest cost);
#   "native":   the dynamic native module _aioprof_native.mpy: the same C wrapper, through the
#               runtime's table of functions (natmod/aioprof_native.c);
#   "python":   aioprof_fallback.py, aioprof_frames.py, aioprof_wrapper.py (all Python; same bytes).
#
# How it hooks asyncio: every task is born in asyncio.core.create_task (asyncio.create_task is a
# second binding of it). Both are replaced by a function that has the engine wrap the coroutine in
# an object forwarding send/throw/close and recording enter before and exit after (each engine's
# own: C in the firmware and native ones, a generator in the python one), then calls the original.
# Task itself is neither replaced nor subclassed (gather/wait_for rely on isinstance(aw, Task)).
# The Task made for a wrapper is handed to it (bind): at each resume the wrapper reads when the
# Task was due (its ph_key) and records how late the resume is (docs/micropython.md, Lateness).
import sys

try:
    import asyncio
    import asyncio.core as _core
except ImportError:
    # MicroPython before 1.21 (uasyncio) or a firmware without asyncio: enable() says which
    _core = None
    try:
        import uasyncio as asyncio
    except ImportError:
        asyncio = None

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


def coro_name(coro):
    """The coroutine function's name, as repr(coro) shows it: <generator object 'slow' at ...>."""
    r = repr(coro)
    a = r.find("'")
    b = r.find("'", a + 1)
    if a >= 0 and b > a:
        return r[a + 1 : b]
    name = getattr(coro, "__qualname__", None) or getattr(coro, "__name__", None)
    return name if name else r.split(" ")[0].lstrip("<")


def _mem_read():
    # the python engine's memory="walk": the bytes the heap holds (a walk of it per call)
    import gc

    return gc.mem_alloc


def _c_task():
    # asyncio's Task when it is MicroPython's C one (the C engines then read its key in place)
    try:
        import _asyncio

        return _asyncio.Task if _core.Task is _asyncio.Task else None
    except ImportError:
        return None


def _missing(e):
    # the module an ImportError says is missing ("no module named 'x'"), or None (terse errors)
    s = str(e)
    a = s.find("'")
    b = s.find("'", a + 1)
    return s[a + 1 : b] if 0 <= a < b else None


_PYTHON_FILES = ("aioprof_frames", "aioprof_wrapper")  # what aioprof_fallback imports


def _why(kind, e):
    # the missing file named (aioprof_fallback.py may be there and aioprof_frames.py not)
    name = _missing(e)
    if kind == "firmware" and name == "_aioprof":
        return "this firmware has no _aioprof module (built without the user C module)"
    if kind == "native" and name == "_aioprof_native":
        return "_aioprof_native.mpy is missing (copy the one built for this board next to aioprof.py)"
    if name == "aioprof_fallback":
        return "aioprof_fallback.py is missing (copy it, aioprof_frames.py and aioprof_wrapper.py next to aioprof.py)"
    if name in _PYTHON_FILES:
        return "%s.py is missing (aioprof_fallback.py needs it: copy it next to aioprof.py)" % name
    if kind == "python":
        return ("aioprof_fallback.py does not import (%s): copy it, aioprof_frames.py and aioprof_wrapper.py, "
                "of one version, next to aioprof.py" % e)
    return "importing it failed (%s)" % e


def _select(impl):
    # the engines in order of preference; impl names one to insist on
    if impl not in (None, "firmware", "native", "python"):
        raise ValueError("aioprof: impl must be 'firmware', 'native' or 'python'")
    order = ("firmware", "native", "python") if impl is None else (impl,)
    for kind in order:
        try:
            if kind == "firmware":
                import _aioprof as m
            elif kind == "native":
                import _aioprof_native as m
            else:
                import aioprof_fallback as m
            return kind, m
        except ImportError as e:
            why = _why(kind, e)
    if impl is not None:
        raise ImportError("aioprof: no %s engine: %s" % (impl, why))
    # the python engine's reason: the one a stock firmware goes by
    raise ImportError("aioprof: no engine found: " + why)


# What the hook costs per event, measured at enable(): a coroutine that only yields is resumed so
# many times through the engine's wrapper (into an engine of its own, whose bytes go nowhere) and
# so many times bare, the loop as asyncio's (`x.send(None)`); the best of a few rounds each. The
# difference, in microseconds, is the cost of twice as many events in 1/1024 of a microsecond,
# the HELLO's unit: no division.
_COST_RESUMES = 512
_COST_ROUNDS = 3


def _spin():
    while True:
        yield


def _resumes(x, n, ticks, diff):
    t0 = ticks()
    for _ in range(n):
        x.send(None)
    return diff(ticks(), t0)


def _event_cost(make):
    import time

    ticks, diff = time.ticks_us, time.ticks_diff
    scratch = make(lambda data: None)
    wrapped = scratch.wrap(_spin(), "aioprof_cost")
    # with a Task, as asyncio resumes it: each resume reads when the Task was due, here now (the
    # key set as sleep_ms(0) sets it, the Task out of the queue again): the common case, on time or
    # a few milliseconds late
    task = _core.Task(wrapped)
    q = _core.TaskQueue()
    q.push(task)
    q.pop()
    scratch.bind(wrapped, task)
    bare = _spin()
    best_wrapped = best_bare = None
    for _ in range(_COST_ROUNDS):
        b = _resumes(bare, _COST_RESUMES, ticks, diff)
        w = _resumes(wrapped, _COST_RESUMES, ticks, diff)
        best_bare = b if best_bare is None or b < best_bare else best_bare
        best_wrapped = w if best_wrapped is None or w < best_wrapped else best_wrapped
    scratch.stop()
    return max(0, best_wrapped - best_bare)


def enable(uart=None, ring=4096, period_ms=1000, impl=None, drain_task=True, platform=None, write=None,
           event_cost_ns=None, memory=True):
    """Starts profiling every asyncio task created from now on. Output goes to stdout
    (USB-CDC on a board) as raw bytes, or to uart.write, or to write(bytes).
    memory: True, what the engine measures cheaply (the firmware engine: the allocator's blocks;
    the others nothing); False, nothing; "walk", also the python engine, by gc.mem_alloc() at
    every event: a walk of the whole heap each time, costly (docs/micropython.md, "Memory")."""
    global _state
    if _state is not None:
        return _state.kind
    if asyncio is None:
        raise ImportError("aioprof: this firmware has no asyncio: build it with asyncio frozen (the port's "
                          "own manifest has it) or copy MicroPython's extmod/asyncio to the board as /lib/asyncio")
    if _core is None:
        raise ImportError("aioprof needs MicroPython 1.21 or later (the asyncio package; this one has uasyncio)")
    if memory not in (True, False, "walk"):
        raise ValueError("aioprof: memory must be True, False or 'walk'")
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
    s.drainer = None
    s.at_exit = None
    if kind != "firmware" and write is None:
        # the C module writes raw bytes with mp_hal_stdout_tx_strn; the others can not reach it
        write = _stdout_write()

    c_task = _c_task()

    def make(out, ring_bytes=ring):
        if kind == "firmware":
            # memory: the allocator's blocks per slice and the collections it sees (docs/micropython.md)
            return mod.start(out, ring_bytes, period_ms, platform, _core.CancelledError, c_task, bool(memory))
        if kind != "python":
            return mod.start(out, ring_bytes, period_ms, platform, _core.CancelledError, c_task)
        ticks, bits = _ticks_source()
        return mod.Recorder(ticks, out, bits, ring_bytes, platform, period_ms * 1000, cancelled=_core.CancelledError,
                            late_unit=1000, mem_read=_mem_read() if memory == "walk" else None)

    # what an event costs, in the HELLO's unit (1/1024 of a tick, a microsecond), so that the
    # host's overhead is the hook's whole cost; measured before the hook starts, into its own
    # engine, or given (0: not known)
    if event_cost_ns is None:
        cost = _event_cost(lambda out: make(out, 1024))
    else:
        cost = int(event_cost_ns * 1.024 + 0.5)
    s.eng = make(write)
    s.eng.set_event_cost(cost)
    # a C engine built before spans has none: aioprof.span() is then a no-op (spans() says so)
    s.spans = hasattr(s.eng, "span_enter")
    if kind == "python":
        s.wrapped = mod.Wrapped
    # each engine's wrap(coro, name) records the task's creation (its parent: the task running
    # now, none for asyncio.run's main) and returns what asyncio resumes instead of coro
    wrap = s.eng.wrap
    bind = s.eng.bind

    orig = s.orig_create_task

    def create_task(coro, name=None):
        if not hasattr(coro, "send"):
            return orig(coro)  # the original says what is wrong
        w = wrap(coro, coro_name(coro))
        if name is not None:
            label_coro(w, name)
        t = orig(w)
        bind(w, t)  # the Task that resumes w: when each resume was due
        return t

    _state = s
    _set_span_eng(s.eng if s.spans else None)
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
    # the firmware engine parks it while the application is busy (its wrapper drains between
    # slices then, and a task asleep in asyncio's queue costs every switch) and sets wake when the
    # application goes idle (docs/micropython.md, "The drain task")
    park = getattr(s.eng, "park", None)
    wake = asyncio.Event() if park is not None else None
    while True:
        await asyncio.sleep_ms(ms)
        if _state is not s:
            return
        try:
            s.eng.drain()
        except Exception:
            pass
        if park is not None and park(wake, _core._task_queue):
            await wake.wait()
            wake.clear()


def label_coro(w, text):
    s = _state
    if s is None:
        return
    if s.kind != "python":
        s.eng.label(w, text)
    elif isinstance(w, s.wrapped):
        w.recorder.label(w.rec, text)  # its own recorder: after disable() it records nothing


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
    _set_span_eng(None)
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


# ---- spans (docs/usage.md, "Spans") ----
#
# aioprof.span("parse") gives the span of that name: the same object for the same name (interned,
# up to _SPANS_MAX names), so that `with aioprof.span("parse"):` in a loop allocates nothing, and
# its engine handle (the C engines' aioprof_span_t, the python engine's SpanRec) is made once per
# engine: the name goes on the wire once. While aioprof is disabled a span only checks that.

_SPANS_MAX = 256
_spans = {}
_span_eng = None  # while enabled with an engine that records spans: that engine
_shadowed = []  # the Spans that have __enter__ and __exit__ of their own (Span._bind)


def _probe():
    yield


_GENERATOR_FUNCTION = type(_probe)  # what `async def` makes in MicroPython


class Span:
    """A named stretch of code inside the running task: a context manager, and a decorator of
    functions and coroutine functions (a coroutine's span covers it to its end, awaits included)."""

    def __init__(self, name):
        self.name = name
        self.eng = False  # the engine its handle is for (False: none yet; never None)
        self.handle = None
        self.enter = self.exit = None

    def __enter__(self):
        e = _span_eng
        if self.eng is not e:
            if e is None:
                return self  # disabled, or an engine without spans
            self._bind(e)
        self.enter(self.handle)
        return self

    def __exit__(self, exc_type, exc, tb):
        if self.eng is _span_eng:
            self.exit()

    def _bind(self, e):
        # once per engine: its handle, and its bound methods (a lookup less per pair)
        self.handle = e.span(self.name)
        self.enter = e.span_enter
        self.exit = e.span_exit
        self.eng = e
        # the python engine's machine code __enter__ and __exit__ as its own (MicroPython takes
        # them first); disable() takes them away
        get = getattr(e, "span_with", None)
        fast = get(self.handle, self) if get is not None and len(_shadowed) < _SPANS_MAX else None
        if fast is not None:
            self.__enter__, self.__exit__ = fast
            _shadowed.append(self)

    def __call__(self, f):
        sp = self
        if type(f) is _GENERATOR_FUNCTION:

            async def spanned_coro(*args, **kw):
                with sp:
                    return await f(*args, **kw)

            return spanned_coro

        def spanned(*args, **kw):
            with sp:
                return f(*args, **kw)

        return spanned


def _set_span_eng(e):
    global _span_eng
    _span_eng = e
    for sp in _shadowed:
        try:
            del sp.__enter__
            del sp.__exit__
        except (AttributeError, KeyError):
            pass
    _shadowed.clear()


def span(name):
    """with aioprof.span("parse"): ...   or   @aioprof.span("parse") on a function or an async def."""
    sp = _spans.get(name)
    if sp is None:
        sp = Span(name)
        if len(_spans) < _SPANS_MAX:
            _spans[name] = sp
    return sp


zone = span


def spans():
    """Does the engine in use record spans? (False when disabled, or for a C engine built before
    spans: its firmware or .mpy is to be rebuilt.)"""
    return _state is not None and _state.spans
