#!/usr/bin/env bash
# The board-first workflow: aioprof-top started before the board is plugged in waits for it, as
# tio does, says so once, and reads it when it appears (all of it: the figures equal a replay of
# the same bytes); --duration counts from then. --no-reconnect keeps the old exit. Without a port
# it waits for the first board that looks like MicroPython (libserialport's listing stood in for
# by tests/shim/fake_ports.c, a board "plugged in" by writing the listing's file).
set -euo pipefail
source "$(dirname "$0")/io_common.bash"

"$SIM" -w seed -o "$WORK/part.bin" --duration 4 -q
"$TOP" --replay "$WORK/part.bin" --json > "$WORK/replay.json"

# ---- a port that does not exist yet
"$TOP" "$WORK/ttyLATE" --json --duration 1 > "$WORK/late.json" 2> "$WORK/late.err" &
top_pid=$!
IO_PIDS+=("$top_pid")
started=$(date +%s.%N)
wait_for_text "$WORK/late.err" "waiting for $WORK/ttyLATE \(Ctrl-C to stop\)" 10 || fail "no word of waiting: $(cat "$WORK/late.err")"
# the --duration would be over by now if it counted from the start: the board comes later
while python3 -c "import sys,time; sys.exit(0 if time.time() - $started < 1.5 else 1)"; do sleep 0.1; done
kill -0 "$top_pid" 2>/dev/null || fail "aioprof-top did not wait for the port: $(cat "$WORK/late.err")"
pty_start "$WORK/ttyLATE" "$WORK/part.bin"
rc=0
wait "$top_pid" || rc=$?
[ "$rc" = 0 ] || fail "the late port: exit $rc: $(cat "$WORK/late.err")"
grep -q "$WORK/ttyLATE is here" "$WORK/late.err" || fail "no word of the port appearing: $(cat "$WORK/late.err")"
[ "$(grep -c "waiting for" "$WORK/late.err")" = 1 ] || fail "waiting was not said exactly once: $(cat "$WORK/late.err")"
[ "$(json "$WORK/late.json" '[t["name"] for t in j["tasks"] if t["count"] > 0]')" != "[]" ] \
    || fail "nothing read from the port that came late: $(cat "$WORK/late.err")"
pty_stop "$WORK/ttyLATE"

# all of it: the late port gives the replay's figures, once every byte has been read (the
# recording made on the way says when)
"$TOP" "$WORK/ttyLATE2" --json -w "$WORK/late2.aiop" > "$WORK/late2.json" 2> "$WORK/late2.err" &
top_pid=$!
IO_PIDS+=("$top_pid")
wait_for_text "$WORK/late2.err" "waiting for" 10 || fail "no word of waiting: $(cat "$WORK/late2.err")"
pty_start "$WORK/ttyLATE2" "$WORK/part.bin"
want=$(stat -c %s "$WORK/part.bin")
recorded() { chunks "$WORK/late2.aiop" | awk '$1 == 1 {n += $3} END {print n + 0}'; }
for _ in $(seq 1200); do [ "$(recorded)" -ge "$want" ] && break; sleep 0.1; done
[ "$(recorded)" = "$want" ] || fail "recorded $(recorded) of $want bytes: $(cat "$WORK/late2.err")"
kill -INT "$top_pid"
wait "$top_pid" || fail "aioprof-top exited $?: $(cat "$WORK/late2.err")"
pty_stop "$WORK/ttyLATE2"
python3 - "$WORK/late2.json" "$WORK/replay.json" <<'PY' || fail "the late port's figures differ from the replay's"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if a["tasks"] == b["tasks"] and a["stream"]["bytes"] == b["stream"]["bytes"] else 1)
PY
# the recording starts when the port came: replayed at its pace, it does not wait first
first=$(chunks "$WORK/late2.aiop" | awk '$1 == 1 {print $2; exit}')
[ "$first" -lt 1000000 ] || fail "the recording's first bytes are at $first us: the wait was recorded"

# ---- --no-reconnect: today's exit, at once
rc=0
"$TOP" "$WORK/ttyNEVER" --report --no-reconnect > /dev/null 2> "$WORK/never.err" || rc=$?
[ "$rc" = 1 ] || fail "--no-reconnect on a missing port exited $rc"
grep -q "no such port: $WORK/ttyNEVER" "$WORK/never.err" || fail "--no-reconnect: $(cat "$WORK/never.err")"

# ---- no port named: the first MicroPython board, when it comes
fake=${AIOPROF_BUILD:-/nonexistent}/tests/shim/libaioprof_fake_ports.so
if [ ! -e "$fake" ]; then
    src=${AIOPROF_SRC:-$(dirname "$0")/../..}/tests/shim/fake_ports.c
    fake=$WORK/fake_ports.so
    cc -shared -fPIC -O1 -o "$fake" "$src" || fail "cannot build the stand-in from $src"
fi
echo "/dev/ttyS0,0,0,,," > "$WORK/ports"
rc=0
env AIOPROF_FAKE_PORTS_FILE="$WORK/ports" LD_PRELOAD="$fake" "$TOP" --report --no-reconnect \
    > /dev/null 2> "$WORK/none.err" || rc=$?
[ "$rc" = 1 ] || fail "no board with --no-reconnect: exit $rc"
grep -q 'no MicroPython board found' "$WORK/none.err" || fail "no board: $(cat "$WORK/none.err")"

env AIOPROF_FAKE_PORTS_FILE="$WORK/ports" LD_PRELOAD="$fake" "$TOP" --json --duration 2 \
    > "$WORK/first.json" 2> "$WORK/first.err" &
top_pid=$!
IO_PIDS+=("$top_pid")
wait_for_text "$WORK/first.err" "waiting for a MicroPython board" 10 || fail "no word of waiting: $(cat "$WORK/first.err")"
"$SIM" -w seed --clock real --duration 30 --pty --pty-link "$WORK/sim.link" -q 2> "$WORK/sim.err" &
IO_PIDS+=($!)
wait_for_text "$WORK/sim.link" '^/dev/' 10 || fail "the simulator gave no pty: $(cat "$WORK/sim.err")"
pico=$(cat "$WORK/sim.link")
echo "/dev/ttyS0,0,0,,,;$pico,2e8a,0005,MicroPython,Board in FS mode,e6614c311b7e6f35" > "$WORK/ports"
wait "$top_pid" || fail "waiting for the first board: exit $?: $(cat "$WORK/first.err")"
grep -q "using $pico" "$WORK/first.err" || fail "the board that came was not used: $(cat "$WORK/first.err")"
[ "$(json "$WORK/first.json" '[t["count"] for t in j["tasks"] if t["name"] == "slow"][0]')" -gt 0 ] \
    || fail "nothing read from the board that came: $(cat "$WORK/first.err")"
echo "board_wait: all checks passed"
