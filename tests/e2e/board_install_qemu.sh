#!/usr/bin/env bash
# --install, --run of an app that does not mention aioprof, and --uninstall, on an emulated board
# (issue 23 items 2 and 3): MicroPython's qemu port (mps2-an385, Cortex-M3), its UART on QEMU's pty.
# The qemu port has no filesystem: --install says so; the test then mounts one in RAM
# (tests/micropython/ramfs.py, sent with --run) and, since a soft reset would take it away, runs
# the app with --no-reset. Checks: the module chosen and the engine the board imports; the app's
# figures, exactly its loops' iterations (as board_run_qemu); a second --install sends no file;
# --uninstall leaves the filesystem as it was, but keeps a file changed since the install; --run on a board without aioprof says to --install,
# and --in-ram runs it with the python engine sent into RAM; a full filesystem is refused.
#   AIOPROF_MPY_QEMU_STOCK_FIRMWARE  a qemu-port firmware without the C module (a stock board;
#                                    docs/micropython.md, "A stock qemu board"), or else
#   AIOPROF_MPY_QEMU_FIRMWARE        the one with it (the engine is then the firmware's)
#   AIOPROF_BOARD_INSTALL_NATIVE     _aioprof_native.mpy for armv7m, put in a test manifest
#   Without AIOPROF_BOARD_INSTALL_NATIVE, a stock board gets the prebuilt module the repository ships
#   (device/micropython/mpy/, as the installed program finds them): the native engine.
# Another board: board_install_rv32.sh sets BOARD_QEMU, BOARD_MACHINE, BOARD_QEMU_ARGS, BOARD_ARCH
# and BOARD_FIRMWARE (VIRT_RV32, the rv32imc module).
# Skips (exit 77) without a firmware, without its QEMU, or on a firmware whose heap is too small for
# the RAM filesystem and the import (the C-module one: about 140 KB).
set -euo pipefail
source "$(dirname "$0")/io_common.bash"
source "$(dirname "$0")/board_common.bash"
name=${BOARD_TEST:-board_install_qemu}
qemu=${BOARD_QEMU:-qemu-system-arm}
machine=${BOARD_MACHINE:-mps2-an385}
qemu_args=${BOARD_QEMU_ARGS:--semihosting}
arch=${BOARD_ARCH:-armv7m}
if [ -n "${BOARD_FIRMWARE_VAR:-}" ]; then
    fw=${!BOARD_FIRMWARE_VAR:-}
    stock=$fw
    [ -n "$fw" ] || { echo "$name: SKIPPED: set $BOARD_FIRMWARE_VAR to a stock qemu-port firmware"; exit 77; }
else
    fw=${AIOPROF_MPY_QEMU_STOCK_FIRMWARE:-${AIOPROF_MPY_QEMU_FIRMWARE:-}}
    stock=${AIOPROF_MPY_QEMU_STOCK_FIRMWARE:-}
    if [ -z "$fw" ]; then
        echo "$name: SKIPPED: set AIOPROF_MPY_QEMU_STOCK_FIRMWARE (or AIOPROF_MPY_QEMU_FIRMWARE) to a qemu-port firmware"
        exit 77
    fi
fi
[ -f "$fw" ] || fail "no firmware at $fw"
command -v "$qemu" > /dev/null || { echo "$name: SKIPPED: $qemu not installed"; exit 77; }
src=${AIOPROF_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}

# the board's files: the python engine from the source tree, and the native module in a manifest
files=$WORK/files
mkdir -p "$files/mpy/armv7m/6.3"
cp "$src"/device/micropython/aioprof*.py "$files/"
want_engine=python
if [ -n "${AIOPROF_BOARD_INSTALL_NATIVE:-}" ]; then
    cp "$AIOPROF_BOARD_INSTALL_NATIVE" "$files/mpy/armv7m/6.3/_aioprof_native.mpy"
    sha=$(sha256sum "$AIOPROF_BOARD_INSTALL_NATIVE" | cut -d' ' -f1)
    cat > "$files/mpy/manifest.json" <<JSON
{"schema": 1, "python": ["aioprof.py", "aioprof_frames.py", "aioprof_fallback.py", "aioprof_wrapper.py"],
 "modules": [{"path": "mpy/armv7m/6.3/_aioprof_native.mpy", "arch": "armv7m", "mpy_version": 6,
              "mpy_sub_version": 3, "sha256": "$sha"}]}
