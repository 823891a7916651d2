# A board's life, one scenario per run: what happens around the profiled program (how the
# output is taken, bursts, the end of a program, labels, tracebacks, a second enable). Runs in
# MicroPython: the unix port (tests/micropython/run_life.sh) and the WebAssembly one
# (run_wasm.mjs life); life_check.py, under CPython, checks what each run wrote.
#
#   micropython life.py ENGINE SCENARIO
# ENGINE: firmware, native, python, or none (the scenario without the hook, where that means
# something). Each scenario has three steps, so that a runner without asyncio.run (the
# WebAssembly port) can drive them: setup() (synchronous), main() (the asyncio program), finish()
# (synchronous, after the loop). Output on stdout: the frames, mixed with the scenario's lines
# ("life: ..." and truth.py's "truth ..." lines); tracebacks on stderr.
import sys
import asyncio
import truth

ENGINE = None
_aioprof = None


def enable(**kw):
    global _aioprof
    if ENGINE != "none":
        import aioprof

        _aioprof = aioprof
        aioprof.enable(impl=ENGINE, **kw)


def disable():
    if _aioprof is not None:
        _aioprof.disable()


def out(data):
    getattr(sys.stdout, "buffer", sys.stdout).write(data)


async def spin(name, n, aio=asyncio):
    # n + 1 slices of the task that awaits this, counted under name (its coroutine function's)
    truth.born(name)
    for _ in range(n):
        truth.count(name)
        await aio.sleep_ms(0)
    truth.count(name)


async def counted(n):
    await spin("counted", n)


async def worker(n):
    await spin("worker", n)


async def first(n):
    await spin("first", n)


async def second(aio, n):
    await spin("second", n, aio)


# ---- write=: None means "took everything", a number means "took that many" ----


class WriteNone:
    # a write function with no return: took everything, said nothing. The frames are kept and
    # written to stdout at the end, after disable(), as one capture.
    def setup(self):
        self.cap = bytearray()
        enable(write=self.write)

    def write(self, data):
        self.cap.extend(data)

    async def main(self):
        await asyncio.create_task(counted(300))
        truth.report()

    def finish(self):
        disable()
        out(self.cap)


class WritePartial(WriteNone):
    # a non-blocking port: every other call takes nothing (0), the others at most 7 bytes; each
    # call says how many it took. Nothing may be lost or sent twice.
    def setup(self):
        self.calls = 0
        WriteNone.setup(self)

    def write(self, data):
        self.calls += 1
        if self.calls % 2:
            return 0
        n = min(7, len(data))
        self.cap.extend(bytes(data[:n]))
        return n


# ---- a burst of task creations in one slice must not overflow the default ring ----


class Burst:
    # Phases: main yields a different number of times (which leaves different amounts of
    # recorded bytes waiting), then creates 300 tasks in one slice, then awaits them. The period
    # is long, so that only the drain policy, never the clock, decides when bytes go out.
    def setup(self):
        enable(period_ms=60000)

    async def child(self):
        truth.born("child")
        truth.count("child")
        await asyncio.sleep_ms(0)
        truth.count("child")

    async def main(self):
        for pre in range(0, 700, 50):
            for _ in range(pre):
                await asyncio.sleep_ms(0)
            tasks = [asyncio.create_task(self.child()) for _ in range(300)]
            for t in tasks:
                await t
        truth.report()

    def finish(self):
        disable()


# ---- a program that ends without disable() ----


class EndReturn:
    # asyncio.run's main returns and the program ends; nothing calls disable(). Every slice
    # must arrive: a board has no sys.atexit, so the end of the top-level task sends the rest.
    def setup(self):
        enable()

    async def main(self):
        await asyncio.gather(worker(300), worker(200))
        truth.report()

    def finish(self):
        pass


class EndExit:
    # a task ends the program with sys.exit() while main is still waiting: no top-level task
    # ends, nothing calls disable(); the port's sys.atexit must send the rest.
    def setup(self):
        enable()

    async def quitter(self):
        truth.born("quitter")
        for _ in range(100):
            truth.count("quitter")
            await asyncio.sleep_ms(0)
        truth.count("quitter", errors=1)
        truth.report()
        sys.exit(0)

    async def main(self):
        await asyncio.gather(worker(1000), self.quitter())

    def finish(self):
        pass


