# aioprof's pure-Python engine, for firmware where neither the C module nor the native .mpy can be
# loaded: the device library (device/aioprof.c) rewritten in Python, over the frame writer of
# aioprof_frames.py (proto/aioprof_frame_writer.c), with the wrapper asyncio resumes instead of a
# task's coroutine (Recorder.wrap, aioprof_wrapper.py). It follows the C code step by step, ring included, so that the
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


from aioprof_frames import FrameWriter, _varint, _varint_len

_H = const(0)  # FrameWriter.st: head, budget, last, fast, mask (aioprof_frames.py)
_B = const(1)
_L = const(2)
_F = const(3)
_M = const(4)
_G = const(5)
from aioprof_wrapper import Wrapped, _ms_clock, span_code

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
_HELLO_MEM_ROOM = const(5)  # the HELLO's mem varint, when the recorder measures memory
_OP_ALLOC = const(7)
_ALLOC_ROOM = const(7)  # control head (2) + a varint
# the HELLO's mem (docs/protocol.md, "Memory") when gc.mem_alloc() is read: lower bounds, bytes
MEM_HEAP_WALK = const(0x02 | (1 << 5))
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


# Spans (docs/protocol.md, "Spans"; device/aioprof_span.c)
_OP_SPAN_ENTER = const(5)
_OP_SPAN_EXIT = const(6)
_OP_SPAN_NAME = const(8)
_SPAN_NAME_MAX = const(32)
_SPAN_ENTER_TAG = const(0x75)  # the control tag (0x70) | SPAN_ENTER
_SPAN_EXIT_TAG = const(0x76)
_SPAN_ROOM = const(12)  # control head (2) + two varints
_SPAN_NAME_ROOM = const(39)  # control head (2) + a varint + the name


class SpanRec:
    # What device/aioprof.h calls aioprof_span_t: one per span name (Recorder.span interns them).
    def __init__(self, name):
        self.name = _cut(name.encode() if isinstance(name, str) else bytes(name), _SPAN_NAME_MAX)
        self.id = 0
        self.announced = 0


