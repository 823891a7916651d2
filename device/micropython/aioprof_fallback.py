# aioprof's pure-Python recorder: the device library (device/aioprof.c and
# proto/aioprof_frame_writer.c) rewritten in Python, for firmware where neither the
# C module nor the native .mpy can be loaded. It follows the C code step by step, ring
# included, so that the same events on the same clock give the same bytes: the golden
# vectors of tests/golden/ check that (tests/micropython/golden_fallback.py).
#
# Runs under MicroPython and CPython (the tests run it under both).
#
# The recorder only records and drains; the asyncio interception is in aioprof.py.

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


# docs/protocol.md, proto/aioprof_wire.h
_VERSION = const(1)
_OP_HELLO = const(0)
_OP_TASK_NEW = const(1)
_OP_TASK_INFO = const(2)
_OP_DROPPED = const(3)
_NAME_MAX = const(48)
_PLATFORM_MAX = const(32)

# proto/aioprof_frame_writer.h: a body stays at or below 254 bytes so COBS works in place
_BODY_MAX = const(254)
_OPEN_COST = const(13)  # 00, code byte, seq, format, base (4), running (up to 5)
_CLOSE_COST = const(3)  # CRC (2), 00

# device/aioprof.c: the largest record each path writes
_ENTER_MAX = const(11)
_EXIT_MAX = const(6)
_TASK_ROOM = const(65)  # control head (2) + task body (3 varints + name and label)
_HELLO_ROOM = const(72)  # control head (2) + HELLO body (7 varints, 3 bytes, the platform)
_DROPPED_ROOM = const(7)
_HELLO_EVERY = const(8)
_FLAG_STOPPED = const(2)

YIELD = const(0)
RETURN = const(1)
RAISE = const(2)
CANCEL = const(3)


def _crc_table():
    table = []
    for i in range(256):
        c = i << 8
        for _ in range(8):
            c = ((c << 1) ^ 0x1021) if c & 0x8000 else (c << 1)
        table.append(c & 0xFFFF)
    return table


_CRC = _crc_table()


def _cut(b, n):
    # b cut to at most n bytes at the start of a UTF-8 character (device/aioprof.c, prof_cut)
    k = min(len(b), n)
    while k < len(b) and k > 0 and n - k < 3 and b[k] & 0xC0 == 0x80:
        k -= 1
    return b[:k]


def _varint(out, v):
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)


class TaskRec:
    # What device/aioprof.h calls aioprof_task_t: one per task instance.
    def __init__(self):
        self.outer = None
        self.name = b""
        self.label = b""
        self.id = 0
        self.parent = 0
        self.announced = 0


