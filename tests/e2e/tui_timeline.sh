#!/usr/bin/env bash
# The live table's timeline (T) on a recording of the seed workload, at its end (a still screen),
# against the simulator's ground truth: slow's lane shows its slow slices (80 ms, over the 20 ms
# threshold) and nothing but, quicker's shows its short ones, one cell each, as many as the truth
# has slices in the span; z and Z change the span the header and the axis show; T toggles back to
# the table; the C locale draws it in ASCII; a capture with more slices than the ring holds says
# how much of the span it shows.
set -euo pipefail
source "$(dirname "$0")/tui_common.bash"

"$AIOPROF_SIM" -w seed --clock virtual --duration 20 -q -o "$TUI_WORK/x.bin" --truth "$TUI_WORK/truth.json"
truth=$TUI_WORK/truth.json

# lanes_check GLYPH_RAN GLYPH_SLOW TICK SPAN_S: reads the last capture: the axis's left edge (the
# first TICK on the heading line) and its end ("now") give the cells; checks each lane against the
# truth. Prints why when a check fails.
lanes_check() {
    python3 - "$TUI_SHOT" "$truth" "$@" <<'PY'
import json, re, sys
shot, truth, ran, slow, tick, span_s = sys.argv[1:7]
span_us = float(span_s) * 1e6
lines = open(shot, encoding='utf-8').read().split('\n')
heads = [l for l in lines if re.match(r'^name\b.*now$', l.rstrip())]
if not heads:
    sys.exit('no timeline heading ending in "now"')
head = heads[0].rstrip()
x0 = head.index(tick)
ncells = len(head) - x0
if not head[x0:].startswith(tick + '-%gs' % float(span_s)):
    sys.exit('the axis does not start with -%gs: %r' % (float(span_s), head[x0:x0 + 12]))
t = {k['name']: k for k in json.load(open(truth))['tasks']}
dur = json.load(open(truth))['duration_us']
cell_us = span_us / ncells

def lane(name):
    for l in lines:
        if l.startswith(name + ' '):
            return l[x0:x0 + ncells].ljust(ncells)
    sys.exit('no lane for %s' % name)

def runs(cells, glyph):
    return [len(m.group(0)) for m in re.finditer(re.escape(glyph) + '+', cells)]

# A cell shows a slice that covers its middle, or a shorter one whose middle is in it
# (docs/live-table.md). The seed's tasks each run once a period (duration / count).
# slow: every slice over the threshold, so only the slow glyph; the cells whose middle its slices
# cover are its share of the time, give or take one per slice; when the gap between two of its
# slices is longer than a cell, each slice is a run of its own
s = lane('slow')
if ran in s:
    sys.exit('slow shows a slice that is not slow: %r' % s)
assert t['slow']['min_us'] > json.load(open(truth))['slow_us']
period = dur / t['slow']['count']
in_span = span_us / period
share = t['slow']['total_us'] / dur
cells = s.count(slow)
if abs(cells - share * ncells) > in_span + 1:
    sys.exit('slow covers %d of %d cells, the truth %.1f' % (cells, ncells, share * ncells))
slow_runs = runs(s, slow)
if period - t['slow']['max_us'] > cell_us and abs(len(slow_runs) - in_span) > 1:
    sys.exit('slow shows %d slices in %g s, the truth %.1f' % (len(slow_runs), float(span_s), in_span))
# quicker: short slices, none slow, shorter than a cell: one cell each, one cell a period
q = lane('quicker')
if slow in q:
    sys.exit('quicker shows a slow slice: %r' % q)
assert t['quicker']['max_us'] < cell_us
period = dur / t['quicker']['count']
in_span = span_us / period
if period > cell_us and abs(q.count(ran) - in_span) > 1:
    sys.exit('quicker shows %d slices in %g s, the truth %.1f' % (q.count(ran), float(span_s), in_span))
if period > 2 * cell_us and max(runs(q, ran)) > 1:
    sys.exit('quicker slices that should be cells apart run together: %r' % q)
if not any(l.startswith('(outside tasks)') for l in lines):
    sys.exit('no lane for the time outside tasks')
PY
}

tui_start 120 40 C.UTF-8 -r "$TUI_WORK/x.bin" --speed 0
tui_wait 'end of recording' || fail "the replay did not reach its end"
tui_wait '^slow ' || fail "no row for slow"

# ---- T: the timeline, its span in the header, the lanes against the truth
tui_key T
tui_has 'timeline 5 s'
tui_has '^\(outside tasks\) '
tui_until "the 5 s timeline does not agree with the truth" lanes_check █ ▓ │ 5
# ---- zoom in (z) and out (Z): the header and the axis say the span, the lanes still agree
tui_key z z
tui_has 'timeline 1 s'
tui_until "the 1 s timeline does not agree with the truth" lanes_check █ ▓ │ 1
tui_key Z
tui_has 'timeline 2 s'
tui_until "the 2 s timeline does not agree with the truth" lanes_check █ ▓ │ 2
# the help says what the glyphs are
tui_key '?' End
tui_has 'The timeline \(T\)'
tui_key x
tui_lacks 'aioprof-top help'
# ---- T again: the table, with its figures
tui_key T
tui_lacks 'timeline [0-9]'
want_count=$(json "$truth" "[t['count'] for t in j['tasks'] if t['name']=='slow'][0]")
tui_until "slow's row is not back with its count $want_count" tui_field_is slow 3 "$want_count"
tui_key q
tui_wait 'EXIT=0' || fail "q did not end the program with 0"

# ---- the ring's bound: the busy workload's 30 s hold more slices than the ring (65,536): over 20 s
# the header says how much it still holds, about the last 65,536 slices' time at the truth's rate,
# and the lanes show the older cells as not known
"$AIOPROF_SIM" -w busy --clock virtual --duration 30 -q -o "$TUI_WORK/busy.bin" --truth "$TUI_WORK/busy.json"
tui_start 120 40 C.UTF-8 -r "$TUI_WORK/busy.bin" --speed 0
tui_wait 'end of recording' || fail "the busy replay did not reach its end"
tui_key T Z Z
tui_has 'timeline 20 s'
kept_right() {
    local kept
    kept=$(grep -oE 'kept: last [0-9.]+ s' "$TUI_SHOT" | grep -oE '[0-9.]+') || return 1
    python3 - "$TUI_WORK/busy.json" "$kept" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
slices = sum(t['count'] for t in j['tasks'])
want = 65536 * j['duration_us'] / 1e6 / slices
sys.exit(0 if abs(float(sys.argv[2]) - want) <= 0.1 * want else 'kept %s s, about %.2f s expected' % (sys.argv[2], want))
PY
}
tui_until "the header does not say how much of the 20 s the ring holds" kept_right
tui_has '^\(outside tasks\) +·+'
tui_key q
tui_wait 'EXIT=0' || fail "q did not end the program with 0"

# ---- the C locale: ASCII glyphs, nothing else
tui_start 100 30 C -r "$TUI_WORK/x.bin" --speed 0
tui_wait 'end of recording' || fail "the replay did not reach its end (C locale)"
tui_key T
tui_has 'timeline 5 s'
tui_until "the ASCII timeline does not agree with the truth" lanes_check = '#' '|' 5
tui_settle
if LC_ALL=C grep -qP '[\x80-\xff]' "$TUI_SHOT"; then
    fail "non-ASCII bytes on the screen in the C locale"
fi
tui_key q
tui_wait 'EXIT=0' || fail "q did not end the program with 0"
echo "ok: tui_timeline"
