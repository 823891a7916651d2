#!/usr/bin/env bash
# The emulated board end to end: the real device library cross-compiled for a Cortex-M3, running
# the demo firmware on QEMU's mps2-an385 and streaming over its UART0 into a capture that
# aioprof-top reads. QEMU's unix-socket chardev with server=on,wait=on holds the guest until the
# reader is connected, so no byte is lost at the start; the firmware also waits for a go byte, and
# for an acknowledgement before it exits.
#
#   full ring, fast port:   aioprof-top's report equals the firmware's own account exactly
#   256-byte ring, a port paced to 8 bytes/ms: the drop count equals the firmware's exactly
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/qemu_common.bash"
qemu_need_tools qemu_stream
qemu_build

status=0
run() {
    local name=$1 go=$2 mode=$3 sock="$QEMU_TMP/$1.sock" rc=0
    # shellcheck disable=SC2046
    timeout 60 $(qemu_cmd) -chardev socket,id=uart0,path="$sock",server=on,wait=on \
        -serial chardev:uart0 -kernel "$QEMU_FW/demo.elf" 2>"$QEMU_TMP/$name.qemu" &
    local qemu=$!
    QEMU_PIDS+=("$qemu")
    python3 "$here/qemu_capture.py" "$sock" "$QEMU_TMP/$name.bin" "$go" 40 || rc=1
    wait "$qemu" || { echo "FAIL $name: QEMU exited with $? (the firmware's status)"; cat "$QEMU_TMP/$name.qemu"; rc=1; }
    "$QEMU_TOP" -r "$QEMU_TMP/$name.bin" --json >"$QEMU_TMP/$name.json" 2>"$QEMU_TMP/$name.err" ||
        { echo "FAIL $name: aioprof-top exited with $?"; cat "$QEMU_TMP/$name.err"; rc=1; }
    grep '^device: ' "$QEMU_TMP/$name.err" || true
    python3 "$here/qemu_compare.py" "$QEMU_TMP/$name.json" "$QEMU_TMP/$name.err" "$mode" || rc=1
    echo "$( [ $rc = 0 ] && echo ok || echo FAIL ) $name ($(stat -c %s "$QEMU_TMP/$name.bin" 2>/dev/null || echo 0) bytes captured)"
    [ $rc = 0 ] || status=1
}

run full-ring g exact
run small-ring s drops
exit $status
