#!/usr/bin/env python3
"""Plays a capture into a new pty at a fixed byte rate, like a device streaming at that rate.

Used by tests/bench/run.sh to measure aioprof-top's CPU at 1 MB/s, a rate the simulator's
workloads do not produce in real time. The bytes are real frames (a simulator capture); only the
pace is the pacer's. Writes block when the reader falls behind, so the rate reached is the
reader's: it is printed on stderr at the end.

Usage: pty_pacer.py CAPTURE BYTES_PER_SECOND SECONDS LINK_FILE
(the pty's path is written to LINK_FILE once it exists)
"""
import os
import sys
import time
import tty


def main():
    if len(sys.argv) != 5:
        sys.stderr.write(__doc__)
        return 2
    capture, rate, seconds, link = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    master, slave = os.openpty()
    # Raw, so the line discipline neither echoes nor rewrites bytes before the reader sets it up.
    tty.setraw(slave)
    with open(link + ".tmp", "w") as f:
        f.write(os.ttyname(slave) + "\n")
    os.rename(link + ".tmp", link)

    # Non-blocking, so that a reader that stops reading cannot keep the pacer past its time.
    os.set_blocking(master, False)
    sent = 0
    pending = b""
    tick = 0.005
    start = time.monotonic()
    with open(capture, "rb") as src:
        while True:
            elapsed = time.monotonic() - start
            if elapsed >= seconds:
                break
            due = int(rate * elapsed) - sent - len(pending)
            if due > 0:
                chunk = src.read(due)
                if not chunk:
                    src.seek(0)
                    continue
                pending += chunk
            while pending:
                try:
                    n = os.write(master, pending)
                except BlockingIOError:
                    break
                pending = pending[n:]
                sent += n
            time.sleep(tick)
    took = time.monotonic() - start
    sys.stderr.write("pty_pacer: %d bytes in %.2f s: %.3f MB/s\n" % (sent, took, sent / took / 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main())
