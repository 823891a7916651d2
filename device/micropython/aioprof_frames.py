# aioprof's frame writer in Python (proto/aioprof_frame_writer.c rewritten step by step), for the
# pure-Python engine (aioprof_fallback.py, whose Recorder is a FrameWriter): records go into a
# byte ring raw; closing a frame computes its CRC and stuffs it (COBS) in place, so that the bytes
# between the ring's tail and its commit mark can be handed to the port as they are. A frame never
# wraps around the ring's end; a body stays at or below 254 bytes, so COBS needs no extra byte.
#
# Runs under MicroPython and CPython. Where the port has viper, a frame's CRC and COBS are machine
# code.

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


try:
    from array import array
except ImportError:  # a port without the array module: lists do, slower

    def array(typecode, items):
        return list(items)


# The hottest state (FrameWriter.st, 32-bit words that the viper code reads as a ptr32): head,
# budget, and the Recorder's last tick, fast (1/0), tick mask, gate + 2^16.
_H = const(0)
_B = const(1)
_L = const(2)
_F = const(3)
_M = const(4)
_G = const(5)

# proto/aioprof_frame_writer.h
_BODY_MAX = const(254)
_OPEN_COST = const(13)  # 00, code byte, seq, format, base (4), running (up to 5)
_CLOSE_COST = const(3)  # CRC (2), 00
_LATE_HEAD = const(3)  # a LATE record's tag and length (proto/aioprof_wire.h)
_LATE_TAG = const(0x74)  # 0x70 | op 4


def _crc_table():
    table = []
    for i in range(256):
        c = i << 8
        for _ in range(8):
            c = ((c << 1) ^ 0x1021) if c & 0x8000 else (c << 1)
        table.append(c & 0xFFFF)
    return table


_CRC = _crc_table()


def _crc_cobs_py(buf, start, end, out):
    """A frame's body buf[start:end] (it never wraps): its CRC-16, and COBS in place, buf[start - 1]
    being the first code byte. out[0] = the CRC, out[1] = the code of the run still open;
    returns where its code byte goes. Machine code where the port has viper (_VIPER_SRC)."""
    crc = 0xFFFF
    table = _CRC
    code_at = start - 1
    code = 1
    for i in range(start, end):
        b = buf[i]
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ b]
        # every zero becomes the code byte of the run after it
        if b == 0:
            buf[code_at] = code
            code_at = i
            code = 1
        else:
            code += 1
    out[0] = crc
    out[1] = code
    return code_at


_crc_cobs = _crc_cobs_py


def _late_move_py(buf, start, n, at):
    """A frame's lateness list buf[start:start + n] moved down to buf[at:] (at <= start) when one
    of its values is not 0: returns n, or 0 when every value was 0 (nothing moved). Machine code
    where the port has viper (_VIPER_SRC): this runs at every frame's close."""
    lst = buf[start : start + n]
    if not any(lst):
        return 0
    buf[at : at + n] = lst
    return n


_late_move = _late_move_py


def _varint_len(v):
    n = 1
    while v >= 0x80:
        v >>= 7
        n += 1
    return n


def _varint(out, v):
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)