class Recorder:
    """The hook: ticks() gives the tick counter, write(memoryview) sends bytes and returns
    how many it took (None counts as all)."""

    def __init__(self, ticks, write, tick_bits=30, ring=4096, platform="MicroPython", period_ticks=0, tick_hz=1000000):
        if ring < 128 or ring > 65535 or tick_bits < 8 or tick_bits > 32:
            raise ValueError("aioprof: ring must be 128..65535 bytes, tick_bits 8..32")
        self.ticks = ticks
        self.write = write
        self.tick_hz = tick_hz
        self.bits = tick_bits
        self.mask = (1 << tick_bits) - 1
        self.platform = platform.encode()[:_PLATFORM_MAX] if isinstance(platform, str) else platform[:_PLATFORM_MAX]
        self.period_ticks = period_ticks or tick_hz
        # the frame writer's ring
        self.buf = bytearray(ring)
        self.view = memoryview(self.buf)
        self.size = ring
        self.head = 0
        self.tail = 0
        self.commit = 0
        self.frame_pos = 0
        self.budget = 0
        self.open = False
        # the profiler
        self.current = None
        self.next_id = 0
        self.dropped = 0
        self.drop_due = False  # a DROPPED must go before any event (its count may be 0)
        self.dropped_total = 0
        self.drain_ticks = 0
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
        self.on = True  # False after stop(): records nothing, sends nothing
        self.stopped = False  # close() was called: record nothing, send the rest; reopen() goes on
        self.until_next = False  # close(until_next=True): the next event reopens

    # ---- the frame writer (proto/aioprof_frame_writer.c) ----

    def _room(self):
        used = self.head - self.tail if self.head >= self.tail else self.size - (self.tail - self.head)
        return self.size - 1 - used

    def _skip(self, n):
        to_end = self.size - self.head
        return to_end if to_end < _OPEN_COST + n + 1 else 0

    def _fits_new(self, n):
        return self._room() >= self._skip(n) + _OPEN_COST + n + _CLOSE_COST

    def _raw(self, b):
        self.buf[self.head] = b
        self.head = 0 if self.head + 1 == self.size else self.head + 1

    def _rebudget(self):
        room = self._room()
        left = _BODY_MAX - 2 - (self.head - self.frame_pos - 1)
        to_end = self.size - 1 - self.head
        room = room - _CLOSE_COST if room > _CLOSE_COST else 0
        if left > room:
            left = room
        self.budget = left if left < to_end else to_end

    def _put(self, data):
        # body bytes into the open frame: the budget keeps them before the ring's end
        n = len(data)
        self.buf[self.head : self.head + n] = data
        self.head += n
        self.budget -= n

    def _put_varint(self, v):
        # a varint straight into the open frame (no object made: this is on every event's path)
        buf = self.buf
        head = self.head
        start = head
        while v >= 0x80:
            buf[head] = (v & 0x7F) | 0x80
            head += 1
            v >>= 7
        buf[head] = v
        head += 1
        self.budget -= head - start
        self.head = head

    def _fw_open(self, n, running):
        for _ in range(self._skip(n)):
            self._raw(0)
        self._raw(0)  # ends any device text printed since the last frame
        self.frame_pos = self.head
        self._raw(0)  # the first code byte, known at close
        self.open = True
        self._rebudget()
        base = self.last
        h = bytearray((self.seq, self.format, base & 0xFF, (base >> 8) & 0xFF, (base >> 16) & 0xFF, base >> 24))
        _varint(h, running)
        self._put(h)

    def _fw_close(self):
        buf = self.buf
        start = self.frame_pos + 1
        crc = 0xFFFF
        table = _CRC
        code_at = self.frame_pos
        code = 1
        for i in range(start, self.head):
            b = buf[i]
            crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ b]
            # COBS in place: every zero becomes the code byte of the run after it
            if b == 0:
                buf[code_at] = code
                code_at = i
                code = 1
            else:
                code += 1
        for b in (crc & 0xFF, crc >> 8):  # the CRC may wrap around the ring's end
            if b == 0:
                buf[code_at] = code
                code_at = self.head
                code = 1
            else:
                code += 1
            self._raw(b)
        buf[code_at] = code
        self._raw(0)
        self.commit = self.head
        self.open = False

    def _event(self, tag, bits, dt):
        rest = dt >> bits
        if rest == 0:
            self.buf[self.head] = tag | dt
            self.head += 1
            self.budget -= 1
            return
        self.buf[self.head] = tag | (dt & ((1 << bits) - 1)) | (1 << bits)
        self.head += 1
        self.budget -= 1
        self._put_varint(rest)

    def _control_head(self, op, n):
        head = bytearray((0x70 | op,))
        _varint(head, n)
        self._put(head)

    def _control(self, op, body):
        self._control_head(op, len(body))
        self._put(body)

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
            t.announced = (self.period - 1) & 0xFFFF
        if label:
            self.label(t, label)
        return t

    def label(self, t, label):
        label = label.encode() if isinstance(label, str) else bytes(label)
        t.label = _cut(label, _NAME_MAX - len(t.name))
        if self.stopped and not self._reopened():
            return
        # sent now (a task may never run again after it was labelled), else at its next enter
        now = self.ticks() & self.mask
        t.announced = (self.period - 1) & 0xFFFF
        if self._write_pending(now) and self._frame_room(now, _TASK_ROOM):
            self._write_task(_OP_TASK_INFO, t)
            t.announced = self.period

    def enter(self, t):
        if self.stopped and not self._reopened():
            return
        now = self.ticks() & self.mask
        n = _ENTER_MAX
        announce = t.announced != self.period
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
            self.last = now
        t.outer = self.current
        self.current = t

    def exit(self, t, kind):
        if self.stopped and not self._reopened():
            return
        now = self.ticks() & self.mask
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

    def flush(self):
        if self.open:
            self._frame_close()

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

    def reopen(self):
        """Records again after close(), in the same run (aioprof_reopen): the next frame starts
        with a HELLO that is neither a start nor a stop."""
        if self.on and self.stopped:
            self.stopped = False
            self.hello_due = self.hello_due or 1
            self.deadline = (self.ticks() + self.period_len) & self.mask

    def _reopened(self):
        # an event after close(until_next=True) reopens (after stop() or close() it does not)
        if self.until_next:
            self.reopen()
        return not self.stopped

    def _period_end(self, now):
        self.deadline = (now + self.period_len) & self.mask
        self.period = (self.period + 1) & 0xFFFF
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

    def pending(self):
        if self.commit >= self.tail:
            return self.commit - self.tail
        return self.size - self.tail + self.commit

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
            self.drain_ticks = (self.drain_ticks + ((self.ticks() - start) & mask)) & 0xFFFFFFFF
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
