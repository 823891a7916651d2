# aioprof's pure-Python engine, for firmware where neither the C module nor the native .mpy can be
# loaded: the device library (device/aioprof.c) rewritten in Python, over the frame writer of
# aioprof_frames.py (proto/aioprof_frame_writer.c), and the wrapper asyncio resumes instead of a
# task's coroutine (Recorder.wrap). It follows the C code step by step, ring included, so that the
# same events on the same clock give the same bytes: the golden vectors of tests/golden/ check that
# (tests/micropython/golden_fallback.py), through the recorder's enter()/exit() and through the
# wrapper, which writes an event's common case itself.
#
# Runs under MicroPython and CPython (the tests run it under both). aioprof.py hooks asyncio.

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


from aioprof_frames import FrameWriter, _varint

# docs/protocol.md, proto/aioprof_wire.h
_VERSION = const(1)
_OP_HELLO = const(0)
_OP_TASK_NEW = const(1)
_OP_TASK_INFO = const(2)
_OP_DROPPED = const(3)
_NAME_MAX = const(48)
_PLATFORM_MAX = const(32)

# device/aioprof.c: the largest record each path writes
_ENTER_MAX = const(11)
_EXIT_MAX = const(6)
_TASK_ROOM = const(65)  # control head (2) + task body (3 varints + name and label)
_HELLO_ROOM = const(82)  # control head (2) + HELLO body (9 varints, 3 bytes, the platform)
_DROPPED_ROOM = const(7)
_HELLO_EVERY = const(8)
_ANNOUNCE_EVERY = const(16)  # periods: a running task's name goes again after this many
_FLAG_STOPPED = const(2)

YIELD = const(0)
RETURN = const(1)
RAISE = const(2)
CANCEL = const(3)


def _cut(b, n):
    # b cut to at most n bytes at the start of a UTF-8 character (device/aioprof.c, prof_cut)
    k = min(len(b), n)
    while k < len(b) and k > 0 and n - k < 3 and b[k] & 0xC0 == 0x80:
        k -= 1
    return b[:k]


class _Never(BaseException):
    # the default for what ends a slice as "cancelled": nothing raises it
    pass


class TaskRec:
    # What device/aioprof.h calls aioprof_task_t: one per task instance.
    def __init__(self):
        self.outer = None
        self.name = b""
        self.label = b""
        self.id = 0
        self.parent = 0
        self.announced = 0
        self.atask = None  # the asyncio Task that resumes its wrapper (Recorder.bind), if any