class FrameWriter:
    # The ring's state is the Recorder's own attributes (the wrapper's common case writes head and
    # budget itself); seq, format and last are the profiler's.

    def _fw_init(self, ring):
        self.buf = bytearray(ring)
        self.view = memoryview(self.buf)
        self.size = ring
        self.st = array("I", (0, 0, 0, 0, 0, 0))  # head, budget, last, fast, mask, gate (_H, _B, _L, _F, _M, _G)
        self.st[_H] = 0
        self.tail = 0
        self.commit = 0
        self.frame_pos = 0
        self.st[_B] = 0
        self.open = False
        self.due = False  # a frame was closed since the last drain
        self.crc_out = array("i", (0, 0))
        # lateness (aioprof_fw_t.late_room, late_len): 5 when every ENTER carries its lateness,
        # in a list built from the top of the open frame's space down, _LATE_HEAD bytes above
        # head + budget; closing the frame writes it as a LATE record. The list ends at late_top,
        # so its length (C's late_len) is late_top - (head + budget + _LATE_HEAD), and an ENTER's
        # lateness takes from the budget only (the wrapper writes it so: one attribute less)
        self.late_room = 0
        self.late_top = _LATE_HEAD

    def _room(self):
        used = self.st[_H] - self.tail if self.st[_H] >= self.tail else self.size - (self.tail - self.st[_H])
        return self.size - 1 - used

    def _late_len(self):
        # while a frame is open
        return self.late_top - self.st[_H] - self.st[_B] - _LATE_HEAD

    # (what a frame keeps back for its LATE record's head, C's aioprof_fw_late_reserve, is
    # written out in place: a method call costs more than the test)

    def _skip(self, n):
        if self.late_room:
            n += _LATE_HEAD
        to_end = self.size - self.st[_H]
        return to_end if to_end < _OPEN_COST + n + 1 else 0

    def _fits_new(self, n):
        reserve = _LATE_HEAD if self.late_room else 0
        return self._room() >= self._skip(n) + _OPEN_COST + n + reserve + _CLOSE_COST

    def _raw(self, b):
        self.buf[self.st[_H]] = b
        self.st[_H] = 0 if self.st[_H] + 1 == self.size else self.st[_H] + 1

    def _rebudget(self):
        if self.late_room and self._late_len():
            return  # the lateness list stays where it is: the budget no longer grows
        room = self._room()
        left = _BODY_MAX - 2 - (self.st[_H] - self.frame_pos - 1)
        to_end = self.size - 1 - self.st[_H]
        room = room - _CLOSE_COST if room > _CLOSE_COST else 0
        if left > room:
            left = room
        if left > to_end:
            left = to_end
        reserve = _LATE_HEAD if self.late_room else 0
        self.st[_B] = left - reserve if left > reserve else 0
        self.late_top = self.st[_H] + self.st[_B] + _LATE_HEAD

    def _late(self, v):
        # the lateness of the ENTER just written: a varint below the list so far, in place
        n = _varint_len(v)
        at = self.st[_H] + self.st[_B] + _LATE_HEAD - n
        buf = self.buf
        while v >= 0x80:
            buf[at] = (v & 0x7F) | 0x80
            at += 1
            v >>= 7
        buf[at] = v
        self.st[_B] -= n

    def _late_record(self):
        # the LATE record at head, the list moved down after its head; none when every ENTER of
        # the frame was on time
        n = self._late_len()
        buf = self.buf
        head = self.st[_H]
        at = head + (2 if n < 0x80 else 3)  # after the record's tag and length (a varint)
        if not _late_move(buf, head + self.st[_B] + _LATE_HEAD, n, at):
            return
        buf[head] = _LATE_TAG
        if n < 0x80:
            buf[head + 1] = n
        else:
            buf[head + 1] = (n & 0x7F) | 0x80
            buf[head + 2] = n >> 7
        # (the frame closes next: st holds it unsigned)
        b = self.st[_B] - (at + n - head)
        self.st[_B] = b if b > 0 else 0
        self.st[_H] = at + n

    def _put(self, data):
        # body bytes into the open frame: the budget keeps them before the ring's end
        n = len(data)
        self.buf[self.st[_H] : self.st[_H] + n] = data
        self.st[_H] += n
        self.st[_B] -= n

    def _put_varint(self, v):
        # a varint straight into the open frame (no object made: this is on every event's path)
        buf = self.buf
        head = self.st[_H]
        start = head
        while v >= 0x80:
            buf[head] = (v & 0x7F) | 0x80
            head += 1
            v >>= 7
        buf[head] = v
        head += 1
        self.st[_B] -= head - start
        self.st[_H] = head

    def _fw_open(self, n, running):
        for _ in range(self._skip(n)):
            self._raw(0)
        self._raw(0)  # ends any device text printed since the last frame
        self.frame_pos = self.st[_H]
        self._raw(0)  # the first code byte, known at close
        self.open = True
        self.late_top = self.st[_H] + _LATE_HEAD  # no list (the budget is 0 while no frame is open)
        self._rebudget()
        # the header, written in place (no object made: this is every frame's path)
        base = self.st[_L]
        buf = self.buf
        head = self.st[_H]
        buf[head] = self.seq
        buf[head + 1] = self.format
        buf[head + 2] = base & 0xFF
        buf[head + 3] = (base >> 8) & 0xFF
        buf[head + 4] = (base >> 16) & 0xFF
        buf[head + 5] = base >> 24
        self.st[_H] = head + 6
        self.st[_B] -= 6
        self._put_varint(running)

    def _fw_close(self):
        if self.late_room and self.late_top != self.st[_H] + self.st[_B] + _LATE_HEAD:  # a list
            self._late_record()
        buf = self.buf
        out = self.crc_out
        code_at = _crc_cobs(buf, self.frame_pos + 1, self.st[_H], out)
        crc = out[0]
        code = out[1]
        # the CRC's two bytes (which may wrap around the ring's end)
        b = crc & 0xFF
        if b == 0:
            buf[code_at] = code
            code_at = self.st[_H]
            code = 1
        else:
            code += 1
        self._raw(b)
        b = crc >> 8
        if b == 0:
            buf[code_at] = code
            code_at = self.st[_H]
            code = 1
        else:
            code += 1
        self._raw(b)
        buf[code_at] = code
        self._raw(0)
        self.commit = self.st[_H]
        self.open = False
        self.st[_B] = 0
        self.due = True  # a frame to send: the wrapper drains after the slice

    def _event(self, tag, bits, dt):
        rest = dt >> bits
        if rest == 0:
            self.buf[self.st[_H]] = tag | dt
            self.st[_H] += 1
            self.st[_B] -= 1
            return
        self.buf[self.st[_H]] = tag | (dt & ((1 << bits) - 1)) | (1 << bits)
        self.st[_H] += 1
        self.st[_B] -= 1
        self._put_varint(rest)

    def _control_head(self, op, n):
        self.buf[self.st[_H]] = 0x70 | op
        self.st[_H] += 1
        self.st[_B] -= 1
        self._put_varint(n)

    def _control(self, op, body):
        self._control_head(op, len(body))
        self._put(body)

    def pending(self):
        if self.commit >= self.tail:
            return self.commit - self.tail
        return self.size - self.tail + self.commit


