# Shared by tests/e2e/io_*.sh (sourced; not a test itself: ctest runs *.sh only).
# Environment: AIOPROF_TOP, AIOPROF_SIM (set by ctest), AIOPROF_BUILD, AIOPROF_SRC.

: "${AIOPROF_TOP:?set AIOPROF_TOP to the aioprof-top binary}"
: "${AIOPROF_SIM:?set AIOPROF_SIM to the aioprof-sim binary}"
export AIOPROF_SIM
TOP=$AIOPROF_TOP
SIM=$AIOPROF_SIM

IO_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORK=$(mktemp -d /tmp/aioprof-io.XXXXXX)
IO_PIDS=()
IO_DEADLINE=${IO_DEADLINE:-60} # seconds a condition may take before the test fails
declare -A PTY_PID=()

# wait_until CHECK...; wait_for_text FILE PATTERN; qemu_pty_start OUT COMMAND...; stop_all
source "$IO_HERE/poll_common.bash"
io_cleanup() {
    stop_all "$WORK" "${IO_PIDS[@]}"
}
trap io_cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# json FILE PYTHON-EXPRESSION: prints the expression evaluated with j = the parsed document.
json() {
    python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# pty_start LINK FILE: a pty at LINK (a symlink, made by tests/e2e/pty_feed.py) that gives FILE's
# bytes and then stays open, like a board that went quiet.
pty_start() {
    python3 "$IO_HERE/pty_feed.py" "$1" "$2" 2>>"$WORK/pty_feed.log" &
    PTY_PID[$1]=$!
    IO_PIDS+=("$!")
    wait_until test -L "$1" || fail "no pty at $1: $(cat "$WORK/pty_feed.log")"
}

# pty_drained LINK: waits until readers have taken every byte the pty at LINK was given.
pty_drained() {
    wait_until test -e "$1.drained" || fail "nobody read all of the pty at $1 within $IO_DEADLINE s"
}

# pty_stop LINK: unplugs the pty at LINK: its link disappears, then the pty closes.
pty_stop() {
    kill -TERM "${PTY_PID[$1]}" 2>/dev/null || true
    wait "${PTY_PID[$1]}" 2>/dev/null || true
    [ ! -e "$1" ] || fail "$1 did not go away"
}

# top_stop PID: Ctrl-C for the aioprof-top at PID (its own pid, not a wrapper's such as timeout's,
# which may end without passing the signal on); returns its exit code, or fails the test when it
# is still running IO_DEADLINE s later.
top_stop() {
    local rc=0
    kill -INT "$1"
    wait_until gone "$1" || fail "Ctrl-C did not end aioprof-top (pid $1)"
    wait "$1" || rc=$?
    return $rc
}

# replay_has FILE PYTHON-EXPRESSION: a copy of the recording FILE, still being written, replays to
# a report for which the expression (j = the JSON report) is true.
replay_has() {
    cp "$1" "$WORK/snapshot.aiop" 2>/dev/null || return 1
    "$TOP" --replay "$WORK/snapshot.aiop" --json > "$WORK/snapshot.json" 2>/dev/null || return 1
    [ "$(json "$WORK/snapshot.json" "bool($2)")" = True ]
}

# chunks FILE: the chunks of a recording, "type time_us length" a line, read by an independent
# reader of docs/recording.md (so the format there is checked too). Stops at the first incomplete
# chunk.
chunks() {
    python3 - "$1" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89AIOPREC", "bad magic"
version, mlen = struct.unpack_from("<HI", data, 8)
assert version == 1, "version %d" % version
pos = 14 + mlen
def varint(pos):
    v = shift = 0
    while True:
        if pos >= len(data):
            raise EOFError
        b = data[pos]; pos += 1
        v |= (b & 0x7F) << shift; shift += 7
        if not b & 0x80:
            return v, pos
try:
    while pos < len(data):
        t = data[pos]
        us, p = varint(pos + 1)
        n, p = varint(p)
        if p + n > len(data):
            break
        print(t, us, n)
        pos = p + n
except EOFError:
    pass
PY
}
