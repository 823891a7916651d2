#!/usr/bin/env bash
# Prints the benchmark figures of aioprof (run by `make bench`). Not a test: nothing here fails
# on a slow machine; a figure whose program or option is missing says "skipped: <why>".
#
# Usage: tests/bench/run.sh [BUILD_DIR] [ARM_BUILD_DIR]
# Knobs (environment): BENCH_EVENTS (callgrind run, default 200000), BENCH_CAPTURE_MB (replay
# capture size, default 300), BENCH_RUNS (timed runs per figure, default 5), BENCH_LIVE_SECONDS
# (default 10), BENCH_TASKS (task instances for the memory figure, default 1000000).
set -uo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-build}" 2>/dev/null && pwd) || { echo "bench: no build directory '${1:-build}': run make first" >&2; exit 1; }
arm_build=${2:-build-arm}
events=${BENCH_EVENTS:-200000}
capture_mb=${BENCH_CAPTURE_MB:-300}
runs=${BENCH_RUNS:-5}
live_seconds=${BENCH_LIVE_SECONDS:-10}
want_tasks=${BENCH_TASKS:-1000000}

bench_device=$build/tests/bench/bench_device
sim=$build/device/sim/aioprof-sim
top=$build/host/aioprof-top
work=$build/bench
mkdir -p "$work"
tmp=$(mktemp -d)
children=()
cleanup() {
    for pid in "${children[@]}"; do kill "$pid" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT

say() { printf '%s\n' "$*"; }
skip() { printf '%s: skipped: %s\n' "$1" "$2"; }
have() { [ -x "$1" ]; }
# Median of numbers on stdin.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
now_ns() { date +%s%N; }
# Wall seconds of one run of "$@", output discarded.
seconds_of() {
    local t0 t1
    t0=$(now_ns)
    "$@" > /dev/null 2>&1 || return 1
    t1=$(now_ns)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", (b - a) / 1e9 }'
}
# The first number followed by "events" in a simulator's statistics.
events_in() { grep -oE '[0-9]+ events' "$1" | head -1 | grep -oE '^[0-9]+'; }

say "aioprof benchmarks ($(uname -m), $(nproc) cores, $(date -u +%Y-%m-%d))"
say ""

# --- a. device hook: instructions per event under callgrind ---------------------------------
# Instructions per event of one bench binary and pattern: two runs, N and 2N events, so that the
# difference is N events' worth with start-up cancelled out; the same two with --no-hook measure
# the driving loop, which is taken away. Prints "PER_EVENT LOOP" or nothing.
device_cost() {
    local bin=$1 label=$2
    shift 2
    local irs=() mode n
    for mode in hook no-hook; do
        for n in "$events" $((events * 2)); do
            local flag=("$@")
            [ "$mode" = no-hook ] && flag+=(--no-hook)
            valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$label.$mode.$n" "$bin" "$n" "${flag[@]}" \
                > "$tmp/bench.$label.$mode.$n" 2> "$tmp/cg.$label.$mode.$n.log"
            irs+=("$(awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg.$label.$mode.$n" 2>/dev/null)")
        done
    done
    [ -n "${irs[0]}" ] && [ -n "${irs[1]}" ] && [ -n "${irs[2]}" ] && [ -n "${irs[3]}" ] || return 1
    awk -v a="${irs[0]}" -v b="${irs[1]}" -v c="${irs[2]}" -v d="${irs[3]}" -v n="$events" \
        'BEGIN { printf "%.1f %.1f\n", ((b - a) - (d - c)) / n, (d - c) / n }'
}

bench_runtime=$build/tests/bench/bench_device_runtime
if ! have "$bench_device" || ! have "$bench_runtime"; then
    skip device "$bench_device or $bench_runtime is not built"
elif ! command -v valgrind >/dev/null; then
    skip device "valgrind is not installed (apt-get install valgrind)"
else
    say "device: x86-64 instructions per event, all in (record, frame, COBS, CRC, drain, the port's clock;"
    say "        callgrind, the driving loop's own instructions taken away; target <= 80):"
    for variant in "bound:$bench_device:" "bound-churn:$bench_device:--churn" "runtime:$bench_runtime:" \
                   "runtime-churn:$bench_runtime:--churn"; do
        IFS=: read -r label bin opt <<< "$variant"
        opts=()
        [ -n "$opt" ] && opts=("$opt")
        case $label in
            bound) what="port bound at compile time, long-lived tasks and workers" ;;
            bound-churn) what="port bound at compile time, every task recreated now and then (--churn)" ;;
            runtime) what="port called through pointers (the simulator's build), long-lived tasks and workers" ;;
            runtime-churn) what="port called through pointers, --churn" ;;
        esac
        if read -r per_event loop < <(device_cost "$bin" "$label" "${opts[@]}"); then
            native=$("$bin" 2000000 "${opts[@]}" 2>/dev/null)
            say "  $(printf '%6s' "$per_event") per event, $(echo "$native" | awk '{ print $6 }') bytes per event, loop $loop taken away: $what"
        else
            say "  skipped: callgrind gave no instruction count for $label (see $tmp/cg.$label.*.log)"
        fi
    done
