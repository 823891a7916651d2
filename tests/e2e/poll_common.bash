# Waiting for a condition with a deadline, never for a fixed time, QEMU's pty, and what a test
# stops at its end: sourced by io_common.bash, qemu_common.bash and the tests that start QEMU
# themselves (mpy_qemu.sh, mpy_prebuilt_qemu.bash, mpy_prebuilt_mip.sh). It only defines
# functions (no trap, no folder until one is asked for), so any test can source it.
#   IO_DEADLINE   seconds a condition may take before the test fails (default 60: far beyond what
#                 a loaded machine needs)

# wait_until CHECK...: runs the command CHECK every 0.1 s until it succeeds; 1 after IO_DEADLINE s.
wait_until() {
    local end=$((SECONDS + ${IO_DEADLINE:-60}))
    until "$@"; do
        [ $SECONDS -lt $end ] || return 1
        sleep 0.1
    done
}

# gone PID: the process PID has ended (a zombie not yet waited for counts as ended).
gone() {
    local stat
    stat=$(ps -o stat= -p "$1" 2>/dev/null | cut -c1)
    [ -z "$stat" ] || [ "$stat" = Z ]
}

# wait_for_text FILE PATTERN: waits until FILE contains PATTERN (grep -E).
wait_for_text() {
    wait_until grep -qE "$2" "$1" 2>/dev/null
}

# qemu_named_pty OUT PID: QEMU's output OUT names the pty it made, or QEMU (PID) is gone.
qemu_named_pty() {
    grep -qE 'char device redirected to /dev/pts/[0-9]+' "$1" 2>/dev/null || ! kill -0 "$2" 2>/dev/null
}

# qemu_pty_start OUT COMMAND...: starts COMMAND, a QEMU with "-serial pty" (or a program that runs
# one), in the background with its output in OUT, and waits until QEMU names its pty. Sets
# qemu_pid and pty. Returns 1, QEMU's output on stderr, when QEMU exits or names none in time
# (and then stops it: the caller's cleanup need not know of it).
qemu_pty_start() {
    local out=$1
    shift
    "$@" > "$out" 2>&1 &
    qemu_pid=$!
    pty=
    wait_until qemu_named_pty "$out" "$qemu_pid" || true
    pty=$(sed -n 's/.*char device redirected to \(\/dev\/pts\/[0-9]*\).*/\1/p' "$out")
    [ -n "$pty" ] && return 0
    cat "$out" >&2
    kill "$qemu_pid" 2>/dev/null || true
    wait "$qemu_pid" 2>/dev/null || true
    return 1
}

# stop_all DIR PID...: a test's cleanup: stops the processes PID... and removes DIR.
stop_all() {
    local dir=$1 p
    shift
    for p in "$@"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$dir"
}

# qemu_out_dir NAME: out, the folder AIOPROF_BUILD/NAME (/tmp/NAME without it), emptied, that a
# test keeps its files in, and a trap that stops the QEMU qemu_pty_start started last.
qemu_out_dir() {
    out="${AIOPROF_BUILD:-/tmp}/$1"
    rm -rf "$out"
    mkdir -p "$out"
    qemu_pid=
    trap '[ -n "$qemu_pid" ] && kill "$qemu_pid" 2>/dev/null; wait 2>/dev/null' EXIT
}