JSON
    want_engine=native
    export AIOPROF_BOARD_FILES=$files
else
    # the files the repository ships, prebuilt modules and their manifest, found as the build
    # tree's program finds them
    want_engine=native
    unset AIOPROF_BOARD_FILES
fi
[ -n "$stock" ] || want_engine=firmware

# shellcheck disable=SC2086
board_qemu_start "$qemu" "$machine" $qemu_args

top() { # NAME ARGS...: aioprof-top ARGS on the board; NAME.out, NAME.err; returns its exit code
    local name=$1
    shift
    timeout 120 "$TOP" "$@" "$pty" > "$WORK/$name.out" 2> "$WORK/$name.err"
}
listing() { # NAME: the filesystem's listing, as the board prints it
    top "$1" --run "$src/tests/micropython/board_listing.py" --no-enable --no-reset --json || fail "listing: $(cat "$WORK/$1.err")"
    grep '^device: listing:' "$WORK/$1.err" | sed 's/^device: //'
}

# the heap must hold the RAM filesystem (its files, about 80 KB, as bytearrays that grow by
# doubling) and the import of aioprof beside it: a firmware with the C module (about 140 KB of
# heap) runs out of memory on the import, the stock ones (512 KB) do not
ramfs_kb=${BOARD_RAMFS_KB:-256}
need=$(( (ramfs_kb + 128) * 1024 ))
top heap --run "$src/tests/micropython/board_heap.py" --no-enable --json || fail "asking the heap's size: $(cat "$WORK/heap.err")"
free=$(sed -n 's/^device: heap: \([0-9][0-9]*\)$/\1/p' "$WORK/heap.err")
[ -n "$free" ] || fail "the board did not say its heap's size: $(cat "$WORK/heap.err")"
if [ "$free" -lt "$need" ]; then
    echo "$name: SKIPPED: the firmware $fw has $free bytes of heap free, and the test needs $need (a $ramfs_kb KB RAM filesystem and the import of aioprof): give a stock qemu-port firmware in ${BOARD_FIRMWARE_VAR:-AIOPROF_MPY_QEMU_STOCK_FIRMWARE} (docs/micropython.md, \"A stock qemu board\")"
    exit 77
fi

# 1. no filesystem: one sentence, exit 1
rc=0; top nofs --install || rc=$?
[ $rc = 1 ] && grep -q "has no filesystem to install to" "$WORK/nofs.err" || fail "no filesystem: exit $rc: $(cat "$WORK/nofs.err")"

# a filesystem in RAM, first one too small for the files: full, one sentence, exit 1
sed 's/RamFS(256 \* 1024)/RamFS(16 * 1024)/' "$src/tests/micropython/ramfs.py" > "$WORK/ramfs_small.py"
top small --run "$WORK/ramfs_small.py" --no-enable --json || fail "mounting the small RAM filesystem: $(cat "$WORK/small.err")"
rc=0; top full --install || rc=$?
[ $rc = 1 ] && grep -q "filesystem is full: 16384 bytes free" "$WORK/full.err" || fail "full: exit $rc: $(cat "$WORK/full.err")"
# BOARD_RAMFS_KB (ramfs_kb): the RAM filesystem's size (in the heap: a board with less heap takes less)
{ echo "vfs.umount('/')"; sed "s/RamFS(256 \* 1024)/RamFS($ramfs_kb * 1024)/" "$src/tests/micropython/ramfs.py"; } > "$WORK/ramfs_big.py"
sed -i '1{h;d};/^import io, os, vfs/G' "$WORK/ramfs_big.py"
top mount --run "$WORK/ramfs_big.py" --no-enable --no-reset --json || fail "mounting the RAM filesystem: $(cat "$WORK/mount.err")"
before=$(listing before)

