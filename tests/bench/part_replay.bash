# shellcheck shell=bash disable=SC2154,SC2034  # the knobs and paths come from run.sh and bench_lib.bash
# Parts "replay" and "export" of tests/bench/run.sh: aioprof-top -r FILE --report over a large
# capture of the busy workload, against cat and md5sum of the same file, run by run interleaved
# (the page cache warm); and --export-trace against --report on the same capture, interleaved.
# The large capture is of a device that does not report lateness (--late-unit 0), the figure
# earlier runs measured; a capture of the same workload with lateness (the simulator's default:
# every resume of busy is late, and its window is laid on the sixty events it waited for, docs/
# usage.md "Lateness") is timed beside it, a quarter of the size, against md5sum.

part_replay() {
    local capture=$work/busy-${capture_mb}MB.aiop rate seconds size t_top t_cat t_md5 r_cat r_md5 c_md5 mbs events
    if ! have "$top" || ! have "$sim"; then
        skip "replay" "aioprof-top or aioprof-sim is not built"
        i26_why replay_plain "aioprof-top or aioprof-sim is not built"
        i26_why replay_late "aioprof-top or aioprof-sim is not built"
        say ""
        return
    fi
    if [ ! -s "$capture" ] || [ "$sim" -nt "$capture" ]; then
        # device seconds for the size, from a 10-second sample of the busy workload
        "$sim" -w busy --clock virtual --duration 10 --late-unit 0 -o "$tmp/sample.aiop" 2> /dev/null
        rate=$(( $(stat -c %s "$tmp/sample.aiop" 2>/dev/null || echo 0) / 10 ))
        rm -f "$tmp/sample.aiop"
        if [ "$rate" -gt 0 ]; then
            seconds=$(( capture_mb * 1000000 / rate + 1 ))
            say "replay: making a ${capture_mb} MB capture: busy workload, $seconds device seconds at $rate B/s ..."
            rm -f "$capture"
            make_capture "$capture" -w busy --clock virtual --duration "$seconds" --late-unit 0
        fi
    fi
    if [ ! -s "$capture" ]; then
        skip "replay" "the simulator could not make the capture (aioprof-sim -w busy --clock virtual)"
        say ""
        return
    fi
    if ! "$top" -r "$capture" --report > "$tmp/report.txt" 2> "$tmp/report.err"; then
        skip "replay" "aioprof-top -r FILE --report failed: $(head -1 "$tmp/report.err")"
        say ""
        return
    fi
    size=$(stat -c %s "$capture")
    events=$(events_in "$capture.log")
    cat "$capture" > /dev/null
    rm -f "$tmp/replay.top" "$tmp/replay.cat" "$tmp/replay.md5"
    for _ in $(seq "$runs"); do
        times_of "$tmp/replay.top" "$top" -r "$capture" --report
        times_of "$tmp/replay.cat" cat "$capture"
        times_of "$tmp/replay.md5" md5sum "$capture"
    done
    t_top=$(median_of "$tmp/replay.top" 1)
    t_cat=$(median_of "$tmp/replay.cat" 1)
    t_md5=$(median_of "$tmp/replay.md5" 1)
    r_cat=$(fix 1 "$(ratio_of "$tmp/replay.top" "$tmp/replay.cat" 1)")
    r_md5=$(fix 2 "$(ratio_of "$tmp/replay.top" "$tmp/replay.md5" 1)")
    # the same in CPU time (user + system): what the machine's other load does not move
    c_md5=$(fix 2 "$(ratio_of "$tmp/replay.top" "$tmp/replay.md5" 2)")
    mbs=$(awk -v s="$size" -v t="$t_top" 'BEGIN { printf "%.0f", s / t / 1e6 }')
    say "replay of a $((size / 1000000)) MB capture of the busy workload (${events:-?} events), page cache warm,"
    say "$runs rounds of aioprof-top, cat and md5sum interleaved; medians, and medians of the per-round ratios:"
    awk -v s="$size" -v a="$t_top" -v c="$t_cat" -v m="$t_md5" -v rc="$r_cat" -v rm="$r_md5" -v cm="$c_md5" -v e="${events:-0}" 'BEGIN {
        printf "  aioprof-top -r FILE --report: %7.1f MB/s", s / a / 1e6
        if (e > 0) printf ", %.1f M events/s", e / a / 1e6
        printf " (%.3f s)\n", a
        printf "  md5sum FILE:                  %7.1f MB/s (%.3f s); aioprof-top takes %sx its time, %sx its CPU time\n", s / m / 1e6, m, rm, cm
        printf "  cat FILE > /dev/null:         %7.1f MB/s (%.3f s); aioprof-top takes %sx its time\n", s / c / 1e6, c, rc }'
    summary_row "replay, decode + aggregate, one core (-r busy, $((size / 1000000)) MB, --report)" \
        ">= 300 MB/s: <= 1.6x md5sum" "$mbs MB/s, ${r_md5}x md5sum, ${r_cat}x cat" "$(verdict "$r_md5" '<=' 1.6)"
    i26_row replay_plain "${c_md5}x in CPU time, ${r_md5}x wall ($mbs MB/s, $((size / 1000000)) MB)" \
        "$(verdict "$c_md5" '<=' 1.5)"
    replay_late
    say ""
}

