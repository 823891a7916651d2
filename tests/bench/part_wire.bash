# shellcheck shell=bash disable=SC2154,SC2034  # the knobs and paths come from run.sh and bench_lib.bash
# Part "wire" of tests/bench/run.sh: bytes on the wire per enter/exit event for every simulator
# workload, in short (60 s) and long (BENCH_SESSION_SECONDS, 10 minutes by default) sessions, and
# for the busy workload with 400 and 4,000 tasks; each split by record kind (wire_bytes.py).

# The workloads the simulator's --help names after "--workload NAME", up to "(default ...)".
sim_workloads() {
    "$sim" --help 2>/dev/null | grep -- '--workload' | sed -e 's/.*--workload NAME//' -e 's/(default.*//' |
        tr ',|' '  ' | tr ' ' '\n' | grep -vxE 'or|and|'
}

# wire_line LABEL CAPTURE SECONDS: one line of figures; sets wire_bpe to the bytes per event.
wire_line() {
    local label=$1 capture=$2 seconds=$3 size n parts
    size=$(stat -c %s "$capture")
    n=$(events_in "$capture.log")
    wire_bpe=""
    [ -n "$n" ] && [ "$n" -gt 0 ] && wire_bpe=$(awk -v s="$size" -v n="$n" 'BEGIN { printf "%.2f", s / n }')
    printf '  %-26s %s bytes/event, %s B/s of link, %s bytes, %s events\n' "$label:" "${wire_bpe:-?}" \
        "$((size / seconds))" "$size" "${n:-?}"
    if parts=$(python3 "$bench_dir/wire_bytes.py" "$capture" "$seconds" 2>&1); then
        printf '  %-26s %s\n' "" "$(echo "$parts" | sed 's/^[0-9.]* B\/event, //')"
    else
        printf '  %-26s wire_bytes.py: %s\n' "" "$parts"
    fi
}

part_wire() {
    local w seconds label capture goal
    if ! have "$sim"; then
        skip "bytes per event" "$sim is not built"
        say ""
        return
    fi
    mapfile -t workloads < <(sim_workloads)
    if [ "${#workloads[@]}" -eq 0 ]; then
        skip "bytes per event" "aioprof-sim --help names no workloads"
        say ""
        return
    fi
    say "bytes per event on the wire (frames, announcements, HELLO and heartbeats included; aioprof-sim"
    say "--clock virtual), then the same bytes by record kind per event (tests/bench/wire_bytes.py):"
    local lengths=(60 "$session_seconds")
    [ "$session_seconds" = 60 ] && lengths=(60)
    for seconds in "${lengths[@]}"; do
        for label in "${workloads[@]}" "busy --tasks 400" "busy --tasks 4000"; do
            # the short sessions: the workloads as they are; many tasks only in the long ones
            [ "$seconds" != "$session_seconds" ] && [[ $label == *--tasks* ]] && continue
            capture=$tmp/wire.aiop
            # shellcheck disable=SC2086
            if ! "$sim" -w $label --clock virtual --duration "$seconds" -o "$capture" 2> "$capture.log"; then
                say "  $label: skipped: the simulator failed: $(tail -1 "$capture.log")"
                continue
            fi
            wire_line "$label, $seconds s" "$capture" "$seconds"
            # the export part times this capture too: kept for it
            if [ "$label" = busy ] && [ "$seconds" = "$session_seconds" ]; then
                mv "$capture" "$tmp/session-busy.aiop"
            fi
            rm -f "$capture" "$capture.log"
            [ "$seconds" = "$session_seconds" ] || continue
            case $label in
                seed | busy) goal=3.0 ;;
                instances) goal=3.5 ;;
                "busy --tasks 4000") goal=4 ;;
                *) goal="" ;;
            esac
            if [ -n "$goal" ]; then
                summary_row "wire bytes per event, $label, $seconds s session" "<= $goal" \
                    "${wire_bpe:-?}" "$(verdict "$wire_bpe" '<=' "$goal")"
            else
                summary_row "wire bytes per event, $label, $seconds s session" "-" "${wire_bpe:-?}" ""
            fi
        done
    done
    say ""
}
