# The golden vectors (tests/golden/vectors.txt) through the pure-Python recorder: each vector's
# script of hook calls runs on a fake clock and a capturing port, and the bytes must equal the
# vector's, which the C device library makes (tests/unit/test_golden.c runs the same scripts).
# Each script runs twice: through the recorder's enter() and exit(), and through the wrapper
# asyncio resumes (Recorder.wrap: its generator writes an event's common case itself), each task
# a fake coroutine that plays the script until its exit; there, every event the C library
# writes on its fast path must be written by the wrapper itself, not handed to the general path.
#
# usage: python3 golden_fallback.py VECTORS.txt DEVICE_MICROPYTHON_DIR
#        micropython golden_fallback.py VECTORS.txt DEVICE_MICROPYTHON_DIR
# Prints one line per vector and way, and "golden: N of N vectors equal"; exits 1 on any
# difference.
import sys

sys.path.insert(0, sys.argv[2])
import aioprof_fallback as fb

EXIT_KINDS = {"yield": fb.YIELD, "return": fb.RETURN, "raise": fb.RAISE, "cancel": fb.CANCEL}


def load(path):
    vectors = []
    section = None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("== "):
                vectors.append({"name": line[3:].strip(), "script": [], "bytes": [], "decoded": []})
                section = None
            elif vectors and line in ("script:", "bytes:", "decoded:"):
                section = line[:-1]
            elif vectors and section:
                vectors[-1][section].append(line)
    return vectors


class Fake:
    # the capturing port and clock of tests/unit/fake_device.h
    def __init__(self, start):
        self.clock = start
        self.out = bytearray()
        self.refuse = False
        self.limit = 0
        self.write_ticks = 0  # the clock moves this much (negative: back) during each write

    def ticks(self):
        return self.clock & 0xFFFFFFFF

    def write(self, data):
        self.clock += self.write_ticks
        if self.refuse:
            return 0
        if self.limit:
            data = data[: self.limit]
        self.out.extend(data)
        return len(data)


def expand(script):
    # the script's lines, "repeat N" spelt out (enter/exit task 1 N times, 100 ticks in, 10 out)
    lines = []
    for line in script:
        words = line.split()
        if not words or words[0].startswith("#") or words == ["engine", "python"]:
            continue
        if words[0] == "repeat":
            for _ in range(int(words[1])):
                lines += ["enter 1", "wait 100", "exit 1 yield", "wait 10"]
        elif words[0] == "repeatlate":
            # repeatlate N L: the same, each enter L units late
            for _ in range(int(words[1])):
                lines += ["enter 1 late=" + words[2], "wait 100", "exit 1 yield", "wait 10"]
        else:
            lines.append(line)
    return lines


class Run:
    def __init__(self):
        self.dev = self.rec = None
        self.tasks = {}
        self.spans = {}

    def common(self, line):
        # the words both ways share; False for enter and exit
        words = line.split()
        w = words[0]
        dev = self.dev
        tasks = self.tasks
        if w == "init":
            opts = dict(kv.split("=") for kv in words[1:])
            self.dev = Fake(int(opts["start"]))
            self.rec = fb.Recorder(self.dev.ticks, self.dev.write, int(opts["bits"]), int(opts["ring"]), "test",
                                   cancelled=Cancelled, late_unit=int(opts.get("late_unit", 0)))
        elif w == "at":
            dev.clock = int(words[1])
        elif w == "wait":
            dev.clock += int(words[1])
        elif w == "create":
            tasks[int(words[1])] = self.rec.task(words[2])
        elif w == "label":
            self.rec.label(tasks[int(words[1])], line.split(None, 2)[2])
        elif w in ("enter", "exit"):
            return False
        elif w == "span":
            # span K NAME: the span record K (made, with its name, the first time)
            spans = self.spans
            k = int(words[1])
            if k not in spans:
                spans[k] = fb.SpanRec(words[2])
            self.rec.span_enter(spans[k])
        elif w == "span_exit":
            self.rec.span_exit()
        elif w == "drain":
            self.rec.drain()
        elif w == "flush":
            self.rec.flush()
        elif w == "close":
            self.rec.close()
        elif w == "reopen":
            self.rec.reopen()
        elif w == "writetime":
            dev.write_ticks = int(words[1])
        elif w == "cost":
            self.rec.event_cost = int(words[1])
        elif w == "refuse":
            dev.refuse = "on" in line
        elif w == "limit":
            dev.limit = int(words[1])
        elif w == "periods":
            # N periods go by, each ended by a drain (a heartbeat each)
            for _ in range(int(words[1])):
                dev.clock += 1000000
                self.rec.drain()
        elif w == "print":
            # the rest of the line after "print ", then CR LF, straight to the port as print()
            # would put it there
            dev.out.extend(line.strip()[len("print ") :].encode() + b"\r\n")
        else:
            raise ValueError("unknown script word: " + w)
        return True

    def finish(self):
        # fake_flush_all: flush, then drain until the ring is empty
        rec = self.rec
        rec.flush()
        for _ in range(100000):
            if not rec.pending():
                break
            rec.drain()
        return bytes(self.dev.out)


