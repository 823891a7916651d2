# Shared by the tests that use MicroPython's qemu port as a board on QEMU's pty (board_run_qemu.sh,
# budget_run_qemu.sh, board_install_qemu.sh; sourced after io_common.bash): the firmware, QEMU,
# and the two-task app whose figures its loops give.

# board_need_firmware NAME: fw, the firmware with the C module (AIOPROF_MPY_QEMU_FIRMWARE); the
# test NAME is skipped (exit 77) without it or without qemu-system-arm.
board_need_firmware() {
    fw=${AIOPROF_MPY_QEMU_FIRMWARE:-}
    if [ -z "$fw" ]; then
        echo "$1: SKIPPED: set AIOPROF_MPY_QEMU_FIRMWARE to a qemu-port firmware with the C module"
        exit 77
    fi
    [ -f "$fw" ] || fail "no firmware at $fw"
    command -v qemu-system-arm > /dev/null || { echo "$1: SKIPPED: qemu-system-arm not installed"; exit 77; }
}

# board_qemu_start QEMU MACHINE OPTION...: the board: QEMU's MACHINE running fw, its output in
# $WORK/qemu.out, its UART on the pty it names (pty); stopped with the test.
board_qemu_start() {
    local qemu=$1 machine=$2
    shift 2
    qemu_pty_start "$WORK/qemu.out" "$qemu" -M "$machine" "$@" -nographic -monitor none -serial pty -kernel "$fw" ||
        fail "QEMU named no pty"
    IO_PIDS+=("$qemu_pid")
}

# board_app FILE [aioprof]: the app: slow (10 slices of 20 ms, then its last) and quick (50 + 1),
# then "run: done"; with "aioprof" it imports aioprof and enables it itself.
board_app() {
    {
        echo "import asyncio"
        echo "import time"
        [ "${2:-}" != aioprof ] || printf 'import aioprof\n\naioprof.enable()\n'
        cat <<'PY'


async def slow():
    for i in range(10):
        time.sleep_ms(20)
        await asyncio.sleep_ms(5)


async def quick():
    for i in range(50):
        await asyncio.sleep_ms(2)


async def main():
    await asyncio.gather(slow(), quick())
    print("run: done")


asyncio.run(main())
PY
    } > "$1"
}

# board_app_check JSON ERR WHAT: the report (JSON) and stderr (ERR) of one run of the app (WHAT in
# the failure): slow 10 + 1 slices, quick 50 + 1, an undamaged stream, its text line. Prints the
# counts.
board_app_check() {
    local counts
    counts=$(json "$1" '{t["name"]: t["count"] for t in j["tasks"]}')
    [ "$(json "$1" '{t["name"]: t["count"] for t in j["tasks"]}.get("slow")')" = 11 ] || fail "$3: slow: $counts"
    [ "$(json "$1" '{t["name"]: t["count"] for t in j["tasks"]}.get("quick")')" = 51 ] || fail "$3: quick: $counts"
    [ "$(json "$1" 'j["stream"]["dropped_events"] + j["stream"]["crc_errors"] + j["stream"]["lost_frames"]')" = 0 ] \
        || fail "$3: the stream was damaged: $(json "$1" 'j["stream"]')"
    grep -q '^device: run: done$' "$2" || fail "$3: the program's text is missing: $(cat "$2")"
    echo "$3: $counts"
}
