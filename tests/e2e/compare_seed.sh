#!/usr/bin/env bash
# --compare: two recordings of the seed, before and after quicker's wait behind slow is halved
# (aioprof-sim -w seed-half: it runs about 40 ms late instead of 80), compare as significant for
# quicker's lateness and ~ for everything else; each side's figures are the simulator's truth; a
# recording compared with itself changes nothing; the same comparison against a replay (--compare
# BASE -r NEW, the live session's path) says the same; tasks on one side only are new or gone.
set -euo pipefail
source "$(dirname "$0")/io_common.bash"

"$SIM" -w seed --duration 20 -o "$WORK/before.bin" --truth "$WORK/before.json" -q
"$SIM" -w seed-half --duration 20 -o "$WORK/after.bin" --truth "$WORK/after.json" -q
"$SIM" -w nested --duration 5 -o "$WORK/nested.bin" -q

"$TOP" --compare "$WORK/before.bin" "$WORK/after.bin" > "$WORK/cmp.txt" || fail "--compare exited $?"
"$TOP" --compare "$WORK/before.bin" "$WORK/after.bin" --json > "$WORK/cmp.json" || fail "--compare --json exited $?"
"$TOP" --compare "$WORK/before.bin" "$WORK/before.bin" --json > "$WORK/same.json" || fail "--compare itself exited $?"
"$TOP" -r "$WORK/after.bin" --compare "$WORK/before.bin" --json > "$WORK/replay.json" || fail "-r --compare exited $?"
"$TOP" --compare "$WORK/before.bin" "$WORK/nested.bin" --json > "$WORK/other.json" || fail "--compare nested exited $?"
cat "$WORK/cmp.txt"

python3 - "$WORK" <<'PY'
import json, os, sys
d = sys.argv[1]
load = lambda n: json.load(open(os.path.join(d, n)))
cmp, same, replay, other = load("cmp.json"), load("same.json"), load("replay.json"), load("other.json")
truth = {"base": load("before.json"), "new": load("after.json")}
fail = []
def check(cond, what):
    if not cond:
        fail.append(what)

tasks = {t["name"]: t for t in cmp["tasks"]}
check(set(tasks) == {"main", "slow", "quicker"}, f"tasks {sorted(tasks)}")
marked = sorted((t["name"], k) for t in cmp["tasks"] for k, f in t["figures"].items() if f["significant"])
check(marked == [("quicker", "late_max_us"), ("quicker", "late_p95_us")], f"significant: {marked}")
q = tasks["quicker"]["figures"]
check(q["late_p95_us"]["p"] < 0.001 and -0.55 < q["late_p95_us"]["delta"] < -0.45,
      f"quicker's late p95: {q['late_p95_us']}")
check(q["late_max_us"]["base_median"] > 75000 and q["late_max_us"]["new_median"] < 45000,
      f"quicker's late max per window: {q['late_max_us']}")
for side in ("base", "new"):
    t = truth[side]
    by = {r["name"]: r for r in t["tasks"]}
    elapsed_s = cmp[side]["elapsed_us"] / 1e6
    check(abs(elapsed_s * 1e6 - t["duration_us"]) < 50000, f"{side}: elapsed {elapsed_s}")
    for name, task in tasks.items():
        f = task["figures"]
        r = by[name]
        check(f["max_us"][side] == r["max_us"], f"{side} {name}: max {f['max_us'][side]} vs truth {r['max_us']}")
        check(f["mean_us"][side] == r["total_us"] / r["count"], f"{side} {name}: mean")
        check(abs(f["rate"][side] - r["count"] / elapsed_s) < 1e-6, f"{side} {name}: rate")
        check(f["late_max_us"][side] == r["late_max_us"], f"{side} {name}: late max {f['late_max_us'][side]} vs {r['late_max_us']}")
        check(f["alloc_rate"][side] is None, f"{side} {name}: an allocation rate out of nothing")
# a recording against itself: nothing changed, p 1 everywhere
check(all(not f["significant"] and f["delta"] in (0, None) for t in same["tasks"] for f in t["figures"].values()),
      "a recording compared with itself changed")
# the live session's path gives the offline comparison's figures and verdicts
strip = lambda c: [(t["name"], {k: (f["base"], f["new"], f["significant"], f["n_base"], f["n_new"])
                                for k, f in t["figures"].items()}) for t in c["tasks"]]
check(strip(replay) == strip(cmp), "-r NEW --compare BASE differs from --compare BASE NEW")
status = {t["name"]: t["status"] for t in other["tasks"]}
check(status == {"main": "both", "slow": "gone", "quicker": "gone", "outer": "new", "inner": "new",
                 "innermost": "new", "bystander": "new"}, f"new and gone: {status}")
if fail:
    print("FAIL: " + "\n  ".join(fail))
    sys.exit(1)
print("compare_seed: the JSON checks passed")
PY
grep -q '^gone tasks: quicker, slow$' <("$TOP" --compare "$WORK/before.bin" "$WORK/nested.bin") || fail "no gone tasks line"
grep -Eq '^quicker +79\.000 ms +39\.000 ms +(−|-)50\.63 % +\(p=0\.000 n=19\+19\)$' "$WORK/cmp.txt" \
    || fail "the text has no significant late p95 line for quicker"
[ "$(grep -c ' ~ ' "$WORK/cmp.txt")" -ge 20 ] || fail "the text's ~ lines are missing"

# mistakes: one sentence, exit 2 or 1
"$TOP" --compare "$WORK/before.bin" "$WORK/after.bin" --demo 2> "$WORK/err" && fail "--compare BASE NEW --demo ran"
grep -q 'compares two recordings' "$WORK/err" || fail "no sentence for --compare with --demo: $(cat "$WORK/err")"
: > "$WORK/empty.bin"
set +e
"$TOP" --compare "$WORK/before.bin" "$WORK/empty.bin" 2> "$WORK/err"
rc=$?
set -e
[ "$rc" = 1 ] || fail "--compare of an empty file exited $rc"
[ "$(wc -l < "$WORK/err")" = 1 ] || fail "more than a sentence: $(cat "$WORK/err")"
# a mistyped NEW is a missing file, not a port to wait for
set +e
timeout 20 "$TOP" --compare "$WORK/before.bin" "$WORK/aftre.bin" 2> "$WORK/err"
rc=$?
set -e
[ "$rc" = 1 ] && grep -q 'no such file' "$WORK/err" || fail "a missing NEW: exited $rc: $(cat "$WORK/err")"
echo "compare_seed: all checks passed"
