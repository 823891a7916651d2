#!/usr/bin/env bash
# --demo runs the simulator on a pty and reads it like a board: the seed workload's two tasks
# show up in the report, and the simulator is gone afterwards.
set -euo pipefail
source "$(dirname "$0")/io_common.bash"

# Ctrl-C once the session's recording holds slices of both tasks (the simulator runs on the real
# clock: how long that takes depends on the machine)
"$TOP" --demo --report -v -w "$WORK/demo.aiop" > "$WORK/report.txt" 2> "$WORK/err" &
top_pid=$!
IO_PIDS+=("$top_pid")
wait_until replay_has "$WORK/demo.aiop" '{"slow", "quicker"} <= {t["name"] for t in j["tasks"] if t["count"] > 0}' ||
    fail "the demo never showed slices of slow and quicker: $(cat "$WORK/err")"
top_stop "$top_pid" || fail "exit $?: $(cat "$WORK/err")"
grep -qw slow "$WORK/report.txt" || fail "no 'slow' row: $(cat "$WORK/report.txt")"
grep -qw quicker "$WORK/report.txt" || fail "no 'quicker' row: $(cat "$WORK/report.txt")"
pid=$(sed -n 's/.*started .* (pid \([0-9]*\)).*/\1/p' "$WORK/err")
[ -n "$pid" ] || fail "--verbose did not name the simulator's pid: $(cat "$WORK/err")"
if kill -0 "$pid" 2> /dev/null && grep -q aioprof-sim "/proc/$pid/cmdline" 2> /dev/null; then
    fail "the simulator (pid $pid) still runs"
fi
# a missing simulator is one sentence and exit 1
rc=0
AIOPROF_SIM=$WORK/nope "$TOP" --demo --report > /dev/null 2> "$WORK/err2" || rc=$?
[ "$rc" = 1 ] && grep -q "cannot find the simulator" "$WORK/err2" || fail "missing simulator: $rc $(cat "$WORK/err2")"
echo "io_demo: all checks passed"
