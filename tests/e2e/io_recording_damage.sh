#!/usr/bin/env bash
# One damaged byte in a recording (-w) does not end its replay: the reader goes on at the next
# intact chunk. A byte flipped, deleted or inserted at 10 %, 25 %, 50 % and 90 % of a recording,
# and in chunk headers (the END chunk's too): the replay reads nearly all of the port's bytes, its
# figures are the simulator's truth or marked lower bounds never above it, and the damage is said
# once. Also: the pace of a replay survives a recorded time far in the future (a cast that would
# overflow).
source "$(dirname "$0")/truth_common.bash"

"$SIM" -w instances --duration 20 --text 7 -q -o "$tmp/raw.bin" --truth "$tmp/truth.json" \
    || { echo "FAIL simulator"; exit 1; }

# A recording of the capture, written by an independent writer of docs/recording.md (chunks of 1
# to 4096 bytes, as reads return them, with increasing times, then END), and its damaged copies:
# a byte flipped (a random bit), deleted or inserted at 10, 25, 50 and 90 % of the file, and in
# chunk headers (the type, a time byte, the length byte of a chunk at a quarter and at the middle,
# and the END chunk's type). One name a line in $tmp/names.
python3 - "$tmp" <<'PY'
import json, random, struct, sys
tmp = sys.argv[1]
def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)
raw = open(tmp + "/raw.bin", "rb").read()
rng = random.Random(1)
meta = json.dumps({"format": "aioprof recording", "tool": "io_recording_damage", "source": "sim"}).encode()
rec = bytearray(b"\x89AIOPREC" + struct.pack("<HI", 1, len(meta)) + meta)
heads, us, pos = [], 1000, 0
while pos < len(raw):
    piece = raw[pos:pos + rng.randrange(1, 4097)]
    heads.append(len(rec))
    rec += bytes([1]) + varint(us) + varint(len(piece)) + piece
    pos += len(piece)
    us += rng.randrange(0, 5000)
heads.append(len(rec))
rec += bytes([4]) + varint(us) + varint(0)
open(tmp + "/rec.aiop", "wb").write(rec)
n = len(heads)
places = [("%d%%" % pct, len(rec) * pct // 100) for pct in (10, 25, 50, 90)]
places += [("type%d" % heads[n // 4], heads[n // 4]), ("time%d" % heads[n // 4], heads[n // 4] + 1),
           ("length%d" % heads[n // 2], heads[n // 2] + 4), ("end%d" % heads[-1], heads[-1])]
names = ["rec"]
for label, at in places:
    for how in ("flip", "delete", "insert"):
        r = random.Random(at)
        data = bytearray(rec)
        if how == "flip":
            data[at] ^= 1 << r.randrange(8)
        elif how == "delete":
            del data[at]
        else:
            data[at:at] = bytes([r.randrange(256)])
        names.append("%s-%s" % (how, label))
        open("%s/%s.aiop" % (tmp, names[-1]), "wb").write(data)
open(tmp + "/names", "w").write("\n".join(names) + "\n")
PY

while read -r name; do
    rc=0
    timeout 60 "$TOP" -r "$tmp/$name.aiop" --json > "$tmp/$name.json" 2> "$tmp/$name.err" || rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL $name: aioprof-top exited $rc: $(grep -v '^device:' "$tmp/$name.err" | head -3)"
        status=1
    elif [ "$(grep -c 'is damaged at byte' "$tmp/$name.err")" -gt 1 ]; then
        echo "FAIL $name: the damage was said more than once"
        status=1
    fi
done < "$tmp/names"
grep -q "is damaged at byte" "$tmp/delete-50%.err" || { echo "FAIL delete-50%: the damage was not said"; status=1; }

# Against the truth: nothing above it, what is below it marked, and one damaged byte costs at most
# the frames around it, never the rest of the file.
python3 - "$tmp" "$(stat -c %s "$tmp/raw.bin")" <<'PY' || status=1
import json, os, sys
tmp, size = sys.argv[1], int(sys.argv[2])
tru = json.load(open(tmp + "/truth.json"))
truth = sum(t["count"] for t in tru["tasks"])
names = {t["name"] for t in tru["tasks"]}
failed = 0
for name in open(tmp + "/names").read().split():
    if not os.path.getsize("%s/%s.json" % (tmp, name)):
        continue  # said above: it did not run to its end
    rep = json.load(open("%s/%s.json" % (tmp, name)))
    problems = []
    tasks = {t["name"]: t for t in rep["tasks"]}
    for t in tru["tasks"]:
        r = tasks.get(t["name"])
        if r is None:
            continue
        for k in ("count", "total_us", "max_us", "slow", "errors"):
            if r[k] > t[k]:
                problems.append(f"{t['name']}: {k} {r[k]} above the truth {t[k]}")
        if (r["count"] < t["count"] or r["total_us"] < t["total_us"]) and not r["lower_bound"]:
            problems.append(f"{t['name']}: below the truth but not marked lower_bound")
    for n, r in tasks.items():
        if n not in names and r["count"] > 0 and r.get("kind") not in ("instance", "unnamed"):
            problems.append(f"name {n!r} is not in the truth")
    counted = sum(r["count"] for r in rep["tasks"])
    read = rep["stream"]["bytes"] / size
    if read < 0.99:
        problems.append(f"read only {read:.1%} of the port's bytes")
    if counted < 0.99 * truth:
        problems.append(f"counted only {counted} of {truth} slices")
    if name == "rec" and (counted != truth or read != 1):
        problems.append("the intact recording does not replay to the truth")
    for p in problems:
        print(f"FAIL {name}: {p}")
    failed += bool(problems)
    print(f"{'ok  ' if not problems else 'FAIL'} {name}: read {read:.2%} of the bytes, {counted} of {truth} slices, "
          f"{rep['stream']['crc_errors']} CRC errors, {rep['stream']['lost_frames']} lost frames")
sys.exit(1 if failed else 0)
PY

# A time far in the future, paced at the slowest speed: --duration still ends it, without a cast
# out of range (the sanitized build traps one).
python3 - "$tmp/far.aiop" <<'PY'
import struct, sys
def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)
meta = b'{"format":"aioprof recording"}'
out = b"\x89AIOPREC" + struct.pack("<HI", 1, len(meta)) + meta
out += bytes([1]) + varint(0) + varint(1) + b"\0"
out += bytes([1]) + varint(2**63) + varint(1) + b"\0"
out += bytes([4]) + varint(2**63) + varint(0)
open(sys.argv[1], "wb").write(out)
PY
if timeout 60 "$TOP" -r "$tmp/far.aiop" --speed 0.001 --duration 0.5 --json > /dev/null 2> "$tmp/far.err"; then
    echo "ok   a time far in the future, paced"
else
    echo "FAIL a time far in the future, paced: $(cat "$tmp/far.err")"
    status=1
fi
exit $status
