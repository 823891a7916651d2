#!/usr/bin/env bash
# --budget and --junit on a replay and on a live pty (the demo's simulator): limits set from the
# simulator's truth break exactly where the truth passes them (exit 3, a sentence per breach with
# the truth's value, the JUnit XML valid with one test case per line and the right failures), and
# hold where it does not (exit 0); dropped events and CRC errors against the stream's counts; a
# figure the session does not have is skipped, said, not passed off as kept; mistakes in the file
# are one sentence and exit 2, and leave no JUnit file behind.
set -euo pipefail
source "$(dirname "$0")/io_common.bash"

"$SIM" -w seed --duration 10 -o "$WORK/seed.bin" --truth "$WORK/seed.json" -q
"$SIM" -w busy --ring 256 --baud 115200 --duration 3 -o "$WORK/drops.bin" --truth "$WORK/drops.json" -q
truth() { json "$WORK/$1.json" "$2"; }
slow_max=$(truth seed '[t for t in j["tasks"] if t["name"] == "slow"][0]["max_us"]')
late_max=$(truth seed '[t for t in j["tasks"] if t["name"] == "quicker"][0]["late_max_us"]')
drops=$(truth drops 'j["dropped_events"]')
[ "$slow_max" = 80000 ] && [ "$late_max" -gt 70000 ] && [ "$drops" -gt 0 ] \
    || fail "the truth is not what this test expects: slow $slow_max, late $late_max, drops $drops"

# a limit a microsecond below the truth breaks, one at the truth holds
cat > "$WORK/tight.json" <<JSON
{"budgets": [
  {"task": "slow", "max_slice_ms": $(python3 -c "print(($slow_max - 1) / 1000)")},
  {"task": "quick*", "late_max_ms": $(python3 -c "print(($late_max - 1) / 1000)"), "share": 0.5},
  {"name": "kept", "task": "*", "max_slice_ms": $(python3 -c "print($slow_max / 1000)")},
  {"task": "*", "alloc_per_s": 10},
  {"task": "no such task", "max_slice_ms": 1},
  {"dropped_events": 0, "crc_errors": 0}
]}
JSON
set +e
"$TOP" -r "$WORK/seed.bin" --budget "$WORK/tight.json" --junit "$WORK/tight.xml" --report > "$WORK/report.txt" 2> "$WORK/err"
rc=$?
set -e
cat "$WORK/err"
[ "$rc" = 3 ] || fail "a broken budget exited $rc"
grep -q '^│ slow ' "$WORK/report.txt" || fail "the report is missing beside the budget"
grep -Fq "budget broken (line 1: slow): slow: max slice 80.000 ms > 79.999 ms, the worst at " "$WORK/err" || fail "no slow breach"
grep -Fq "quicker: late max $(python3 -c "print('%.3f' % ($late_max / 1000))") ms > " "$WORK/err" || fail "no late breach with the truth's value"
grep -q 'not all checked: the session has no allocation figures' "$WORK/err" || fail "the allocation rate was not said to be unchecked"
grep -q 'is broken: 2 of its 6 lines (exit status 3)' "$WORK/err" || fail "no summary"

# where nobody watches (no terminal, as in a CI job) a budget needs no --report: it ends with it
set +e
"$TOP" -r "$WORK/seed.bin" --budget "$WORK/tight.json" > "$WORK/report-ci.txt" 2> "$WORK/err-ci" < /dev/null
rc=$?
set -e
[ "$rc" = 3 ] || fail "a broken budget without --report nor a terminal exited $rc: $(cat "$WORK/err-ci")"
cmp -s "$WORK/report.txt" "$WORK/report-ci.txt" || fail "the budget's report without --report differs from --report's"

python3 - "$WORK/tight.xml" "$late_max" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
fail = []
suite = root.find("testsuite")
cases = suite.findall("testcase")
names = [c.get("name") for c in cases]
if names != ["line 1: slow", "line 2: quick*", "kept", "line 4: *", "line 5: no such task", "line 6: the stream"]:
    fail.append(f"test cases {names}")
state = ["failure" if c.find("failure") is not None else "skipped" if c.find("skipped") is not None else "ok" for c in cases]
if state != ["failure", "failure", "ok", "skipped", "skipped", "ok"]:
    fail.append(f"states {state}")
if (root.get("tests"), root.get("failures"), root.get("skipped")) != ("6", "2", "2"):
    fail.append(f"counts {root.attrib}")
late = cases[1].find("failure").text
if f"late max {int(sys.argv[2]) / 1000:.3f} ms" not in late:
    fail.append(f"late failure text {late!r}")
if fail:
    print("FAIL: " + "; ".join(fail))
    sys.exit(1)
PY

