#!/usr/bin/env python3
"""A recording (docs/recording.md) made from a raw capture without a session in real time: each
frame of the capture is one DATA chunk, the chunks STEP microseconds apart from time 0, then an END
chunk at the last chunk's time. Replays then have known times: chunk k is at k * STEP.

  frame_recording.py RAW OUT [--step-us STEP] [--chunks N]

--chunks N keeps only the first N chunks (the figures a replay must show at time (N - 1) * STEP).
Prints the number of chunks written.
"""
import argparse
import json
import struct


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def main():
    p = argparse.ArgumentParser()
    p.add_argument('raw')
    p.add_argument('out')
    p.add_argument('--step-us', type=int, default=1000000)
    p.add_argument('--chunks', type=int, default=0)
    a = p.parse_args()
    frames = [s + b'\x00' for s in open(a.raw, 'rb').read().split(b'\x00') if s]
    if a.chunks > 0:
        frames = frames[:a.chunks]
    meta = json.dumps({'format': 'aioprof recording', 'tool': 'frame_recording.py', 'source': a.raw,
                       'time_unit': 'us'}).encode()
    out = bytearray(b'\x89AIOPREC' + struct.pack('<HI', 1, len(meta)) + meta)
    for k, frame in enumerate(frames):
        out += bytes([1]) + varint(k * a.step_us) + varint(len(frame)) + frame
    out += bytes([4]) + varint(max(len(frames) - 1, 0) * a.step_us) + varint(0)
    open(a.out, 'wb').write(out)
    print(len(frames))


if __name__ == '__main__':
    main()
