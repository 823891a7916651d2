# The wrapper of aioprof's pure-Python engine (aioprof_fallback.py): the object asyncio resumes
# instead of a task's coroutine (Wrapped, made by Recorder.wrap), whose generator resumes the
# coroutine and records each slice around it, reading when the task was due from its asyncio Task
# (Recorder.bind) and writing an event's common case into the recorder's open frame itself, byte
# for byte as the recorder would (tests/micropython/golden_fallback.py checks it against the golden
# vectors). Compiled to machine code at import where the port can.
#
# Runs under MicroPython and CPython (the tests run it under both).


def _ms_clock():
    # the clock asyncio's due times count (ticks_ms), and its difference
    import time

    if hasattr(time, "ticks_ms"):
        return time.ticks_ms, time.ticks_diff
    # CPython, for tests of the logic only
    return (lambda: int(time.monotonic() * 1000)), (lambda a, b: a - b)


class Wrapped:
    """What asyncio gets for a task's coroutine (Recorder.wrap): send and throw are those of a
    generator (_run) that resumes the coroutine and records the slice around it; close and repr
    are the coroutine's own."""

    def __init__(self, rec, coro, t, top, auto):
        g = _run(rec, coro, t, top, auto)
        # to its first yield: a throw before the first send (a task cancelled before it ran)
        # reaches the coroutine as a slice
        g.send(None)
        self.send = g.send
        self.throw = g.throw
        self.coro = coro
        self.rec = t
        self.recorder = rec

    def close(self):
        return self.coro.close()

    def __iter__(self):
        return self

    def __next__(self):
        return self.send(None)

    def __repr__(self):
        return repr(self.coro)


# The generator behind a Wrapped: one loop turn per resume, that is per slice. An event's common
# case (nothing owed before it, on time, its task's name sent less than _ANNOUNCE_EVERY periods
# ago, room in the open frame) is written here, byte for byte as Recorder._enter_at/_exit_at would
# write it; anything else goes to them. On time: the task's asyncio Task (t.atask, from bind) was
# due (its ph_key, a ticks_ms value: its sleep's deadline, or when it was made runnable) no earlier
# than this millisecond; the scheduler leaves the key as it is when it resumes the task. top: the
# task was created outside any task (its end may be the program's); auto: drain between slices and
# stop at top's end (off for the golden vectors, which script both).
#
# Compiled at import as machine code where the port can (@micropython.native): then an exception
# of the task passes through it without a traceback line, and a resume costs a third of the
# bytecode's. Native code has no bare `raise`; bytecode re-raises bare, which adds no line. A
# port without a native emitter (the WebAssembly one) gets the bytecode, and one more line in a
# task's tracebacks.
_RUN_SRC = """
@NATIVE
def _run(R, coro, t, top, auto):
    send = coro.send
    ticks = R.ticks
    mask = R.mask
    half = R.half
    buf = R.buf
    st = R.st  # head, budget, last (aioprof_frames.py)
    ms = R.ms
    ms_diff = R.ms_diff
    lr = R.late_room
    need = 11 + lr  # an ENTER's room: its record, its lateness
    enter_fast = _enter_fast  # locals: a global costs a dictionary lookup per event
    exit_fast = _exit_fast
    walk = R.mem_read is not None  # memory measured: every event takes the general path
    i = t.id  # (an attribute read in machine code is a runtime call: read once)
    a = None  # the task's asyncio Task, once bound
    r = None
    while True:
        try:
            v = yield r
            exc = None
        except GeneratorExit:
            return
        except BaseException as e:
            v = None
            exc = e
        if walk:
            R.take_mem()  # before the ENTER's time: the walk is the scheduler's
        now = ticks()
        late = 0
        if a is None:
            a = t.atask
        if a is not None:
            # what ticks_diff gives, without the call, when it is 0 to 127 ms (else see below)
            late = ms() - a.ph_key
        outer = R.current
        if walk or not enter_fast(R, t, i, buf, st, now, late, mask, need):
            if late < 0 or late >= 0x80:
                # the clock wrapped since the key, or late by 128 ms or more
                late = ms_diff(ms(), a.ph_key)
                if late < 0:
                    late = 0
                elif late > 0xFFFFFFFF:
                    late = 0xFFFFFFFF
            R._enter_at(t, now & mask, late)
        try:
            if exc is None:
                r = send(v)
            else:
                r = coro.throw(exc)
        except StopIteration as e:
            t.outer = outer
            R._ended(t, 1, top, auto)
            return e.value
        except BaseException as e:
            t.outer = outer
            R._ended(t, 3 if isinstance(e, R.cancelled) else 2, top, auto)
            RERAISE
        now = ticks()
        if walk:
            R.take_mem()  # after the EXIT's time: the walk is the scheduler's
        idle = auto and outer is None  # no task runs after this slice: it may drain
        if walk or not exit_fast(R, buf, st, now, mask, half, outer, idle):
            t.outer = outer
            now &= mask
            R._exit_at(t, 0, now)
            if idle and (now - R.last_drain) & mask >= half:
                R._drain_quietly()
"""

