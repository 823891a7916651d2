#!/usr/bin/env bash
# --install's refusals, each one sentence and exit 1, on boards that are not what it needs
# (tests/e2e/fake_board.py plays them on a pty): a MicroPython older than 1.21, CircuitPython, an
# answer without sys.implementation, a port where no raw REPL answers; a port that another
# aioprof-top holds; a port that is not there. And the usage errors of the new options.
set -euo pipefail
source "$(dirname "$0")/io_common.bash"

fake() { # NAME KIND: a fake board at $WORK/NAME
    python3 "$IO_HERE/fake_board.py" "$WORK/$1" "$2" 2>> "$WORK/fake.log" &
    IO_PIDS+=($!)
    wait_until test -L "$WORK/$1" || fail "no fake board at $WORK/$1: $(cat "$WORK/fake.log")"
}
refused() { # NAME PATTERN ARGS...: aioprof-top ARGS exits 1 with one line matching PATTERN
    local name=$1 pattern=$2 rc=0
    shift 2
    timeout 60 "$TOP" "$@" > "$WORK/$name.out" 2> "$WORK/$name.err" || rc=$?
    [ $rc = 1 ] || fail "$name: exit $rc, not 1: $(cat "$WORK/$name.err")"
    grep -qE "$pattern" "$WORK/$name.err" || fail "$name: not said: $(cat "$WORK/$name.err")"
    [ "$(grep -c . "$WORK/$name.err")" -le 2 ] || fail "$name: more than a sentence: $(cat "$WORK/$name.err")"
    echo "$name: $(tail -1 "$WORK/$name.err")"
}

fake old old
refused old "runs MicroPython 1\.20\.0; aioprof needs 1\.21 or later" --install "$WORK/old"
fake circuit circuit
refused circuit "runs circuitpython, not MicroPython" --install "$WORK/circuit"
fake garbled garbled
refused garbled "not as a MicroPython does" --install "$WORK/garbled"
refused garbled-un "not as a MicroPython does" --uninstall "$WORK/garbled"
fake mute mute
refused mute "mute: not a MicroPython REPL: no answer to Ctrl-C and Ctrl-A" --install "$WORK/mute"
refused absent "No such file|does not exist|no such" --install "$WORK/absent"

# busy: another aioprof-top reads the port
fake held old
"$TOP" "$WORK/held" --verbose --json > /dev/null 2> "$WORK/holder.err" &
holder=$!
IO_PIDS+=("$holder")
wait_for_text "$WORK/holder.err" "opened $WORK/held" || fail "the holder did not open the port: $(cat "$WORK/holder.err")"
refused busy "busy|in use|another|locked" --install "$WORK/held"
kill -INT "$holder" 2> /dev/null || true

# usage errors: exit 2
for args in "--install --uninstall" "--install --demo" "--uninstall --run x.py" "--no-enable" "--in-ram" \
    "--in-ram --install --run x.py" "--install -r x.aiop"; do
    rc=0
    # shellcheck disable=SC2086 # the options are words
    "$TOP" $args > /dev/null 2> "$WORK/usage.err" || rc=$?
    [ $rc = 2 ] || fail "'$args': exit $rc, not 2: $(cat "$WORK/usage.err")"
done
echo "board_install_errors: all checks passed"
