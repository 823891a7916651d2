#!/usr/bin/env python3
"""The mip packages as a user installs them: mpremote (MicroPython's own client) connected to an
emulated board's UART installs device/micropython/package-<arch>-<version>.json from the files on
disk into /lib of a writable file system in RAM (the qemu port has none), then on the board each
installed file's sha256 must be the repository's, and importing aioprof from there must give the
native engine.

usage: mip_install.py PTY MPREMOTE ARCH VERSION
  MPREMOTE  a command that runs mpremote (e.g. "python3 .../tools/mpremote/mpremote.py")
Exits 0 when it holds, 1 otherwise."""
import hashlib
import json
import os
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BOARD_FILES = os.path.normpath(os.path.join(HERE, "..", "..", "device", "micropython"))

# A writable file system in RAM, enough for mpremote's mip (stat, mkdir, open for writing) and
# for imports (open for reading, through readinto).
RAM_FS = """
import io, sys, vfs
class _RamRead(io.IOBase):
    def __init__(self, data):
        self.data = memoryview(data)  # slices without copies: the heap is small
        self.off = 0
    def readinto(self, buf):
        n = min(len(buf), len(self.data) - self.off)
        buf[:n] = self.data[self.off:self.off + n]
        self.off += n
        return n
    def read(self, n=-1):
        end = len(self.data) if n < 0 else min(len(self.data), self.off + n)
        out = bytes(self.data[self.off:end])
        self.off = end
        return out
    def ioctl(self, req, arg):
        return 0
    def close(self):
        pass
class _RamWrite:
    def __init__(self, fs, path):
        self.fs, self.path, self.buf = fs, path, bytearray()
    def write(self, b):
        self.buf.extend(b)
        return len(b)
    def close(self):
        self.fs.files[self.path] = self.buf
    def __enter__(self):
        return self
    def __exit__(self, *a):
        self.close()
class _RamFS:
    def __init__(self):
        self.files, self.dirs = {}, {""}
    def mount(self, readonly, mkfs):
        pass
    def umount(self):
        pass
    def stat(self, path):
        path = path.strip("/")
        if path in self.dirs:
            return (0x4000, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        if path in self.files:
            return (0x8000, 0, 0, 0, 0, 0, len(self.files[path]), 0, 0, 0)
        raise OSError(2)
    def mkdir(self, path):
        self.dirs.add(path.strip("/"))
    def open(self, path, mode):
        path = path.strip("/")
        if "w" in mode:
            return _RamWrite(self, path)
        if path not in self.files:
            raise OSError(2)
        return _RamRead(self.files[path])
vfs.mount(_RamFS(), "/ram")
"""

CHECK = """
import sys, hashlib, binascii
for name in %(names)r:
    h = hashlib.sha256()
    f = open("/ram/lib/" + name, "rb")
    while True:
        chunk = f.read(512)
        if not chunk:
            break
        h.update(chunk)
    f.close()
    print("sha256", name, binascii.hexlify(h.digest()).decode())
sys.path.insert(0, "/ram/lib")
import aioprof
aioprof.enable(impl="native", write=lambda b: len(b))  # frames away from mpremote's text
print("engine", aioprof.engine(), aioprof.__file__)
aioprof.disable()
"""


def main():
    pty, mpremote, arch, version = sys.argv[1:5]
    package = os.path.join(BOARD_FILES, "package-%s-%s.json" % (arch, version))
    with open(package) as f:
        urls = json.load(f)["urls"]
    names = [dest for dest, _src in urls]
    cmd = shlex.split(mpremote) + ["connect", pty, "resume", "exec", RAM_FS,
                                   "mip", "install", "--target", "/ram/lib", package, "+",
                                   "exec", CHECK % {"names": names}]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, errors="replace",
                         timeout=1200)  # a failure bound: 256 bytes a command
    print(out.stdout, end="")
    failures = []
    if out.returncode != 0:
        failures.append("mpremote exited with %d" % out.returncode)
    got = {}
    for line in out.stdout.splitlines():
        words = line.split()
        if len(words) == 3 and words[0] == "sha256":
            got[words[1]] = words[2]
    for dest, src in urls:
        with open(os.path.join(BOARD_FILES, src), "rb") as f:
            want = hashlib.sha256(f.read()).hexdigest()
        if got.get(dest) != want:
            failures.append("/ram/lib/%s on the board is not %s (sha256 %s, want %s)" % (dest, src, got.get(dest), want))
    if "engine native /ram/lib/aioprof.py" not in out.stdout:
        failures.append("aioprof from /ram/lib did not load the native engine")
    for f in failures:
        print("FAIL " + f)
    print("mip_install: %s: %s %d files" % ("FAIL" if failures else "ok", os.path.basename(package), len(urls)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
