# wait_for that completes and wait_for that times out (the inner task is cancelled).
import asyncio
import truth


async def quick():
    truth.count("quick")
    await asyncio.sleep_ms(5)
    truth.count("quick")
    return "quick result"


async def sluggish():
    truth.count("sluggish")
    try:
        await asyncio.sleep_ms(1000)
    except asyncio.CancelledError:
        truth.count("sluggish", errors=1)  # cleanup slice: ends with the cancellation propagating
        raise
    return "never"


async def main():
    print("wait_for completed:", await asyncio.wait_for(quick(), 1))
    try:
        await asyncio.wait_for(sluggish(), 0.02)
    except asyncio.TimeoutError:
        print("wait_for timed out")
    await asyncio.sleep_ms(5)
    truth.report()
