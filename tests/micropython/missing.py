# What aioprof says when something it needs is not on the board: a file of the python engine, or
# asyncio itself. Each case copies aioprof's files, less the one it takes away, into a directory
# of its own, puts only that directory on sys.path and imports aioprof afresh; enable() must raise
# an ImportError that names what was taken away.
#
#   micropython missing.py SRC WORK
# SRC: the directory of aioprof.py and the fallback's files; WORK: an empty directory for the
# cases. Prints a line per case and "missing: N of N cases ok"; exits 1 when one fails.
import os
import sys

src, work = sys.argv[1], sys.argv[2]
FILES = ("aioprof.py", "aioprof_fallback.py", "aioprof_frames.py", "aioprof_wrapper.py")

# asyncio is loaded now, from the port's own path (frozen): a case's sys.path has aioprof's
# files only, and aioprof finds asyncio among the loaded modules, as it would on the board
import asyncio
import asyncio.core

saved_path = list(sys.path)


def forget(prefixes):
    gone = {}
    for name in list(sys.modules):
        for p in prefixes:
            if name == p or name.startswith(p + "."):
                gone[name] = sys.modules.pop(name)
                break
    return gone


def place(case, files):
    d = work + "/" + case
    os.mkdir(d)
    for f in files:
        with open(src + "/" + f, "rb") as i, open(d + "/" + f, "wb") as o:
            o.write(i.read())
    return d


def has_builtin(name):
    # a C engine in the firmware itself, found whatever sys.path holds
    sys.path[:] = []
    try:
        __import__(name)
        return True
    except ImportError:
        return False
    finally:
        sys.path[:] = saved_path


def attempt(d, impl):
    # the error enable() raises with only d on the path, or None when it starts an engine
    forget(("aioprof", "aioprof_fallback", "aioprof_frames", "aioprof_wrapper"))
    sys.path[:] = [d]
    try:
        try:
            import aioprof
        except ImportError as e:
            return "import aioprof failed: %s" % e
        try:
            aioprof.enable(impl=impl, drain_task=False, write=lambda b: None, event_cost_ns=0)
        except ImportError as e:
            return str(e)
        aioprof.disable()
        return None
    finally:
        sys.path[:] = saved_path


results = []


def check(case, impl, said, want):
    ok = said is not None and want in said
    results.append(ok)
    print("%s %s (impl=%r): %s" % ("ok  " if ok else "FAIL", case, impl, said if said else "enable() started an engine"))
    if not ok:
        print("  wanted a sentence with %r" % want)


# impl=None falls back to the python engine only where no C engine is built in
impls = ["python"] if has_builtin("_aioprof") else [None, "python"]
for gone in ("aioprof_fallback.py", "aioprof_frames.py", "aioprof_wrapper.py"):
    d = place("no_" + gone[:-3], [f for f in FILES if f != gone])
    for impl in impls:
        check("without " + gone, impl, attempt(d, impl), gone + " is missing")

# a firmware without asyncio: every file of aioprof there, asyncio nowhere on the path
d = place("no_asyncio", FILES)
kept = forget(("asyncio",))
said = attempt(d, "python")
sys.modules.update(kept)
check("without asyncio", "python", said, "has no asyncio")

print("missing: %d of %d cases ok" % (sum(results), len(results)))
if not all(results):
    sys.exit(1)
