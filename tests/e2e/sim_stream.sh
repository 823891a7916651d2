#!/usr/bin/env bash
# Decodes the simulator's byte stream independently of aioprof-top, straight from
# docs/protocol.md (COBS, CRC-16/CCITT-FALSE, records, time line), and checks it against the
# ground truth: every slice, its exclusive time, every ending; frames and text never mixed;
# with a small ring, every event either recorded or counted as dropped.
set -euo pipefail
: "${AIOPROF_SIM:?AIOPROF_SIM must name the aioprof-sim binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/decode.py" <<'PY'
import json, os, sys

sys.path.insert(0, os.environ["E2E_DIR"])
from wire import frame_body, records, varint

TEXTLIKE = set(range(0x20, 0x100)) | {7, 8, 9, 10, 13, 27}

def decode(stream):
    st = dict(frames=0, events=0, task_new=0, dropped=0, text_lines=0, text=b"", damaged=0,
              slices={}, ends={}, lost=0)
    tl, width, prev_seq = None, None, None
    stack, start, excl = [], {}, {}
    segs = stream.split(b"\0")
    for seg in segs:
        if not seg:
            continue
        body = frame_body(seg)
        if body is None:
            if all(c in TEXTLIKE for c in seg):
                st["text"] += seg
                st["text_lines"] += seg.count(b"\n")
            else:
                st["damaged"] += 1
            continue
        st["frames"] += 1
        seq, fmt = body[0], body[1]
        assert fmt >> 5 == 1, "version"
        width = (fmt & 0x1F) + 1
        if prev_seq is not None and (seq - prev_seq - 1) % 256:
            st["lost"] += 1
        prev_seq = seq
        base = int.from_bytes(body[2:6], "little")
        tl = base if tl is None else tl + ((base - tl) % (1 << width))
        t = tl
        for tag, _, _, dt, tid, payload in records(body):
            if payload is None:
                t += dt
                st["events"] += 1
                if tid is not None:
                    if stack:
                        excl[stack[-1]] += t - start[stack[-1]]
                    stack.append(tid); start[tid] = t; excl[tid] = 0
                elif stack:  # an exit whose enter was dropped has nothing to end
                    tid = stack.pop()
                    st["slices"].setdefault(tid, []).append(excl[tid] + t - start[tid])
                    st["ends"][tid] = ["running", "return", "raise", "cancel"][0 if tag < 0x40 else (tag >> 4) - 3]
                    if stack:
                        start[stack[-1]] = t
            elif tag & 0xF == 1:
                st["task_new"] += 1
            elif tag & 0xF == 3:
                st["dropped"] += varint(payload, 0)[0]
    return st

stream = open(sys.argv[1], "rb").read()
truth = json.load(open(sys.argv[2]))
mode = sys.argv[3]
st = decode(stream)
fail = []
if st["damaged"] or st["lost"]:
    fail.append(f"{st['damaged']} damaged segments, {st['lost']} sequence gaps")
if st["frames"] != truth["frames"]:
    fail.append(f"{st['frames']} frames decoded, truth says {truth['frames']}")
if st["text_lines"] != truth["text_lines"]:
    fail.append(f"{st['text_lines']} text lines decoded, truth says {truth['text_lines']}")
if mode in ("exact", "hostile"):
    if st["events"] != truth["events"]:
        fail.append(f"{st['events']} events decoded, truth says {truth['events']}")
    for inst in truth["instances"]:
        got = st["slices"].get(inst["id"], [])
        want = (inst["count"], inst["total_us"], inst["max_us"] if got else 0)
        have = (len(got), sum(got), max(got) if got else 0)
        if want != have:
            fail.append(f"task {inst['id']} {inst['name']}: stream {have}, truth {want}")
        if inst["end"] != "running" and st["ends"].get(inst["id"]) != inst["end"]:
            fail.append(f"task {inst['id']}: ended {st['ends'].get(inst['id'])}, truth {inst['end']}")
else:
    # every enter/exit and every task creation is either in the stream or in a DROPPED count
    attempts = truth["events"] + len(truth["instances"])
    seen = st["events"] + st["task_new"] + st["dropped"]
    if seen != attempts or st["dropped"] != truth["dropped_events"] or st["dropped"] == 0:
        fail.append(f"recorded {st['events']} + {st['task_new']} + dropped {st['dropped']} = {seen}, "
                    f"attempted {attempts}, truth dropped {truth['dropped_events']}")
if mode == "hostile" and b"\x1b[2J" not in st["text"]:
    fail.append("no hostile text in the text segments")
print(f"{sys.argv[1]}: {st['frames']} frames, {st['events']} events, {st['dropped']} dropped, "
      f"{st['text_lines']} text lines" + ("" if not fail else "\n  FAIL " + "\n  FAIL ".join(fail[:10])))
sys.exit(1 if fail else 0)
PY

run() {
    local name=$1 mode=$2; shift 2
    "$AIOPROF_SIM" "$@" -q -o "$tmp/$name.bin" --truth "$tmp/$name.json"
    E2E_DIR="$(cd "$(dirname "$0")" && pwd)" python3 "$tmp/decode.py" "$tmp/$name.bin" "$tmp/$name.json" "$mode"
}
status=0
run seed exact -w seed --duration 30 || status=1
run instances exact -w instances --duration 30 --seed 3 || status=1
run busy exact -w busy --duration 10 --seed 9 || status=1
run nested exact -w nested --duration 10 || status=1
run text hostile -w instances --duration 10 --text 7 --hostile-text || status=1
run chunked exact -w instances --duration 10 --write-chunk 3 --ring 65535 --text 5 || status=1
run wrap30 exact -w nested --duration 30 --tick-bits 30 --start-tick 1073000000 || status=1
run wrap32 exact -w busy --duration 10 --tick-bits 32 --start-tick 4294000000 || status=1
run drops drops -w busy --duration 10 --ring 256 --baud 115200 || status=1
run drops_chunk drops -w instances --duration 10 --ring 256 --write-chunk 1 || status=1
exit $status
