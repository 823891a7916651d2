# A filesystem in RAM for an emulated board that has none (the qemu port: no block device), so
# that tests/e2e/board_install_qemu.sh can --install to it: a user VFS class (the protocol
# MicroPython's vfs.mount takes: open, ilistdir, stat, statvfs, mkdir, remove, rename, rmdir),
# mounted at /. It lives in the heap: a soft reset takes it away (the test's --run uses --no-reset).
import io, os, vfs
class F(io.IOBase):
    def __init__(s, fs, p, data, w):
        s.fs, s.p, s.d, s.pos, s.w = fs, p, data, 0, w
    def readinto(s, b):
        n = min(len(b), len(s.d) - s.pos)
        b[:n] = s.d[s.pos:s.pos + n]; s.pos += n; return n
    def read(s, n=-1):
        if n < 0: n = len(s.d) - s.pos
        r = bytes(s.d[s.pos:s.pos + n]); s.pos += len(r); return r
    def write(s, b):
        s.d.extend(b); s.pos += len(b); return len(b)
    def ioctl(s, op, arg):
        if op == 4: s.close()
        return 0
    def close(s):
        if s.w: s.fs.f[s.p] = s.d; s.w = False
    def __enter__(s): return s
    def __exit__(s, *a): s.close()
class RamFS:
    def __init__(s, size):
        s.f = {}; s.dirs = {''}; s.size = size
    def mount(s, ro, mk): pass
    def umount(s): pass
    def _p(s, p): return p.strip('/')
    def ilistdir(s, p):
        p = s._p(p); pre = p + '/' if p else ''
        for d in s.dirs:
            if d and d.startswith(pre) and '/' not in d[len(pre):]: yield (d[len(pre):], 0x4000, 0)
        for f in s.f:
            if f.startswith(pre) and '/' not in f[len(pre):]: yield (f[len(pre):], 0x8000, 0)
    def stat(s, p):
        p = s._p(p)
        if p in s.dirs: return (0x4000, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        if p in s.f: return (0x8000, 0, 0, 0, 0, 0, len(s.f[p]), 0, 0, 0)
        raise OSError(2)
    def statvfs(s, p):
        used = sum(len(v) for v in s.f.values())
        b = 512
        return (b, b, s.size // b, (s.size - used) // b, (s.size - used) // b, 0, 0, 0, 0, 255)
    def open(s, p, m):
        p = s._p(p)
        if 'w' in m:
            if p.rsplit('/', 1)[0] not in s.dirs and '/' in p: raise OSError(2)
            return F(s, p, bytearray(), True)
        if p not in s.f: raise OSError(2)
        return F(s, p, s.f[p], False)
    def remove(s, p):
        p = s._p(p)
        if p not in s.f: raise OSError(2)
        del s.f[p]
    def rename(s, a, b):
        a, b = s._p(a), s._p(b)
        if a not in s.f: raise OSError(2)
        s.f[b] = s.f.pop(a)
    def mkdir(s, p):
        p = s._p(p)
        if p in s.dirs or p in s.f: raise OSError(17)
        s.dirs.add(p)
    def rmdir(s, p):
        p = s._p(p)
        if p not in s.dirs or any(f.startswith(p + '/') for f in s.f) or any(d.startswith(p + '/') for d in s.dirs): raise OSError(39)
        s.dirs.discard(p)
    def chdir(s, p): pass
    def getcwd(s): return '/'
vfs.mount(RamFS(256 * 1024), '/')