# the stream's figures: the truth's drops, and a CRC error made by flipping a byte of a frame
set +e
echo '{"budgets": [{"name": "link", "dropped_events": 0, "crc_errors": 0}]}' > "$WORK/link.json"
"$TOP" -r "$WORK/drops.bin" --budget "$WORK/link.json" --json > "$WORK/drops.out.json" 2> "$WORK/err"
rc=$?
set -e
[ "$rc" = 3 ] || fail "drops: exited $rc"
reported=$(json "$WORK/drops.out.json" 'j["stream"]["dropped_events"]')
[ "$reported" = "$drops" ] || fail "drops: the report says $reported, the truth $drops"
grep -Eq "budget broken \(link\): dropped events $drops > 0, the worst at [0-9.]+ s\." "$WORK/err" || fail "drops: $(cat "$WORK/err")"
python3 -c "
import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[len(b) // 2] ^= 0x55; open(sys.argv[2], 'wb').write(b)" \
    "$WORK/seed.bin" "$WORK/crc.bin"
set +e
"$TOP" -r "$WORK/crc.bin" --budget "$WORK/link.json" --json > "$WORK/crc.out.json" 2> "$WORK/err"
rc=$?
set -e
crc=$(json "$WORK/crc.out.json" 'j["stream"]["crc_errors"]')
[ "$rc" = 3 ] && [ "$crc" -ge 1 ] || fail "crc: exited $rc with $crc CRC errors"
grep -q "budget broken (link): CRC errors $crc > 0" "$WORK/err" || fail "crc: $(cat "$WORK/err")"

# kept: exit 0, the JUnit file all passed
echo "{\"budgets\": [{\"task\": \"*\", \"max_slice_ms\": 80, \"late_max_ms\": 100}]}" > "$WORK/loose.json"
"$TOP" -r "$WORK/seed.bin" --budget "$WORK/loose.json" --junit "$WORK/loose.xml" --report > /dev/null 2> "$WORK/err" \
    || fail "a kept budget exited $?: $(cat "$WORK/err")"
grep -q 'is kept: 1 lines' "$WORK/err" || fail "kept: $(cat "$WORK/err")"
python3 -c "
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
assert (r.get('tests'), r.get('failures')) == ('1', '0'), r.attrib" "$WORK/loose.xml" || fail "kept: the JUnit file"

# a live pty: the demo's simulator on the real clock, two seconds of it (its slices run a little
# over their 80 ms there: the limits leave room)
echo '{"budgets": [{"task": "slow", "max_slice_ms": 50}, {"task": "*", "max_slice_ms": 1000}]}' > "$WORK/live.json"
set +e
timeout 60 "$TOP" --demo --duration 2 --budget "$WORK/live.json" --junit "$WORK/live.xml" --report > /dev/null 2> "$WORK/err"
rc=$?
set -e
[ "$rc" = 3 ] || fail "live: exited $rc: $(cat "$WORK/err")"
# slow sleeps 80 ms a slice; on a loaded machine the simulator's slices run longer, never shorter
live_max=$(sed -n 's/.*budget broken (line 1: slow): slow: max slice \([0-9]*\)\.[0-9]\{3\} ms > 50\.000 ms, the worst at .*/\1/p' "$WORK/err")
[ -n "$live_max" ] && [ "$live_max" -ge 80 ] || fail "live: $(cat "$WORK/err")"
python3 -c "
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
assert (r.get('tests'), r.get('failures')) == ('2', '1'), r.attrib" "$WORK/live.xml" || fail "live: the JUnit file"

# mistakes: a sentence each, exit 2, nothing written
bad() {
    local what=$1 text=$2 want=$3
    printf '%s' "$text" > "$WORK/bad.json"
    set +e
    "$TOP" -r "$WORK/seed.bin" --budget "$WORK/bad.json" --junit "$WORK/bad.xml" --report > /dev/null 2> "$WORK/err"
    local rc=$?
    set -e
    [ "$rc" = 2 ] || fail "$what: exited $rc"
    [ "$(wc -l < "$WORK/err")" = 1 ] && grep -q "$want" "$WORK/err" || fail "$what: $(cat "$WORK/err")"
    [ ! -e "$WORK/bad.xml" ] || fail "$what: a JUnit file was left"
}
bad "not JSON" '{"budgets": [' 'is not JSON'
bad "unknown key" '{"budgets": [{"task": "x", "max_ms": 3}]}' 'line 1 has "max_ms", which is not'
bad "negative" '{"budgets": [{"task": "x", "max_slice_ms": -1}]}' 'must be a number of 0 or more'
bad "share" '{"budgets": [{"task": "x", "share": 25}]}' 'from 0 to 1'
bad "stream figure on a task" '{"budgets": [{"task": "x", "crc_errors": 0}]}' "the session's figure"
bad "task figure without a task" '{"budgets": [{"max_slice_ms": 3}]}' "say which tasks"
bad "no lines" '{"budgets": []}' 'needs "budgets"'
bad "no limit" '{"budgets": [{"task": "x"}]}' 'sets no limit'
"$TOP" -r "$WORK/seed.bin" --junit "$WORK/j.xml" --report > /dev/null 2> "$WORK/err" && fail "--junit alone ran"
grep -q 'add --budget' "$WORK/err" || fail "--junit alone: $(cat "$WORK/err")"
echo "budget_replay: all checks passed"
