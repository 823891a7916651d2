#!/usr/bin/env bash
# --run in the live table, on the simulator playing a board with its REPL (--demo --run): the
# program's rows come, k sends it Ctrl-C (it ends with a KeyboardInterrupt, the table stays),
# Ctrl-D soft-resets the board (its main.py runs: another workload's rows, and the statistics count
# the reset as a new epoch), q quits.
set -euo pipefail
source "$(dirname "$0")/tui_common.bash"

printf '# aioprof-sim: -w nested\nimport aioprof\naioprof.enable()\n' > "$TUI_WORK/app.py"
tui_start 140 40 C.UTF-8 --demo --workload seed --run "$TUI_WORK/app.py"
tui_wait '^outer ' 20 || fail "no row of the program's workload"
tui_wait 'app.py runs on' 5 || fail "no word of the program running"
tui_lacks '^slow '  # main.py's tasks were not profiled: the handshake took its bytes
tui_has 'resets 0'

tui_key k
tui_wait 'app.py ended with an exception' 10 || fail "k did not end the program"
tui_has '^outer '

tui_key C-d
tui_wait '^slow ' 20 || fail "no rows of main.py after the soft reset"
tui_wait 'resets 1' 10 || fail "the soft reset is not a new epoch"

tui_key q
tui_wait 'EXIT=0' 10 || fail "q did not end the program with 0"
echo "ok: tui_run"
