#!/usr/bin/env bash
# Bad input gets one sentence naming the thing and the documented exit code (docs/usage.md):
# 1 for runtime failures, 2 for usage errors.
set -euo pipefail
source "$(dirname "$0")/io_common.bash"

# expect CODE PATTERN -- ARGS...: runs aioprof-top, checks the exit code and that stderr matches.
expect() {
    local code=$1 pattern=$2 rc=0
    shift 3
    "$TOP" "$@" > "$WORK/out" 2> "$WORK/err" < /dev/null || rc=$?
    [ "$rc" = "$code" ] || fail "aioprof-top $* exited $rc, expected $code; stderr: $(cat "$WORK/err")"
    grep -qE -- "$pattern" "$WORK/err" || fail "aioprof-top $* said '$(cat "$WORK/err")', expected /$pattern/"
    [ "$(grep -c . "$WORK/err")" -le 2 ] || fail "aioprof-top $* said too much: $(cat "$WORK/err")"
}

expect 2 "unknown option '--bogus'" -- --bogus
expect 2 "--speed needs 0 \(as fast as possible\) or a number" -- --replay x --speed fast
# Every numeric option: values whose cast would overflow (undefined behaviour), and fractions
# where a whole number is meant, are usage errors, not silently changed values.
expect 2 "--speed needs 0 \(as fast as possible\) or a number from 0.001 to 1000, not '1e-300'" -- --replay x --speed 1e-300
expect 2 "--speed needs" -- --replay x --speed 1e400
expect 2 "--speed needs" -- --replay x --speed nan
expect 2 "--speed needs" -- --replay x --speed 0x10
expect 2 "--speed needs" -- --replay x --speed -1
expect 2 "--baud needs a whole number from 50 to 20000000, not '9600.7'" -- -b 9600.7 /dev/null
expect 2 "--baud needs a whole number" -- -b 1e5 /dev/null
expect 2 "--baud needs a whole number" -- -b 99999999999999999999 /dev/null
expect 2 "--duration needs a number" -- --replay x --duration inf
expect 2 "--duration needs a number" -- --replay x --duration 1e-300
expect 2 "--slow needs a number" -- --replay x --slow 1e400
expect 2 "--speed only applies to --replay" -- --speed 2 /dev/null
expect 2 "one input" -- --demo --replay x
expect 2 "--sort takes" -- --sort fastest --replay x
expect 2 "--slow needs a number from 0.001" -- --replay x --slow 0
expect 2 "one port only" -- /dev/a /dev/b
expect 2 "choose one of --report, --json and --json-lines" -- --report --json --replay x
expect 2 "choose one of --report, --json and --json-lines" -- --json-lines --report --replay x
expect 2 "--interval needs a number from 0.01" -- --json-lines -d 0 --replay x

# (without --no-reconnect a port not there yet is waited for: tests/e2e/board_wait.sh)
expect 1 "no such port: $WORK/ttyNOPE" -- "$WORK/ttyNOPE" --report --no-reconnect
expect 1 "no such file: $WORK/nope.aiop" -- --replay "$WORK/nope.aiop" --report
: > "$WORK/empty"
expect 1 "is empty" -- --replay "$WORK/empty" --report
expect 1 "is a directory" -- --replay "$WORK" --report

# Neither a header nor a frame: text, and seeded random bytes checked to hold no valid frame.
cp /etc/passwd "$WORK/text"
expect 1 "not an aioprof recording or capture" -- --replay "$WORK/text" --json
python3 -c 'import random,sys; r=random.Random(7); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(100000)))' > "$WORK/random.bin"
expect 1 "not an aioprof recording or capture" -- --replay "$WORK/random.bin" --json

# A recording header of a version this program does not read, and one cut inside its header.
python3 - "$WORK" <<'PY'
import struct, sys
meta = b'{"format":"aioprof recording"}'
head = b"\x89AIOPREC" + struct.pack("<HI", 9, len(meta)) + meta
open(sys.argv[1] + "/v9.aiop", "wb").write(head + b"\x01\x00\x01A")
open(sys.argv[1] + "/cut.aiop", "wb").write(b"\x89AIOPREC\x01\x00")
PY
expect 1 "version 9; this aioprof-top reads version 1" -- --replay "$WORK/v9.aiop" --report
expect 1 "cut off inside its header" -- --replay "$WORK/cut.aiop" --report

# -w refuses to overwrite; nothing of the existing file is touched.
"$SIM" -o "$WORK/raw.bin" --duration 2
echo keep > "$WORK/exists.aiop"
pty_start "$WORK/ttyA" "$WORK/raw.bin"
expect 1 "exists; add --force" -- "$WORK/ttyA" -w "$WORK/exists.aiop" --report
[ "$(cat "$WORK/exists.aiop")" = keep ] || fail "-w without --force changed the file"

# A port another program holds (flock, as tio and pyserial do) is busy.
real=$(readlink -f "$WORK/ttyA")
flock --no-fork "$real" sleep 600 &
IO_PIDS+=($!)
# held: another try to take the lock would have to wait (exit 99 with -E 99)
locked() { local rc=0; flock -n -E 99 "$real" true 2>/dev/null || rc=$?; [ "$rc" = 99 ]; }
wait_until locked || fail "flock did not take the lock on $real"
expect 1 "is busy: another program has it open" -- "$WORK/ttyA" --report --duration 1
kill "${IO_PIDS[-1]}"; wait "${IO_PIDS[-1]}" 2>/dev/null || true

# Permission denied names the group that owns the node.
if [ "$(id -u)" = 0 ] && getent group dialout > /dev/null && command -v setpriv > /dev/null; then
    chgrp dialout "$real"
    chmod 0660 "$real"
    rc=0
    setpriv --reuid=nobody --regid=nogroup --clear-groups "$TOP" "$real" --report --duration 1 \
        > /dev/null 2> "$WORK/err" || rc=$?
    [ "$rc" = 1 ] || fail "permission denied exited $rc: $(cat "$WORK/err")"
    grep -q "permission denied opening $real: join the group 'dialout'" "$WORK/err" \
        || fail "permission message: $(cat "$WORK/err")"
else
    echo "skipped the permission check (needs root, a dialout group and setpriv)"
fi
echo "io_errors: all checks passed"
