#!/usr/bin/env bash
# Stable names: a port that has a name under /dev/serial/by-id/ is shown by it (--list, the
# report's and the header's source) and followed by it, so a replug that renumbers the node
# (ttyACM0 -> ttyACM1) is still the same board. The by-id folder is a test folder here
# (AIOPROF_SERIAL_BY_ID), its links pointing at ptys that stand in for the board's node.
set -euo pipefail
source "$(dirname "$0")/io_common.bash"

byid=$WORK/by-id
mkdir "$byid"
export AIOPROF_SERIAL_BY_ID=$byid
name=usb-MicroPython_Board_in_FS_mode_e6614c311b7e6f35-if00

# ---- --list: the stable name first, the node after it
fake=${AIOPROF_BUILD:-/nonexistent}/tests/shim/libaioprof_fake_ports.so
if [ ! -e "$fake" ]; then
    src=${AIOPROF_SRC:-$(dirname "$0")/../..}/tests/shim/fake_ports.c
    fake=$WORK/fake_ports.so
    cc -shared -fPIC -O1 -o "$fake" "$src" || fail "cannot build the stand-in from $src"
fi
ln -s /dev/ttyACM0 "$byid/$name"
env AIOPROF_FAKE_PORTS="/dev/ttyS0,0,0,,,;/dev/ttyACM0,2e8a,0005,MicroPython,Board in FS mode,e6614c311b7e6f35" \
    LD_PRELOAD="$fake" "$TOP" --list > "$WORK/list.txt"
grep -qE "^$byid/$name  \(/dev/ttyACM0\)  usb 2e8a:0005 .*\[MicroPython board\]$" "$WORK/list.txt" \
    || fail "--list does not show the stable name: $(cat "$WORK/list.txt")"
grep -qE '^/dev/ttyS0  ' "$WORK/list.txt" || fail "--list lost the port without a stable name: $(cat "$WORK/list.txt")"
rm "$byid/$name"

# ---- a board on its node, renumbered by a replug
"$SIM" -w seed -o "$WORK/part.bin" --duration 3 -q
pty_start "$WORK/ttyA" "$WORK/part.bin"
node_a=$(readlink -f "$WORK/ttyA")
ln -s "$node_a" "$byid/$name"
"$TOP" "$node_a" --json -w "$WORK/session.aiop" > "$WORK/live.json" 2> "$WORK/live.err" &
top_pid=$!
IO_PIDS+=("$top_pid")
recorded() { chunks "$WORK/session.aiop" | awk '$1 == 1 {n += $3} END {print n + 0}'; }
want=$(stat -c %s "$WORK/part.bin")
for _ in $(seq 1200); do [ "$(recorded)" -ge "$want" ] && break; sleep 0.1; done
[ "$(recorded)" = "$want" ] || fail "the first plug: recorded $(recorded) of $want bytes: $(cat "$WORK/live.err")"

# the replug: the board comes back on another node (made before the old one goes, so the number
# differs), and only its stable name leads to it
pty_start "$WORK/ttyB" "$WORK/part.bin"
node_b=$(readlink -f "$WORK/ttyB")
[ "$node_a" != "$node_b" ] || fail "the second pty has the first one's number"
rm "$byid/$name"
pty_stop "$WORK/ttyA"
wait_for_text "$WORK/live.err" "$byid/$name went away" 10 || fail "no word of the unplug: $(cat "$WORK/live.err")"
ln -s "$node_b" "$byid/$name"
wait_for_text "$WORK/live.err" "$byid/$name is back" 10 || fail "the renumbered board was not found: $(cat "$WORK/live.err")"
for _ in $(seq 1200); do [ "$(recorded)" -ge $((2 * want)) ] && break; sleep 0.1; done
kill -INT "$top_pid"
wait "$top_pid" || fail "aioprof-top exited $?: $(cat "$WORK/live.err")"
[ "$(json "$WORK/live.json" 'j["source"]')" = "$byid/$name @ 115200" ] \
    || fail "the report's source is $(json "$WORK/live.json" 'j["source"]'), not the stable name"
[ "$(json "$WORK/live.json" 'j["stream"]["bytes"]')" = $((2 * want)) ] \
    || fail "read $(json "$WORK/live.json" 'j["stream"]["bytes"]') bytes of both plugs' $((2 * want))"
[ "$(json "$WORK/live.json" 'j["stream"]["reconnects"]')" = 1 ] || fail "the replug was not one reconnect"
echo "board_names: all checks passed"
