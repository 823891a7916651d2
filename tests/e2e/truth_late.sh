#!/usr/bin/env bash
# Lateness against the simulator's truth (docs/usage.md, "Lateness"; docs/protocol.md,
# "Lateness"):
# - the seed example: `quicker` late by 80 ms at most, blocked by `slow`, in the truth and in
#   aioprof-top's JSON and text report, figure for figure (truth_compare.py exact);
# - every workload with lateness in microseconds (--late-unit 1) as exactly as in milliseconds
#   (the default, which truth_workloads.sh checks);
# - an old device (--late-unit 0: no late_unit in its HELLO, no LATE record): lateness unknown
#   (null, "not reported"), not zero;
# - an old host: a decoder that knows no LATE record (tests/e2e/wire.py, skipping every control
#   record but TASK_NEW) still gets every slice of the truth from a stream that carries them.
source "$(dirname "$0")/truth_common.bash"

exact() { # name: the JSON and report of $tmp/NAME.aiop against its truth, exactly
    local name=$1
    "$TOP" -r "$tmp/$name.aiop" --json > "$tmp/$name.json" || { echo "FAIL $name: aioprof-top --json"; status=1; return 1; }
    "$TOP" -r "$tmp/$name.aiop" --report > "$tmp/$name.txt" || { echo "FAIL $name: aioprof-top --report"; status=1; return 1; }
    if python3 "$here/truth_compare.py" "$tmp/$name.json" "$tmp/$name.truth.json" exact "$tmp/$name.aiop"; then
        echo "ok   $name: exact against the truth"
    else
        echo "FAIL $name"; status=1; return 1
    fi
}

# the seed example
truth_capture seed -w seed --clock virtual --duration 12 && exact seed &&
python3 - "$tmp/seed.truth.json" "$tmp/seed.json" "$tmp/seed.txt" <<'PY' || status=1
import json, re, sys
truth, rep = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
report = open(sys.argv[3]).read()
report = report[report.find("\nlateness ("):]
t = next(x for x in truth["tasks"] if x["name"] == "quicker")
r = next(x for x in rep["tasks"] if x["name"] == "quicker")["late"]
problems = []
# the example's story, in the truth itself: late by about 80 ms, blocked by slow
if not (79000 <= t["late_max_us"] <= 81000) or t["blocked_by"] != "slow" or t["blocked_us"] < 0.95 * t["late_total_us"]:
    problems.append(f"the truth does not tell the seed's story: {t}")
if r["max_us"] != t["late_max_us"] or r["blocked_by"] != "slow":
    problems.append(f"the JSON says {r}")
# the report's lateness table: quicker's row names slow with its share
row = re.search(r"quicker\s*[|│]\s*(\d+)\s*[|│]\s*(\d+)\s*[|│]\s*([\d.]+)\s*[|│]\s*([\d.]+)\s*[|│]\s*(\S+)\s*[|│]\s*([\d.]+)", report)
if row is None:
    problems.append("no lateness row for quicker in the report:\n" + report)
else:
    share = 100.0 * t["blocked_us"] / t["late_total_us"]
    want = (str(t["resumes"]), str(t["late_count"]), "%d.%03d" % divmod(t["late_max_us"], 1000), "slow", "%.1f" % share)
    got = (row.group(1), row.group(2), row.group(3), row.group(5), row.group(6))
    if got != want:
        problems.append(f"the report's row for quicker says {got}, the truth {want}")
for p in problems:
    print("FAIL seed story: " + p)
if not problems:
    print(f"ok   seed story: quicker {t['late_max_us']} us late at most, blocked by slow "
          f"{100.0 * t['blocked_us'] / t['late_total_us']:.1f} %, in the truth, the JSON and the report")
sys.exit(1 if problems else 0)
PY

# lateness to the microsecond: every workload
for w in seed instances busy nested; do
    truth_capture "$w-us" -w "$w" --clock virtual --duration 6 --late-unit 1 --seed 4 && exact "$w-us"
done
# and across a wrap of 30-bit ticks, with the clock stepping back
truth_capture wrap-us -w busy --clock virtual --duration 2 --late-unit 1 --tick-bits 30 --start-tick 1073000000 \
    --clock-back 7 && exact wrap-us

# an old device: no lateness, shown as unknown
truth_capture old -w seed --clock virtual --duration 6 --late-unit 0 && exact old &&
if grep -q "lateness: not reported" "$tmp/old.txt" && python3 - "$tmp/old.json" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
rows = rep["tasks"] + rep["instances"]
sys.exit(0 if rows and all(r["late"] is None for r in rows) and rep["device"]["late_unit"] == 0 else 1)
PY
then
    echo "ok   old device: lateness unknown (null, \"not reported\"), not zero"
else
    echo "FAIL old device: lateness not shown as unknown"; status=1
fi

# an old host: skip the LATE records as a reader of before does, and still get every slice
truth_capture old-host -w busy --clock virtual --duration 3 &&
PYTHONPATH="$here" python3 - "$tmp/old-host.aiop" "$tmp/old-host.truth.json" <<'PY' || status=1
import json, sys
from wire import OP_LATE, OP_TASK_NEW, frame_body, records, varint
data, truth = open(sys.argv[1], "rb").read(), json.load(open(sys.argv[2]))
names, slices, late_records, stack, start, excl, t = {}, {}, 0, [], {}, {}, None
for seg in data.split(b"\0"):
    body = frame_body(seg) if seg else None
    if body is None:
        continue
    width = (body[1] & 0x1F) + 1
    base = int.from_bytes(body[2:6], "little")
    t = base if t is None else t + ((base - t) % (1 << width))
    for tag, _, _, dt, tid, payload in records(body):
        if payload is not None:
            if tag & 0x0F == OP_TASK_NEW:
                i, k = varint(payload, 0)
                _, k = varint(payload, k)
                n, k = varint(payload, k)
                names[i] = payload[k:k + n].decode()
            late_records += tag & 0x0F == OP_LATE  # skipped, as an old reader does
            continue
        t += dt
        if tid is not None:
            if stack:
                excl[stack[-1]] += t - start[stack[-1]]
            stack.append(tid)
            start[tid], excl[tid] = t, 0
        elif stack:
            tid = stack.pop()
            s = slices.setdefault(names[tid], [0, 0])
            s[0] += 1
            s[1] += excl[tid] + t - start[tid]
            if stack:
                start[stack[-1]] = t
want = {x["name"]: [x["count"], x["total_us"]] for x in truth["tasks"] if x["count"]}
if late_records == 0 or slices != want:
    print(f"FAIL old host: {late_records} LATE records; slices {slices} != truth {want}")
    sys.exit(1)
print(f"ok   old host: {late_records} LATE records skipped, every slice as in the truth")
PY
exit $status