class RunTwice:
    # asyncio.run twice, no disable(), and no sys.atexit to fall back on (the function aioprof
    # registered is taken off, as on a board): the end of each main task stops the hook (its last
    # HELLO says so) and the second run reopens it; every slice of both arrives.
    def setup(self):
        enable()
        if hasattr(sys, "atexit"):
            sys.atexit(None)

    async def main(self):
        await asyncio.gather(worker(100), worker(50))

    def finish(self):
        asyncio.run(second(asyncio, 30))
        truth.report()


# ---- enable() then disable() with no task still says hello ----


class Empty:
    def setup(self):
        enable()
        disable()

    async def main(self):
        pass

    def finish(self):
        pass


# ---- label(): one behaviour in every engine; cut at a character boundary ----


class Label:
    # label() on a task created before enable() and after disable() is ignored (no error); a
    # label that does not fit beside the name is cut before the character that straddles the
    # limit: "short" (5 bytes) leaves 43, which holds 21 two-byte characters.
    def setup(self):
        self.before = asyncio.create_task(self.short())
        enable()
        self.after = None

    async def short(self):
        await asyncio.sleep_ms(0)

    async def main(self):
        label = _aioprof.label if _aioprof else (lambda t, s: None)
        label(self.before, "too early")
        t = asyncio.create_task(self.short())
        label(t, "\u00e9" * 30)
        await t
        await self.before
        self.after = asyncio.create_task(self.short())
        await self.after

    def finish(self):
        disable()
        if _aioprof:
            _aioprof.label(self.after, "too late")
        print("life: label ok")


# ---- a task's traceback looks as without the hook ----


class Traceback:
    # a detached task raises: asyncio prints "Task exception wasn't retrieved" and its traceback
    # on stderr; then the main task raises and the exception leaves asyncio.run.
    def setup(self):
        enable()

    async def raiser(self):
        await asyncio.sleep_ms(1)
        raise OSError(5)

    async def failing(self):
        await asyncio.sleep_ms(1)
        raise ValueError("main failed")

    async def main(self):
        asyncio.create_task(self.raiser())
        await asyncio.sleep_ms(20)
        try:
            await asyncio.create_task(self.failing())
        except ValueError as e:
            sys.print_exception(e, sys.stderr)

    def finish(self):
        disable()


# ---- a second start: what a soft reset does to the Python side ----


class Reimport:
    # The unix port has no soft reset. What one does to the hook's Python side is this: the
    # modules are imported again and the objects of the previous run are gone, while what lives
    # outside the heap stays. enable(), forget aioprof, import it again, enable(): it must start.
    def setup(self):
        enable()

    async def main(self):
        await asyncio.create_task(first(3))

    def finish(self):
        global _aioprof
        if _aioprof is None:
            print("life: reimport ok")
            return
        # every module goes, asyncio too (it was patched by the first aioprof)
        for name in list(sys.modules):
            if name.startswith(("aioprof", "_aioprof", "asyncio")):
                sys.modules.pop(name)
        _aioprof = None
        import gc

        gc.collect()
        enable()
        import asyncio as fresh

        fresh.run(second(fresh, 3))
        disable()
        print("life: reimport ok")


SCENARIOS = {
    "write_none": WriteNone,
    "write_partial": WritePartial,
    "burst": Burst,
    "end_return": EndReturn,
    "end_exit": EndExit,
    "run_twice": RunTwice,
    "empty": Empty,
    "label": Label,
    "traceback": Traceback,
    "reimport": Reimport,
}


def scenario(engine, name):
    global ENGINE
    ENGINE = engine
    return SCENARIOS[name]()


if __name__ == "__main__":
    s = scenario(sys.argv[1], sys.argv[2])
    s.setup()
    asyncio.run(s.main())
    s.finish()
