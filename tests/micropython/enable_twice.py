# enable() called twice, as an app that enables aioprof itself does under `aioprof-top --run`
# (whose prologue enabled it first): the second call is a no-op that returns the engine and keeps
# the first call's settings, and one task still gives one set of events. Prints "enable_twice: ok".
import sys

sys.path.insert(0, sys.argv[1])
import asyncio
import aioprof

out = []
impl = sys.argv[2] if len(sys.argv) > 2 else None
kind = aioprof.enable(write=out.append, ring=1024, period_ms=1000, impl=impl)
state = aioprof._state
ct = asyncio.create_task
again = aioprof.enable(write=lambda b: None, ring=8192, period_ms=5)
assert again == kind, (again, kind)
assert aioprof._state is state, "the second enable() replaced the first one's state"
assert asyncio.create_task is ct, "the second enable() wrapped create_task again"


async def work():
    await asyncio.sleep_ms(1)


asyncio.run(work())
aioprof.flush()
data = b"".join(bytes(b) for b in out)
assert len(data) > 0, "the first enable()'s writer got nothing: the second one's took over"
aioprof.disable()
assert aioprof.engine() is None
# enabled again after disable(): a fresh start, with the new settings
assert aioprof.enable(write=out.append, ring=2048, impl=impl) == kind
assert aioprof._state is not state
aioprof.disable()
print("enable_twice: ok", kind)
