#!/usr/bin/env bash
# --pty: the simulator makes a pty, says where (stderr and --pty-link), streams into it in real
# time; a reader gets every byte the truth counts, a slow one too. With no reader, the port is
# busy: the ring fills, events are dropped and counted, and the run still ends.
#
# The real clock follows the machine: a loaded machine makes slices longer and fewer. So the checks
# are what the simulator guarantees on any machine (a slice lasts at least what the workload asked,
# device time never runs ahead of the wall clock), not what an idle one happens to do.
set -euo pipefail
: "${AIOPROF_SIM:?AIOPROF_SIM must name the aioprof-sim binary}"
tmp=$(mktemp -d)
sim_pid=
cleanup() {
    if [ -n "$sim_pid" ]; then kill "$sim_pid" 2> /dev/null || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT

# read_pty LINK OUT [CHUNK PAUSE_S]: waits for the path in LINK, then reads that pty into OUT until
# the simulator (sim_pid) closes it; CHUNK bytes at a time with a pause after each (a slow reader).
# The reader is under way before the path appears (python's start can take seconds on a loaded
# machine), and opens the pty as soon as it does.
read_pty() {
    timeout 120 python3 - "$1" "$2" "${3:-4096}" "${4:-0}" "$sim_pid" <<'PY' || { cat "$tmp/err"; exit 1; }
import os, sys, time
for _ in range(6000):
    try:
        path = open(sys.argv[1]).read().strip()
    except OSError:
        path = ""
    if path:
        break
    time.sleep(0.01)
else:
    sys.exit("no pty path in %s after 60 s" % sys.argv[1])
sys.argv[1] = path
try:
    fd = os.open(path, os.O_RDONLY | os.O_NOCTTY)
except OSError as e:
    sys.exit("the reader could not open %s: %s" % (path, e.strerror))
# A pty is opened by its number, and a number is given again once its pty closed: go on only if the
# simulator still holds it (then it is the simulator's), never read another program's terminal.
fds = "/proc/%s/fd" % sys.argv[5]
def link(f):
    try:
        return os.readlink(os.path.join(fds, f))
    except OSError:
        return None  # closed since it was listed: not the pty
try:
    mine = any(link(f) == sys.argv[1] for f in os.listdir(fds))
except OSError:
    mine = False  # the simulator is gone
if not mine:
    sys.exit("the simulator had closed %s before the reader opened it" % sys.argv[1])
# no tty.setraw here: the simulator made the pty raw, and setraw's TCSAFLUSH would throw away what
# the simulator already wrote
chunk, pause = int(sys.argv[3]), float(sys.argv[4])
with open(sys.argv[2], "wb") as out:
    while True:
        try:
            data = os.read(fd, chunk)
        except OSError:  # EIO: the simulator closed the pty
            break
        if not data:
            break
        out.write(data)
        time.sleep(pause)
PY
}

t0=$(date +%s%N)
"$AIOPROF_SIM" -w seed --clock real --duration 3 --text 10 --pty --pty-link "$tmp/link" \
    --truth "$tmp/truth.json" 2> "$tmp/err" &
sim_pid=$!
read_pty "$tmp/link" "$tmp/read.bin"
wait "$sim_pid"
sim_pid=
wall_us=$((($(date +%s%N) - t0) / 1000))
pty=$(cat "$tmp/link")
grep -q "^aioprof-sim: pty $pty\$" "$tmp/err" || { echo "stderr does not name $pty"; cat "$tmp/err"; exit 1; }
cat "$tmp/err"
python3 - "$tmp/truth.json" "$tmp/read.bin" "$wall_us" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
data = open(sys.argv[2], "rb").read()
wall_us = int(sys.argv[3])
fail = []
if len(data) != t["bytes"]:
    fail.append(f"read {len(data)} bytes, the simulator wrote {t['bytes']}")
if t["dropped_events"] != 0:
    fail.append(f"{t['dropped_events']} events dropped with a reader attached")
# real clock: at least the 3 s asked for, and never more device time than wall time passed
if not 3_000_000 <= t["duration_us"] <= wall_us:
    fail.append(f"real clock: {t['duration_us']} us of device time for --duration 3, in {wall_us} us of wall time")
slow = [r for r in t["tasks"] if r["name"] == "slow"][0]
# a slow slice takes at least its 80 ms, and each turn of slow at least 80 + 20 ms of device time
if not (slow["count"] >= 1 and slow["min_us"] >= 80000 and slow["total_us"] <= t["duration_us"]
        and slow["count"] <= t["duration_us"] // 100000 + 1):
    fail.append(f"slow: {slow}")
if data.count(b"\n") < t["text_lines"] or t["text_lines"] == 0:
    fail.append(f"text lines: {t['text_lines']}")
print("pty with a reader: " + ("ok" if not fail else "FAIL " + "; ".join(fail)))
sys.exit(1 if fail else 0)
PY

# a slow reader, 500 bytes every 0.3 s: the simulator (virtual clock: done at once) keeps the pty
# open until the reader has taken the last byte, although that takes longer than the 2 s it waits
# once a reader stops taking
"$AIOPROF_SIM" -w seed --duration 40 --pty --pty-link "$tmp/slowlink" --truth "$tmp/slow.json" 2> "$tmp/err" &
sim_pid=$!
read_pty "$tmp/slowlink" "$tmp/slow.bin" 500 0.3
wait "$sim_pid"
sim_pid=
python3 - "$tmp/slow.json" "$tmp/slow.bin" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
n = len(open(sys.argv[2], "rb").read())
# over 4000 bytes at 500 every 0.3 s take the reader more than 2 s: the case this is about
ok = n == t["bytes"] and t["dropped_events"] == 0 and n > 4000
print(f"a slow reader: read {n} of {t['bytes']} bytes, {t['dropped_events']} events dropped: " + ("ok" if ok else "FAIL"))
sys.exit(0 if ok else 1)
PY

# nobody reads: the busy workload fills the pty and then the ring; the run still ends by itself
rc=0
timeout 120 "$AIOPROF_SIM" -w busy --duration 5 --pty --truth "$tmp/noreader.json" 2> "$tmp/err2" || rc=$?
cat "$tmp/err2"
[ "$rc" = 0 ] || { echo "pty without a reader: the simulator exited $rc (124: it never ended)"; exit 1; }
python3 - "$tmp/noreader.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
ok = t["dropped_events"] > 0 and t["bytes"] > 0
print(f"pty without a reader: {t['bytes']} bytes accepted, {t['dropped_events']} dropped: " + ("ok" if ok else "FAIL"))
sys.exit(0 if ok else 1)
PY
