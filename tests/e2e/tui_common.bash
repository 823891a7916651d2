# Shared by tests/e2e/tui_*.sh (sourced; not a test itself: ctest runs *.sh only).
# The live table runs in a real terminal that tmux provides, so these tests need no terminal of
# their own and run in CI. Environment: AIOPROF_TOP, AIOPROF_SIM (set by ctest).

: "${AIOPROF_TOP:?set AIOPROF_TOP to the aioprof-top binary}"
: "${AIOPROF_SIM:?set AIOPROF_SIM to the aioprof-sim binary}"
export AIOPROF_SIM
command -v tmux >/dev/null || { echo "SKIP: tmux is not installed (apt-get install tmux)" >&2; exit 77; }

TUI_SOCK=aioproftest$$
TUI_WORK=$(mktemp -d /tmp/aioprof-tui.XXXXXX)
TUI_SHOT=$TUI_WORK/screen.txt

tui_cleanup() {
    tmux -L "$TUI_SOCK" kill-server 2>/dev/null || true
    rm -rf "$TUI_WORK"
}
trap tui_cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    if [ -f "$TUI_SHOT" ]; then
        echo "---- the screen:" >&2
        cat "$TUI_SHOT" >&2
    fi
    exit 1
}

# tui_start COLS ROWS LOCALE ARGS...: runs aioprof-top ARGS in a COLSxROWS terminal. When the
# program ends the pane prints its exit code and stays, so a test can look at what is left.
tui_start() {
    local cols=$1 rows=$2 loc=$3
    shift 3
    local cmd
    cmd=$(printf '%q ' "$AIOPROF_TOP" "$@")
    tmux -f /dev/null -L "$TUI_SOCK" new-session -d -x "$cols" -y "$rows" \
        "env LANG=$loc LC_ALL=$loc TERM=screen NO_COLOR= $cmd 2>$TUI_WORK/stderr.txt; echo EXIT=\$?; sleep 600"
}

# tui_capture: the visible screen into $TUI_SHOT (and stdout with -v).
tui_capture() {
    tmux -L "$TUI_SOCK" capture-pane -p >"$TUI_SHOT"
}

# tui_wait PATTERN SECONDS: until the screen matches PATTERN (grep -E).
tui_wait() {
    local i
    for ((i = 0; i < $2 * 10; i++)); do
        tui_capture
        grep -qE -- "$1" "$TUI_SHOT" && return 0
        sleep 0.1
    done
    return 1
}

# tui_key KEY...: sends keys (tmux names: Enter, Escape, Up...), then lets the view redraw.
tui_key() {
    tmux -L "$TUI_SOCK" send-keys "$@"
    sleep 0.4
    tui_capture
}

# tui_has PATTERN / tui_lacks PATTERN: on the last captured screen.
tui_has() {
    grep -qE -- "$1" "$TUI_SHOT" || fail "the screen does not show /$1/"
}
tui_lacks() {
    if grep -qE -- "$1" "$TUI_SHOT"; then fail "the screen shows /$1/"; fi
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

# tui_above A B: row A is shown above row B.
tui_above() {
    local a b
    a=$(tui_row "$1")
    b=$(tui_row "$2")
    [ "$a" -gt 0 ] && [ "$b" -gt 0 ] && [ "$a" -lt "$b" ] || fail "row $1 ($a) is not above row $2 ($b)"
}

# json FILE EXPR: EXPR evaluated by python with j = the parsed JSON document.
json() {
    python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
