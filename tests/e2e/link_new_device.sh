#!/usr/bin/env bash
# The port goes away and comes back with another device on it (another board, or the same path
# given to another simulator): aioprof-top says so once, counts the newcomer's tasks apart (a new
# epoch) and never adds them to the tasks of the device it saw before. Both simulated devices
# start at tick 0, so their boot times agree: only the HELLO's platform or tick settings tell them
# apart, and the newcomer is joined in the middle of its stream (its first HELLO is not a boot's).
# The same device coming back says nothing.
set -euo pipefail
source "$(dirname "$0")/io_common.bash"

# A capture, ended by a line of text (the live session waits for it: then every byte before it was
# read), and its truth.
capture() { # NAME MARKER SIM-ARGS...
    local name=$1 marker=$2
    shift 2
    "$SIM" "$@" -q -o "$WORK/$name.raw" --truth "$WORK/$name.truth.json"
    printf '%s\r\n\0' "$marker" >> "$WORK/$name.raw"
}
capture a "A is done" -w seed --duration 6 --platform "board A"
capture b "B is done" -w busy --duration 20 --platform "board B"
capture c "C is done" -w busy --duration 20 --platform "board A" --tick-bits 32
# joined late: B and C without their first 40 % (no boot HELLO; the next HELLO comes within 8 s)
for x in b c; do
    size=$(stat -c %s "$WORK/$x.raw")
    tail -c $((size * 6 / 10)) "$WORK/$x.raw" > "$WORK/$x.late"
done
cp "$WORK/a.raw" "$WORK/a.late"

# unplug LINK: the link goes first, then the pty. (socat may leave its link behind, dangling: it
# would lead to whatever pty the system hands out next with that number, another test's.)
unplug() {
    rm -f "$1"
    pty_stop "$1"
}

# session FIRST SECOND: FIRST on the pty, unplugged, SECOND on the same path; the report in
# $WORK/FIRST-SECOND.json, stderr in .err
session() {
    local first=$1 second=$2 out=$WORK/$1-$2
    pty_start "$WORK/ttyDEV" "$WORK/$first.late"
    "$TOP" "$WORK/ttyDEV" --json > "$out.json" 2> "$out.err" &
    local top_pid=$!
    IO_PIDS+=("$top_pid")
    wait_for_text "$out.err" "device: ${first^^} is done" 30 || fail "$first was not read: $(cat "$out.err")"
    unplug "$WORK/ttyDEV"
    wait_for_text "$out.err" "went away; waiting for it to come back" 30 || fail "no word of the unplug: $(cat "$out.err")"
    pty_start "$WORK/ttyDEV" "$WORK/$second.late"
    wait_for_text "$out.err" "device: ${second^^} is done" 30 || fail "$second was not read: $(cat "$out.err")"
    kill -INT "$top_pid"
    wait "$top_pid" || fail "aioprof-top exited $? ($first, then $second): $(cat "$out.err")"
    unplug "$WORK/ttyDEV"
}

# check FIRST SECOND NOTES: the first device's names hold exactly its truth, the second's never more
# than its truth; NOTES notes about another device
check() {
    local first=$1 second=$2 notes=$3 out=$WORK/$1-$2
    [ "$(grep -c "another device is on the link" "$out.err")" = "$notes" ] \
        || fail "$first, then $second: not $notes note(s) of another device: $(cat "$out.err")"
    python3 - "$out.json" "$WORK/$first.truth.json" "$WORK/$second.truth.json" "$first" "$second" <<'PY' \
        || fail "$first, then $second: the figures are wrong"
import json, sys
rep, t1, t2 = (json.load(open(p)) for p in sys.argv[1:4])
first, second = sys.argv[4:6]
bad = []
by_epoch = {}
for i in rep["instances"]:
    by_epoch.setdefault(i["epoch"], set()).add(i["name"])
names1 = {t["name"] for t in t1["tasks"]}
names2 = {t["name"] for t in t2["tasks"]}
if first != second:
    # the first device's instances never carry the second one's names, nor the other way round
    if by_epoch.get(0, set()) - names1 - {None}:
        bad.append(f"epoch 0 has {sorted(by_epoch[0] - names1)[:5]}, not names of {first}")
    later = set().union(*[n for e, n in by_epoch.items() if e > 0]) if len(by_epoch) > 1 else set()
    if later - names2 - {None}:
        bad.append(f"later epochs have {sorted(later - names2)[:5]}, not names of {second}")
tasks = {t["name"]: t for t in rep["tasks"]}
for t in t1["tasks"]:
    r = tasks.get(t["name"])
    want = t["count"] * (2 if first == second else 1)
    if r is None or r["count"] < (t["count"] if first == second else want) or r["count"] > want:
        bad.append(f"{t['name']}: count {r and r['count']}, truth {t['count']}")
    if first != second and r is not None and r["total_us"] != t["total_us"]:
        bad.append(f"{t['name']}: total {r['total_us']}, truth {t['total_us']}")
if first != second:
    for t in t2["tasks"]:
        r = tasks.get(t["name"])
        if r is not None and (r["count"] > t["count"] or r["total_us"] > t["total_us"]):
            bad.append(f"{t['name']}: {r['count']} slices, {r['total_us']} us; truth {t['count']}, {t['total_us']}")
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
    echo "ok   $first, then $second: $notes note(s)"
}

session a b
check a b 1
grep -q '"board B".*(before: "board A"' "$WORK/a-b.err" || fail "the note does not name both devices: $(cat "$WORK/a-b.err")"
session a c
check a c 1
grep -q '32-bit ticks.*(before: .*30-bit ticks' "$WORK/a-c.err" || fail "the note does not say what differs: $(cat "$WORK/a-c.err")"
session a a
check a a 0
echo "link_new_device: all checks passed"
