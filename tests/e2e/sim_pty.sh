#!/usr/bin/env bash
# --pty: the simulator makes a pty, says where (stderr and --pty-link), streams into it in real
# time; a reader gets every byte the truth counts. With no reader, the port is busy: the ring fills,
# events are dropped and counted, and the run still ends.
set -euo pipefail
: "${AIOPROF_SIM:?AIOPROF_SIM must name the aioprof-sim binary}"
tmp=$(mktemp -d)
sim_pid=
cleanup() {
    if [ -n "$sim_pid" ]; then kill "$sim_pid" 2> /dev/null || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT

"$AIOPROF_SIM" -w seed --clock real --duration 3 --text 10 --pty --pty-link "$tmp/link" \
    --truth "$tmp/truth.json" 2> "$tmp/err" &
sim_pid=$!
for _ in $(seq 100); do [ -s "$tmp/link" ] && break; sleep 0.05; done
[ -s "$tmp/link" ] || { echo "no pty path in $tmp/link"; cat "$tmp/err"; exit 1; }
pty=$(cat "$tmp/link")
grep -q "^aioprof-sim: pty $pty\$" "$tmp/err" || { echo "stderr does not name $pty"; cat "$tmp/err"; exit 1; }

timeout 20 python3 - "$pty" "$tmp/read.bin" <<'PY'
import os, sys, tty
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NOCTTY)
tty.setraw(fd)
with open(sys.argv[2], "wb") as out:
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO: the simulator closed the pty
            break
        if not chunk:
            break
        out.write(chunk)
PY
wait "$sim_pid"
sim_pid=
cat "$tmp/err"
python3 - "$tmp/truth.json" "$tmp/read.bin" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
data = open(sys.argv[2], "rb").read()
fail = []
if len(data) != t["bytes"]:
    fail.append(f"read {len(data)} bytes, the simulator wrote {t['bytes']}")
if t["dropped_events"] != 0:
    fail.append(f"{t['dropped_events']} events dropped with a reader attached")
if not 2_900_000 <= t["duration_us"] <= 3_300_000:
    fail.append(f"real clock: {t['duration_us']} us of device time for --duration 3")
slow = [r for r in t["tasks"] if r["name"] == "slow"][0]
# real time: an 80 ms slice takes at least 80 ms and not much more
if not (80000 <= slow["min_us"] and slow["max_us"] < 100000 and 20 <= slow["count"] <= 31):
    fail.append(f"slow: {slow}")
if data.count(b"\n") < t["text_lines"] or t["text_lines"] == 0:
    fail.append(f"text lines: {t['text_lines']}")
print("pty with a reader: " + ("ok" if not fail else "FAIL " + "; ".join(fail)))
sys.exit(1 if fail else 0)
PY

# nobody reads: the busy workload fills the pty and then the ring
start=$(date +%s)
"$AIOPROF_SIM" -w busy --duration 5 --pty --truth "$tmp/noreader.json" 2> "$tmp/err2"
elapsed=$(( $(date +%s) - start ))
cat "$tmp/err2"
python3 - "$tmp/noreader.json" "$elapsed" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
ok = t["dropped_events"] > 0 and t["bytes"] > 0 and int(sys.argv[2]) <= 10
print(f"pty without a reader: {t['bytes']} bytes accepted, {t['dropped_events']} dropped, "
      f"{sys.argv[2]} s: " + ("ok" if ok else "FAIL"))
sys.exit(0 if ok else 1)
PY
