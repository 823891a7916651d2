#!/usr/bin/env python3
"""A board on a serial port, for tests/e2e/io_*.sh: makes a pty, points LINK at its slave side,
writes FILE's bytes into it and then holds it open, like a board that went quiet.

Usage: pty_feed.py LINK FILE

- LINK appears once the pty is ready (a symlink renamed into place: never half made).
- LINK.drained appears once readers have taken every byte of FILE from the pty, so a test can
  wait for that instead of guessing how long reading takes on a loaded machine.
- SIGTERM unplugs the board: LINK goes first, then the pty closes. In that order the path never
  points at a closed pty, whose number the kernel may already have given to another program's pty
  (a reconnecting aioprof-top would then open that one)."""
import fcntl
import os
import select
import signal
import struct
import sys
import termios
import time
import tty


def queued(fd):
    """Bytes waiting in the pty for a reader. select() first: when the line discipline's buffer
    looks empty it pushes what is still in the kernel's flip buffer into it."""
    readable = select.select([fd], [], [], 0)[0]
    waiting = struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]
    return waiting or (1 if readable else 0)


def main():
    link, path = sys.argv[1], sys.argv[2]
    marker = link + ".drained"

    def unplug(signum, frame):
        for p in (link, marker):
            try:
                os.unlink(p)
            except FileNotFoundError:
                pass
        os._exit(0)

    signal.signal(signal.SIGTERM, unplug)
    master, slave = os.openpty()
    # we hold the slave open too, as a driver would: the pty lives until we close it
    tty.setraw(slave, termios.TCSANOW)
    os.symlink(os.ttyname(slave), link + ".new")
    os.replace(link + ".new", link)

    data = open(path, "rb").read()
    view = memoryview(data)
    while view:
        view = view[os.write(master, view):]
    # drained: nothing waiting on three checks in a row
    quiet = 0
    while quiet < 3:
        quiet = quiet + 1 if queued(slave) == 0 else 0
        time.sleep(0.05)
    with open(marker + ".new", "w"):
        pass
    os.replace(marker + ".new", marker)
    while True:
        signal.pause()


if __name__ == "__main__":
    main()
