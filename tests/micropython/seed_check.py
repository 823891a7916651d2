"""aio_seed.py's report in one engine (tests/e2e/mpy_seed_unix.sh): sensors' spans read, parse and
render five times each, render the hog (over the slow threshold, the most inclusive time), and
with the firmware engine memory: parser's bytes at least what its code allocated (40 slices of four
2000-byte bytearrays), parse's span at least its 1000 bytes a slice and at most twice that (the
bytearray's object and its blocks), read and render none; the python and native engines measure
no memory and none is shown.

usage: seed_check.py ENGINE REPORT.json     exit 0 ok, 1 a failure, 77 the engine cannot say"""
import json
import sys

SLICES = 5          # sensors' slices with spans (aio_seed.py)
PARSE_BYTES = 1000  # what parse allocates in each
PARSER_BYTES = 40 * 4 * 2000
SLOW_US = 20000     # aioprof-top's default slow threshold


def main():
    engine, rep = sys.argv[1], json.load(open(sys.argv[2]))
    tasks = {t["name"]: t for t in rep["tasks"]}
    sensors = tasks.get("sensors", {})
    spans = {x["name"]: x for x in sensors.get("spans", [])}
    if not spans:
        print(f"skip {engine}: no span in its report (an engine built before spans: rebuild it, docs/micropython.md)")
        return 77
    bad = []
    for name in ("read", "parse", "render"):
        if spans.get(name, {}).get("count") != SLICES:
            bad.append(f"span {name}: count {spans.get(name, {}).get('count')}, the program ran it {SLICES} times")
    render = spans.get("render", {})
    if render.get("max_us", 0) < SLOW_US:
        bad.append(f"render's max {render.get('max_us')} us is not over the slow threshold")
    if max(spans.values(), key=lambda x: x["inclusive_us"])["name"] != "render":
        bad.append("render is not sensors' most inclusive span")
    mem = rep["device"].get("mem", 0)
    if engine == "firmware":
        parser = tasks.get("parser", {}).get("mem", {}).get("alloc_bytes") or 0
        parse = spans.get("parse", {}).get("mem", {})
        if parser < PARSER_BYTES:
            bad.append(f"parser allocated {parser} bytes, its code at least {PARSER_BYTES}")
        if parse.get("alloc_bytes") == 0 and parser >= PARSER_BYTES:
            print(f"skip {engine}: its spans read 0 bytes while its tasks allocate: a hook built before memory per "
                  "span (no ALLOC before span records); rebuild it (docs/micropython.md)")
            return 77
        got = parse.get("own_alloc_bytes") or 0
        if not SLICES * PARSE_BYTES <= got <= 2 * SLICES * PARSE_BYTES:
            bad.append(f"parse's own bytes {got}, its code allocated {SLICES * PARSE_BYTES} (at most twice that)")
        for name in ("read", "render"):
            if spans.get(name, {}).get("mem", {}).get("alloc_bytes") != 0:
                bad.append(f"span {name} allocated {spans[name].get('mem')}, its code nothing")
    elif mem or any("mem" in x for x in spans.values()):
        bad.append(f"the {engine} engine measures no memory, yet the report has some")
    for b in bad:
        print(f"FAIL {engine}: {b}")
    if not bad:
        m = spans.get("parse", {}).get("mem")
        print(f"ok   {engine}: render {render['count']} spans, max {render['max_us']} us; parse's memory "
              f"{m if m else 'not measured'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