# An event's common case, written into the recorder's open frame (called by _run above): viper
# machine code, used only where the port has it (else _RUN_INLINE_SRC below). In the native
# generator every operation on two objects is a call into the runtime (an x86-64 resume spent
# about 2,500 instructions in mp_binary_op alone); in viper the ticks, the ring's offsets and the
# record's bytes are machine words. The values fit one on every port: ticks are below 2^tick_bits
# (at most 32 bits, unsigned), the ring's offsets below 2^16, the lateness written here below 128;
# periods (t.announced, R.gate) are small ints, compared signed. now comes as ticks() gave it.
_FAST_SRC = """
@VIPER
def _enter_fast(R, t, i: uint, buf: ptr8, st: ptr32, now: uint, late: int, mask: uint, need: int) -> int:
    # the ENTER of t (i: its id) when nothing is owed, its name went less than _ANNOUNCE_EVERY
    # periods ago, the open frame has room (need: the record and its lateness) and it is less
    # than 128 ms late (Recorder._enter_at's bytes): 1; else 0, nothing written
    if late < 0 or late >= 0x80:
        return 0
    budget = int(st[1])
    if budget < need or int(t.announced) <= int(R.gate):
        return 0
    now = now & mask
    head = int(st[0])
    start = head
    dt = (now - uint(st[2])) & mask
    tag = 0x80
    if i <= uint(15):
        tag = 0x80 | (i << 3)
    rest = dt >> 2
    if rest == uint(0):
        buf[head] = tag | dt
        head += 1
    else:
        buf[head] = tag | (dt & 3) | 4
        head += 1
        while rest >= uint(0x80):
            buf[head] = (rest & 0x7F) | 0x80
            head += 1
            rest >>= 7
        buf[head] = rest
        head += 1
    if i > uint(15):
        while i >= uint(0x80):
            buf[head] = (i & 0x7F) | 0x80
            head += 1
            i >>= 7
        buf[head] = i
        head += 1
    b = budget - (head - start)
    if need > 11:
        # its lateness, one byte below the open frame's list (FrameWriter._late), which starts 3
        # bytes above head + budget
        buf[head + b + 2] = late
        b -= 1
    st[0] = head
    st[1] = b
    st[2] = now
    R.current = t
    return 1


@VIPER
def _exit_fast(R, buf: ptr8, st: ptr32, now: uint, mask: uint, half: uint, outer, idle: int) -> int:
    # the running task's YIELD when nothing is owed and the open frame has room
    # (Recorder._exit_at's bytes), then outer runs again; when idle (no task runs after this
    # slice) and half a period went by since the last drain, the drain: 1. Else 0, nothing done
    budget = int(st[1])
    if budget < 6:
        return 0
    if not st[3]:  # R.fast
        return 0
    now = now & mask
    head = int(st[0])
    start = head
    dt = (now - uint(st[2])) & mask
    rest = dt >> 5
    if rest == uint(0):
        buf[head] = dt
        head += 1
    else:
        buf[head] = (dt & 31) | 32
        head += 1
        while rest >= uint(0x80):
            buf[head] = (rest & 0x7F) | 0x80
            head += 1
            rest >>= 7
        buf[head] = rest
        head += 1
    st[0] = head
    st[1] = budget - (head - start)
    st[2] = now
    R.current = outer
    if idle and ((now - uint(R.last_drain)) & mask) >= half:
        R._drain_quietly()
    return 1
"""


