#!/usr/bin/env bash
# The modem lines DTR and RTS once a port is open (issue 23 item 6): an ESP32/ESP8266's auto-reset
# circuit resets the chip while RTS is asserted and DTR is not, so by default both stay asserted, as
# Linux opens a tty; --dtr and --rts set other states, and the calls that get there never pass
# through "RTS alone" unless that is the state asked for. A pty has no modem lines: the shim
# tests/shim/lines_shim.c writes down every line call made to libserialport (with serialport_shim.c,
# which lets libserialport open a pty), and this replays them on a model of the board.
set -euo pipefail
source "$(dirname "$0")/io_common.bash"

shims=${AIOPROF_BUILD:-/nonexistent}/tests/shim
open_shim=$shims/libaioprof_serialport_shim.so
lines_shim=$shims/libaioprof_lines_shim.so
if [ ! -e "$open_shim" ] || [ ! -e "$lines_shim" ]; then
    src=${AIOPROF_SRC:-$(dirname "$0")/../..}/tests/shim
    open_shim=$WORK/open_shim.so
    lines_shim=$WORK/lines_shim.so
    cc -shared -fPIC -O1 -o "$open_shim" "$src/serialport_shim.c" -ldl || fail "cannot build $src/serialport_shim.c"
    cc -shared -fPIC -O1 -o "$lines_shim" "$src/lines_shim.c" -ldl -lserialport || fail "cannot build $src/lines_shim.c"
fi

"$SIM" -o "$WORK/raw.bin" --duration 1 2> /dev/null

# each case: the options, then the DTR and RTS states expected at the end
cases=("|1 1" "--dtr off|0 1" "--rts off|1 0" "--dtr off --rts off|0 0" "--dtr on --rts on|1 1")
i=0
for c in "${cases[@]}"; do
    opts=${c%%|*}
    want=${c#*|}
    i=$((i + 1))
    pty_start "$WORK/tty$i" "$WORK/raw.bin"
    # shellcheck disable=SC2086 # the options are words
    AIOPROF_LINES_LOG=$WORK/lines$i LD_PRELOAD="$open_shim $lines_shim" "$TOP" "$WORK/tty$i" $opts --verbose --json \
        > "$WORK/out$i.json" 2> "$WORK/err$i" &
    top_pid=$!
    IO_PIDS+=("$top_pid")
    pty_drained "$WORK/tty$i"
    top_stop "$top_pid" || fail "'$opts': exited $?: $(grep -v ^device: "$WORK/err$i")"
    grep -q "through libserialport" "$WORK/err$i" || fail "'$opts': libserialport was not used: $(cat "$WORK/err$i")"
    [ -s "$WORK/lines$i" ] || fail "'$opts': no line call was made"
    # the board: the lines start asserted (the kernel's open); a reset is RTS on with DTR off
    python3 - "$WORK/lines$i" $want <<'PY' || fail "'$opts': $(cat "$WORK/lines$i" | tr '\n' ' ')"
import sys
state = {"dtr": 1, "rts": 1}
want = {"dtr": int(sys.argv[2]), "rts": int(sys.argv[3])}
seen = []
for line in open(sys.argv[1]):
    what, value = line.split()
    value = int(value)
    if what.startswith("config-"):
        what = what[len("config-"):]
        if value < 0:
            continue
    assert value in (0, 1), "a line set to %d (flow control?)" % value
    state[what] = value
    seen.append(dict(state))
assert state == want, "ended with %s, not %s" % (state, want)
resets = [s for s in seen if s["rts"] == 1 and s["dtr"] == 0 and s != want]
assert not resets, "passed through RTS alone (a reset) on the way: %s" % seen
PY
    grep -q "DTR $( [ "${want% *}" = 1 ] && echo on || echo off), RTS $( [ "${want#* }" = 1 ] && echo on || echo off)" \
        "$WORK/err$i" || fail "'$opts': --verbose does not say the lines: $(cat "$WORK/err$i")"
    echo "'${opts:-(default)}': DTR ${want% *} RTS ${want#* }, in $(wc -l < "$WORK/lines$i") calls, no reset on the way"
    pty_stop "$WORK/tty$i"
done

# usage errors
rc=0; "$TOP" --dtr maybe "$WORK/tty1" 2> "$WORK/bad.err" || rc=$?
[ $rc = 2 ] && grep -q "takes on or off" "$WORK/bad.err" || fail "--dtr maybe: exit $rc: $(cat "$WORK/bad.err")"
rc=0; "$TOP" --rts off --demo --duration 1 --report 2> "$WORK/bad.err" > /dev/null || rc=$?
[ $rc = 2 ] && grep -q "open none" "$WORK/bad.err" || fail "--rts with --demo: exit $rc: $(cat "$WORK/bad.err")"
echo "io_lines: all checks passed"
