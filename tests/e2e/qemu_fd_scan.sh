#!/usr/bin/env bash
# qemu_session.py waits for aioprof-top to open the board's pty by looking through aioprof-top's
# /proc/PID/fd while aioprof-top opens and closes files: a descriptor listed may be closed before
# its link is read. holds() must skip it, never raise (it made mpy_qemu fail 2 of 38 runs), and
# still find the file that is held. Checked against a process that opens and closes descriptors
# as fast as it can, holding one file throughout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: > "$work/held"
python3 - "$here/../micropython" "$work" <<'PY'
import os, subprocess, sys
sys.path.insert(0, sys.argv[1])
from qemu_session import holds

work = sys.argv[2]
held, absent = os.path.join(work, "held"), os.path.join(work, "absent")
# the churner: holds one file, then opens and closes 16 descriptors at a time forever; says it
# has begun on its stdout
churn = subprocess.Popen([sys.executable, "-c", """
import os, sys
held = open(sys.argv[1], "rb")
print("churning", flush=True)
while True:
    fds = [os.open("/dev/null", os.O_RDONLY) for _ in range(16)]
    for fd in fds:
        os.close(fd)
""", held], stdout=subprocess.PIPE)
try:
    if churn.stdout.readline() != b"churning\n":
        sys.exit("FAIL: the churner did not start")
    # a path not held makes every scan read every descriptor: the one that meets the race
    for i in range(3000):
        if holds(churn.pid, absent):
            sys.exit("FAIL: holds() found a file nobody opened")
        if i % 100 == 0 and not holds(churn.pid, held):
            sys.exit("FAIL: holds() missed the file held throughout")
finally:
    churn.kill()
    churn.wait()
if holds(churn.pid, held):
    sys.exit("FAIL: a process that is gone still holds a file")
print("qemu_fd_scan: 3000 scans of a process opening and closing descriptors: none raised")
PY
