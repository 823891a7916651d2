# Memory (docs/micropython.md, "Memory"): `hog` allocates about 16 KB in each of its slices and
# `still` nothing; each measures what its own code allocated with gc.mem_alloc() around it (with
# the collector off, the heap only grows, so the difference is what was allocated) and prints the
# totals, which mem_check.py holds aioprof-top's figures to. Run with MEM_GC=1 in the environment
# (argv[3] of with_aioprof.py, here the global GC_ON) the collector stays on with a low threshold:
# collections then run inside hog's slices.
import asyncio
import gc
import time

SLICES = 30
measured = {"hog": 0, "still": 0}
seen_drop = [0]
keep = []


async def hog():
    for i in range(SLICES):
        before = gc.mem_alloc()
        for k in range(8):
            b = bytearray(2000)
            b[0] = k
        after = gc.mem_alloc()
        if after >= before:
            measured["hog"] += after - before
        else:
            seen_drop[0] += 1
        await asyncio.sleep_ms(2)


async def still():
    for i in range(SLICES):
        before = gc.mem_alloc()
        t = time.ticks_us()
        while time.ticks_diff(time.ticks_us(), t) < 300:
            pass
        measured["still"] += gc.mem_alloc() - before
        await asyncio.sleep_ms(2)


async def main():
    if GC_ON:
        gc.enable()
        gc.threshold(24000)
    else:
        gc.collect()
        gc.disable()
    await asyncio.gather(hog(), still())
    gc.enable()
    print("mem: hog %d still %d slices %d drops %d gc %d" % (measured["hog"], measured["still"], SLICES,
                                                           seen_drop[0], 1 if GC_ON else 0))
