#!/usr/bin/env bash
# --metrics: two boards (the simulator's captures given on two ptys), each read by its own
# aioprof-top serving its figures; the real Prometheus server (Debian's prometheus) scrapes both.
# Once each board has sent everything, Prometheus' HTTP API must give, for every task of both
# boards, the slices and own time that aioprof-top's JSON report says at the end (and that report is
# the simulator's truth: the truth tests check that), and the session's longest slice its max_us.
# A third board (the hog workload, 23.5 s, its hogs captured) gives the gauge of the last 10 s's
# longest slice: ota.check's must be the longest of the captured hogs that ended in the seconds
# 14 to 23 of device time, not the session's longest. Also: promtool accepts the text format,
# OpenMetrics is served to who asks for it and ends with "# EOF", a port in use and a bad address
# are refused with a sentence before the board is touched, and other paths are 404.
set -euo pipefail
source "$(dirname "$0")/io_common.bash"

if ! command -v prometheus > /dev/null || ! command -v promtool > /dev/null; then
    echo "SKIP: Debian's prometheus package (prometheus, promtool) is not installed"
    exit 77
fi

# free_port: a TCP port nobody listens on now (the kernel's choice).
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# fetch URL [ACCEPT]: the body at URL (empty when it cannot be had).
fetch() {
    python3 - "$1" "${2:-}" <<'PY'
import sys, urllib.request
req = urllib.request.Request(sys.argv[1])
if sys.argv[2]:
    req.add_header("Accept", sys.argv[2])
try:
    with urllib.request.urlopen(req, timeout=5) as r:
        sys.stdout.write(r.read().decode())
except Exception as e:
    sys.stdout.write("ERROR %s" % e)
PY
}

# Two boards: the seed example and the busy one, 3 device seconds each.
"$SIM" -w seed --duration 3 -o "$WORK/a.cap" 2> /dev/null
"$SIM" -w busy --tasks 6 --duration 3 -o "$WORK/b.cap" 2> /dev/null
# hogs every 3 s of 100 to 200 ms: the window's edges (14 s, 23.5 s) are far from any
"$SIM" -w hog --duration 23.5 -o "$WORK/c.cap" 2> /dev/null
pty_start "$WORK/board-a" "$WORK/a.cap"
pty_start "$WORK/board-b" "$WORK/b.cap"
pty_start "$WORK/board-c" "$WORK/c.cap"

pa=$(free_port)
pb=$(free_port)
pc=$(free_port)

# Refused before the board is touched: a bad address, a port in use (held by this script's python).
rc=0
"$TOP" "$WORK/board-a" --json --metrics 127.0.0.1:99999 > /dev/null 2> "$WORK/bad.err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "is not an address" "$WORK/bad.err" || fail "a bad address: rc $rc, $(cat "$WORK/bad.err")"
python3 -c 'import socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); open(sys.argv[2],"w").close(); time.sleep(60)' \
    "$pa" "$WORK/held" &
holder=$!
IO_PIDS+=("$holder")
wait_until test -e "$WORK/held" || fail "could not hold port $pa"
rc=0
"$TOP" "$WORK/board-a" --json --metrics "127.0.0.1:$pa" > /dev/null 2> "$WORK/busy.err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "in use" "$WORK/busy.err" || fail "a port in use: rc $rc, $(cat "$WORK/busy.err")"
kill "$holder" 2> /dev/null || true
wait "$holder" 2> /dev/null || true

"$TOP" "$WORK/board-a" --json --metrics "127.0.0.1:$pa" > "$WORK/a.json" 2> "$WORK/a.err" &
top_a=$!
IO_PIDS+=("$top_a")
"$TOP" "$WORK/board-b" --json --metrics ":$pb" > "$WORK/b.json" 2> "$WORK/b.err" &
top_b=$!
IO_PIDS+=("$top_b")
mkdir "$WORK/caps"
"$TOP" "$WORK/board-c" --json --metrics ":$pc" --capture-hogs "$WORK/caps" --hog-ms 90 > "$WORK/c.json" 2> "$WORK/c.err" &
top_c=$!
IO_PIDS+=("$top_c")
pty_drained "$WORK/board-a"
pty_drained "$WORK/board-b"
pty_drained "$WORK/board-c"

# Both formats straight from aioprof-top.
wait_until grep -q 'task="slow"' <(fetch "http://127.0.0.1:$pa/metrics") || fail "no figures at :$pa"
fetch "http://127.0.0.1:$pa/metrics" > "$WORK/a.txt"
promtool check metrics < "$WORK/a.txt" > "$WORK/promtool.out" 2>&1 || fail "promtool: $(cat "$WORK/promtool.out")"
fetch "http://127.0.0.1:$pa/metrics" "application/openmetrics-text; version=1.0.0" > "$WORK/a.om"
[ "$(tail -1 "$WORK/a.om")" = "# EOF" ] || fail "OpenMetrics text does not end with # EOF"
grep -q '^# UNIT aioprof_task_running_seconds seconds$' "$WORK/a.om" || fail "no UNIT line in OpenMetrics"
grep -q "HTTP Error 404" <(fetch "http://127.0.0.1:$pa/other") || fail "/other is not 404"

# The real server, scraping both every second.
pp=$(free_port)
cat > "$WORK/prometheus.yml" << EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: boards
    static_configs:
      - targets: ["127.0.0.1:$pa", "127.0.0.1:$pb", "127.0.0.1:$pc"]
EOF
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
    --web.listen-address="127.0.0.1:$pp" > "$WORK/prometheus.log" 2>&1 &
IO_PIDS+=("$!")