fi
say ""

# --- b. bytes per event of each simulator workload ------------------------------------------
workloads=()
if have "$sim"; then
    # The names follow "--workload NAME" in the help, up to "(default ...)".
    names=$("$sim" --help 2>/dev/null | grep -- '--workload' | sed -e 's/.*--workload NAME//' -e 's/(default.*//' | tr ',|' '  ')
    for w in $names; do
        case $w in or|and) ;; *) workloads+=("$w") ;; esac
    done
fi
if ! have "$sim"; then
    skip "bytes per event" "$sim is not built"
elif [ "${#workloads[@]}" -eq 0 ]; then
    skip "bytes per event" "aioprof-sim --help names no workloads"
else
    say "bytes per event, 60 device seconds each (aioprof-sim --clock virtual):"
    for w in "${workloads[@]}"; do
        if ! "$sim" -w "$w" --clock virtual --duration 60 -o "$tmp/w.aiop" 2> "$tmp/w.log"; then
            say "  $w: skipped: the simulator failed: $(tail -1 "$tmp/w.log")"
            continue
        fi
        size=$(stat -c %s "$tmp/w.aiop")
        line=$(grep -oiE '[0-9.]+ bytes.{0,3}(per|/) ?event' "$tmp/w.log" | head -1)
        n=$(events_in "$tmp/w.log")
        mine=""
        [ -n "$n" ] && [ "$n" -gt 0 ] && mine=$(awk -v s="$size" -v n="$n" 'BEGIN { printf "%.2f bytes/event, ", s / n }')
        printf '  %-12s %s%s B/s of link (%s bytes)%s\n' "$w:" "$mine" "$((size / 60))" "$size" \
            "${line:+; by the simulator: $line}"
        # The same bytes by record kind (docs/protocol.md, "Size").
        if command -v python3 >/dev/null; then
            parts=$(python3 "$src/tests/bench/wire_bytes.py" "$tmp/w.aiop" 60 2>&1 | sed 's/^[0-9.]* B\/event, //')
            printf '  %-12s %s\n' "" "$parts"
        fi
        rm -f "$tmp/w.aiop"
    done
fi
say ""

# --- c. code size per target ------------------------------------------------------------------
if command -v arm-none-eabi-gcc >/dev/null; then
    bash "$src/cmake/arm-build.sh" "$arm_build" > "$tmp/arm.log" 2>&1
    if [ -s "$arm_build/summary.txt" ]; then
        say "code size (arm-none-eabi-gcc -Os, linked with --gc-sections; target <= 1536 B code, <= 64 B state):"
        sed 's/^arm: /  /' "$arm_build/summary.txt"
    else
        skip "code size" "the arm build failed: $(tail -1 "$tmp/arm.log")"
    fi
else
    skip "code size" "arm-none-eabi-gcc is not installed (make arm installs it)"
fi
say ""

# --- d. host: replay throughput ---------------------------------------------------------------
capture=$work/busy-${capture_mb}MB.aiop
capture_events=""
if ! have "$top"; then
    skip "replay" "$top is not built"
elif ! have "$sim"; then
    skip "replay" "$sim is not built (it makes the capture)"
