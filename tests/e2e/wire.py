"""The wire format's building blocks in plain Python, written from docs/protocol.md (not from the
C code), for the end-to-end tests and benchmarks that take captures apart: CRC-16/CCITT-FALSE,
COBS, varints, and a walk over a frame's records."""
import binascii


def crc16(data):
    """CRC-16/CCITT-FALSE: polynomial 0x1021, initial 0xFFFF, no reflection, no final xor.
    binascii.crc_hqx is that CRC with the initial value as its second argument (check value
    0x29B1 for b"123456789"), and runs at C speed: the bit-by-bit loop made CRC most of the time
    a benchmark spent taking a 60 MB capture apart."""
    return binascii.crc_hqx(data, 0xFFFF)


def cobs_decode(seg):
    """One segment (no 0x00 in it) back to its bytes, or None when it is not valid COBS."""
    out, i = bytearray(), 0
    while i < len(seg):
        code = seg[i]
        if code == 0 or i + code > len(seg):
            return None
        out += seg[i + 1:i + code]
        i += code
        if code < 0xFF and i < len(seg):
            out.append(0)
    return bytes(out)


def cobs_encode(body):
    """Bytes to one segment, without delimiters."""
    out, run = bytearray(), bytearray()
    for b in body:
        if b == 0:
            out.append(len(run) + 1)
            out += run
            run = bytearray()
        else:
            run.append(b)
            if len(run) == 254:
                out.append(255)
                out += run
                run = bytearray()
    out.append(len(run) + 1)
    out += run
    return bytes(out)


def varint(b, i):
    """An unsigned LEB128 varint of at most 5 bytes at b[i]: (value, index after it)."""
    v = shift = 0
    for _ in range(5):
        if i >= len(b):
            raise ValueError("varint past the end")
        v |= (b[i] & 0x7F) << shift
        shift += 7
        i += 1
        if not b[i - 1] & 0x80:
            return v, i
    raise ValueError("varint too long")


def frame_body(seg):
    """The frame body of one segment (no 0x00 in it), or None when the segment is not a valid frame:
    device text or damage (docs/protocol.md sections 1 and 2)."""
    body = cobs_decode(seg)
    if body is None or len(body) < 9 or crc16(body[:-2]) != int.from_bytes(body[-2:], "little"):
        return None
    return body


OP_HELLO, OP_TASK_NEW, OP_TASK_INFO, OP_DROPPED, OP_LATE = 0, 1, 2, 3, 4


def hello(payload):
    """A HELLO's fields by name (docs/protocol.md section 3); the optional ones after the platform
    (period_ticks, event_cost, late_unit) are None when this device's HELLO ends before them."""
    f, i = {}, 0
    f["version"], i = varint(payload, i)
    f["tick_hz"], i = varint(payload, i)
    f["tick_bits"], i = payload[i], i + 1
    f["ring_bytes"], i = varint(payload, i)
    f["flags"], i = payload[i], i + 1
    for name in ("boot_ticks", "drain_ticks", "dropped_total"):
        f[name], i = varint(payload, i)
    n, i = varint(payload, i)
    f["platform"], i = payload[i:i + n], i + n
    for name in ("period_ticks", "event_cost", "late_unit"):
        f[name] = None
        if i < len(payload):
            f[name], i = varint(payload, i)
    return f


def late_values(payload):
    """A LATE record's body as the lateness of the frame's ENTERs in their order (the body lists
    them last first), in the HELLO's late_unit. Raises ValueError when it is damaged."""
    values, i = [], 0
    while i < len(payload):
        v, i = varint(payload, i)
        values.append(v)
    return values[::-1]


def records(body):
    """The records of a valid frame body in order (docs/protocol.md section 3), each as
    (tag, start, end, dt, task, payload): body[start:end] is the whole record; dt the event's ticks
    (None for a control record); task the id an ENTER names (None otherwise); payload a control
    record's body (None for an event). Raises ValueError when the records overrun the frame."""
    _, i = varint(body, 6)
    end = len(body) - 2
    while i < end:
        start, tag = i, body[i]
        i += 1
        if 0x70 <= tag < 0x80:
            n, i = varint(body, i)
            yield tag, start, i + n, None, None, body[i:i + n]
            i += n
            continue
        bits = 2 if tag >= 0x80 else 5 if tag < 0x40 else 3
        dt = tag & ((1 << bits) - 1)
        if tag & (1 << bits):
            rest, i = varint(body, i)
            dt |= rest << bits
        task = None
        if tag >= 0x80:
            task = (tag >> 3) & 0x0F
            if task == 0:
                task, i = varint(body, i)
        yield tag, start, i, dt, task, None
    if i != end:
        raise ValueError("records overran the frame")


OP_SPANS = 9


def span_events(body):
    """The events of a valid frame body's span list (op SPANS, docs/protocol.md "The span list"), in
    time order, as (at, dt, span): at the body offset of the record they came before (or of the
    list), dt their ticks after the frame's last event before it, span the id an enter names (None
    for an exit). [] when the frame has no list. Raises ValueError when the list is damaged."""
    recs = list(records(body))
    lists = [r for r in recs if r[0] == 0x70 | OP_SPANS]
    if not lists:
        return []
    first = recs[0][1]
    starts = {r[1] for r in recs}
    payload, i, newest_first = lists[0][5], 0, []
    while i < len(payload):
        b = payload[i]
        i += 1
        kind, step, sid = b >> 6, (b >> 3) & 7, b & 7
        if step == 7:
            step, i = varint(payload, i)
        dt, i = varint(payload, i)
        dur = None
        if kind == 2:
            dur, i = varint(payload, i)
        if kind == 1:
            if sid:
                raise ValueError("an EXIT entry with an id")
            sid = None
        elif kind in (0, 2):
            if not sid:
                sid, i = varint(payload, i)
            if not sid:
                raise ValueError("a span id 0")
        else:
            raise ValueError("an entry of kind 3")
        newest_first.append((step, dt, dur, sid))
    events, at = [], first
    for step, dt, dur, sid in reversed(newest_first):
        at += step
        if at not in starts or at > lists[0][1]:
            raise ValueError("a span list place that is not a record's")
        events.append((at, dt, sid))
        if dur is not None:
            events.append((at, dt + dur, None))
    return events

