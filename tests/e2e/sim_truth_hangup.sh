#!/usr/bin/env bash
# The simulator writes its truth on every way out, not only at the end of its run: after SIGHUP
# (the terminal it ran from went away), and when the terminal it writes to hangs up (its other
# side closed: EIO). Each time the truth is a whole JSON document that agrees with itself and with
# the bytes the output took, and the exit is the normal one (0), as when a pipe's reader leaves.
set -euo pipefail
: "${AIOPROF_SIM:?AIOPROF_SIM must name the aioprof-sim binary}"
tmp=$(mktemp -d)
sim_pid=
trap '[ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# truth_ok TRUTH MIN_BYTES MAX_BYTES: the truth parses, its tasks add up from its instances, every
# slice has its two events, and the bytes it says the output took are within [MIN, MAX]
truth_ok() {
    python3 - "$@" <<'PY'
import json, sys
path, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
t = json.load(open(path))
bad = []
insts, tasks = t["instances"], t["tasks"]
if not insts:
    bad.append("no instances")
if t["events"] != 2 * sum(i["count"] for i in insts):
    bad.append("events %d for %d slices" % (t["events"], sum(i["count"] for i in insts)))
if t["bytes"] != t["frame_bytes"] + t["text_bytes"]:
    bad.append("bytes do not add up")
if not lo <= t["bytes"] <= hi:
    bad.append("bytes %d, not within [%d, %d]" % (t["bytes"], lo, hi))
for name in {i["name"] for i in insts}:
    row = [r for r in tasks if r["name"] == name]
    mine = [i for i in insts if i["name"] == name]
    if len(row) != 1 or row[0]["count"] != sum(i["count"] for i in mine):
        bad.append("task row of " + name)
print("\n".join("FAIL " + b for b in bad) or "ok   %d instances, %d events, %d bytes" % (len(insts), t["events"], t["bytes"]))
sys.exit(1 if bad else 0)
PY
}

# wait_size FILE: waits (up to 60 s) until FILE holds some bytes
wait_size() {
    local i
    for ((i = 0; i < 600; i++)); do [ -s "$1" ] && return 0; sleep 0.1; done
    return 1
}

# 1. SIGHUP in the middle of a long run: the run ends at the next slice, the truth is written
"$AIOPROF_SIM" -w seed --clock real --duration 600 -q -o "$tmp/hup.bin" --truth "$tmp/hup.json" 2> "$tmp/hup.err" &
sim_pid=$!
wait_size "$tmp/hup.bin" || fail "the simulator wrote nothing within 60 s: $(cat "$tmp/hup.err")"
kill -HUP "$sim_pid"
rc=0
wait "$sim_pid" || rc=$?
sim_pid=
[ "$rc" = 0 ] || fail "SIGHUP: the simulator exited $rc: $(cat "$tmp/hup.err")"
size=$(stat -c %s "$tmp/hup.bin")
truth_ok "$tmp/hup.json" "$size" "$size" || fail "SIGHUP: the truth is not whole: $(head -c 200 "$tmp/hup.json")"

# 2. the output is a terminal whose other side closes: writes fail with EIO, the run ends there
python3 - "$AIOPROF_SIM" "$tmp" <<'PY' || fail "the terminal's hangup: see above"
import os, subprocess, sys, time, tty
sim, tmp = sys.argv[1], sys.argv[2]
master, slave = os.openpty()
tty.setraw(slave)  # as a port is: no newline made into two bytes
name = os.ttyname(slave)
p = subprocess.Popen([sim, "-w", "seed", "--clock", "real", "--duration", "600", "-q", "-o", name,
                      "--truth", tmp + "/eio.json"], stdin=subprocess.DEVNULL, stderr=open(tmp + "/eio.err", "w"),
                     start_new_session=True)  # the pty is not its terminal: no SIGHUP, only EIO
got, end = 0, time.time() + 60  # the slave stays open here until then: no EIO before the simulator has it
while got < 2000 and time.time() < end:
    got += len(os.read(master, 4096))
if got < 2000:
    p.kill()
    sys.exit("FAIL the simulator sent only %d bytes in 60 s" % got)
os.close(slave)
os.close(master)
try:
    rc = p.wait(timeout=60)
except subprocess.TimeoutExpired:
    p.kill()
    sys.exit("FAIL the simulator did not stop when its terminal hung up")
if rc != 0:
    sys.exit("FAIL it exited %d: %s" % (rc, open(tmp + "/eio.err").read()))
open(tmp + "/eio.got", "w").write(str(got))
PY
truth_ok "$tmp/eio.json" "$(cat "$tmp/eio.got")" 100000000 \
    || fail "EIO: the truth is not whole: $(head -c 200 "$tmp/eio.json"); $(cat "$tmp/eio.err")"
echo "sim_truth_hangup: all checks passed"
