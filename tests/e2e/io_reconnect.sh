#!/usr/bin/env bash
# Unplug and replug: the port's path disappears and comes back. aioprof-top says so once, keeps its
# figures and the recording, reconnects to the same path, and the recording replays the same gap.
# With --no-reconnect it exits 1 instead.
set -euo pipefail
source "$(dirname "$0")/io_common.bash"

"$SIM" -w seed -o "$WORK/part.bin" --duration 6 2> /dev/null
"$TOP" --replay "$WORK/part.bin" --json > "$WORK/part.json" 2> /dev/null
once=$(json "$WORK/part.json" '[t["count"] for t in j["tasks"] if t["name"] == "slow"][0]')
[ "$once" -gt 0 ] || fail "the capture has no slow slices"

# plugged in: the first part; unplugged once aioprof-top has read all of it; plugged in again: the
# same device, started again
pty_start "$WORK/ttyFAKE" "$WORK/part.bin"
"$TOP" "$WORK/ttyFAKE" --json -w "$WORK/session.aiop" > "$WORK/live.json" 2> "$WORK/live.err" &
top_pid=$!
IO_PIDS+=("$top_pid")
pty_drained "$WORK/ttyFAKE"
pty_stop "$WORK/ttyFAKE"
wait_for_text "$WORK/live.err" "went away; waiting for it to come back" || fail "no word of the unplug: $(cat "$WORK/live.err")"
pty_start "$WORK/ttyFAKE" "$WORK/part.bin"
wait_for_text "$WORK/live.err" "is back" || fail "no reconnect: $(cat "$WORK/live.err")"
pty_drained "$WORK/ttyFAKE"
top_stop "$top_pid" || fail "aioprof-top exited $? after the reconnect: $(cat "$WORK/live.err")"
[ "$(grep -c "went away" "$WORK/live.err")" = 1 ] || fail "the unplug was not said exactly once: $(cat "$WORK/live.err")"

twice=$(json "$WORK/live.json" '[t["count"] for t in j["tasks"] if t["name"] == "slow"][0]')
echo "slow slices: $once in one part, $twice over the reconnect"
[ "$twice" -gt "$once" ] || fail "the figures after the reconnect ($twice) do not add to the first part ($once)"
[ "$twice" -le $(( 2 * once )) ] || fail "more slices ($twice) than two parts hold"
[ "$(json "$WORK/live.json" 'j["stream"]["reconnects"]')" -ge 1 ] || fail "stream.reconnects not counted"
[ "$(json "$WORK/live.json" 'j["stream"]["bytes"]')" = $(( 2 * $(stat -c %s "$WORK/part.bin") )) ] \
    || fail "not every byte of both parts was read"

# the recording holds the gap as link chunks, and its replay gives the same figures
chunks "$WORK/session.aiop" > "$WORK/session.chunks"
[ "$(awk '$1 == 2' "$WORK/session.chunks" | wc -l)" = 1 ] || fail "no link-down chunk in the recording"
[ "$(awk '$1 == 3' "$WORK/session.chunks" | wc -l)" = 1 ] || fail "no link-up chunk in the recording"
"$TOP" --replay "$WORK/session.aiop" --json > "$WORK/replay.json" 2> /dev/null
python3 - "$WORK/live.json" "$WORK/replay.json" <<'PY' || fail "the replay of the reconnect differs"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if a["tasks"] == b["tasks"] and a["stream"] == b["stream"] else 1)
PY

# --no-reconnect: exit 1 when the port goes away, with the report of everything read before
pty_stop "$WORK/ttyFAKE"
pty_start "$WORK/ttyFAKE" "$WORK/part.bin"
"$TOP" "$WORK/ttyFAKE" --json --no-reconnect > "$WORK/nr.json" 2> "$WORK/nr.err" &
top_pid=$!
IO_PIDS+=("$top_pid")
pty_drained "$WORK/ttyFAKE"
pty_stop "$WORK/ttyFAKE"
rc=0
wait "$top_pid" || rc=$?
[ "$rc" = 1 ] || fail "--no-reconnect exited $rc: $(cat "$WORK/nr.err")"
grep -q "$WORK/ttyFAKE went away (--no-reconnect" "$WORK/nr.err" || fail "message: $(cat "$WORK/nr.err")"
[ "$(json "$WORK/nr.json" 'j["stream"]["bytes"]')" = "$(stat -c %s "$WORK/part.bin")" ] ||
    fail "the report lacks bytes read before the unplug: $(head -c 600 "$WORK/nr.json") $(cat "$WORK/nr.err")"
echo "io_reconnect: all checks passed"
