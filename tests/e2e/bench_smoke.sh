#!/usr/bin/env bash
# `make bench` stays usable: tests/bench/run.sh with tiny knobs gives a figure in every summary
# row of the parts it runs (wire, memory, replay, export, live: all but the callgrind ones), and
# skips nothing; tests/bench/pty_pacer hands a reader a capture's bytes unchanged and in order.
# The mpy part too, with tiny runs, when MicroPython builds are named (AIOPROF_MICROPYTHON,
# AIOPROF_MICROPYTHON_STOCK, AIOPROF_NATIVE_DIR); without them it must say what to set.
# No figure's value is checked: how fast this machine is proves nothing (docs/building.md).
set -uo pipefail
# the mpy part's deterministic board (tests/bench/qemu_overhead.py) takes minutes: not smoke
export BENCH_QEMU_OVERHEAD=0
: "${AIOPROF_BUILD:?AIOPROF_BUILD must name the build directory}"
: "${AIOPROF_SIM:?AIOPROF_SIM must name the aioprof-sim binary}"
src=${AIOPROF_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
pacer=$AIOPROF_BUILD/tests/bench/pty_pacer
[ -x "$pacer" ] || { echo "SKIP: $pacer is not built" >&2; exit 77; }
command -v tmux >/dev/null || { echo "SKIP: tmux is not installed (apt-get install tmux)" >&2; exit 77; }
[ -x /usr/bin/time ] || { echo "SKIP: GNU time is not installed (apt-get install time)" >&2; exit 77; }
tmp=$(mktemp -d)
pacer_pid=""
cleanup() {
    [ -n "$pacer_pid" ] && kill "$pacer_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
status=0

# ---- the pacer: what a reader gets is the capture's first bytes, in 8-byte writes
"$AIOPROF_SIM" -w busy --clock virtual --duration 5 -q -o "$tmp/cap.aiop"
"$pacer" "$tmp/cap.aiop" 400000 8 120 "$tmp/link" 2> "$tmp/pacer.log" &
pacer_pid=$!
for _ in $(seq 600); do [ -s "$tmp/link" ] && break; sleep 0.1; done
if [ ! -s "$tmp/link" ]; then
    echo "FAIL pty_pacer: no pty named in 60 s: $(cat "$tmp/pacer.log")"
    exit 1
fi
timeout 120 head -c 50000 "$(cat "$tmp/link")" > "$tmp/got"
kill "$pacer_pid" 2>/dev/null
wait "$pacer_pid" 2>/dev/null
pacer_pid=""
if cmp -s "$tmp/got" <(head -c 50000 "$tmp/cap.aiop"); then
    echo "ok   pty_pacer: 50000 bytes as in the capture ($(cat "$tmp/pacer.log"))"
else
    echo "FAIL pty_pacer: the reader got $(stat -c %s "$tmp/got") bytes that differ from the capture's"
    status=1
fi

# ---- run.sh, every part but the callgrind ones, at the smallest sizes
BENCH_WORK=$tmp/work BENCH_ONLY="wire memory replay export live" BENCH_RUNS=1 BENCH_CAPTURE_MB=2 \
BENCH_SESSION_SECONDS=20 BENCH_TASKS=1000 BENCH_MEMORY_SECONDS=5 BENCH_SCALE_TASKS="40 400" \
BENCH_LIVE_SECONDS=1 BENCH_LIVE_RUNS=1 \
    bash "$src/tests/bench/run.sh" "$AIOPROF_BUILD" > "$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
[ "$rc" -eq 0 ] || { echo "FAIL run.sh exited with $rc"; status=1; }
if grep -E 'skipped|failed' "$tmp/out"; then
    echo "FAIL run.sh skipped a figure or a run failed"
    status=1
fi
rows=(
    "wire bytes per event, seed," "wire bytes per event, instances," "wire bytes per event, busy,"
    "wire bytes per event, busy --tasks 4000," "memory (MiB) against distinct live tasks"
    "memory (MiB) against task instances created" "replay, decode + aggregate"
    "--export-trace, CPU time against --report" "live table, CPU at a UART trickle"
    "live table, CPU at 1 MB/s (busy)" "live table, CPU at 1 MB/s (instances)"
    "live table vs --report"
    # issue 26's table: the rows of these parts
    "replay of busy, every resume late" "the same without lateness" "--export-trace beside --report"
    "live table at 1 MB/s, busy" "live table at a UART trickle, busy"
)
for row in "${rows[@]}"; do
    line=$(grep -F -- "  $row" "$tmp/out" | grep -F ' | ' | head -1)
    measured=$(echo "$line" | awk -F' [|] ' '{ gsub(/ +$/, "", $3); print $3 }')
    if [ -z "$line" ] || [ -z "$measured" ] || [[ $measured == *"?"* ]] || [[ $measured == "not measured"* ]]; then
        echo "FAIL the summary has no figure for '$row'"
        status=1
    fi
done
[ "$status" -eq 0 ] && echo "ok   run.sh: every row has a figure"

# ---- the MicroPython part: with the builds named (docs/micropython.md), tiny runs and every row a
# figure; without them, one sentence that says what to set
mpy_rows=(firmware native python)
if [ -n "${AIOPROF_MICROPYTHON:-}" ] && [ -n "${AIOPROF_MICROPYTHON_STOCK:-}" ] && [ -n "${AIOPROF_NATIVE_DIR:-}" ] &&
    command -v valgrind > /dev/null; then
    BENCH_WORK=$tmp/work BENCH_ONLY=mpy BENCH_RUNS=1 BENCH_MPY_CG=20 BENCH_MPY_SWITCHES=100 \
        bash "$src/tests/bench/run.sh" "$AIOPROF_BUILD" > "$tmp/mpy.out" 2>&1
    cat "$tmp/mpy.out"
    for e in "${mpy_rows[@]}"; do
        for row in "MicroPython $e engine, overhead per task switch" "MicroPython $e engine, what the device says"; do
            line=$(grep -F -- "  $row" "$tmp/mpy.out" | grep -F ' | ' | head -1)
            measured=$(echo "$line" | awk -F' [|] ' '{ gsub(/ +$/, "", $3); print $3 }')
            # the device's own figure must be there; the comparison with a time measured in one
            # tiny run may be unknown (a noisy baseline can leave no positive difference): "(?)"
            case $row in *"device says"*) measured=${measured%"(?)"} ;; esac
            if [ -z "$line" ] || [ -z "$measured" ] || [[ $measured == *"?"* ]]; then
                echo "FAIL the summary has no figure for '$row'"
                status=1
            fi
        done
    done
    # a stripped build (the unix port's default): its profile names no gc_alloc to leave out, so
    # the part must say so rather than print instructions with the allocator's search counted
    strip -o "$tmp/mp-stripped" "$AIOPROF_MICROPYTHON_STOCK"
    AIOPROF_MICROPYTHON="" AIOPROF_MICROPYTHON_STOCK=$tmp/mp-stripped BENCH_WORK=$tmp/work BENCH_ONLY=mpy \
        BENCH_RUNS=1 BENCH_MPY_CG=20 BENCH_MPY_SWITCHES=100 \
        bash "$src/tests/bench/run.sh" "$AIOPROF_BUILD" > "$tmp/mpy-stripped.out" 2>&1
    if grep -q "none: callgrind gave no count: .*the program has no symbols" "$tmp/mpy-stripped.out"; then
        echo "ok   the mpy part refuses a stripped build's counts and says why"
    else
        cat "$tmp/mpy-stripped.out"
        echo "FAIL the mpy part with a stripped build does not say that it has no symbols"
        status=1
    fi
else
    env -u AIOPROF_MICROPYTHON -u AIOPROF_MICROPYTHON_STOCK BENCH_WORK=$tmp/work BENCH_ONLY=mpy \
        bash "$src/tests/bench/run.sh" "$AIOPROF_BUILD" > "$tmp/mpy.out" 2>&1
    if grep -q "MicroPython engines: skipped: set AIOPROF_MICROPYTHON" "$tmp/mpy.out"; then
        echo "ok   the mpy part says what to set without MicroPython builds"
    else
        cat "$tmp/mpy.out"
        echo "FAIL the mpy part without MicroPython builds does not say what to set"
        status=1
    fi
fi
exit $status
