#!/usr/bin/env bash
# Device text interleaved with frames (print() on the same port), some of it hostile: the figures
# still equal the truth, every line is counted, and no control byte reaches the output.
source "$(dirname "$0")/truth_common.bash"

check() {
    local name=$1
    shift
    truth_capture "$name" "$@" || return
    if ! "$TOP" -r "$tmp/$name.aiop" --json > "$tmp/$name.json" 2> "$tmp/$name.err"; then
        echo "FAIL $name: aioprof-top exited with $?"; status=1; return
    fi
    "$TOP" -r "$tmp/$name.aiop" --report > "$tmp/$name.txt" 2>&1
    if python3 - "$tmp/$name.txt" "$tmp/$name.err" "$tmp/$name.json" <<'PY'
import sys
bad = 0
for path in sys.argv[1:]:
    data = open(path, "rb").read()
    for i, b in enumerate(data):
        if (b < 0x20 and b not in (0x0A, 0x09)) or b == 0x7F:
            print(f"{path}: control byte 0x{b:02X} at {i}")
            bad = 1
            break
    if b"\xc2\x9b" in data:
        print(f"{path}: a UTF-8 CSI got through")
        bad = 1
sys.exit(bad)
PY
    then :; else status=1; echo "FAIL $name: control bytes in the output"; return; fi
    if python3 "$here/truth_compare.py" "$tmp/$name.json" "$tmp/$name.truth.json" exact "$tmp/$name.aiop"; then
        echo "ok   $name"
    else
        echo "FAIL $name"; status=1
    fi
}

check seed-text -w seed --text 3 --duration 10
check busy-hostile -w busy --text 5 --hostile-text --duration 5
check instances-hostile -w instances --text 2 --hostile-text --duration 10 --tick-bits 32
exit $status
