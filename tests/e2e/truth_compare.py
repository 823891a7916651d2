#!/usr/bin/env python3
"""Compares `aioprof-top --json` with the simulator's --truth file (used by truth_*.sh).

Modes:
  exact    every name and instance matches the truth: counts, totals, maxima, minima, slow,
           errors, instances; labels, creators and ends of instances; nothing lower-bound; and
           lateness: resumes, late ones, their total and maximum, blocked by (the culprit name and
           its time) and the time no task ran; or, from a device that does not report lateness
           (the truth's late_unit 0), lateness unknown (null), not zero.
  lower    events were dropped: every figure is at most the truth, the rows below the truth are
           marked lower_bound, and the report says events were dropped.
  damaged  the capture was damaged: damage was counted, no name is above the truth, and the slices
           missing are no more than the damaged frames could have held.
  late:F   the capture lost its first fraction F (joined late): names learned from announcements,
           nothing above the truth, at most 5 % of the slices left unnamed.
  repeated:N:R  stretches of the capture came twice: R frames came a second time intact, N have
           no intact copy left (the splice cut them). Each figure is the truth's, or below it and
           marked lower_bound; exactly R repeats and N lost frames counted; elapsed time not above
           the run's.
Usage: truth_compare.py REPORT.json TRUTH.json MODE [CAPTURE]
With CAPTURE (the clean capture): in exact mode a label the truth has but the device never sent is
a note, not a failure; in damaged mode the slices of its fullest frame bound what one lost frame
can take.
Prints one line per problem and exits 1 if there was any."""
import json
import sys

from wire import frame_body, records

END = {"running": "live", "return": "returned", "raise": "raised", "cancel": "cancelled"}
# A frame body holds at most 512 bytes: at most 503 one-byte records, so at most 503 slice ends.
SLICES_PER_FRAME = 503


def max_exits_per_frame(capture):
    """The most slice ends any valid frame of a clean capture holds (docs/protocol.md 2-3)."""
    best = 0
    for seg in capture.split(b"\0"):
        body = frame_body(seg) if seg else None
        if body is not None:
            exits = sum(1 for tag, _, _, _, _, payload in records(body)
                        if payload is None and tag < 0x80)
            best = max(best, exits)
    return best


def fail(problems, msg):
    problems.append(msg)


# the report's "late" object against the truth's fields of the same row
LATE_KEYS = (("resumes", "resumes"), ("count", "late_count"), ("total_us", "late_total_us"),
             ("max_us", "late_max_us"), ("blocked_by", "blocked_by"), ("blocked_us", "blocked_us"),
             ("outside_us", "blocked_outside_us"))


def check_late(problems, what, late, truth, unit, exact=True, names=(), unknown_truth=0):
    """Lateness of one row: exactly the truth's (exact), or nowhere above it: no part of the
    windows above the truth's (outside tasks; the culprit, when it is a name of the truth), the
    parts within the total, and, where the row saw every resume of the truth's, the time it does
    not give to outside tasks or to the culprit as the truth does in unknown (docs/usage.md,
    "Lateness": a window's parts add up to its length, none above the truth)."""
    if not unit:
        if late is not None:
            fail(problems, f"{what}: lateness {late} from a device that does not report it (want null)")
        return
    if late is None:
        fail(problems, f"{what}: lateness unknown, the device reports it")
        return
    for k, tk in LATE_KEYS:
        if exact and late[k] != truth[tk]:
            fail(problems, f"{what}: late.{k} {late[k]!r} != truth {truth[tk]!r}")
        elif not exact and k in ("resumes", "count", "total_us", "max_us") and late[k] > truth[tk]:
            fail(problems, f"{what}: late.{k} {late[k]} above the truth {truth[tk]}")
    if exact:
        pass
    elif late["outside_us"] > truth["blocked_outside_us"]:
        fail(problems, f"{what}: late.outside_us {late['outside_us']} above the truth {truth['blocked_outside_us']}")
    elif late["blocked_by"] in names and late["blocked_us"] > truth["blocked_us"]:
        fail(problems, f"{what}: late.blocked_us {late['blocked_us']} ({late['blocked_by']}) above the truth's most, "
                       f"{truth['blocked_us']} ({truth['blocked_by']})")
    elif late["blocked_us"] + late["outside_us"] + late["unknown_us"] > late["total_us"]:
        fail(problems, f"{what}: late parts {late['blocked_us']} + {late['outside_us']} + {late['unknown_us']} "
                       f"above the total {late['total_us']}")
    elif unknown_truth == 0 and late["resumes"] == truth["resumes"] and late["total_us"] == truth["late_total_us"]:
        missing = truth["blocked_outside_us"] - late["outside_us"]
        if late["blocked_by"] is not None and late["blocked_by"] == truth["blocked_by"]:
            missing += truth["blocked_us"] - late["blocked_us"]
        if missing > late["unknown_us"]:
            fail(problems, f"{what}: {missing} us of the truth's outside and culprit time missing, "
                           f"but only {late['unknown_us']} unknown")
    if exact and late["unknown_us"] != 0:
        fail(problems, f"{what}: late.unknown_us {late['unknown_us']} on a clean capture")


