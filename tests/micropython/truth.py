# What a test script measures itself, to compare with the host's report of the same run: each
# task calls begin() when it is resumed and end() before it suspends; the script prints
# report() at the end as "truth NAME count=N total_us=T bound_us=B errors=E instances=I" lines
# (device text, which aioprof-top passes on as "device: ..." lines on stderr).
#
# bound_us: what the hook can have measured at most. The loop runs one task at a time, so the
# hook's slice of a task starts after the previous end() (of any task) and ends before the next
# begin() (of any task): its length is at most that span, whatever the machine's load put into it.
import time

_rows = {}
_t0 = {}
_last_end = time.ticks_us()  # the latest end() of any task (at first: before the loop started)
_ended = []  # (row, ticks) of slices that ended and wait for the next begin()


def _row(name):
    r = _rows.get(name)
    if r is None:
        # slices, microseconds, instances ended by an error, instances, bound in microseconds
        r = _rows[name] = [0, 0, 0, -1, 0]
    return r


def _close_ended(now):
    for r, t in _ended:
        r[4] += time.ticks_diff(now, t)
    del _ended[:]


def begin(key):
    now = time.ticks_us()
    _close_ended(now)
    _t0[key] = (now, time.ticks_diff(now, _last_end))


def end(key, name, error=False):
    # error: this slice ended the instance with an exception or a cancellation
    global _last_end
    now = time.ticks_us()
    t0, before = _t0.pop(key)
    r = _row(name)
    r[0] += 1
    r[1] += time.ticks_diff(now, t0)
    r[4] += before + time.ticks_diff(now, t0)
    if error:
        r[2] += 1
    _ended.append((r, now))
    _last_end = now


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
        n, us, err, inst, bound = _rows[name]
        print("truth %s count=%d total_us=%d bound_us=%d errors=%d instances=%d" % (name, n, us, bound, err, inst))
