#!/usr/bin/env bash
# Command line: --help works, and every bad argument gets one sentence on stderr and exit code 2,
# without output on stdout.
set -euo pipefail
: "${AIOPROF_SIM:?AIOPROF_SIM must name the aioprof-sim binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$AIOPROF_SIM" --help > "$tmp/help"
grep -q -- '--workload' "$tmp/help" && grep -q 'Examples' "$tmp/help" || { echo "--help lacks options or examples"; exit 1; }

bad=(
    "-w nosuch" "--duration" "--duration 0" "--duration -1" "--duration 1.2.3" "--events 0"
    "--clock sundial" "--seed x" "--tick-bits 16" "--start-tick 1073741824" "--start-tick 4294967296"
    "--ring 64" "--ring 99999999999" "--text 0" "--write-chunk 0" "--baud 10" "--slow 0"
    "--pty -o $tmp/x" "--pty-link $tmp/l" "--bogus" "-x" "stray" "--clock-back 0" "--clock-back x"
    "--platform"
)
for args in "${bad[@]}"; do
    set +e
    # shellcheck disable=SC2086
    "$AIOPROF_SIM" $args > "$tmp/out" 2> "$tmp/err"
    rc=$?
    set -e
    lines=$(wc -l < "$tmp/err")
    if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || [ -s "$tmp/out" ]; then
        echo "'$args': exit $rc, $lines stderr lines, $(stat -c %s "$tmp/out") stdout bytes"; cat "$tmp/err"; exit 1
    fi
    echo "'$args' -> $(cat "$tmp/err")"
done

# a 32-bit counter takes a start tick the 30-bit one does not
"$AIOPROF_SIM" --tick-bits 32 --start-tick 4294967000 --duration 2 -q -o "$tmp/ok.bin"
[ -s "$tmp/ok.bin" ]
# an output or truth file that cannot be written: exit 1 and one sentence
for args in "-o $tmp/no/such/dir/x" "--truth $tmp/no/such/dir/t.json -o $tmp/y"; do
    set +e
    # shellcheck disable=SC2086
    "$AIOPROF_SIM" $args 2> "$tmp/err"
    rc=$?
    set -e
    [ "$rc" -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] || { echo "'$args': exit $rc"; cat "$tmp/err"; exit 1; }
done
# a consumer that stops reading ends the run quietly
set +e
"$AIOPROF_SIM" -w busy --duration 600 2> "$tmp/err" | head -c 1000 > /dev/null
rc=${PIPESTATUS[0]}
set -e
[ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ] || { echo "closed pipe: exit $rc"; cat "$tmp/err"; exit 1; }
echo "options: ok"
