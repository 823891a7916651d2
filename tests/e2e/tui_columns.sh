#!/usr/bin/env bash
# The live table's column sets (f) on a recording of the seed workload, against the simulator's
# truth: the main set with late max and blocked by (quicker late by 80 ms, blocked by slow), the
# slices' percentiles, lateness in full, and back; the header names the set; the last second (w)
# shows "-" in the cumulative-only columns rather than a number it does not have; a device that
# does not report lateness has no lateness columns in the main set and "-" in the lateness set.
set -euo pipefail
source "$(dirname "$0")/tui_common.bash"

"$AIOPROF_SIM" -w seed --clock virtual --duration 20 -q -o "$TUI_WORK/x.bin" --truth "$TUI_WORK/truth.json"
truth=$TUI_WORK/truth.json

tui_start 160 40 C.UTF-8 -r "$TUI_WORK/x.bin" --speed 0
tui_wait 'end of recording' || fail "the replay did not reach its end"
tui_wait '^slow ' || fail "no row for slow"
tui_lacks 'columns:'
# t: the truth's figure of a task, in ms with three decimals
t() { json "$truth" "'%.3f' % ([t['$2'] for t in j['tasks'] if t['name']=='$1'][0] / 1000)"; }
share() { json "$truth" "'%d' % round(100 * [t['blocked_us'] / t['late_total_us'] for t in j['tasks'] if t['name']=='$1'][0])"; }
culprit() { json "$truth" "[t['blocked_by'] for t in j['tasks'] if t['name']=='$1'][0]"; }

# ---- the main set: late max and blocked by, once the device reports lateness
tui_has '^name +inst +count +▼total ms +% +max ms +mean ms +slow +errors +late max +blocked by'
[ "$(culprit quicker)" = slow ] || fail "the truth does not have slow blocking quicker: $(culprit quicker)"
want_max=$(t quicker late_max_us)
tui_until "quicker's late max is not the truth's $want_max" tui_field_is quicker 10 "$want_max"
blocked() { grep -qE "^quicker .* $want_max slow $(share quicker) %\$" "$TUI_SHOT"; }
tui_until "quicker is not blocked by slow, $(share quicker) %" blocked
tui_until "slow is shown late" tui_field_is slow 10 "$(t slow late_max_us)"
tui_until "slow shows a culprit" tui_field_is slow 11 -

# ---- f: the slices' percentiles: a task whose slices all last the same shows that length
tui_key f
tui_has 'columns: slices'
tui_has '^name +count +▼total ms +% +mean ms +p50 ms +p95 ms +p99 ms +max ms +slow'
for name in slow quicker; do
    [ "$(t $name min_us)" = "$(t $name max_us)" ] || fail "the truth's $name slices are not all alike"
    want=$(t $name max_us)
    for f in 6 7 8; do
        tui_until "$name's percentile (field $f) is not its one slice length $want" tui_field_is $name $f "$want"
    done
done
# ---- f: lateness in full: the mean is the truth's, the percentiles within the histogram's
# error (6.25 %) of the late resumes' range, in order, and no more than the max
tui_key f
tui_has 'columns: lateness'
tui_has '^name +count +late mean +late p50 +late p95 +late p99 +late max +blocked by'
# the mean over every resume (on time ones as 0), as the report's, to the microsecond
want_mean=$(json "$truth" "'%.3f' % [((t['late_total_us'] + t['resumes'] // 2) // t['resumes']) / 1000 for t in j['tasks'] if t['name']=='quicker'][0]")
tui_until "quicker's late mean is not the truth's $want_mean" tui_field_is quicker 3 "$want_mean"
pcts_fit() {
    local p50 p95 p99
    p50=$(tui_field quicker 4); p95=$(tui_field quicker 5); p99=$(tui_field quicker 6)
    python3 -c "
import sys
p50, p95, p99, mean, mx = map(float, sys.argv[1:])
sys.exit(0 if p50 <= p95 <= p99 <= mx and p50 >= mean * (1 - 0.0625) * 0.99 else 1)" "$p50" "$p95" "$p99" "$want_mean" "$want_max"
}
tui_until "quicker's lateness percentiles do not fit its mean and max" pcts_fit
tui_until "quicker's late max is not the truth's $want_max" tui_field_is quicker 7 "$want_max"
tui_until "quicker is not blocked by slow" tui_field_is quicker 8 slow
# ---- f: the main set again
tui_key f
tui_lacks 'columns:'
tui_has '^name +inst +count +▼total ms'
want_count=$(json "$truth" "[t['count'] for t in j['tasks'] if t['name']=='slow'][0]")
tui_until "slow's count is not the truth's $want_count" tui_field_is slow 3 "$want_count"
# ---- the last second (w) has no percentiles: "-"
tui_key f w
tui_has 'columns: slices'
tui_has 'last [0-9.]+ s'
no_pct() { [ "$(tui_field slow 6)" = - ] && [ "$(tui_field slow 7)" = - ] && [ "$(tui_field slow 8)" = - ]; }
tui_until "the last second shows percentiles it cannot have" no_pct
tui_key q
tui_wait 'EXIT=0' || fail "q did not end the program with 0"

# ---- --sort late: the table starts sorted by late max (quicker, the late one, first), and the
# report's rows are in that order too
tui_start 160 40 C.UTF-8 -r "$TUI_WORK/x.bin" --speed 0 --sort late
tui_wait 'end of recording' || fail "the replay with --sort late did not reach its end"
tui_has 'sort late max ▼'
tui_above quicker slow
tui_key q
tui_wait 'EXIT=0' || fail "q did not end the program with 0"
"$AIOPROF_TOP" -r "$TUI_WORK/x.bin" --json --sort late >"$TUI_WORK/late.json"
first=$(json "$TUI_WORK/late.json" "j['tasks'][0]['name']")
[ "$first" = quicker ] || fail "--json --sort late does not put quicker first: $first"

# ---- a device that does not report lateness (--late-unit 0): the main set as it always was, the
# lateness set "-", not a zero it does not know
"$AIOPROF_SIM" -w seed --clock virtual --duration 5 --late-unit 0 -q -o "$TUI_WORK/old.bin"
tui_start 160 40 C.UTF-8 -r "$TUI_WORK/old.bin" --speed 0
tui_wait 'end of recording' || fail "the replay did not reach its end"
tui_has '^name +inst +count +▼total ms +% +max ms +mean ms +slow +errors *$'
tui_key f f
tui_has 'columns: lateness'
unknown() { [ "$(tui_field quicker 3)" = - ] && [ "$(tui_field quicker 7)" = - ] && [ "$(tui_field quicker 8)" = - ]; }
tui_until "lateness not reported, yet quicker shows figures" unknown
tui_key q
tui_wait 'EXIT=0' || fail "q did not end the program with 0"
echo "ok: tui_columns"
