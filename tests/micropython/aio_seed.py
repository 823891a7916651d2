# The original aioprof example: a task that blocks 80 ms per slice and one that blocks 1 ms.
# quicker's 2 ms sleeps end while slow blocks: it comes back late by about 80 ms, kept waiting by
# slow (truth.due() says when each resume is due).
import asyncio
import time
import truth


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
    truth.due("parser")
    truth.blocker("quicker", "slow")
    await asyncio.gather(slow(), quicker(), parser())
    print("seed: done")
    truth.report()
