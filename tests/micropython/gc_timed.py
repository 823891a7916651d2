# Collections timed (docs/micropython.md, "Collections timed"): run as `micropython gc_timed.py`
# (it enables aioprof itself, the firmware engine), frames on stdout, its own counts on stderr.
# `inside`, a profiled task, runs a few collections in its slices; `outside`, created before
# enable() and so not profiled, runs many while no profiled task does; `waiter`, due every
# millisecond, is made late by both. Each collection is timed here too (ticks_us around
# gc.collect()), which gc_check.py holds aioprof-top's figures to: a firmware linked with
# --wrap=gc_collect times them inside this window, one without does not time them at all.
import asyncio
import gc
import sys
import time

import aioprof

keep = [[i] for i in range(10000)]  # live objects: every collection marks them (a few hundred us)
own = {"inside": [0, 0], "outside": [0, 0]}  # collections run by each, and their microseconds
done = [False]


def timed_collect(who):
    t = time.ticks_us()
    gc.collect()
    d = time.ticks_diff(time.ticks_us(), t)
    own[who][0] += 1
    own[who][1] += d


async def outside():
    while not done[0]:
        timed_collect("outside")
        await asyncio.sleep_ms(2)


async def inside():
    for _ in range(3):
        await asyncio.sleep_ms(15)
        timed_collect("inside")


async def waiter():
    for _ in range(60):
        await asyncio.sleep_ms(1)


async def main():
    await asyncio.gather(inside(), waiter())
    done[0] = True  # outside's next turn ends it: its collections all ran while main did


async def boot():
    out = asyncio.create_task(outside())  # before enable(): not profiled
    aioprof.enable(impl="firmware")
    await asyncio.create_task(main())  # profiled: inside and waiter are its children
    await out
    aioprof.disable()


gc.disable()  # no automatic collection: only the ones above run (gc.collect() still does)
asyncio.run(boot())
gc.enable()
sys.stderr.write("gc: inside %d %d outside %d %d\n" % (own["inside"][0], own["inside"][1], own["outside"][0],
                                                       own["outside"][1]))
