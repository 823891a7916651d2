#!/usr/bin/env bash
# The prebuilt x64 modules on unix-port builds of each .mpy sub-version: for every binary named,
# the module of the sub-version it says (sys.implementation._mpy) runs every asyncio test script
# with the native engine, the report checked against what each script measured
# (tests/micropython/run_unix.sh). The 6.1 and 6.2 modules take the old runtime table's ways
# (attributes read under an nlr, Exception found by name), which only such a build runs.
#   AIOPROF_MPY_UNIX_OLD         unix-port binaries of older releases, separated by spaces (the
#                                oldest of 6.1 and 6.2: v1.21.0, v1.22.0; docs/micropython.md)
#   AIOPROF_MICROPYTHON_STOCK    a stock unix-port binary (6.3), also taken when set
# Skips (exit 77) when none is set.
set -u -o pipefail
src=${AIOPROF_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
top=${AIOPROF_TOP:?AIOPROF_TOP must name the aioprof-top binary}
read -r -a bins <<< "${AIOPROF_MPY_UNIX_OLD:-} ${AIOPROF_MICROPYTHON_STOCK:-}"
if [ ${#bins[@]} -eq 0 ]; then
    echo "mpy_prebuilt_unix: SKIPPED: set AIOPROF_MPY_UNIX_OLD (unix ports of v1.21.0, v1.22.0) or AIOPROF_MICROPYTHON_STOCK"
    exit 77
fi
out="${AIOPROF_BUILD:-/tmp}/mpy_prebuilt_unix"
rm -rf "$out"
failed=0
for mp in "${bins[@]}"; do
    [ -x "$mp" ] || { echo "mpy_prebuilt_unix: FAIL: $mp is not a program"; failed=1; continue; }
    version=$("$mp" -c 'import sys; m = sys.implementation._mpy; print("%d.%d" % (m & 0xff, m >> 8 & 3))') \
        || { echo "mpy_prebuilt_unix: FAIL: $mp does not say its .mpy version"; failed=1; continue; }
    dir=$src/device/micropython/mpy/x64/$version
    [ -f "$dir/_aioprof_native.mpy" ] || { echo "mpy_prebuilt_unix: FAIL: no x64 module for .mpy $version ($mp)"; failed=1; continue; }
    echo "== $mp: .mpy $version"
    AIOPROF_NATIVE_DIR=$dir OUT="$out/$version" bash "$src/tests/micropython/run_unix.sh" "$mp" "$top" native \
        | grep -E '^(FAIL|run_unix)' || failed=1
done
[ "$failed" = 0 ] && echo "mpy_prebuilt_unix: all checks passed"
exit "$failed"