else
    # Kept for the next run, unless the simulator changed since.
    if [ ! -s "$capture" ] || [ ! -s "$capture.events" ] || [ "$sim" -nt "$capture" ]; then
        # Device seconds needed for the size, from a 10-second sample of the busy workload.
        "$sim" -w busy --clock virtual --duration 10 -o "$tmp/sample.aiop" 2> /dev/null
        rate=$(( $(stat -c %s "$tmp/sample.aiop" 2>/dev/null || echo 0) / 10 ))
        if [ "$rate" -gt 0 ]; then
            seconds=$(( capture_mb * 1000000 / rate + 1 ))
            say "replay: making a ${capture_mb} MB capture: busy workload, $seconds device seconds at $rate B/s ..."
            if "$sim" -w busy --clock virtual --duration "$seconds" -o "$capture" 2> "$tmp/capture.log"; then
                events_in "$tmp/capture.log" > "$capture.events"
            else
                rm -f "$capture"
            fi
        fi
    fi
    if [ ! -s "$capture" ]; then
        skip "replay" "the simulator could not make the capture (aioprof-sim -w busy --clock virtual)"
    elif ! "$top" -r "$capture" --report > "$tmp/report.txt" 2> "$tmp/report.err"; then
        skip "replay" "aioprof-top -r FILE --report failed: $(head -1 "$tmp/report.err")"
    else
        size=$(stat -c %s "$capture")
        capture_events=$(cat "$capture.events" 2>/dev/null)
        t_top=$(for _ in $(seq "$runs"); do seconds_of "$top" -r "$capture" --report; done | median)
        t_cat=$(for _ in $(seq "$runs"); do seconds_of cat "$capture"; done | median)
        awk -v s="$size" -v a="$t_top" -v c="$t_cat" -v e="${capture_events:-0}" -v r="$runs" 'BEGIN {
            printf "replay: aioprof-top -r --report: %.1f MB/s", s / a / 1e6
            if (e > 0) printf ", %.2f M events/s", e / a / 1e6
            printf " (%.3f s for %.0f MB, median of %d)\n", a, s / 1e6, r
            printf "replay: cat FILE > /dev/null:    %.1f MB/s (%.3f s); aioprof-top takes %.1fx as long as cat\n", s / c / 1e6, c, a / c }'
    fi
fi
say ""

# --- d. host: telling damaged frames from device text ----------------------------------------
# Every frame of every workload (20 device seconds, 30- and 32-bit ticks) and of an idle device,
# damaged at every byte four ways; device text with and without control bytes (docs/protocol.md
# section 1; tests/bench/bench_classify.c says how it counts).
classify=$build/tests/bench/bench_classify
if ! have "$classify" || ! have "$sim" || [ "${#workloads[@]}" -eq 0 ]; then
    skip "classify" "$classify or $sim is not built"
else
    captures=()
    for w in "${workloads[@]}"; do
        for bits in 30 32; do
            "$sim" -w "$w" --clock virtual --duration 20 --tick-bits "$bits" -q -o "$tmp/c-$w-$bits.aiop" 2> /dev/null \
                && captures+=("$tmp/c-$w-$bits.aiop")
        done
    done
    "$classify" "${captures[@]}" | sed -e "s|$tmp/c-||" -e 's|\.aiop||'
fi
say ""

# --- d. host: live CPU on a pty ---------------------------------------------------------------
# live_run LABEL PTY_LINK_FILE: aioprof-top on the pty named in the file for live_seconds,
# recording what it reads (the recording's size gives the rate it really got).
live_run() {
    local label=$1 link=$2 pty user sys wall bytes
    for _ in $(seq 50); do [ -s "$link" ] && break; sleep 0.1; done
    if [ ! -s "$link" ]; then
        skip "live CPU ($label)" "no pty appeared"
        return
    fi
    pty=$(head -1 "$link")
    rm -f "$tmp/live.aiop"
    if ! /usr/bin/time -f '%U %S %e' -o "$tmp/live.time" "$top" "$pty" --report --duration "$live_seconds" \
            -w "$tmp/live.aiop" > /dev/null 2> "$tmp/live-top.err"; then
        skip "live CPU ($label)" "aioprof-top on the pty failed: $(head -1 "$tmp/live-top.err")"
        return
    fi
    read -r user sys wall < "$tmp/live.time"
    bytes=$(stat -c %s "$tmp/live.aiop" 2>/dev/null || echo 0)
    awk -v l="$label" -v u="$user" -v s="$sys" -v w="$wall" -v b="$bytes" 'BEGIN {
        printf "live: %s: %.3f MB/s read, aioprof-top used %.1f%% of one core (user %.2f s + sys %.2f s in %.1f s)\n",
            l, b / w / 1e6, (u + s) / w * 100, u, s, w }'
}
if ! have "$top" || ! have "$sim"; then
    skip "live CPU" "aioprof-top or aioprof-sim is not built"
