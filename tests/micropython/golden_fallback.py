# The golden vectors (tests/golden/vectors.txt) through the pure-Python recorder: each vector's
# script of hook calls runs on a fake clock and a capturing port, and the bytes must equal the
# vector's, which the C device library makes (tests/unit/test_golden.c runs the same scripts).
#
# usage: python3 golden_fallback.py VECTORS.txt DEVICE_MICROPYTHON_DIR
#        micropython golden_fallback.py VECTORS.txt DEVICE_MICROPYTHON_DIR
# Prints one line per vector and "golden: N of N vectors equal"; exits 1 on any difference.
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

    def ticks(self):
        return self.clock & 0xFFFFFFFF

    def write(self, data):
        if self.refuse:
            return 0
        if self.limit:
            data = data[: self.limit]
        self.out.extend(data)
        return len(data)


def run(script):
    dev = rec = None
    tasks = {}
    for line in script:
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        w = words[0]
        if w == "init":
            opts = dict(kv.split("=") for kv in words[1:])
            dev = Fake(int(opts["start"]))
            rec = fb.Recorder(dev.ticks, dev.write, int(opts["bits"]), int(opts["ring"]), "test")
        elif w == "at":
            dev.clock = int(words[1])
        elif w == "wait":
            dev.clock += int(words[1])
        elif w == "create":
            tasks[int(words[1])] = rec.task(words[2])
        elif w == "label":
            rec.label(tasks[int(words[1])], line.split(None, 2)[2])
        elif w == "enter":
            rec.enter(tasks[int(words[1])])
        elif w == "exit":
            rec.exit(tasks[int(words[1])], EXIT_KINDS[words[2]])
        elif w == "drain":
            rec.drain()
        elif w == "flush":
            rec.flush()
        elif w == "close":
            rec.close()
        elif w == "reopen":
            rec.reopen()
        elif w == "refuse":
            dev.refuse = "on" in line
        elif w == "limit":
            dev.limit = int(words[1])
        elif w == "print":
            # the rest of the line after "print ", then CR LF, straight to the port as print()
            # would put it there
            dev.out.extend(line.strip()[len("print ") :].encode() + b"\r\n")
        elif w == "repeat":
            for _ in range(int(words[1])):
                rec.enter(tasks[1])
                dev.clock += 100
                rec.exit(tasks[1], fb.YIELD)
                dev.clock += 10
        else:
            raise ValueError("unknown script word: " + w)
    # fake_flush_all: flush, then drain until the ring is empty
    rec.flush()
    for _ in range(100000):
        if not rec.pending():
            break
        rec.drain()
    return bytes(dev.out)


def hexdump(data):
    return " ".join("%02x" % b for b in data)


def main():
    # a vector without a script holds bytes no device of today makes (an older device's): the C
    # reader decodes it (tests/unit/test_golden.c); there is nothing to make here
    vectors = [v for v in load(sys.argv[1]) if v["script"]]
    equal = 0
    for v in vectors:
        want = bytes(int(h, 16) for line in v["bytes"] for h in line.split())
        made = run(v["script"])
        if made == want:
            equal += 1
            print("ok   %s (%d bytes)" % (v["name"], len(made)))
        else:
            print("FAIL %s\n  want %s\n  made %s" % (v["name"], hexdump(want), hexdump(made)))
    print("golden: %d of %d vectors equal" % (equal, len(vectors)))
    if equal != len(vectors) or len(vectors) < 8:
        sys.exit(1)


main()
