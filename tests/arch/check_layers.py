#!/usr/bin/env python3
"""The host's architecture, checked (docs/architecture.md): the stages' folders and the one way
their dependencies go.

  check_layers.py SRC BUILD

1. Includes: every #include "x.h" in host/ names a header of the file's own stage, of a stage
   below it, or of proto/ and device/; no header includes itself back through others.
2. Calls: from the compiled objects (nm), which file calls which: no two files of the host call
   each other, and no chain of calls comes back to where it started.
Prints every breach, one line each, and exits 1 when there is one."""
import collections
import glob
import os
import re
import subprocess
import sys

SRC, BUILD = sys.argv[1], sys.argv[2]
HOST = os.path.join(SRC, "host")

# What each stage may include and call, besides itself: the stages below it.
BELOW = {
    "base": set(),
    "input": {"base"},
    "stats": {"base"},
    "timeline": {"stats", "base"},
    "views": {"timeline", "stats", "base"},
    "session": {"views", "timeline", "stats", "input", "base"},
}

problems = []


def stage_of(path):
    rel = os.path.relpath(path, HOST).split(os.sep)
    if len(rel) == 1:
        return "session"
    return rel[0]


def host_files():
    out = []
    for path in glob.glob(os.path.join(HOST, "**", "*.[ch]"), recursive=True):
        out.append(path)
    return sorted(out)


files = host_files()
for stage in sorted({stage_of(p) for p in files} - set(BELOW)):
    problems.append(f"host/{stage}/ is no stage of docs/architecture.md (its files are taken as the session's)")
    BELOW[stage] = BELOW["session"] | {"session"}
by_name = collections.defaultdict(list)
for path in files:
    by_name[os.path.basename(path)].append(path)
for name, paths in by_name.items():
    if len(paths) > 1:
        problems.append(f"two host files are named {name}: {', '.join(os.path.relpath(p, SRC) for p in paths)}")
outside = set()
for d in ("proto", "device"):
    for path in glob.glob(os.path.join(SRC, d, "**", "*.h"), recursive=True):
        outside.add(os.path.basename(path))
for stage in BELOW:
    if stage != "session" and not os.path.isdir(os.path.join(HOST, stage)):
        problems.append(f"host/{stage}/ is missing")

# ---- includes ----
includes = {}
for path in files:
    text = open(path, encoding="utf-8").read()
    own = stage_of(path)
    includes[path] = []
    for name in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
        base = os.path.basename(name)
        if base in by_name:
            target = by_name[base][0]
            theirs = stage_of(target)
            if theirs != own and theirs not in BELOW[own]:
                problems.append(f"{os.path.relpath(path, SRC)} ({own}) includes {name} of {theirs}, "
                                f"a stage it must not know")
            includes[path].append(target)
        elif base not in outside:
            problems.append(f"{os.path.relpath(path, SRC)} includes {name}, found in neither host/, proto/ "
                            f"nor device/")


def cycles(graph, what):
    """Every edge a -> b where b reaches a again (reported once per pair of ends)."""
    seen = set()
    for a in sorted(graph):
        for b in sorted(graph[a]):
            # does b reach a?
            stack, visited, parent = [b], {b}, {b: None}
            found = False
            while stack and not found:
                x = stack.pop()
                for y in graph.get(x, ()):
                    if y == a:
                        parent[a] = x
                        found = True
                        break
                    if y not in visited:
                        visited.add(y)
                        parent[y] = x
                        stack.append(y)
            if found:
                path, x = [a], parent[a]
                while x is not None:
                    path.append(x)
                    x = parent.get(x)
                path = [a] + list(reversed(path[1:]))  # a -> b ... -> a
                key = frozenset(path)
                if key not in seen:
                    seen.add(key)
                    names = " -> ".join(os.path.relpath(p, SRC) for p in path + [a])
                    problems.append(f"{what} go round: {names}")


cycles({k: set(v) - {k} for k, v in includes.items()}, "includes")

# ---- calls, from the objects the build made ----
objects = glob.glob(os.path.join(BUILD, "host", "CMakeFiles", "aioprof_host_*.dir", "**", "*.o"), recursive=True)
if not objects:
    problems.append(f"no objects of the host's stages under {BUILD}/host: build first")
defined, undefined = {}, {}
for obj in objects:
    # host/CMakeFiles/aioprof_host_x.dir/<path in host>.c.o
    rel = obj.split(".dir" + os.sep, 1)[1][:-2]  # strip ".o"
    src = os.path.normpath(os.path.join(HOST, rel))
    out = subprocess.run(["nm", "--defined-only", "-g", obj], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBR":
            defined[parts[2]] = src
    out = subprocess.run(["nm", "-u", obj], capture_output=True, text=True, check=True).stdout
    undefined[src] = {line.split()[-1] for line in out.splitlines() if line.strip()}
calls = {src: {defined[sym] for sym in syms if sym in defined and defined[sym] != src}
         for src, syms in undefined.items()}
for src, targets in calls.items():
    own = stage_of(src)
    for t in targets:
        theirs = stage_of(t)
        if theirs != own and theirs not in BELOW[own]:
            problems.append(f"{os.path.relpath(src, SRC)} ({own}) calls into {os.path.relpath(t, SRC)} "
                            f"({theirs}), a stage it must not know")
cycles(calls, "calls")

for p in problems:
    print("FAIL: " + p)
n_inc = sum(len(v) for v in includes.values())
n_calls = sum(len(v) for v in calls.values())
print(f"{len(files)} host files, {n_inc} includes, {len(objects)} objects, {n_calls} file-to-file calls: "
      f"{len(problems)} problems")
sys.exit(1 if problems else 0)
