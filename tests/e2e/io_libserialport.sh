#!/usr/bin/env bash
# The libserialport read path, which real boards use, on a pty: tests/shim/ makes libserialport
# accept a pty (it wants sysfs and modem lines). --verbose must name libserialport, and the bytes
# must all arrive. Without the shim the same pty goes through termios.
set -euo pipefail
source "$(dirname "$0")/io_common.bash"

shim=${AIOPROF_BUILD:-/nonexistent}/tests/shim/libaioprof_serialport_shim.so
if [ ! -e "$shim" ]; then
    src=${AIOPROF_SRC:-$(dirname "$0")/../..}/tests/shim/serialport_shim.c
    shim=$WORK/shim.so
    cc -shared -fPIC -O1 -o "$shim" "$src" -ldl || fail "cannot build the shim from $src"
fi

"$SIM" -w nested -o "$WORK/raw.bin" --duration 5 --text 30 2> /dev/null
"$TOP" --replay "$WORK/raw.bin" --json > "$WORK/truth.json" 2> /dev/null

for path in libserialport termios; do
    pty_start "$WORK/tty-$path" "$WORK/raw.bin"
    preload=
    [ "$path" = libserialport ] && preload=$shim
    # read until the pty has given everything, then Ctrl-C
    LD_PRELOAD=$preload "$TOP" "$WORK/tty-$path" --verbose --json > "$WORK/$path.json" 2> "$WORK/$path.err" &
    top_pid=$!
    IO_PIDS+=("$top_pid")
    pty_drained "$WORK/tty-$path"
    top_stop "$top_pid" || fail "$path: exited $?: $(grep -v ^device: "$WORK/$path.err")"
    grep -q "opened $WORK/tty-$path (/dev/pts/[0-9]*) through $path" "$WORK/$path.err" \
        || fail "$path was not used: $(grep -v ^device: "$WORK/$path.err")"
    python3 - "$WORK/truth.json" "$WORK/$path.json" <<'PY' || fail "$path: the figures differ from the capture's"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if a["tasks"] == b["tasks"] and a["stream"] == b["stream"] and a["stream"]["frames"] > 0 else 1)
PY
    echo "$path: $(json "$WORK/$path.json" 'j["stream"]["bytes"]') bytes, the same figures as the capture"
    pty_stop "$WORK/tty-$path"
done
echo "io_libserialport: all checks passed"
