# Shared by tests/e2e/io_*.sh (sourced; not a test itself: ctest runs *.sh only).
# Environment: AIOPROF_TOP, AIOPROF_SIM (set by ctest), AIOPROF_BUILD, AIOPROF_SRC.

: "${AIOPROF_TOP:?set AIOPROF_TOP to the aioprof-top binary}"
: "${AIOPROF_SIM:?set AIOPROF_SIM to the aioprof-sim binary}"
export AIOPROF_SIM
TOP=$AIOPROF_TOP
SIM=$AIOPROF_SIM

WORK=$(mktemp -d /tmp/aioprof-io.XXXXXX)
IO_PIDS=()
IO_GROUPS=()

io_cleanup() {
    local p
    for p in "${IO_GROUPS[@]}"; do kill -- "-$p" 2>/dev/null || true; done
    for p in "${IO_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
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

# wait_for_text FILE PATTERN SECONDS: waits until FILE contains PATTERN (grep -E).
wait_for_text() {
    local i
    for ((i = 0; i < $3 * 10; i++)); do
        grep -qE "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

# pty_start LINK FILE: a pty at LINK (a symlink made by socat) that gives FILE's bytes and then
# stays open, like a board that went quiet. Sets PTY_GROUP to the process group to kill.
pty_start() {
    local link=$1 file=$2 feeder
    feeder=$(mktemp "$WORK/feeder.XXXXXX")
    printf '#!/bin/sh\ncat "%s"\nexec sleep 600\n' "$file" > "$feeder"
    chmod +x "$feeder"
    setsid socat PTY,link="$link",raw,echo=0 EXEC:"$feeder" 2>>"$WORK/socat.log" &
    PTY_GROUP=$!
    IO_GROUPS+=("$PTY_GROUP")
    local i
    for ((i = 0; i < 50; i++)); do
        [ -e "$link" ] && return 0
        sleep 0.1
    done
    fail "socat did not make $link"
}

# pty_stop: unplugs the last pty_start (its link disappears).
pty_stop() {
    kill -- "-$PTY_GROUP" 2>/dev/null || true
    local i
    for ((i = 0; i < 50; i++)); do
        [ -e "$1" ] || return 0
        sleep 0.1
    done
    fail "$1 did not go away"
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
