#!/usr/bin/env bash
# enable() twice is harmless (tests/micropython/enable_twice.py): --run's prologue enables aioprof
# and an app that calls enable() itself gets the same engine, with the first call's settings. In
# MicroPython's unix port, every engine the builds named have:
#   AIOPROF_MICROPYTHON_STOCK   without the C module (the python engine)
#   AIOPROF_MICROPYTHON         with it (the firmware engine, and impl="python")
# Skips (exit 77) when neither is named.
set -u
src=${AIOPROF_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
runs=()
[ -n "${AIOPROF_MICROPYTHON_STOCK:-}" ] && runs+=("$AIOPROF_MICROPYTHON_STOCK|")
[ -n "${AIOPROF_MICROPYTHON:-}" ] && runs+=("$AIOPROF_MICROPYTHON|" "$AIOPROF_MICROPYTHON|python")
if [ ${#runs[@]} -eq 0 ]; then
    echo "mpy_enable_twice: SKIPPED: set AIOPROF_MICROPYTHON_STOCK or AIOPROF_MICROPYTHON to unix-port builds (docs/micropython.md)"
    exit 77
fi
fail=0
for r in "${runs[@]}"; do
    mp=${r%%|*}
    impl=${r#*|}
    out=$(MICROPYPATH=.frozen "$mp" "$src/tests/micropython/enable_twice.py" "$src/device/micropython" $impl 2>&1)
    echo "$mp ${impl:-(default)}: $out"
    case $out in "enable_twice: ok"*) ;; *) fail=1 ;; esac
done
exit $fail
