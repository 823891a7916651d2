#!/usr/bin/env bash
# Spans against the simulator's truth (docs/usage.md, "Spans"; truth_spans.py): aioprof-top's JSON
# report has every span of every task instance and their sums per task name exactly as the truth
# (nested, across awaits, closed by a task that raised or was cancelled inside one), on the virtual
# clock, on the real one, and across a wrap of 30-bit ticks; a span still open at the end is cut and
# said, not counted; a stream without spans has no span in its report.
source "$(dirname "$0")/truth_common.bash"

spans() { # name: the JSON of $tmp/NAME.aiop against its truth
    local name=$1
    "$TOP" -r "$tmp/$name.aiop" --json > "$tmp/$name.json" || { echo "FAIL $name: aioprof-top --json"; status=1; return 1; }
    if python3 "$here/truth_spans.py" "$tmp/$name.json" "$tmp/$name.truth.json"; then
        echo "ok   $name: spans exact against the truth"
    else
        echo "FAIL $name"; status=1; return 1
    fi
}

truth_capture virtual -w spans --clock virtual --duration 10 && spans virtual
truth_capture real -w spans --duration 1 && spans real

# the text report's spans table: every (task, span) of the truth, its figures summed per task name
"$TOP" -r "$tmp/virtual.aiop" --report > "$tmp/virtual.txt" &&
if python3 - "$tmp/virtual.txt" "$tmp/virtual.truth.json" <<'PY'
import json, re, sys
text, truth = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
part = text[text.find("\nspans ("):]
want = {}
for e in truth["spans"]:
    w = want.setdefault((e["task"], e["span"]), [0, 0, 0, 0, 0])
    for i, k in enumerate(("count", "own_us", "inclusive_us", "wall_us")):
        w[i] += e[k]
    w[4] = max(w[4], e["max_us"])
ms = lambda us: "%d.%03d" % divmod(us, 1000)
task, bad = None, 0
rows = {}
for line in part.splitlines():
    cells = [c.strip() for c in re.split(r"[|│]", line)[1:-1]]
    if len(cells) != 12 or cells[1] == "span":
        continue
    task = cells[0] or task
    rows[(task, cells[1])] = cells[2:7]
for key, w in want.items():
    exp = [str(w[0]), ms(w[1]), ms(w[2]), ms(w[3]), ms(w[4])]
    if rows.get(key) != exp:
        print(f"report: {key}: {rows.get(key)}, the truth {exp}")
        bad += 1
sys.exit(1 if bad or not want else 0)
PY
then
    echo "ok   report: its spans table says the truth, per task name"
else
    echo "FAIL report: spans table"; status=1
fi
truth_capture wrap -w spans --clock virtual --duration 4 --tick-bits 30 --start-tick 1073000000 --seed 3 && spans wrap

# no span on the wire: none in the report
truth_capture plain -w seed --clock virtual --duration 3 &&
"$TOP" -r "$tmp/plain.aiop" --json > "$tmp/plain.json" &&
if python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(1 if "span_counts" in r or any("spans" in x for x in r["tasks"] + r["instances"]) else 0)' "$tmp/plain.json"; then
    echo "ok   plain: a stream without spans has none in its report"
else
    echo "FAIL plain: spans in the report of a stream without any"; status=1
fi
exit $status
