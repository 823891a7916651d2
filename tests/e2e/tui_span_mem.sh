#!/usr/bin/env bash
# The issue's "Done when" in the live table, on a replay of the simulator's seed-spans workload
# (docs/usage.md, "Memory per span"), against its truth: S on sensors lists its three spans with
# the hog, render, first (30 ms max), and each span's bytes (inclusive and own) and collections are
# the truth's, its alloc/s the JSON report's; S on parser shows decode's inclusive bytes (its
# nested chunks') beside its own; the memory column set (f) puts the allocating task, parser, on
# top by alloc with the truth's bytes; a terminal too narrow for every column leaves the last out
# and keeps the name.
set -euo pipefail
source "$(dirname "$0")/tui_common.bash"

"$AIOPROF_SIM" -w seed-spans --clock virtual --duration 20 -q -o "$TUI_WORK/ss.bin" --truth "$TUI_WORK/truth.json"
"$AIOPROF_TOP" -r "$TUI_WORK/ss.bin" --json > "$TUI_WORK/report.json"
truth=$TUI_WORK/truth.json
# a span's truth: count max alloc own-alloc gc, as the S view prints them
want() { # TASK SPAN
    json "$truth" "' '.join(str(x) for x in [(lambda e: [e['count'], '%d.%03d' % divmod(e['max_us'], 1000), e['alloc_bytes'],
        e['own_alloc_bytes'], e['gc_count']])([e for e in j['spans'] if e['task']=='$1' and e['span']=='$2'][0])][0])"
}
rate() { # TASK SPAN: its alloc/s in the JSON report, as the view rounds it
    json "$TUI_WORK/report.json" "'%.0f' % [x['mem']['alloc_per_s'] for t in j['tasks'] if t['name']=='$1' for x in t['spans'] if x['name']=='$2'][0]"
}
shown() { # SPAN: count max alloc own-alloc gc on the screen
    grep -E "^ $1 " "$TUI_SHOT" | head -1 | awk '{print $2, $6, $7, $8, $10}'
}
span_is() { [ "$(shown "$1")" = "$2" ]; }
first_span() { # the S view's first row
    grep -A1 -E '^ spans of ' "$TUI_SHOT" | tail -1 | awk '{print $1}'
}

tui_start 160 30 C.UTF-8 -r "$TUI_WORK/ss.bin" --speed 0
tui_wait 'end of recording' || fail "the replay did not reach its end"
tui_key / sensors Enter
tui_has '^sensors '
tui_key S
tui_has 'spans of sensors .* alloc +own alloc +alloc/s +gc +gc ms'
for span in render read parse; do
    w=$(want sensors "$span")
    tui_until "sensors' span $span is not the truth's $w" span_is "$span" "$w"
done
[ "$(first_span)" = render ] || fail "the hog, render, is not sensors' first span"
[ "$(grep -E '^ render ' "$TUI_SHOT" | awk '{print $9}')" = "$(rate sensors render)" ] ||
    fail "render's alloc/s is not the report's $(rate sensors render)"
tui_key Escape
tui_lacks 'spans of sensors'
tui_key Escape
tui_key / parser Enter
tui_has '^parser '
tui_key S
tui_has 'spans of parser'
for span in decode chunk; do
    w=$(want parser "$span")
    tui_until "parser's span $span is not the truth's $w" span_is "$span" "$w"
done
tui_key Escape
tui_lacks 'spans of parser'
tui_key Escape

# the memory columns: parser, the allocating task, on top by alloc with the truth's bytes
alloc=$(json "$truth" "[t['alloc_bytes'] for t in j['tasks'] if t['name']=='parser'][0]")
tui_key f
tui_has 'columns: slices'
tui_key f
tui_has 'columns: lateness'
tui_key f
tui_has 'columns: memory'
tui_until "parser's alloc is not the truth's $alloc" tui_field_is parser 5 "$alloc"
for col in 'count' '%' 'max ms' 'alloc'; do
    tui_key '>'
    tui_until "the sort did not move to $col" tui_shows "sort $col ▼"
done
tui_until "parser is not above sensors by alloc" tui_is_above parser sensors
tui_until "sensors is not above slow by alloc" tui_is_above sensors slow
tui_key q
tui_wait '^EXIT=0' || fail "q did not end aioprof-top with exit code 0"

# 100 cells: the S view keeps the name and the first columns, the last ones left out
tui_start 100 30 C.UTF-8 -r "$TUI_WORK/ss.bin" --speed 0
tui_wait 'end of recording' || fail "the narrow replay did not reach its end"
tui_key / sensors Enter
tui_has '^sensors '
tui_key S
tui_has 'spans of sensors .* max ms +alloc +own alloc'
tui_shows_not 'unwound' || fail "a 100-cell S view shows the last column, unwound"
narrow=$(want sensors render | awk '{print $1, $2, $3, $4}')
narrow_is() { [ "$(grep -E '^ render ' "$TUI_SHOT" | awk '{print $2, $6, $7, $8}')" = "$narrow" ]; }
tui_until "the narrow S view's render is not the truth's $narrow" narrow_is
tui_key q
tui_stop
echo "tui_span_mem: ok (sensors render: $(want sensors render); parser decode: $(want parser decode))"
