# The original aioprof example: a task that blocks 80 ms per slice and one that blocks 1 ms.
import asyncio
import time
import truth


async def slow():
    truth.born("slow")
    for i in range(12):
        truth.begin("slow")
        time.sleep_ms(80)
        truth.end("slow", "slow")
        await asyncio.sleep_ms(10)
    truth.begin("slow")
    truth.end("slow", "slow")


async def quicker():
    truth.born("quicker")
    for i in range(150):
        truth.begin("quicker")
        time.sleep_ms(1)
        truth.end("quicker", "quicker")
        await asyncio.sleep_ms(2)
    truth.begin("quicker")
    truth.end("quicker", "quicker")


async def main():
    await asyncio.gather(slow(), quicker())
    print("seed: done")
    truth.report()
