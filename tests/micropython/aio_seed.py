# The original aioprof example: a task that blocks 80 ms per slice and one that blocks 1 ms.
# quicker's 2 ms sleeps end while slow blocks: it comes back late by about 80 ms, kept waiting by
# slow (truth.due() says when each resume is due). sensors runs three spans a slice (docs/usage.md,
# "Spans"): read and parse are short, render is the hog (30 ms, over the slow threshold); parse
# allocates 1000 bytes, the others nothing ("Memory per span").
import asyncio
import time
import truth

try:
    from aioprof import span
except ImportError:
    # no aioprof.py here, or one from before spans: the same program, its spans left out
    class span:
        def __init__(self, name):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False


async def slow():
    truth.born("slow")
    for i in range(12):
        truth.begin("slow")
        time.sleep_ms(80)
        truth.end("slow", "slow")
        truth.due("slow", 10)
        await asyncio.sleep_ms(10)
    truth.begin("slow")
    truth.end("slow", "slow")


async def quicker():
    truth.born("quicker")
    for i in range(150):
        truth.begin("quicker")
        time.sleep_ms(1)
        truth.end("quicker", "quicker")
        truth.due("quicker", 2)
        await asyncio.sleep_ms(2)
    truth.begin("quicker")
    truth.end("quicker", "quicker")


async def sensors():
    truth.born("sensors")
    for i in range(5):
        truth.begin("sensors")
        with span("read"):
            time.sleep_ms(2)
        with span("parse"):
            keep = bytearray(1000)  # parse allocates, read and render do not (memory per span)
            time.sleep_ms(1)
        with span("render"):
            time.sleep_ms(30)
        truth.end("sensors", "sensors")
        truth.due("sensors", 150)
        await asyncio.sleep_ms(150)
    truth.begin("sensors")
    truth.end("sensors", "sensors")


# parser allocates (about 8 KB a slice, in well under a millisecond), the others nothing: the
# firmware engine's memory figures say so (docs/micropython.md, "Memory")
async def parser():
    truth.born("parser")
    for i in range(40):
        truth.begin("parser")
        for k in range(4):
            b = bytearray(2000)
            b[0] = k
        truth.end("parser", "parser")
        truth.due("parser", 20)
        await asyncio.sleep_ms(20)
    truth.begin("parser")
    truth.end("parser", "parser")


async def main():
    truth.due("slow")
    truth.due("quicker")
    truth.due("sensors")
    truth.due("parser")
    truth.blocker("quicker", "slow")
    await asyncio.gather(slow(), quicker(), sensors(), parser())
    print("seed: done")
    truth.report()
