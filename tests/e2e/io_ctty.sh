#!/usr/bin/env bash
# A terminal that is some session's controlling terminal (a user's shell) is never read: refused
# at the start with one sentence, and not reattached to when, after the board went away, a new
# shell's terminal takes its path (the ttyFAKE link stands for a /dev/pts/N number reused by a
# new terminal window), nor read once it became one while open (a window's shell that took its
# pty after aioprof-top opened it), even when typed into at that moment. The shell keeps its
# keystrokes; none reach aioprof-top or its recording.
set -euo pipefail
source "$(dirname "$0")/io_common.bash"

# shell_start NAME [late]: a pty whose slave is the controlling terminal of a new session, as a
# terminal window's shell has it. The "shell" appends what it reads to $WORK/NAME.typed; the
# pty's path is written to $WORK/NAME.path once the shell has the terminal; writing a line to
# $WORK/NAME.keys types it into the terminal (from the moment the shell has it, so keys written
# before are typed at once). late: the path is written first, and the shell takes the terminal
# only once $WORK/NAME.go exists. While $WORK/NAME.hold exists the shell reads nothing yet (it is
# still starting up: reading its rc files while its user already types).
shell_start() {
    local name=$1
    python3 - "$WORK/$name" "${2:-}" <<'PY' &
import fcntl, os, sys, termios, time
base, late = sys.argv[1], sys.argv[2] == "late"
master, slave = os.openpty()
def publish():
    open(base + ".path.tmp", "w").write(os.ttyname(slave))
    os.rename(base + ".path.tmp", base + ".path")
if late:
    publish()
while late and not os.path.exists(base + ".go"):
    time.sleep(0.05)
ready_r, ready_w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(master)
    os.close(ready_r)
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    for fd in (0, 1, 2):
        os.dup2(slave, fd)
    # line by line, as a shell reads (its own settings: whoever had the pty before may have left
    # it raw)
    mode = termios.tcgetattr(0)
    mode[3] |= termios.ICANON
    mode[6][termios.VMIN], mode[6][termios.VTIME] = 1, 0
    termios.tcsetattr(0, termios.TCSANOW, mode)
    os.write(ready_w, b"x")
    os.close(ready_w)
    while os.path.exists(base + ".hold"):
        time.sleep(0.05)
    with open(base + ".typed", "ab", buffering=0) as out:
        while True:
            try:
                line = os.read(0, 1024)
            except OSError:
                break  # the terminal window closed
            out.write(line)
    os._exit(0)
os.close(ready_w)
os.read(ready_r, 1)  # the shell has the terminal
if not late:
    publish()
os.close(slave)
# types what appears in NAME.keys, like a user at the keyboard; ends with the test
typed = 0
while True:
    try:
        keys = open(base + ".keys", "rb").read()
    except FileNotFoundError:
        keys = b""
    if len(keys) > typed:
        os.write(master, keys[typed:])
        typed = len(keys)
    time.sleep(0.05)
PY
    IO_PIDS+=($!)
    local i
    for ((i = 0; i < 1200; i++)); do
        [ -s "$WORK/$name.path" ] && return 0
        sleep 0.1
    done
    fail "the shell's pty did not start"
}

# 1. at the start: refused, exit 1, one sentence naming the path and the session
shell_start first
ln -s "$(cat "$WORK/first.path")" "$WORK/ttyS"
rc=0
timeout 180 "$TOP" "$WORK/ttyS" --report --duration 5 > "$WORK/first.out" 2> "$WORK/first.err" < /dev/null || rc=$?
[ "$rc" = 1 ] || fail "a session's terminal was opened (exit $rc): $(cat "$WORK/first.err")"
grep -q "$WORK/ttyS is the controlling terminal of a session (python3, session [0-9]*): reading it would take" \
    "$WORK/first.err" || fail "the refusal said: $(cat "$WORK/first.err")"
[ "$(grep -c . "$WORK/first.err")" = 1 ] || fail "more than one sentence: $(cat "$WORK/first.err")"

# 2. on reconnect: the board (a pty fed with a capture) goes away, a shell's terminal takes its
#    path; aioprof-top says once why it does not use it, and keeps waiting
"$SIM" -w busy --events 3000 -q -o "$WORK/raw.bin"
pty_start "$WORK/ttyDEV" "$WORK/raw.bin"
ln -s "$(readlink "$WORK/ttyDEV")" "$WORK/ttyFAKE"
"$TOP" -v "$WORK/ttyFAKE" --report -w "$WORK/session.aiop" > "$WORK/session.out" 2> "$WORK/session.err" \
    < /dev/null &
