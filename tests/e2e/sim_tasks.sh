#!/usr/bin/env bash
# aioprof-sim --tasks N: the busy workload with N tasks. Its truth holds main and exactly N tasks,
# no event is dropped (main creates them a batch per slice, so the announcements never overflow
# the hook's ring), and aioprof-top's figures equal the truth exactly, per name and per instance.
# The default is 40 tasks: --tasks 40 writes the same bytes as no option. --tasks with another
# workload, or out of range, is a usage error.
source "$(dirname "$0")/truth_common.bash"

check() { # name, tasks, seconds
    local name=$1 tasks=$2 seconds=$3
    truth_capture "$name" -w busy --tasks "$tasks" --clock virtual --duration "$seconds" || return
    if ! python3 - "$tmp/$name.truth.json" "$tasks" <<'PY'; then
import json, sys
t = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
made = [i for i in t["instances"] if i["name"] != "main"]
problems = []
if len(made) != want:
    problems.append("%d tasks besides main, --tasks said %d" % (len(made), want))
if t["dropped_events"]:
    problems.append("%d events dropped" % t["dropped_events"])
idle = [i["id"] for i in made if i["count"] == 0]
if idle:
    problems.append("%d tasks never ran (first: #%d)" % (len(idle), idle[0]))
for p in problems:
    print("truth: " + p)
sys.exit(1 if problems else 0)
PY
        echo "FAIL $name: the truth does not describe $tasks busy tasks"; status=1; return
    fi
    if ! "$TOP" -r "$tmp/$name.aiop" --json > "$tmp/$name.json"; then
        echo "FAIL $name: aioprof-top exited with $?"; status=1; return
    fi
    if python3 "$here/truth_compare.py" "$tmp/$name.json" "$tmp/$name.truth.json" exact "$tmp/$name.aiop"; then
        echo "ok   $name"
    else
        echo "FAIL $name"; status=1
    fi
}

check busy-1 1 2
# one more than a batch: main needs a second slice
check busy-41 41 2
check busy-400 400 5
check busy-4000 4000 6
# twice the instance rows kept by default (host/stats/stats.h): every task is live to the end, none is
# folded or counted twice
check busy-20000 20000 4

# the default is 40
"$SIM" -w busy --duration 3 -q -o "$tmp/default.aiop"
"$SIM" -w busy --tasks 40 --duration 3 -q -o "$tmp/forty.aiop"
if cmp -s "$tmp/default.aiop" "$tmp/forty.aiop"; then
    echo "ok   --tasks 40 is the default"
else
    echo "FAIL --tasks 40 writes other bytes than the default"; status=1
fi

for args in "--tasks 10" "-w seed --tasks 10" "-w busy --tasks 0" "-w busy --tasks 100001" "-w busy --tasks x"; do
    # shellcheck disable=SC2086
    "$SIM" $args --duration 1 -o "$tmp/bad.aiop" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ "$rc" -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q -- '--tasks' "$tmp/err"; then
        echo "ok   '$args' -> $(cat "$tmp/err")"
    else
        echo "FAIL '$args': exit $rc, stderr:"; cat "$tmp/err"; status=1
    fi
done
exit $status
