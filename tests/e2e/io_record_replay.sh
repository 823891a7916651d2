#!/usr/bin/env bash
# A recorded session replays to the same statistics; --speed paces by the recorded receive times;
# a raw capture replays; a recording of a capture equals the capture; a write error stops the
# recording, not the session.
set -euo pipefail
source "$(dirname "$0")/io_common.bash"

same_figures() { # same_figures A.json B.json: tasks and stream equal, the "may be low" marks too
    python3 - "$1" "$2" <<'PY' || fail "$1 and $2 differ"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for key in ("tasks", "stream"):
    if a[key] != b[key]:
        print(key, "differs:\n ", a[key], "\n ", b[key], file=sys.stderr)
        sys.exit(1)
if not a["tasks"] or a["stream"]["frames"] == 0:
    print("nothing was measured", file=sys.stderr)
    sys.exit(1)
PY
}

# 1. live (the simulator on its pty) with -w, ended by its user (--duration, Ctrl-C) while the
#    simulator runs on, then the replay of that recording: the same figures, the same marks (none)
"$TOP" --demo --duration 3 --json -w "$WORK/demo.aiop" > "$WORK/live.json" 2> "$WORK/live.err" \
    || fail "demo session failed: $(cat "$WORK/live.err")"
"$TOP" --replay "$WORK/demo.aiop" --json > "$WORK/replay.json" 2> "$WORK/replay.err" \
    || fail "replay failed: $(cat "$WORK/replay.err")"
same_figures "$WORK/live.json" "$WORK/replay.json"
grep -q "note" "$WORK/replay.err" && fail "a cleanly closed recording gave a note: $(cat "$WORK/replay.err")"
[ "$(json "$WORK/replay.json" 'j["stream"]["ended_before_stop"] or any(t["lower_bound"] for t in j["tasks"])')" = False ] \
    || fail "the replay of a session its user ended marks figures the session did not"
"$TOP" --demo --json -w "$WORK/demo-int.aiop" > "$WORK/live-int.json" 2> "$WORK/live-int.err" &
top_pid=$!
IO_PIDS+=("$top_pid")
wait_until replay_has "$WORK/demo-int.aiop" 'j["stream"]["frames"] > 50' || fail "the demo recorded nothing"
top_stop "$top_pid" || fail "the demo session stopped by Ctrl-C exited $?: $(cat "$WORK/live-int.err")"
"$TOP" --replay "$WORK/demo-int.aiop" --json > "$WORK/replay-int.json" 2> "$WORK/replay-int.err" \
    || fail "replay failed: $(cat "$WORK/replay-int.err")"
same_figures "$WORK/live-int.json" "$WORK/replay-int.json"
# the same recording without its END chunk (a killed session): its end may have left events in
# the device's ring, and the replay says so
python3 - "$WORK/demo.aiop" "$WORK/demo-cut.aiop" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
# END: type 4, the time as a varint (its last byte below 0x80, the others above), length 0
for k in range(3, 13):
    t = data[-k + 1:-1]
    if data[-k] == 4 and data[-1] == 0 and t[-1] < 0x80 and all(b >= 0x80 for b in t[:-1]):
        open(sys.argv[2], "wb").write(data[:-k])
        break
else:
    sys.exit("no END chunk at the end")
PY
"$TOP" --replay "$WORK/demo-cut.aiop" --json > "$WORK/replay-cut.json" 2> /dev/null || fail "the cut replay failed"
[ "$(json "$WORK/replay-cut.json" 'j["stream"]["ended_before_stop"] and all(t["lower_bound"] for t in j["tasks"] if t["kind"] == "name")')" = True ] \
    || fail "the replay of a recording without END marks nothing"

# 2. --speed 1 takes at least as long as the recorded receive times span (ground truth: the chunks'
#    times, read by an independent parser; 9/10 of it for the clocks' granularity), --speed 2 at
#    least half that, and the default (0) does not wait. A loaded machine can only add time: the
#    lower bounds hold whatever the load, and the upper ones are far from what is measured, on the
#    recording's times stretched (stretch IN OUT FACTOR: every chunk's receive time times FACTOR;
#    the bytes, and so the figures, are the same): 3 times for --speed 1 and 2 (each upper bound
#    is the next slower speed's lower bound, seconds away), and to hours for --speed 0, which must
#    simply end.
stretch() {
    python3 - "$@" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
factor = int(sys.argv[3])
mlen = int.from_bytes(data[10:14], "little")
out = bytearray(data[:14 + mlen])
pos = 14 + mlen
def varint(pos):
    v = shift = 0
    while True:
        b = data[pos]; pos += 1
        v |= (b & 0x7F) << shift; shift += 7
        if not b & 0x80:
            return v, pos
def put(v):
    while v >= 0x80:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v)
while pos < len(data):
    kind = data[pos]
    us, p = varint(pos + 1)
    n, p = varint(p)
    out.append(kind)
    put(us * factor)
    put(n)
    out += data[p:p + n]
    pos = p + n
