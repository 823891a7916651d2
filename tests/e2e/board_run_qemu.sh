#!/usr/bin/env bash
# --run on a real MicroPython: the qemu port's firmware (mps2-an385) with the aioprof C module, its
# UART on QEMU's pty. A program sent through the raw REPL runs to its end and is profiled (its
# slices are its loops' iterations, exactly); a second one after it goes through the prompt the
# first left. (The qemu port reads its UART only when it reads input: Ctrl-C cannot stop a program
# there, so the keys' Ctrl-C is tested on the simulator, tests/e2e/tui_run.sh.)
#   AIOPROF_MPY_QEMU_FIRMWARE   the firmware (docs/micropython.md, "The qemu port")
# Skips (exit 77) without it or without qemu-system-arm.
set -euo pipefail
source "$(dirname "$0")/io_common.bash"
source "$(dirname "$0")/board_common.bash"
board_need_firmware board_run_qemu
board_qemu_start qemu-system-arm mps2-an385 -semihosting

board_app "$WORK/app.py" aioprof
check() { # the report of one run of app.py, and the word of its end
    board_app_check "$WORK/$1.json" "$WORK/$1.err" "$1"
    grep -q 'app.py ended\.$' "$WORK/$1.err" || fail "$1: no word of the end: $(cat "$WORK/$1.err")"
}
for n in first second; do
    timeout 120 "$TOP" --run "$WORK/app.py" "$pty" --json > "$WORK/$n.json" 2> "$WORK/$n.err" \
        || fail "$n --run exited $?: $(cat "$WORK/$n.err")"
    check "$n"
done

echo "board_run_qemu: all checks passed"
