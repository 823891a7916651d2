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

# every wait below is for a condition, with a deadline far beyond what a loaded machine needs
# shellcheck disable=SC2046
qemu_pty_start "$QEMU_TMP/qemu.out" timeout 150 $(qemu_cmd) -serial pty -kernel "$QEMU_FW/demo.elf" ||
    qemu_fail "QEMU did not say which pty it made"
qemu=$qemu_pid
QEMU_PIDS+=("$qemu")
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
# top_opened: aioprof-top has the pty open.
top_opened() {
    local fd
    for fd in /proc/"$top"/fd/*; do
        [ "$(readlink "$fd" 2>/dev/null)" = "$pty" ] && return 0
    done
    return 1
}
wait_until top_opened || { cat "$QEMU_TMP/live.err"; qemu_fail "aioprof-top did not open $pty"; }

echo g >&"${HOLDER[1]}"
# top_done: aioprof-top showed the firmware's last line, or ended.
top_done() {
    grep -q '^device: demo: done' "$QEMU_TMP/live.err" || ! kill -0 "$top" 2>/dev/null
}
IO_DEADLINE=120 wait_until top_done || true
grep -q '^device: demo: done' "$QEMU_TMP/live.err" ||
    { cat "$QEMU_TMP/live.err" "$QEMU_TMP/qemu.out"; qemu_fail "aioprof-top never showed the firmware's last line"; }
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
