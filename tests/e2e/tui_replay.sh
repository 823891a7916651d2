#!/usr/bin/env bash
# The live table on a recording of the seed workload, in a 120x40 terminal under tmux: the rows
# and their figures against the simulator's ground truth, the order, the header counters, the
# sort marks, and every key: sort, invert, group, Enter/Esc, filter, window, freeze, reset,
# resize down to 40x10 and back, quit with the terminal given back.
set -euo pipefail
source "$(dirname "$0")/tui_common.bash"

"$AIOPROF_SIM" -w seed --clock virtual --duration 20 -q -o "$TUI_WORK/x.bin" --truth "$TUI_WORK/truth.json"
truth=$TUI_WORK/truth.json

tui_start 120 40 C.UTF-8 -r "$TUI_WORK/x.bin"
tui_wait 'end of recording' || fail "the replay did not reach its end"
tui_wait '^slow ' || fail "no row for slow"

# ---- the rows against the truth: count, total ms (exact, 3 decimals), slow slices
for name in slow quicker main; do
    want_count=$(json "$truth" "[t['count'] for t in j['tasks'] if t['name']=='$name'][0]")
    want_total=$(json "$truth" "'%.3f' % ([t['total_us'] for t in j['tasks'] if t['name']=='$name'][0] / 1000)")
    want_slow=$(json "$truth" "[t['slow'] for t in j['tasks'] if t['name']=='$name'][0]")
    tui_until "$name: count is not the truth's $want_count" tui_field_is "$name" 3 "$want_count"
    tui_until "$name: total is not the truth's $want_total" tui_field_is "$name" 4 "$want_total"
    tui_until "$name: slow is not the truth's $want_slow" tui_field_is "$name" 8 "$want_slow"
done
# sorted by total: the truth's order
order=$(json "$truth" "' '.join(t['name'] for t in sorted(j['tasks'], key=lambda t: -t['total_us']))")
set -- $order
tui_above "$1" "$2"
tui_above "$2" "$3"
tui_has '▼total ms'
tui_has '^\(outside tasks\)'
# ---- the header
tui_has 'aioprof-sim seed, protocol 1'
tui_has 'dropped 0 +CRC errors 0 +lost frames 0 +duplicates 0 +clock steps back 0 +resets 0'
tui_has 'time (19\.9[0-9]|20\.00) s'
tui_has 'by name · cumulative · sort total ms ▼'

# ---- sorting: a key per column, < >, invert; the mark follows
tui_key n
tui_has 'name▲'
tui_above main quicker
tui_above quicker slow
tui_key I
tui_has 'name▼'
tui_above slow quicker
tui_above quicker main
tui_key '>'
tui_has '▼inst'
tui_lacks 'name[▲▼]'
tui_key m
tui_has '▼max ms'
tui_above slow quicker
tui_key t
tui_has '▼total ms'

# ---- grouping by instance: ids and creators
tui_key g
tui_has 'by instance'
tui_has '^task '
created_by_main() { grep -E '^slow #2 ' "$TUI_SHOT" | grep -q 'main #1'; }
tui_until "the slow instance does not name main #1 as its creator" created_by_main
tui_key g
tui_has 'by name'

# ---- Enter on the first row (slow, the largest total) lists its instances; Esc comes back
tui_key Home
tui_key Enter
tui_has 'instances of slow'
tui_has '^slow #2 '
tui_lacks '^quicker'
tui_key Escape
tui_has 'by name'
tui_has '^quicker '

# ---- incremental filter
tui_key / q
tui_has '^quicker '
tui_lacks '^slow '
tui_key u
tui_has 'filter: qu'
# Enter ends the editing and keeps the filter: a letter is a key again (n sorts by name), not
# more of the filter
tui_key Enter n
tui_has 'name▲'
tui_has 'filter: qu *$'
tui_has '^quicker '
tui_lacks '^slow '
tui_key t
tui_has '▼total ms'
tui_key Escape
tui_lacks 'filter:'
tui_has '^slow '

# ---- the window and freeze keys show their state
tui_key w
tui_has 'last [0-9]+\.[0-9] s'
tui_key w
tui_has 'cumulative'
tui_key p
tui_has 'FROZEN'
tui_key p
tui_lacks 'FROZEN'

# ---- help
tui_key '?'
tui_has 'aioprof-top keys'
tui_key x
tui_lacks 'aioprof-top keys'

# ---- resize: 40x10 keeps name, total, share and max (the most important), and nothing spills over
# fits COLS ROWS: no line of the screen is wider than COLS, and it has at most ROWS lines
fits() { [ "$(wc -L <"$TUI_SHOT")" -le "$1" ] && [ "$(wc -l <"$TUI_SHOT")" -le "$2" ]; }
tui_tmux resize-window -x 40 -y 10
tui_until "the screen does not fit 40x10" fits 40 10
tui_has 'total ms'
tui_has ' %'
tui_has 'max ms'
tui_lacks 'count'
tui_lacks 'mean ms'
want_total=$(json "$truth" "'%.3f' % ([t['total_us'] for t in j['tasks'] if t['name']=='slow'][0] / 1000)")
tui_until "at 40 columns slow does not show its total $want_total" tui_field_is slow 2 "$want_total"
tui_tmux resize-window -x 200 -y 50
for head in inst count 'total ms' 'max ms' 'mean ms' slow errors; do tui_has "$head"; done

# ---- reset: the figures start again, the rows of the live tasks stay at zero
slow_cleared() { local c; c=$(tui_field slow 3); [ -z "$c" ] || [ "$c" = 0 ]; }
tui_key r
tui_has 'time 0\.00 s'
tui_until "after r, slow still shows slices" slow_cleared

# ---- quit: the program ends with 0 and the terminal is given back (the table is gone)
tui_key q
tui_wait 'EXIT=0' || fail "q did not end the program with 0"
tui_lacks 'by name'
echo "ok: tui_replay"
