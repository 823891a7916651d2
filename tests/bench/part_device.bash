# shellcheck shell=bash disable=SC2154,SC2034  # the knobs and paths come from run.sh and bench_lib.bash
# Part "device" of tests/bench/run.sh: the hook's x86-64 instructions per event under callgrind,
# and its code size per Cortex-M target.

# Instructions per event of one bench binary and pattern: two runs, N and 2N events, so that the
# difference is N events' worth with start-up cancelled out; the same two with --no-hook measure
# the driving loop, which is taken away. Prints "PER_EVENT LOOP" or nothing.
device_cost() {
    local bin=$1 label=$2
    shift 2
    local irs=() mode n
    for mode in hook no-hook; do
        for n in "$device_events" $((device_events * 2)); do
            local flag=("$@")
            [ "$mode" = no-hook ] && flag+=(--no-hook)
            valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$label.$mode.$n" "$bin" "$n" "${flag[@]}" \
                > "$tmp/bench.$label.$mode.$n" 2> "$tmp/cg.$label.$mode.$n.log"
            irs+=("$(awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg.$label.$mode.$n" 2>/dev/null)")
        done
    done
    [ -n "${irs[0]}" ] && [ -n "${irs[1]}" ] && [ -n "${irs[2]}" ] && [ -n "${irs[3]}" ] || return 1
    awk -v a="${irs[0]}" -v b="${irs[1]}" -v c="${irs[2]}" -v d="${irs[3]}" -v n="$device_events" \
        'BEGIN { printf "%.1f %.1f\n", ((b - a) - (d - c)) / n, (d - c) / n }'
}

# A span pair (aioprof_span_enter and aioprof_span_exit, one per slice: bench_device --spans): its
# instructions, all in (the records, and the frames' CRC, COBS and drain of their bytes), as the
# difference from the same pattern without spans; and its bytes on the wire.
part_device_spans() {
    local bin label cost base n=$device_events
    say "spans: one span pair per slice (bench_device --spans), instructions and wire bytes per pair over the same run without (target < 200 instructions, <= 4 bytes):"
    for bin in "$build/tests/bench/bench_device" "$build/tests/bench/bench_device_runtime"; do
        label=$(basename "$bin")
        read -r cost _ < <(device_cost "$bin" "$label.spans" --spans) || { say "  skipped: no count for $label --spans"; continue; }
        read -r base _ < <(device_cost "$bin" "$label.nospans") || continue
        local bytes_span bytes_base
        bytes_span=$("$bin" 2000000 --spans | awk '{ print $4 }')
        bytes_base=$("$bin" 2000000 | awk '{ print $4 }')
        local per_pair wire
        per_pair=$(awk -v a="$cost" -v b="$base" 'BEGIN { printf "%.1f", (a - b) * 2 }')
        wire=$(awk -v a="$bytes_span" -v b="$bytes_base" 'BEGIN { printf "%.2f", (a - b) / 1000000 }')
        # the same with lateness reported: the span list beside the frame's LATE list
        local late_span late_base wire_late
        late_span=$("$bin" 2000000 --spans --late | awk '{ print $4 }')
        late_base=$("$bin" 2000000 --late | awk '{ print $4 }')
        wire_late=$(awk -v a="$late_span" -v b="$late_base" 'BEGIN { printf "%.2f", (a - b) / 1000000 }')
        say "  $(printf '%6s' "$per_pair") instructions, $wire bytes per span pair ($wire_late with lateness, --late): $label"
        [ "$label" = bench_device_runtime ] && summary_row "span pair, x86-64 instructions (port through pointers)" "< 200" \
            "$per_pair" "$(verdict "$per_pair" '<' 200)" && summary_row "span pair, wire bytes (one per slice)" "<= 4" \
            "$wire" "$(verdict "$wire" '<=' 4)"
    done
}

