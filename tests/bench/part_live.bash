# shellcheck shell=bash disable=SC2154,SC2034  # the knobs and paths come from run.sh and bench_lib.bash
# Part "live" of tests/bench/run.sh: the live table's CPU, drawn in a tmux pane of 120x40, while
# it reads a pty that tests/bench/pty_pacer.c feeds with a capture at a link's pace: a UART
# trickle (11.5 kB/s in BENCH_TRICKLE_CHUNK-byte writes, 8 as a 16550's receive FIFO hands them
# over) and 1 MB/s (BENCH_FAST_CHUNK bytes a millisecond, as USB full speed frames them). Each
# against `cat` reading the same pace, the least any reader pays, in the same round. Then the
# live table replaying the instances workload's long session flat out, against --report. The rows at
# a trickle and at 1 MB/s are measured twice, with the rows shown and with the timeline (T) shown,
# interleaved.

# live_capture FILE WORKLOAD: a capture of the workload holding at least 1 MB/s for the window
# plus 20 s of slack for the start (the table comes up in well under a second), kept for the
# next run.
live_capture() {
    local file=$1 workload=$2 rate seconds
    "$sim" -w "$workload" --clock virtual --duration 10 -o "$tmp/sample.aiop" 2> /dev/null
    rate=$(( $(stat -c %s "$tmp/sample.aiop" 2>/dev/null || echo 0) / 10 ))
    rm -f "$tmp/sample.aiop"
    [ "$rate" -gt 0 ] || return 1
    seconds=$(( fast_rate * (live_seconds + 20) / rate + 1 ))
    if [ -s "$file" ] && [ -s "$file.log" ] && [ "$file" -nt "$sim" ] &&
       [ "$(stat -c %s "$file")" -ge $(( fast_rate * (live_seconds + 19) )) ]; then
        return 0
    fi
    rm -f "$file"
    make_capture "$file" -w "$workload" --clock virtual --duration "$seconds"
}

# live_once OUT READER CAPTURE RATE CHUNK [MEASURE_ARGS...]: one window, its "CPU_PERCENT B/S WINDOW"
# line added to OUT (MEASURE_ARGS: --keys T --shows "timeline 5 s" for the timeline shown).
live_once() {
    local out=$1 reader=$2 capture=$3 rate=$4 chunk=$5 line
    shift 5
    if line=$(python3 "$measure" live --reader "$reader" --top "$top" --pacer "$pacer" --capture "$capture" \
            --rate "$rate" --chunk "$chunk" --seconds "$live_seconds" --size 120x40 --work "$tmp" "$@" 2> "$tmp/live.err"); then
        echo "$line" >> "$out"
    else
        say "  one $reader window failed: $(tail -1 "$tmp/live.err")"
    fi
}

live_say() { # LABEL TOP_FILE CAT_FILE
    local cpu rate cat_cpu ratio full
    cpu=$(median_of "$2" 1)
    rate=$(median_of "$2" 2)
    full=$(live_full "$2")
    if [ -s "$3" ]; then
        cat_cpu=$(median_of "$3" 1)
        ratio=$(ratio_of "$2" "$3" 1)
        say "  $1: $(fix 2 "$cpu") % of a core at $(fix 0 "$rate") B/s; cat: $(fix 2 "$cat_cpu") %; aioprof-top $(fix 1 "$ratio")x cat"
    else
        say "  $1: $(fix 2 "$cpu") % of a core at $(fix 0 "$rate") B/s"
    fi
    [ "${full:-0}" = 0 ] ||
        say "    the pty was full at $full of the pacer's writes in its worst window: the reader let the bytes pile up past what the kernel holds, so a board's ring would have overflowed"
}

# live_full FILE: the most writes that found the pty full in one window of FILE (column 4,
# tests/bench/measure.py live), 0 when every window kept up
live_full() {
    awk '{ if ($4 + 0 > m) m = $4 + 0 } END { print m + 0 }' "$1"
}

# live_row TOP CAT SAY ROW GOAL LIMIT [I26_KEY]: a live figure's line and summary row (its median
# CPU, and its ratio to cat on the same pace), when it was measured; LIMIT empty: no goal, no
# verdict; I26_KEY: its row of issue 26's table too.
live_row() {
    local top=$1 cat=$2 cpu verdict_text="" key=${7:-}
    [ -s "$top" ] || return 0
    live_say "$3" "$top" "$cat"
    cpu=$(fix 2 "$(median_of "$top" 1)")
    [ -z "$6" ] || verdict_text=$(verdict "$cpu" '<' "$6")
    # a reader that keeps its CPU low by letting the link back up does not meet a goal
    [ -z "$verdict_text" ] || [ "$(live_full "$top")" = 0 ] || verdict_text="NOT met (the pty was full)"
    summary_row "$4" "$5" "$cpu % ($(fix 1 "$(ratio_of "$top" "$cat" 1)")x cat)" "$verdict_text"
    [ -z "$key" ] || i26_row "$key" "$cpu % ($(fix 1 "$(ratio_of "$top" "$cat" 1)")x cat)" "$verdict_text"
}