class Recorder(FrameWriter):
    """The hook: ticks() gives the tick counter, write(memoryview) sends bytes and returns
    how many it took (None counts as all)."""

    def __init__(self, ticks, write, tick_bits=30, ring=4096, platform="MicroPython", period_ticks=0, tick_hz=1000000,
                 cancelled=None, late_unit=0):
        if ring < 128 or ring > 65535 or tick_bits < 8 or tick_bits > 32:
            raise ValueError("aioprof: ring must be 128..65535 bytes, tick_bits 8..32")
        self.ticks = ticks
        self.write = write
        self.tick_hz = tick_hz
        self.bits = tick_bits
        self.mask = (1 << tick_bits) - 1
        self.platform = platform.encode()[:_PLATFORM_MAX] if isinstance(platform, str) else platform[:_PLATFORM_MAX]
        self.period_ticks = period_ticks or tick_hz
        self._fw_init(ring)
        # lateness (aioprof_port_t.late_unit): the unit of enter_late's `late`, in ticks (1000
        # with microsecond ticks: asyncio's due times, Task.ph_key, are milliseconds); 0: not
        # reported. Given here, as in C before aioprof_init: every ENTER then carries its lateness
        self.late_unit = late_unit
        self.late_room = 5 if late_unit else 0
        # the profiler
        self.current = None
        self.next_id = 0
        self.dropped = 0
        self.drop_due = False  # a DROPPED must go before any event (its count may be 0)
        self.dropped_total = 0
        self.drain_ticks = 0
        # periods so far, and in each task the period its name last went in: both count on here
        # where C wraps them at 2^16, and are compared modulo 2^16 as C does
        self.period = 0
        self.seq = 0
        self.format = (_VERSION << 5) | (tick_bits - 1)
        self.sent = False
        now = ticks() & self.mask
        self.boot_ticks = self.last = now
        # the period ends at this tick (at most half the wrap ahead, as in C)
        self.period_len = min(self.period_ticks, self.mask // 2)
        self.deadline = (now + self.period_len) & self.mask
        self.hello_due = 2  # 1 + the boot flag
        # what an event costs the device, in 1/1024 of a tick (the port's event_cost: set it
        # before the first HELLO goes, aioprof.py does after timing the wrapper)
        self.event_cost = 0
        self.on = True  # False after stop(): records nothing, sends nothing
        self.stopped = False  # close() was called: record nothing, send the rest; reopen() goes on
        self.until_next = False  # close(until_next=True): the next event reopens
        # for the wrapper (wrap()): what ends a slice as "cancelled"; drains between slices
        self.cancelled = cancelled or _Never
        self.half = self.period_len >> 1
        self.last_drain = now
        self.due = False
        # and how late a resume is: the clock asyncio's keys count (ticks_ms) and its difference
        self.ms, self.ms_diff = _ms_clock()
        self._refresh()

    def _refresh(self):
        # fast: nothing must go before the next event (C: pending == 0), so the wrapper may write
        # an event itself when the open frame has room; every path that changes what this reads
        # calls it before it returns
        self.fast = self.on and not (self.hello_due or self.drop_due or self.stopped)
        # and the period an enter's task must have been announced after to take that way (its
        # name went less than _ANNOUNCE_EVERY periods ago; never, when not fast: no task's name
        # went after this period). One comparison, exact while a task's last announcement is
        # less than 2^16 periods old; an older one takes the general path, which compares as C.
        self.gate = self.period - _ANNOUNCE_EVERY if self.fast else self.period

    # ---- the profiler (device/aioprof.c) ----

    def _frame_close(self):
        # a drop count still owed goes in first when it fits (the frame holds at most a HELLO)
        if self.drop_due and self.budget >= _DROPPED_ROOM:
            self._write_dropped()
        self._fw_close()
        self.sent = True

    def _frame_room(self, now, n):
        if self.open and self.budget >= n:
            return True
        if self.open:
            self._frame_close()
        if not self._fits_new(n):
            return False
        self._frame_open(now, n)
        return True

    def _frame_open(self, now, n):
        self.last = now
        self._fw_open(n, self.current.id if self.current else 0)
        self.seq = (self.seq + 1) & 0xFF

    def _write_task(self, op, t):
        head = bytearray()
        _varint(head, t.id)
        _varint(head, t.parent)
        head.append(len(t.name))
        self._control_head(op, len(head) + len(t.name) + len(t.label))
        self._put(head)
        self._put(t.name)
        self._put(t.label)

    def _write_hello(self, flags):
        body = bytearray()
        _varint(body, _VERSION)
        _varint(body, self.tick_hz)
        body.append(self.bits)
        _varint(body, self.size)
        body.append(flags)
        _varint(body, self.boot_ticks)
        _varint(body, self.drain_ticks)
        _varint(body, self.dropped_total)
        body.append(len(self.platform))
        body.extend(self.platform)
        _varint(body, self.period_len)
        _varint(body, self.event_cost)
        _varint(body, self.late_unit)
        self._control(_OP_HELLO, body)

    def _write_dropped(self):
        body = bytearray()
        _varint(body, self.dropped)
        self._control(_OP_DROPPED, body)
        self.dropped = 0
        self.drop_due = False

    def _write_pending(self, now):
        # HELLO and DROPPED go before any event; while one waits, events are dropped too. After
        # close() the drop count goes first and at once, and the HELLO, last, says "stopped"
        if self.stopped and self.drop_due:
            if not self._frame_room(now, _DROPPED_ROOM):
                return False
            self._write_dropped()
        if self.hello_due:
            if not self._frame_room(now, _HELLO_ROOM):
                return False
            self._write_hello((self.hello_due - 1) | (_FLAG_STOPPED if self.stopped else 0))
            self.hello_due = 0
        if self.drop_due:
            # once dropping, wait for a quarter of the ring (as the C library does)
            if self._room() < self.size // 4 or not self._frame_room(now, _DROPPED_ROOM):
                return False
            self._write_dropped()
        return True

    def _write_final(self, now):
        # after close(): what is owed, as soon as it fits (an empty ring starts again at its
        # beginning), in a frame closed at once
        if not self.open and self.tail == self.head:
            self.head = self.tail = self.commit = 0
        self._write_pending(now)
        if self.open:
            self._frame_close()

    def _drop(self):
        self.dropped += 1
        self.drop_due = True
        self.dropped_total = (self.dropped_total + 1) & 0xFFFFFFFF

    def task(self, name, label=None):
        """A task was created by the task running now: returns its record."""
        t = TaskRec()
        if self.stopped and not self._reopened():
            return t
        now = self.ticks() & self.mask
        self.next_id = (self.next_id + 1) & 0xFFFFFFFF or 1
        t.id = self.next_id
        t.parent = self.current.id if self.current else 0
        t.name = _cut(name.encode() if isinstance(name, str) else bytes(name), _NAME_MAX)
        t.announced = self.period
        if self._write_pending(now) and self._frame_room(now, _TASK_ROOM):
            self._write_task(_OP_TASK_NEW, t)
        else:
            self._drop()
            t.announced = self.period - _ANNOUNCE_EVERY
        if label:
            self.label(t, label)
        self._refresh()
        return t

    def label(self, t, label):
        label = label.encode() if isinstance(label, str) else bytes(label)
        t.label = _cut(label, _NAME_MAX - len(t.name))
        if self.stopped and not self._reopened():
            return
        # sent now (a task may never run again after it was labelled), else at its next enter
        now = self.ticks() & self.mask
        t.announced = self.period - _ANNOUNCE_EVERY
        if self._write_pending(now) and self._frame_room(now, _TASK_ROOM):
            self._write_task(_OP_TASK_INFO, t)
            t.announced = self.period
        self._refresh()

    def set_event_cost(self, cost):
        """What an event costs, in 1/1024 tick (the port's event_cost), sent in the HELLOs from
        now on."""
        self.event_cost = cost

    def enter(self, t):
        self._enter_at(t, self.ticks() & self.mask)

    def enter_late(self, t, late):
        """t resumes `late` units of late_unit after it was due (aioprof_enter_late); 0: on
        time. enter(t) is enter_late(t, 0)."""
        self._enter_at(t, self.ticks() & self.mask, late)

    def exit(self, t, kind):
        self._exit_at(t, kind, self.ticks() & self.mask)

    # The general paths of an event at tick now. The wrapper (_run) writes the common case itself
    # (fast, the name sent less than _ANNOUNCE_EVERY periods ago, room in the open frame) exactly
    # as these would.

    def _enter_at(self, t, now, late=0):
        if self.stopped and not self._reopened():
            return
        n = _ENTER_MAX + self.late_room
        announce = ((self.period - t.announced) & 0xFFFF) >= _ANNOUNCE_EVERY
        if announce:
            n += _TASK_ROOM
        if (self.hello_due or self.drop_due) and not self._write_pending(now) or not self._frame_room(now, n):
            self._drop()
        else:
            if announce:
                self._write_task(_OP_TASK_INFO, t)
                t.announced = self.period
            dt = (now - self.last) & self.mask
            i = t.id
            if i <= 15:
                self._event(0x80 | (i << 3), 2, dt)
            else:
                self._event(0x80, 2, dt)
                self._put_varint(i)
            if self.late_room:
                self._late(late & 0xFFFFFFFF)
            self.last = now
        t.outer = self.current
        self.current = t
        self._refresh()

    def _exit_at(self, t, kind, now):
        if self.stopped and not self._reopened():
            return
        if (self.hello_due or self.drop_due) and not self._write_pending(now) or not self._frame_room(now, _EXIT_MAX):
            self._drop()
        else:
            dt = (now - self.last) & self.mask
            if kind == YIELD:
                self._event(0x00, 5, dt)
            else:
                self._event(0x40 + ((kind - 1) << 4), 3, dt)
            self.last = now
        self.current = t.outer
        t.outer = None
        self._refresh()

    def flush(self):
        if self.open:
            self._frame_close()
        self._refresh()

    def close(self, until_next=False):
        """The hook stops (aioprof_close): the drop count owed and a last HELLO with the flag
        "stopped" go into the ring and the frame is closed; from here on nothing is recorded and
        no period ends. drain() sends what is left. until_next: the next event reopens it (what
        the C bindings do with aioprof_reopen where a program may have ended)."""
        if not self.on or self.stopped:
            return
        self.stopped = True
        self.until_next = until_next
        self.hello_due = self.hello_due or 1
        self._write_final(self.ticks() & self.mask)
        self._refresh()

    def reopen(self):
        """Records again after close(), in the same run (aioprof_reopen): the next frame starts
        with a HELLO that is neither a start nor a stop."""
        if self.on and self.stopped:
            self.stopped = False
            self.hello_due = self.hello_due or 1
            self.deadline = (self.ticks() + self.period_len) & self.mask
        self._refresh()

    def _reopened(self):
        # an event after close(until_next=True) reopens (after stop() or close() it does not)
        if self.until_next:
            self.reopen()
        return not self.stopped

    def _period_end(self, now):
        self.deadline = (now + self.period_len) & self.mask
        self.period += 1
        if self.period % _HELLO_EVERY == 0 and not self.hello_due:
            self.hello_due = 1
        self._write_pending(now)
        if not self.open and not self.sent:
            # the heartbeat (with a drop count still owed)
            n = _DROPPED_ROOM if self.drop_due else 0
            if self._fits_new(n):
                self._frame_open(now, n)
            else:
                # no room for the heartbeat: the next frame says so (a DROPPED, of no events if
                # none were), so the host does not take the silence for lost frames
                self.drop_due = True
        if self.open:
            self._frame_close()
        self.sent = False

    def drain(self):
        """At a period's end closes the frame (or sends an empty one), then offers the
        committed bytes to write() until it takes no more. Call it between slices."""
        if not self.on:
            return 0
        mask = self.mask
        start = self.ticks() & mask
        # over once the deadline is behind: less than half the wrap past it
        if not self.stopped and (start - self.deadline) & mask <= mask // 2:
            self._period_end(start)
        total = 0
        while self.commit != self.tail:
            end = self.commit if self.commit > self.tail else self.size
            want = end - self.tail
            n = self.write(self.view[self.tail : end])
            n = want if n is None or n > want else n
            t = self.tail + n
            self.tail = t - self.size if t >= self.size else t
            if self.open:
                self._rebudget()
            total += n
            if n < want:
                break
        if self.stopped and total:
            self._write_final(start)  # what did not fit when it stopped: the next drain sends it
        if total:
            # a clock that stepped back meanwhile (the upper half of the range) spent no time
            spent = (self.ticks() - start) & mask
            if spent <= mask // 2:
                self.drain_ticks = (self.drain_ticks + spent) & 0xFFFFFFFF
        self.last_drain = self.last
        self.due = self.commit != self.tail
        self._refresh()
        return total

    def idle(self):
        """True when nothing is owed to the port (aioprof_idle)."""
        return not self.on or not (self.open or self.hello_due or self.drop_due or self.pending())

    def stop(self, tries=1000):
        """Stops for good and sends what is left, the last HELLO (flag "stopped") included, in a
        bounded number of tries (the first HELLO too if nothing was recorded: the host tells "no
        tasks" from "no hook")."""
        if not self.on:
            return
        self.close()
        while not self.idle() and tries:
            self.drain()
            tries -= 1
        self.on = False
        self._refresh()

    # ---- between slices, for the wrapper ----

    def wrap(self, coro, name):
        """The object asyncio gets instead of a new task's coroutine: each resume is one slice,
        recorded; after the slice the frames go out as they complete, and when a task created
        outside any task (asyncio.run's main) ends, the program may end: the hook stops (its
        last HELLO says so) and everything goes out; the next event reopens it."""
        t = self.task(name)
        return Wrapped(self, coro, t, t.parent == 0, True)

    def bind(self, w, task):
        """task: the asyncio Task made for the wrapper w, which resumes it; each resume then says
        how late it was (the Task's ph_key: when it was due)."""
        if isinstance(w, Wrapped):
            w.rec.atask = task

    def _ended(self, t, kind, top, auto):
        # a coroutine returned or raised: its last slice ends
        self._exit_at(t, kind, self.ticks() & self.mask)
        if top:
            self.close(True)
        if auto:
            self._after()

    def _after(self):
        # between slices (no task runs): every complete frame goes out, and at least every half
        # period (the C engines' policy); the time is the last event's, no clock read
        if self.current is None and (self.due or (self.last - self.last_drain) & self.mask >= self.half):
            self._drain_quietly()

    def _drain_quietly(self):
        # the hook never raises into the task that ended a slice: a failed write is dropped
        try:
            self.drain()
        except Exception:
            pass


def _ms_clock():
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
# than this millisecond; the scheduler leaves the key as it is when it resumes the task. top: the task was created outside any task (its end may be the
# program's); auto: drain between slices and stop at top's end (off for the golden vectors, which
# script both).
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
    ms = R.ms
    ms_diff = R.ms_diff
    lr = R.late_room
    need = 11 + lr  # an ENTER's room: its record, its lateness
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
        now = ticks() & mask
        late = 0
        if a is None:
            a = t.atask
        if a is not None:
            # what ticks_diff gives, without the call, when it is 0 to 127 ms (else see below)
            late = ms() - a.ph_key
        outer = R.current
        budget = R.budget
        if 0 <= late < 0x80 and t.announced > R.gate and budget >= need:
            head = R.head
            start = head
            dt = (now - R.last) & mask
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
            R.head = head
            R.budget = b
            R.last = now
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
        budget = R.budget
        if R.fast and budget >= 6:
            head = R.head
            start = head
            dt = (now - R.last) & mask
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
            R.head = head
            R.budget = budget - (head - start)
            R.last = now
            R.current = outer
        else:
            t.outer = outer
            R._exit_at(t, 0, now)
        if auto and outer is None and (R.due or (now - R.last_drain) & mask >= half):
            R._drain_quietly()
"""

def _exec(src):
    try:
        # named, so that the lines bytecode leaves in tracebacks say where they are from
        src = compile(src, "aioprof_fallback.py", "exec")
    except NameError:  # a port without compile(): exec takes the text
        pass
    exec(src, globals())


def _compile():
    try:
        _exec(_RUN_SRC.replace("@NATIVE", "@micropython.native").replace("RERAISE", "raise e"))
    except Exception:
        # CPython, no native emitter ("invalid micropython decorator"), or no room for native
        # code: bytecode
        _exec(_RUN_SRC.replace("@NATIVE", "").replace("RERAISE", "raise"))


_compile()