# query PROMQL: the result vector as "board task value" lines, sorted.
query() {
    python3 - "http://127.0.0.1:$pp/api/v1/query" "$1" <<'PY'
import json, sys, urllib.parse, urllib.request
try:
    with urllib.request.urlopen(sys.argv[1] + "?" + urllib.parse.urlencode({"query": sys.argv[2]}), timeout=5) as r:
        d = json.load(r)
except Exception:
    sys.exit(0)
for v in sorted(d["data"]["result"], key=lambda v: (v["metric"].get("board", ""), v["metric"].get("task", ""))):
    print(v["metric"].get("board", ""), v["metric"].get("task", ""), v["value"][1])
PY
}

# What the JSON reports will say, known once each aioprof-top has read everything: the servers'
# own figures now (read above, unchanged since the boards are drained) for both boards.
expect() {
    local file=$1 board=$2 metric=$3
    python3 - "$file" "$board" "$metric" <<'PY'
import re, sys
for line in open(sys.argv[1]):
    m = re.match(r'(\w+)\{(.*)\} (\S+)$', line.strip())
    if m and m.group(1) == sys.argv[3]:
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2)))
        print(sys.argv[2], labels["task"], float(m.group(3)))
PY
}

fetch "http://127.0.0.1:$pb/metrics" > "$WORK/b.txt"
wait_until grep -q 'task="ota.check"' <(fetch "http://127.0.0.1:$pc/metrics") || fail "no figures at :$pc"
fetch "http://127.0.0.1:$pc/metrics" > "$WORK/c.txt"
for metric in aioprof_task_slices_total aioprof_task_running_seconds_total aioprof_task_session_slice_max_seconds \
    aioprof_task_slice_max_seconds; do
    { expect "$WORK/a.txt" "$WORK/board-a" $metric; expect "$WORK/b.txt" "$WORK/board-b" $metric
      expect "$WORK/c.txt" "$WORK/board-c" $metric; } | sort > "$WORK/want-$metric"
    [ "$(wc -l < "$WORK/want-$metric")" -ge 8 ] || fail "too few tasks in $metric: $(cat "$WORK/want-$metric")"
    scraped() {
        query "$metric" | python3 -c 'import sys; [print(b, t, float(v)) for b, t, v in (l.split() for l in sys.stdin)]' |
            sort > "$WORK/got-$metric"
        cmp -s "$WORK/got-$metric" "$WORK/want-$metric"
    }
    wait_until scraped || fail "Prometheus' $metric is not aioprof-top's: $(diff "$WORK/want-$metric" "$WORK/got-$metric"; tail -5 "$WORK/prometheus.log")"
done

# The end: each JSON report says what Prometheus has.
top_stop "$top_a" || fail "aioprof-top of board a: $(cat "$WORK/a.err")"
top_stop "$top_b" || fail "aioprof-top of board b: $(cat "$WORK/b.err")"
top_stop "$top_c" || fail "aioprof-top of board c: $(cat "$WORK/c.err")"
# the captures' hogs: where each began (its file name) and how long it was (its replay)
for f in "$WORK"/caps/hog-*-ota.check-*.aiop; do
    "$TOP" -r "$f" --json > "$f.json" 2> "$WORK/cap.err" || fail "-r $f: $(cat "$WORK/cap.err")"
done
python3 - "$WORK" << 'PY' || fail "the gauge of the last 10 s is not the longest of the hogs in them"
import glob, json, math, re, sys
w = sys.argv[1]
now = [float(l.split()[-1]) for l in open(w + "/c.txt") if l.startswith("aioprof_device_seconds_total{")][0]
hogs = []
for f in sorted(glob.glob(w + "/caps/hog-*-ota.check-*.aiop")):
    start = float(re.search(r"-ota\.check-([0-9.]+)s\.aiop$", f).group(1))
    us = {r["name"]: r for r in json.load(open(f + ".json"))["tasks"]}["ota.check"]["max_us"]
    hogs.append((start, us))
assert len(hogs) >= 6, hogs
# the current second of device time and the nine before it
inside = [us for start, us in hogs if math.floor(now) - 9 <= math.floor(start + us / 1e6) <= math.floor(now)]
want = max(inside) / 1e6
got = [float(l.split()[2]) for l in open(w + "/got-aioprof_task_slice_max_seconds") if l.split()[0].endswith("board-c") and l.split()[1] == "ota.check"]
session = max(us for _, us in hogs) / 1e6
assert got == [want], ("scraped", got, "want", want, "now", now, hogs)
assert want < session, ("the workload's longest hog is in the window: the test cannot tell the two gauges apart", hogs)
print("ota.check's gauge of the last 10 s: %.6f s (of %d hogs in it), the session's %.6f s" % (want, len(inside), session))
PY
python3 - "$WORK" << 'PY' || fail "the JSON reports differ from what Prometheus scraped"
import json, sys
w = sys.argv[1]
want = {}
for metric, key, scale in (("aioprof_task_slices_total", "count", 1), ("aioprof_task_running_seconds_total", "total_us", 1e6),
                           ("aioprof_task_session_slice_max_seconds", "max_us", 1e6)):
    for line in open("%s/got-%s" % (w, metric)):
        board, task, v = line.split()
        want.setdefault((board, task, key), round(float(v) * scale))
got = {}
for board, f in (("%s/board-a" % w, "a.json"), ("%s/board-b" % w, "b.json"), ("%s/board-c" % w, "c.json")):
    j = json.load(open("%s/%s" % (w, f)))
    for r in j["tasks"]:
        for key in ("count", "total_us", "max_us"):
            got[(board, r["name"], key)] = r[key]
bad = [(k, v, got.get(k)) for k, v in want.items() if got.get(k) != v]
if bad or len(want) != len(got):
    print("differences:", bad[:10], len(want), len(got))
    sys.exit(1)
print("Prometheus and the reports agree on", len(want), "figures of three boards")
PY
