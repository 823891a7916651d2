#!/usr/bin/env bash
# --list and the choice of a board when no port is named, with libserialport's enumeration stood
# in for by tests/shim/fake_ports.c (no boards here): no port, one board among other ports (it is
# picked, opened and read), a USB-UART bridge alone, and two boards (refused, both named).
set -euo pipefail
source "$(dirname "$0")/io_common.bash"

fake=${AIOPROF_BUILD:-/nonexistent}/tests/shim/libaioprof_fake_ports.so
if [ ! -e "$fake" ]; then
    src=${AIOPROF_SRC:-$(dirname "$0")/../..}/tests/shim/fake_ports.c
    fake=$WORK/fake_ports.so
    cc -shared -fPIC -O1 -o "$fake" "$src" || fail "cannot build the stand-in from $src"
fi
ports() { env AIOPROF_FAKE_PORTS="$1" LD_PRELOAD="$fake" "${@:2}"; }

# ---- no ports at all (without --no-reconnect it waits for a board: tests/e2e/board_wait.sh)
ports "" "$TOP" --list > "$WORK/list0.txt" || fail "--list with no ports exited $?"
grep -q '^no serial ports found$' "$WORK/list0.txt" || fail "--list with no ports: $(cat "$WORK/list0.txt")"
set +e
ports "" "$TOP" --report --duration 1 --no-reconnect > /dev/null 2> "$WORK/none.err"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "no board: exit $rc, want 1"
grep -q 'no MicroPython board found' "$WORK/none.err" || fail "no board: $(cat "$WORK/none.err")"

# ---- a Pico (on a real pty that gives a capture of the simulator) beside a plain UART and an
# unknown USB device
"$SIM" -w seed --duration 10 -q -o "$WORK/seed.bin"
pty_start "$WORK/pico" "$WORK/seed.bin"
pico=$(readlink "$WORK/pico")
list="/dev/ttyS0,0,0,,,;$pico,2e8a,0005,MicroPython,Board in FS mode,e6614c311b7e6f35;/dev/ttyUSB7,0403,6001,FTDI,FT232R,A12"
ports "$list" "$TOP" --list > "$WORK/list1.txt" || fail "--list exited $?"
grep -qE "^$pico  usb 2e8a:0005  manufacturer: MicroPython  product: Board in FS mode  serial: e6614c311b7e6f35  \[MicroPython board\]$" \
    "$WORK/list1.txt" || fail "--list does not show the Pico as a board: $(cat "$WORK/list1.txt")"
grep -qE '^/dev/ttyS0  16550A UART \(fake\)$' "$WORK/list1.txt" || fail "--list lost the plain UART"
grep -qE '^/dev/ttyUSB7  usb 0403:6001 .*serial: A12$' "$WORK/list1.txt" || fail "--list marks the FTDI device as a board"
# env execs aioprof-top: the background job's pid is its own, for Ctrl-C
env AIOPROF_FAKE_PORTS="$list" LD_PRELOAD="$fake" "$TOP" --report -v > "$WORK/picked.txt" 2> "$WORK/picked.err" &
top_pid=$!
IO_PIDS+=("$top_pid")
pty_drained "$WORK/pico"
top_stop "$top_pid" || fail "with one board, aioprof-top exited $?: $(cat "$WORK/picked.err")"
grep -q "using $pico" "$WORK/picked.err" || fail "the Pico was not picked: $(cat "$WORK/picked.err")"
grep -qE '(│|\|) slow ' "$WORK/picked.txt" || fail "nothing read from the picked board: $(cat "$WORK/picked.txt")"

# ---- a USB-UART bridge alone is taken too (a board behind a CP2102)
set +e
ports "/dev/ttyUSB3,10c4,ea60,Silicon Labs,CP2102,0001" "$TOP" --report --duration 1 > /dev/null 2> "$WORK/bridge.err"
set -e
grep -q 'using /dev/ttyUSB3' "$WORK/bridge.err" || fail "a bridge alone was not picked: $(cat "$WORK/bridge.err")"

# ---- two boards: the user chooses, and is told which there are
set +e
ports "/dev/ttyACM0,2e8a,0005,,,;/dev/ttyACM1,303a,1001,,," "$TOP" --report --duration 1 > /dev/null 2> "$WORK/two.err"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "two boards: exit $rc, want 1"
grep -q 'several boards could be the one: /dev/ttyACM0 (Raspberry Pi (RP2040/RP2350)), /dev/ttyACM1 (Espressif)' \
    "$WORK/two.err" || fail "two boards: $(cat "$WORK/two.err")"
echo "ok: io_ports"
