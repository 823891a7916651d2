# Shared by tests/e2e/tui_*.sh and trace_tui.sh (sourced; not a test itself: ctest runs *.sh only).
# The live table runs in a real terminal that tmux provides, so these tests need no terminal of
# their own and run in CI. Environment: AIOPROF_TOP, AIOPROF_SIM (set by ctest).
#
# Every check waits for the screen to show what it expects (up to TUI_DEADLINE seconds) instead of
# sleeping a fixed time after a key: on a loaded machine a redraw can take longer than any guess.

: "${AIOPROF_TOP:?set AIOPROF_TOP to the aioprof-top binary}"
: "${AIOPROF_SIM:?set AIOPROF_SIM to the aioprof-sim binary}"
export AIOPROF_SIM
command -v tmux >/dev/null || { echo "SKIP: tmux is not installed (apt-get install tmux)" >&2; exit 77; }

TUI_WORK=$(mktemp -d /tmp/aioprof-tui.XXXXXX)
TUI_SHOT=$TUI_WORK/screen.txt
TUI_DEADLINE=${TUI_DEADLINE:-30}
TUI_N=0
TUI_SOCK=   # the socket of the terminal now running: a new one for every tui_start
TUI_SERVER= # that tmux server's pid

# tui_tmux ARGS...: tmux on the current terminal's server.
tui_tmux() {
    tmux -S "$TUI_SOCK" "$@"
}

# tui_gone PID: the process has exited (a zombie counts as exited: its reaper is not us).
tui_gone() {
    local state
    state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1) || return 0
    [ -z "$state" ] || [ "$state" = Z ]
}

# tui_stop: ends the current terminal and waits until its tmux server has exited. kill-server only
# asks; a new server started at once would race the old one's exit ("server exited unexpectedly").
# The pane's processes (its session: the pane's shell, the program, the sleep after it) must go
# too: the hang-up ends them, and one that is still there TUI_DEADLINE seconds later is killed and
# said (once, under the sanitizers, an aioprof-top stayed spinning with LeakSanitizer's tracer
# attached to it at its exit, after the test had passed, and took a core for minutes).
tui_stop() {
    [ -n "$TUI_SOCK" ] || return 0
    local sid left end
    sid=$(tui_tmux display-message -p '#{pane_pid}' 2>/dev/null) || sid=
    tui_tmux kill-server 2>/dev/null || true
    end=$((SECONDS + TUI_DEADLINE))
    if [ -n "$TUI_SERVER" ]; then
        until tui_gone "$TUI_SERVER"; do
            [ $SECONDS -lt $end ] || { echo "FAIL: the tmux server $TUI_SERVER did not exit" >&2; exit 1; }
            sleep 0.05
        done
    fi
    while [ -n "$sid" ]; do
        left=$(ps -o pid=,stat= -s "$sid" 2>/dev/null | awk '$2 !~ /^Z/ { print $1 }') || left=
        [ -n "$left" ] || break
        if [ $SECONDS -ge $end ]; then
            echo "WARNING: still running ${TUI_DEADLINE} s after its terminal closed, killed: $(ps -o pid=,args= -p "$(echo $left | tr ' ' ,)")" >&2
            kill -KILL $left 2>/dev/null || true
            break
        fi
        sleep 0.05
    done
    TUI_SOCK=
    TUI_SERVER=
}

tui_cleanup() {
    tui_stop
    rm -rf "$TUI_WORK"
}
trap tui_cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    if [ -f "$TUI_SHOT" ]; then
        echo "---- the screen:" >&2
        cat "$TUI_SHOT" >&2
    fi
    tui_holders >&2
    exit 1
}

