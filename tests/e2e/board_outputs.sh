#!/usr/bin/env bash
# Outputs alone: with no view asked for and no terminal, an output option (-w on a live port,
# --export-trace, --log) is enough, and aioprof-top just makes it (exit 0, nothing on stdout). A
# trace that a replay's stop cut short says so in its metadata and on stderr; a whole one says it
# is complete. --log holds the device's text lines, each with its host time, the same lines an
# independent decoder (tests/e2e/wire.py) finds in the bytes.
set -euo pipefail
source "$(dirname "$0")/io_common.bash"
here=$(cd "$(dirname "$0")" && pwd)

# ---- -w on a live port, no terminal: the recording, and nothing else
"$TOP" --demo --workload seed --duration 2 -w "$WORK/rec.aiop" < /dev/null > "$WORK/rec.out" 2> "$WORK/rec.err" \
    || fail "-w alone exited $?: $(cat "$WORK/rec.err")"
[ ! -s "$WORK/rec.out" ] || fail "-w alone wrote to stdout: $(head -c 300 "$WORK/rec.out")"
"$TOP" -r "$WORK/rec.aiop" --json > "$WORK/rec.json"
[ "$(json "$WORK/rec.json" '[t["count"] for t in j["tasks"] if t["name"] == "slow"][0]')" -gt 0 ] \
    || fail "the recording made alone holds no slices"

# ---- the README's line from a script: -r with --export-trace only
"$SIM" -w instances --duration 5 --text 20 -q -o "$WORK/cap.bin" --truth "$WORK/truth.json"
"$TOP" -r "$WORK/cap.bin" --export-trace "$WORK/whole.json" < /dev/null > "$WORK/whole.out" 2> "$WORK/whole.err" \
    || fail "--export-trace alone exited $?: $(cat "$WORK/whole.err")"
[ ! -s "$WORK/whole.out" ] || fail "--export-trace alone wrote to stdout"
[ ! -s "$WORK/whole.err" ] || fail "--export-trace alone said something: $(cat "$WORK/whole.err")"
"$TOP" -r "$WORK/cap.bin" --json > "$WORK/cap.json" 2> /dev/null
python3 "$here/trace_check.py" "$WORK/whole.json" "$WORK/cap.json" --truth "$WORK/truth.json" || fail "the trace made alone"
[ "$(json "$WORK/whole.json" 'j["otherData"]["complete"]')" = True ] || fail "a whole trace is not said to be complete"
[ "$(json "$WORK/whole.json" 'j["otherData"]["ended_by"]')" = "the end of the input" ] || fail "ended_by of a whole trace"

# ---- cut short by --duration: valid, and said so in its metadata and on stderr (a recording of
# 20 s of the seed workload, its times made so that it is long whatever the machine's load)
"$SIM" -w seed --duration 20 -q -o "$WORK/seed.bin"
python3 "$here/make_recording.py" "$WORK/seed.bin" "$WORK/long.aiop" 64 250000
"$TOP" -r "$WORK/long.aiop" --speed 1 --duration 0.3 --export-trace "$WORK/cut.json" < /dev/null \
    > /dev/null 2> "$WORK/cut.err" || fail "the cut replay exited $?: $(cat "$WORK/cut.err")"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$WORK/cut.json" || fail "the cut trace is not valid JSON"
[ "$(json "$WORK/cut.json" 'j["otherData"]["complete"]')" = False ] || fail "the cut trace says it is complete"
[ "$(json "$WORK/cut.json" 'j["otherData"]["ended_by"]')" = "--duration" ] || fail "the cut trace does not say --duration cut it"
grep -q "the trace $WORK/cut.json is cut short: --duration stopped the replay at" "$WORK/cut.err" \
    || fail "no word on stderr of the cut: $(cat "$WORK/cut.err")"

# ---- cut short by Ctrl-C, once the trace holds something
"$TOP" -r "$WORK/long.aiop" --speed 1 --export-trace "$WORK/int.json" < /dev/null > /dev/null 2> "$WORK/int.err" &
top_pid=$!
IO_PIDS+=("$top_pid")
wait_for_text "$WORK/int.json" '"ph":"X"' 20 || fail "no slice reached the trace: $(cat "$WORK/int.err")"
kill -INT "$top_pid"
wait "$top_pid" || fail "the interrupted replay exited $?: $(cat "$WORK/int.err")"
[ "$(json "$WORK/int.json" 'j["otherData"]["complete"]')" = False ] || fail "the interrupted trace says it is complete"
[ "$(json "$WORK/int.json" 'j["otherData"]["ended_by"]')" = "Ctrl-C" ] || fail "the interrupted trace does not say Ctrl-C"
grep -q "cut short: Ctrl-C stopped the replay" "$WORK/int.err" || fail "no word of the interruption: $(cat "$WORK/int.err")"

# ---- --log alone: the text lines, stamped, as an independent decoder reads them
"$TOP" -r "$WORK/cap.bin" --log "$WORK/cap.log" < /dev/null > /dev/null 2> "$WORK/log.err" || fail "--log alone exited $?"
[ ! -s "$WORK/log.err" ] || fail "--log alone put text on stderr too: $(head -3 "$WORK/log.err")"
python3 - "$WORK/cap.bin" "$WORK/cap.log" "$here" <<'PY' || fail "the log differs from the text in the capture"
import re, sys
sys.path.insert(0, sys.argv[3])
import wire
data = open(sys.argv[1], "rb").read()
text = b"".join(seg for seg in data.split(b"\0") if seg and wire.frame_body(seg) is None)
want = [line.rstrip(b"\r").decode() for line in text.split(b"\n")[:-1]]
got = []
for line in open(sys.argv[2], encoding="utf-8"):
    m = re.match(r"^\[\+\d+\.\d{3}\] (.*)\n$", line)
    if not m:
        sys.exit("a log line without its stamp: %r" % line)
    got.append(m.group(1))
if got != want or not got:
    sys.exit("log %d lines, capture %d: first difference %r" % (len(got), len(want),
             next(((a, b) for a, b in zip(got, want) if a != b), None)))
PY
# a live session stamps its lines with the wall clock
"$TOP" --demo --text --duration 2 --log "$WORK/demo.log" --json > "$WORK/demo.json" 2> "$WORK/demo.err" \
    || fail "--demo --text --log exited $?: $(cat "$WORK/demo.err")"
lines=$(wc -l < "$WORK/demo.log")
[ "$lines" -gt 0 ] || fail "--demo --text printed no text"
[ "$lines" = "$(json "$WORK/demo.json" 'j["stream"]["text_lines"]')" ] || fail "the log has $lines lines, the report counts others"
grep -qvE '^\[20[0-9]{2}-[01][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-6][0-9]\.[0-9]{3}\] ' "$WORK/demo.log" \
    && fail "a live log line without its wall-clock stamp: $(head -3 "$WORK/demo.log")"
grep -q '^device: ' "$WORK/demo.err" && fail "with --log, device text also went to stderr"
echo "board_outputs: all checks passed"
