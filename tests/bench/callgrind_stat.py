#!/usr/bin/env python3
# The figures part_mpy.bash takes from one callgrind output file: the program's instructions, and
# for each function named, the instructions spent in it (self) and how many calls it got.
#
# usage: callgrind_stat.py CALLGRIND_OUT FUNCTION...
# Prints "TOTAL SELF1 CALLS1 SELF2 CALLS2 ...", or says what is wrong and exits 1.
import re
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: callgrind_stat.py CALLGRIND_OUT FUNCTION...")
    funcs = sys.argv[2:]
    names = {}  # callgrind's (id) compression of names
    own = dict.fromkeys(funcs, 0)
    calls = dict.fromkeys(funcs, 0)
    total = None
    fn = cfn = None
    seen = set()  # every function the profile names
    after_calls = False

    def name_of(spec):
        m = re.match(r"\((\d+)\)(?: (.*))?", spec)
        if not m:
            return spec
        if m.group(2):
            names[m.group(1)] = m.group(2)
        return names.get(m.group(1), "?")

    try:
        lines = open(sys.argv[1])
    except OSError as e:
        sys.exit("callgrind_stat: %s: %s" % (sys.argv[1], e.strerror))
    for line in lines:
        if line.startswith("fn="):
            fn = name_of(line[3:].strip())
            seen.add(fn)
        elif line.startswith("cfn="):
            cfn = name_of(line[4:].strip())
            seen.add(cfn)
        elif line.startswith("calls="):
            if cfn in calls:
                calls[cfn] += int(line[6:].split()[0])
            after_calls = True  # the next cost line is the call's inclusive cost, not fn's own
        elif line.startswith(("summary:", "totals:")):
            total = int(line.split()[1])
        elif line[:1].isdigit() or line[:1] in "+-*":
            parts = line.split()
            if after_calls:
                after_calls = False
            elif fn in own and len(parts) >= 2:
                own[fn] += int(parts[1])
    if total is None:
        sys.exit("callgrind_stat: %s has no total: not a callgrind output file" % sys.argv[1])
    # a stripped program's profile names no function of its own: its figures would count nothing
    absent = [f for f in funcs if f not in seen]
    if absent:
        sys.exit("callgrind_stat: %s names no function %s: the program has no symbols (MicroPython's unix "
                 "port strips its binary unless built with STRIP=)" % (sys.argv[1], ", ".join(absent)))
    print(" ".join([str(total)] + ["%d %d" % (own[f], calls[f]) for f in funcs]))


main()
