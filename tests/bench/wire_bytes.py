#!/usr/bin/env python3
"""Where a capture's bytes go: the wire bytes of each record kind, per ENTER/EXIT event.

Usage: wire_bytes.py CAPTURE [SECONDS]

Reads a raw stream as the simulator writes it (-o FILE) and splits every byte into: the events
(ENTER, EXIT), the control records (TASK_NEW, TASK_INFO, HELLO, DROPPED), the frames' own cost
(header, CRC, COBS code byte, the 0x00 delimiters) and anything else (device text, damage).
With SECONDS, each part is also given in bytes per second of device time. Run by `make bench`;
docs/protocol.md, "Size", quotes it.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'e2e'))
from wire import cobs_decode, crc16, varint  # noqa: E402

CONTROL = {0: 'HELLO', 1: 'TASK_NEW', 2: 'TASK_INFO', 3: 'DROPPED'}
ORDER = ['ENTER', 'EXIT', 'TASK_NEW', 'TASK_INFO', 'HELLO', 'DROPPED', 'control?', 'frame',
         'other']


def dt_bits(tag):
    """How many bits of dt an event tag holds (section 3 of docs/protocol.md)."""
    if tag >= 0x80:
        return 2
    return 5 if tag < 0x40 else 3


def split_body(body, parts):
    """Adds the bytes of one frame body to parts; returns its number of events."""
    parts['frame'] += 8  # seq, format, base, CRC; the varint `running` is added below
    _, i = varint(body, 6)
    parts['frame'] += i - 6
    end = len(body) - 2
    events = 0
    while i < end:
        tag = body[i]
        if 0x70 <= tag < 0x80:
            length, k = varint(body, i + 1)
            parts[CONTROL.get(tag & 15, 'control?')] += k + length - i
            i = k + length
            continue
        k = i + 1
        if tag & (1 << dt_bits(tag)):
            _, k = varint(body, k)
        if tag >= 0x80 and (tag >> 3) & 15 == 0:
            _, k = varint(body, k)
        parts['ENTER' if tag >= 0x80 else 'EXIT'] += k - i
        events += 1
        i = k
    return events


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit('usage: wire_bytes.py CAPTURE [SECONDS]')
    data = open(sys.argv[1], 'rb').read()
    seconds = float(sys.argv[2]) if len(sys.argv) == 3 else 0.0
    parts = dict.fromkeys(ORDER, 0)
    parts['frame'] = data.count(0)
    events = frames = 0
    for seg in data.split(b'\0'):
        if not seg:
            continue
        body = cobs_decode(seg)
        if body is None or len(body) < 9 or crc16(body[:-2]) != int.from_bytes(body[-2:], 'little'):
            parts['other'] += len(seg)
            continue
        frames += 1
        parts['frame'] += len(seg) - len(body)
        events += split_body(body, parts)
    if events == 0:
        sys.exit('wire_bytes: %s holds no event' % sys.argv[1])
    if sum(parts.values()) != len(data):
        sys.exit('wire_bytes: the parts add up to %d bytes, the capture has %d'
                 % (sum(parts.values()), len(data)))
    shown = ['%.2f B/event, %d frames:' % (len(data) / events, frames)]
    for name in ORDER:
        if parts[name] or name in ('ENTER', 'EXIT', 'frame'):
            rate = ' (%.0f B/s)' % (parts[name] / seconds) if seconds else ''
            shown.append('%s %.2f%s' % (name, parts[name] / events, rate))
    print(' '.join(shown[:1]) + ' ' + ', '.join(shown[1:]))


if __name__ == '__main__':
    main()
