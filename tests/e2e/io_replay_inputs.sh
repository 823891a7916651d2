#!/usr/bin/env bash
# What --replay reads besides a plain recording:
#   - two recordings concatenated (cat a b): read as one session with a gap between them, their
#     figures adding up; bytes after the end that are not a recording: counted, said, ignored;
#   - a raw capture with more than 64 KiB of device text before its first frame (a long boot log);
#   - a FIFO: open() does not wait for a writer; a late writer is read, one that never comes ends
#     with --duration, or with Ctrl-C (the normal exit, no "Interrupted system call");
#   - standard input, "-r -": a raw capture or a recording piped in.
set -euo pipefail
source "$(dirname "$0")/io_common.bash"

# figures A.json B.json...: per task name, count and total summed over the reports, max the max
figures() {
    python3 - "$@" <<'PY'
import json, sys
out = {}
for path in sys.argv[1:]:
    for t in json.load(open(path))["tasks"]:
        c, tot, mx = out.get(t["name"], (0, 0, 0))
        out[t["name"]] = (c + t["count"], tot + t["total_us"], max(mx, t["max_us"]))
print(json.dumps(sorted(out.items())))
PY
}
# recording RAW OUT SEED: RAW wrapped as a recording by an independent writer of docs/recording.md
recording() {
    python3 - "$@" <<'PY'
import json, random, struct, sys
def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)
raw = open(sys.argv[1], "rb").read()
rng = random.Random(int(sys.argv[3]))
meta = json.dumps({"format": "aioprof recording", "source": sys.argv[1]}).encode()
rec = bytearray(b"\x89AIOPREC" + struct.pack("<HI", 1, len(meta)) + meta)
us, pos = 500, 0
while pos < len(raw):
    piece = raw[pos:pos + rng.randrange(1, 4097)]
    rec += bytes([1]) + varint(us) + varint(len(piece)) + piece
    pos += len(piece)
    us += rng.randrange(0, 3000)
rec += bytes([4]) + varint(us) + varint(0)
open(sys.argv[2], "wb").write(rec)
PY
}
replay() { # replay NAME ARGS...: --json of aioprof-top ARGS into $WORK/NAME.json, stderr into .err
    local name=$1
    shift
    timeout 60 "$TOP" "$@" --json > "$WORK/$name.json" 2> "$WORK/$name.err" < /dev/null \
        || fail "aioprof-top $* exited $?: $(grep -v '^device:' "$WORK/$name.err" | head -3)"
}

"$SIM" -w instances --duration 10 --text 9 -q -o "$WORK/a.bin"
"$SIM" -w nested --duration 10 -q -o "$WORK/b.bin"
recording "$WORK/a.bin" "$WORK/a.aiop" 1
recording "$WORK/b.bin" "$WORK/b.aiop" 2
replay a -r "$WORK/a.aiop"
replay b -r "$WORK/b.aiop"

# 1. concatenated: both read, one gap between them, said once
cat "$WORK/a.aiop" "$WORK/b.aiop" > "$WORK/ab.aiop"
replay ab -r "$WORK/ab.aiop"
[ "$(figures "$WORK/ab.json")" = "$(figures "$WORK/a.json" "$WORK/b.json")" ] \
    || fail "the concatenated recordings' figures are not those of both: $(figures "$WORK/ab.json")"
[ "$(json "$WORK/ab.json" 'j["stream"]["bytes"]')" = $(( $(stat -c %s "$WORK/a.bin") + $(stat -c %s "$WORK/b.bin") )) ] \
    || fail "the concatenated recordings' bytes were not all read"
[ "$(json "$WORK/ab.json" 'j["stream"]["reconnects"]')" = 1 ] || fail "no gap between the recordings"
grep -q "another recording follows at byte $(stat -c %s "$WORK/a.aiop"); read on" "$WORK/ab.err" \
    || fail "the second recording was not said: $(grep -v '^device:' "$WORK/ab.err")"

# 2. garbage after the end: the same figures as without it, and the bytes counted in one note
{ cat "$WORK/a.aiop"; head -c 777 "$WORK/b.bin"; } > "$WORK/ag.aiop"
replay ag -r "$WORK/ag.aiop"
[ "$(figures "$WORK/ag.json")" = "$(figures "$WORK/a.json")" ] || fail "garbage after the end changed the figures"
grep -q "ag.aiop: 777 bytes after the end of the recording (from byte $(stat -c %s "$WORK/a.aiop")) ignored" \
    "$WORK/ag.err" || fail "the bytes after the end were not said: $(grep -v '^device:' "$WORK/ag.err")"

# 3. 200 KiB of device text before the first frame: accepted, every line counted, the same figures
python3 -c 'import sys; sys.stdout.write("".join("boot log line %06d: " % i + "x" * 40 + "\n" for i in range(3500)))' \
    > "$WORK/boot.txt"
[ "$(stat -c %s "$WORK/boot.txt")" -gt $((128 * 1024)) ] || fail "the boot log is too short to test anything"
cat "$WORK/boot.txt" "$WORK/a.bin" > "$WORK/boot.bin"
replay rawa -r "$WORK/a.bin"
replay boot -r "$WORK/boot.bin"
[ "$(figures "$WORK/boot.json")" = "$(figures "$WORK/rawa.json")" ] || fail "the boot log changed the figures"
[ "$(json "$WORK/boot.json" 'j["stream"]["text_lines"]')" = $(( 3500 + $(json "$WORK/rawa.json" 'j["stream"]["text_lines"]') )) ] \
    || fail "the boot log's lines were not all counted"