class Recorder(FrameWriter):
    """The hook: ticks() gives the tick counter, write(memoryview) sends bytes and returns
    how many it took (None counts as all)."""

    def __init__(self, ticks, write, tick_bits=30, ring=4096, platform="MicroPython", period_ticks=0, tick_hz=1000000,
                 cancelled=None, late_unit=0, mem_read=None):
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
        self.st[_M] = self.mask
        # lateness (aioprof_port_t.late_unit): the unit of enter_late's `late`, in ticks (1000
        # with microsecond ticks: asyncio's due times, Task.ph_key, are milliseconds); 0: not
        # reported. Given here, as in C before aioprof_init: every ENTER then carries its lateness
        self.late_unit = late_unit
        self.late_room = 5 if late_unit else 0
        # memory (docs/micropython.md, "Memory"): mem_read(), gc.mem_alloc(), read around every
        # event; None: not measured, no mem in the HELLO, no ALLOC (today's bytes)
        self.mem_read = mem_read
        self.mem = MEM_HEAP_WALK if mem_read else 0
        self.mem_last = mem_read() if mem_read else 0
        self.mem_amount = 0  # taken (take_mem) and not yet written
        # the profiler
        self.current = None
        self.next_id = 0
        self.next_span = 0
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
        self.boot_ticks = self.st[_L] = now
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
        self.st[_F] = 1 if self.fast else 0  # for the machine code
        # and the period an enter's task must have been announced after to take that way (its
        # name went less than _ANNOUNCE_EVERY periods ago; never, when not fast: no task's name
        # went after this period). One comparison, exact while a task's last announcement is
        # less than 2^16 periods old; an older one takes the general path, which compares as C.
        self.gate = self.period - _ANNOUNCE_EVERY if self.fast else self.period
        self.st[_G] = self.gate + 0x10000  # for the machine code (unsigned: periods count from 0)

    # ---- the profiler (device/aioprof.c) ----

    def _frame_close(self):
        # a drop count still owed goes in first when it fits (the frame holds at most a HELLO)
        if self.drop_due and self.st[_B] >= _DROPPED_ROOM:
            self._write_dropped()
        self._fw_close()
        self.sent = True
        # a frame to send: the last drain taken as half a period ago, so that the test between
        # slices (half a period since the last drain) is one comparison for both reasons
        self.last_drain = (self.st[_L] - self.half) & self.mask

    def _frame_room(self, now, n):
        if self.open and self.st[_B] >= n:
            return True
        if self.open:
            self._frame_close()
        if not self._fits_new(n):
            return False
        self._frame_open(now, n)
        return True

    def _frame_open(self, now, n):
        self.st[_L] = now
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
        if self.mem:
            _varint(body, self.mem)
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
            if not self._frame_room(now, _HELLO_ROOM + (_HELLO_MEM_ROOM if self.mem else 0)):
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
        if not self.open and self.tail == self.st[_H]:
            self.st[_H] = self.tail = self.commit = 0
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
        amount = self.mem_amount
        if amount:
            n += _ALLOC_ROOM
            self.mem_amount = 0  # written or, with the event, dropped
        if (self.hello_due or self.drop_due) and not self._write_pending(now) or not self._frame_room(now, n):
            self._drop()
        else:
            if announce:
                self._write_task(_OP_TASK_INFO, t)
                t.announced = self.period
            if amount:
                self._write_alloc(amount)
            dt = (now - self.st[_L]) & self.mask
            i = t.id
            if i <= 15:
                self._event(0x80 | (i << 3), 2, dt)
            else:
                self._event(0x80, 2, dt)
                self._put_varint(i)
            if self.late_room:
                self._late(late & 0xFFFFFFFF)
            self.st[_L] = now
        t.outer = self.current
        self.current = t
        self._refresh()

    def _exit_at(self, t, kind, now):
        if self.stopped and not self._reopened():
            return
        amount = self.mem_amount
        self.mem_amount = 0
        n = _EXIT_MAX + _ALLOC_ROOM if amount else _EXIT_MAX
        if (self.hello_due or self.drop_due) and not self._write_pending(now) or not self._frame_room(now, n):
            self._drop()
        else:
            if amount:
                self._write_alloc(amount)
            dt = (now - self.st[_L]) & self.mask
            if kind == YIELD:
                self._event(0x00, 5, dt)
            else:
                self._event(0x40 + ((kind - 1) << 4), 3, dt)
            self.st[_L] = now
        self.current = t.outer
        t.outer = None
        self._refresh()

    # ---- memory ----

    def take_mem(self):
        """Reads the heap where an event's stretch ends (the wrapper: before an ENTER's time, after
        an EXIT's): its growth since the last read goes with the next event, none if it shrank."""
        m = self.mem_read()
        d = m - self.mem_last
        self.mem_last = m
        if d > 0:
            self.mem_amount += d

    def _write_alloc(self, amount):
        # an ALLOC record, in the open frame, which has room for it
        self._control_head(_OP_ALLOC, _varint_len(amount))
        self._put_varint(amount)

    # ---- spans (device/aioprof_span.c) ----

    def span(self, name):
        """A span's handle for span_enter: its SpanRec (aioprof.py keeps one per name)."""
        return SpanRec(name)

    def span_with(self, sp, span):
        """The __enter__ and __exit__ (machine code) that the Span span, of handle sp, may take as
        its own while this recorder records; None without viper."""
        if not _viper:
            return None
        sp.rec = self
        sp.span = span
        sp.tk = self.ticks  # what with_enter and with_exit read of the recorder (_span_src)
        sp.st = self.st
        sp.buf = self.buf
        return sp.with_enter, sp.with_exit

    # span_enter(sp) (the running task enters span sp, a SpanRec; spans nest) and span_exit()
    # (its innermost open span ends) are aioprof_wrapper.py's span_code(), set below: machine
    # code where the port has viper, else the same source as Python

    def _span_at(self, op, sp, now):
        if self.stopped and not self._reopened():
            return
        name_it = sp is not None and (sp.id == 0 or ((self.period - sp.announced) & 0xFFFF) >= _ANNOUNCE_EVERY)
        if sp is not None and sp.id == 0:
            self.next_span = (self.next_span + 1) & 0xFFFFFFFF or 1
            sp.id = self.next_span
        n = _SPAN_ROOM + (_SPAN_NAME_ROOM if name_it else 0)
        if not self._write_pending(now) or not self._frame_room(now, n):
            self._drop()
            if name_it:
                sp.announced = self.period - _ANNOUNCE_EVERY
        else:
            if name_it:
                head = bytearray()
                _varint(head, sp.id)
                self._control_head(_OP_SPAN_NAME, len(head) + len(sp.name))
                self._put(head)
                self._put(sp.name)
                sp.announced = self.period
            # after the frame's last event: the events' own dt chain does not move
            dt = (now - self.st[_L]) & self.mask
            n = _varint_len(dt)
            if sp is not None:
                n += _varint_len(sp.id)
            self._control_head(op, n)
            self._put_varint(dt)
            if sp is not None:
                self._put_varint(sp.id)
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
        now = self.ticks() & self.mask
        if self.mem_read:
            # what was allocated since the last event, before the HELLO after which nothing comes
            self.take_mem()
            amount = self.mem_amount
            self.mem_amount = 0
            if amount and self._write_pending(now) and self._frame_room(now, _ALLOC_ROOM):
                self._write_alloc(amount)
        self.stopped = True
        self.until_next = until_next
        self.hello_due = self.hello_due or 1
        self._write_final(now)
        self._refresh()

    def reopen(self):
        """Records again after close(), in the same run (aioprof_reopen): the next frame starts
        with a HELLO that is neither a start nor a stop."""
        if self.on and self.stopped:
            self.stopped = False
            self.hello_due = self.hello_due or 1
            self.deadline = (self.ticks() + self.period_len) & self.mask
            if self.mem_read:
                # what was allocated while stopped was no task's
                self.mem_last = self.mem_read()
                self.mem_amount = 0
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
        self.due = self.commit != self.tail
        self.last_drain = (self.st[_L] - self.half) & self.mask if self.due else self.st[_L]
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
        now = self.ticks() & self.mask
        if self.mem_read:
            self.take_mem()
        self._exit_at(t, kind, now)
        if top:
            self.close(True)
        if auto:
            self._after()

    def _after(self):
        # between slices (no task runs): every complete frame goes out, and at least every half
        # period (the C engines' policy); the time is the last event's, no clock read
        if self.current is None and (self.st[_L] - self.last_drain) & self.mask >= self.half:
            self._drain_quietly()

    def _drain_quietly(self):
        # the hook never raises into the task that ended a slice: a failed write is dropped
        try:
            self.drain()
        except Exception:
            pass


Recorder.span_enter, Recorder.span_exit, SpanRec.with_enter, SpanRec.with_exit, _viper = span_code()
