# Loop.create_task inside a program started with Loop.run_until_complete, then a second
# run_until_complete on a bare coroutine (the loop promotes it to a task). Needs run_until_complete:
# the unix port only (the WebAssembly variant's loop has none).
import asyncio
import truth


async def child(n):
    truth.count("child")
    await asyncio.sleep_ms(2)
    truth.count("child")
    return n + 1


async def main():
    loop = asyncio.get_event_loop()
    t = loop.create_task(child(1))
    print("loop.create_task:", await t)


def entry():
    loop = asyncio.get_event_loop()
    loop.run_until_complete(main())
    print("run_until_complete:", loop.run_until_complete(child(41)))
    truth.report()