# 4. standard input: a raw capture and a recording piped in read as from their files
"$TOP" -r - --json < "$WORK/a.bin" > "$WORK/stdin-raw.json" 2> /dev/null || fail "-r - on a raw capture failed"
[ "$(figures "$WORK/stdin-raw.json")" = "$(figures "$WORK/rawa.json")" ] || fail "-r - read a raw capture differently"
cat "$WORK/a.aiop" | "$TOP" -r - --json > "$WORK/stdin-rec.json" 2> /dev/null || fail "-r - on a recording failed"
[ "$(figures "$WORK/stdin-rec.json")" = "$(figures "$WORK/a.json")" ] || fail "-r - read a recording differently"
# ... and what is neither (empty, another version, a header cut off) fails as the same bytes in a
# file do: exit 1, the same sentence, nothing on stdout, no trace left behind
printf '' > "$WORK/bad-empty"
printf '\x89AIOPREC\x02\x00\x00\x00\x00\x00' > "$WORK/bad-version"
printf '\x89AIOPREC\x01\x00' > "$WORK/bad-cut"
for bad in empty version cut; do
    for view in --json --report --json-lines; do
        for how in file pipe; do
            rc=0
            if [ $how = file ]; then
                arg=$WORK/bad-$bad
                "$TOP" -r "$arg" $view --export-trace "$WORK/bad.json" > "$WORK/bad.out" 2> "$WORK/bad.err" || rc=$?
            else
                arg=-
                cat "$WORK/bad-$bad" | "$TOP" -r - $view --export-trace "$WORK/bad.json" > "$WORK/bad.out" 2> "$WORK/bad.err" || rc=$?
            fi
            [ "$rc" = 1 ] || fail "-r $arg ($bad) $view exited $rc: $(cat "$WORK/bad.err")"
            [ ! -s "$WORK/bad.out" ] || fail "-r $arg ($bad) $view printed: $(head -c 200 "$WORK/bad.out")"
            [ ! -e "$WORK/bad.json" ] || fail "-r $arg ($bad) $view left its trace behind"
            sed "s|$WORK/bad-$bad|standard input|" "$WORK/bad.err" > "$WORK/bad-$how.err"
        done
        cmp -s "$WORK/bad-file.err" "$WORK/bad-pipe.err" \
            || fail "$bad $view: a file said '$(cat "$WORK/bad-file.err")', a pipe '$(cat "$WORK/bad-pipe.err")'"
    done
done

# 5. a FIFO and a writer that comes late: aioprof-top is already waiting (it says so with -v)
mkfifo "$WORK/fifo"
#    (aioprof-top runs itself, not under timeout: $! is then its pid, and the cleanup's SIGTERM
#    reaches it on every exit path; wait_until bounds each wait instead)
"$TOP" -v -r "$WORK/fifo" --json > "$WORK/late.json" 2> "$WORK/late.err" &
pid=$!
IO_PIDS+=("$pid")
wait_for_text "$WORK/late.err" "reading it as its bytes come" || fail "aioprof-top did not start on the FIFO"
cat "$WORK/a.aiop" > "$WORK/fifo"
wait_until gone "$pid" || fail "aioprof-top did not end after its writer"
wait "$pid" || fail "the FIFO replay failed: $(grep -v '^device:' "$WORK/late.err")"
[ "$(figures "$WORK/late.json")" = "$(figures "$WORK/a.json")" ] || fail "the FIFO's recording read differently"

# 6. a FIFO nobody writes to: --duration ends it with an (empty) report, exit 0
rc=0
timeout 60 "$TOP" -r "$WORK/fifo" --duration 0.5 --json > "$WORK/never.json" 2> "$WORK/never.err" || rc=$?
[ "$rc" = 0 ] || fail "--duration did not end a FIFO without a writer ($rc): $(cat "$WORK/never.err")"
[ "$(json "$WORK/never.json" 'j["stream"]["bytes"]')" = 0 ] || fail "bytes from nowhere"

# 7. ... and Ctrl-C ends it the normal way: the report, exit 0, no interrupted call. The SIGINT
#    goes to aioprof-top itself: sent to a timeout --foreground around it, timeout exited 130 in 1
#    run of 30 at load 5 without aioprof-top ever getting it (it was left running on the FIFO).
"$TOP" -v -r "$WORK/fifo" --report > "$WORK/int.out" 2> "$WORK/int.err" &
pid=$!
IO_PIDS+=("$pid")
wait_for_text "$WORK/int.err" "reading it as its bytes come" || fail "aioprof-top did not start on the FIFO"
kill -INT "$pid"
wait_until gone "$pid" || fail "Ctrl-C did not end aioprof-top on a FIFO without a writer"
rc=0
wait "$pid" || rc=$?
[ "$rc" = 0 ] || fail "Ctrl-C on a FIFO without a writer exited $rc: $(cat "$WORK/int.err")"
grep -q "aioprof-top report" "$WORK/int.out" || fail "no report after Ctrl-C"
grep -qi "interrupted" "$WORK/int.err" && fail "Ctrl-C was an error: $(cat "$WORK/int.err")"
echo "io_replay_inputs: all checks passed"
