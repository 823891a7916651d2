#!/usr/bin/env bash
# aioprof.span in MicroPython's unix port, in all three engines (tests/micropython/spans_prog.py:
# with, nested with, a decorated function, a decorated coroutine across awaits, a span a task raises
# in): aioprof-top's JSON counts every span as the program ran it, and each one's inclusive time
# lies between what the program measured inside and around it (spans_check.py). An engine built
# before spans (its firmware or .mpy predates them) is skipped with a sentence.
#   AIOPROF_MICROPYTHON        a unix-port build with the C module (firmware engine)
#   AIOPROF_MICROPYTHON_STOCK  a unix-port build without it (native and python engines)
#   AIOPROF_NATIVE_DIR         the directory of an x64 _aioprof_native.mpy (native engine)
# Skips (exit 77) without any binary, or when no engine records spans.
set -u -o pipefail
name=mpy_spans_unix
source "$(dirname "$0")/mpy_engines.bash"
status=0 ran=0
for r in "${runs[@]}"; do
    engine=${r%%:*} mp=${r#*:}
    if ! "$mp" "$here/spans_prog.py" "$engine" > "$out/$engine.bin" 2> "$out/$engine.txt"; then
        echo "FAIL $engine: the program failed:"; cat "$out/$engine.txt"; status=1; continue
    fi
    if grep -q '^NO SPANS' "$out/$engine.txt"; then
        echo "skip $engine: $(grep '^NO SPANS' "$out/$engine.txt" | cut -d: -f2-) (rebuild it: docs/micropython.md)"
        continue
    fi
    ran=$((ran + 1))
    if ! "$top" -r "$out/$engine.bin" --json > "$out/$engine.json"; then
        echo "FAIL $engine: aioprof-top could not read the capture"; status=1; continue
    fi
    python3 "$here/spans_check.py" "$out/$engine.json" "$out/$engine.txt" "$engine" || status=1
done
if [ $status -eq 0 ] && [ $ran -eq 0 ]; then
    echo "mpy_spans_unix: SKIPPED: no engine here records spans (builds from before them)"
    exit 77
fi
exit $status
