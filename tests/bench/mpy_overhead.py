# What the aioprof hook costs per asyncio task switch in MicroPython (the unix port, or a board):
# many tasks switching as fast as they can, without the hook and with each engine, rounds
# interleaved so that every engine sees the same machine state; medians of the rounds, and each
# engine's ratio to the no-hook baseline of the same run.
#
#   micropython mpy_overhead.py [TASKS [SWITCHES [ROUNDS]]] > /dev/null
# The frames go to stdout, as on a board (send them to /dev/null, or to a file for aioprof-top);
# the table goes to stderr. Engines that can not be loaded are left out. Needs aioprof.py (and
# aioprof_fallback.py, _aioprof_native.mpy) on sys.path, e.g. through MICROPYPATH.
import sys
import time
import asyncio
import aioprof

TASKS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
SWITCHES = int(sys.argv[2]) if len(sys.argv) > 2 else 2000  # per task
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 7


async def spinner(n):
    for _ in range(n):
        await asyncio.sleep_ms(0)


async def main():
    await asyncio.gather(*[spinner(SWITCHES) for _ in range(TASKS)])


def one_run(engine):
    if engine != "none":
        aioprof.enable(impl=engine, drain_task=False)
    t0 = time.ticks_us()
    asyncio.run(main())
    dt = time.ticks_diff(time.ticks_us(), t0)
    if engine != "none":
        aioprof.disable()
    # every spinner resumes SWITCHES + 1 times
    return dt * 1000 / (TASKS * (SWITCHES + 1))


def available(engine):
    if engine == "none":
        return True
    try:
        aioprof._select(engine)
        return True
    except ImportError:
        return False


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def report(line):
    sys.stderr.write(line + "\n")


engines = [e for e in ("none", "firmware", "native", "python") if available(e)]
runs = {e: [] for e in engines}
one_run("none")  # warm up: imports, first allocations
for r in range(ROUNDS):
    for e in engines:
        runs[e].append(one_run(e))
base = median(runs["none"])
report("mpy_overhead: %d tasks x %d switches, %d rounds, %s" % (TASKS, SWITCHES, ROUNDS, sys.implementation))
# the minimum too: on a shared machine it is the run least disturbed by others
best = min(runs["none"])
report("%-9s %10s %8s %10s %8s  %s" % ("engine", "median ns", "vs none", "min ns", "vs none", "rounds (ns/switch)"))
for e in engines:
    m = median(runs[e])
    b = min(runs[e])
    report(
        "%-9s %10.0f %7.1f%% %10.0f %7.1f%%  %s"
        % (e, m, (m / base - 1) * 100, b, (b / best - 1) * 100, " ".join("%.0f" % x for x in runs[e]))
    )
