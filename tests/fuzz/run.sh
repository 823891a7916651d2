#!/usr/bin/env bash
# Runs every libFuzzer target of a fuzz build, SECONDS in all, shared equally (run by `make fuzz`).
# The seed corpus is made now, from the simulator of the same tree when it is built, plus the
# golden vectors; the corpus the fuzzer grows is kept in BUILD/fuzz-corpus/ for the next run.
# A crash leaves its input in BUILD/fuzz-artifacts/ and makes this script fail; once mended, the
# input goes to tests/fuzz/found/ (a seed of every run after).
#
# Usage: tests/fuzz/run.sh FUZZ_BUILD_DIR [SECONDS]   (default 120)
set -euo pipefail

build=$(cd "${1:?usage: tests/fuzz/run.sh FUZZ_BUILD_DIR [SECONDS]}" && pwd)
total=${2:-120}
src=$(cd "$(dirname "$0")/../.." && pwd)
list=$build/tests/fuzz/fuzz_targets.txt
if [ ! -f "$list" ]; then
    echo "fuzz: $build was not configured with -DAIOPROF_FUZZ=ON (make fuzz does that)" >&2
    exit 1
fi
read -r -a targets <<< "$(tr ';' ' ' < "$list")"
# the budget is for the whole run, so that a new target does not make CI longer
seconds=$(( total / ${#targets[@]} ))
[ "$seconds" -ge 1 ] || seconds=1

seeds=$build/fuzz-seeds
rm -rf "$seeds"
mkdir -p "$seeds" "$build/fuzz-artifacts"

# Small captures of every workload: valid frames, text, drops, a tick counter about to wrap. The
# fuzzer reads the first two bytes of an input as its chunking choice, so each seed starts with two.
# The simulator of a fuzz tree is sanitized too; its leaks are not what this run is about.
sim_bin=$build/device/sim/aioprof-sim
sim() { ASAN_OPTIONS=detect_leaks=0 "$sim_bin" "$@"; }
add_seed() { { printf '\x05\x2a'; cat; } > "$seeds/$1"; }
if [ -x "$sim_bin" ]; then
    names=$(sim --help 2>/dev/null | grep -- '--workload' | sed -e 's/.*--workload NAME//' -e 's/(default.*//' | tr ',|' '  ')
    for w in $names; do
        [ "$w" = or ] && continue
        sim -w "$w" --events 300 -q 2>/dev/null | head -c 8192 | add_seed "sim-$w" || true
    done
    sim --events 200 --text=3 --hostile-text -q 2>/dev/null | head -c 8192 | add_seed sim-hostile || true
    sim --events 200 --tick-bits 32 --start-tick 4294960000 -q 2>/dev/null | head -c 8192 | add_seed sim-wrap || true
    sim -w busy --events 400 --ring 256 --baud 9600 -q 2>/dev/null | head -c 8192 | add_seed sim-drops || true
else
    echo "fuzz: no simulator in $build: starting from the golden vectors only"
fi
# Every "bytes:" block of the golden vectors (hex, up to the next "decoded:") is a seed too.
if [ -f "$src/tests/golden/vectors.txt" ] && command -v python3 >/dev/null; then
    python3 - "$src/tests/golden/vectors.txt" "$seeds" <<'PY' || echo "fuzz: could not read the golden vectors"
import re, sys
name, hexes, out = None, None, []
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    line = line.rstrip("\n")
    if line.startswith("== "):
        name = re.sub(r"[^A-Za-z0-9_.-]+", "-", line[3:].strip())
    elif line == "bytes:":
        hexes = []
    elif hexes is not None and re.fullmatch(r"[0-9a-fA-F]{2}( [0-9a-fA-F]{2})*", line.strip()):
        hexes.append(line)
    elif hexes is not None:
        out.append((name, bytes.fromhex(" ".join(hexes))))
        hexes = None
for i, (n, data) in enumerate(out):
    with open("%s/golden-%03d-%s" % (sys.argv[2], i, n), "wb") as f:
        f.write(b"\x05\x2a" + data)
PY
fi
# Recordings (docs/recording.md) of some of those captures, for the recording reader: chunks as
# reads return them, a link down and up, an END; and two of them concatenated.
python3 - "$seeds" <<'PY' || echo "fuzz: could not make recording seeds"
import glob, os, random, struct, sys
def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)
def recording(raw, rng):
    meta = b'{"format":"aioprof recording","tool":"fuzz seeds"}'
    out = bytearray(b"\x89AIOPREC" + struct.pack("<HI", 1, len(meta)) + meta)
    us, pos = 0, 0
    while pos < len(raw):
        piece = raw[pos:pos + rng.randrange(1, 700)]
        out += bytes([1]) + varint(us) + varint(len(piece)) + piece
        pos += len(piece)
        us += rng.randrange(0, 20000)
        if rng.randrange(8) == 0:
            out += bytes([2]) + varint(us) + varint(0) + bytes([3]) + varint(us + 5000) + varint(0)
            us += 5000
    return bytes(out + bytes([4]) + varint(us) + varint(0))
rng = random.Random(3)
made = []
for path in sorted(glob.glob(sys.argv[1] + "/sim-*"))[:4]:
    raw = open(path, "rb").read()[2:][:3000]
    made.append(recording(raw, rng))
    open(path.replace("/sim-", "/rec-"), "wb").write(b"\x05\x2a" + made[-1])
if len(made) >= 2:
    open(sys.argv[1] + "/rec-concatenated", "wb").write(b"\x05\x2a" + made[0][:1500] + made[1][:2000])
PY
find "$seeds" -size 2c -delete   # a simulator that printed nothing
# fuzz_trace reads an odd second byte as "an observer not told of every event" (the events
# stage's pairs path): a few seeds with that prefix too
for f in "$seeds"/sim-busy "$seeds"/sim-nested "$seeds"/sim-hostile; do
    [ -s "$f" ] && { printf '\x05\x2b'; tail -c +3 "$f"; } > "$f-pairs"
done
# Inputs that once failed (tests/fuzz/found/, named target-what): seeds of every target, so that
# each run starts by trying them again.
cp "$src"/tests/fuzz/found/* "$seeds"/ 2>/dev/null || true
echo "fuzz: $(find "$seeds" -type f | wc -l) seed inputs"

status=0
for t in "${targets[@]}"; do
    corpus=$build/fuzz-corpus/$t
    mkdir -p "$corpus"
    echo "fuzz: $t for ${seconds}s ..."
    # The fuzzer's progress lines go to a log; the end of it is shown either way.
    # A smaller quarantine than ASan's 256 MB: an input allocates far less than 16 MB, so a use
    # after free within it is still caught, but freed memory is reused within the run instead of
    # every input faulting in fresh pages, which took most of fuzz_pipeline's time.
    if ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=16} \
            "$build/tests/fuzz/$t" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
            -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$t-" "$corpus" "$seeds" \
            > "$build/fuzz-$t.log" 2>&1; then
        runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$build/fuzz-$t.log" | grep -oE '[0-9]+$' || echo '?')
        echo "fuzz: $t: ok, $runs inputs in ${seconds}s ($(( ${runs/\?/0} / seconds )) a second)," \
            "corpus $(find "$corpus" -type f | wc -l) files"
    else
        echo "fuzz: $t: FAILED (log: $build/fuzz-$t.log; input saved in $build/fuzz-artifacts/)" >&2
        grep -E 'ERROR|SUMMARY|check failed|Test unit written' "$build/fuzz-$t.log" | head -20 >&2 || true
        # where it happened: the stack's frames in our own code (not the fuzzer's or libc's)
        grep -E '^ +#[0-9]+ .* in [A-Za-z_].* '"$src"'/' "$build/fuzz-$t.log" | head -12 >&2 || true
        status=1
    fi
done
exit $status
