#!/usr/bin/env bash
# Damaged captures: bits flipped, bytes deleted, garbage inserted (seeded, so reproducible).
# aioprof-top must not crash, must count the damage, must never count more than the truth, and
# must lose no more slices than the damaged frames could hold.
source "$(dirname "$0")/truth_common.bash"

"$SIM" -w instances --duration 20 --text 7 -q -o "$tmp/clean.aiop" --truth "$tmp/truth.json" || { echo "FAIL simulator"; exit 1; }
"$SIM" -w nested --duration 10 --tick-bits 32 -q -o "$tmp/nclean.aiop" --truth "$tmp/ntruth.json" || { echo "FAIL simulator"; exit 1; }

damage() { # in, out, how, seed
    python3 - "$@" <<'PY'
import random, sys
src, dst, how, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rng = random.Random(seed)
data = bytearray(open(src, "rb").read())
n = len(data)
for _ in range(25):
    at = rng.randrange(n // 20, len(data) - 1)
    if how == "flip":
        data[at] ^= 1 << rng.randrange(8)
    elif how == "delete":
        del data[at:at + rng.randrange(1, 40)]
    elif how == "insert":
        data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 60)))
    elif how == "zeros":
        data[at:at] = b"\x00" * rng.randrange(1, 5)
open(dst, "wb").write(data)
PY
}

for src in clean nclean; do
    truth=$tmp/truth.json
    [ "$src" = nclean ] && truth=$tmp/ntruth.json
    for how in flip delete insert zeros; do
        for seed in 1 2 3; do
            name=$src-$how-$seed
            damage "$tmp/$src.aiop" "$tmp/$name.aiop" "$how" "$seed"
            "$TOP" -r "$tmp/$name.aiop" --json > "$tmp/$name.json" 2> "$tmp/$name.err"
            rc=$?
            if [ $rc -ge 128 ] || [ $rc -ne 0 ]; then
                echo "FAIL $name: aioprof-top exited with $rc"; sed -n 1,3p "$tmp/$name.err"; status=1; continue
            fi
            "$TOP" -r "$tmp/$name.aiop" --report --instances > /dev/null 2>&1
            rc=$?
            if [ $rc -ne 0 ]; then
                echo "FAIL $name: the text report exited with $rc"; status=1; continue
            fi
            if python3 "$here/truth_compare.py" "$tmp/$name.json" "$truth" damaged "$tmp/$src.aiop"; then
                echo "ok   $name"
            else
                echo "FAIL $name"; status=1
            fi
        done
    done
done
# joined late: the first 30 % of a capture is missing (no HELLO, no TASK_NEW for the tasks running
# then): names must come from the announcements, within 17 s of the join (a running task's name
# goes again every sixteen periods: docs/protocol.md section 5), and the slices a task ran before
# its name came move to it. 40 s captures: what stays unnamed is the tasks that ended sooner.
"$SIM" -w instances --duration 40 --text 7 -q -o "$tmp/long.aiop" --truth "$tmp/ltruth.json" || { echo "FAIL simulator"; exit 1; }
"$SIM" -w nested --duration 40 --tick-bits 32 -q -o "$tmp/nlong.aiop" --truth "$tmp/nltruth.json" || { echo "FAIL simulator"; exit 1; }
for src in long nlong; do
    truth=$tmp/ltruth.json
    [ "$src" = nlong ] && truth=$tmp/nltruth.json
    size=$(wc -c < "$tmp/$src.aiop")
    tail -c $((size * 7 / 10)) "$tmp/$src.aiop" > "$tmp/$src-late.aiop"
    if "$TOP" -r "$tmp/$src-late.aiop" --json > "$tmp/$src-late.json" 2>/dev/null &&
        python3 "$here/truth_compare.py" "$tmp/$src-late.json" "$truth" late:0.3; then
        echo "ok   $src-late"
    else
        echo "FAIL $src-late"; status=1
    fi
done
# a capture cut in the middle of a frame, and pure garbage
head -c 54321 "$tmp/clean.aiop" > "$tmp/cut.aiop"
"$TOP" -r "$tmp/cut.aiop" --json > "$tmp/cut.json" 2>/dev/null || { echo "FAIL cut: exit $?"; status=1; }
head -c 100000 /dev/urandom > "$tmp/garbage.aiop"
"$TOP" -r "$tmp/garbage.aiop" --json > "$tmp/garbage.json" 2>/dev/null
rc=$?
if [ $rc -ge 128 ]; then echo "FAIL garbage: crashed ($rc)"; status=1; else echo "ok   garbage (exit $rc)"; fi
exit $status
