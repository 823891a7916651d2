#!/usr/bin/env bash
# Stretches of the stream that arrive twice (a capture spliced with an overlap, a serial link or a
# tool that repeats data): d[:cut] + d[from:] with from < cut, at several places of every workload,
# inside frames and at their edges, a few bytes to many frames back. The repeated frames are skipped
# and counted (exactly those that came twice intact); every figure is the truth's, or below it and
# marked; the only frames counted lost are those the splice left without an intact copy
# (tests/e2e/wire.py finds both).
source "$(dirname "$0")/truth_common.bash"

splice() { # IN OUT CUT FROM [CUT2 FROM2]: d[:cut] + d[from:] (and again at cut2 of the result)
    python3 - "$@" <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
cuts = [int(x) for x in sys.argv[3:]]
for cut, frm in zip(cuts[0::2], cuts[1::2]):
    d = d[:cut] + d[frm:]
open(sys.argv[2], "wb").write(d)
PY
}

check() { # NAME CAPTURE CUT FROM [CUT2 FROM2]
    local name=$1 src=$2
    shift 2
    splice "$tmp/$src.aiop" "$tmp/$name.aiop" "$@"
    if ! "$TOP" -r "$tmp/$name.aiop" --json > "$tmp/$name.json" 2> "$tmp/$name.err"; then
        echo "FAIL $name: aioprof-top exited with $?"; status=1; return
    fi
    counts=$(python3 - "$tmp/$src.aiop" "$tmp/$name.aiop" <<PY
import sys
sys.path.insert(0, "$here")
from wire import frame_body
frames = lambda d: [seg for seg in d.split(b"\\0") if seg and frame_body(seg) is not None]
orig, spliced = (frames(open(p, "rb").read()) for p in sys.argv[1:3])
print("%d:%d" % (len(set(orig) - set(spliced)), len(spliced) - len(set(spliced))))
PY
)
    if python3 "$here/truth_compare.py" "$tmp/$name.json" "$tmp/$src.truth.json" "repeated:$counts"; then
        echo "ok   $name"
    else
        echo "FAIL $name"; status=1
    fi
}

truth_capture seed -w seed --duration 30 || exit 1
truth_capture busy -w busy --duration 2 || exit 1
truth_capture instances -w instances --duration 6 --tick-bits 32 || exit 1
truth_capture nested -w nested --duration 5 || exit 1

check seed-issue seed 2000 1000            # the issue's case: d[:2000] + d[1000:]
check seed-late seed 3500 1200 3800 3700
for w in busy instances nested; do
    size=$(stat -c %s "$tmp/$w.aiop")
    check "$w-short" "$w" $((size * 3 / 10)) $((size * 3 / 10 - 37))
    check "$w-long" "$w" $((size * 6 / 10)) $((size * 6 / 10 - 9000))
    check "$w-twice" "$w" $((size / 4)) $((size / 4 - 3000)) $((size * 3 / 4)) $((size * 3 / 4 - 500))
done
exit $status
