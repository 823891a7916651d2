#!/usr/bin/env bash
# shellcheck disable=SC2034  # the knobs are used by the parts it sources
# Prints the benchmark figures of aioprof (run by `make bench`), then a summary with every row of
# issue 16's table: the figure, its goal, what was measured, met or not. Not a test: nothing here
# fails on a slow machine; a figure whose program or option is missing says "skipped: <why>".
# Every time figure is a ratio to a baseline measured interleaved in the same run (cat, md5sum,
# --report), and a median; instruction counts (callgrind) are the repeatable figures.
#
# Usage: tests/bench/run.sh [BUILD_DIR] [ARM_BUILD_DIR]
# Knobs (environment), defaults in brackets; docs/building.md has what each part measures:
#   BENCH_ONLY            the parts to run, e.g. "replay live" [device wire classify scale memory
#                         replay export live mpy]
#   BENCH_RUNS            rounds per timed figure [5]
#   BENCH_WORK            where the large captures are kept for the next run [BUILD_DIR/bench]
#   BENCH_CAPTURE_MB      the replay capture's size [600]
#   BENCH_SESSION_SECONDS the long sessions (bytes per event, export, live vs --report) [600]
#   BENCH_EVENTS          device hook events under callgrind [200000]
#   BENCH_SCALE_EVENTS    host events under callgrind per task count (and twice that) [2000000]
#   BENCH_SCALE_TASKS     task counts for cost and memory ["40 400 4000 20000"]
#   BENCH_MEMORY_SECONDS  device seconds of the live-task memory captures [60]
#   BENCH_TASKS           most task instances created for the memory figure [1000000]
#   BENCH_LIVE_SECONDS    the live CPU window [6]; BENCH_LIVE_RUNS rounds of them [3]
#   BENCH_TRICKLE_CHUNK   bytes per write of the UART trickle [8]; BENCH_FAST_CHUNK at 1 MB/s [1000]
#   BENCH_MPY_TASKS, BENCH_MPY_SWITCHES, BENCH_MPY_CG, BENCH_MPY_CPU  the MicroPython engines' runs (part_mpy.bash);
#                         that part needs AIOPROF_MICROPYTHON(_STOCK) and AIOPROF_NATIVE_DIR
set -uo pipefail

build=$(cd "${1:-build}" 2>/dev/null && pwd) || { echo "bench: no build directory '${1:-build}': run make first" >&2; exit 1; }
arm_build=${2:-build-arm}
runs=${BENCH_RUNS:-5}
capture_mb=${BENCH_CAPTURE_MB:-600}
session_seconds=${BENCH_SESSION_SECONDS:-600}
device_events=${BENCH_EVENTS:-200000}
scale_events=${BENCH_SCALE_EVENTS:-2000000}
scale_tasks=${BENCH_SCALE_TASKS:-40 400 4000 20000}
memory_seconds=${BENCH_MEMORY_SECONDS:-60}
want_instances=${BENCH_TASKS:-1000000}
live_seconds=${BENCH_LIVE_SECONDS:-6}
live_runs=${BENCH_LIVE_RUNS:-3}
trickle_rate=11520
trickle_chunk=${BENCH_TRICKLE_CHUNK:-8}
fast_rate=1000000
fast_chunk=${BENCH_FAST_CHUNK:-1000}

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/bench/bench_lib.bash
source "$here/bench_lib.bash"
trap 'rm -rf "$tmp"' EXIT
for part in device wire classify replay scale memory live mpy; do
    # shellcheck disable=SC1090
    source "$here/part_$part.bash"
done
for n in "$runs" "$capture_mb" "$session_seconds" "$device_events" "$scale_events" "$memory_seconds" \
         "$want_instances" "$live_seconds" "$live_runs" "$trickle_chunk" "$fast_chunk"; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "bench: '$n': every BENCH_ knob but BENCH_ONLY and BENCH_SCALE_TASKS is a positive whole number" >&2; exit 2; }
done
if [ "$want_instances" -lt 1000 ]; then
    echo "bench: BENCH_TASKS wants at least 1000 (its thousandth, hundredth and tenth are measured too)" >&2
    exit 2
fi

started=$(date +%s)
say "aioprof benchmarks ($(uname -m), $(nproc) cores, $(date -u +%Y-%m-%d), load average $(cut -d' ' -f1-3 /proc/loadavg))"
say ""
for part in device wire classify scale memory replay export live mpy; do
    if wants "$part"; then
        t0=$(date +%s)
        "part_$part"
        echo "$part $(( $(date +%s) - t0 ))" >> "$tmp/durations"
    fi
done
summary_print
say ""
i26_print
say ""
say "took $(( $(date +%s) - started )) s ($(awk '{ printf "%s%s %d s", (NR > 1 ? ", " : ""), $1, $2 }' "$tmp/durations"))"
