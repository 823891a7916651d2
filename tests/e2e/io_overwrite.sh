#!/usr/bin/env bash
# Every output (-w, --export-trace, --log) is opened by one rule (host/file_out.c) that never
# removes or damages a path this run did not create: a new file is made with O_EXCL; --force
# empties an existing regular file named as itself and nothing else (a link to a file, a link to
# nothing are refused, untouched); a character device or a FIFO with a reader is written as it is,
# force or not; no output is the input or another output by any of its names (the same path,
# ./path, a hard link); a write that fails leaves a file that was there, and removes one this run
# made that got nothing. (Device nodes: io_overwrite_node.sh; a full file system:
# io_full_disk.sh; both need root.)
set -euo pipefail
source "$(dirname "$0")/io_common.bash"

"$SIM" -w busy --events 4000 -q -o "$WORK/raw.bin"
"$SIM" -w seed --duration 5 --text 5 -q -o "$WORK/text.bin" # device text, for --log

# run CODE PATTERN ARGS...: aioprof-top must exit with CODE, and say PATTERN (when not empty).
# A timeout stands for the hang of an open() on a FIFO nobody reads.
run() {
    local code=$1 pattern=$2 rc=0
    shift 2
    timeout 60 "$TOP" "$@" > "$WORK/out" 2> "$WORK/err" < /dev/null || rc=$?
    [ "$rc" = "$code" ] || fail "aioprof-top $* exited $rc, expected $code; stderr: $(cat "$WORK/err")"
    [ -z "$pattern" ] || grep -qE -- "$pattern" "$WORK/err" || fail "aioprof-top $* said '$(cat "$WORK/err")', expected /$pattern/"
}
# limited ARGS...: aioprof-top with a file size limit of 0, so that its first write to a file fails.
# Its output goes through pipes to unlimited cats (the limit would stop writes to files there too).
limited() {
    local rc=0
    { bash -c 'ulimit -f 0; exec "$@"' limit timeout 60 "$TOP" "$@" < /dev/null 2>&1 1>&3 3>&- \
        | cat > "$WORK/err"; } 3>&1 | cat > "$WORK/out" || rc=$?
    echo "$rc"
}

# fifo_reader FIFO OUT: a reader of FIFO into OUT that has the FIFO open when this returns (its pid
# in $reader); it reads until the writer that comes closes it
fifo_reader() {
    rm -f "$2.ready"
    python3 - "$1" "$2" <<'PY' &
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)  # does not wait for a writer
open(sys.argv[2] + ".ready", "w").close()
got, end = b"", time.time() + 60
while time.time() < end:
    try:
        data = os.read(fd, 65536)
    except BlockingIOError:
        data = None
    if data:
        got += data
    elif data == b"" and got:
        break  # the writer closed it
    else:
        time.sleep(0.01)  # no writer yet, or nothing for now
open(sys.argv[2], "wb").write(got)
PY
    reader=$!
    IO_PIDS+=("$reader")
    wait_until test -e "$2.ready" || fail "the FIFO's reader did not start"
}

# 1. --force overwrites a regular file, which stays a regular file holding the new trace
echo old > "$WORK/t.json"
run 1 "exists; add --force" -r "$WORK/raw.bin" --report --export-trace "$WORK/t.json"
[ "$(cat "$WORK/t.json")" = old ] || fail "--export-trace without --force changed the file"
run 0 "" -r "$WORK/raw.bin" --report --export-trace "$WORK/t.json" --force
python3 -c 'import json,sys; json.load(open(sys.argv[1]))["traceEvents"]' "$WORK/t.json" \
    || fail "--force did not write a trace"

# 2. the first write fails on a file that was there (--force): the file stays; the run fails
pty_start "$WORK/ttyK" "$WORK/raw.bin"
for opt in --export-trace -w --log; do
    echo old > "$WORK/kept"
    case $opt in
        -w) rc=$(limited "$WORK/ttyK" --report --duration 5 -w "$WORK/kept" --force) ;;
        --log) rc=$(limited -r "$WORK/text.bin" --report --log "$WORK/kept" --force) ;;
        *) rc=$(limited -r "$WORK/raw.bin" --report --export-trace "$WORK/kept" --force) ;;
    esac
    [ "$rc" = 1 ] || fail "$opt onto a file it cannot write exited $rc: $(cat "$WORK/err")"
    grep -qE "(cannot write the (trace|recording)|writing the log) $WORK/kept:? (failed: )?File too large" "$WORK/err" \
        || fail "$opt: the write error was not said: $(cat "$WORK/err")"
    [ -f "$WORK/kept" ] || fail "$opt removed $WORK/kept, a file this run did not create"
done

# 3. the first write fails on a file this run made: it is removed (it holds nothing)
rc=$(limited -r "$WORK/raw.bin" --report --export-trace "$WORK/new.json")
[ "$rc" = 1 ] || fail "--export-trace onto a file it cannot write exited $rc"
[ ! -e "$WORK/new.json" ] || fail "the empty trace this run made was left behind"
rc=$(limited "$WORK/ttyK" --report --duration 5 -w "$WORK/new.aiop")
[ "$rc" = 1 ] || fail "-w onto a file it cannot write exited $rc"
[ ! -e "$WORK/new.aiop" ] || fail "the empty recording this run made was left behind"
rc=$(limited -r "$WORK/text.bin" --report --log "$WORK/new.log")
[ "$rc" = 1 ] || fail "--log onto a file it cannot write exited $rc: $(cat "$WORK/err")"
grep -q "writing the log $WORK/new.log failed: File too large" "$WORK/err" || fail "--log: not said: $(cat "$WORK/err")"
[ ! -e "$WORK/new.log" ] || fail "the empty log this run made was left behind"

