#!/usr/bin/env bash
# A damaged recording is counted, not only said on stderr: two chunk headers broken far apart are
# two damaged stretches, in the JSON report's stream.recording_damage, in a line of the text
# report, and in the live table's header; an intact recording has none.
set -euo pipefail
source "$(dirname "$0")/tui_common.bash"
E2E=$(cd "$(dirname "$0")" && pwd)

"$AIOPROF_SIM" -w seed --clock virtual --duration 40 -q -o "$TUI_WORK/seed.bin"
python3 "$E2E/frame_recording.py" "$TUI_WORK/seed.bin" "$TUI_WORK/rec.aiop" >/dev/null
# the type byte of the chunks a third and two thirds in: a type no recording has
python3 - "$TUI_WORK/rec.aiop" "$TUI_WORK/damaged.aiop" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], 'rb').read())
pos = 14 + struct.unpack_from('<I', data, 10)[0]
heads = []
def varint(p):
    while data[p] & 0x80:
        p += 1
    return p + 1
while pos < len(data):
    heads.append(pos)
    p = varint(pos + 1)  # the time
    n, shift, q = 0, 0, p
    while True:
        n |= (data[q] & 0x7F) << shift
        shift += 7
        q += 1
        if not data[q - 1] & 0x80:
            break
    pos = q + n
for at in (heads[len(heads) // 3], heads[2 * len(heads) // 3]):
    data[at] = 0x7E
open(sys.argv[2], 'wb').write(data)
PY

"$AIOPROF_TOP" -r "$TUI_WORK/damaged.aiop" --json >"$TUI_WORK/damaged.json" 2>/dev/null
[ "$(json "$TUI_WORK/damaged.json" "j['stream']['recording_damage']")" = 2 ] ||
    fail "the JSON report counts $(json "$TUI_WORK/damaged.json" "j['stream'].get('recording_damage')") damaged stretches, not 2"
"$AIOPROF_TOP" -r "$TUI_WORK/rec.aiop" --json >"$TUI_WORK/intact.json" 2>/dev/null
[ "$(json "$TUI_WORK/intact.json" "j['stream']['recording_damage']")" = 0 ] || fail "an intact recording counts damage"
"$AIOPROF_TOP" -r "$TUI_WORK/damaged.aiop" --report >"$TUI_WORK/damaged.txt" 2>/dev/null
grep -q 'the recording is damaged in 2 places' "$TUI_WORK/damaged.txt" ||
    fail "the text report does not count the damage: $(tail -4 "$TUI_WORK/damaged.txt")"
"$AIOPROF_TOP" -r "$TUI_WORK/rec.aiop" --report >"$TUI_WORK/intact.txt" 2>/dev/null
if grep -q 'damaged in' "$TUI_WORK/intact.txt"; then fail "the text report of an intact recording speaks of damage"; fi

tui_start 120 30 C.UTF-8 -r "$TUI_WORK/damaged.aiop" --speed 0
tui_wait 'end of recording' 30 || fail "the replay did not reach its end"
tui_wait 'recording damage 2' 30 || fail "the table's header does not count the damage"
tui_key q
tui_wait '^EXIT=0' 30 || fail "q did not end aioprof-top with exit code 0"
echo "ok: tui_recording_damage"
