# The prebuilt native modules (device/micropython/mpy/) on one of MicroPython's qemu-port boards
# with a stock firmware (no C module; asyncio on, aioprof's python files frozen: docs/micropython.md,
# "What was built"). Sourced by mpy_prebuilt_an385.sh, _an500.sh, _rv32.sh, which set:
#   name        the test's name          fw_var     the variable naming the firmware
#   qemu        QEMU's program           machine    its -M
#   qemu_args   more QEMU options        arches     the modules' arches to load on it
#   frames      uart1 (the MPS2 boards' second UART) or none (a board with one UART)
# For each arch: QEMU's -serial pty read live by aioprof-top while tests/micropython/qemu_session.py
# sends the seed example through the raw REPL twice, with the module sent into a file system in
# RAM: engine() must be "native", and the report must hold what the programs measured (slices,
# instances, errors exact). Then, with AIOPROF_MPY_SRC, MicroPython's asyncio tests with the hook
# (tests/micropython/asyncio_suite.py), the module of each arch. The module is the one for the
# firmware's .mpy version (AIOPROF_QEMU_MPY_VERSION, default 6.3: the firmwares built from 1.29).
set -u -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/poll_common.bash"
src=${AIOPROF_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
top=${AIOPROF_TOP:?AIOPROF_TOP must name the aioprof-top binary}
fw=${!fw_var:-}
if [ -z "$fw" ]; then
    echo "$name: SKIPPED: set $fw_var to a stock qemu-port firmware for $machine (docs/micropython.md, \"What was built\")"
    exit 77
fi
[ -f "$fw" ] || { echo "$name: FAIL: no firmware at $fw"; exit 1; }
command -v "$qemu" > /dev/null || { echo "$name: SKIPPED: $qemu is not installed"; exit 77; }
version=${AIOPROF_QEMU_MPY_VERSION:-6.3}
qemu_out_dir "$name"
failed=0

# boot: QEMU on a pty; sets pty, or fails. -icount: the board's clock counts instructions (8 ns
# each), so what the hook adds to a slice is the same on a loaded machine (without it, QEMU's
# clock follows the host's, and beside two CPU hogs the hook's share of a slice grew past the
# comparison's 200 us on MPS2_AN500 and VIRT_RV32).
boot() {
    # shellcheck disable=SC2086
    qemu_pty_start "$1/qemu.out" "$qemu" -M "$machine" -nographic -monitor none -semihosting -icount shift=3 \
        $qemu_args -serial pty -kernel "$fw" && return 0
    echo "$name: FAIL: QEMU did not say which pty it made"
    exit 1
}

for arch in $arches; do
    mpy=$src/device/micropython/mpy/$arch/$version/_aioprof_native.mpy
    [ -f "$mpy" ] || { echo "$name: FAIL: no prebuilt module $mpy"; failed=1; continue; }
    mkdir -p "$out/$arch"
    boot "$out/$arch"
    echo "== $arch ($(stat -c %s "$mpy") bytes) on $machine, UART $pty"
    AIOPROF_MPY_QEMU_NATIVE=$mpy python3 "$src/tests/micropython/qemu_session.py" "$pty" "$top" \
        "$out/$arch" native:keep native || failed=1
    kill "$qemu_pid" 2>/dev/null
    wait "$qemu_pid" 2>/dev/null
    qemu_pid=
done

if [ -n "${AIOPROF_MPY_SRC:-}" ]; then
    for arch in $arches; do
        mpy=$src/device/micropython/mpy/$arch/$version/_aioprof_native.mpy
        [ -f "$mpy" ] || continue
        echo "== MicroPython's asyncio tests, the $arch module"
        python3 "$src/tests/micropython/asyncio_suite.py" --src "$AIOPROF_MPY_SRC" --top "$top" \
            --out "$out/asyncio-$arch" --qemu-firmware "$fw" --qemu-system "$qemu" \
            --qemu-machine "$machine" --qemu-args "$qemu_args" --frames "$frames" \
            --native-mpy "$mpy" native | grep -v '^pass ' || failed=1
    done
else
    echo "$name: note: AIOPROF_MPY_SRC is not set: MicroPython's asyncio tests were not run"
fi
[ "$failed" = 0 ] && echo "$name: all checks passed"
exit "$failed"
