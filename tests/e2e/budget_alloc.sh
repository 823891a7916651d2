#!/usr/bin/env bash
# Memory in --budget and --compare (docs/usage.md, "Memory", "Budgets", "Comparing sessions"), on
# the simulator's alloc workload against its truth: alloc_per_s (bytes per second of the session's
# device time) breaks a limit just below parser's true rate (exit 3, the sentence with its value)
# and keeps one just above it, and blinker, which allocates nothing, keeps 0; --compare gives each
# side's alloc_rate as the truth's bytes over the session's time, and a recording against itself
# changes nothing.
set -euo pipefail
source "$(dirname "$0")/io_common.bash"

"$SIM" -w alloc --clock virtual --duration 10 -o "$WORK/a.bin" --truth "$WORK/a.json" -q
"$SIM" -w alloc --clock virtual --duration 10 --seed 9 -o "$WORK/b.bin" --truth "$WORK/b.json" -q
"$TOP" -r "$WORK/a.bin" --json > "$WORK/a.report.json" || fail "the report exited $?"
# the truth's bytes over the session's device time (the report's elapsed_us)
rate=$(python3 -c '
import json, sys
t = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))
b = [x for x in t["tasks"] if x["name"] == "parser"][0]["alloc_bytes"]
print(repr(b * 1e6 / r["elapsed_us"]))' "$WORK/a.json" "$WORK/a.report.json")
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > 100000 else 1)" "$rate" || fail "parser's true rate $rate is not heavy"

cat > "$WORK/tight.json" <<JSON
{"budgets": [
  {"task": "parser", "alloc_per_s": $(python3 -c "print($rate * 0.999)")},
  {"task": "blinker", "alloc_per_s": 0}
]}
JSON
set +e
"$TOP" -r "$WORK/a.bin" --budget "$WORK/tight.json" --report > /dev/null 2> "$WORK/err"
rc=$?
set -e
cat "$WORK/err"
[ "$rc" = 3 ] || fail "a broken allocation budget exited $rc"
grep -Fq "parser: bytes allocated per second $(python3 -c "print('%.1f' % $rate)")/s > " "$WORK/err" \
    || fail "no parser breach with the truth's rate $rate"
grep -q 'is broken: 1 of its 2 lines' "$WORK/err" || fail "blinker's 0 did not keep its limit of 0"

cat > "$WORK/loose.json" <<JSON
{"budgets": [{"task": "parser", "alloc_per_s": $(python3 -c "print($rate * 1.001)")}]}
JSON
"$TOP" -r "$WORK/a.bin" --budget "$WORK/loose.json" --report > /dev/null 2> "$WORK/err" || fail "a kept allocation budget exited $?"
grep -q 'is kept' "$WORK/err" || fail "the loose budget was not said to be kept"

"$TOP" --compare "$WORK/a.bin" "$WORK/b.bin" --json > "$WORK/cmp.json" || fail "--compare exited $?"
"$TOP" --compare "$WORK/a.bin" "$WORK/a.bin" --json > "$WORK/same.json" || fail "--compare itself exited $?"
python3 - "$WORK" <<'PY' || fail "the comparison's allocation rates"
import json, os, sys
d = sys.argv[1]
load = lambda n: json.load(open(os.path.join(d, n)))
cmp, same = load("cmp.json"), load("same.json")
truth = {"base": load("a.json"), "new": load("b.json")}
bad = []
for side in ("base", "new"):
    by = {t["name"]: t for t in truth[side]["tasks"]}
    for t in cmp["tasks"]:
        got = t["figures"]["alloc_rate"][side]
        want = by[t["name"]]["alloc_bytes"] * 1e6 / cmp[side]["elapsed_us"]
        if got is None or abs(got - want) > 1e-6 * max(1.0, want):
            bad.append(f"{side} {t['name']}: alloc_rate {got}, truth {want}")
for t in same["tasks"]:
    f = t["figures"]["alloc_rate"]
    if f["significant"] or f["delta"] not in (0, None):
        bad.append(f"{t['name']}: against itself {f}")
for b in bad:
    print("FAIL " + b)
sys.exit(1 if bad else 0)
PY
echo "budget_alloc: ok"
