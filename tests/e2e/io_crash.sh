#!/usr/bin/env bash
# Recordings survive what ends sessions badly: cut at any point, or the recorder killed with -9.
# SIGTERM closes a recording cleanly (end marker, nothing lost).
set -euo pipefail
source "$(dirname "$0")/io_common.bash"

# A recording with many chunks: a capture fed through a pty.
"$SIM" -w busy -o "$WORK/raw.bin" --duration 4 --text 100 2> /dev/null
pty_start "$WORK/ttyC" "$WORK/raw.bin"
"$TOP" "$WORK/ttyC" --json -w "$WORK/full.aiop" > "$WORK/full.json" 2> /dev/null &
top_pid=$!
IO_PIDS+=("$top_pid")
pty_drained "$WORK/ttyC"
top_stop "$top_pid" || fail "the live session exited $?"
size=$(stat -c %s "$WORK/full.aiop")
full_bytes=$(json "$WORK/full.json" 'j["stream"]["bytes"]')
[ "$full_bytes" = "$(stat -c %s "$WORK/raw.bin")" ] || fail "the live session read $full_bytes bytes"
header=$(python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(14); print(14+struct.unpack_from("<I",d,10)[0])' "$WORK/full.aiop")

# Cut at seeded random offsets after the header: every cut replays (exit 0) with a note, and reads
# no more than the bytes before the cut, and never fewer as the cut moves on.
offsets=$(python3 -c 'import random,sys; r=random.Random(11); h,s=int(sys.argv[1]),int(sys.argv[2]); print(" ".join(map(str, sorted([h, h+1, s-1] + r.sample(range(h+2, s-1), 9)))))' "$header" "$size")
prev=0
for off in $offsets; do
    head -c "$off" "$WORK/full.aiop" > "$WORK/cut.aiop"
    rc=0
    "$TOP" --replay "$WORK/cut.aiop" --json > "$WORK/cut.json" 2> "$WORK/cut.err" || rc=$?
    [ "$rc" = 0 ] || fail "a recording cut at $off of $size exited $rc: $(grep -v ^device: "$WORK/cut.err")"
    grep -q "^aioprof-top: note: $WORK/cut.aiop " "$WORK/cut.err" || fail "no note for the cut at $off"
    bytes=$(json "$WORK/cut.json" 'j["stream"]["bytes"]')
    [ "$bytes" -le $(( off - header )) ] || fail "cut at $off: read $bytes bytes, more than the file holds"
    [ "$bytes" -ge "$prev" ] || fail "cut at $off: read $bytes bytes, fewer than an earlier cut ($prev)"
    prev=$bytes
    echo "cut at $off of $size: $bytes stream bytes"
done
[ "$prev" -le "$full_bytes" ] || fail "a cut read more than the whole"

# kill -9 in the middle of a session: what was flushed (at most 250 ms old) replays. Killed once
# the recording holds two frames and two tasks; what it held then must all be there afterwards.
"$TOP" --demo -w "$WORK/killed.aiop" --json > /dev/null 2>&1 &
top_pid=$!
IO_PIDS+=("$top_pid")
wait_until replay_has "$WORK/killed.aiop" 'j["stream"]["frames"] >= 2 and len(j["tasks"]) >= 2' ||
    fail "the recording never held two frames and two tasks"
before=$(json "$WORK/snapshot.json" 'j["stream"]["frames"]')
kill -9 "$top_pid"
wait "$top_pid" 2> /dev/null || true
rc=0
"$TOP" --replay "$WORK/killed.aiop" --json > "$WORK/killed.json" 2> "$WORK/killed.err" || rc=$?
[ "$rc" = 0 ] || fail "the killed recording exited $rc: $(cat "$WORK/killed.err")"
grep -q "has no end marker" "$WORK/killed.err" || fail "no note on the killed recording: $(cat "$WORK/killed.err")"
frames=$(json "$WORK/killed.json" 'j["stream"]["frames"]')
[ "$frames" -ge "$before" ] || fail "the killed recording holds $frames frames, $before were flushed before the kill"
[ "$(json "$WORK/killed.json" 'len(j["tasks"])')" -ge 2 ] || fail "the killed recording has no tasks"

# SIGTERM: a clean close, the same figures as the session printed (sent once a frame is recorded).
"$TOP" --demo -w "$WORK/term.aiop" --json > "$WORK/term-live.json" 2> /dev/null &
top_pid=$!
IO_PIDS+=("$top_pid")
wait_until replay_has "$WORK/term.aiop" 'j["stream"]["frames"] >= 1' || fail "the recording never held a frame"
kill -TERM "$top_pid"
wait "$top_pid" || fail "SIGTERM made aioprof-top exit $?"
"$TOP" --replay "$WORK/term.aiop" --json > "$WORK/term.json" 2> "$WORK/term.err"
grep -q "note" "$WORK/term.err" && fail "a SIGTERM'd recording is not clean: $(cat "$WORK/term.err")"
python3 - "$WORK/term-live.json" "$WORK/term.json" <<'PY' || fail "SIGTERM lost data"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
# the replay ends before the device stopped (the live session, ended by the signal, says nothing)
for j in (a, b):
    j["stream"].pop("ended_before_stop", None)
    for t in j["tasks"]:
        t.pop("lower_bound", None)
sys.exit(0 if a["tasks"] == b["tasks"] and a["stream"] == b["stream"] and a["stream"]["frames"] > 0 else 1)
PY
echo "io_crash: all checks passed"
