# What a span pair (`with aioprof.span("x"): pass`) costs inside a task, per engine, on
# MicroPython (tests/bench/part_mpy.bash; issue 24's goal: under 2 us in the python engine on the
# unix port). Inside one task, rounds of N span pairs (in slices of 100, the frames drained between
# them as a program's are) and N passes of the same loop without the span, interleaved; the median
# over the rounds of (span loop - bare loop) / N, and the best, in nanoseconds. The frames go
# nowhere.
#
#   micropython mpy_span_cost.py ENGINE [N [ROUNDS]]      ENGINE: firmware, native, python
#   micropython mpy_span_cost.py one ENGINE N WHAT
#       for callgrind: N pairs of WHAT ("span", or "null": the same with statement on a context
#       manager that does nothing), in the same slices; the difference between two N is the cost
#       of those pairs alone
import sys
import time

import aioprof

one = sys.argv[1] == "one"
args = sys.argv[2:] if one else sys.argv[1:]
engine = args[0]
n = int(args[1]) if len(args) > 1 else 20000
rounds = int(args[2]) if len(args) > 2 and not one else 9
aioprof.enable(impl=engine, write=lambda b: len(b), drain_task=False, event_cost_ns=0)
import asyncio  # noqa: E402

result = []


def bare(k):
    t0 = time.ticks_us()
    for _ in range(k):
        pass
    return time.ticks_diff(time.ticks_us(), t0)


def spans(k, sp):
    t0 = time.ticks_us()
    for _ in range(k):
        with sp:
            pass
    return time.ticks_diff(time.ticks_us(), t0)


SLICE = 100


class Null:
    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        return False


async def one_run(what):
    # slices of 10 pairs: under callgrind's slowness a span's dt stays under the 16 ms that its
    # common case takes (two bytes), as it does at full speed in slices of 100
    sp = aioprof.span("x") if what == "span" else Null()
    for _ in range(n // 10):
        spans(10, sp)
        await asyncio.sleep_ms(0)


async def main():
    sp = aioprof.span("x")
    per = []
    for _ in range(rounds):
        b = s = 0
        for _ in range(n // SLICE):
            b += bare(SLICE)
            s += spans(SLICE, sp)
            await asyncio.sleep_ms(0)  # the frames drain between slices
        per.append((s - b) * 1000 // (n // SLICE * SLICE))
    per.sort()
    result.append((per[len(per) // 2], per[0]))


if one:
    asyncio.run(one_run(args[2]))
    aioprof.disable()
    sys.exit(0)
asyncio.run(main())
ok = aioprof.spans()
aioprof.disable()
med, best = result[0]
print("%s: %s ns per span pair (median of %d rounds of %d; best %d)" % (engine, med if ok else "no spans", rounds,
                                                                        n, best))
