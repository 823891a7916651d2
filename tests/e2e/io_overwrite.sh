#!/usr/bin/env bash
# -w and --export-trace never remove or damage a path this run did not create: a new file is made
# with O_EXCL; --force empties an existing regular file and nothing else (a FIFO, a symbolic link,
# a link to nothing are refused, untouched); a write that fails leaves a file that was there, and
# removes only a file this run made. (Device nodes: io_overwrite_node.sh, which needs root.)
set -euo pipefail
source "$(dirname "$0")/io_common.bash"

"$SIM" -w busy --events 4000 -q -o "$WORK/raw.bin"

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

# 1. --force overwrites a regular file, which stays a regular file holding the new trace
echo old > "$WORK/t.json"
run 1 "exists; add --force" -r "$WORK/raw.bin" --report --export-trace "$WORK/t.json"
[ "$(cat "$WORK/t.json")" = old ] || fail "--export-trace without --force changed the file"
run 0 "" -r "$WORK/raw.bin" --report --export-trace "$WORK/t.json" --force
python3 -c 'import json,sys; json.load(open(sys.argv[1]))["traceEvents"]' "$WORK/t.json" \
    || fail "--force did not write a trace"

# 2. the first write fails on a file that was there (--force): the file stays; the run fails
for opt in --export-trace -w; do
    echo old > "$WORK/kept"
    if [ "$opt" = -w ]; then
        pty_start "$WORK/ttyK" "$WORK/raw.bin"
        rc=$(limited "$WORK/ttyK" --report --duration 5 -w "$WORK/kept" --force)
    else
        rc=$(limited -r "$WORK/raw.bin" --report --export-trace "$WORK/kept" --force)
    fi
    [ "$rc" = 1 ] || fail "$opt onto a file it cannot write exited $rc: $(cat "$WORK/err")"
    grep -qE "cannot write the (trace|recording) $WORK/kept: File too large" "$WORK/err" \
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

# 4. a FIFO, a link to a file, a link to nothing: refused even with --force, left as they were
mkfifo "$WORK/fifo"
echo precious > "$WORK/target"
ln -s "$WORK/target" "$WORK/link"
ln -s "$WORK/nothing" "$WORK/dangling"
for opt in --export-trace -w; do
    for what in fifo link dangling; do
        case $what in
            fifo) says="is a FIFO: --force only overwrites regular files" ;;
            *) says="is a symbolic link: --force only overwrites regular files" ;;
        esac
        if [ "$opt" = -w ]; then
            run 1 "$says" "$WORK/ttyK" --report --duration 5 -w "$WORK/$what" --force
        else
            run 1 "$says" -r "$WORK/raw.bin" --report --export-trace "$WORK/$what" --force
        fi
    done
    [ -p "$WORK/fifo" ] || fail "$opt --force: the FIFO is gone"
    [ -L "$WORK/link" ] && [ "$(cat "$WORK/target")" = precious ] || fail "$opt --force: the link or its file changed"
    [ -L "$WORK/dangling" ] && [ ! -e "$WORK/nothing" ] || fail "$opt --force: the dangling link changed"
done
echo "io_overwrite: all checks passed"