part_device() {
    local bench_device=$build/tests/bench/bench_device bench_runtime=$build/tests/bench/bench_device_runtime
    local variant label bin opt what per_event loop native
    if ! have "$bench_device" || ! have "$bench_runtime"; then
        skip device "$bench_device or $bench_runtime is not built"
    elif ! command -v valgrind >/dev/null; then
        skip device "valgrind is not installed (apt-get install valgrind)"
    else
        say "device: x86-64 instructions per event, all in (record, frame, COBS, CRC, drain, the port's clock;"
        say "        callgrind, $device_events and $((device_events * 2)) events, the driving loop's own instructions taken away; target <= 80):"
        for variant in "bound:$bench_device:" "bound-churn:$bench_device:--churn" "runtime:$bench_runtime:" \
                       "runtime-churn:$bench_runtime:--churn"; do
            IFS=: read -r label bin opt <<< "$variant"
            opts=()
            [ -n "$opt" ] && opts=("$opt")
            case $label in
                bound) what="port bound at compile time (a firmware's best case), long-lived tasks and workers" ;;
                bound-churn) what="port bound at compile time, every task recreated now and then (--churn)" ;;
                runtime) what="port called through pointers (the build the simulator and MicroPython use), long-lived tasks and workers" ;;
                runtime-churn) what="port called through pointers, --churn" ;;
            esac
            if read -r per_event loop < <(device_cost "$bin" "$label" "${opts[@]}"); then
                native=$("$bin" 2000000 "${opts[@]}" 2>/dev/null)
                say "  $(printf '%6s' "$per_event") per event, $(echo "$native" | awk '{ print $6 }') bytes per event, loop $loop taken away: $what"
                case $label in
                    bound) summary_row "device hook, x86-64 instructions per event, port bound (best case)" "<= 80" \
                               "$per_event" "$(verdict "$per_event" '<=' 80)" ;;
                    runtime) summary_row "device hook, x86-64 instructions per event, port through pointers" "<= 80" \
                               "$per_event" "$(verdict "$per_event" '<=' 80)" ;;
                esac
            else
                say "  skipped: callgrind gave no instruction count for $label (see $tmp/cg.$label.*.log)"
            fi
        done
        part_device_spans
    fi
    say ""

    if command -v arm-none-eabi-gcc >/dev/null; then
        bash "$src/cmake/arm-build.sh" "$arm_build" > "$tmp/arm.log" 2>&1
        if [ -s "$arm_build/summary.txt" ]; then
            say "code size (arm-none-eabi-gcc -Os, linked with --gc-sections; target <= 2400 B code for the small builds, <= 64 B state):"
            sed 's/^arm: /  /' "$arm_build/summary.txt"
            # issue 26: the small build on the Cortex-M0+ with every part (the issue's row), and
            # without lateness, without lateness and the stop (the parts it had at 2,386 B), and
            # with none of the three (docs/porting.md, "Building for size")
            local config bytes
            for config in small small-nolate small-nolate-nostop small-min; do
                bytes=$(awk -v c="cortex-m0plus $config:" 'index($0, "arm: " c) == 1 {
                    for (i = 1; i < NF; i++) if ($i == "code") { print $(i + 1); exit } }' "$arm_build/summary.txt")
                summary_row "hook code, Cortex-M0+ $config build (-Os, --gc-sections)" "<= 2400 B" "${bytes:-?} B" \
                    "$(verdict "$bytes" '<=' 2400)"
                [ "$config" = small ] && i26_row hook_size "${bytes:-?} B" "$(verdict "$bytes" '<=' 2400)"
            done
        else
            skip "code size" "the arm build failed: $(tail -1 "$tmp/arm.log")"
            i26_why hook_size "the arm build failed"
        fi
    else
        skip "code size" "arm-none-eabi-gcc is not installed (make arm installs it)"
        i26_why hook_size "arm-none-eabi-gcc is not installed"
    fi
    device_native_size
    say ""
}

# The native module's size for armv6m (its code is loaded into the board's RAM): the .mpy named
# by AIOPROF_NATIVE_ARMV6M; else the one this tree's sources make, built as make mpy builds the
# newest (.mpy 6.3, MicroPython 1.23.0: build.py one) when AIOPROF_MPY_SRC names a MicroPython
# clone with its tags and arm-none-eabi-gcc and /usr/bin/python3's pyelftools are there; else the
# prebuilt one of the highest .mpy sub-version (what a current firmware loads:
# device/micropython/mpy/armv6m/6.N/; the files' times say nothing, a checkout writes them all at
# once), said to be stale when build.py check finds the sources changed since make mpy.
device_native_size() {
    local mpy=${AIOPROF_NATIVE_ARMV6M:-} bytes what="" out
    local build_py=$src/device/micropython/mpy/build.py
    if [ -z "$mpy" ] && [ -n "${AIOPROF_MPY_SRC:-}" ] && command -v arm-none-eabi-gcc > /dev/null &&
        /usr/bin/python3 -c 'import elftools' 2> /dev/null; then
        if out=$(/usr/bin/python3 "$build_py" one --mpy-src "$AIOPROF_MPY_SRC" --arch armv6m \
            --out "$tmp/native-armv6m.mpy" 2>&1); then
            mpy=$tmp/native-armv6m.mpy
            what="this tree's, built with $(echo "$out" | sed -n 's/.*built with \([^)]*\)).*/\1/p')"
        else
            say "  native module: building it from this tree failed, the prebuilt one instead: $(echo "$out" | tail -n 1)"
        fi
    fi
    if [ -z "$mpy" ]; then
        local f
        while IFS= read -r f; do
            [ -s "$f" ] && mpy=$f
        done < <(printf '%s\n' "$src"/device/micropython/mpy/armv6m/*/_aioprof_native.mpy | sort -V)
        what="prebuilt"
        python3 "$build_py" check > /dev/null 2>&1 ||
            what="prebuilt, from other sources than this tree's (build.py check; make mpy, or set AIOPROF_MPY_SRC)"
    fi
    if [ -z "$mpy" ] || [ ! -s "$mpy" ]; then
        skip "native module size" "no armv6m _aioprof_native.mpy (set AIOPROF_NATIVE_ARMV6M, or make mpy)"
        i26_why native_size "no armv6m .mpy built (AIOPROF_NATIVE_ARMV6M, or make mpy)"
        return
    fi
    bytes=$(stat -c %s "$mpy")
    say "native module, armv6m: $bytes B (${what:-$mpy}; goal <= 9000 B)"
    i26_row native_size "$bytes B" "$(verdict "$bytes" '<=' 9000)"
}
