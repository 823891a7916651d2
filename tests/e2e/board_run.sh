#!/usr/bin/env bash
# --run: a program sent through MicroPython's raw REPL, then profiled until it ends. The board is
# the simulator's emulation of one (aioprof-sim --repl: a REPL on its pty, main.py running at
# power-on, raw paste with its flow control; --repl-no-paste: a board older than raw paste). The
# program names the workload it "runs"; its figures are compared with the simulator's truth of it.
set -euo pipefail
source "$(dirname "$0")/io_common.bash"
here=$(cd "$(dirname "$0")" && pwd)

board() { # board NAME SIM-ARGS...: a board on a pty; sets PORT
    local name=$1
    shift
    "$SIM" --pty --pty-link "$WORK/$name.link" --repl --truth "$WORK/$name.truth.json" -q "$@" 2> "$WORK/$name.sim.err" &
    IO_PIDS+=($!)
    wait_for_text "$WORK/$name.link" '^/dev/' 10 || fail "$name: no pty: $(cat "$WORK/$name.sim.err")"
    PORT=$(cat "$WORK/$name.link")
}

# compare NAME: the report against the truth of the program (exact, or lower bounds if the pty
# was slow enough for the ring to drop events). The session's bytes are the program's and the raw
# REPL's end markers after it, "\x04\x04>" (a program that ended well), which also end one more
# line of text (the prompt, not shown): the truth is the program's alone.
compare() {
    local mode=exact
    [ "$(json "$WORK/$1.json" 'j["stream"]["dropped_events"]')" = 0 ] || mode=lower
    python3 - "$WORK/$1.truth.json" "$WORK/$1.session-truth.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["bytes"] += 3
t["text_bytes"] += 3
t["text_lines"] += 1
json.dump(t, open(sys.argv[2], "w"))
PY
    (cd "$here" && python3 truth_compare.py "$WORK/$1.json" "$WORK/$1.session-truth.json" "$mode") \
        || fail "$1: the report differs from the program's truth ($mode)"
    [ "$(json "$WORK/$1.json" 'j["stream"]["resets"]')" = 0 ] || fail "$1: main.py's frames were profiled too"
}

# a board that never answers as MicroPython: said within the handshake's 10 s, exit 1 (in the
# background while the rest goes on)
"$SIM" --pty --pty-link "$WORK/mute.link" --clock real -q -w seed 2> /dev/null &
IO_PIDS+=($!)
wait_for_text "$WORK/mute.link" '^/dev/' 10 || fail "no pty for the mute board"
printf 'print(1)\n' > "$WORK/one.py"
"$TOP" --run "$WORK/one.py" "$(cat "$WORK/mute.link")" --report > /dev/null 2> "$WORK/mute.err" &
mute_pid=$!

# ---- raw paste: the program's workload, text and end; nothing of main.py
cat > "$WORK/app.py" <<'PY'
# aioprof-sim: -w instances --duration 2 --text 15
import asyncio
import aioprof

aioprof.enable()
PY
board paste -w seed
"$TOP" --run "$WORK/app.py" "$PORT" --json --log "$WORK/paste.log" > "$WORK/paste.json" 2> "$WORK/paste.err" \
    || fail "--run exited $?: $(cat "$WORK/paste.err")"
grep -q "app.py runs on $PORT (sent by raw paste)" "$WORK/paste.err" || fail "no word of the program: $(cat "$WORK/paste.err")"
grep -q "app.py ended\.$" "$WORK/paste.err" || fail "no word of its end: $(cat "$WORK/paste.err")"
compare paste
[ "$(json "$WORK/paste.json" 'j["device"]["platform"]')" = "aioprof-sim instances" ] || fail "not the program's workload"
[ "$(wc -l < "$WORK/paste.log")" = "$(json "$WORK/paste.truth.json" 'j["text_lines"]')" ] \
    || fail "the log does not hold the program's text lines, and only them: $(tail -3 "$WORK/paste.log")"
