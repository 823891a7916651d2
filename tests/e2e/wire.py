"""The wire format's building blocks in plain Python, written from docs/protocol.md (not from the
C code), for the end-to-end tests that take captures apart: CRC-16/CCITT-FALSE, COBS, varints."""


def crc16(data):
    """CRC-16/CCITT-FALSE: polynomial 0x1021, initial 0xFFFF, no reflection, no final xor."""
    crc = 0xFFFF
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


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
