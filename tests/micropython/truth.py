# What a test script measures itself, to compare with the host's report of the same run: each
# task calls begin() when it is resumed and end() before it suspends; the script prints
# report() at the end as "truth NAME count=N total_us=T bound_us=B errors=E instances=I" lines
# (device text, which aioprof-top passes on as "device: ..." lines on stderr).
#
# bound_us: what the hook can have measured at most. The loop runs one task at a time, so the
# hook's slice of a task starts after the previous end() (of any task) and ends before the next
# begin() (of any task): its length is at most that span, whatever the machine's load put into it.
#
# Lateness (how long a resume came after its task was due): due(key, ms) says that the task's next
# resume is due ms from now; call it where the script makes it so: before `await
# asyncio.sleep_ms(ms)`, before the set() of an event it waits on, before creating it (ms 0); with
# after_slice=True, before the end() of a task it awaits (asyncio makes it runnable once that
# slice is over). asyncio puts the due time on the Task (ph_key, in ticks_ms) after that call and
# before the next end() or begin() of any task (after_slice: the next begin()), or before
# due_by(key), called right after what made it due (an event's set()), and the hook reads
# the clock after the last end() of any task and before the task's begin(): so the hook's lateness
# of that resume lies within [last end - (that next end or begin + ms), begin - (due() call + ms)],
# in whole milliseconds of ticks_ms, at least 0. report() gives per row the greatest lower and upper bounds and their sums
# (late_lo_max, late_hi_max, late_lo_sum, late_hi_sum over late_n resumes), when every resume of
# the row had a due(); and blocked_by=NAME when the script said which task keeps it waiting the
# most of that time (blocker()).
import time

_rows = {}
_t0 = {}
_last_end = time.ticks_us()  # the latest end() of any task (at first: before the loop started)
_ended = []  # (row, ticks) of slices that ended and wait for the next begin()
_last_end_ms = time.ticks_ms()
_blockers = {}  # row name: the task name that keeps it waiting the most
_due = {}  # key: [ticks_ms of the due() call + ms, ms, the next end or begin's + ms or None, after_slice]


def _row(name):
    r = _rows.get(name)
    if r is None:
        # slices, microseconds, instances ended by an error, instances, bound in microseconds,
        # lateness: resumes with a due(), greatest lower and upper bounds, their sums (ms), and
        # whether a resume had no due()
        r = _rows[name] = [0, 0, 0, -1, 0, 0, 0, 0, 0, 0, False]
    return r


def _close_ended(now):
    for r, t in _ended:
        r[4] += time.ticks_diff(now, t)
    del _ended[:]


def blocker(name, by):
    # the task named by keeps the row name waiting the most of its late time
    _blockers[name] = by


def due(key, ms=0, after_slice=False):
    _due[key] = [time.ticks_add(time.ticks_ms(), ms), ms, None, after_slice]


def due_by(key):
    # the due time of key's next resume is set by now (e.g. right after an event's set())
    d = _due[key]
    if d[2] is None:
        d[2] = time.ticks_add(time.ticks_ms(), d[1])


def _due_by(now_ms, in_slice_only):
    # the due times set since due() was called: no later than now
    for d in _due.values():
        if d[2] is None and not (in_slice_only and d[3]):
            d[2] = time.ticks_add(now_ms, d[1])


def begin(key):
    now = time.ticks_us()
    now_ms = time.ticks_ms()
    _close_ended(now)
    _due_by(now_ms, False)
    late = None
    d = _due.pop(key, None)
    if d is not None:
        late = (max(0, time.ticks_diff(_last_end_ms, d[2])), max(0, time.ticks_diff(now_ms, d[0])))
    _t0[key] = (now, time.ticks_diff(now, _last_end), late)


def end(key, name, error=False):
    # error: this slice ended the instance with an exception or a cancellation
    global _last_end, _last_end_ms
    now = time.ticks_us()
    t0, before, late = _t0.pop(key)
    r = _row(name)
    r[0] += 1
    r[1] += time.ticks_diff(now, t0)
    r[4] += before + time.ticks_diff(now, t0)
    if error:
        r[2] += 1
    if late is None:
        r[10] = True
    else:
        r[5] += 1
        r[6] = max(r[6], late[0])
        r[7] = max(r[7], late[1])
        r[8] += late[0]
        r[9] += late[1]
    _ended.append((r, now))
    _last_end = now
    _last_end_ms = time.ticks_ms()
    _due_by(_last_end_ms, True)


def born(name, n=1):
    # an instance of name was created (rows without born() calls do not check instances)
    r = _row(name)
    r[3] = n if r[3] < 0 else r[3] + n


def count(name, slices=1, errors=0):
    # slices too short to time (the check then looks at counts only)
    r = _row(name)
    r[0] += slices
    r[1] = -1
    r[2] += errors


def report():
    # called in a later slice than any it reports on: their bounds end here at the latest
    _close_ended(time.ticks_us())
    for name in sorted(_rows):
        n, us, err, inst, bound, late_n, lo_max, hi_max, lo_sum, hi_sum, no_due = _rows[name]
        late = ""
        if late_n and not no_due:
            late = " late_n=%d late_lo_max=%d late_hi_max=%d late_lo_sum=%d late_hi_sum=%d" % (
                late_n, lo_max, hi_max, lo_sum, hi_sum)
            if name in _blockers:
                late += " blocked_by=%s" % _blockers[name]
        print("truth %s count=%d total_us=%d bound_us=%d errors=%d instances=%d%s" % (
            name, n, us, bound, err, inst, late))
