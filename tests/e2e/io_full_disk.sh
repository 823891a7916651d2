#!/usr/bin/env bash
# On a full file system every output (-w, --export-trace, --log) fails the run (exit 1) with its one
# sentence, and a file this run created that got nothing is removed; a file that was there
# (--force) stays. The file system is a tmpfs of 64 KiB mounted in a scratch folder and filled up,
# which needs root: skipped (77) otherwise, or when mounting is not allowed here.
set -euo pipefail
source "$(dirname "$0")/io_common.bash"

if [ "$(id -u)" != 0 ]; then
    echo "io_full_disk: needs root to mount a small file system; skipped"
    exit 77
fi
mkdir "$WORK/full"
if ! mount -t tmpfs -o size=64k,mode=0755 aioprof-full "$WORK/full" 2> "$WORK/mount.err"; then
    echo "io_full_disk: cannot mount a tmpfs here ($(cat "$WORK/mount.err")); skipped"
    exit 77
fi
trap 'umount "$WORK/full" 2>/dev/null || true; io_cleanup' EXIT
: > "$WORK/full/kept" # empty: emptying it frees no room
# filled to its last block (dd stops with ENOSPC)
dd if=/dev/zero of="$WORK/full/filler" bs=4096 2> /dev/null || true
[ "$(df --output=avail "$WORK/full" | tail -1 | tr -d ' ')" = 0 ] || fail "the tmpfs is not full: $(df "$WORK/full")"

"$SIM" -w seed --duration 5 --text 5 -q -o "$WORK/text.bin"
pty_start "$WORK/ttyF" "$WORK/text.bin"
# on OUT OPT ARGS...: aioprof-top writes its output OPT into the full file system's OUT
on() {
    local out=$1 opt=$2 rc=0
    shift 2
    timeout 60 "$TOP" "$@" --report "$opt" "$WORK/full/$out" > /dev/null 2> "$WORK/err" < /dev/null || rc=$?
    [ "$rc" = 1 ] || fail "$opt $out on a full disk exited $rc: $(cat "$WORK/err")"
    grep -qE "(cannot write the (trace|recording) |writing the log )$WORK/full/$out:? (failed: )?No space left on device" \
        "$WORK/err" || fail "$opt $out on a full disk said: $(cat "$WORK/err")"
}
for opt in --export-trace -w --log; do
    case $opt in -w) input=("$WORK/ttyF" --duration 5) ;; *) input=(-r "$WORK/text.bin") ;; esac
    on "new" "$opt" "${input[@]}"
    [ ! -e "$WORK/full/new" ] || fail "$opt: the empty file this run made on a full disk was left behind"
    on "kept" "$opt" "${input[@]}" --force
    [ -f "$WORK/full/kept" ] || fail "$opt --force removed a file this run did not create"
done
echo "io_full_disk: all checks passed"