part_live() {
    local busy=$work/live-busy.aiop inst=$work/live-instances.aiop session=$work/instances-${session_seconds}s.aiop
    local cpu ratio t_tui t_rep f
    if ! have "$top" || ! have "$sim" || ! have "$pacer"; then
        skip "live" "aioprof-top, aioprof-sim or tests/bench/pty_pacer is not built"
        i26_why live_fast "aioprof-top, aioprof-sim or tests/bench/pty_pacer is not built"
        i26_why live_trickle "aioprof-top, aioprof-sim or tests/bench/pty_pacer is not built"
        say ""
        return
    elif ! command -v tmux >/dev/null; then
        skip "live" "tmux is not installed (apt-get install tmux)"
        i26_why live_fast "tmux is not installed"
        i26_why live_trickle "tmux is not installed"
        say ""
        return
    fi
    if ! live_capture "$busy" busy || ! live_capture "$inst" instances; then
        skip "live" "the simulator could not make the captures"
        say ""
        return
    fi
    for f in top.trickle cat.trickle top.fast cat.fast top.inst tl.trickle tl.fast; do rm -f "$tmp/live.$f"; done
    # the timeline (T) shown, interleaved with the table's rows shown: it is fed either way
    local timeline=(--keys T --shows "timeline 5 s")
    for _ in $(seq "$live_runs"); do
        live_once "$tmp/live.top.trickle" top "$busy" "$trickle_rate" "$trickle_chunk"
        live_once "$tmp/live.tl.trickle" top "$busy" "$trickle_rate" "$trickle_chunk" "${timeline[@]}"
        live_once "$tmp/live.cat.trickle" cat "$busy" "$trickle_rate" "$trickle_chunk"
        live_once "$tmp/live.top.fast" top "$busy" "$fast_rate" "$fast_chunk"
        live_once "$tmp/live.tl.fast" top "$busy" "$fast_rate" "$fast_chunk" "${timeline[@]}"
        live_once "$tmp/live.cat.fast" cat "$busy" "$fast_rate" "$fast_chunk"
        live_once "$tmp/live.top.inst" top "$inst" "$fast_rate" "$fast_chunk"
    done
    say "live table (aioprof-top PTY, drawn in a 120x40 tmux pane), CPU over ${live_seconds} s windows once the table"
    say "shows the device (/proc/PID/schedstat), median of $live_runs rounds interleaved with cat on the same pace:"
    live_row "$tmp/live.top.trickle" "$tmp/live.cat.trickle" "busy capture, UART trickle ($trickle_rate B/s in $trickle_chunk-byte writes)" \
        "live table, CPU at a UART trickle ($trickle_rate B/s, $trickle_chunk-byte writes)" "< 1 %" 1 live_trickle
    live_row "$tmp/live.top.fast" "$tmp/live.cat.fast" "busy capture, 1 MB/s ($fast_chunk-byte writes)" \
        "live table, CPU at 1 MB/s (busy)" "< 2 %" 2 live_fast
    live_row "$tmp/live.tl.trickle" "$tmp/live.cat.trickle" "busy capture, UART trickle, the timeline shown" \
        "live table, the timeline shown, CPU at a UART trickle" "< 1 %" 1
    live_row "$tmp/live.tl.fast" "$tmp/live.cat.fast" "busy capture, 1 MB/s, the timeline shown" \
        "live table, the timeline shown, CPU at 1 MB/s (busy)" "< 2 %" 2
    live_row "$tmp/live.top.inst" "$tmp/live.cat.fast" "instances capture, 1 MB/s ($fast_chunk-byte writes)" \
        "live table, CPU at 1 MB/s (instances)" "-" ""

    # the live table replaying flat out, against --report, on the instances workload's long session
    if ! make_capture "$session" -w instances --clock virtual --duration "$session_seconds"; then
        skip "live vs --report" "the simulator could not make the capture"
        say ""
        return
    fi
    rm -f "$tmp/live.tui" "$tmp/live.rep"
    for _ in $(seq "$runs"); do
        if python3 "$measure" tui-replay --top "$top" --file "$session" --size 120x40 --work "$tmp" \
                >> "$tmp/live.tui" 2> "$tmp/live.err"; then
            times_of "$tmp/live.rep" "$top" -r "$session" --report
        else
            say "  one live replay failed: $(tail -1 "$tmp/live.err")"
        fi
    done
    if [ -s "$tmp/live.tui" ] && [ -s "$tmp/live.rep" ]; then
        ratio=$(ratio_of "$tmp/live.tui" "$tmp/live.rep" 2)
        t_tui=$(median_of "$tmp/live.tui" 2)
        t_rep=$(median_of "$tmp/live.rep" 2)
        say "  replaying the instances workload's $session_seconds s session ($(( $(stat -c %s "$session") / 1000 )) kB) flat out (--speed 0), CPU time,"
        say "  $runs rounds interleaved: live table $(fix 3 "$t_tui") s (wall $(fix 3 "$(median_of "$tmp/live.tui" 1)") s until 'end of recording'"
        say "  showed), --report $(fix 3 "$t_rep") s (wall $(fix 3 "$(median_of "$tmp/live.rep" 1)") s): the live table takes $(fix 1 "$ratio")x the time"
        summary_row "live table vs --report, replaying the instances session (CPU time)" "<= 2x" \
            "$(fix 1 "$ratio")x ($(fix 3 "$t_tui") s vs $(fix 3 "$t_rep") s)" "$(verdict "$ratio" '<=' 2)"
    fi
    say ""
}