# 4. a link to a file, a link to nothing: refused even with --force, left as they were
echo precious > "$WORK/target"
ln -s "$WORK/target" "$WORK/link"
ln -s "$WORK/nothing" "$WORK/dangling"
for opt in --export-trace -w --log; do
    for what in link dangling; do
        case $what in
            link) says="is a symbolic link: --force only overwrites regular files" ;;
            *) says="is a symbolic link to nothing" ;;
        esac
        case $opt in
            -w) run 1 "$says" "$WORK/ttyK" --report --duration 5 -w "$WORK/$what" --force ;;
            *) run 1 "$says" -r "$WORK/text.bin" --report "$opt" "$WORK/$what" --force ;;
        esac
    done
    [ -L "$WORK/link" ] && [ "$(cat "$WORK/target")" = precious ] || fail "$opt --force: the link or its file changed"
    [ -L "$WORK/dangling" ] && [ ! -e "$WORK/nothing" ] || fail "$opt --force: the dangling link changed"
done

# 5. a character device or a FIFO is written as it is, without --force (nothing is truncated): a
#    FIFO with a reader gets the whole output; one without a reader is refused at once, no hang
mkfifo "$WORK/fifo"
for opt in --export-trace -w --log; do
    case $opt in -w) input=("$WORK/ttyK" --duration 2) ;; *) input=(-r "$WORK/text.bin") ;; esac
    run 0 "" "${input[@]}" --report "$opt" /dev/null
    run 1 "the FIFO $WORK/fifo has no reader: start its reader first" "${input[@]}" --report "$opt" "$WORK/fifo"
    fifo_reader "$WORK/fifo" "$WORK/fifo.out"
    run 0 "" "${input[@]}" --report "$opt" "$WORK/fifo"
    wait "$reader"
    [ -p "$WORK/fifo" ] || fail "$opt: the FIFO is gone"
    case $opt in
        --export-trace) json "$WORK/fifo.out" 'len(j["traceEvents"])' > /dev/null || fail "the trace through the FIFO is not whole" ;;
        --log) run 0 "" -r "$WORK/text.bin" --report --log "$WORK/ref.log"
            # the lines, not their stamps (a raw capture's: the host time of its read)
            [ -s "$WORK/ref.log" ] && [ "$(sed 's/^\[[^]]*\] //' "$WORK/fifo.out")" = "$(sed 's/^\[[^]]*\] //' "$WORK/ref.log")" ] \
                || fail "the log through the FIFO is not the log" ;;
        -w) [ "$(head -c 8 "$WORK/fifo.out" | od -An -c | tr -d ' ')" = "211AIOPREC" ] || fail "-w through the FIFO: no recording" ;;
    esac
done
# through /dev/stdout (a link to the pipe a reader reads): the trace is the whole of stdout
"$TOP" -r "$WORK/raw.bin" --export-trace /dev/stdout < /dev/null 2> "$WORK/err" | cat > "$WORK/stdout.json"
json "$WORK/stdout.json" 'len(j["traceEvents"])' > /dev/null || fail "--export-trace /dev/stdout: $(cat "$WORK/err")"

# 6. an output is never the recording replayed nor another output, by any name; refused before
#    anything is opened (exit 2), the file as it was, an output this run made removed
"$TOP" --demo --duration 1 --report -w "$WORK/A.aiop" > /dev/null 2>&1 < /dev/null || fail "no demo recording"
cp "$WORK/A.aiop" "$WORK/A.keep"
ln "$WORK/A.aiop" "$WORK/hard.aiop"
for opt in --log --export-trace; do
    for name in "$WORK/A.aiop" "$WORK/./A.aiop" "$WORK/hard.aiop"; do
        run 2 "$name is the recording being replayed: name another file for the" -r "$WORK/A.aiop" --report "$opt" "$name" --force
    done
done
cmp -s "$WORK/A.aiop" "$WORK/A.keep" || fail "the recording being replayed was changed"
cp "$WORK/A.keep" "$WORK/B"
run 2 "is also the trace: name another file for the log" -r "$WORK/text.bin" --report --export-trace "$WORK/B" --log "$WORK/./B" --force
cmp -s "$WORK/B" "$WORK/A.keep" || fail "an existing file two outputs named was changed"
run 2 "is also the trace: name another file for the log" -r "$WORK/text.bin" --report --export-trace "$WORK/./C" --log "$WORK/C" --force
[ ! -e "$WORK/C" ] || fail "the trace this run made for a refused session was left behind"
run 2 "is also the log: name another file for the recording" "$WORK/ttyK" --report --duration 5 --log "$WORK/D" -w "$WORK/./D"
[ ! -e "$WORK/D" ] || fail "the log this run made for a refused session was left behind"
echo old > "$WORK/report.txt"
rc=0
"$TOP" -r "$WORK/text.bin" --report --log "$WORK/report.txt" --force > "$WORK/report.txt" 2> "$WORK/err" < /dev/null || rc=$?
[ "$rc" = 2 ] && grep -q "report.txt is also standard output: name another file for the log" "$WORK/err" \
    || fail "--log onto standard output's file exited $rc: $(cat "$WORK/err")"
echo "io_overwrite: all checks passed"