def main():
    report_path, truth_path, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    rep = json.load(open(report_path))
    tru = json.load(open(truth_path))
    capture = open(sys.argv[4], "rb").read() if len(sys.argv) > 4 else b""
    unsent_labels = 0
    problems = []
    tasks = {t["name"]: t for t in rep["tasks"]}
    truth_names = {t["name"] for t in tru["tasks"]}
    stream = rep["stream"]

    for k in ("tool", "device", "elapsed_us", "stream", "tasks", "outside_us", "instances"):
        if k not in rep:
            fail(problems, f"report has no '{k}'")

    if mode == "exact":
        if stream["events"] != tru["events"]:
            fail(problems, f"events {stream['events']} != truth {tru['events']}")
        for k in ("crc_errors", "lost_frames", "dropped_events", "malformed", "unmatched", "duplicates"):
            if stream[k] != 0:
                fail(problems, f"stream.{k} = {stream[k]} on a clean capture")
        if stream["clock_steps_back"] != tru.get("clock_steps_back", 0):
            fail(problems, f"clock_steps_back {stream['clock_steps_back']} != truth {tru.get('clock_steps_back', 0)}")
        if stream["text_lines"] != tru.get("text_lines", 0):
            fail(problems, f"text_lines {stream['text_lines']} != truth {tru.get('text_lines', 0)}")
        if stream["bytes"] != tru["bytes"]:
            fail(problems, f"bytes {stream['bytes']} != truth {tru['bytes']}")
        for t in tru["tasks"]:
            r = tasks.get(t["name"])
            if r is None:
                fail(problems, f"task {t['name']!r} missing from the report")
                continue
            for k in ("count", "total_us", "max_us", "min_us", "instances", "slow", "errors"):
                if r[k] != t[k]:
                    fail(problems, f"{t['name']}: {k} {r[k]} != truth {t[k]}")
            if r["lower_bound"]:
                fail(problems, f"{t['name']}: marked lower bound on a clean capture")
            check_late(problems, t["name"], r.get("late"), t, tru.get("late_unit", 0))
        if rep["device"] and rep["device"].get("late_unit", 0) != tru.get("late_unit", 0):
            fail(problems, f"device late_unit {rep['device'].get('late_unit')} != truth {tru.get('late_unit', 0)}")
        extra = set(tasks) - {t["name"] for t in tru["tasks"]}
        if extra:
            fail(problems, f"names not in the truth: {sorted(extra)[:5]}")
        insts = {(i["epoch"], i["id"]): i for i in rep["instances"]}
        for t in tru.get("instances", []):
            r = insts.get((0, t["id"]))
            if r is None:
                if rep.get("folded_instances", 0) == 0:
                    fail(problems, f"instance #{t['id']} missing")
                continue
            if r["label"] != t["label"] and t["label"].encode() not in capture:
                # the device never sent this label (set after the task's last announcement): not
                # something a reader can know; said, not failed
                unsent_labels += 1
            elif r["label"] != t["label"]:
                fail(problems, f"instance #{t['id']}: label {r['label']!r} != truth {t['label']!r}")
            for k in ("name", "parent", "count", "total_us", "max_us", "slow"):
                if r[k] != t[k]:
                    fail(problems, f"instance #{t['id']}: {k} {r[k]!r} != truth {t[k]!r}")
            if t["count"] and r["min_us"] != t["min_us"]:
                fail(problems, f"instance #{t['id']}: min_us {r['min_us']} != truth {t['min_us']}")
            if (r["parent_name"] or "") != t["parent_name"]:
                fail(problems, f"instance #{t['id']}: parent_name {r['parent_name']!r} != {t['parent_name']!r}")
            if r["end"] != END.get(t["end"], t["end"]):
                fail(problems, f"instance #{t['id']}: end {r['end']} != truth {t['end']}")
            check_late(problems, f"instance #{t['id']}", r.get("late"), t, tru.get("late_unit", 0))
        # time adds up: nothing nested is counted twice, nothing is lost
        total = sum(t["total_us"] for t in rep["tasks"]) + rep["outside_us"]
        if total != rep["elapsed_us"]:
            fail(problems, f"tasks + outside = {total} != elapsed {rep['elapsed_us']}")
        if not (tru["duration_us"] * 0.9 <= rep["elapsed_us"] <= tru["duration_us"] + 1000):
            fail(problems, f"elapsed {rep['elapsed_us']} far from the run's {tru['duration_us']}")

    elif mode == "lower":
        if tru["dropped_events"] == 0:
            fail(problems, "the truth has no drops: this run tests nothing")
        if stream["dropped_events"] == 0:
            fail(problems, "the report shows no dropped events")
        if stream["dropped_events"] > tru["dropped_events"]:
            fail(problems, f"dropped {stream['dropped_events']} > truth {tru['dropped_events']}")
        below = 0
        for t in tru["tasks"]:
            r = tasks.get(t["name"])
            if r is None:
                continue
            for k in ("count", "total_us", "max_us", "slow", "errors"):
                if r[k] > t[k]:
                    fail(problems, f"{t['name']}: {k} {r[k]} above the truth {t[k]}")
            check_late(problems, t["name"], r.get("late"), t, tru.get("late_unit", 0), exact=False,
                       names=truth_names, unknown_truth=tru.get("late_unknown_us", 0))
            if (r["count"] < t["count"] or r["total_us"] < t["total_us"]):
                below += 1
                if not r["lower_bound"]:
                    fail(problems, f"{t['name']}: below the truth but not marked lower_bound")
        if below == 0:
            fail(problems, "no row below the truth: the drops did not matter?")
        counted = sum(t["count"] for t in rep["tasks"])
        if counted == 0:
            fail(problems, "nothing counted at all")

    elif mode == "damaged":
        damage = stream["crc_errors"] + stream["lost_frames"] + stream["malformed"] + stream["unsupported"]
        if damage == 0:
            fail(problems, "damage not counted")
        for name, r in tasks.items():
            t = next((x for x in tru["tasks"] if x["name"] == name), None)
            if t is None:
                if r["count"] > 0 and not name.startswith("task #") and r.get("kind") != "unnamed":
                    fail(problems, f"name {name!r} not in the truth")
                continue
            for k in ("count", "total_us", "max_us"):
                if r[k] > t[k]:
                    fail(problems, f"{name}: {k} {r[k]} above the truth {t[k]}")
            check_late(problems, name, r.get("late"), t, tru.get("late_unit", 0), exact=False,
                       names=truth_names, unknown_truth=tru.get("late_unknown_us", 0))
        counted = sum(r["count"] for r in rep["tasks"])
        truth = sum(t["count"] for t in tru["tasks"])
        # every lost frame takes at most the slices the fullest frame of the clean capture holds;
        # every damaged stretch also drops the slices open across it (the nesting is at most 3
        # deep in the workloads) and the next exit of a task whose start was lost
        per_frame = max_exits_per_frame(capture) if capture else SLICES_PER_FRAME
        stretches = stream["crc_errors"] + stream["lost_frames"] + stream["malformed"]
        allowance = stream["lost_frames"] * per_frame + stretches * 4
        if counted < truth - allowance:
            fail(problems, f"counted {counted} slices, truth {truth}: more missing than {allowance}")
        if counted > truth:
            fail(problems, f"counted {counted} slices, more than the truth {truth}")
        print(f"{report_path}: counted {counted} of {truth} slices; damage: {stream['crc_errors']} CRC errors, "
              f"{stream['lost_frames']} lost frames, {stream['malformed']} malformed (allows {allowance} missing)")
    elif mode.startswith("repeated:"):
        destroyed, repeated = (int(x) for x in mode.split(":")[1:3])
        if stream["duplicates"] != repeated:
            fail(problems, f"{stream['duplicates']} repeated frames counted, {repeated} came twice")
        if stream["lost_frames"] != destroyed:
            fail(problems, f"{stream['lost_frames']} lost frames, {destroyed} were lost")
        if stream["events"] > tru["events"]:
            fail(problems, f"events {stream['events']} > truth {tru['events']}")
        if rep["elapsed_us"] > tru["duration_us"] + 1000:
            fail(problems, f"elapsed {rep['elapsed_us']} > the run's {tru['duration_us']}")
        exact = 0
        for t in tru["tasks"]:
            r = tasks.get(t["name"])
            if r is None:
                fail(problems, f"task {t['name']!r} missing from the report")
                continue
            keys = ("count", "total_us", "max_us", "slow", "errors", "instances")
            for k in keys:
                if r[k] > t[k]:
                    fail(problems, f"{t['name']}: {k} {r[k]} above the truth {t[k]}")
            if any(r[k] != t[k] for k in keys[:5]):
                if not r["lower_bound"]:
                    fail(problems, f"{t['name']}: below the truth but not marked lower_bound")
            else:
                exact += 1
        print(f"{report_path}: {stream['duplicates']} repeated frames skipped, {stream['crc_errors']} CRC errors; "
              f"{exact} of {len(tru['tasks'])} names exact")
    elif mode.startswith("late"):
        # joined late: the capture lost its first fraction (mode "late:0.3"); names come from the
        # announcements, nothing may exceed the truth, and little may stay unnamed
        cut = float(mode.split(":")[1])
        named = unnamed = 0
        truth_rows = {t["name"]: t for t in tru["tasks"]}
        for name, r in tasks.items():
            t = truth_rows.get(name)
            if t is None:
                if r.get("kind") in ("instance", "unnamed"):
                    unnamed += r["count"]
                else:
                    fail(problems, f"name {name!r} not in the truth")
                continue
            named += r["count"]
            for k in ("count", "total_us", "max_us", "slow", "errors"):
                if r[k] > t[k]:
                    fail(problems, f"{name}: {k} {r[k]} above the truth {t[k]}")
            check_late(problems, name, r.get("late"), t, tru.get("late_unit", 0), exact=False,
                       names=truth_names, unknown_truth=tru.get("late_unknown_us", 0))
        truth = sum(t["count"] for t in tru["tasks"])
        if named + unnamed > truth:
            fail(problems, f"counted {named + unnamed} slices, more than the truth {truth}")
        if named < truth * (1 - cut) * 0.9:
            fail(problems, f"only {named} slices named of the truth's {truth} after a {cut:.0%} cut")
        if unnamed > 0.05 * (named + unnamed):
            fail(problems, f"{unnamed} slices still unnamed, of {named + unnamed}")
        print(f"{report_path}: joined late: {named} slices named, {unnamed} unnamed, truth {truth}")
    else:
        fail(problems, f"unknown mode {mode}")

    if unsent_labels:
        print(f"{report_path}: note: {unsent_labels} labels of the truth were never sent by the device")
    for p in problems:
        print(f"{report_path}: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
