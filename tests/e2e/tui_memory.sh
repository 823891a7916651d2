#!/usr/bin/env bash
# The live table's memory columns (f, docs/live-table.md) on a recording of the simulator's alloc
# workload, against its truth: after main, slices and lateness comes `columns: memory`, with
# alloc/s, alloc, gc and gc ms; the heavy allocator's collections and their time are the truth's,
# the task that allocates nothing shows 0; sorting by alloc (<, >) puts parser first; a device that
# does not report memory never offers the set (f goes from lateness back to main).
set -euo pipefail
source "$(dirname "$0")/tui_common.bash"

"$AIOPROF_SIM" -w alloc --clock virtual --duration 20 -q -o "$TUI_WORK/a.bin" --truth "$TUI_WORK/truth.json"
truth=$TUI_WORK/truth.json
t() { json "$truth" "[t['$2'] for t in j['tasks'] if t['name']=='$1'][0]"; }
ms() { json "$truth" "'%.3f' % ([t['$2'] for t in j['tasks'] if t['name']=='$1'][0] / 1000)"; }

tui_start 160 40 C.UTF-8 -r "$TUI_WORK/a.bin" --speed 0
tui_wait 'end of recording' || fail "the replay did not reach its end"
tui_wait '^parser ' || fail "no row for parser"
tui_key f
tui_has 'columns: slices'
tui_key f
tui_has 'columns: lateness'
tui_key f
tui_has 'columns: memory'
tui_has '^name +count +▼?% +max ms +alloc +alloc/s +gc +gc ms'
[ "$(t parser gc_count)" -gt 0 ] || fail "the truth's parser has no collections"
[ "$(t blinker alloc_bytes)" = 0 ] || fail "the truth's blinker allocates"
tui_until "parser's collections are not the truth's $(t parser gc_count)" tui_field_is parser 7 "$(t parser gc_count)"
tui_until "parser's collection time is not the truth's $(ms parser gc_us)" tui_field_is parser 8 "$(ms parser gc_us)"
tui_until "logger's collections are not the truth's $(t logger gc_count)" tui_field_is logger 7 "$(t logger gc_count)"
tui_until "blinker's allocation is not 0" tui_field_is blinker 5 0
tui_until "blinker's alloc/s is not 0" tui_field_is blinker 6 0
# sorted by alloc: the heavy allocator on top, above the one that allocates nothing
# (the set starts sorted by total, which it does not show: > walks its columns from the left)
for col in 'count' '%' 'max ms' 'alloc'; do
    tui_key '>'
    tui_until "the sort did not move to $col" tui_shows "sort $col ▼"
done
tui_until "parser is not above blinker by alloc" tui_is_above parser blinker
tui_key q
tui_stop

# a device without memory: no memory set
"$AIOPROF_SIM" -w seed --clock virtual --duration 5 -q -o "$TUI_WORK/s.bin"
tui_start 160 40 C.UTF-8 -r "$TUI_WORK/s.bin" --speed 0
tui_wait 'end of recording' || fail "the replay of seed did not reach its end"
tui_key f
tui_has 'columns: slices'
tui_key f
tui_has 'columns: lateness'
tui_key f
tui_until "the main set did not come back after lateness" tui_shows_not 'columns:'
tui_key q
tui_stop
echo "tui_memory: ok"
