# aioprof.span in a MicroPython program (tests/e2e/mpy_spans_unix.sh): every form of the API (with,
# nested with, a decorated function, a decorated coroutine across awaits, a with span a task raises
# in), and what the program measures of each span itself, on the clock the hook reads
# (time.ticks_us): inside its body (a lower bound of its inclusive time) and around it (an upper
# bound), printed as one JSON line on stderr for spans_check.py; the capture goes to stdout.
#   micropython spans_prog.py ENGINE      (firmware, native, python)
import sys
import time

import aioprof

aioprof.enable(impl=sys.argv[1])
if not aioprof.spans():
    aioprof.disable()
    sys.stderr.write("NO SPANS: this %s engine was built before spans\n" % sys.argv[1])
    sys.exit(0)
import asyncio  # noqa: E402

ticks, diff = time.ticks_us, time.ticks_diff
low = {}   # span name -> the sum of what its bodies measured
high = {}  # span name -> the sum of what was measured around them
runs = {}  # span name -> how many ran


def add(table, name, us):
    table[name] = table.get(name, 0) + us


def busy_us(us):
    t0 = ticks()
    while diff(ticks(), t0) < us:
        pass


@aioprof.span("parse")
def parse():
    t0 = ticks()
    busy_us(1000)
    add(low, "parse", diff(ticks(), t0))


@aioprof.span("fetch")
async def fetch():
    # 2 ms of its own, around an await of 10 ms
    t0 = ticks()
    busy_us(1000)
    add(low, "fetch", diff(ticks(), t0))
    await asyncio.sleep_ms(10)
    t0 = ticks()
    busy_us(1000)
    add(low, "fetch", diff(ticks(), t0))
    return 5


async def worker():
    for _ in range(6):
        a = ticks()
        with aioprof.span("outer"):
            t0 = ticks()
            busy_us(500)
            b = ticks()
            with aioprof.span("inner"):
                t1 = ticks()
                busy_us(2000)
                add(low, "inner", diff(ticks(), t1))
            add(high, "inner", diff(ticks(), b))
            add(low, "outer", diff(ticks(), t0))
        add(high, "outer", diff(ticks(), a))
        a = ticks()
        parse()
        add(high, "parse", diff(ticks(), a))
        runs["outer"] = runs.get("outer", 0) + 1
        runs["inner"] = runs.get("inner", 0) + 1
        runs["parse"] = runs.get("parse", 0) + 1
        await asyncio.sleep_ms(3)


async def fetcher():
    for _ in range(4):
        # the upper bound of its own time: the wall around it (its awaits included)
        a = ticks()
        assert await fetch() == 5
        add(high, "fetch", diff(ticks(), a))
        runs["fetch"] = runs.get("fetch", 0) + 1
        await asyncio.sleep_ms(2)


async def hog():
    # a task that raises inside a with span: the span closes normally (its __exit__ runs)
    a = ticks()
    try:
        with aioprof.span("doomed"):
            t0 = ticks()
            busy_us(800)
            add(low, "doomed", diff(ticks(), t0))
            raise ValueError("on purpose")
    finally:
        add(high, "doomed", diff(ticks(), a))
        runs["doomed"] = 1


async def main():
    h = asyncio.create_task(hog())
    await asyncio.gather(asyncio.create_task(worker()), asyncio.create_task(fetcher()))
    try:
        await h
    except ValueError:
        pass


asyncio.run(main())
aioprof.disable()
sys.stderr.write("{%s}\n" % ", ".join('"%s": [%d, %d, %d]' % (k, runs[k], low[k], high[k]) for k in runs))