elif ! "$sim" --help 2>/dev/null | grep -q -- '--pty-link'; then
    skip "live CPU" "aioprof-sim has no --pty-link option"
else
    # The simulator in real time: its busy workload is the fastest it streams.
    "$sim" -w busy --clock real --pty --pty-link "$tmp/sim.pty" --duration $((live_seconds + 5)) -q \
        2> "$tmp/live-sim.log" &
    children+=($!)
    live_run "simulator, busy workload, real clock" "$tmp/sim.pty"
    kill "${children[-1]}" 2>/dev/null
    # 1 MB/s, more than any workload makes in real time: the busy capture played at that pace.
    if [ -s "$capture" ] && command -v python3 >/dev/null; then
        python3 "$src/tests/bench/pty_pacer.py" "$capture" 1000000 $((live_seconds + 1)) "$tmp/pacer.pty" \
            2> "$tmp/pacer.log" &
        children+=($!)
        live_run "busy capture paced at 1 MB/s" "$tmp/pacer.pty"
        wait "${children[-1]}" 2>/dev/null
    else
        skip "live CPU at 1 MB/s" "needs the replay capture and python3"
    fi
fi
say ""

# --- d. host: peak memory with a million task instances -----------------------------------------
# Task instances in a --truth file or a --json report: the sum of the per-name counts.
instances_in() { grep -oE '"instances":[[:space:]]*[0-9]+' "$1" | grep -oE '[0-9]+$' | awk '{ n += $1 } END { print n + 0 }'; }
# The workload that makes the most task instances per device second.
many_w=""
many_rate=0
if have "$sim"; then
    for w in "${workloads[@]}"; do
        "$sim" -w "$w" --clock virtual --duration 60 -o /dev/null --truth "$tmp/truth.json" -q 2> /dev/null || continue
        n=$(instances_in "$tmp/truth.json")
        if [ "$n" -gt "$many_rate" ]; then many_w=$w; many_rate=$n; fi
    done
fi
if ! have "$top" || ! have "$sim"; then
    skip "memory" "aioprof-top or aioprof-sim is not built"
elif [ -z "$many_w" ]; then
    skip "memory" "no simulator workload reports task instances in its --truth file"
else
    many=$work/$many_w-$want_tasks-instances.aiop
    if [ ! -s "$many" ] || [ "$sim" -nt "$many" ]; then
        seconds=$(( want_tasks * 60 / many_rate * 102 / 100 + 1 ))
        say "memory: making a capture of about $want_tasks task instances: -w $many_w, $seconds device seconds ..."
        "$sim" -w "$many_w" --clock virtual --duration "$seconds" -o "$many" -q 2> "$tmp/many.log" || rm -f "$many"
    fi
    if [ ! -s "$many" ]; then
        skip "memory" "aioprof-sim -w $many_w failed: $(tail -1 "$tmp/many.log" 2>/dev/null)"
    else
        size=$(stat -c %s "$many")
        for mode in "" "--instances"; do
            # JSON, so that the instance count comes from aioprof-top's own figures.
            if /usr/bin/time -v -o "$tmp/mem.time" "$top" -r "$many" --json $mode > "$tmp/mem.json" 2> "$tmp/mem.err"; then
                rss=$(awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }' "$tmp/mem.time")
                secs=$(awk '/Elapsed \(wall clock\)/ { print $NF }' "$tmp/mem.time")
                say "memory: aioprof-top -r --json ${mode:+$mode }over $(instances_in "$tmp/mem.json") task instances ($((size / 1000000)) MB, -w $many_w): max RSS $((rss / 1024)) MiB, $secs wall"
            else
                skip "memory" "aioprof-top -r FILE --json $mode failed: $(head -1 "$tmp/mem.err")"
            fi
        done
    fi
fi
