# Runs one asyncio test script with aioprof enabled first, as an application would:
#   micropython with_aioprof.py ENGINE SCRIPT.py [gc]
# ENGINE: firmware, native, python, or none (the same script without the hook, the baseline);
# python-walk: the python engine with memory="walk" (it reads gc.mem_alloc() at every event).
# The script defines main(), run here with asyncio.run, or entry(), called as it is (it starts
# the loop its own way); then aioprof is disabled, which sends what is left.
import sys

engine, script = sys.argv[1], sys.argv[2]
if engine != "none":
    import aioprof

    if engine == "python-walk":
        aioprof.enable(impl="python", memory="walk")
    else:
        aioprof.enable(impl=engine)
import asyncio

g = {"__name__": "__script__", "GC_ON": len(sys.argv) > 3 and sys.argv[3] == "gc"}
with open(script) as f:
    exec(f.read(), g)
if "entry" in g:
    g["entry"]()
else:
    asyncio.run(g["main"]())
if engine != "none":
    aioprof.disable()
