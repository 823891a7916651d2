#!/usr/bin/env python3
"""The host end of the emulated board's UART, for tests/e2e/qemu_*.sh: connects to QEMU's
unix-socket chardev (server=on,wait=on holds the guest until we are here), sends the go byte,
records every byte into a raw capture, and once the firmware says "demo: done" sends the
acknowledgement that lets it exit. Reads on until QEMU closes the socket.

Usage: qemu_capture.py SOCKET CAPTURE GO_BYTE [TIMEOUT_S]
Exits 0 when the firmware finished ("demo: done" seen and the socket closed), 1 otherwise."""
import os
import socket
import sys
import time

DONE = b"demo: done"


def main():
    path, capture, go = sys.argv[1], sys.argv[2], sys.argv[3].encode()
    timeout = float(sys.argv[4]) if len(sys.argv) > 4 else 30.0
    deadline = time.monotonic() + timeout
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    while True:
        try:
            sock.connect(path)
            break
        except OSError:
            if time.monotonic() > deadline:
                print(f"qemu_capture: QEMU never opened {path}", file=sys.stderr)
                return 1
            time.sleep(0.05)
    sock.sendall(go)
    data = bytearray()
    acked = False
    with open(capture, "wb") as out:
        while time.monotonic() < deadline:
            sock.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                chunk = sock.recv(65536)
            except socket.timeout:
                break
            except OSError:
                chunk = b""
            if not chunk:
                break
            out.write(chunk)
            data += chunk
            # the done line ends with "\n\0": everything the firmware had to say is here
            if not acked and DONE in data and data.endswith(b"\n\0"):
                sock.sendall(b"a")
                acked = True
    if not acked:
        print(f"qemu_capture: no '{DONE.decode()}' line within {timeout:.0f} s "
              f"({len(data)} bytes read)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
