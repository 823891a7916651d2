#!/usr/bin/env bash
# Issue 24's "Done when" on MicroPython's unix port, in all three engines: the seed example
# (tests/micropython/aio_seed.py) has sensors with three spans, render the hog, and parser, the
# task that allocates. aioprof-top's JSON report (seed_check.py): each span counted as the program
# ran it, render over the slow threshold and the largest; with the firmware engine, parser's bytes
# at least what its code allocated, and parse's span (1000 bytes a slice) its own bytes while read
# and render have none (docs/usage.md, "Memory per span"); the python and native engines report no
# memory, so none is shown. A firmware whose hook predates spans, or sends no ALLOC before span
# records (a build older than memory per span: every span reads 0 while its task allocates), is
# skipped with a sentence: rebuild it (docs/micropython.md).
#   AIOPROF_MICROPYTHON        a unix-port build with the C module (firmware engine)
#   AIOPROF_MICROPYTHON_STOCK  a unix-port build without it (python engine, native with the next)
#   AIOPROF_NATIVE_DIR         the directory of an x64 _aioprof_native.mpy (native engine)
# Skips (exit 77) without any binary.
set -u -o pipefail
name=mpy_seed_unix
source "$(dirname "$0")/mpy_engines.bash"
status=0 ran=0
for r in "${runs[@]}"; do
    engine=${r%%:*} mp=${r#*:}
    if ! "$mp" "$here/with_aioprof.py" "$engine" "$here/aio_seed.py" > "$out/$engine.bin" 2> "$out/$engine.err"; then
        echo "FAIL $engine: the program failed:"; cat "$out/$engine.err"; status=1; continue
    fi
    if ! "$top" -r "$out/$engine.bin" --json > "$out/$engine.json" 2> "$out/$engine.txt"; then
        echo "FAIL $engine: aioprof-top could not read the capture:"; cat "$out/$engine.txt"; status=1; continue
    fi
    python3 "$here/seed_check.py" "$engine" "$out/$engine.json"
    case $? in
        0) ran=$((ran + 1)) ;;
        77) ;;
        *) status=1 ;;
    esac
done
if [ $status -eq 0 ] && [ $ran -eq 0 ]; then
    echo "mpy_seed_unix: SKIPPED: no engine here could be checked (see the skip lines above)"
    exit 77
fi
exit $status
