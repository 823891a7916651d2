#!/usr/bin/env bash
# Untrusted device bytes never reach the terminal raw: a task named ESC "[2J" (clear screen) and
# device text full of escape sequences are shown as visible text, and the screen around them is
# intact. The same recording in the C locale draws plain ASCII only.
set -euo pipefail
source "$(dirname "$0")/tui_common.bash"

"$AIOPROF_SIM" -w seed --clock virtual --duration 20 --text 20 --hostile-text -q -o "$TUI_WORK/seed.bin"

# Renames the task "slow" to ESC [ 2 J in every frame that names it: same length, CRC made again.
E2E_DIR=$(cd "$(dirname "$0")" && pwd) python3 - "$TUI_WORK/seed.bin" "$TUI_WORK/hostile.bin" <<'PY'
import os, sys

sys.path.insert(0, os.environ["E2E_DIR"])
from wire import cobs_encode, crc16, frame_body

data = open(sys.argv[1], 'rb').read()
segs = data.split(b'\x00')
renamed = 0
for k, seg in enumerate(segs):
    body = frame_body(seg) if seg else None
    if body is None or b'\x04slow' not in body[:-2]:
        continue
    nb = body[:-2].replace(b'\x04slow', b'\x04\x1b[2J', 1)
    segs[k] = cobs_encode(nb + crc16(nb).to_bytes(2, 'little'))
    renamed += 1
if renamed < 1:
    sys.exit('no frame names slow (%d)' % renamed)
open(sys.argv[2], 'wb').write(b'\x00'.join(segs))
PY

tui_start 120 40 C.UTF-8 -r "$TUI_WORK/hostile.bin"
tui_wait 'end of recording' || fail "the replay did not reach its end"
# the name is shown escaped, at the top (it is still the hog); the screen was not cleared
escaped_name() { grep -qF '\e[2J' "$TUI_SHOT"; }
tui_until "the hostile name is not shown as \\e[2J" escaped_name
hog_first() { grep -nE '^(\\e\[2J|quicker|main) ' "$TUI_SHOT" | head -1 | grep -qF '\e[2J'; }
tui_until "the renamed hog is not the first row" hog_first
tui_has 'aioprof-sim seed, protocol 1'
tui_has '^name '
tui_has 'dropped 0 +CRC errors 0'
# the device text pane shows the escapes as text
tui_has 'device output'
# every other line the simulator printed is hostile: each shows at least one visible escape
pane() { awk 'seen { print } /device output/ { seen = 1 }' "$TUI_SHOT"; }
pane_has() { pane | grep -qE -- "$1"; }
tui_until "no device text in the pane" pane_has 'line [0-9]+'
tui_until "no escaped device text in the pane" pane_has '\\(e|a|b|r|x[0-9a-f]{2})'
# nothing raw reached tmux: its own copy of the screen holds no control characters
tui_tmux capture-pane -p -e >"$TUI_WORK/raw.txt"
if LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f]' "$TUI_WORK/raw.txt"; then
    fail "control characters reached the terminal"
fi
tui_key q
tui_wait 'EXIT=0' || fail "q did not end the program with 0"

# ---- the C locale: ASCII only, ASCII marks
tui_start 100 30 C -r "$TUI_WORK/seed.bin"
tui_wait 'end of recording' || fail "the replay did not reach its end (C locale)"
tui_has 'vtotal ms'
tui_has '^slow '
tui_settle
if LC_ALL=C grep -qP '[\x80-\xff]' "$TUI_SHOT"; then
    fail "non-ASCII bytes on the screen in the C locale"
fi
tui_key q
tui_wait 'EXIT=0' || fail "q did not end the program with 0"
echo "ok: tui_hostile"
