#!/usr/bin/env bash
# --speed paces a raw capture by the device time its frames carry (it was read flat out, with a
# note): 8 s of device time at --speed 4 take at least (8 - 1) / 4 s (the first frame comes at
# once), and the figures are those of the same capture read as fast as possible.
set -euo pipefail
work=$(mktemp -d /tmp/aioprof-pace.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$AIOPROF_SIM" -w seed --clock virtual --duration 8 -q -o "$work/seed.bin" --truth "$work/truth.json"
device_s=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["duration_us"] / 1e6)' "$work/truth.json")

start=$(date +%s.%N)
"$AIOPROF_TOP" -r "$work/seed.bin" --speed 4 --json >"$work/paced.json" 2>"$work/paced.err" ||
    fail "the paced replay failed: $(cat "$work/paced.err")"
took=$(python3 -c "import sys; print($(date +%s.%N) - $start)")
python3 -c "import sys; sys.exit(0 if $took >= ($device_s - 1) / 4 else 1)" ||
    fail "$device_s s of device time at --speed 4 took $took s: not paced"
if grep -q 'read as fast as possible' "$work/paced.err"; then
    fail "a note says the raw capture is read as fast as possible: $(cat "$work/paced.err")"
fi

"$AIOPROF_TOP" -r "$work/seed.bin" --json >"$work/flat.json" 2>/dev/null
python3 - "$work/paced.json" "$work/flat.json" <<'PY' || fail "the paced replay's figures differ from the flat-out one's"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for k in ('tasks', 'stream', 'elapsed_us', 'outside_us'):
    assert a[k] == b[k], k
PY
echo "ok: io_replay_pace ($device_s s at 4x took $took s)"
