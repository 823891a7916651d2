# Shared by tests/e2e/qemu_*.sh and tests/bench/qemu_cost.sh (sourced; ctest runs *.sh only).
# Finds the tools, builds the mps2-an385 firmware, and cleans up what a test started.
#
# Environment: AIOPROF_TOP (aioprof-top), AIOPROF_BUILD (the CMake build tree, set by ctest),
# AIOPROF_SRC (the source tree), QEMU_FW_BUILD (where the firmware goes; default
# AIOPROF_BUILD/mps2-an385). Without qemu-system-arm or arm-none-eabi-gcc a test is skipped with
# exit 0, unless CI is set: there they must run.

QEMU_SRC=${AIOPROF_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# wait_until CHECK...; wait_for_text FILE PATTERN; qemu_pty_start OUT COMMAND...; stop_all
source "$(dirname "${BASH_SOURCE[0]}")/poll_common.bash"
QEMU_TOP=${AIOPROF_TOP:-${AIOPROF_BUILD:-$QEMU_SRC/build}/host/aioprof-top}
QEMU_FW=${QEMU_FW_BUILD:-${AIOPROF_BUILD:-$QEMU_SRC/build}/mps2-an385}
QEMU_PIDS=()
QEMU_TMP=$(mktemp -d /tmp/aioprof-qemu.XXXXXX)

trap 'stop_all "$QEMU_TMP" "${QEMU_PIDS[@]}"' EXIT

qemu_fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# qemu_need_tools NAME: skips the test when a tool is missing (exit 77, which ctest reports as
# skipped; QEMU_SKIP_STATUS overrides it), fails it under CI.
qemu_need_tools() {
    local missing=()
    command -v qemu-system-arm >/dev/null || missing+=(qemu-system-arm)
    command -v arm-none-eabi-gcc >/dev/null || missing+=(arm-none-eabi-gcc)
    [ ${#missing[@]} -eq 0 ] && return 0
    local how="apt-get install --no-install-recommends qemu-system-arm gcc-arm-none-eabi libnewlib-arm-none-eabi"
    if [ -n "${CI:-}" ] && [ "${CI}" != false ] && [ "${CI}" != 0 ]; then
        qemu_fail "$1: ${missing[*]} not installed, and CI is set: CI must run the emulated board ($how)"
    fi
    echo "SKIP: $1: ${missing[*]} not installed ($how); this test is not skipped when CI is set"
    exit "${QEMU_SKIP_STATUS:-77}"
}

# qemu_build: builds the firmware into QEMU_FW (one build at a time: tests may run in parallel).
qemu_build() {
    mkdir -p "$QEMU_FW"
    flock "$QEMU_FW/.lock" make -s -C "$QEMU_SRC/device/ports/mps2-an385" BUILD="$QEMU_FW" >"$QEMU_TMP/make.log" 2>&1 ||
        { cat "$QEMU_TMP/make.log" >&2; qemu_fail "the mps2-an385 firmware does not build"; }
    [ -x "$QEMU_TOP" ] || qemu_fail "no aioprof-top at $QEMU_TOP (set AIOPROF_TOP or AIOPROF_BUILD)"
}

# The machine and the semihosting exit every run shares. Extra arguments follow.
qemu_cmd() {
    echo qemu-system-arm -M mps2-an385 -nographic -monitor none -no-reboot \
        -semihosting-config enable=on,target=native "$@"
}