# The busy workload with lateness in milliseconds, a quarter of the large capture's size:
# aioprof-top -r --report against md5sum, interleaved.
replay_late() {
    local capture=$work/busy-late-${capture_mb}MB.aiop rate seconds size t_top t_md5 r_md5 c_md5
    if [ ! -s "$capture" ] || [ "$sim" -nt "$capture" ]; then
        "$sim" -w busy --clock virtual --duration 10 -o "$tmp/sample.aiop" 2> /dev/null
        rate=$(( $(stat -c %s "$tmp/sample.aiop" 2>/dev/null || echo 0) / 10 ))
        rm -f "$tmp/sample.aiop"
        [ "$rate" -gt 0 ] || return
        seconds=$(( capture_mb * 1000000 / 4 / rate + 1 ))
        rm -f "$capture"
        make_capture "$capture" -w busy --clock virtual --duration "$seconds" || return
    fi
    size=$(stat -c %s "$capture")
    rm -f "$tmp/late.top" "$tmp/late.md5"
    for _ in $(seq "$runs"); do
        times_of "$tmp/late.top" "$top" -r "$capture" --report
        times_of "$tmp/late.md5" md5sum "$capture"
    done
    t_top=$(median_of "$tmp/late.top" 1)
    t_md5=$(median_of "$tmp/late.md5" 1)
    r_md5=$(fix 2 "$(ratio_of "$tmp/late.top" "$tmp/late.md5" 1)")
    c_md5=$(fix 2 "$(ratio_of "$tmp/late.top" "$tmp/late.md5" 2)")
    awk -v s="$size" -v a="$t_top" -v m="$t_md5" -v rm="$r_md5" -v cm="$c_md5" 'BEGIN {
        printf "  with lateness (ms), %.0f MB: aioprof-top %.1f MB/s (%.3f s), %sx md5sum (%.3f s), %sx in CPU time\n",
            s / 1e6, s / a / 1e6, a, rm, m, cm }'
    local mbs
    mbs=$(awk -v s="$size" -v a="$t_top" 'BEGIN { printf "%.0f", s / a / 1e6 }')
    summary_row "replay with lateness (-r busy, every resume late, --report)" "<= 3x md5sum" \
        "$mbs MB/s, ${r_md5}x md5sum" "$(verdict "$r_md5" '<=' 3)"
    i26_row replay_late "${c_md5}x in CPU time, ${r_md5}x wall ($mbs MB/s, $((size / 1000000)) MB)" \
        "$(verdict "$c_md5" '<=' 3)"
}

part_export() {
    local capture=$tmp/session-busy.aiop json=$work/export-trace.json t_rep t_exp ratio c_ratio json_mb
    if ! have "$top" || ! have "$sim"; then
        skip "export" "aioprof-top or aioprof-sim is not built"
        i26_why export "aioprof-top or aioprof-sim is not built"
        say ""
        return
    fi
    if [ ! -s "$capture" ] && ! "$sim" -w busy --clock virtual --duration "$session_seconds" -q -o "$capture"; then
        skip "export" "the simulator could not make the capture"
        say ""
        return
    fi
    rm -f "$tmp/export.rep" "$tmp/export.exp" "$json"
    if ! "$top" -r "$capture" --report --export-trace "$json" --force > /dev/null 2> "$tmp/export.err"; then
        skip "export" "aioprof-top --export-trace failed: $(head -1 "$tmp/export.err")"
        rm -f "$json"
        say ""
        return
    fi
    json_mb=$(awk -v b="$(stat -c %s "$json")" 'BEGIN { printf "%.0f", b / 1e6 }')
    for _ in $(seq "$runs"); do
        rm -f "$json"
        times_of "$tmp/export.rep" "$top" -r "$capture" --report
        times_of "$tmp/export.exp" "$top" -r "$capture" --report --export-trace "$json" --force
    done
    rm -f "$json"
    t_rep=$(median_of "$tmp/export.rep" 1)
    t_exp=$(median_of "$tmp/export.exp" 1)
    ratio=$(fix 1 "$(ratio_of "$tmp/export.exp" "$tmp/export.rep" 1)")
    # in CPU time (user + system: the kernel's writing of the JSON is the export's too), which the
    # machine's other load and the disk's writeback do not move as they move the wall time
    c_ratio=$(fix 1 "$(ratio_of "$tmp/export.exp" "$tmp/export.rep" 2)")
    say "export: the busy workload's $session_seconds s session ($(( $(stat -c %s "$capture") / 1000000 )) MB), $runs rounds interleaved:"
    awk -v r="$t_rep" -v e="$t_exp" -v q="$ratio" -v c="$c_ratio" -v j="$json_mb" 'BEGIN {
        printf "  --report:                     %.3f s\n", r
        printf "  --report --export-trace FILE: %.3f s, %.0f MB of JSON (%.0f MB/s); %sx the time of --report, %sx its CPU time\n", e, j, j / e, q, c }'
    summary_row "--export-trace, CPU time against --report (busy, $session_seconds s)" "<= 6x" "${c_ratio}x (${ratio}x wall)" \
        "$(verdict "$c_ratio" '<=' 6)"
    i26_row export "${c_ratio}x in CPU time, ${ratio}x wall" "$(verdict "$c_ratio" '<=' 4)"
    say ""
}