# A frame's CRC and COBS (Recorder._fw_close) as viper machine code, where the port has it: a
# frame of 254 bytes costs as much as a few events instead of a few hundred. And the move of its
# lateness list, for the same reason.
_VIPER_SRC = """
_CRC16 = array("H", _CRC)

@micropython.viper
def _crc_cobs(buf, start: int, end: int, out) -> int:
    b = ptr8(buf)
    tab = ptr16(_CRC16)
    o = ptr32(out)
    crc = 0xFFFF
    code_at = start - 1
    code = 1
    i = start
    while i < end:
        x = b[i]
        crc = ((crc << 8) & 0xFFFF) ^ tab[((crc >> 8) ^ x) & 0xFF]
        if x == 0:
            b[code_at] = code
            code_at = i
            code = 1
        else:
            code += 1
        i += 1
    o[0] = crc
    o[1] = code
    return code_at


@micropython.viper
def _late_move(buf, start: int, n: int, at: int) -> int:
    b = ptr8(buf)
    i = 0
    while i < n:
        if b[start + i]:
            break
        i += 1
    if i == n:
        return 0
    i = 0
    while i < n:
        b[at + i] = b[start + i]
        i += 1
    return n
"""


def _compile():
    try:
        exec(_VIPER_SRC, globals())
    except Exception:
        pass  # CPython, or no viper: _crc_cobs stays the Python one


_compile()
