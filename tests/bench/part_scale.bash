# shellcheck shell=bash disable=SC2154,SC2034  # the knobs and paths come from run.sh and bench_lib.bash
# Part "scale" of tests/bench/run.sh: aioprof-top's cost per event as the number of tasks grows:
# callgrind instruction counts of `-r FILE --report` over the busy workload with 40, 400, 4,000
# and 20,000 tasks (aioprof-sim --tasks). Two captures per count, N and 2N events: the difference
# of their counts over N is the cost of one event in the steady state, with start-up (reading
# the file's first block, the tasks' creation, the report) cancelled out.

# host_cost TASKS: prints "PER_EVENT BYTES_PER_EVENT" or nothing.
host_cost() {
    local tasks=$1 irs=() n
    for n in "$scale_events" $((scale_events * 2)); do
        local capture=$tmp/scale-$tasks-$n.aiop
        "$sim" -w busy --tasks "$tasks" --clock virtual --events "$n" -q -o "$capture" || return 1
        [ "$n" = "$scale_events" ] || scale_bpe=$(awk -v s="$(stat -c %s "$capture")" -v n="$n" 'BEGIN { printf "%.2f", s / n }')
        valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.scale.$tasks.$n" "$top" -r "$capture" --report \
            > /dev/null 2> "$tmp/cg.scale.$tasks.$n.log"
        irs+=("$(awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg.scale.$tasks.$n" 2>/dev/null)")
        rm -f "$capture" "$tmp/cg.scale.$tasks.$n"
    done
    [ -n "${irs[0]}" ] && [ -n "${irs[1]}" ] || return 1
    awk -v a="${irs[0]}" -v b="${irs[1]}" -v n="$scale_events" -v bpe="$scale_bpe" \
        'BEGIN { printf "%.0f %s\n", (b - a) / n, bpe }'
}

part_scale() {
    local tasks per_event bpe first="" at4000="" line="" ratio
    if ! have "$top" || ! have "$sim"; then
        skip "scale" "aioprof-top or aioprof-sim is not built"
    elif ! command -v valgrind >/dev/null; then
        skip "scale" "valgrind is not installed (apt-get install valgrind)"
    elif ! "$sim" --help 2>/dev/null | grep -q -- '--tasks'; then
        skip "scale" "aioprof-sim has no --tasks option"
    else
        say "host: x86-64 instructions per event of aioprof-top -r FILE --report (decode + aggregate), callgrind,"
        say "      busy workload with N tasks, captures of $scale_events and $((scale_events * 2)) events, the difference over $scale_events:"
        for tasks in $scale_tasks; do
            if read -r per_event bpe < <(host_cost "$tasks"); then
                say "  $(printf '%6s' "$tasks") tasks: $(printf '%6s' "$per_event") instructions per event ($bpe bytes per event)"
                [ -n "$first" ] || first=$per_event
                [ "$tasks" = 4000 ] && at4000=$per_event
                line="${line:+$line, }$per_event at $tasks"
            else
                say "  $tasks tasks: skipped: no instruction count (see $tmp/cg.scale.$tasks.*.log)"
            fi
        done
        if [ -n "$first" ] && [ -n "$at4000" ]; then
            ratio=$(awk -v a="$at4000" -v b="$first" 'BEGIN { printf "%.2f", a / b }')
            say "  4,000 tasks cost ${ratio}x what ${scale_tasks%% *} tasks cost per event"
            summary_row "cost per event as tasks grow (callgrind, ${scale_tasks%% *} to 4,000 tasks)" "flat: <= 1.5x" \
                "${ratio}x ($line)" "$(verdict "$ratio" '<=' 1.5)"
        else
            summary_row "cost per event as tasks grow (callgrind)" "flat: <= 1.5x" "${line:-?} (no 4,000 figure)" "?"
        fi
    fi
    say ""
}
