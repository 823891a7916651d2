#!/usr/bin/env python3
"""Where a capture's bytes go: the wire bytes of each record kind, per ENTER/EXIT event.

Usage: wire_bytes.py CAPTURE [SECONDS]

Reads a raw stream as the simulator writes it (-o FILE) and splits every byte into: the events
(ENTER, EXIT), the control records (LATE, TASK_NEW, TASK_INFO, HELLO, DROPPED, and spans: the list
SPANS, or SPAN_ENTER and SPAN_EXIT, and SPAN_NAME), the frames' own cost
(header, CRC, COBS code byte, the 0x00 delimiters) and anything else (device text, damage).
With SECONDS, each part is also given in bytes per second of device time. Run by `make bench`;
docs/protocol.md, "Size", quotes it.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'e2e'))
from wire import frame_body, records, varint  # noqa: E402

CONTROL = {0: 'HELLO', 1: 'TASK_NEW', 2: 'TASK_INFO', 3: 'DROPPED', 4: 'LATE', 5: 'SPAN_ENTER', 6: 'SPAN_EXIT',
           7: 'ALLOC', 8: 'SPAN_NAME', 9: 'SPANS', 10: 'GC'}
ORDER = ['ENTER', 'EXIT', 'LATE', 'TASK_NEW', 'TASK_INFO', 'HELLO', 'DROPPED', 'SPANS', 'SPAN_ENTER', 'SPAN_EXIT',
         'SPAN_NAME', 'ALLOC', 'GC', 'control?', 'frame', 'other']


def split_body(body, parts):
    """Adds the bytes of one frame body to parts; returns its number of events."""
    _, header_end = varint(body, 6)
    parts['frame'] += header_end + 2  # seq, format, base, running; the CRC
    events = 0
    for tag, start, end, _, _, payload in records(body):
        if payload is not None:
            kind = CONTROL.get(tag & 15, 'control?')
        else:
            kind = 'ENTER' if tag >= 0x80 else 'EXIT'
            events += 1
        parts[kind] += end - start
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
        body = frame_body(seg)
        if body is None:
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
