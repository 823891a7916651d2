#!/usr/bin/env bash
# Usage mistakes around the live table exit 2 with one sentence (docs/usage.md): no terminal for
# the table, a terminal that cannot move the cursor (TERM=dumb), --export-trace onto the recording
# it replays (which is left as it was), a workload the demo's simulator does not have. --sort
# takes every key the table sorts by, and the reports come in that order; --interval and --text
# check their values and where they apply.
set -euo pipefail
work=$(mktemp -d /tmp/aioprof-usage.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect CODE PATTERN ARGS...: exit code, a sentence matching PATTERN, and one line only
expect() {
    local code=$1 pattern=$2 rc=0
    shift 2
    "$AIOPROF_TOP" "$@" >"$work/out" 2>"$work/err" </dev/null || rc=$?
    [ "$rc" = "$code" ] || fail "aioprof-top $* exited $rc, expected $code; stderr: $(cat "$work/err")"
    grep -qE -- "$pattern" "$work/err" || fail "aioprof-top $* said '$(cat "$work/err")', expected /$pattern/"
    [ "$(grep -c . "$work/err")" -le 1 ] || fail "aioprof-top $* said more than a sentence: $(cat "$work/err")"
}

"$AIOPROF_SIM" -w instances --clock virtual --duration 5 -q -o "$work/x.bin"
cp "$work/x.bin" "$work/keep.bin"

# ---- the table without a terminal, or on one that cannot place the cursor
expect 2 "stdout is not a terminal" -r "$work/x.bin"
python3 - "$AIOPROF_TOP" "$work/x.bin" >"$work/dumb.txt" <<'PY' || fail "TERM=dumb: $(cat "$work/dumb.txt")"
import os, pty, select, subprocess, sys, time
m, s = pty.openpty()
p = subprocess.Popen([sys.argv[1], '-r', sys.argv[2]], stdin=s, stdout=s, stderr=subprocess.PIPE,
                     env=dict(os.environ, TERM='dumb'), close_fds=True)
os.close(s)
drawn, end = b'', time.time() + 60
while p.poll() is None and time.time() < end:
    if select.select([m], [], [], 0.1)[0]:
        try:
            drawn += os.read(m, 4096)
        except OSError:
            break
try:
    p.wait(timeout=max(end - time.time(), 1))
except subprocess.TimeoutExpired:
    p.kill()
    sys.exit('it did not exit (it drew %r)' % drawn[:80])
err = p.stderr.read().decode()
ok = p.returncode == 2 and err.count('\n') == 1 and 'TERM=dumb' in err and 'cannot move the cursor' in err
print('exit %d, stderr %r, drew %r' % (p.returncode, err, drawn[:80]))
sys.exit(0 if ok and drawn.strip() == b'' else 1)
PY

# ---- --export-trace onto the recording it replays: refused, the recording untouched
expect 2 "x.bin is the recording being replayed: name another file for the trace" -r "$work/x.bin" --export-trace "$work/x.bin" --report
ln -s "$work/x.bin" "$work/link.bin"
expect 2 "is the recording being replayed" -r "$work/link.bin" --export-trace "$work/x.bin" --force --report
cmp -s "$work/x.bin" "$work/keep.bin" || fail "the recording was changed"

# ---- a workload the simulator does not have: its sentence, as a usage error
expect 2 "the demo's simulator refused its options: there is no workload 'nope'" --demo --workload nope --report

# ---- --sort: every key the table sorts by, the reports in that order
expect 2 "--sort takes name, inst, count, total, share, max, mean, slow, errors, late, end or creator, not 'fastest'" \
    -r "$work/x.bin" --sort fastest --report
expect 2 "--sort end orders task instances: add --instances" -r "$work/x.bin" --sort end --report
for key in name inst count total share max mean slow errors end creator; do
    inst=""
    case $key in end | creator) inst=--instances ;; esac
    "$AIOPROF_TOP" -r "$work/x.bin" --json --sort "$key" $inst >"$work/$key.json" 2>"$work/err" ||
        fail "--sort $key: $(cat "$work/err")"
    "$AIOPROF_TOP" -r "$work/x.bin" --report --sort "$key" $inst >/dev/null 2>"$work/err" ||
        fail "--sort $key --report: $(cat "$work/err")"
    python3 - "$work/$key.json" "$key" <<'PY' || fail "--sort $key: the JSON rows are not in that order"
import json, sys
j, key = json.load(open(sys.argv[1])), sys.argv[2]
field = {'inst': 'instances', 'share': 'total_us', 'total': 'total_us', 'max': 'max_us', 'mean': 'mean_us'}.get(key, key)
for rows in (j['tasks'], j['instances']):
    if key == 'name':
        keys = [r['name'] for r in rows]
    elif key == 'end':
        keys = [r.get('end', '') for r in rows]
    elif key == 'creator':
        keys = [r.get('parent_name') or '' for r in rows]
    elif key == 'inst' and rows is j['instances']:
        continue  # an instance is one instance
    else:
        keys = [-r[field] for r in rows]
    if key in ('end', 'creator') and rows is j['tasks']:
        continue  # names have neither
    assert keys == sorted(keys), (key, keys[:10])
PY
done

# ---- --interval, --text: their values, and where they apply
expect 2 "--interval needs a number from 0.05 to 86400, not '0.01'" -r "$work/x.bin" -d 0.01
expect 2 "--interval is the live table's refresh period or the period of --json-lines: it does nothing with --report" -r "$work/x.bin" --interval 1 --report
expect 2 "--interval is the live table.s refresh period or the period of --json-lines: it does nothing with --report or --json" -r "$work/x.bin" -d 1 --json
expect 2 "--text only applies to --demo" -r "$work/x.bin" --text 5 --report
expect 2 "--text needs a whole number from 0 to 1000000, not 'x'" --demo --text x --report
echo "ok: io_usage_live"
