# Hundreds of short-lived tasks, with gc.collect() between batches.
import asyncio
import gc
import truth


async def short(i):
    truth.born("short")
    truth.count("short")
    await asyncio.sleep_ms(0)
    truth.count("short")
    return i


async def main():
    total = 0
    for batch in range(10):
        tasks = [asyncio.create_task(short(batch * 50 + i)) for i in range(50)]
        for t in tasks:
            total += await t
        gc.collect()
    print("many: sum", total)
    truth.report()
