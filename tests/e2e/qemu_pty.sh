#!/usr/bin/env bash
# The emulated board, live: QEMU's -serial pty is a port like a board's, and aioprof-top attaches
# to its path exactly as to /dev/ttyACM0. QEMU drops what the guest sends before a reader has the
# pty open, and bytes in flight when it exits can be lost, so: aioprof-top opens the pty, then the
# test writes the go byte into it; when aioprof-top has shown the firmware's last line, Ctrl-C ends
# it (the report), and the test writes the acknowledgement that lets the firmware exit.
# The report must equal the firmware's own account, as with the capture (qemu_stream.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/qemu_common.bash"
qemu_need_tools qemu_pty
qemu_build

: >"$QEMU_TMP/qemu.out"
# shellcheck disable=SC2046
timeout 150 $(qemu_cmd) -serial pty -kernel "$QEMU_FW/demo.elf" >"$QEMU_TMP/qemu.out" 2>&1 &
qemu=$!
QEMU_PIDS+=("$qemu")
# every wait below is for a condition, with a deadline far beyond what a loaded machine needs
pty=
end=$((SECONDS + 60))
while [ $SECONDS -lt $end ]; do
    pty=$(sed -n 's/.*char device redirected to \(\/dev\/pts\/[0-9]*\).*/\1/p' "$QEMU_TMP/qemu.out")
    [ -n "$pty" ] && break
    sleep 0.05
done
[ -n "$pty" ] || { cat "$QEMU_TMP/qemu.out"; qemu_fail "QEMU did not say which pty it made"; }
echo "QEMU's UART0 is $pty"

# The host side of the board's UART besides aioprof-top: it holds the pty open (QEMU only reads a
# pty someone has open) and writes the bytes it is given on its stdin; it never reads, so every
# byte the board sends goes to aioprof-top.
coproc HOLDER { python3 -u -c 'import os,sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_NOCTTY)
for line in sys.stdin:
    os.write(fd, line.strip().encode())' "$pty"; }
QEMU_PIDS+=("$HOLDER_PID")

"$QEMU_TOP" "$pty" --json --duration 140 >"$QEMU_TMP/live.json" 2>"$QEMU_TMP/live.err" &
top=$!
QEMU_PIDS+=("$top")
opened=0
end=$((SECONDS + 60))
while [ $SECONDS -lt $end ]; do
    for fd in /proc/"$top"/fd/*; do
        [ "$(readlink "$fd" 2>/dev/null)" = "$pty" ] && opened=1
    done
    [ $opened = 1 ] && break
    sleep 0.05
done
[ $opened = 1 ] || { cat "$QEMU_TMP/live.err"; qemu_fail "aioprof-top did not open $pty"; }

echo g >&"${HOLDER[1]}"
done_seen=0
end=$((SECONDS + 120))
while [ $SECONDS -lt $end ]; do
    grep -q '^device: demo: done' "$QEMU_TMP/live.err" && { done_seen=1; break; }
    kill -0 "$top" 2>/dev/null || break
    sleep 0.1
done
[ $done_seen = 1 ] || { cat "$QEMU_TMP/live.err" "$QEMU_TMP/qemu.out"; qemu_fail "aioprof-top never showed the firmware's last line"; }
# everything the firmware had to say has arrived: Ctrl-C ends aioprof-top with its report
kill -INT "$top" 2>/dev/null || true
top_rc=0
wait "$top" || top_rc=$?
[ $top_rc = 0 ] || { cat "$QEMU_TMP/live.err"; qemu_fail "aioprof-top exited with $top_rc"; }
echo a >&"${HOLDER[1]}"
qemu_rc=0
wait "$qemu" || qemu_rc=$?
[ $qemu_rc = 0 ] || { cat "$QEMU_TMP/qemu.out"; qemu_fail "QEMU exited with $qemu_rc (the firmware's status; 2: no acknowledgement)"; }

grep '^device: ' "$QEMU_TMP/live.err"
python3 "$here/qemu_compare.py" "$QEMU_TMP/live.json" "$QEMU_TMP/live.err" exact
echo "ok live on $pty"
