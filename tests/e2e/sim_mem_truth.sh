#!/usr/bin/env bash
# The simulator's alloc workload (docs/usage.md, "Memory"): aioprof-top's bytes allocated per task
# and instance, the collections inside their slices and their time, the scheduler's between slices
# and "(gc)" as the culprit of the waits it caused, exactly the truth's (mem_truth.py); on 32- and
# 30-bit ticks, two seeds, and through the text report's memory table.
source "$(dirname "$0")/truth_common.bash"
for args in "--seed 1" "--seed 7 --tick-bits 30"; do
    name=alloc-${args// /}
    truth_capture "$name" -w alloc --clock virtual --duration 30 $args || continue
    if ! "$TOP" -r "$tmp/$name.aiop" --json > "$tmp/$name.json" 2> "$tmp/$name.err"; then
        echo "FAIL $name: aioprof-top failed: $(cat "$tmp/$name.err")"
        status=1
        continue
    fi
    python3 "$here/mem_truth.py" "$tmp/$name.json" "$tmp/$name.truth.json" || status=1
done
# the text report has the memory table, with the heavy task's bytes as the truth has them
"$TOP" -r "$tmp/alloc---seed1.aiop" --report > "$tmp/report.txt" 2>&1 || status=1
want=$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); print(max(t["tasks"], key=lambda x: x["alloc_bytes"])["alloc_bytes"])' "$tmp/alloc---seed1.truth.json")
if ! grep -q "^memory (" "$tmp/report.txt" || ! grep -Eq "parser[^0-9]+$want[^0-9]" "$tmp/report.txt"; then
    echo "FAIL report: no memory table with parser's $want bytes"
    status=1
fi
exit $status