# Where the port has no viper (nor native code: the WebAssembly port) and in CPython: the
# generator as it was before the viper writers, with the common case written inline (a Python
# call per event costs bytecode more than the operations it saves)
_RUN_INLINE_SRC = """
@NATIVE
def _run(R, coro, t, top, auto):
    send = coro.send
    ticks = R.ticks
    mask = R.mask
    half = R.half
    buf = R.buf
    st = R.st  # head, budget, last (aioprof_frames.py)
    ms = R.ms
    ms_diff = R.ms_diff
    lr = R.late_room
    need = 11 + lr  # an ENTER's room: its record, its lateness
    walk = R.mem_read is not None  # memory measured: every event takes the general path
    if walk:
        need = 0x10000  # more than any frame has
    a = None  # the task's asyncio Task, once bound
    r = None
    while True:
        try:
            v = yield r
            exc = None
        except GeneratorExit:
            return
        except BaseException as e:
            v = None
            exc = e
        if walk:
            R.take_mem()  # before the ENTER's time: the walk is the scheduler's
        now = ticks() & mask
        late = 0
        if a is None:
            a = t.atask
        if a is not None:
            # what ticks_diff gives, without the call, when it is 0 to 127 ms (else see below)
            late = ms() - a.ph_key
        outer = R.current
        budget = st[1]
        if 0 <= late < 0x80 and t.announced > R.gate and budget >= need:
            head = st[0]
            start = head
            dt = (now - st[2]) & mask
            i = t.id
            tag = 0x80 | (i << 3) if i <= 15 else 0x80
            rest = dt >> 2
            if rest == 0:
                buf[head] = tag | dt
                head += 1
            else:
                buf[head] = tag | (dt & 3) | 4
                head += 1
                while rest >= 0x80:
                    buf[head] = (rest & 0x7F) | 0x80
                    head += 1
                    rest >>= 7
                buf[head] = rest
                head += 1
            if i > 15:
                while i >= 0x80:
                    buf[head] = (i & 0x7F) | 0x80
                    head += 1
                    i >>= 7
                buf[head] = i
                head += 1
            b = budget - (head - start)
            if lr:
                # its lateness, one byte below the open frame's list (FrameWriter._late), which
                # starts 3 bytes above head + budget
                buf[head + b + 2] = late
                b -= 1
            st[0] = head
            st[1] = b
            st[2] = now
            R.current = t
        else:
            if late < 0 or late >= 0x80:
                # the clock wrapped since the key, or late by 128 ms or more
                late = ms_diff(ms(), a.ph_key)
                if late < 0:
                    late = 0
                elif late > 0xFFFFFFFF:
                    late = 0xFFFFFFFF
            R._enter_at(t, now, late)
        try:
            if exc is None:
                r = send(v)
            else:
                r = coro.throw(exc)
        except StopIteration as e:
            t.outer = outer
            R._ended(t, 1, top, auto)
            return e.value
        except BaseException as e:
            t.outer = outer
            R._ended(t, 3 if isinstance(e, R.cancelled) else 2, top, auto)
            RERAISE
        now = ticks() & mask
        if walk:
            R.take_mem()  # after the EXIT's time: the walk is the scheduler's
        budget = st[1]
        if not walk and R.fast and budget >= 6:
            head = st[0]
            start = head
            dt = (now - st[2]) & mask
            rest = dt >> 5
            if rest == 0:
                buf[head] = dt
                head += 1
            else:
                buf[head] = (dt & 31) | 32
                head += 1
                while rest >= 0x80:
                    buf[head] = (rest & 0x7F) | 0x80
                    head += 1
                    rest >>= 7
                buf[head] = rest
                head += 1
            st[0] = head
            st[1] = budget - (head - start)
            st[2] = now
            R.current = outer
        else:
            t.outer = outer
            R._exit_at(t, 0, now)
        if auto and outer is None and (now - R.last_drain) & mask >= half:
            R._drain_quietly()
"""

