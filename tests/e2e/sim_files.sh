#!/usr/bin/env bash
# The simulator's files (-o, --truth, --pty-link) are written the careful way: never through a
# symbolic link (another user's link in /tmp must not make it clobber a file), never a guessable
# temporary name; regular files are overwritten, /dev/null and FIFOs still work.
set -euo pipefail
: "${AIOPROF_SIM:?AIOPROF_SIM must name the aioprof-sim binary}"
tmp=$(mktemp -d)
sim_pid=
trap '[ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

echo "precious" > "$tmp/victim"
ln -s "$tmp/victim" "$tmp/link"

# -o and --truth onto a symbolic link: refused with one sentence, exit 1, the target untouched
for args in "-o $tmp/link" "--truth $tmp/link -o $tmp/out.bin"; do
    rc=0
    # shellcheck disable=SC2086
    "$AIOPROF_SIM" --duration 1 -q $args 2> "$tmp/err" || rc=$?
    [ "$rc" = 1 ] || fail "'$args' exited $rc: $(cat "$tmp/err")"
    [ "$(wc -l < "$tmp/err")" = 1 ] || fail "'$args' said more than one line: $(cat "$tmp/err")"
    grep -q "symbolic link" "$tmp/err" || fail "'$args' does not say why: $(cat "$tmp/err")"
    [ "$(cat "$tmp/victim")" = precious ] || fail "'$args' wrote through the link"
    echo "'$args' -> $(cat "$tmp/err")"
done

# what works: a new file, the same file again (overwritten, not appended), /dev/null, a FIFO
"$AIOPROF_SIM" --duration 1 -q -o "$tmp/a.bin" --truth "$tmp/a.json"
size=$(stat -c %s "$tmp/a.bin")
"$AIOPROF_SIM" --duration 1 -q -o "$tmp/a.bin" --truth "$tmp/a.json"
[ "$(stat -c %s "$tmp/a.bin")" = "$size" ] || fail "an existing output was not overwritten from the start"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/a.json" || fail "the truth rewritten is not JSON"
"$AIOPROF_SIM" --duration 1 -q -o /dev/null
mkfifo "$tmp/fifo"
cat "$tmp/fifo" > "$tmp/from-fifo" &
"$AIOPROF_SIM" --duration 1 -q -o "$tmp/fifo"
wait $!
cmp -s "$tmp/from-fifo" "$tmp/a.bin" || fail "the FIFO did not carry the stream"

# the truth onto the stream's own file, by another name or through the shell's redirection: refused
# before the run (exit 2), not a stream replaced by the truth at the end
for how in dot stdout; do
    rc=0
    if [ $how = dot ]; then
        "$AIOPROF_SIM" --duration 1 -q -o "$tmp/one.bin" --truth "$tmp/./one.bin" 2> "$tmp/err" || rc=$?
    else
        "$AIOPROF_SIM" --duration 1 -q --truth "$tmp/one.bin" > "$tmp/one.bin" 2> "$tmp/err" || rc=$?
    fi
    [ "$rc" = 2 ] || fail "--truth onto the stream ($how) exited $rc: $(cat "$tmp/err")"
    grep -q "is the file the stream goes to: name another file for the truth" "$tmp/err" \
        || fail "--truth onto the stream ($how) said: $(cat "$tmp/err")"
done

# --pty-link: a link planted at the old fixed temporary name (LINK.tmp) is left alone, and the
# path arrives whole at LINK
ln -s "$tmp/victim" "$tmp/pty.tmp"
"$AIOPROF_SIM" --clock real --pty --pty-link "$tmp/pty" -q 2> "$tmp/sim.err" &
sim_pid=$!
for _ in $(seq 100); do [ -s "$tmp/pty" ] && break; sleep 0.1; done
grep -qE '^/dev/pts/[0-9]+$' "$tmp/pty" || fail "the pty link holds '$(cat "$tmp/pty" 2>/dev/null)': $(cat "$tmp/sim.err")"
[ "$(cat "$tmp/victim")" = precious ] || fail "--pty-link wrote through $tmp/pty.tmp"
[ "$(find "$tmp" -name 'pty.*' ! -name pty.tmp | wc -l)" = 0 ] || fail "a temporary file was left: $(ls "$tmp")"
echo "sim_files: all checks passed"
