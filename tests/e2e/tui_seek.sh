#!/usr/bin/env bash
# A replay in the live table: its position and length in the header, the position moving with the
# wall clock at 1x (smoothly, not a chunk at a time), and seeking (left and right by 10 s, Home,
# End) with the figures rebuilt to that point: at each target they are those of a --json report
# of the recording cut there. The speed keys stay within --speed's range (+ after --speed 1000).
# A FIFO cannot be read again: seeking back in it is refused with a sentence.
set -euo pipefail
source "$(dirname "$0")/tui_common.bash"
E2E=$(cd "$(dirname "$0")" && pwd)

# until_screen WHAT PATTERN: waits for the screen to match, else fails with WHAT
until_screen() {
    tui_wait "$2" || fail "$1"
}

# 42 frames of the seed workload, one a chunk, a second apart: the recording is 41 s long
"$AIOPROF_SIM" -w seed --clock virtual --duration 40 -q -o "$TUI_WORK/seed.bin"
chunks=$(python3 "$E2E/frame_recording.py" "$TUI_WORK/seed.bin" "$TUI_WORK/rec.aiop")
length=$((chunks - 1))

# the figures of slow at recorded time T seconds: a report of the chunks up to T
want() {
    python3 "$E2E/frame_recording.py" "$TUI_WORK/seed.bin" "$TUI_WORK/cut.aiop" --chunks $(($1 + 1)) >/dev/null
    "$AIOPROF_TOP" -r "$TUI_WORK/cut.aiop" --json >"$TUI_WORK/cut.json" 2>/dev/null
    json "$TUI_WORK/cut.json" "' '.join(['%d %.3f' % (t['count'], t['total_us'] / 1000) for t in j['tasks'] if t['name'] == 'slow'] or ['none'])"
}
shown() {
    local c t
    c=$(tui_field slow 3)
    t=$(tui_field slow 4)
    echo "${c:-none}${t:+ $t}"
}
# at T: the table (paused, settled) shows what a report of the recording up to T says
figures_at() {
    local w
    w=$(want "$1")
    shows_w() { [ "$(shown)" = "$w" ]; }
    tui_until "at $1 s the table does not show slow as a report of the recording up to there: '$w'" shows_w
}

launched=$(date +%s.%N)
tui_start 120 30 C.UTF-8 -r "$TUI_WORK/rec.aiop"
until_screen "no position / length in the header" "1x, [0-9]+\.[0-9] / $length\.0 s"

# ---- the position follows the wall clock at 1x, smoothly: sampled over about 4 s. A loaded
# machine can only make a screen late (a sample's position lower than its time says), never
# early: so no position is ahead of the wall time since the launch, the freshest samples of the
# first and the last third lie on one line of slope 1, and the positions step by tenths, not by
# the recording's one-second chunks.
: >"$TUI_WORK/samples"
for _ in $(seq 30); do
    tui_capture
    pos=$(grep -oE '1x, [0-9]+\.[0-9]' "$TUI_SHOT" | head -1 | grep -oE '[0-9]+\.[0-9]' || true)
    echo "$(date +%s.%N) ${pos:-x}" >>"$TUI_WORK/samples"
    sleep 0.15 # sampling the rate, not waiting for anything
done
python3 - "$TUI_WORK/samples" "$launched" <<'PY' || fail "the position does not follow the wall clock smoothly: $(tr '\n' ' ' <"$TUI_WORK/samples")"
import sys
s = [tuple(float(x) for x in l.split()) for l in open(sys.argv[1]) if 'x' not in l.split()[1]]
launched = float(sys.argv[2])
assert len(s) >= 15, 'too few samples'
for (w0, p0), (w1, p1) in zip(s, s[1:]):
    assert p0 <= p1, ('went back', (w0, p0), (w1, p1))
for w, p in s:
    assert p <= w - launched + 0.1, ('ahead of the wall clock', w - launched, p)
third = len(s) // 3
early = max(p - w for w, p in s[:third])
late = max(p - w for w, p in s[-third:])
assert abs(late - early) <= 0.5, ('not 1x', early, late)
assert len({round(p * 10) % 10 for _, p in s}) >= 3, 'steps of whole seconds'
PY

