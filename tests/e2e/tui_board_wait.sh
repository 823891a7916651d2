#!/usr/bin/env bash
# The live table started before the board: the header says it waits for the port, the keys work
# while it waits (help, quit), and the table fills when the port appears.
set -euo pipefail
source "$(dirname "$0")/tui_common.bash"
command -v socat > /dev/null || { echo "SKIP: socat is not installed" >&2; exit 77; }

"$AIOPROF_SIM" -w seed --duration 5 -q -o "$TUI_WORK/part.bin"
port=$TUI_WORK/ttyLATE
tui_start 120 30 C.UTF-8 "$port"
tui_wait "waiting for $port" 10 || fail "the header does not say it waits for the port"
tui_has 'waiting for the device'
# keys are answered while it waits
tui_key '?'
tui_wait 'aioprof-top keys' 5 || fail "? did not show the help while waiting"
tui_key Escape
tui_wait "waiting for $port" 5 || fail "the help did not close"

# the board is plugged in: the table fills
printf '#!/bin/sh\ncat "%s"\nexec sleep 600\n' "$TUI_WORK/part.bin" > "$TUI_WORK/feed.sh"
chmod +x "$TUI_WORK/feed.sh"
setsid socat PTY,link="$port",raw,echo=0 EXEC:"$TUI_WORK/feed.sh" 2> "$TUI_WORK/socat.log" &
socat_pid=$!
trap 'kill -- -$socat_pid 2>/dev/null; tui_cleanup' EXIT
tui_wait '^slow ' 20 || fail "no rows once the port appeared"
tui_has 'connected'
tui_lacks 'waiting for the device'

# and q still quits, with 0, while it waits for nothing
tui_key q
tui_wait 'EXIT=0' 10 || fail "q did not end the program with 0"

# q while waiting: exit 0 as well (tui_start gives it a terminal of its own)
tui_start 100 24 C "$TUI_WORK/ttyNEVER"
tui_wait "waiting for" 10 || fail "no waiting header in ASCII"
tui_key q
tui_wait 'EXIT=0' 10 || fail "q while waiting did not end the program with 0"
echo "ok: tui_board_wait"
