#!/usr/bin/env bash
# Collections timed in the firmware engine (docs/micropython.md, "Collections timed";
# tests/micropython/gc_timed.py, gc_check.py): a unix build linked with --wrap=gc_collect
# (AIOPROF_GC_WRAP=1) counts every collection in the task that ran it or outside tasks, with its
# time, and names "(gc)" as what made a waiting task late; the same script on a build without the
# wrapper shows no collection time and never "(gc)". Needs
#   AIOPROF_MICROPYTHON_GCWRAP  a unix build with this branch's C module and AIOPROF_GC_WRAP=1
#   AIOPROF_MICROPYTHON         optional: the build without it, for the contrast
# Skips (exit 77) without the first.
set -u
src=${AIOPROF_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
top=${AIOPROF_TOP:?AIOPROF_TOP must name the aioprof-top binary}
wrap=${AIOPROF_MICROPYTHON_GCWRAP:-}
if [ -z "$wrap" ]; then
    echo "mpy_gc_timed: SKIPPED: set AIOPROF_MICROPYTHON_GCWRAP to a unix build with the C module and AIOPROF_GC_WRAP=1 (docs/micropython.md)"
    exit 77
fi
here="$src/tests/micropython"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export MICROPYPATH="$src/device/micropython:$here:.frozen"
fail=0
run() { # run BINARY timed|untimed
    local mp=$1 mode=$2
    if ! "$mp" "$here/gc_timed.py" > "$tmp/$mode.bin" 2> "$tmp/$mode.err"; then
        echo "FAIL mpy_gc_timed $mode: the script failed:"; cat "$tmp/$mode.err"; fail=1; return
    fi
    if ! "$top" -r "$tmp/$mode.bin" --json > "$tmp/$mode.json" 2> "$tmp/$mode.out"; then
        echo "FAIL mpy_gc_timed $mode: aioprof-top could not read the capture"; cat "$tmp/$mode.out"; fail=1; return
    fi
    python3 "$here/gc_check.py" "$mode" "$tmp/$mode.json" "$tmp/$mode.err" || fail=1
}
run "$wrap" timed
[ -n "${AIOPROF_MICROPYTHON:-}" ] && run "$AIOPROF_MICROPYTHON" untimed
exit $fail