# ---- seeking, paused so that every target is exact
tui_key Space
until_screen "space did not pause the replay" 'PAUSED'
tui_key Home
until_screen "Home did not go to the start" "1x, 0\.0 / $length\.0 s"
tui_key Right
until_screen "right did not seek 10 s forward" "1x, 10\.0 / $length\.0 s"
figures_at 10
tui_key Right
until_screen "right did not seek to 20 s" "1x, 20\.0 / $length\.0 s"
figures_at 20
tui_key Left
until_screen "left did not seek back to 10 s" "1x, 10\.0 / $length\.0 s"
figures_at 10
tui_key End
until_screen "End did not reach the end of the recording" "end of recording.*1x, $length\.0 / $length\.0 s"
figures_at "$length"
if grep -q 'seeking' "$TUI_SHOT"; then fail "at the end the header still says seeking"; fi
tui_key Home
until_screen "Home at the end did not go back to the start" "replaying.*1x, 0\.0 / $length\.0 s"
tui_key q
until_screen "q did not end aioprof-top with exit code 0" '^EXIT=0'

# ---- a raw capture: paced by its device time, its length is that device time, and seeking
# lands on the target's frame
raw_len=$("$AIOPROF_TOP" -r "$TUI_WORK/seed.bin" --json 2>/dev/null | python3 -c 'import json, sys; print("%.1f" % (json.load(sys.stdin)["elapsed_us"] / 1e6))')
tui_start 120 30 C.UTF-8 -r "$TUI_WORK/seed.bin"
until_screen "a raw capture's replay shows no length" "1x, [0-9]+\.[0-9] / $raw_len s"
tui_key Space
until_screen "space did not pause the raw capture's replay" 'PAUSED'
tui_key Home
until_screen "Home did not go to the raw capture's start" "1x, 0\.0 / $raw_len s"
tui_key Right
until_screen "right did not seek 10 s into the raw capture" "1x, 10\.0 / $raw_len s"
device=$(grep -oE 'time [0-9]+\.[0-9]+ s' "$TUI_SHOT" | head -1 | cut -d' ' -f2)
python3 -c "import sys; sys.exit(0 if 10.0 <= $device < 11.5 else 1)" ||
    fail "10 s into the raw capture, the table has taken in $device s of device time"
tui_key q
until_screen "q did not end aioprof-top with exit code 0" '^EXIT=0'

# ---- faster after --speed 1000 stays at 1000 (it was cut to 64), slower halves it
tui_start 120 30 C.UTF-8 -r "$TUI_WORK/rec.aiop" --speed 1000
until_screen "the fast replay did not reach its end" 'end of recording.*1000x'
tui_key +
tui_key -
until_screen "+ then - after --speed 1000 does not show 500x" 'end of recording.*500x'
tui_key q
until_screen "q did not end aioprof-top with exit code 0" '^EXIT=0'

# ---- --log writes the device text as it goes: seeking back, which would write the lines before
# the target again, is refused with a sentence, and no line is logged twice
"$AIOPROF_SIM" -w seed --clock virtual --duration 30 --text 5 -q -o "$TUI_WORK/text.bin"
tui_start 120 30 C.UTF-8 -r "$TUI_WORK/text.bin" --log "$TUI_WORK/text.log"
until_screen "the replay with --log did not start" 'replaying.*1x, [0-9]+\.[0-9] / '
tui_key Space
until_screen "space did not pause the replay with --log" 'PAUSED'
tui_key Right
until_screen "right did not seek forward with --log" '1x, 1[0-9]\.[0-9] / '
tui_key Left
until_screen "seeking back with --log is not refused with a sentence" 'seeking back is off while the device text is logged'
tui_key q
until_screen "q did not end aioprof-top with exit code 0" '^EXIT=0'
[ -s "$TUI_WORK/text.log" ] || fail "--log wrote nothing"
twice=$(sed 's/^\[[^]]*\] //' "$TUI_WORK/text.log" | sort | uniq -d | head -3)
[ -z "$twice" ] || fail "--log has lines twice: $twice"

# ---- a FIFO is read as it comes: seeking back in it is refused, with a sentence
mkfifo "$TUI_WORK/fifo"
tui_start 120 30 C.UTF-8 -r "$TUI_WORK/fifo"
cat "$TUI_WORK/rec.aiop" >"$TUI_WORK/fifo" &
until_screen "the FIFO's replay did not start" 'replaying.*1x, [1-9][0-9]*\.[0-9] s'
tui_key Left
until_screen "seeking back in a FIFO is not refused with a sentence" 'cannot be read again from the start'
tui_key q
until_screen "q did not end aioprof-top with exit code 0" '^EXIT=0'
wait
echo "ok: tui_seek"