def run(script):
    r = Run()
    for line in expand(script):
        if not r.common(line):
            words = line.split()
            t = r.tasks[int(words[1])]
            if words[0] == "enter" and len(words) > 2:
                r.rec.enter_late(t, int(words[2].split("=")[1]))
            elif words[0] == "enter":
                r.rec.enter(t)
            else:
                r.rec.exit(t, EXIT_KINDS[words[2]])
    return r.finish()


class Cancelled(Exception):
    pass


class ScriptEnd(BaseException):
    # the script ended inside a slice: unwinds the fake coroutines once the output is taken
    pass


def watch(rec, missed):
    # The wrapper's own test for an event's common case must be the C library's (aioprof_enter,
    # aioprof_exit in device/aioprof.c: nothing owed, the name sent less than sixteen periods ago,
    # room in the open frame): an event of that case handed to the general path makes the same
    # bytes but costs the engine its speed. Each such event is noted in missed.
    enter_at, exit_at = rec._enter_at, rec._exit_at

    def enter(t, now, late=0):
        # (the wrapper writes a lateness of one byte itself, under 128: one of two bytes or more
        # is rare, and the general path writes it)
        if rec.fast and (rec.period - t.announced) & 0xFFFF < 16 and rec.st[1] >= 11 + rec.late_room and late < 0x80:
            missed.append("enter of task %d in period %d" % (t.id, rec.period))
        enter_at(t, now, late)

    def exit_(t, kind, now):
        if kind == fb.YIELD and rec.fast and rec.st[1] >= 6:
            missed.append("yield of task %d in period %d" % (t.id, rec.period))
        exit_at(t, kind, now)

    rec._enter_at = enter
    rec._exit_at = exit_


class DueTask:
    # what the wrapper reads of the asyncio Task that resumes it: when it was due (ph_key), on a
    # millisecond clock that stands still at NOW_MS here
    NOW_MS = 1 << 40

    def __init__(self):
        self.ph_key = self.NOW_MS


def run_wrapped(script, missed):
    # enter K resumes task K's wrapper (a new one once its coroutine has ended), whose fake
    # coroutine plays the script until "exit K": there it yields, returns, raises or is cancelled.
    # "enter K late=L": its Task was due L units before the wrapper reads the clock
    r = Run()
    lines = expand(script)
    pos = [0]
    out = []
    wrappers = {}
    dues = {}

    def play(until):
        while pos[0] < len(lines):
            line = lines[pos[0]]
            pos[0] += 1
            if r.common(line):
                if line.split()[0] == "init":
                    watch(r.rec, missed)
                    r.rec.ms = lambda: DueTask.NOW_MS
                    r.rec.ms_diff = lambda a, b: a - b
                continue
            words = line.split()
            k = int(words[1])
            if words[0] == "exit":
                if k != until:
                    raise ValueError("exit %d inside the slice of %s" % (k, until))
                return words[2]
            w = wrappers.get(k)
            if w is None:
                w = wrappers[k] = fb.Wrapped(r.rec, coroutine(k), r.tasks[k], False, False)
                r.rec.bind(w, dues.setdefault(k, DueTask()))
            dues[k].ph_key = DueTask.NOW_MS - (int(words[2].split("=")[1]) if len(words) > 2 else 0)
            try:
                w.send(None)
            except (StopIteration, ValueError, Cancelled):
                wrappers.pop(k)
        if not out:
            out.append(r.finish())
        if until is not None:
            raise ScriptEnd()
        return None

    def coroutine(k):
        while True:
            kind = play(k)
            if kind == "return":
                return
            if kind == "raise":
                raise ValueError("raise")
            if kind == "cancel":
                raise Cancelled()
            yield

    try:
        play(None)
    except ScriptEnd:
        pass
    return out[0]


def hexdump(data):
    return " ".join("%02x" % b for b in data)


def main():
    # a vector without a script holds bytes no device of today makes (an older device's): the C
    # reader decodes it (tests/unit/test_golden.c); there is nothing to make here
    vectors = [v for v in load(sys.argv[1]) if v["script"]]
    # the python engine does not report allocations and collections yet (docs/micropython.md,
    # "Memory"): a vector of a port that does (its init gives mem=) is not its bytes
    vectors = [v for v in vectors if "mem=" not in "\n".join(v["script"])]
    # nor does it send spans as the C library's span list (docs/protocol.md, "The span list"): it
    # sends ops 5 and 6, the vectors whose script says "engine python"; the others with spans are
    # the C library's bytes
    vectors = [v for v in vectors if "engine python" in v["script"] or
               not any(line.split()[:1] in (["span"], ["span_exit"]) for line in v["script"])]
    equal = 0
    for v in vectors:
        want = bytes(int(h, 16) for line in v["bytes"] for h in line.split())
        same = True
        missed = []
        for way, made in (("enter/exit", run(v["script"])), ("wrapper", run_wrapped(v["script"], missed))):
            if made == want:
                print("ok   %s through %s (%d bytes)" % (v["name"], way, len(made)))
            else:
                same = False
                print("FAIL %s through %s\n  want %s\n  made %s" % (v["name"], way, hexdump(want), hexdump(made)))
        if missed:
            same = False
            print("FAIL %s through wrapper: the general path took the common case: %s" % (v["name"], ", ".join(missed)))
        equal += same
    print("golden: %d of %d vectors equal (both ways)" % (equal, len(vectors)))
    if equal != len(vectors) or len(vectors) < 8:
        sys.exit(1)


main()
