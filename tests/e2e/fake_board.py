#!/usr/bin/env python3
"""A board that answers --install's questions with what it is told to be, for
tests/e2e/board_install_errors.sh: makes a pty, points LINK at it, and speaks MicroPython's raw
REPL (the banner on Ctrl-A, raw paste with a window of 64 bytes), running nothing: a command
that asks what the board is (the probe) gets the answer of the board KIND plays, any other an
empty output.

Usage: fake_board.py LINK KIND
  KIND: old         MicroPython 1.20.0 (older than aioprof needs)
        circuit     CircuitPython 9.0.0
        garbled     an answer with no sys.implementation in it
        mute        never answers (not a MicroPython REPL)"""
import os
import select
import sys
import termios
import tty

ANSWERS = {
    "old": b"I micropython 1.20.0 6918 rp2 sha256\r\nS 1048576 1048576\r\nD /lib\r\n",
    "circuit": b"I circuitpython 9.0.0 6918 rp2 sha256\r\nS 1048576 1048576\r\nD /lib\r\n",
    "garbled": b"hello\r\n",
}


def main():
    link, kind = sys.argv[1], sys.argv[2]
    master, slave = os.openpty()
    tty.setraw(slave, termios.TCSANOW)
    os.symlink(os.ttyname(slave), link + ".new")
    os.replace(link + ".new", link)
    buf = b""
    pasting = False
    code = b""
    while True:
        select.select([master], [], [])
        try:
            data = os.read(master, 4096)
        except OSError:
            return
        if kind == "mute":
            continue
        for c in data:
            b = bytes([c])
            if pasting:
                if b == b"\x04":
                    pasting = False
                    out = ANSWERS[kind] if b"_aioprof_probe(" in code else b""
                    os.write(master, b"\x04" + out + b"\x04\x04>")
                    code = b""
                else:
                    code += b
                    if len(code) % 64 == 0:
                        os.write(master, b"\x01")
                continue
            buf = (buf + b)[-3:]
            if b == b"\x01" and not buf.endswith(b"\x05A\x01"):
                os.write(master, b"raw REPL; CTRL-B to exit\r\n>")
            elif buf.endswith(b"\x05A\x01"):
                os.write(master, b"R\x01\x40\x00")
                pasting = True


main()
