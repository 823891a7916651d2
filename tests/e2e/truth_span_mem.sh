#!/usr/bin/env bash
# Memory per span (docs/usage.md, "Memory per span") against the simulator's truth, on its
# seed-spans workload (sensors' spans read, parse and render, the hog; parser allocating in span
# decode and its nested chunks, collections inside them): the JSON report's spans[].mem, inclusive
# and own, per instance and per task name (truth_spans.py) and the tasks' memory (mem_truth.py),
# on the virtual clock with two seeds and 30-bit ticks, and on the real one; the text report's
# memory per span table; the trace export's last span pieces, whose memory sums to the truth's;
# and a stream without memory has none of it anywhere.
source "$(dirname "$0")/truth_common.bash"

exact() { # name: its JSON report against its truth
    local name=$1
    if ! "$TOP" -r "$tmp/$name.aiop" --json --export-trace "$tmp/$name.trace.json" > "$tmp/$name.json"; then
        echo "FAIL $name: aioprof-top --json --export-trace"; status=1; return 1
    fi
    if python3 "$here/truth_spans.py" "$tmp/$name.json" "$tmp/$name.truth.json" &&
        python3 "$here/mem_truth.py" "$tmp/$name.json" "$tmp/$name.truth.json"; then
        echo "ok   $name: spans and their memory exact against the truth"
    else
        echo "FAIL $name"; status=1; return 1
    fi
}

# the trace's last span pieces: their memory summed per (task, span) is the truth's inclusive memory
trace_sums() { # name
    if python3 - "$tmp/$1.trace.json" "$tmp/$1.truth.json" <<'PY'
import json, sys
trace, truth = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
events = trace["traceEvents"] if isinstance(trace, dict) else trace
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
got = {}
for e in events:
    if e.get("cat") == "span" and e["args"].get("last"):
        task = names.get((e["pid"], e["tid"]), "").split(" #")[0]
        g = got.setdefault((task, e["name"]), [0, 0, 0])
        for i, k in enumerate(("alloc_bytes", "gc", "gc_us")):
            g[i] += e["args"][k]
want = {}
for x in truth["spans"]:
    w = want.setdefault((x["task"], x["span"]), [0, 0, 0])
    for i, k in enumerate(("alloc_bytes", "gc_count", "gc_us")):
        w[i] += x[k]
bad = [f"{k}: trace {got.get(k)}, truth {w}" for k, w in want.items() if got.get(k) != w]
for b in bad:
    print("trace: " + b)
sys.exit(1 if bad or not want else 0)
PY
    then
        echo "ok   $1: the trace's span pieces carry the truth's memory"
    else
        echo "FAIL $1: trace span memory"; status=1
    fi
}

truth_capture seed1 -w seed-spans --clock virtual --duration 20 && exact seed1 && trace_sums seed1
truth_capture seed5 -w seed-spans --clock virtual --duration 20 --seed 5 --tick-bits 30 && exact seed5
truth_capture real -w seed-spans --duration 2 && exact real

# the text report's memory per span table: the truth summed per task name
"$TOP" -r "$tmp/seed1.aiop" --report > "$tmp/seed1.txt" &&
if python3 - "$tmp/seed1.txt" "$tmp/seed1.truth.json" <<'PY'
import json, re, sys
text, truth = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
at = text.find("\nmemory per span (")
if at < 0:
    print("report: no memory per span table")
    sys.exit(1)
want = {}
for e in truth["spans"]:
    w = want.setdefault((e["task"], e["span"]), [0, 0, 0, 0, 0])
    for i, k in enumerate(("alloc_bytes", "own_alloc_bytes", "gc_count", "own_gc_count", "gc_us")):
        w[i] += e[k]
rows, task = {}, None
for line in text[at:].splitlines()[1:]:
    cells = [c.strip() for c in re.split(r"[|│]", line)[1:-1]]
    if len(cells) != 8 or cells[1] == "span":
        continue
    task = cells[0] or task
    rows[(task, cells[1])] = [cells[2], cells[3], cells[5], cells[6], cells[7]]
bad = 0
for key, w in want.items():
    exp = [str(w[0]), str(w[1]), str(w[2]), str(w[3]), "%d.%03d" % divmod(w[4], 1000)]
    if rows.get(key) != exp:
        print(f"report: {key}: {rows.get(key)}, the truth {exp}")
        bad += 1
sys.exit(1 if bad or not want else 0)
PY
then
    echo "ok   report: its memory per span table says the truth, per task name"
else
    echo "FAIL report: memory per span table"; status=1
fi

# spans from a device that reports no memory: no span memory anywhere
truth_capture plain -w spans --clock virtual --duration 3 &&
"$TOP" -r "$tmp/plain.aiop" --json --export-trace "$tmp/plain.trace.json" > "$tmp/plain.json" &&
"$TOP" -r "$tmp/plain.aiop" --report > "$tmp/plain.txt" &&
if python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
spans = [x for t in r["tasks"] + r["instances"] for x in t.get("spans", [])]
sys.exit(1 if not spans or any("mem" in x for x in spans) else 0)' "$tmp/plain.json" &&
    ! grep -q '"alloc_bytes"' "$tmp/plain.trace.json" && ! grep -q '^memory per span' "$tmp/plain.txt"; then
    echo "ok   plain: spans of a device without memory have none"
else
    echo "FAIL plain: span memory shown for a device that reports none"; status=1
fi
exit $status
