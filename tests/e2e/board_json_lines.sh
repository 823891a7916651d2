#!/usr/bin/env bash
# --json-lines: one JSON object a line per interval of the session's time, flushed as it goes.
# Against the simulator's truth: the intervals add up to the totals, exactly, per task name
# (count, total, slow, errors) and in elapsed time; the totals are the --json report's, which
# equals the truth (truth_compare.py, exact). The session's time is a recording's receive times,
# made here from a capture (docs/recording.md), so a replay gives the same lines at any speed.
set -euo pipefail
source "$(dirname "$0")/io_common.bash"
here=$(cd "$(dirname "$0")" && pwd)

"$SIM" -w instances --duration 20 --text 30 -q -o "$WORK/cap.bin" --truth "$WORK/truth.json"
"$TOP" -r "$WORK/cap.bin" --json > "$WORK/report.json" 2> /dev/null
(cd "$here" && python3 truth_compare.py "$WORK/report.json" "$WORK/truth.json" exact) || fail "the report is not the truth"

# the capture as a recording: a chunk per 512 bytes, 25 ms apart
python3 "$here/make_recording.py" "$WORK/cap.bin" "$WORK/rec.aiop" 512 25000

"$TOP" -r "$WORK/rec.aiop" --json-lines --interval 0.5 > "$WORK/lines.jsonl" 2> "$WORK/lines.err" \
    || fail "--json-lines exited $?: $(cat "$WORK/lines.err")"
python3 - "$WORK/lines.jsonl" "$WORK/report.json" "$WORK/cap.bin" <<'PY' || fail "the JSON lines do not add up"
import json, os, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
report = json.load(open(sys.argv[2]))
problems = []
if [l["seq"] for l in lines] != list(range(1, len(lines) + 1)):
    problems.append("seq is not 1, 2, 3...")
if [l["final"] for l in lines] != [False] * (len(lines) - 1) + [True]:
    problems.append("only the last line is final")
# a chunk every 25 ms: a line per half second up to the last chunk's time, and the final one
last_us = ((os.path.getsize(sys.argv[3]) + 511) // 512 - 1) * 25000
if len(lines) != last_us // 500000 + 1:
    problems.append("%d lines for %d us in half seconds" % (len(lines), last_us))
for l in lines[:-1]:
    if abs(l["interval_s"] - 0.5) > 1e-9:
        problems.append("line %d covers %g s" % (l["seq"], l["interval_s"]))
final = lines[-1]["totals"]
sums = {}
for l in lines:
    for t in l["interval"]["tasks"]:
        s = sums.setdefault(t["name"], {"count": 0, "total_us": 0, "slow": 0, "errors": 0, "max_us": 0})
        for k in ("count", "total_us", "slow", "errors"):
            s[k] += t[k]
        s["max_us"] = max(s["max_us"], t["max_us"])
for t in report["tasks"]:
    s = sums.get(t["name"])
    if s is None:
        problems.append("%s is in no interval" % t["name"])
        continue
    for k in ("count", "total_us", "slow", "errors", "max_us"):
        if s[k] != t[k]:
            problems.append("%s %s: intervals add to %s, the report says %s" % (t["name"], k, s[k], t[k]))
if sorted((t["name"], t["count"], t["total_us"]) for t in final["tasks"]) != \
        sorted((t["name"], t["count"], t["total_us"]) for t in report["tasks"]):
    problems.append("the last line's totals are not the report's")
if sum(l["interval"]["elapsed_us"] for l in lines) != report["elapsed_us"] or final["elapsed_us"] != report["elapsed_us"]:
    problems.append("elapsed: intervals %d, totals %d, report %d" % (
        sum(l["interval"]["elapsed_us"] for l in lines), final["elapsed_us"], report["elapsed_us"]))
for k in ("bytes", "frames", "events", "text_lines"):
    if sum(l["interval"]["stream"][k] for l in lines) != report["stream"][k]:
        problems.append("stream.%s does not add up" % k)
if final["stream"] != report["stream"]:
    problems.append("the last line's stream is not the report's")
for p in problems:
    print("FAIL: " + p)
print("%d lines; %d slices of %d names add up" % (len(lines), sum(s["count"] for s in sums.values()), len(sums)))
sys.exit(1 if problems else 0)
PY

# the same lines whatever the replay's pace (they follow the recording's time, not the clock)
"$TOP" -r "$WORK/rec.aiop" --json-lines --interval 0.5 --speed 8 > "$WORK/paced.jsonl" 2> /dev/null
cmp -s "$WORK/lines.jsonl" "$WORK/paced.jsonl" || fail "a paced replay gave other lines"

# live: lines come while the session runs, flushed one at a time
"$TOP" --demo --json-lines -d 0.2 > "$WORK/live.jsonl" 2> "$WORK/live.err" &
top_pid=$!
IO_PIDS+=("$top_pid")
wait_for_text "$WORK/live.jsonl" '"seq":3,' 20 || fail "no third line while the demo runs: $(cat "$WORK/live.err")"
kill -0 "$top_pid" || fail "aioprof-top ended before it was stopped"
kill -INT "$top_pid"
wait "$top_pid" || fail "the live --json-lines exited $?: $(cat "$WORK/live.err")"
tail -1 "$WORK/live.jsonl" | grep -q '"final":true' || fail "the live session's last line is not final"

# a reader that leaves (| head) ends the session quietly
rc=0
timeout 60 bash -c "'$TOP' -r '$WORK/rec.aiop' --json-lines -d 0.1 --speed 1 2> '$WORK/head.err' | head -2 > /dev/null" || rc=$?
[ "$rc" = 0 ] || fail "| head: exit $rc"
grep -q '^aioprof-top:' "$WORK/head.err" && fail "| head: $(grep '^aioprof-top:' "$WORK/head.err")"
echo "board_json_lines: all checks passed"
