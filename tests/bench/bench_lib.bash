# shellcheck shell=bash disable=SC2154,SC2034  # the knobs and paths come from run.sh and bench_lib.bash
# Sourced by tests/bench/run.sh and its parts (part_*.bash): the programs, the knobs, the helpers
# that time and take medians, and the summary table every part adds its rows to.

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bench_dir=$src/tests/bench
sim=$build/device/sim/aioprof-sim
top=$build/host/aioprof-top
pacer=$build/tests/bench/pty_pacer
measure=$bench_dir/measure.py
work=${BENCH_WORK:-$build/bench}
mkdir -p "$work" || exit 1
tmp=$(mktemp -d)
summary=$tmp/summary
: > "$summary"

say() { printf '%s\n' "$*"; }
skip() { printf '%s: skipped: %s\n' "$1" "$2"; }
have() { [ -x "$1" ]; }

# Median of the numbers on stdin (one per line).
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# times_of FILE CMD...: "WALL CPU EXIT" of one run of CMD (measure.py run), appended to FILE;
# returns the command's exit code.
times_of() {
    local file=$1 line
    shift
    line=$(python3 "$measure" run "$@") || return 1
    echo "$line" >> "$file"
    return "$(echo "$line" | awk '{ print $3 }')"
}
# column N of FILE, as a median
median_of() { awk -v c="$2" '{ print $c }' "$1" | median; }
# the median of the per-round ratios of column N of FILE A to the same column of FILE B
ratio_of() { paste -d' ' "$1" "$2" | awk -v c="$3" -v w="$(head -1 "$1" | awk '{ print NF }')" '$(c + w) > 0 { print $c / $(c + w) }' | median; }

# The first number followed by "events" in a simulator's statistics.
events_in() { grep -oE '[0-9]+ events' "$1" | head -1 | grep -oE '^[0-9]+'; }

# verdict VALUE OP LIMIT: "met" or "NOT met" (OP is <, <= or >=), "?" without a value.
verdict() {
    awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN {
        if (v == "" || v == "nan") { print "?"; exit }
        ok = (op == "<") ? v < l : (op == "<=") ? v <= l : v >= l
        print ok ? "met" : "NOT met" }'
}

# summary_row FIGURE GOAL MEASURED VERDICT: a row of the table printed at the end.
summary_row() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >> "$summary"; }

summary_print() {
    [ -s "$summary" ] || return 0
    say "summary: the figures with goals (issue 16's table, the hook's aim); every time is a ratio to a"
    say "baseline measured in this run, and a median:"
    awk -F'\t' '
        { for (i = 1; i <= 4; i++) { c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } }
        END {
            h[1] = "figure"; h[2] = "goal"; h[3] = "measured"; h[4] = ""
            for (i = 1; i <= 3; i++) if (length(h[i]) > w[i]) w[i] = length(h[i])
            printf "  %-*s | %-*s | %-*s |\n", w[1], h[1], w[2], h[2], w[3], h[3]
            printf "  %s-+-%s-+-%s-+-%s\n", dashes(w[1]), dashes(w[2]), dashes(w[3]), "-------"
            for (r = 1; r <= NR; r++)
                printf "  %-*s | %-*s | %-*s | %s\n", w[1], c[r, 1], w[2], c[r, 2], w[3], c[r, 3], c[r, 4]
        }
        function dashes(n,   s) { s = ""; while (n-- > 0) s = s "-"; return s }' "$summary"
}

# wants PART: whether BENCH_ONLY (a list of part names) lets PART run.
wants() { [ -z "${BENCH_ONLY:-}" ] || [[ " ${BENCH_ONLY//,/ } " == *" $1 "* ]]; }

# A capture kept in $work for the next run unless the simulator changed since. make_capture FILE
# SIM_ARGS...: returns 1 (and removes FILE) when the simulator fails; its statistics go to
# FILE.log, whose event count events_in reads.
make_capture() {
    local file=$1
    shift
    if [ -s "$file" ] && [ -s "$file.log" ] && [ "$file" -nt "$sim" ]; then
        return 0
    fi
    if ! "$sim" "$@" -o "$file" 2> "$file.log"; then
        rm -f "$file"
        return 1
    fi
}

