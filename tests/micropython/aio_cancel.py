# Cancellation before a task ever ran and after its first slice; a task that raises, awaited and
# detached (the loop's exception handler reports the detached one).
import asyncio
import truth


async def never_started():
    truth.count("never_started")  # not reached: cancelled before its first slice
    await asyncio.sleep_ms(1)


async def sleeper():
    truth.count("sleeper")
    await asyncio.sleep_ms(1000)
    truth.count("sleeper")


async def raiser():
    truth.count("raiser")
    await asyncio.sleep_ms(1)
    truth.count("raiser", errors=1)
    raise OSError(5)


handled = asyncio.Event()


def handler(loop, context):
    print("handler:", type(context["exception"]).__name__)
    handled.set()


async def main():
    asyncio.get_event_loop().set_exception_handler(handler)
    t = asyncio.create_task(never_started())
    t.cancel()
    try:
        await t
    except asyncio.CancelledError:
        print("cancelled before first run")
    # the task was thrown into once: one slice that ends in a cancel
    truth.count("never_started", errors=1)
    s = asyncio.create_task(sleeper())
    await asyncio.sleep_ms(5)
    s.cancel()
    try:
        await s
    except asyncio.CancelledError:
        print("cancelled after first run")
    truth.count("sleeper", errors=1)  # the slice the CancelledError was thrown into
    try:
        await asyncio.create_task(raiser())
    except OSError as e:
        print("awaited raiser:", e)
    asyncio.create_task(raiser())  # detached: nobody awaits it
    # the loop's handler reports it once it has ended: wait for that, not for a time
    await handled.wait()
    truth.report()
