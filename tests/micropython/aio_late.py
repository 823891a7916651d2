# Lateness counts from when a task was made runnable, not from when it began to wait: a task woken
# by an event, and one woken by the end of the task it awaits, each kept waiting 40 ms by another
# task's slice. Reported from when it began to wait, they would be about 70 and 50 ms late.
import asyncio
import time
import truth


async def waiter(ev):
    truth.born("waiter")
    truth.begin("waiter")
    truth.end("waiter", "waiter")
    await ev.wait()  # from its first slice; setter sets it 30 ms later
    truth.begin("waiter")
    truth.end("waiter", "waiter")


async def setter(ev):
    truth.born("setter")
    truth.begin("setter")
    truth.end("setter", "setter")
    truth.due("setter", 30)
    await asyncio.sleep_ms(30)
    truth.begin("setter")
    truth.due("waiter")
    ev.set()  # the waiter is runnable from here, and waits for the rest of this slice
    truth.due_by("waiter")
    time.sleep_ms(40)
    truth.end("setter", "setter")


async def worker():
    truth.born("worker")
    truth.begin("worker")
    truth.end("worker", "worker")
    truth.due("worker", 2)
    await asyncio.sleep_ms(2)  # the joiner awaits this task meanwhile
    truth.begin("worker")
    time.sleep_ms(10)
    truth.due("joiner", after_slice=True)  # runnable when this task ends, after this slice
    truth.end("worker", "worker")
    return 7


async def joiner(w):
    truth.born("joiner")
    truth.begin("joiner")
    truth.end("joiner", "joiner")
    n = await w
    truth.begin("joiner")  # after blocker's slice: blocker was due first
    truth.end("joiner", "joiner")
    return n


async def blocker():
    truth.born("blocker")
    truth.begin("blocker")
    truth.end("blocker", "blocker")
    truth.due("blocker", 5)
    await asyncio.sleep_ms(5)  # due while worker runs, before worker's end makes joiner runnable
    truth.begin("blocker")
    time.sleep_ms(40)
    truth.end("blocker", "blocker")


async def main():
    ev = asyncio.Event()
    truth.blocker("waiter", "setter")
    truth.blocker("joiner", "blocker")
    for name in ("waiter", "setter"):
        truth.due(name)
    await asyncio.gather(waiter(ev), setter(ev))
    for name in ("worker", "joiner", "blocker"):
        truth.due(name)
    w = asyncio.create_task(worker())
    r = await asyncio.gather(joiner(w), blocker())
    print("late: joined", r[0])
    truth.report()
