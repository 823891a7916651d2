#!/usr/bin/env bash
# Device text and damaged frames told apart by look (docs/protocol.md section 1).
#  - MicroPython's raw REPL (mpremote run) ends its output with EOT EOT '>': the program's last
#    print() lines share that segment and must reach the report, with no CRC error.
#  - Text with a control byte before the first delimiter is text, not skipped bytes.
#  - Every frame of every workload damaged at many places (a byte changed, deleted, inserted, the
#    frame cut) is counted: as a CRC error, or, when it passed for text, as a lost frame. Never
#    silently (tests/bench/bench_classify, which `make bench` runs at every byte).
source "$(dirname "$0")/truth_common.bash"
classify=${AIOPROF_BUILD:-build}/tests/bench/bench_classify

truth_capture seed -w seed --duration 10 --text 5 || exit 1
truth_lines=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["text_lines"])' "$tmp/seed.truth.json")

# raw REPL: the board's banner and "OK" before the first frame, the last prints and EOT EOT > after
# the last one (the frames end with 0x00, so the tail is one segment of its own)
{
    printf 'raw REPL; CTRL-B to exit\r\n>OK'
    cat "$tmp/seed.aiop"
    printf 'last print 1\r\nlast print 2\r\nlast print 3\r\nlast print 4\r\n\004\004>'
} > "$tmp/repl.aiop"
# a control byte in the boot log before the first frame
{ printf 'boot log \001 with a stray control byte\r\n'; cat "$tmp/seed.aiop"; } > "$tmp/boot.aiop"

check_text() { # NAME EXTRA_LINES WANTED_LINE...
    local name=$1 extra=$2
    shift 2
    "$TOP" -r "$tmp/$name.aiop" --json > "$tmp/$name.json" 2> "$tmp/$name.err" || { echo "FAIL $name: exit $?"; status=1; return; }
    python3 - "$tmp/$name.json" "$((truth_lines + extra))" <<'PY' || { echo "FAIL $name"; status=1; return; }
import json, sys
s = json.load(open(sys.argv[1]))["stream"]
bad = [f"{k} = {s[k]}" for k in ("crc_errors", "skipped_bytes", "lost_frames") if s[k]]
if s["text_lines"] != int(sys.argv[2]):
    bad.append(f"{s['text_lines']} text lines, not {sys.argv[2]}")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
    local line
    for line in "$@"; do
        grep -qxF "device: $line" "$tmp/$name.err" || { echo "FAIL $name: no line '$line'"; status=1; return; }
    done
    echo "ok   $name"
}
# the banner line, 4 prints, the EOT prompt (">OK" has no newline: the next print goes on its line)
check_text repl 6 'raw REPL; CTRL-B to exit' 'last print 1' 'last print 4' '\x04\x04>'
check_text boot 1 'boot log \x01 with a stray control byte'

# damaged frames: never silent, over every workload (every 5th byte of every frame, four ways)
for w in busy instances nested; do
    "$SIM" -w "$w" --duration 3 -q -o "$tmp/$w.aiop" || { echo "FAIL: the simulator"; exit 1; }
done
"$SIM" -w instances --duration 3 --tick-bits 32 -q -o "$tmp/instances32.aiop" || { echo "FAIL: the simulator"; exit 1; }
if "$classify" --check --step 5 "$tmp/seed.aiop" "$tmp/busy.aiop" "$tmp/instances.aiop" "$tmp/instances32.aiop" \
        "$tmp/nested.aiop" > "$tmp/classify.txt"; then
    grep "classify: all\|device text" "$tmp/classify.txt"
    echo "ok   damaged frames all counted"
else
    cat "$tmp/classify.txt"
    echo "FAIL damaged frames went silent"; status=1
fi
exit $status
