# shellcheck shell=bash disable=SC2154,SC2034  # the knobs and paths come from run.sh and bench_lib.bash
# Part "memory" of tests/bench/run.sh: aioprof-top's peak resident memory (-r FILE --report)
# against the number of distinct live tasks (busy --tasks N, every task alive to the end), and
# separately against the number of task instances created over a session (the instances
# workload: short-lived tasks, most of them finished). aioprof-top keeps at most
# STATS_INSTANCE_CAP_DEFAULT instance rows (host/stats/stats.h); the figures show where that binds, with
# the instances aioprof-top counted against the simulator's truth.

# instances_in FILE: the sum of the per-name "instances" of a --truth file or a --json report.
instances_in() {
    python3 -c 'import json, sys; print(sum(t.get("instances", 0) for t in json.load(open(sys.argv[1]))["tasks"]))' "$1" 2>/dev/null
}

# memory_line LABEL CAPTURE TRUTH: says the peak RSS of a report and the instances aioprof-top
# counted against the truth; sets mem_kb to the RSS (empty when the run failed), mem_counted and
# mem_truth to the instances counted and created. The peak is GNU time's %M: a launcher's footprint before the exec counts in a child's peak, and time's is
# about 1 MB (a Python launcher's would be tens of MB); the floor line says what it is.
memory_line() {
    local label=$1 capture=$2 truth=$3
    mem_kb=""
    if ! /usr/bin/time -f %M -o "$tmp/mem.kb" "$top" -r "$capture" --report > /dev/null 2> "$tmp/mem.err"; then
        say "  $label: skipped: aioprof-top -r FILE --report failed: $(head -1 "$tmp/mem.err")"
        return
    fi
    mem_kb=$(tail -1 "$tmp/mem.kb")
    mem_counted="?"
    "$top" -r "$capture" --json > "$tmp/mem.json" 2> /dev/null && mem_counted=$(instances_in "$tmp/mem.json")
    mem_truth=$(instances_in "$truth")
    say "  $label: max RSS $(fix 2 "$(awk -v k="$mem_kb" 'BEGIN { print k / 1024 }')") MiB; aioprof-top counted $mem_counted instances, the truth has $mem_truth$([ "$mem_counted" = "$mem_truth" ] || echo ' (WRONG)')"
}

part_memory() {
    local tasks base_kb="" base_n="" per capture rate want seconds list="" cap
    cap=$(awk '/define STATS_INSTANCE_CAP_DEFAULT/ { sub(/u$/, "", $3); print $3 }' "$src/host/stats/stats.h")
    if ! have "$top" || ! have "$sim"; then
        skip "memory" "aioprof-top or aioprof-sim is not built"
        say ""
        return
    elif [ ! -x /usr/bin/time ]; then
        skip "memory" "GNU time is not installed (apt-get install time)"
        say ""
        return
    fi
    /usr/bin/time -f %M -o "$tmp/mem.kb" "$top" --version > /dev/null 2>&1
    say "memory: peak RSS of aioprof-top -r FILE --report (GNU time; aioprof-top --version: $(fix 2 "$(awk '{ v = $1 } END { print v / 1024 }' "$tmp/mem.kb")") MiB); at most ${cap:-?} instance rows (host/stats/stats.h)"
    say "  against distinct live tasks (busy --tasks N, $memory_seconds device seconds, all alive to the end):"
    for tasks in $scale_tasks; do
        capture=$tmp/mem-$tasks.aiop
        if ! "$sim" -w busy --tasks "$tasks" --clock virtual --duration "$memory_seconds" -q -o "$capture" --truth "$capture.json"; then
            say "  $tasks tasks: skipped: the simulator failed"
            continue
        fi
        memory_line "$(printf '%6s' "$tasks") live tasks" "$capture" "$capture.json"
        rm -f "$capture" "$capture.json"
        [ -n "$mem_kb" ] || continue
        # a slope over fewer than 1,000 tasks is lost in the allocator's noise (~100 kB)
        if [ -z "$base_kb" ]; then
            base_kb=$mem_kb
            base_n=$tasks
        elif [ $((tasks - base_n)) -ge 1000 ]; then
            per=$(awk -v a="$mem_kb" -v b="$base_kb" -v n="$tasks" -v m="$base_n" 'BEGIN { printf "%.0f", (a - b) * 1024 / (n - m) }')
            say "         $per bytes per live task more than with $base_n$([ "$tasks" -gt "$cap" ] && echo ", past the $cap-row cap")"
        fi
        list="${list:+$list, }$(fix 1 "$(awk -v k="$mem_kb" 'BEGIN { print k / 1024 }')") at $tasks$([ "$mem_counted" = "$mem_truth" ] || echo ' (count wrong)')"
    done
    [ -n "${list:-}" ] && summary_row "memory (MiB) against distinct live tasks" "-" "$list" ""
    list=""

    # instances created: the instances workload's rate, from a 60-second sample's truth
    "$sim" -w instances --clock virtual --duration 60 -q -o /dev/null --truth "$tmp/inst-sample.json" 2> /dev/null
    rate=$(instances_in "$tmp/inst-sample.json")
    if [ -z "$rate" ] || [ "$rate" -eq 0 ]; then
        skip "memory against instances" "the instances workload's truth names no instances"
        say ""
        return
    fi
    say "  against task instances created (the instances workload, most of them finished):"
    base_kb=""
    for want in $((want_instances / 1000)) $((want_instances / 100)) $((want_instances / 10)) "$want_instances"; do
        seconds=$(( want * 60 / rate + 1 ))
        capture=$tmp/mem-inst-$want.aiop
        # the largest is kept for the next run
        if [ "$want" = "$want_instances" ]; then
            capture=$work/instances-$want.aiop
            [ -s "$capture.json" ] || rm -f "$capture"
        fi
        if ! make_capture "$capture" -w instances --clock virtual --duration "$seconds" --truth "$capture.json"; then
            say "  $want instances: skipped: the simulator failed: $(tail -1 "$capture.log")"
            continue
        fi
        memory_line "$(printf '%8s' "$(instances_in "$capture.json")") instances ($seconds s, $(( $(stat -c %s "$capture") / 1000000 )) MB)" "$capture" "$capture.json"
        [ "$want" = "$want_instances" ] || rm -f "$capture" "$capture.json" "$capture.log"
        [ -n "$mem_kb" ] || continue
        if [ -z "$base_kb" ]; then
            base_kb=$mem_kb
            base_n=$mem_truth
        elif [ $((mem_truth - base_n)) -ge 1000 ]; then
            per=$(awk -v a="$mem_kb" -v b="$base_kb" -v n="$mem_truth" -v m="$base_n" 'BEGIN { printf "%.1f", (a - b) * 1024 / (n - m) }')
            say "         $per bytes per instance created more than with $base_n"
        fi
        list="${list:+$list, }$(fix 1 "$(awk -v k="$mem_kb" 'BEGIN { print k / 1024 }')") at $mem_truth$([ "$mem_counted" = "$mem_truth" ] || echo ' (count wrong)')"
    done
    [ -n "${list:-}" ] && summary_row "memory (MiB) against task instances created" "-" "$list" ""
    say ""
}