grep -qE '\\x04|^\[[^]]*\] >$' "$WORK/paste.log" && fail "the raw REPL's markers reached the text: $(grep -E '\\x04|>$' "$WORK/paste.log")"

# ---- a board without raw paste: the program paced through the raw REPL, a longer one
{ cat "$WORK/app.py"; for i in $(seq 200); do echo "# a long program, line $i, to be sent in many pieces"; done; } > "$WORK/long.py"
board old -w busy --repl-no-paste
"$TOP" --run "$WORK/long.py" "$PORT" --json > "$WORK/old.json" 2> "$WORK/old.err" || fail "--run (no raw paste) exited $?: $(cat "$WORK/old.err")"
grep -q "long.py runs on $PORT (sent by the raw REPL)" "$WORK/old.err" || fail "not sent by the raw REPL: $(cat "$WORK/old.err")"
compare old

# ---- flow control: a program of many windows goes through; sent without it, the emulated
# board's stdin buffer overflows as a real one does (so the check above means something)
board flow -w seed
"$TOP" --run "$WORK/long.py" "$PORT" --json > "$WORK/flow.json" 2> "$WORK/flow.err" || fail "--run (long) exited $?: $(cat "$WORK/flow.err")"
grep -q "SyntaxError" "$WORK/flow.err" && fail "the long program overflowed the board's buffer: $(grep SyntaxError "$WORK/flow.err")"
compare flow
python3 - "$PORT" "$WORK/long.py" > "$WORK/flood.out" <<'PY' || fail "the flood check did not run"
import os, select, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)
def until(want, limit=10):
    got, end = b"", time.monotonic() + limit
    while not got.endswith(want) and time.monotonic() < end:
        if select.select([fd], [], [], 0.1)[0]:
            got += os.read(fd, 4096)
    return got
os.write(fd, b"\r\x03\x03\r\x01")
until(b"raw REPL; CTRL-B to exit\r\n>")
os.write(fd, b"\x05A\x01")
until(b"\x01", 5)
data = open(sys.argv[2], "rb").read() + b"\x04"  # all of it: no flow control
while data:
    data = data[os.write(fd, data):]
sys.stdout.write(until(b"\x04>").decode(errors="replace"))
os.write(fd, b"\r\x02")
PY
grep -q "SyntaxError: invalid syntax (the stdin buffer overflowed" "$WORK/flood.out" \
    || fail "a host without flow control was not caught: $(cat "$WORK/flood.out")"

# ---- what is refused before the port is touched
printf 'print(1)\x04\n' > "$WORK/ctl.py"
rc=0
"$TOP" --run "$WORK/ctl.py" "$PORT" --report > /dev/null 2> "$WORK/ctl.err" || rc=$?
[ "$rc" = 1 ] || fail "a program with a control byte: exit $rc"
grep -q "ctl.py holds the control byte 0x04 (at byte 8)" "$WORK/ctl.err" || fail "control byte: $(cat "$WORK/ctl.err")"
rc=0
"$TOP" --run "$WORK/nope.py" "$PORT" --report > /dev/null 2> "$WORK/nope.err" || rc=$?
[ "$rc" = 1 ] && grep -q "cannot read the program $WORK/nope.py" "$WORK/nope.err" || fail "a missing program: $rc $(cat "$WORK/nope.err")"
rc=0
"$TOP" --run "$WORK/app.py" --replay "$WORK/paste.json" > /dev/null 2> "$WORK/usage.err" || rc=$?
[ "$rc" = 2 ] || fail "--run with --replay: exit $rc"

rc=0
wait "$mute_pid" || rc=$?
[ "$rc" = 1 ] || fail "the mute board: exit $rc: $(cat "$WORK/mute.err")"
grep -q "no answer from MicroPython's raw REPL" "$WORK/mute.err" || fail "the mute board: $(cat "$WORK/mute.err")"
echo "board_run: all checks passed"