top=$!
IO_PIDS+=("$top")
wait_for_text "$WORK/session.err" "opened $WORK/ttyFAKE" 180 || fail "aioprof-top did not open the board"
# the path goes before the pty closes: a link left to a closed pty may meet any program's new pty
# that gets its number (another test's), before the shell's takes the path
rm "$WORK/ttyFAKE"
wait_for_text "$WORK/session.err" "ttyFAKE went away" 180 || fail "the unplug was not seen: $(cat "$WORK/session.err")"
pty_stop "$WORK/ttyDEV"
shell_start second
ln -sfn "$(cat "$WORK/second.path")" "$WORK/ttyFAKE"
wait_for_text "$WORK/session.err" "ttyFAKE is back, but as the controlling terminal of a session" 180 \
    || fail "the shell's terminal was not refused: $(grep -v '^device:' "$WORK/session.err")"
# the user types a password; the shell, not aioprof-top, gets it
echo "hunter2-typed-password" > "$WORK/second.keys"
wait_for_text "$WORK/second.typed" "hunter2-typed-password" 180 || fail "the shell did not get its keystrokes"
rc=0
top_stop "$top" || rc=$?
[ "$rc" = 0 ] || fail "aioprof-top exited $rc: $(grep -v '^device:' "$WORK/session.err")"
grep -q "ttyFAKE is back\.$" "$WORK/session.err" && fail "it reattached to the shell's terminal"
grep -aq "hunter2" "$WORK/session.err" "$WORK/session.out" "$WORK/session.aiop" && fail "the keystrokes reached aioprof-top"
[ "$(grep -c "is back, but as the controlling terminal" "$WORK/session.err")" = 1 ] || fail "the refusal was not said once: $(grep -v "^device:" "$WORK/session.err")"

# 3. a terminal that becomes a session's while aioprof-top has it open (a terminal window that
#    took the pty between the check and the open): let go of at once, said; nothing typed is read
shell_start third late
ln -s "$(cat "$WORK/third.path")" "$WORK/ttyLATE"
"$TOP" -v "$WORK/ttyLATE" --report > "$WORK/late.out" 2> "$WORK/late.err" < /dev/null &
top=$!
IO_PIDS+=("$top")
wait_for_text "$WORK/late.err" "opened $WORK/ttyLATE" 180 || fail "aioprof-top did not open the pty"
touch "$WORK/third.go"
wait_for_text "$WORK/late.err" "ttyLATE became the controlling terminal of a session \(python3, session [0-9]*\): let go" 180 \
    || fail "the new session's terminal was kept: $(cat "$WORK/late.err")"
echo "hunter3-typed-password" > "$WORK/third.keys"
wait_for_text "$WORK/third.typed" "hunter3-typed-password" 180 || fail "the late shell did not get its keystrokes"
top_stop "$top" || fail "aioprof-top failed: $(cat "$WORK/late.err")"
grep -aq "hunter3" "$WORK/late.err" "$WORK/late.out" && fail "the late shell's keystrokes reached aioprof-top"

# 4. the same, but typed the moment the shell has the terminal (before aioprof-top's next look at
#    a quiet port), while the shell is still starting and aioprof-top is the terminal's only
#    reader: the look before each read lets go, and the keystrokes wait for the shell
touch "$WORK/fourth.hold"
shell_start fourth late
ln -s "$(cat "$WORK/fourth.path")" "$WORK/ttyTYPED"
"$TOP" -v "$WORK/ttyTYPED" --report -w "$WORK/typed.aiop" > "$WORK/typed.out" \
    2> "$WORK/typed.err" < /dev/null &
top=$!
IO_PIDS+=("$top")
wait_for_text "$WORK/typed.err" "opened $WORK/ttyTYPED" 180 || fail "aioprof-top did not open the pty"
echo "hunter4-typed-password" > "$WORK/fourth.keys"
touch "$WORK/fourth.go"
wait_for_text "$WORK/typed.err" "ttyTYPED became the controlling terminal of a session \(python3, session [0-9]*\): let go" \
    || fail "the new session's terminal was kept: $(cat "$WORK/typed.err")"
rm "$WORK/fourth.hold"
top_stop "$top" || fail "aioprof-top failed: $(cat "$WORK/typed.err")"
grep -aq "hunter4" "$WORK/typed.err" "$WORK/typed.out" "$WORK/typed.aiop" \
    && fail "keystrokes typed at once reached aioprof-top"
wait_for_text "$WORK/fourth.typed" "hunter4-typed-password" || fail "the shell did not get the keystrokes typed at once"
echo "io_ctty: all checks passed"