# fix DECIMALS VALUE: the value rounded for a line or the summary ("?" without one).
fix() { awk -v v="$2" -v d="$1" 'BEGIN { if (v == "" || v == "nan") print "?"; else printf "%.*f\n", d, v }'; }

# ---- issue 26's table: every row of it, printed after the summary, measured or not ----
# i26_row KEY MEASURED VERDICT: a part's figure for the row KEY (the keys: i26_print's list).
i26_row() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$tmp/i26"; }
# i26_why KEY WHY: why the row KEY has no figure (its program, build or input is absent).
i26_why() { printf '%s\t%s\n' "$1" "$2" >> "$tmp/i26.why"; }

i26_print() {
    local rows=(
        "replay_late|replay|replay of busy, every resume late (--report), CPU time against md5sum|<= 3x"
        "replay_plain|replay|the same without lateness (--late-unit 0), CPU time against md5sum|<= 1.5x"
        "export|export|--export-trace beside --report on busy with lateness, CPU time against --report|<= 4x"
        "live_fast|live|live table at 1 MB/s, busy (CPU of one core)|< 2 %"
        "live_trickle|live|live table at a UART trickle, busy (CPU of one core)|< 1 %"
        "hook_size|device|hook, Thumb small build with every part (Cortex-M0+, -Os, --gc-sections)|<= 2400 B"
        "native_size|device|native module loaded into the board's RAM, armv6m (.mpy size)|<= 9000 B"
        "firmware|mpy|firmware engine per task switch (instructions; time; as a user has it)|<= 3 % each"
        "python|mpy|python engine per task switch (instructions; time)|<= 60 %"
        "overhead|mpy|the overhead the header shows against the measured, per engine|within 30 % each"
    )
    local line key part figure goal got measured verdict why w1=0 w2=0 w3=0
    : > "$tmp/i26.out"
    touch "$tmp/i26" "$tmp/i26.why"
    for line in "${rows[@]}"; do
        IFS='|' read -r key part figure goal <<< "$line"
        got=$(awk -F'\t' -v k="$key" '$1 == k { m = $2; v = $3 } END { if (m != "") print m "\t" v }' "$tmp/i26")
        if [ -n "$got" ]; then
            measured=${got%%$'\t'*}
            verdict=${got#*$'\t'}
        else
            why=$(awk -F'\t' -v k="$key" '$1 == k { w = $2 } END { print w }' "$tmp/i26.why")
            if [ -z "$why" ]; then
                if wants "$part"; then why="part $part gave no figure"; else why="part $part not run (BENCH_ONLY)"; fi
            fi
            measured="not measured: $why"
            verdict="-"
        fi
        printf '%s\t%s\t%s\t%s\n' "$figure" "$goal" "$measured" "$verdict" >> "$tmp/i26.out"
    done
    say "issue 26's table: every row, its goal, what this run measured (ratios against a baseline in"
    say "this run, medians), and the verdict:"
    awk -F'\t' '
        { for (i = 1; i <= 4; i++) { c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } }
        END {
            h[1] = "figure"; h[2] = "goal"; h[3] = "measured"
            for (i = 1; i <= 3; i++) if (length(h[i]) > w[i]) w[i] = length(h[i])
            printf "  %-*s | %-*s | %-*s |\n", w[1], h[1], w[2], h[2], w[3], h[3]
            printf "  %s-+-%s-+-%s-+-%s\n", dashes(w[1]), dashes(w[2]), dashes(w[3]), "-------"
            for (r = 1; r <= NR; r++)
                printf "  %-*s | %-*s | %-*s | %s\n", w[1], c[r, 1], w[2], c[r, 2], w[3], c[r, 3], c[r, 4]
        }
        function dashes(n,   s) { s = ""; while (n-- > 0) s = s "-"; return s }' "$tmp/i26.out"
}
