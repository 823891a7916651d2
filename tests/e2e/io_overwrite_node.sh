#!/usr/bin/env bash
# Every output (--export-trace, -w, --log) onto a character device writes into it as it is, with or
# without --force, and never removes or replaces it, also when every write fails. A copy of
# /dev/full (char 1,7: every write fails with ENOSPC) made in a scratch folder stands in for the
# real one, which this test never touches. Making a node needs root: skipped (77) otherwise.
set -euo pipefail
source "$(dirname "$0")/io_common.bash"

if [ "$(id -u)" != 0 ]; then
    echo "io_overwrite_node: needs root to make a device node; skipped"
    exit 77
fi
mknod "$WORK/full" c 1 7
"$SIM" -w busy --events 4000 -q -o "$WORK/raw.bin"
pty_start "$WORK/ttyN" "$WORK/raw.bin"

node_intact() {
    [ -c "$WORK/full" ] && [ "$(stat -c '%t:%T' "$WORK/full")" = "1:7" ] \
        || fail "$1: $WORK/full is no longer the device node it was: $(ls -l "$WORK/full" 2>&1)"
}
"$SIM" -w seed --duration 5 --text 5 -q -o "$WORK/text.bin"
for args in "-r $WORK/raw.bin --export-trace $WORK/full" "$WORK/ttyN --duration 5 -w $WORK/full" \
    "-r $WORK/text.bin --log $WORK/full"; do
    for force in "" --force; do
        rc=0
        # shellcheck disable=SC2086 # the words of args are the options
        timeout 60 "$TOP" $args $force --report > /dev/null 2> "$WORK/err" < /dev/null || rc=$?
        [ "$rc" = 1 ] || fail "aioprof-top $args $force exited $rc: $(cat "$WORK/err")"
        grep -qE "(cannot write the (trace|recording) |writing the log )$WORK/full:? (failed: )?No space left on device" \
            "$WORK/err" || fail "aioprof-top $args $force said: $(cat "$WORK/err")"
        node_intact "aioprof-top $args $force"
    done
done
echo "io_overwrite_node: all checks passed"