# tui_holders: the processes that have the terminal's tty open, for a failure's report: keys sent
# that never arrive would point at a program reading another's terminal.
tui_holders() {
    local tty fd
    [ -n "$TUI_SOCK" ] || return 0
    tty=$(tui_tmux display-message -p '#{pane_tty}' 2>/dev/null) || return 0
    [ -n "$tty" ] || return 0
    echo "---- processes with $tty open:"
    for fd in /proc/[0-9]*/fd/*; do
        [ "$(readlink "$fd" 2>/dev/null)" = "$tty" ] && echo "${fd%/fd/*}" | cut -d/ -f3
    done | sort -un | while read -r pid; do
        echo "$pid $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-150)"
    done
}

# tui_start COLS ROWS LOCALE ARGS...: runs aioprof-top ARGS in a COLSxROWS terminal, after ending
# the previous one. When the program ends the pane prints its exit code and stays, so a test can
# look at what is left. Each terminal has its own socket in TUI_WORK: no two servers ever share one.
tui_start() {
    local cols=$1 rows=$2 loc=$3
    shift 3
    tui_stop
    TUI_N=$((TUI_N + 1))
    TUI_SOCK=$TUI_WORK/tmux$TUI_N
    local cmd
    cmd=$(printf '%q ' "$AIOPROF_TOP" "$@")
    tui_tmux -f /dev/null new-session -d -x "$cols" -y "$rows" \
        "env LANG=$loc LC_ALL=$loc TERM=screen NO_COLOR= $cmd 2>$TUI_WORK/stderr.txt; echo EXIT=\$?; sleep 600"
    TUI_SERVER=$(tui_tmux display-message -p '#{pid}')
}

# tui_capture: the visible screen into $TUI_SHOT.
tui_capture() {
    tui_tmux capture-pane -p >"$TUI_SHOT"
}

# tui_until WHAT CHECK...: captures the screen until the command CHECK (which looks at $TUI_SHOT)
# succeeds; fails the test with WHAT when TUI_DEADLINE seconds pass first.
tui_until() {
    local what=$1 end=$((SECONDS + TUI_DEADLINE))
    shift
    while :; do
        tui_capture
        "$@" && return 0
        [ $SECONDS -lt $end ] || fail "$what"
        sleep 0.1
    done
}

# tui_wait PATTERN: until the screen matches PATTERN (grep -E); returns 1 after TUI_DEADLINE
# seconds (for a test that says why itself).
tui_wait() {
    local end=$((SECONDS + TUI_DEADLINE))
    while :; do
        tui_capture
        grep -qE -- "$1" "$TUI_SHOT" && return 0
        [ $SECONDS -lt $end ] || return 1
        sleep 0.1
    done
}

# tui_settle: until two captures a moment apart are the same: a screen that stopped changing
# (frozen, paused, at the end of a replay) is then read whole, never half redrawn.
tui_settle() {
    local end=$((SECONDS + TUI_DEADLINE))
    tui_capture
    while :; do
        cp "$TUI_SHOT" "$TUI_SHOT.before"
        sleep 0.2
        tui_capture
        cmp -s "$TUI_SHOT" "$TUI_SHOT.before" && return 0
        [ $SECONDS -lt $end ] || fail "the screen never stopped changing"
    done
}

# tui_key KEY...: sends keys (tmux names: Enter, Escape, Up...). It does not wait: the check that
# follows waits for the screen the keys lead to.
tui_key() {
    tui_tmux send-keys "$@"
}

# The checks on the screen, each waiting for it (see tui_until).
tui_shows() { grep -qE -- "$1" "$TUI_SHOT"; }
tui_shows_not() { ! grep -qE -- "$1" "$TUI_SHOT"; }
tui_has() {
    tui_until "the screen does not show /$1/" tui_shows "$1"
}
tui_lacks() {
    tui_until "the screen shows /$1/" tui_shows_not "$1"
}

# tui_row NAME: the line number of the table row whose first word is NAME (0 when none).
tui_row() {
    local n
    n=$(grep -nE "^$1( |$)" "$TUI_SHOT" | head -1 | cut -d: -f1)
    echo "${n:-0}"
}

# tui_field NAME N: the Nth whitespace-separated field of the row NAME.
tui_field() {
    grep -E "^$1( |$)" "$TUI_SHOT" | head -1 | awk -v n="$2" '{print $n}'
}

# tui_is_above A B: on the last capture, row A is shown above row B.
tui_is_above() {
    local a b
    a=$(tui_row "$1")
    b=$(tui_row "$2")
    [ "$a" -gt 0 ] && [ "$b" -gt 0 ] && [ "$a" -lt "$b" ]
}

# tui_above A B: waits until row A is shown above row B.
tui_above() {
    tui_until "row $1 is not above row $2" tui_is_above "$1" "$2"
}

# tui_field_is NAME N VALUE: the Nth field of row NAME is VALUE (on the last capture).
tui_field_is() {
    [ "$(tui_field "$1" "$2")" = "$3" ]
}

# tui_number_above NAME N MIN: the Nth field of row NAME is a whole number above MIN.
tui_number_above() {
    local v
    v=$(tui_field "$1" "$2")
    [[ $v =~ ^[0-9]+$ ]] && [ "$v" -gt "$3" ]
}

# json FILE EXPR: EXPR evaluated by python with j = the parsed JSON document.
json() {
    python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