open(sys.argv[2], "wb").write(out)
PY
}
stretch "$WORK/demo.aiop" "$WORK/demo-x3.aiop" 3
stretch "$WORK/demo.aiop" "$WORK/demo-hours.aiop" 10000
chunks "$WORK/demo-x3.aiop" > "$WORK/demo.chunks"
span_ms=$(awk '$1 == 1 { if (!seen) { first = $2; seen = 1 } last = $2 } END { print int((last - first) / 1000) }' "$WORK/demo.chunks")
[ "$(awk '$1 == 4' "$WORK/demo.chunks" | wc -l)" = 1 ] || fail "no end chunk in a clean recording"
[ "$span_ms" -ge 1500 ] || fail "the demo recording spans only $(( span_ms / 3 )) ms of data"
# elapsed_ms OUT CMD...: runs CMD with its output in OUT, prints how long it took
elapsed_ms() { local t0 t1 out=$1; shift; t0=$(date +%s%N); "$@" > "$out"; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000000 )); }
paced_ms=$(elapsed_ms "$WORK/paced.json" "$TOP" --replay "$WORK/demo-x3.aiop" --json --speed 1)
double_ms=$(elapsed_ms /dev/null "$TOP" --replay "$WORK/demo-x3.aiop" --json --speed 2)
echo "data spans ${span_ms} ms; replay at --speed 1: ${paced_ms} ms, 2: ${double_ms} ms"
[ "$paced_ms" -ge $(( span_ms * 9 / 10 )) ] && [ "$paced_ms" -lt $(( 2 * span_ms )) ] \
    || fail "--speed 1 took ${paced_ms} ms for ${span_ms} ms of data"
[ "$double_ms" -ge $(( span_ms * 9 / 20 )) ] && [ "$double_ms" -lt $(( span_ms * 9 / 10 )) ] \
    || fail "--speed 2 took ${double_ms} ms for ${span_ms} ms of data"
timeout 300 "$TOP" --replay "$WORK/demo-hours.aiop" --json > "$WORK/fast.json" \
    || fail "--speed 0 did not end within 300 s on $(( span_ms * 10000 / 3 / 3600000 )) hours of data (exit $?)"
same_figures "$WORK/replay.json" "$WORK/fast.json"
"$TOP" --replay "$WORK/demo.aiop" --json --speed 4 > /dev/null
same_figures "$WORK/replay.json" "$WORK/paced.json"

# 3. a raw capture (aioprof-sim -o) replays; a recording of it, made through a pty, replays the same
"$SIM" -w instances -o "$WORK/raw.bin" --duration 10 --text 40 2> /dev/null
"$TOP" --replay "$WORK/raw.bin" --json > "$WORK/raw.json" 2> /dev/null
pty_start "$WORK/ttyR" "$WORK/raw.bin"
"$TOP" "$WORK/ttyR" --json -w "$WORK/raw.aiop" > "$WORK/raw-live.json" 2> /dev/null &
top_pid=$!
IO_PIDS+=("$top_pid")
pty_drained "$WORK/ttyR"
top_stop "$top_pid" || fail "the live session of the capture exited $?"
"$TOP" --replay "$WORK/raw.aiop" --json > "$WORK/raw-replay.json" 2> /dev/null
same_figures "$WORK/raw-live.json" "$WORK/raw-replay.json"
same_figures "$WORK/raw.json" "$WORK/raw-replay.json"
[ "$(json "$WORK/raw.json" 'j["stream"]["bytes"]')" = "$(stat -c %s "$WORK/raw.bin")" ] \
    || fail "the raw replay did not read every byte"

# 4. a write error (here a file size limit of 16 KiB) is reported once; the session goes on to its
#    report. Only aioprof-top is limited: its output goes through FIFOs to unlimited cats.
pty_start "$WORK/ttyW" "$WORK/raw.bin"
mkfifo "$WORK/small.out" "$WORK/small.errout"
cat "$WORK/small.out" > "$WORK/small.json" &
cat_out=$!
cat "$WORK/small.errout" > "$WORK/small.err" &
cat_err=$!
bash -c 'ulimit -f 16; exec "$@"' limit "$TOP" "$WORK/ttyW" --json -w "$WORK/small.aiop" \
    > "$WORK/small.out" 2> "$WORK/small.errout" &
top_pid=$!
IO_PIDS+=("$top_pid" "$cat_out" "$cat_err")
pty_drained "$WORK/ttyW"
rc=0
top_stop "$top_pid" || rc=$?
wait "$cat_out" "$cat_err"
[ "$rc" = 0 ] || fail "a write error ended the session ($rc): $(cat "$WORK/small.err")"
[ "$(grep -c "recording to $WORK/small.aiop stopped" "$WORK/small.err")" = 1 ] \
    || fail "the write error was not reported once: $(cat "$WORK/small.err")"
same_figures "$WORK/raw.json" "$WORK/small.json"
"$TOP" --replay "$WORK/small.aiop" --json > /dev/null 2> "$WORK/small-replay.err" \
    || fail "the cut recording does not replay"
# 5. a recording's metadata is the file's word, not ours: --verbose shows it escaped
python3 - "$WORK/raw.aiop" "$WORK/hostile.aiop" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
at = data.find(b'"source":"') + len(b'"source":"')
data[at:at + 7] = b"\\u001b["  # ESC [ written in JSON: seven bytes for seven
open(sys.argv[2], "wb").write(data)
PY
"$TOP" --replay "$WORK/hostile.aiop" --verbose --report > /dev/null 2> "$WORK/hostile.err" \
    || fail "the recording with a hostile source does not replay: $(cat "$WORK/hostile.err")"
grep -q 'recording of \\e\[' "$WORK/hostile.err" || fail "--verbose did not show the source escaped: $(cat "$WORK/hostile.err")"
if LC_ALL=C grep -q $'\x1b' "$WORK/hostile.err"; then fail "an escape byte from the recording reached stderr"; fi
echo "io_record_replay: all checks passed"
