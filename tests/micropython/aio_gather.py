# gather with results, with return_exceptions=True, and without it (the first error propagates).
import asyncio
import truth


async def worker(n, finished=None):
    for i in range(n):
        truth.count("worker")
        await asyncio.sleep_ms(1)
    truth.count("worker")
    if finished is not None:
        finished.set()
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
    finished = asyncio.Event()
    try:
        await asyncio.gather(failing(0), worker(4, finished))
    except ValueError as e:
        print("gather raised:", e)
    # the worker(4) left running when the gather raised finishes here: wait for it to finish (a
    # time would do only on an idle machine), then report
    await finished.wait()
    truth.report()
