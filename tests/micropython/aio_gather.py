# gather with results, with return_exceptions=True, and without it (the first error propagates).
import asyncio
import truth


async def worker(n):
    for i in range(n):
        truth.count("worker")
        await asyncio.sleep_ms(1)
    truth.count("worker")
    return n * 10


async def failing(n):
    for i in range(n):
        truth.count("failing")
        await asyncio.sleep_ms(1)
    truth.count("failing", errors=1)
    raise ValueError("failing %d" % n)


async def main():
    r = await asyncio.gather(worker(1), worker(2), worker(3))
    print("gather:", r)
    r = await asyncio.gather(worker(2), failing(1), return_exceptions=True)
    print("gather return_exceptions:", [type(x).__name__ if isinstance(x, Exception) else x for x in r])
    try:
        await asyncio.gather(failing(0), worker(4))
    except ValueError as e:
        print("gather raised:", e)
    # the worker(4) left running when the gather raised finishes here
    await asyncio.sleep_ms(20)
    truth.report()