# 2. the install
top install --install || fail "--install exited $?: $(cat "$WORK/install.err")"
cat "$WORK/install.err" "$WORK/install.out"
grep -q "^aioprof.engine(): $want_engine " "$WORK/install.out" || fail "the engine is not $want_engine: $(cat "$WORK/install.out")"
[ $want_engine != native ] || grep -q "engine native: the prebuilt module for $arch" "$WORK/install.err" || fail "not the $arch module"
grep -qE "^aioprof-top: [1-9][0-9]* files written" "$WORK/install.err" || fail "no file was written"
grep -qE "installed in [0-9.]+ s; [0-9]+ bytes went to the board" "$WORK/install.err" || fail "no figures"

# 3. the app, which does not mention aioprof: the prologue enables it
board_app "$WORK/app.py"
check() { board_app_check "$WORK/$1.out" "$WORK/$1.err" "$1"; } # NAME: the report of one run of app.py
top run --run "$WORK/app.py" --no-reset --json || fail "--run exited $?: $(cat "$WORK/run.err")"
check run

# 4. again: nothing to send
top again --install || fail "the second --install exited $?: $(cat "$WORK/again.err")"
grep -qE "^aioprof-top: 0 files written to [^ ]+ \(0 bytes of them\), [1-9][0-9]* already there and identical" "$WORK/again.err" \
    || fail "the second --install sent files: $(cat "$WORK/again.err")"
grep "bytes went to the board" "$WORK/again.err"

# 5. uninstall: as before
top uninstall --uninstall || fail "--uninstall exited $?: $(cat "$WORK/uninstall.err")"
after=$(listing after)
[ "$before" = "$after" ] || fail "the filesystem differs after --uninstall: before '$before', after '$after'"
rc=0; top twice --uninstall || rc=$?
[ $rc = 1 ] && grep -q "nothing to uninstall" "$WORK/twice.err" || fail "a second --uninstall: exit $rc: $(cat "$WORK/twice.err")"

# a file the user changed after the install is theirs: --uninstall keeps it
top again2 --install || fail "--install after --uninstall exited $?: $(cat "$WORK/again2.err")"
cat > "$WORK/edit.py" <<'PY'
with open("/aioprof_wrapper.py", "a") as f:
    f.write("# mine\n")
PY
top edit --run "$WORK/edit.py" --no-enable --no-reset --json || fail "editing a file: $(cat "$WORK/edit.err")"
top kept --uninstall || fail "--uninstall of a changed install exited $?: $(cat "$WORK/kept.err")"
grep -q "kept /aioprof_wrapper.py: it changed since the install" "$WORK/kept.err" || fail "not kept: $(cat "$WORK/kept.err")"
kept=$(listing kept-listing)
changed_size=$(( $(stat -c %s "$src/device/micropython/aioprof_wrapper.py") + 7 ))
case "$kept" in *"/aioprof_wrapper.py:$changed_size"*) ;; *) fail "the changed file ($changed_size bytes) is not there: $kept" ;; esac
printf 'import os\nos.remove("/aioprof_wrapper.py")\n' > "$WORK/rm.py"
top rm --run "$WORK/rm.py" --no-enable --no-reset --json || fail "removing the changed file: $(cat "$WORK/rm.err")"
[ "$(listing final)" = "$before" ] || fail "not as before at the end: $(listing final2)"

# 6. --run without aioprof on the board (a soft reset: the modules imported above, and the RAM
# filesystem, are gone): what to do, not a bare ImportError; then --in-ram: the python engine
# into RAM for the run
if [ $want_engine != firmware ]; then
    top missing --run "$WORK/app.py" --json || true
    grep -q "aioprof-top --install puts it there, or add --in-ram" "$WORK/missing.err" \
        || fail "no word of --install: $(cat "$WORK/missing.err")"
    top ram --run "$WORK/app.py" --in-ram --json || fail "--run --in-ram exited $?: $(cat "$WORK/ram.err")"
    grep -q "loaded into the board's RAM" "$WORK/ram.err" || fail "--in-ram: $(cat "$WORK/ram.err")"
    check ram
    grep "loaded into the board's RAM" "$WORK/ram.err"
fi
echo "$name: all checks passed"
