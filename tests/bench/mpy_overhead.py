# What the aioprof hook costs per asyncio task switch in MicroPython (the unix port, or a board):
# many tasks switching as fast as they can (each awaits asyncio.sleep_ms(0) in a loop), without the
# hook and with each engine. Run by tests/bench/part_mpy.bash (make bench); by hand:
#
#   micropython mpy_overhead.py time TASKS SWITCHES ROUNDS [CAPTURE_DIR [ENGINE...]]
#       rounds interleaved over the engines named (default: all this firmware can load) and none,
#       which runs first in each round, so
#       that every engine sees the same machine state; prints per engine the median and best
#       nanoseconds per switch over the rounds and the ratio to none's. With CAPTURE_DIR, one more
#       run per engine writes its frames to CAPTURE_DIR/ENGINE.aiop (for aioprof-top: what the
#       device says the hook costs) and prints its own nanoseconds per switch.
#   micropython mpy_overhead.py capture ENGINE TASKS SWITCHES FILE
#       one run of ENGINE writing its frames to FILE (what the device says the hook costs)
#   micropython mpy_overhead.py one ENGINE TASKS SWITCHES
#       one run of one engine (or "none"), for callgrind: the difference between two SWITCHES
#       counts is the cost of the switches alone. Two more for the firmware engine as a user has
#       it (issue 26): "bare", no hook and aioprof never imported (the import's own cost is the
#       difference to "none"), and "firmware-user", the firmware engine with enable()'s defaults
#       (the drain task too). And "firmware-nomem": the firmware engine with memory off
#       (enable(memory=False): tracking compiled in, not used; docs/micropython.md, "Memory").
#
# The timed runs write their frames to /dev/null. Needs aioprof.py (and aioprof_fallback.py,
# aioprof_frames.py, aioprof_wrapper.py, _aioprof_native.mpy) on sys.path, e.g. through MICROPYPATH.
import sys
import time
import asyncio

# "bare" must not have imported aioprof: its names are what it measures the absence of
if sys.argv[2:3] != ["bare"]:
    import aioprof

ENGINES = ("none", "firmware", "native", "python")
ONE_ONLY = ("bare", "firmware-user", "firmware-nomem")  # for callgrind's runs, not timed


async def spinner(n):
    for _ in range(n):
        await asyncio.sleep_ms(0)


def run(engine, tasks, switches, out):
    """One run: ns per switch (every spinner resumes switches + 1 times)."""

    async def main():
        await asyncio.gather(*[spinner(switches) for _ in range(tasks)])

    if engine == "firmware-user":
        aioprof.enable(impl="firmware", write=out.write)
    elif engine == "firmware-nomem":
        aioprof.enable(impl="firmware", drain_task=False, write=out.write, memory=False)
    elif engine not in ("none", "bare"):
        aioprof.enable(impl=engine, drain_task=False, write=out.write)
    t0 = time.ticks_us()
    asyncio.run(main())
    dt = time.ticks_diff(time.ticks_us(), t0)
    if engine not in ("none", "bare"):
        aioprof.disable()
    return dt * 1000 / (tasks * (switches + 1))


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


def timed(tasks, switches, rounds, capture_dir, wanted):
    engines = [e for e in ENGINES if available(e) and (e == "none" or not wanted or e in wanted)]
    null = open("/dev/null", "wb")
    runs = {e: [] for e in engines}
    run("none", tasks, switches, null)  # warm up: imports, first allocations
    for _ in range(rounds):
        for e in engines:
            runs[e].append(run(e, tasks, switches, null))
    print("mpy_overhead: %d tasks x %d switches, %d rounds, %s" % (tasks, switches, rounds, sys.platform))
    for e in engines:
        # the median of the rounds' own ratios to none (each round's none ran just before)
        ratio = median([x / n for x, n in zip(runs[e], runs["none"])])
        print("engine %s median_ns %.1f best_ns %.1f vs_none %.4f rounds %s" % (
            e, median(runs[e]), min(runs[e]), ratio - 1, " ".join("%.0f" % x for x in runs[e])))
    if capture_dir:
        for e in engines:
            if e == "none":
                continue
            path = "%s/%s.aiop" % (capture_dir, e)
            with open(path, "wb") as f:
                ns = run(e, tasks, switches, f)
            print("capture %s %s ns %.1f" % (e, path, ns))


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "time" and len(sys.argv) >= 5:
        timed(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] if len(sys.argv) > 5 else None,
              sys.argv[6:])
    elif mode == "capture" and len(sys.argv) == 6 and sys.argv[2] in ENGINES[1:]:
        with open(sys.argv[5], "wb") as f:
            run(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), f)
    elif mode == "one" and len(sys.argv) == 5 and sys.argv[2] in ENGINES + ONE_ONLY:
        run(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), open("/dev/null", "wb"))
    else:
        sys.stderr.write("usage: mpy_overhead.py time TASKS SWITCHES ROUNDS [CAPTURE_DIR [ENGINE...]] | "
                         "capture ENGINE TASKS SWITCHES FILE | one ENGINE TASKS SWITCHES\n")
        sys.exit(2)


main()