# A span's enter and exit as viper code (the bytes of aioprof_fallback.py's general path): as the
# Recorder's span_enter and span_exit, and as a SpanRec's with_enter and with_exit, which aioprof.py
# makes its Span's own __enter__ and __exit__ (MicroPython looks them up in the object first).
# Bytecode methods this big get their frame from the heap at every call (docs/micropython.md).
_SPAN_ENTER_SRC = """
@micropython.viper
def ENTER:
    st = ptr32(ST)
    mask = uint(st[4])
    now = uint(TK()) & mask
    dt = (now - uint(st[2])) & mask
    i = int(sp.id)
    if 0 < i and i < 0x80 and dt < uint(0x4000) and int(sp.announced) + 0x10000 > int(st[5]):
        budget = int(st[1])
        if budget >= 12:
            buf = ptr8(BUF)
            h = int(st[0])
            buf[h] = 0x75
            if dt < uint(0x80):
                buf[h + 1] = 2
                buf[h + 2] = dt
                buf[h + 3] = i
                n = 4
            else:
                buf[h + 1] = 3
                buf[h + 2] = (dt & 0x7F) | 0x80
                buf[h + 3] = dt >> 7
                buf[h + 4] = i
                n = 5
            st[0] = h + n
            st[1] = budget - n
            return RESULT
    REC._span_at(5, sp, now)
    return RESULT
"""

_SPAN_EXIT_SRC = """
@micropython.viper
def EXIT:
    st = ptr32(ST)
    mask = uint(st[4])
    now = uint(TK()) & mask
    dt = (now - uint(st[2])) & mask
    budget = int(st[1])
    if budget >= 12 and dt < uint(0x4000) and st[3]:
        buf = ptr8(BUF)
        h = int(st[0])
        buf[h] = 0x76
        if dt < uint(0x80):
            buf[h + 1] = 1
            buf[h + 2] = dt
            n = 3
        else:
            buf[h + 1] = 2
            buf[h + 2] = (dt & 0x7F) | 0x80
            buf[h + 3] = dt >> 7
            n = 4
        st[0] = h + n
        st[1] = budget - n
        return None
    REC._span_at(6, None, now)
    return None
"""


def _span_src(src, sig, on, result="None"):
    # on: "R", the recorder, or "sp", the SpanRec, which holds what they read of it (span_with)
    names = {"R": ("R.ticks", "R.st", "R.buf", "R"), "sp": ("sp.tk", "sp.st", "sp.buf", "sp.rec")}[on]
    for k, name in zip(("TK", "ST", "BUF", "REC"), names):
        src = src.replace(k, name)
    return src.replace("ENTER", sig).replace("EXIT", sig).replace("RESULT", result)


def _same(x):
    return x


def span_code():
    """(span_enter, span_exit, with_enter, with_exit, viper) for aioprof_fallback.py's Recorder and
    SpanRec: machine code where the port has viper (viper True), else the same source as Python,
    its casts the identity (CPython, the WebAssembly port)."""
    forms = (
        (_SPAN_ENTER_SRC, "_span_enter(R, sp)", "R", "None"),
        (_SPAN_EXIT_SRC, "_span_exit(R)", "R", "None"),
        # sp.span: the Span whose __enter__ this is (what `with ... as` gives)
        (_SPAN_ENTER_SRC, "_with_enter(sp)", "sp", "sp.span"),
        (_SPAN_EXIT_SRC, "_with_exit(sp, t, v, tb)", "sp", "None"),
    )
    for viper in (True, False):
        g = {} if viper else {"uint": _same, "ptr8": _same, "ptr32": _same}
        try:
            for src, sig, on, result in forms:
                src = _span_src(src, sig, on, result)
                exec(src if viper else src.replace("@micropython.viper\n", ""), g)
        except Exception:
            continue
        return g["_span_enter"], g["_span_exit"], g["_with_enter"], g["_with_exit"], viper


def _exec(src):
    try:
        # named, so that the lines bytecode leaves in tracebacks say where they are from
        src = compile(src, "aioprof_wrapper.py", "exec")
    except NameError:  # a port without compile(): exec takes the text
        pass
    exec(src, globals())


def _compile():
    try:
        _exec(_FAST_SRC.replace("@VIPER", "@micropython.viper"))
        _exec(_RUN_SRC.replace("@NATIVE", "@micropython.native").replace("RERAISE", "raise e"))
        return
    except Exception:
        pass
    try:
        _exec(_RUN_INLINE_SRC.replace("@NATIVE", "@micropython.native").replace("RERAISE", "raise e"))
    except Exception:
        # CPython, no native emitter ("invalid micropython decorator"), or no room for native
        # code: bytecode
        _exec(_RUN_INLINE_SRC.replace("@NATIVE", "").replace("RERAISE", "raise"))


_compile()
